"""Taking over a seat another phone holds (issue 7 item 12).

The phone that opened a table is its host (it holds the host token ``POST /api/tables``
answered; the table keeps only its digest, in the setup). A taken seat is taken over at once by
the host, or when no phone has held it on a socket for ``seat_idle_seconds``; otherwise the
asking phone gets a request id, the sockets holding that seat and the host's sockets are asked,
and the first answer decides. The asker polls ``GET /api/tables/{t}/takeovers/{rid}``.

A seat a table device holds (one phone or tablet in the middle of the table, for the players
without their own: sockets marked ``device``) is a seat in use like any other (issue 21 item
2): a personal phone asking for it is answered by the device or the host (one tap).

Everything here is bounded: requests expire (``takeover_seconds``) and are forgotten a while
later, at most ``takeovers_waiting`` wait per table, and the times seats were last held are
kept only as long as they matter (``seat_idle_seconds``), in expiry queues.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from ..decide.limits import Limits, Throttle
from ..decide.table import Table
from ..store.records import hash_token
from .hub import Hub
from .sockets import Conn

__all__ = ["TAKEOVERS_KEY", "Takeover", "Takeovers", "is_host"]

#: Requests kept in all (each table has at most ``takeovers_waiting`` waiting at once).
MAX_REQUESTS = 10_000


def is_host(table: Table, token: object) -> bool:
    """Whether ``token`` is the table's host token."""
    digest = table.row.setup.get("host")
    if not isinstance(token, str) or not isinstance(digest, str) or not 20 <= len(token) <= 100:
        return False
    return hmac.compare_digest(hash_token(token), digest)


@dataclass(eq=False)
class Takeover:
    """One request to take over a seat."""

    id: str
    table: str
    seat: str
    created: float
    expires: float
    status: str = "pending"  # pending, granting, allowed, refused, expired
    token: str | None = None
    token_given: bool = False
    done: asyncio.Event = field(default_factory=asyncio.Event)
    #: For a request put on another server sharing the store (issue 10): that server's id.
    #: Phones here may answer it; the answer goes back there, which decides.
    origin: str | None = None

    def state(self, now: float | None = None) -> str:
        """``pending``, ``allowed``, ``refused`` or ``expired`` as of now."""
        now = time.monotonic() if now is None else now
        if self.status in ("pending", "granting") and now >= self.expires:
            return "expired"
        return "pending" if self.status == "granting" else self.status

    def message(self) -> dict[str, Any]:
        """The question put to the seat's holder and the host."""
        return {"type": "takeover_request", "request": self.id, "seat": self.seat}


class Takeovers:
    """The takeover requests, the host sockets, and when each seat was last held."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.requests: OrderedDict[str, Takeover] = OrderedDict()
        #: table -> its requests still kept (at most ``takeovers_waiting`` waiting).
        self.by_table: dict[str, list[Takeover]] = {}
        #: (table, seat) -> when a socket (a personal phone's or a table device's) last
        #: stopped holding the seat (an expiry queue).
        self.released: OrderedDict[tuple[str, str], float] = OrderedDict()
        #: Sockets that said hello with their table's host token.
        self.hosts: set[Conn] = set()
        self.throttle = Throttle(limits.takeovers, limits.work_window)
        #: When several servers share the store (issue 10): how to send them all a notice,
        #: this server's id in them, when another server last said one of its sockets holds
        #: a seat, and until when this server can't know that (after it starts, or after
        #: notices were lost): a takeover of a taken seat then asks.
        self.feed: Callable[[str, str, str], None] | None = None
        self.me = secrets.token_hex(6)
        self.elsewhere: OrderedDict[tuple[str, str], float] = OrderedDict()
        self.unsure_until = 0.0

    def share(self, feed: Callable[[str, str, str], None]) -> None:
        """Several servers share the store: tell them of takeovers and held seats."""
        self.feed = feed
        self.unsure()

    def unsure(self) -> None:
        """Seats held on other servers can't be known for a while (until they next say)."""
        self.unsure_until = time.monotonic() + self._heard_for()

    def _heard_for(self) -> float:
        return self.limits.seat_idle_seconds + 2 * self.limits.sweep

    def _tell(self, kind: str, table_id: str, **detail: Any) -> None:
        if self.feed is not None:
            self.feed(kind, table_id, json.dumps({"from": self.me, **detail}))

    def tell(self, kind: str, table_id: str, **detail: Any) -> None:
        """Send the other servers a notice about the table, naming this server (nothing
        without other servers): the undo questions use it too (:mod:`.undoasks`)."""
        self._tell(kind, table_id, **detail)

    def holding(self, table_id: str, seats: Collection[str]) -> None:
        """Tell the other servers that sockets here hold ``seats`` of the table (a table
        device's as a personal phone's: both are in use. Older builds also named the seats
        only devices held, which they gave away at once: not naming any keeps them asking)."""
        if seats:
            self._tell("holding", table_id, seats=sorted(seats))

    def holding_conns(self, table_id: str, conns: Iterable[Conn]) -> None:
        """Tell the other servers the seats ``conns`` (sockets of the table) hold."""
        self.holding(table_id, {seat for conn in conns for seat in conn.seats})

    def announce(self, hub: Hub) -> None:
        """Tell the other servers every seat held on a socket here (every ``limits.sweep``
        seconds: a seat they stop hearing of is free of this server's phones)."""
        for table_id, conns in list(hub.conns.items()):
            self.holding_conns(table_id, conns)

    def heard_holding(
        self, table_id: str, seats: Iterable[str], devices: Iterable[str] = ()
    ) -> None:
        """Another server said sockets of its hold ``seats`` of the table. ``devices`` (those
        of them only table devices hold there, from an older build) changes nothing: a seat a
        device holds is in use."""
        now = time.monotonic()
        for seat in seats:
            self.elsewhere[(table_id, seat)] = now
            self.elsewhere.move_to_end((table_id, seat))
        _expire(self.elsewhere, now, self._heard_for())

    # -- who holds a seat ----------------------------------------------------------------------

    def release(self, table_id: str, seat: str, device: bool = False) -> None:
        """A socket stopped holding ``seat`` (it closed, said hello again, or lost the seat);
        ``device``: a table device's, which holds it as lately as a phone's."""
        now = time.monotonic()
        key = (table_id, seat)
        self.released[key] = now
        self.released.move_to_end(key)
        self._prune(now)

    def _prune(self, now: float) -> None:
        _expire(self.released, now, self.limits.seat_idle_seconds)
        while self.requests:
            rid, request = next(iter(self.requests.items()))
            # Kept a while after they expire, so that a late poll hears "expired".
            if now < request.expires + self.limits.takeover_seconds:
                break
            del self.requests[rid]
            kept = [r for r in self.by_table.get(request.table, ()) if r is not request]
            if kept:
                self.by_table[request.table] = kept
            else:
                self.by_table.pop(request.table, None)

    def holders(self, hub: Hub, table: Table, seat: str) -> list[Conn]:
        """The sockets holding ``seat`` now."""
        return [c for c in hub.conns.get(table.id, ()) if c.holds(seat)]

    def held_lately(self, hub: Hub, table: Table, seat: str) -> bool:
        """Whether a socket holds the seat now, a personal phone's or a table device's (a seat
        a device holds is in use: issue 21 item 2), or did within ``seat_idle_seconds``, here
        or on another server: then a takeover needs the holder's or the host's approval."""
        if self.holders(hub, table, seat):
            return True
        now = time.monotonic()
        self._prune(now)
        at = self.released.get((table.id, seat))
        if at is not None and now - at < self.limits.seat_idle_seconds:
            return True
        return self.held_elsewhere(table.id, seat)

    def held_elsewhere(self, table_id: str, seat: str, *, heard: bool = False) -> bool:
        """Whether another server said lately that a socket of its holds the seat (or, unless
        only what was ``heard`` counts, this one can't know yet: it started, or notices were
        lost); never without other servers."""
        if self.feed is None:
            return False
        now = time.monotonic()
        at = self.elsewhere.get((table_id, seat))
        said = at is not None and now - at < self._heard_for()
        return said or (not heard and now < self.unsure_until)

    def on_device(self, hub: Hub, table: Table, seat: str) -> bool:
        """Whether table devices, and no personal phone, hold ``seat`` on sockets here now
        (what a page asking for the seat is told: the table device is asked)."""
        holders = self.holders(hub, table, seat)
        return bool(holders) and all(c.device for c in holders)

    def host_sockets(self, hub: Hub, table: Table) -> list[Conn]:
        """The host's sockets on the table."""
        return [c for c in hub.conns.get(table.id, ()) if c in self.hosts]

    # -- requests ------------------------------------------------------------------------------

    def waiting(self, table_id: str, seat: str | None = None) -> list[Takeover]:
        """The table's requests still waiting for an answer (for ``seat``, if given)."""
        now = time.monotonic()
        return [
            r
            for r in self.by_table.get(table_id, ())
            if (seat is None or r.seat == seat) and r.state(now) == "pending"
        ]

    def ask(self, hub: Hub, table: Table, seat: str) -> Takeover | None:
        """A new request, put to the holder's and the host's sockets; ``None`` if too many
        are waiting already."""
        now = time.monotonic()
        self._prune(now)
        if len(self.requests) >= MAX_REQUESTS:
            return None
        if len(self.waiting(table.id)) >= self.limits.takeovers_waiting:
            return None
        request = Takeover(
            id=request_id(hub.owners.address),
            table=table.id,
            seat=seat,
            created=now,
            expires=now + self.limits.takeover_seconds,
        )
        self._keep(hub, table, request)
        self._tell(
            "ask", table.id, request=request.id, seat=seat, seconds=self.limits.takeover_seconds
        )
        return request

    def _keep(self, hub: Hub, table: Table, request: Takeover) -> None:
        self.requests[request.id] = request
        self.by_table.setdefault(table.id, []).append(request)
        for conn in self.askees(hub, table, request):
            conn.send_json(request.message())

    def mirror(
        self, hub: Hub, table: Table, origin: str, rid: str, seat: str, seconds: float
    ) -> None:
        """A request put on another server: put to the sockets here that may answer it."""
        now = time.monotonic()
        self._prune(now)
        if rid in self.requests or len(self.requests) >= MAX_REQUESTS:
            return
        seconds = max(0.0, min(float(seconds), self.limits.takeover_seconds))
        request = Takeover(rid, table.id, seat, now, now + seconds, origin=origin)
        self._keep(hub, table, request)

    def relay_answer(self, request: Takeover, allow: bool) -> None:
        """A phone here answered a request put on another server: the answer goes there."""
        request.status = "granting"  # shown as pending until that server says how it ended
        self._tell("answer", request.table, to=request.origin, request=request.id, allow=allow)

    def askees(self, hub: Hub, table: Table, request: Takeover) -> list[Conn]:
        """The sockets that may answer ``request``: the seat's holders and the host's."""
        out = self.holders(hub, table, request.seat)
        out += [c for c in self.host_sockets(hub, table) if c not in out]
        return out

    def may_answer(self, conn: Conn, request: Takeover) -> bool:
        """Whether ``conn`` is asked: it holds the seat, or is the host's."""
        return conn.table.id == request.table and (conn.holds(request.seat) or conn in self.hosts)

    def finish(
        self,
        hub: Hub,
        table: Table,
        request: Takeover,
        status: str,
        told: list[Conn] | None = None,
    ) -> None:
        """Settle a request and tell the sockets that were asked (``told``: as they were)."""
        request.status = status
        request.done.set()
        notice = {"type": "takeover_closed", "request": request.id, "status": status}
        for conn in self.askees(hub, table, request) if told is None else told:
            conn.send_json(notice)
        if request.origin is None:  # the servers that put it to their phones close it too
            self._tell("closed", table.id, request=request.id, status=status)

    def seat_changed(self, hub: Hub, table: Table, seat: str) -> None:
        """The seat changed hands: requests for it waiting are moot (they expire)."""
        for request in self.waiting(table.id, seat):
            if request.status == "pending":
                request.expires = time.monotonic()
                request.done.set()

    def answer(self, request: Takeover) -> dict[str, Any]:
        """What a poll of ``request`` is told; the token only once."""
        state = request.state()
        out: dict[str, Any] = {"request": request.id, "seat": request.seat, "status": state}
        if state == "allowed" and request.token is not None and not request.token_given:
            out["token"] = request.token
            request.token_given = True
            request.token = None
        elif state == "pending":
            out["expires"] = max(0.0, round(request.expires - time.monotonic(), 1))
        return out


def _expire(queue: OrderedDict[tuple[str, str], float], now: float, keep: float) -> None:
    """Forget the entries of an expiry queue (oldest first) older than ``keep`` seconds."""
    while queue:
        _key, at = next(iter(queue.items()))
        if now - at < keep:
            break
        queue.popitem(last=False)


def request_id(address: str) -> str:
    """A new request's id: random, and naming where this process is reached (its internal
    address, if it has one), so that any process on the store can pass the asker's polls to
    this one, which decides the request (issue 18 item 2: no proxy keeps an asker on one
    process). A process passes a poll only to an address a process of the store registered
    (:meth:`.owners.Owners.ask`): a made-up id never sends a process (and the key it shows)
    elsewhere."""
    token = secrets.token_urlsafe(16)
    if not address:
        return token
    named = base64.urlsafe_b64encode(address.encode()).decode().rstrip("=")
    return f"{token}.{named}"


def origin_of(rid: str) -> str | None:
    """The internal address a request id names (:func:`request_id`), if it names one."""
    token, named, more = [*rid.split(".", 2), "", ""][:3]
    if not token or more or not 0 < len(named) <= 200:
        return None
    try:
        return base64.urlsafe_b64decode(named + "=" * (-len(named) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


TAKEOVERS_KEY = web.AppKey("takeovers", Takeovers)

"""``{"type": "hello", ...}``: the seats a socket's tokens hold, whether it is a table device's,
and the welcome (its table as of the last event written); with the host's token, the socket is
the host's, and is put the takeover requests it should answer."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ...decide.errors import TableError
from ...decide.messages import TOKEN
from ...decide.setup import MAX_PLAYERS
from ...decide.table import Table
from ...live.hub import HUB_KEY, Hub
from ...live.sockets import Conn, error_message
from ...live.takeover import TAKEOVERS_KEY, Takeovers, is_host
from ...live.toolmessages import now_ms, tools_view
from ...store.records import hash_token

__all__ = ["DEVICES", "handle", "seats_full", "seats_of", "welcome"]

#: What a socket is: a table device's (one phone or tablet for the players without their
#: own) or a personal phone's (the default).
DEVICES = ("table", "phone")


def handle(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """A hello: the seats it no longer holds are let go (and uncounted), then the welcome,
    then, for the host's socket, the takeover requests waiting."""
    hub, takeovers = app[HUB_KEY], app[TAKEOVERS_KEY]
    # A welcome is up to a page of the timeline: after the first, hellos spend the
    # socket's history-page budget (a hello a message would be a page a message).
    if conn.hello and not conn.pages.take():
        conn.send_json(error_message(None, "throttled", Sentence("Too many hellos; slow down.")))
        return
    held, device = list(conn.seats), conn.device
    _hello(hub, takeovers, conn, msg)
    for seat in held:
        if not conn.holds(seat):
            takeovers.release(conn.table.id, seat, device)
            if conn.uncount is not None:
                conn.uncount(seat)
    _host_hello(takeovers, conn, msg)


def _hello(hub: Hub, takeovers: Takeovers, conn: Conn, msg: dict[str, Any]) -> None:
    """``{"type": "hello", "token": T, "tokens": [T, ...], "since": N, "device": D}``: the
    seats the tokens hold (``token`` and ``tokens`` together), whether the socket is a table
    device's (``"table"``; ``"phone"``: a personal phone; absent: as its URL said), and the
    welcome."""
    table = conn.table
    since = msg.get("since", 0)
    token = msg.get("token")
    tokens = msg.get("tokens", [])
    device = msg.get("device", "table" if conn.device else "phone")
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        conn.send_json(
            error_message(None, "malformed", Sentence('"since" is the last sequence number seen.'))
        )
        return
    if device not in DEVICES:
        conn.send_json(
            error_message(
                None,
                "malformed",
                Sentence('"device" is "table" (one device for the table) or "phone".'),
                member="device",
            )
        )
        return
    if since > table.last_seq:
        since = 0
    if tokens is None:
        tokens = []
    if not conn.spectator:
        problem = None
        if token is not None and not (isinstance(token, str) and TOKEN.match(token)):
            problem = ("token", Sentence('"token" is a seat token.'))
        elif not isinstance(tokens, list) or not all(
            isinstance(t, str) and TOKEN.match(t) for t in tokens
        ):
            problem = ("tokens", Sentence('"tokens" is a list of seat tokens.'))
        elif len(tokens) > MAX_PLAYERS:
            problem = (
                "tokens",
                Sentence('"tokens" holds at most {n} (a table\'s seats).', n=MAX_PLAYERS),
            )
        if problem is not None:
            conn.send_json(error_message(None, "malformed", problem[1], member=problem[0]))
            return
    given = ([] if token is None else [token]) + (tokens if isinstance(tokens, list) else [])
    conn.seats = []
    conn.device = device == "table"
    if not given and conn.recount is not None:
        conn.recount([])  # the seats its URL named, if any, are not held: counted out
    if given:
        if conn.spectator:
            conn.send_json(
                error_message(None, "spectator", Sentence("Spectators can watch but not act."))
            )
        else:
            found = seats_of(table, given)
            # Counted for each seat it holds (the cap on sockets per seat), as when it opens
            # with the tokens in its URL: a seat at its cap is not held by this socket.
            full = [] if conn.recount is None else conn.recount(found)
            conn.seats = [s for s in found if s not in full]
            if full:
                conn.send_json(seats_full(hub, table, full, "tokens" if tokens else "token"))
            if conn.seats:  # the other servers hear of it (and of who else holds them here)
                mine = set(conn.seats)
                takeovers.holding_conns(
                    table.id, [c for c in hub.conns.get(table.id, ()) if mine & set(c.seats)]
                )
            lost = len(set(given)) - len(found)
            if lost:
                conn.send_json(
                    error_message(
                        None,
                        "bad-token",
                        Sentence("This seat token no longer holds a seat.")
                        if lost == 1 and len(given) == 1
                        else Sentence("{n} of these seat tokens no longer hold a seat.", n=lost),
                    )
                )
    welcome(conn, since, host=not conn.spectator and is_host(table, msg.get("host")))


def welcome(conn: Conn, since: int, host: bool | None = None) -> None:
    """Send ``conn`` its table as of the last event written, with the entries after ``since``
    (after a hello, or when another server's write made what it was shown stale). Made from
    cached texts: it costs the size of the welcome (at most the newest PAGE entries), never
    the length of the game."""
    table = conn.table
    if host is None:
        host = conn.host
    try:
        text = table.snapshot_text(
            since,
            type="welcome",
            seat=conn.seat,
            seats=conn.seats,
            device="table" if conn.device else "phone",
            spectator=conn.spectator,
            taken=sorted(table.seats),
            host=host,
            tools=tools_view(table),
            now=now_ms(),
        )
    except TableError as exc:
        conn.send_json({"type": "error", "id": None, **exc.to_json()})
        return
    conn.hello = True
    conn.host = host
    conn.send(text)


def _host_hello(takeovers: Takeovers, conn: Conn, msg: dict[str, Any]) -> None:
    """After a welcome: a hello with the table's host token makes the socket the host's; the
    takeover requests it (as host, or as the seat's holder) should answer are put to it."""
    if not conn.hello:
        return
    if not conn.spectator and is_host(conn.table, msg.get("host")):
        takeovers.hosts.add(conn)
    else:
        takeovers.hosts.discard(conn)
    for asked in takeovers.waiting(conn.table.id):
        if takeovers.may_answer(conn, asked):
            conn.send_json(asked.message())


def seats_full(hub: Hub, table: Table, full: list[str], member: str) -> dict[str, Any]:
    """The error for seats a socket does not hold: each has as many sockets as it may."""
    names = ", ".join(table.label(s) for s in full)
    return error_message(
        None,
        "too-many-sockets",
        Sentence(
            "At most {n} connections for one seat: this one does not hold {names}'s.",
            n=hub.limits.sockets_per_seat,
            names=names,
        ),
        member=member,
        seats=full,
    )


def seats_of(table: Table, tokens: list[str]) -> list[str]:
    """The seats ``tokens`` hold, in seating order (a token that is not one, or holds no
    seat, holds nothing)."""
    digests = {hash_token(t) for t in tokens if TOKEN.match(t)}
    return [s for s in table.player_ids() if table.seats.get(s) in digests]

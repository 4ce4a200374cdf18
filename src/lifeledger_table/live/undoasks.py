"""Undo of another seat's change (issue 17 item 10): the seat that made it (or the host) is
asked, and the first answer decides.

A seat's Undo takes back that seat's own change at once. The table's last change may be
another seat's: then the undo is put as a question to the sockets holding that seat (its phone,
or the table device holding it) and to the host's, never to the asker's own socket; the first
to answer decides, and the undo is applied as the asker's, noting who allowed it. A question
lasts :data:`ASK_SECONDS`; it is dropped when it can no longer be answered as asked (the table
changed meanwhile, here or through a phone on another process: the answer is then told why).
The host asking for a change whose seat no socket holds, here or on another process, is
answered at once: the host is the one who would be asked.

A table's phones may be on several processes sharing the store (issue 18 item 2). A question
lives on the process of the phone that asked (its origin), which decides it. The table's owner
checks whose change an undo forwarded to it takes back, when it decides it (issue 26 item 4),
since the copy on the phone's process may not hold that change yet: one of another seat's, not
the socket's, comes back to be asked here (:attr:`.Subscribers.undo_asked`). A question is
also told to the other processes through the store's notices, as seat takeovers are
(:mod:`.takeover`): ``undo_ask`` (each process with the table in memory puts it to its own
sockets holding the seat and to its host's: a mirror of the question), ``undo_answer`` (a
socket there answered: the answer goes to the origin, whose first answer decides),
``undo_closed`` (the question is over at the origin: the mirrors close it for their sockets). A
mirror also ends on its own when its time is up; a seat held on another process counts as held
(its ``holding`` notices).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide.errors import with_sentence
from ..decide.table import Table
from .hub import Hub
from .sockets import Conn, error_message
from .takeover import Takeovers

__all__ = [
    "ASKS_PER_TABLE",
    "ASK_SECONDS",
    "NOTICES",
    "UNDO_ASKS_KEY",
    "UndoAsk",
    "UndoAsks",
]

#: How long a question waits for an answer.
ASK_SECONDS = 60.0
#: The most questions a table keeps waiting at once (a new one from a socket replaces its own),
#: and the most mirrors of other processes' questions it keeps.
ASKS_PER_TABLE = 16
#: The notices the processes sharing a store send one another about undo questions.
NOTICES = ("undo_ask", "undo_answer", "undo_closed")
#: How a question may close (what a mirror is told by the origin).
_STATUSES = ("allowed", "refused", "expired", "stale", "replaced")


@dataclass(eq=False)
class UndoAsk:
    """One question: ``asker`` (its socket) wants to take back event ``target``, ``owner``'s.
    A mirror (a question asked on the process ``origin``) has no asker here."""

    rid: str
    table: Table
    asker: Conn | None
    seat: str
    cid: str
    target: int
    owner: str
    body: dict[str, Any]
    expires: float
    asked: list[Conn] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None
    #: A mirror's: the id of the process where the question was asked, which decides it.
    origin: str | None = None
    #: A mirror's: a socket here answered (the answer went to the origin).
    answered: bool = False

    def message(self) -> dict[str, Any]:
        """The question, as put to a socket that may answer it (``"sentence"``: who made the
        change, when that is words of the server's, "the table", for each phone's language)."""
        last = self.table.last
        action = last.body.get("action") if last is not None and last.seq == self.target else None
        question = {
            "type": "undo_request",
            "request": self.rid,
            "target": self.target,
            "seat": self.seat,
            "owner": self.owner,
            "by": self.table.undo_by(last) if action is not None else self.table.label(self.owner),
            "action": action,
            "expires": max(0, round(self.expires - time.monotonic())),
        }
        return with_sentence(question, "by")


class UndoAsks:
    """The questions waiting in one app (per table), and the mirrors of other processes'."""

    def __init__(self, takeovers: Takeovers) -> None:
        self.asks: dict[str, UndoAsk] = {}
        #: The same, by table (every message sent to a table's phones asks for its questions).
        self.by_table: dict[str, dict[str, UndoAsk]] = {}
        #: How the other processes are told (and who this one is in the notices).
        self.takeovers = takeovers
        #: Mirrors waiting for their table's copy to be current before they are put (kept so
        #: that they are not collected).
        self.putting: set[asyncio.Task[None]] = set()

    def of_table(self, table_id: str) -> list[UndoAsk]:
        """The questions asked here about the table (mirrors aside)."""
        return [a for a in self.by_table.get(table_id, {}).values() if a.origin is None]

    def mirrors(self, table_id: str) -> list[UndoAsk]:
        """The mirrors here of questions asked on other processes about the table."""
        return [a for a in self.by_table.get(table_id, {}).values() if a.origin is not None]

    def ask(
        self,
        hub: Hub,
        conn: Conn,
        cid: str,
        seat: str,
        target: int,
        owner: str,
        body: dict[str, Any],
    ) -> None:
        """``conn``'s undo (as ``seat``) of ``owner``'s change ``target``: put to those who may
        allow it (here, and on the other processes sharing the store), or decided at once (the
        host asking when nobody holds the seat, here or elsewhere), or refused (nobody to
        ask)."""
        table = conn.table
        for old in self.of_table(table.id):
            if old.asker is conn or old.cid == cid:
                if old.cid == cid and old.target == target:  # a retry: the same question
                    conn.send_json(self._asked(old))
                    return
                self.close(old, "replaced", Sentence("Another undo was asked from the same phone."))
        holders = [c for c in hub.conns.get(table.id, ()) if c.holds(owner) and c is not conn]
        hosts = [
            c
            for c in self.takeovers.hosts
            if c.table is table and c is not conn and c not in holders and not c.closing
        ]
        # A phone on another process holds the seat (or this one can't know yet).
        elsewhere = self.takeovers.held_elsewhere(table.id, owner)
        by = table.undo_by()
        if (
            not holders
            and conn.host
            and not self.takeovers.held_elsewhere(table.id, owner, heard=True)
        ):
            # The host is the one who would be asked: taken back at once. (Only a phone known
            # to hold the seat elsewhere is asked first: in the seconds after a start, before
            # the others have said which seats they hold, the host's undo is not kept waiting.)
            decide(hub, conn, cid, seat, {**body, "target": target, "allowed": "host"})
            return
        if not holders and not hosts and not elsewhere:
            conn.send_json(
                error_message(
                    cid,
                    "not-yours",
                    Sentence(
                        "That is {by}'s change: undo takes back your own. Neither {player}'s "
                        "device nor the host's is connected to allow taking it back.",
                        by=by,
                        player=table.label(owner),
                    ),
                    member="target",
                    owner=owner,
                )
            )
            return
        waiting = self.of_table(table.id)
        if len(waiting) >= ASKS_PER_TABLE:
            self.close(waiting[0], "expired", Sentence("Too many undo questions at once."))
        ask = UndoAsk(
            rid=secrets.token_urlsafe(12),
            table=table,
            asker=conn,
            seat=seat,
            cid=cid,
            target=target,
            owner=owner,
            body=body,
            expires=time.monotonic() + ASK_SECONDS,
            asked=holders + hosts,
        )
        self._keep(ask, ASK_SECONDS)
        # The other processes put it to their phones holding the seat, and to the host's.
        self.takeovers.tell(
            "undo_ask",
            table.id,
            request=ask.rid,
            seat=seat,
            owner=owner,
            target=target,
            seconds=ASK_SECONDS,
        )
        conn.send_json(self._asked(ask))

    def _keep(self, ask: UndoAsk, seconds: float, *, put: bool = True) -> None:
        """Keep a question (until answered, or ``seconds`` from now) and put it to its askees
        (unless not ``put``)."""
        self.asks[ask.rid] = ask
        self.by_table.setdefault(ask.table.id, {})[ask.rid] = ask
        ask.timer = asyncio.get_running_loop().call_later(
            seconds, lambda: self.close(ask, "expired", Sentence("Nobody answered in time."))
        )
        if put:
            for c in ask.asked:
                c.send_json(ask.message())

    def _asked(self, ask: UndoAsk) -> dict[str, Any]:
        """The asker's answer: its undo is a question now (its change leaves its pending list)."""
        table = ask.table
        who = table.label(ask.owner)
        return with_sentence(
            {
                "type": "undo_asked",
                "id": ask.cid,
                "request": ask.rid,
                "target": ask.target,
                "owner": ask.owner,
                "message": Sentence(
                    "That is {by}'s change: {player}'s device (or the host) is asked to allow "
                    "taking it back.",
                    by=table.undo_by(),
                    player=who,
                ),
            }
        )

    def answer(self, hub: Hub, conn: Conn, rid: object, allow: object) -> None:
        """``{"type": "undo_answer", "request": RID, "allow": bool}``: the first answer from a
        socket the question was put to decides (a mirror's goes to the process that asked)."""
        ask = self.asks.get(rid) if isinstance(rid, str) else None
        if not isinstance(allow, bool) or ask is None or conn not in ask.asked or ask.answered:
            conn.send_json(
                error_message(
                    None,
                    "unknown-request",
                    Sentence("There is no such undo question to answer (answered, or expired)."),
                )
            )
            return
        role = "owner" if conn.holds(ask.owner) else "host"
        if ask.origin is not None:  # asked on another process: that one decides
            ask.answered = True
            self.takeovers.tell(
                "undo_answer",
                ask.table.id,
                to=ask.origin,
                request=ask.rid,
                allow=allow,
                answerer=role,
            )
            return
        self._settle(hub, ask, allow, role, conn)

    def _settle(
        self, hub: Hub, ask: UndoAsk, allow: bool, role: str, also: Conn | None = None
    ) -> None:
        """The first answer to a question asked here: ``role`` ("owner": the seat's holder,
        or "host") allowed it or not (``also``: the socket here that answered)."""
        if not allow:
            self.close(ask, "refused", _refusal(ask, role))
            return
        allowed = ask.owner if role == "owner" else "host"
        self.close(ask, "allowed", "")
        assert ask.asker is not None
        decide(
            hub,
            ask.asker,
            ask.cid,
            ask.seat,
            {**ask.body, "target": ask.target, "allowed": allowed},
            also=also,
        )

    def close(self, ask: UndoAsk, status: str, message: str) -> None:
        """The question is over: everyone it was put to, and the asker, are told (and the
        other processes, of a question asked here)."""
        note = with_sentence(
            {"type": "undo_closed", "request": ask.rid, "status": status, "message": message}
        )
        if self._end(ask, note) and ask.origin is None:
            self.takeovers.tell(
                "undo_closed",
                ask.table.id,
                request=ask.rid,
                status=status,
                message=message,
                sentence=note.get("sentence"),
            )

    def _end(self, ask: UndoAsk, note: dict[str, Any] | None) -> bool:
        """Forget a question, telling its sockets ``note`` (if any); ``False``: it was over."""
        if self.asks.pop(ask.rid, None) is None:
            return False
        kept = self.by_table.get(ask.table.id, {})
        kept.pop(ask.rid, None)
        if not kept:
            self.by_table.pop(ask.table.id, None)
        if ask.timer is not None:
            ask.timer.cancel()
        if note is not None:
            for c in {*ask.asked, ask.asker} - {None}:
                assert c is not None
                c.send_json(note)
        return True

    def prune(self, table: Table) -> None:
        """After a change: the questions about a change that is no longer the one an undo
        would take back are over (the table moved on), and the asker is told."""
        if not self.asks:
            return
        target = table.undo_target()
        for ask in self.of_table(table.id):
            if ask.target != target:
                self.close(
                    ask,
                    "stale",
                    Sentence("The table has changed since: that is no longer the last change."),
                )

    def changed(self, hub: Hub, table: Table) -> None:
        """News of the table was sent to its phones here (a change written here or by its
        owner, whichever process's phone sent it): its questions asked here are pruned, on
        its copy brought up to date (nothing when none waits). A copy behind its owner's
        events is pruned once it has taken them in (in slices: :meth:`.Copies.catch_up`,
        which then calls this again), never on what it does not hold yet."""
        if table.id in self.by_table and self.of_table(table.id):
            if hub.owners.copies.behind_on(table):
                hub.owners.copies.catch_up(table)
                return
            self.prune(table)

    def forget(self, conn: Conn) -> None:
        """A socket closed: its questions go, and it answers no more."""
        for ask in list(self.asks.values()):
            if ask.asker is conn:
                self.close(ask, "expired", Sentence("The phone that asked has gone."))
            elif conn in ask.asked:
                ask.asked.remove(conn)
                if ask.origin is not None and not ask.asked:
                    self._end(ask, None)  # a mirror nobody here may answer any more

    # -- the other processes' notices ----------------------------------------------------------

    def relayed(self, hub: Hub, kind: str, table_id: str, info: dict[str, Any]) -> None:
        """A notice about an undo question from another process on the store (``info``: its
        detail, ``from`` naming that process): ``undo_ask`` (mirrored here), ``undo_answer``
        (a socket there answered a question asked here: the first answer decides),
        ``undo_closed`` (a question asked there is over). One naming a request, a table or a
        process other than the question's changes nothing."""
        rid, origin = info.get("request"), info.get("from")
        if not isinstance(rid, str) or not isinstance(origin, str):
            return
        ask = self.asks.get(rid)
        if kind == "undo_ask":
            if ask is None:
                self._mirror(hub, table_id, origin, rid, info)
        elif kind == "undo_answer":
            allow, role = info.get("allow"), info.get("answerer")
            if (
                ask is not None
                and ask.origin is None
                and ask.table.id == table_id
                and info.get("to") == self.takeovers.me
                and isinstance(allow, bool)
                and role in ("owner", "host")
            ):
                self._settle(hub, ask, allow, str(role))
        elif kind == "undo_closed":
            status, message = info.get("status"), info.get("message")
            if (
                ask is not None
                and ask.origin == origin
                and ask.table.id == table_id
                and status in _STATUSES
                and isinstance(message, str)
            ):
                note: dict[str, Any] = {
                    "type": "undo_closed",
                    "request": rid,
                    "status": status,
                    "message": message,
                }
                if isinstance(info.get("sentence"), dict):
                    note["sentence"] = info["sentence"]
                self._end(ask, note)

    def _mirror(self, hub: Hub, table_id: str, origin: str, rid: str, info: dict[str, Any]) -> None:
        """A question asked on another process: put to the sockets here holding the change's
        seat and to the host's (only a table in memory here has any), until that process
        closes it or its time is up."""
        table = hub.tables.get(table_id)
        seat, owner, target, left = (info.get(k) for k in ("seat", "owner", "target", "seconds"))
        if (
            table is None
            or not isinstance(seat, str)
            or not isinstance(owner, str)
            or type(target) is not int
            or not isinstance(left, (int, float))
            or isinstance(left, bool)
        ):
            return
        players = table.player_ids()
        if seat not in players or owner not in players:
            return
        seconds = max(0.0, min(float(left), ASK_SECONDS))
        holders = [c for c in hub.conns.get(table_id, ()) if c.holds(owner) and not c.closing]
        hosts = [
            c
            for c in self.takeovers.hosts
            if c.table is table and c not in holders and not c.closing
        ]
        if not holders + hosts or not seconds:
            return
        kept = self.mirrors(table_id)
        if len(kept) >= ASKS_PER_TABLE:
            self.close(kept[0], "expired", Sentence("Too many undo questions at once."))
        ask = UndoAsk(
            rid=rid,
            table=table,
            asker=None,
            seat=seat,
            cid="",
            target=target,
            owner=owner,
            body={},
            expires=time.monotonic() + seconds,
            asked=holders + hosts,
            origin=origin,
        )
        if not hub.owners.copies.behind_on(table):
            self._keep(ask, seconds)
            return
        # The question names the change as the copy here holds it: put once the copy has
        # taken in its owner's events (in slices, never holding the event loop).
        self._keep(ask, seconds, put=False)
        task = asyncio.get_running_loop().create_task(self._put_later(hub, ask))
        self.putting.add(task)
        task.add_done_callback(self.putting.discard)

    async def _put_later(self, hub: Hub, ask: UndoAsk) -> None:
        await hub.owners.copies.caught_up(ask.table)
        if self.asks.get(ask.rid) is ask:
            for c in ask.asked:
                c.send_json(ask.message())


def _refusal(ask: UndoAsk, role: str) -> str:
    """Who turned an undo down (``role``: "owner", the seat's holder, or "host"), as the
    question's close says it."""
    if role == "owner":
        return Sentence("{player} refused.", player=ask.table.label(ask.owner))
    return Sentence("The host refused.")


def decide(
    hub: Hub, conn: Conn, cid: str, seat: str, body: dict[str, Any], also: Conn | None = None
) -> None:
    """Decide an undo and queue it for writing (its event is ``conn``'s acknowledgement); a
    refusal is told to ``conn`` (and to ``also``, the socket that allowed it). A table another
    process decides: the undo is sent to it (a refusal is told to ``conn`` only)."""
    if conn.table.id not in hub.owners.mine:
        hub.owners.route(conn.table, conn, "undo", body, cid, seat)
        return
    # Through the writer: behind the table's requests that wait (its log being read).
    other = also if also is not conn else None
    hub.writer.handle(conn.table, conn, "undo", body, cid, seat, also=other, charged=False)


UNDO_ASKS_KEY = web.AppKey("undo_asks", UndoAsks)

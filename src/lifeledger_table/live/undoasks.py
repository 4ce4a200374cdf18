"""Undo of another seat's change (issue 17 item 10): the seat that made it (or the host) is
asked, and the first answer decides.

A seat's Undo takes back that seat's own change at once. The table's last change may be
another seat's: then the undo is put as a question to the sockets holding that seat (its phone,
or the table device holding it) and to the host's, never to the asker's own socket; the first
to answer decides, and the undo is applied as the asker's, noting who allowed it. A question
lasts :data:`ASK_SECONDS`; it is dropped when it can no longer be answered as asked (the table
changed meanwhile: the answer is then told why). The host asking for a change whose seat has no
socket here is answered at once: the host is the one who would be asked. Questions live in this
process's memory (a table's phones are routed to one process: docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import secrets
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from lifeledger.sentences import Sentence

from ..decide.errors import TableError, with_sentence
from ..decide.table import Table
from .hub import Hub
from .sockets import Conn, error_message
from .takeover import takeovers_of

__all__ = ["ASKS_PER_TABLE", "ASK_SECONDS", "UndoAsk", "UndoAsks", "undo_asks_of"]

#: How long a question waits for an answer.
ASK_SECONDS = 60.0
#: The most questions a table keeps waiting at once (a new one from a socket replaces its own).
ASKS_PER_TABLE = 16


@dataclass(eq=False)
class UndoAsk:
    """One question: ``asker`` (its socket) wants to take back event ``target``, ``owner``'s."""

    rid: str
    table: Table
    asker: Conn
    seat: str
    cid: str
    target: int
    owner: str
    body: dict[str, Any]
    expires: float
    asked: list[Conn] = field(default_factory=list)
    timer: asyncio.TimerHandle | None = None

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
    """The questions waiting in one app (per table)."""

    def __init__(self) -> None:
        self.asks: dict[str, UndoAsk] = {}

    def of_table(self, table_id: str) -> list[UndoAsk]:
        return [a for a in self.asks.values() if a.table.id == table_id]

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
        allow it, or decided at once (the host asking when nobody holds the seat here), or
        refused (nobody to ask)."""
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
            for c in takeovers_of(hub).hosts
            if c.table is table and c is not conn and c not in holders and not c.closing
        ]
        by = table.undo_by()
        if not holders and conn.host:
            # The host is the one who would be asked: taken back at once.
            decide(hub, conn, cid, seat, {**body, "target": target, "allowed": "host"})
            return
        if not holders and not hosts:
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
        self.asks[ask.rid] = ask
        ask.timer = asyncio.get_running_loop().call_later(
            ASK_SECONDS, lambda: self.close(ask, "expired", Sentence("Nobody answered in time."))
        )
        for c in ask.asked:
            c.send_json(ask.message())
        conn.send_json(self._asked(ask))

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
        socket the question was put to decides."""
        ask = self.asks.get(rid) if isinstance(rid, str) else None
        if not isinstance(allow, bool) or ask is None or conn not in ask.asked:
            conn.send_json(
                error_message(
                    None,
                    "unknown-request",
                    Sentence("There is no such undo question to answer (answered, or expired)."),
                )
            )
            return
        if not allow:
            self.close(ask, "refused", _answerer(ask, conn))
            return
        allowed = ask.owner if conn.holds(ask.owner) else "host"
        self.close(ask, "allowed", "")
        decide(
            hub,
            ask.asker,
            ask.cid,
            ask.seat,
            {**ask.body, "target": ask.target, "allowed": allowed},
            also=conn,
        )

    def close(self, ask: UndoAsk, status: str, message: str) -> None:
        """The question is over: everyone it was put to, and the asker, are told."""
        if self.asks.pop(ask.rid, None) is None:
            return
        if ask.timer is not None:
            ask.timer.cancel()
        note = with_sentence(
            {"type": "undo_closed", "request": ask.rid, "status": status, "message": message}
        )
        for c in {*ask.asked, ask.asker}:
            c.send_json(note)

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

    def forget(self, conn: Conn) -> None:
        """A socket closed: its questions go, and it answers no more."""
        for ask in list(self.asks.values()):
            if ask.asker is conn:
                self.close(ask, "expired", Sentence("The phone that asked has gone."))
            elif conn in ask.asked:
                ask.asked.remove(conn)


def _answerer(ask: UndoAsk, conn: Conn) -> str:
    """Who turned an undo down, as the question's close says it."""
    if conn.holds(ask.owner):
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
    try:
        decision = conn.table.decide("undo", body, cid, seat)
    except TableError as exc:
        for c in {conn, also} - {None}:
            assert c is not None
            c.send_json({"type": "error", "id": cid if c is conn else None, **exc.to_json()})
        return
    if isinstance(decision, int):
        hub.writer.retry(conn.table, conn, cid, decision)
    else:
        hub.writer.submit(decision, conn)


_REGISTRY: weakref.WeakKeyDictionary[Hub, UndoAsks] = weakref.WeakKeyDictionary()


def undo_asks_of(hub: Hub) -> UndoAsks:
    """The undo questions of the app whose hub is ``hub`` (made on first use)."""
    found = _REGISTRY.get(hub)
    if found is None:
        found = _REGISTRY[hub] = UndoAsks()
    return found

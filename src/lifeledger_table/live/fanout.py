"""The tables in memory and the sockets open on each, and sending a message to every socket
of a table (fan-out): what every part of the live server shares (:class:`.hub.Hub` adds the
loading and leaving of tables, the writer and the follower)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from ..decide.limits import Limits, WorkShares
from ..decide.messages import acknowledged
from ..decide.table import Decision, Table
from ..store.records import Store
from .sockets import Conn, Sender

__all__ = ["Fanout"]


class Fanout:
    """The tables in memory, the sockets open on each, and sending to them."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, set[Conn]] = {}
        #: What deciding the changes sent from each network costs (issue 21: a client with
        #: many tables gets one share, as one table does).
        self.shares = WorkShares()
        #: Each table's last seat work under way (a write of seats given here, or a read of
        #: seats another server gave): the next waits for it, so that they happen in order
        #: (:func:`.seats.grant_seats`, :meth:`.follow.Follower._catch_up`).
        self.seat_work: dict[str, asyncio.Future[None]] = {}
        #: How a phone is shown its table anew (a welcome after a sequence number): set by the
        #: app (the protocol knows how).
        self.welcome: Callable[[Conn, int], None] | None = None
        #: What is done with a change decided here once it is written, beyond sending it to
        #: the phones here: sent to the processes following its table (:mod:`.owners`).
        self.relay: Callable[[Table, Decision, Sender], None] | None = None
        #: Whether a table's changes are decided here now (:meth:`.owners.Owners.owns`), and
        #: how a change of one that is not goes to its owner (:meth:`.owners.Owners.route`;
        #: ``None``: every table is decided here): a phone's tool message goes this way.
        self.owns: Callable[[Table], bool] = lambda table: True
        self.route: Callable[[Table, Sender, str, dict[str, Any], str, str | None], None] | None = (
            None
        )
        #: What is done with a table's tools sent to its phones here (the JSON text, the
        #: sender and its message's id): sent to the processes following the table too
        #: (:meth:`.owners.Owners.relay_tools`).
        self.relay_tools: Callable[[Table, str, Sender | None, str], None] | None = None
        #: Brings the copy of a table another process decides up to date before it is read
        #: (:meth:`.owners.Owners.catch_up`).
        self.catch_up: Callable[[Table], None] = lambda table: None
        #: What follows news of a table sent to its phones here (a change written here, or
        #: by its owner, or the table shown anew): the undo questions about a change no
        #: longer last are over (:meth:`.undoasks.UndoAsks.changed`, set by
        #: :func:`.undoasks.undo_asks_of`).
        self.changed: Callable[[Table], None] = lambda table: None

    def broadcast(self, table: Table, message: dict[str, Any]) -> None:
        """Queue one message for every socket on the table (serialized once)."""
        self.send_all(table, json.dumps(message))

    def send_all(
        self, table: Table, text: str, sender: Sender | None = None, cid: str = ""
    ) -> None:
        """Queue one message, already JSON text (an object), for every socket on the table;
        ``sender`` gets it with ``"id": cid``, which acknowledges its change ``cid``."""
        for conn in self.conns.get(table.id, ()):
            if conn is sender:
                conn.send(acknowledged(text, cid))
            elif conn.hello:
                conn.send(text)
        self.changed(table)

    def resync(self, table: Table, since: int) -> None:
        """Show every phone of the table the table anew (a welcome after ``since``): what it
        was sent before may no longer be how the log goes on."""
        self.catch_up(table)
        if table.broken is not None:
            for conn in self.conns.get(table.id, ()):
                conn.send_json({"type": "error", "id": None, **table.broken.to_json()})
                conn.close()
            return
        self.changed(table)
        if self.welcome is not None:
            for conn in self.conns.get(table.id, ()):
                if conn.hello:
                    self.welcome(conn, since)

"""The tables in memory and the sockets open on each, and sending a message to every socket
of a table (fan-out): what every part of the live server shares (:class:`.hub.Hub` adds the
loading and leaving of tables, the writer and the follower)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ..decide.limits import Limits, WorkShares
from ..decide.messages import acknowledged
from ..decide.table import Table
from ..store.records import Store
from .sockets import Conn, Sender
from .subscribers import Subscribers

__all__ = ["Fanout"]


class Fanout:
    """The tables in memory, the sockets open on each, and sending to them."""

    def __init__(self, store: Store, limits: Limits, subscribers: Subscribers) -> None:
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
        #: Who hears of what is sent here (:mod:`.subscribers`): given by the composition root.
        self.subscribers = subscribers

    def broadcast(self, table: Table, message: dict[str, Any]) -> None:
        """Queue one message for every socket on the table (serialized once)."""
        self.send_all(table, json.dumps(message))

    def send_all(
        self, table: Table, text: str, sender: Sender | None = None, cid: str = ""
    ) -> None:
        """Send one message, already JSON text (an object), to every socket on the table, the
        same text to each (at once where nothing waits before it: :meth:`.Conn.send_now`);
        ``sender`` gets it with ``"id": cid``, which acknowledges its change ``cid``."""
        for conn in self.conns.get(table.id, ()):
            if conn is sender:
                conn.send_now(acknowledged(text, cid))
            elif conn.hello:
                conn.send_now(text)
        for changed in self.subscribers.changed:
            changed(table)

    def resync(self, table: Table, since: int) -> None:
        """Show every phone of the table the table anew (a welcome after ``since``): what it
        was sent before may no longer be how the log goes on."""
        for reading in self.subscribers.reading:
            reading(table)
        if table.broken is not None:
            for conn in self.conns.get(table.id, ()):
                conn.send_json({"type": "error", "id": None, **table.broken.to_json()})
                conn.close()
            return
        for changed in self.subscribers.changed:
            changed(table)
        for conn in self.conns.get(table.id, ()):
            if conn.hello:
                for welcome in self.subscribers.welcome:
                    welcome(conn, since)

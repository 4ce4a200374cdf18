"""The copies here of the tables followed at their owners (issue 18 item 2, :mod:`.owners`):
a follower sends the owner's messages to its phones as they come, and keeps the events; its
copy of the table takes them in only when something reads it (a phone's hello, undo or
history page, a page: :meth:`Copies.caught_up`; never a ping), or every :data:`.owners.BEHIND`
events (loaded again from the store, in a thread), so that following costs little. Taking
them in never holds the event loop (issue 26 item 2): one event a turn of the loop, what it
needs of the log read in the writer's threads, and its time spent from the table's share of
the server (``Table.share``): a table whose events cost more than its share waits, its
readers with it, while the other tables go on."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..decide.errors import TableError
from ..decide.limits import TABLE_BURST, TABLE_SHARE
from ..decide.table import Table
from ..store.records import Event
from .fanout import Fanout
from .links import Link
from .sockets import Conn
from .writer import Writer, take_in_one

__all__ = ["Copies"]

log = logging.getLogger("lifeledger_table")

#: How often (seconds) taking in a followed table's events looks again while it is loaded
#: again from the store.
RELOAD_POLL = 0.01


class Copies:
    """The events of each followed table kept and not yet taken into its copy here, and
    taking them in. ``remote`` is the owners' links to the owners of the tables followed here;
    ``tasks``, the owners' tasks (cancelled when the process stops)."""

    def __init__(
        self,
        hub: Fanout,
        writer: Writer,
        remote: dict[str, Link],
        tasks: set[asyncio.Task[Any]],
    ) -> None:
        self.hub = hub
        self.writer = writer
        self.remote = remote
        self.tasks = tasks
        #: Set once the process stops: no copy takes in events any more.
        self.stopping = False
        #: A followed table's events not yet taken into the copy here, and the newest sent
        #: to its phones here.
        self.behind: dict[str, list[Event]] = {}
        self.seen: dict[str, int] = {}
        #: Followed tables whose events from before the following began are being read from
        #: the store: the owner's events meanwhile are kept, not sent to the phones (they would
        #: skip those), with who sent each (acknowledged once the phones are shown the table).
        self.filling: dict[str, list[tuple[int, Conn | None, str]]] = {}
        #: Followed tables being loaded again, far behind (:meth:`refresh`).
        self.refreshing: set[str] = set()
        #: Followed tables whose copy is taking in the events kept (:meth:`catch_up`).
        self.taking: dict[str, asyncio.Task[None]] = {}
        #: Undos the owner sent back to be asked (``undo_ask``) that wait for the change they
        #: name to reach the copy here: by table, the sequence number and who waits. (Each is
        #: put as a question by the hub's subscribers: :attr:`.Subscribers.undo_asked`.)
        self.awaited: dict[str, list[tuple[int, asyncio.Future[None]]]] = {}

    def stop(self) -> None:
        """The process stops: no copy begins taking in events."""
        self.stopping = True

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def behind_on(self, table: Table) -> bool:
        """Whether the copy here of a table followed at its owner lacks events kept for it."""
        return bool(self.behind.get(table.id))

    def catch_up(self, table: Table) -> None:
        """Begin taking the events kept for a followed table into its copy here, in slices
        (:meth:`_take_in`); returns at once. (:meth:`caught_up` waits for it.)"""
        table_id = table.id
        if table_id in self.taking or not self.behind.get(table_id) or self.stopping:
            return
        task = asyncio.get_running_loop().create_task(self._take_in(table))
        self.taking[table_id] = task
        self.tasks.add(task)

        def done(_: asyncio.Task[None]) -> None:
            self.tasks.discard(task)
            if self.taking.get(table_id) is task:
                del self.taking[table_id]

        task.add_done_callback(done)

    async def caught_up(self, table: Table) -> None:
        """The copy here holds every event kept for it (before it is read: a phone's hello,
        undo or history page, a page): taken in by :meth:`catch_up`'s task, waited for.
        It returns with none kept (so that its caller reads the copy before any other
        arrives: no turn of the event loop between), or when taking them in makes no headway
        (events after a gap wait for the store's: :meth:`_fill`)."""
        while self.behind.get(table.id):
            self.catch_up(table)
            task = self.taking.get(table.id)
            if task is None:
                return
            before = table.last_seq
            await asyncio.shield(task)
            if table.last_seq == before:
                return

    async def _take_in(self, table: Table) -> None:
        """Take the kept events into the copy, one a turn of the event loop (the other
        tables' messages go between), each one's time spent from the table's share, and
        waiting while the table has spent more than its share (issue 26 item 2); what an
        event needs of the log is read in the writer's threads. An event that can't be taken
        in has the table loaded again from the store (off the event loop)."""
        table_id = table.id
        took = 0
        while self.hub.tables.get(table_id) is table:
            if table.reloading:
                await asyncio.sleep(RELOAD_POLL)  # (the load holds every event written)
                continue
            events = self.behind.get(table_id)
            while events and events[0].seq <= table.last_seq:
                events.pop(0)
            if not events:
                self.behind.pop(table_id, None)
                break
            if events[0].seq != table.last_seq + 1:
                break  # a gap, being filled from the store (fill)
            wait = _over_share(table)
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            try:
                text = await take_in_one(table, events[0], self.hub.store, self.writer.reads)
            except Exception:
                log.exception("table %s: could not take in its owner's events", table_id)
                self.behind.pop(table_id, None)
                self._spawn(self.reload(table))
                break
            if text is None:
                continue  # loaded again, or taken in meanwhile: looked at anew
            took += 1
            await asyncio.sleep(0)  # the other tables' turn
        if took and self.hub.tables.get(table_id) is table:
            for changed in self.hub.subscribers.changed:  # the questions about it, as it is now
                changed(table)

    async def refresh(self, table: Table) -> None:
        """A followed table's copy, far behind, loaded again from the store (which holds every
        event its owner sent: each is sent once written); the events kept that it holds are
        dropped. (Read meanwhile, the copy takes them in as usual.)"""
        try:
            if await self.writer.reload(table) and self.hub.tables.get(table.id) is table:
                kept = [e for e in self.behind.get(table.id, []) if e.seq > table.last_seq]
                if kept:
                    self.behind[table.id] = kept
                else:
                    self.behind.pop(table.id, None)
        finally:
            self.refreshing.discard(table.id)

    async def reload(self, table: Table) -> None:
        shown = table.last_seq
        if await self.writer.reload(table) and self.hub.tables.get(table.id) is table:
            await self.caught_up(table)  # the events kept past what the store held then
            if self.hub.tables.get(table.id) is table:
                self.hub.resync(table, shown)

    def arrived(self, table_id: str) -> None:
        """The events of a followed table seen here reached a new sequence number: the undos
        waiting for a change up to it go on (:meth:`.Owners._ask_undo`)."""
        waiting = self.awaited.get(table_id)
        if not waiting:
            return
        seen = self.seen.get(table_id, 0)
        for seq, arrived in waiting:
            if seq <= seen and not arrived.done():
                arrived.set_result(None)
        left = [(seq, a) for seq, a in waiting if not a.done()]
        if left:
            self.awaited[table_id] = left
        else:
            del self.awaited[table_id]

    async def fill(self, table: Table, link: Link, shown: int) -> None:
        """The owner wrote events this process had not seen when it began following: they
        are read from the store, and its phones here are shown the table anew."""
        table_id = table.id
        try:
            stored = await asyncio.to_thread(self.hub.store.events, table_id, table.last_seq)
        except Exception as exc:
            log.warning("table %s: could not read its owner's events (%s)", table_id, exc)
            stored = []
        if self.remote.get(table_id) is not link or self.hub.tables.get(table_id) is not table:
            self.filling.pop(table_id, None)
            return
        upto = stored[-1].seq if stored else table.last_seq
        newer = [e for e in self.behind.get(table_id, []) if e.seq > upto]
        self.behind[table_id] = [e for e in stored if e.seq > table.last_seq] + newer
        await self.caught_up(table)  # in slices (the owner's events meanwhile are kept)
        kept = self.filling.pop(table_id, [])
        if self.remote.get(table_id) is not link or self.hub.tables.get(table_id) is not table:
            return
        self.seen[table_id] = max(self.seen.get(table_id, 0), table.last_seq)
        self.arrived(table_id)
        self.hub.resync(table, shown)  # every event since, those kept meanwhile among them
        for seq, sender, cid in kept:
            if sender is not None and cid:
                sender.send_json({"type": "ack", "id": cid, "seq": seq})


def _over_share(table: Table) -> float:
    """Seconds until the table's changes are within their share of the server again (0:
    they are): what taking in a followed table's events waits (as its phones' changes are
    refused ``busy`` on its owner)."""
    try:
        table.share.check()
    except TableError:
        return (table.share.debt - TABLE_BURST) / TABLE_SHARE
    return 0.0

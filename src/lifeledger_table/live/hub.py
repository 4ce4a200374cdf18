"""The hub: the tables in memory (loaded on first use, leaving when idle) and the sockets on
each, and sending a message to every socket of a table (fan-out).

Where each step of a change happens: it is decided by :class:`.table.Table` on the
event loop, written by :class:`.writer.Writer` (in batches, off the loop), then acknowledged and
sent to every phone of the table (:class:`.fanout.Fanout`, which the hub is);
:class:`.follow.Follower` takes in what other servers on the same store wrote.
"""

from __future__ import annotations

import asyncio
import logging
import time

from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide.errors import TableError, TableUnavailable
from ..decide.limits import Limits, Throttle
from ..decide.table import Table
from ..store.records import DamagedError, Leases, Store, StoreError
from ..workers.replay import Replays
from .fanout import Fanout
from .follow import Follower
from .owners import Owners
from .subscribers import Subscribers
from .toolmessages import ToolWork
from .writer import Writer

__all__ = ["HUB_KEY", "Hub", "StorageDown"]

log = logging.getLogger("lifeledger_table")


class StorageDown(TableUnavailable):
    """A table that can't be loaded now because the store can't be read (a database server
    restarting): answered 503 ``storage``, and tried again at the next request (not kept, as
    a damaged log is)."""

    def __init__(self, table: str) -> None:
        TableError.__init__(
            self,
            "storage",
            Sentence("The table's storage can't be reached now; nothing changed. Try again."),
        )
        self.table = table
        self.seq = None


class Hub(Fanout):
    """The tables in memory and the sockets open on each, loading and leaving; the writer of
    the changes decided here, the owners (which tables this process decides), and the
    follower of the other servers' writes.

    Made by the composition root (:func:`lifeledger_table.server.assemble`), which gives it
    what it does not make: the store, the limits, the subscribers to its news, the leases and
    the tool changes' budgets. The writer, the owners and the follower each need the hub,
    and the hub them: it makes them, passing each what it needs by its constructor."""

    def __init__(
        self,
        store: Store,
        limits: Limits,
        subscribers: Subscribers,
        leases: Leases,
        tools: ToolWork,
    ) -> None:
        super().__init__(store, limits, subscribers)
        self.openings = Throttle(limits.tables_opened, limits.work_window)
        self.replays = Throttle(limits.replays, limits.work_window)
        self.downloads = Throttle(limits.downloads, limits.work_window)
        #: The records being replayed (a few at a time, each in a worker process).
        self.replaying = Replays()
        #: Tables whose setup can't be read: the error, kept so that it is not read again.
        self.broken: dict[str, TableUnavailable] = {}
        self.writer = Writer(self)
        #: Which tables this process decides, and the links to the others' owners.
        self.owners = Owners(self, self.writer, leases, tools)
        self.follower = Follower(self, self.writer, tools, self.owners.followed)
        #: Tables being loaded (off the event loop): every request for one waits for the same.
        self.loading: dict[str, asyncio.Future[Table | None]] = {}
        #: Spectator ids looked up lately -> their table's id (never changes): a spectator's
        #: request for a table in memory needs no lookup in the store, in a worker thread of
        #: the pool the tables' writes use too (issue 18 item 1: 100 addresses asking for a
        #: spectator view held every table's writes behind their lookups).
        self.watched: dict[str, str] = {}

    async def table(self, table_id: str) -> Table | None:
        """The table with this id, loaded from the store on first use (off the event loop:
        from its newest checkpoint); ``None`` if there is none. Raises
        :class:`TableUnavailable` for a table whose log can't be loaded (the failure is
        remembered: the log is not read again until the table leaves memory)."""
        table = self.tables.get(table_id)
        if table is None:
            if table_id in self.broken:
                raise self.broken[table_id]
            loading = self.loading.get(table_id)
            if loading is None:
                loading = asyncio.ensure_future(asyncio.to_thread(self._load, table_id))
                self.loading[table_id] = loading
                loading.add_done_callback(lambda _: self.loading.pop(table_id, None))
            try:
                table = await asyncio.shield(loading)
            except StoreError as exc:
                log.warning("table %s: could not be loaded (%s)", table_id, exc)
                raise StorageDown(table_id) from exc
            if table is None:
                return None
            self.tables.setdefault(table_id, table)
            table = self.tables[table_id]
            self.owners.settle(table_id)  # claimed, or followed at its owner
        await self.owners.copies.caught_up(table)  # a table followed here: what its owner decided
        table.used = time.monotonic()
        table.check()
        return table

    def _load(self, table_id: str) -> Table | None:
        try:
            return Table(self.store, table_id)  # a log that can't load: table.broken
        except KeyError:
            return None

    async def by_watch(self, watch: str) -> Table | None:
        """The table whose spectator id is ``watch`` (see :meth:`table`)."""
        known = self.watched.get(watch)
        if known is not None and known in self.tables:
            return await self.table(known)
        try:
            row = await asyncio.to_thread(self.store.table_by_watch, watch)
        except DamagedError as exc:
            self.broken.setdefault(exc.table, TableUnavailable(exc.table, None, "is damaged"))
            raise self.broken[exc.table] from exc
        except Exception as exc:
            log.exception("could not look up a watched table")
            raise TableUnavailable("?", None, f"can't be read ({type(exc).__name__})") from exc
        if row is None:
            return None
        if len(self.watched) >= 2 * self.limits.tables_held:
            self.watched.clear()  # bounded: those of tables in memory are found again
        self.watched[watch] = row.id
        return await self.table(row.id)

    def evict(self, now: float | None = None) -> int:
        """Let tables leave memory (their log stays in the store; the next request loads them
        again): every table nobody is connected to that has been idle for ``limits.idle``
        seconds, and, past ``limits.tables_held`` tables, the longest idle of those nobody is
        connected to (a soft cap: none used in the last ``limits.busy`` seconds). Returns how
        many left."""
        now = time.monotonic() if now is None else now
        writer = self.writer
        waiting = {t.id for t, *_ in writer.retries} | {d.event.table for d, _ in writer.batch}
        waiting |= set(writer.reloading) | set(writer.reading) | self.owners.busy()
        free = sorted(
            (t for t in self.tables.values() if t.id not in self.conns and t.id not in waiting),
            key=lambda t: t.used,
        )
        # A table used moments ago may still be in a request's hands (a seat being written):
        # only one unused for ``limits.busy`` seconds leaves, so that it is never loaded twice.
        free = [t for t in free if t.idle() and now - t.used >= self.limits.busy]
        over = max(0, len(self.tables) - self.limits.tables_held)
        gone = [t for i, t in enumerate(free) if i < over or now - t.used >= self.limits.idle]
        for table in gone:
            del self.tables[table.id]
            self.owners.gone(table.id)
        return len(gone)

    async def sweep(self) -> None:
        """Evict idle tables every ``limits.sweep`` seconds, for as long as the server runs."""
        while True:
            await asyncio.sleep(self.limits.sweep)
            self.evict()


HUB_KEY = web.AppKey("hub", Hub)

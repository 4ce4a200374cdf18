"""The hub: the tables in memory, the order of their changes, group commit, and fan-out.

Every change to a table is decided on the event loop, written to the store in a batch (off the
loop), and only then acknowledged to its sender and broadcast to every socket on the table.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from .errors import TableError, TableUnavailable
from .limits import Bucket, Limits, Throttle
from .replay import Replays
from .store import DamagedError, DuplicateError, Store
from .table import Decision, Table

__all__ = ["HUB_KEY", "Conn", "Hub", "error_message"]

log = logging.getLogger("lifeledger_table")


def error_message(cid: str | None, code: str, message: str, **extra: Any) -> dict[str, Any]:
    """An error as sent on a socket, answering the change ``cid`` (``None``: no change)."""
    return {"type": "error", "id": cid, "error": code, "message": message, **extra}


@dataclass(eq=False)
class Conn:
    """One open WebSocket: who is on it, and its outgoing queue (kept in order)."""

    ws: web.WebSocketResponse
    table: Table
    spectator: bool
    limits: Limits
    seat: str | None = None
    hello: bool = False
    #: Whether its last hello carried the table's host token.
    host: bool = False
    dropped: int = 0
    #: The characters (= bytes: the JSON is ASCII) queued and not yet sent.
    queued: int = 0
    #: Set once the connection is to close: nothing more is queued.
    closing: bool = False
    bucket: Bucket = field(init=False)
    #: History pages asked for (each is up to ``table.PAGE_BYTES``: a budget of its own).
    pages: Bucket = field(init=False)
    queue: asyncio.Queue[str | None] = field(init=False)

    def __post_init__(self) -> None:
        self.bucket = Bucket(self.limits.rate, self.limits.burst)
        self.pages = Bucket(self.limits.pages_rate, self.limits.pages_burst)
        self.queue = asyncio.Queue()

    def send(self, text: str) -> None:
        """Queue a message; a client too slow to keep up (more than ``limits.queue_bytes``
        or ``limits.queue`` messages waiting) is disconnected: it resumes when it reconnects."""
        if self.closing:
            return
        if (
            self.queued + len(text) > self.limits.queue_bytes
            or self.queue.qsize() >= self.limits.queue
        ):
            log.info("disconnected a client too slow to take what it is sent")
            self.close()
            return
        self.queued += len(text)
        self.queue.put_nowait(text)

    def close(self) -> None:
        """Close the connection once what is queued before it has been sent."""
        if not self.closing:
            self.closing = True
            self.queue.put_nowait(None)

    def send_json(self, obj: dict[str, Any]) -> None:
        """Queue a JSON message."""
        self.send(json.dumps(obj))

    async def writer(self) -> None:
        """Send the queued messages in order until the connection ends."""
        while True:
            text = await self.queue.get()
            if text is None or self.ws.closed:
                await self.ws.close()
                return
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return
            finally:
                self.queued -= len(text)


class Hub:
    """The tables in memory and the sockets open on each."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, set[Conn]] = {}
        self.openings = Throttle(limits.tables_opened, limits.work_window)
        self.replays = Throttle(limits.replays, limits.work_window)
        self.downloads = Throttle(limits.downloads, limits.work_window)
        #: The records being replayed (a few at a time, each in a worker process).
        self.replaying = Replays()
        #: Tables whose setup can't be read: the error, kept so that it is not read again.
        self.broken: dict[str, TableUnavailable] = {}
        #: Decided changes waiting to be written, with the socket that sent each.
        self.batch: list[tuple[Decision, Conn]] = []
        #: Retries of changes decided but not yet written: acknowledged once they are.
        self.retries: list[tuple[Table, Conn, str, int]] = []
        self.writer: asyncio.Task[None] | None = None
        #: How a phone is shown its table anew (a welcome after a sequence number), and what
        #: follows seats given by another server: set by the app (the protocol knows how).
        self.welcome: Callable[[Conn, int], None] | None = None
        self.seats_changed: Callable[[Table, set[str]], None] | None = None
        #: Writes another server got ahead of (each decided again).
        self.conflicts = 0
        #: Catching up with other servers' writes (issue 10).
        self.following: set[asyncio.Task[None]] = set()
        #: Tables being loaded (off the event loop): every request for one waits for the same.
        self.loading: dict[str, asyncio.Future[Table | None]] = {}

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
            table = await asyncio.shield(loading)
            if table is None:
                return None
            self.tables.setdefault(table_id, table)
            table = self.tables[table_id]
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
        try:
            row = self.store.table_by_watch(watch)
        except DamagedError as exc:
            self.broken.setdefault(exc.table, TableUnavailable(exc.table, None, "is damaged"))
            raise self.broken[exc.table] from exc
        except Exception as exc:
            log.exception("could not look up a watched table")
            raise TableUnavailable("?", None, f"can't be read ({type(exc).__name__})") from exc
        return None if row is None else await self.table(row.id)

    def evict(self, now: float | None = None) -> int:
        """Let tables leave memory (their log stays in the store; the next request loads them
        again): every table nobody is connected to that has been idle for ``limits.idle``
        seconds, and, past ``limits.tables_held`` tables, the longest idle of those nobody is
        connected to (a soft cap: none used in the last ``limits.busy`` seconds). Returns how
        many left."""
        now = time.monotonic() if now is None else now
        waiting = {t.id for t, *_ in self.retries} | {d.event.table for d, _ in self.batch}
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
        return len(gone)

    async def sweep(self) -> None:
        """Evict idle tables every ``limits.sweep`` seconds, for as long as the server runs."""
        while True:
            await asyncio.sleep(self.limits.sweep)
            self.evict()

    def submit(self, decision: Decision, conn: Conn) -> None:
        """Queue a decided change for writing; it is acknowledged and broadcast once written.

        Changes decided while a write is under way go into the next one (group commit), so
        the store syncs once per batch rather than once per change, and the event loop never
        waits for the disk.
        """
        self.batch.append((decision, conn))
        if self.writer is None or self.writer.done():
            self.writer = asyncio.get_running_loop().create_task(self._write())

    def retry(self, table: Table, conn: Conn, cid: str, seq: int) -> None:
        """Acknowledge a retry of a change that was decided before, once it is written (here,
        or by another server: a change not waiting here to be written is in the store)."""
        if seq not in table.pending:
            conn.send_json({"type": "ack", "id": cid, "seq": seq})
        else:
            self.retries.append((table, conn, cid, seq))

    async def _write(self) -> None:
        while self.batch:
            batch, self.batch = self.batch, []
            try:
                events = [d.event for d, _ in batch]
                made = [d.checkpoint for d, _ in batch if d.checkpoint is not None]
                await asyncio.to_thread(self.store.append, events, made)
            except DuplicateError:
                # Another server on the same database wrote to one of these tables first
                # (issue 10): decide each change again, against the log as it now is.
                self._redo(batch)
                continue
            except Exception:
                log.exception("could not store %d events", len(batch))
                self._fail(batch + self.batch)
                self.batch = []
                continue
            for decision, conn in batch:
                table = self.tables[decision.event.table]
                table.commit(decision)
                conn.send_json(
                    {"type": "ack", "id": decision.event.client_id, "seq": decision.event.seq}
                )
                self.send_all(table, decision.text)
            waiting, self.retries = self.retries, []
            for table, conn, cid, seq in waiting:
                self.retry(table, conn, cid, seq)

    def _redo(self, batch: list[tuple[Decision, Conn]]) -> None:
        """A batch another server's write got ahead of: every table in it is loaded again (it
        now holds every event written, by any server), its phones here are shown it anew, and
        each change of the batch (and of the next one: decided on the same stale tables) is
        decided again, in its order, and queued for writing."""
        self.conflicts += 1
        redo, self.batch = batch + self.batch, []
        stale = {d.event.table for d, _ in redo}
        shown: dict[str, int] = {}
        for table_id in stale:
            table = self.tables[table_id]
            shown[table_id] = table.committed
            table.reload()
        again: dict[tuple[str, str], Decision | int | TableError] = {}
        for decision, conn in redo:
            table = self.tables[decision.event.table]
            event = decision.event
            cid = event.client_id
            try:
                result = table.decide(event.kind, event.body, cid, event.seat)
            except TableError as exc:
                again[(table.id, cid)] = exc
                conn.send_json({"type": "error", "id": cid, **exc.to_json()})
                continue
            again[(table.id, cid)] = result
            if isinstance(result, int):
                self.retry(table, conn, cid, result)
            else:
                self.batch.append((result, conn))
        waiting, self.retries = self.retries, []
        for table, conn, cid, seq in waiting:
            if table.id not in stale:
                self.retries.append((table, conn, cid, seq))
                continue
            found = again.get((table.id, cid))
            if isinstance(found, Decision):
                self.retries.append((table, conn, cid, found.event.seq))
            elif isinstance(found, int):
                self.retry(table, conn, cid, found)
            elif isinstance(found, TableError):
                conn.send_json({"type": "error", "id": cid, **found.to_json()})
        for table_id in stale:
            self._resync(self.tables[table_id], shown[table_id])

    def _resync(self, table: Table, since: int) -> None:
        """Show every phone of the table the table anew (a welcome after ``since``): what it
        was sent before may no longer be how the log goes on."""
        if table.broken is not None:
            for conn in self.conns.get(table.id, ()):
                conn.send_json({"type": "error", "id": None, **table.broken.to_json()})
                conn.close()
            return
        if self.welcome is not None:
            for conn in self.conns.get(table.id, ()):
                if conn.hello:
                    self.welcome(conn, since)

    def notified(self, kind: str, table_id: str, seq: int) -> None:
        """Another server on the same database wrote an event (or gave a seat) of a table
        (issue 10): a table held here catches up, and its phones here are sent the change.
        ``lost``: notifications may have been missed: every table held here catches up."""
        if kind == "lost":
            for held in list(self.tables):
                self._follow(held, "event")
        elif table_id in self.tables:
            table = self.tables[table_id]
            if kind == "seats" or seq > table.last_seq:
                self._follow(table_id, kind)

    def _follow(self, table_id: str, kind: str) -> None:
        task = asyncio.get_running_loop().create_task(self._catch_up(table_id, kind))
        self.following.add(task)
        task.add_done_callback(self.following.discard)

    async def _catch_up(self, table_id: str, kind: str) -> None:
        table = self.tables.get(table_id)
        if table is None:
            return
        if kind == "seats":
            seats = await asyncio.to_thread(self.store.seats, table_id)
            changed = {
                s for s in set(seats) | set(table.seats) if seats.get(s) != table.seats.get(s)
            }
            table.seats = seats
            if changed and self.seats_changed is not None:
                self.seats_changed(table, changed)
            return
        events = await asyncio.to_thread(self.store.events, table_id, table.last_seq)
        events = [e for e in events if e.seq > table.last_seq]
        if not events or table.pending or self.tables.get(table_id) is not table:
            return  # nothing new, or a write here is under way: it conflicts and redoes
        shown = table.committed
        try:
            messages = table.take_in(events)
        except Exception:
            log.exception("table %s: could not take in another server's events", table_id)
            table.reload()
            self._resync(table, shown)
            return
        for text in messages:
            self.send_all(table, text)

    def _fail(self, failed: list[tuple[Decision, Conn]]) -> None:
        """A write failed: forget every change not written, and say so to who sent it."""
        for decision, conn in failed:
            conn.send_json(
                error_message(
                    decision.event.client_id,
                    "storage",
                    "The change could not be saved; nothing changed.",
                )
            )
        for table_id in {d.event.table for d, _ in failed}:
            table = self.tables[table_id]
            table.reload()
            if table.broken is not None:
                for conn in self.conns.get(table_id, ()):
                    conn.send_json({"type": "error", "id": None, **table.broken.to_json()})
                    conn.close()
        waiting, self.retries = self.retries, []
        for table, conn, cid, seq in waiting:
            if seq > table.last_seq:
                conn.send_json(
                    error_message(cid, "storage", "The change could not be saved; nothing changed.")
                )
            else:
                self.retry(table, conn, cid, seq)

    def broadcast(self, table: Table, message: dict[str, Any]) -> None:
        """Queue one message for every socket on the table (serialized once)."""
        self.send_all(table, json.dumps(message))

    def send_all(self, table: Table, text: str) -> None:
        """Queue one message, already JSON text, for every socket on the table."""
        for conn in self.conns.get(table.id, ()):
            if conn.hello:
                conn.send(text)


HUB_KEY = web.AppKey("hub", Hub)

"""Where a decided change is written: in order, in batches (group commit: one sync per batch,
off the event loop), and only then acknowledged to its sender and sent to every phone of its
table. A batch another server on the same store got ahead of is decided again (issue 10).

Nothing here waits on the store on the event loop (issue 21): a write, a table loaded again
after a failed or refused write, and the look-up of a change sent again long after it was
written all run in a thread, and a table being loaded again decides nothing meanwhile (its
requests wait, in order, and are decided once it is loaded). A write the store can't take now
(:class:`.records.StoreUnavailable`: a database server restarting) is tried again, with the
changes decided since, for :attr:`Writer.patience` seconds before they are refused ``storage``.
Meanwhile their senders are told ``waiting`` (issue 26 item 7: "Waiting for the database"):
within :data:`NOTICE_AFTER` of a write that hangs, at once when the store says it can't be
reached, and at once for a change decided while the writer waits; the tries are at most
:data:`LONGEST_PAUSE` apart, so that the writes go through within a second of the store's return.

A table's decisions do no I/O either (issue 18 item 4): a decision that needs part of the log
not in memory raises :class:`.logreads.NeedsLog`, having changed nothing; the writer reads
exactly that in a thread, gives it to the table (:meth:`.table.Table.learn`) and decides the
request again, while the table's requests that came meanwhile wait behind it, in order
(:attr:`Writer.reading`, as while a table is loaded again). A read that fails refuses the
request ``storage``; the requests behind it are decided as usual.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from lifeledger.sentences import Sentence

from ..decide.errors import TableError, with_sentence
from ..decide.logreads import Found, NeedsLog
from ..decide.table import Decision, Table
from ..store.records import Event, Store, StoreError, StoreUnavailable
from .fanout import Fanout
from .onethread import OneThread
from .sockets import Sender, error_message

__all__ = ["PATIENCE", "Request", "Writer", "settled", "take_in_one"]

log = logging.getLogger("lifeledger_table")

#: How long (seconds) a write the store can't take now is tried again before its changes are
#: refused ``storage``: a database server's restart or fail-over takes seconds.
PATIENCE = 60.0
#: The pauses between tries: from the first to the longest, doubling (short: the store's
#: return is found by the next try, and the changes waiting are acknowledged within a second).
FIRST_PAUSE = 0.1
LONGEST_PAUSE = 0.25
#: How long a write may take before its senders are told it waits for the database.
NOTICE_AFTER = 0.5

#: The most reads of its table's log one request waits for (a decision needs a few; more
#: means the table keeps changing under them).
READS = 8

STORAGE = Sentence("The change could not be saved; nothing changed.")
UNREACHABLE = Sentence("The table's storage can't be reached now; nothing changed.")
WAITING = Sentence("Waiting for the database: changes are kept and saved once it is back.")


def waiting_message(cid: str) -> dict[str, Any]:
    """What a phone is told of its change ``cid``, decided and kept, while the store can't
    take it: it stays pending (the page says so in its connection strip) until its ``ack``.
    Not an answer (no ``id``): a follower forwarding the change still waits for that."""
    return with_sentence({"type": "waiting", "ids": [cid], "message": WAITING})


#: Threads reading the log for decisions at once (more wait their turn).
LOG_READERS = 2

T = TypeVar("T")


def _timed_read(need: NeedsLog, store: Store) -> tuple[Found, float]:
    """Make ``need``'s read, and how long it took (not counting the wait for a thread)."""
    start = time.perf_counter()
    found = need.read.fetch(store)
    return found, time.perf_counter() - start


async def settled(
    table: Table,
    work: Callable[[], T],
    store: Store,
    pool: Executor | None = None,
    *,
    reads: int = READS,
    refusal: str = UNREACHABLE,
) -> tuple[T, float]:
    """``work()`` (a decision, or an answer built from the table), each read of the log it
    needs (:class:`NeedsLog`) made first in a thread (of ``pool``, else the default one),
    and the seconds those reads took in their thread. A read that fails, or a table that
    keeps changing under more than ``reads`` of them, is refused ``storage`` (``refusal``)."""
    read = 0.0
    for _ in range(reads):
        try:
            return work(), read
        except NeedsLog as need:
            try:
                found, took = await asyncio.get_running_loop().run_in_executor(
                    pool, _timed_read, need, store
                )
            except Exception as exc:
                log.warning("table %s: could not read its log (%s)", table.id, exc)
                raise TableError("storage", refusal) from exc
            read += took
            table.learn(need, found)
    raise TableError("storage", refusal)


class _Moved(Exception):
    """The copy changed under an event being taken in (loaded again, or it took it in)."""


async def take_in_one(
    table: Table, event: Event, store: Store, pool: Executor | None = None
) -> str | None:
    """Take one event another process decided into ``table``, the next after its last
    (:meth:`.Table.take_one`), and return its message for the phones; ``None`` if the table
    moved meanwhile (being loaded again, or the event taken in already, or not the next).
    What it needs of the log is read in a thread (of ``pool``: :func:`settled`); the time it
    held the event loop is spent from the table's share of the server (issue 26 item 2: a
    follower's catch-up is charged to the table that caused it). Raises what taking it in
    raised (the caller loads the table again)."""
    spent = 0.0

    def one() -> str:
        nonlocal spent
        if table.reloading or table.last_seq + 1 != event.seq:
            raise _Moved()
        began = time.thread_time()
        try:
            return table.take_one(event)
        finally:
            spent += time.thread_time() - began

    try:
        text, _ = await settled(table, one, store, pool)
    except _Moved:
        return None
    finally:
        table.share.spend(spent)
    return text


@dataclass(slots=True)
class Request:
    """A phone's change as the writer decides it (and keeps it, while its table is loaded
    again or read for an earlier request): the socket, the message's kind, body, id, acting
    seat and ``at_turn``."""

    conn: Sender
    kind: str
    body: dict[str, Any]
    cid: str
    seat: str | None
    at_turn: int | None = None
    #: Also told of a refusal: the socket that allowed an undo (:mod:`.undoasks`).
    also: Sender | None = None
    #: Whether its time counts against its network's share (and it is refused ``busy`` past
    #: it): not for an undo another seat allowed.
    charged: bool = True
    #: The reads of the log it waited for so far.
    reads: int = 0
    #: Asked of the table just before the request is decided (in its turn, after the requests
    #: before it): ``False`` takes it out of the writer's hands, undecided (the owner's check
    #: of a forwarded undo's target: :mod:`.owners`).
    check: Callable[[Table], bool] | None = None


def _main_undo(redo: list[tuple[Decision, Sender]], table: str, group: str) -> Event:
    """Of the changes that took back a seat's own change under later ones (``group``: the
    request's id), the undo of that change itself, as the request asked it."""
    return next(
        d.event
        for d, _ in redo
        if d.group == group
        and d.event.table == table
        and d.event.kind == "undo"
        and "replay" not in d.event.body
    )


class Writer:
    """The changes a server decided, on their way to the store and then to the phones."""

    def __init__(self, hub: Fanout) -> None:
        self.hub = hub
        #: Decided changes waiting to be written, with the socket that sent each.
        self.batch: list[tuple[Decision, Sender]] = []
        #: Retries of changes decided but not yet written: acknowledged once they are.
        self.retries: list[tuple[Table, Sender, str, int]] = []
        self.task: asyncio.Task[None] | None = None
        #: Writes another server got ahead of (each decided again).
        self.conflicts = 0
        #: Seconds a write the store can't take now is tried again (:data:`PATIENCE`).
        self.patience = PATIENCE
        #: Since when (:func:`time.monotonic`) the store can't take a write, while it can't:
        #: a change decided meanwhile is told ``waiting`` at once.
        self.waiting_since: float | None = None
        #: The changes (client ids) told ``waiting`` in the write under way.
        self.told: set[str] = set()
        #: Why the last writes failed (logged once, issue 26 item 9: a full disk logged a
        #: traceback for every change refused), and how many did, until one goes through.
        self.failure: str | None = None
        self.failures = 0
        #: Tables being loaded again (off the event loop), with the requests for each that
        #: wait to be decided once it is loaded, in the order they came.
        self.reloading: dict[str, list[Request]] = {}
        #: Tables whose log is being read (off the event loop) for a request's decision, with
        #: the requests that came after it, waiting in order to be decided after it.
        self.reading: dict[str, list[Request]] = {}
        #: Look-ups and loads under way.
        self.tasks: set[asyncio.Task[None]] = set()
        #: The reads of the log decisions need are made in threads of their own: a flood of
        #: undos naming old events never holds up the tables' writes (in the default pool).
        self.reads = ThreadPoolExecutor(max_workers=LOG_READERS, thread_name_prefix="log-reads")
        #: The writes are made in a thread of their own, one at a time (:mod:`.onethread`).
        self.writes = OneThread("store-writes")
        #: The write under way: when its senders are to be told ``waiting``, and its batch.
        self.under_way: tuple[float, list[tuple[Decision, Sender]]] | None = None
        #: The timer of that notice, while one is set (:meth:`_writing`).
        self.notice: asyncio.TimerHandle | None = None

    # -- requests ------------------------------------------------------------------------------

    def handle(
        self,
        table: Table,
        conn: Sender,
        kind: str,
        body: dict[str, Any],
        cid: str,
        seat: str | None,
        at_turn: int | None = None,
        *,
        also: Sender | None = None,
        charged: bool = True,
        check: Callable[[Table], bool] | None = None,
    ) -> None:
        """Decide a phone's change and queue it for writing (or answer a retry, or a refusal).
        A table being loaded again, or whose log is being read for an earlier request, keeps
        the request until then (see :class:`Request` for ``also``, ``charged`` and
        ``check``)."""
        request = Request(conn, kind, body, cid, seat, at_turn, also, charged, check=check)
        self._handle(table, request)

    def _handle(self, table: Table, request: Request) -> None:
        waiting = self.reading.get(table.id)
        if waiting is None:
            waiting = self.reloading.get(table.id)
        if waiting is not None:
            waiting.append(request)
            return
        conn, cid = request.conn, request.cid
        if request.check is not None and not request.check(table):
            return
        try:
            shares = (table.share, self.hub.shares.of(conn.address)) if request.charged else ()
            # One change, or several: a seat's own change taken back under later ones is the
            # later ones taken back, its own, and the later ones made again (issue 25 item 4).
            decisions = table.decide_all(
                request.kind,
                request.body,
                cid,
                request.seat,
                at_turn=request.at_turn,
                shares=shares,
            )
        except NeedsLog as need:
            if request.reads >= READS:
                log.warning("table %s: change %s needs more reads than it may", table.id, cid)
                self.refuse(table, conn, cid, TableError("storage", UNREACHABLE), request.also)
                return
            self.reading[table.id] = []
            self._spawn(self._read(table, request, need))
            return
        except TableError as exc:
            self.refuse(table, conn, cid, exc, request.also)
            return
        if isinstance(decisions, int):
            self.retry(table, conn, cid, decisions)
        else:
            for decision in decisions:
                self.submit(decision, conn)

    async def _read(self, table: Table, request: Request, need: NeedsLog) -> None:
        """Read off the event loop what ``request``'s decision needs of its table's log, and
        decide it again, then the requests that came meanwhile, in order (a read that fails
        refuses ``request`` ``storage``: nothing changed)."""
        request.reads += 1
        first = [request]
        try:
            loop = asyncio.get_running_loop()
            found = await loop.run_in_executor(self.reads, need.read.fetch, self.hub.store)
        except Exception as exc:
            log.warning("table %s: could not read its log (%s)", table.id, exc)
            error = TableError("storage", UNREACHABLE)
            self.refuse(table, request.conn, request.cid, error, request.also)
            first = []
        else:
            table.learn(need, found)
        waiting = first + self.reading.pop(table.id, [])
        current = self.hub.tables.get(table.id)
        for each in waiting:
            if current is None:  # it left memory meanwhile: sent again, it is loaded again
                self._storage(each, STORAGE)
            else:
                self._handle(current, each)

    def _storage(self, request: Request, message: str) -> None:
        """Refuse ``request`` ``storage``: nothing changed."""
        request.conn.send_json(error_message(request.cid, "storage", message))
        if request.also is not None:
            request.also.send_json(error_message(None, "storage", message))

    def refuse(
        self, table: Table, conn: Sender, cid: str, exc: TableError, also: Sender | None = None
    ) -> None:
        """Answer a refusal of change ``cid`` (to ``also`` too, without the id), unless the
        table wrote that change long ago (older than the client ids it remembers: after a
        restart, say), which is then acknowledged with its sequence number: a change sent again
        is never refused for what it did itself. The store is asked off the event loop."""
        if also is not None:
            also.send_json({"type": "error", "id": None, **exc.to_json()})
        if exc.code in ("table-unavailable", "storage") or not table.may_be_stored(cid):
            conn.send_json({"type": "error", "id": cid, **exc.to_json()})
            return
        self._spawn(self._look_up(table, conn, cid, exc))

    async def _look_up(self, table: Table, conn: Sender, cid: str, exc: TableError) -> None:
        try:
            found = await asyncio.to_thread(self.hub.store.event_by_client_id, table.id, cid)
        except Exception as failed:
            log.warning("table %s: could not look up change %s (%s)", table.id, cid, failed)
            conn.send_json(
                error_message(
                    cid, "storage", Sentence("The change could not be checked; nothing changed.")
                )
            )
            return
        if found is None:
            conn.send_json({"type": "error", "id": cid, **exc.to_json()})
        else:
            conn.send_json({"type": "ack", "id": cid, "seq": found.seq})

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def submit(self, decision: Decision, conn: Sender) -> None:
        """Queue a decided change for writing; it is acknowledged and broadcast once written.

        Changes decided while a write is under way go into the next one (group commit), so
        the store syncs once per batch rather than once per change, and the event loop never
        waits for the disk.
        """
        self.batch.append((decision, conn))
        if self.waiting_since is not None:
            self._tell_waiting([(decision, conn)])
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._write())

    def retry(self, table: Table, conn: Sender, cid: str, seq: int) -> None:
        """Acknowledge a retry of a change that was decided before, once it is written (here,
        or by another server: a change not waiting here to be written is in the store)."""
        if seq not in table.pending:
            conn.send_json({"type": "ack", "id": cid, "seq": seq})
        else:
            self.retries.append((table, conn, cid, seq))

    # -- writing -------------------------------------------------------------------------------

    async def _write(self) -> None:
        while self.batch:
            batch, self.batch = self.batch, []
            lost = await self._append(batch)
            if lost is None:
                continue
            for decision, conn in batch:
                if decision.event.table in lost:
                    continue
                table = self.hub.tables[decision.event.table]
                table.commit(decision)
                # Its sender is sent the event with its id: that is the acknowledgement.
                self.hub.send_all(table, decision.text, conn, decision.event.client_id)
                for written in self.hub.subscribers.written:  # the processes following it
                    written(table, decision, conn)
            if lost:
                # Another server on the same store wrote to these tables first (issue 10):
                # their changes are decided again, against the log as it now is.
                await self._redo(lost, [(d, c) for d, c in batch if d.event.table in lost])
            waiting, self.retries = self.retries, []
            for table, conn, cid, seq in waiting:
                self.retry(table, conn, cid, seq)

    async def _append(self, batch: list[tuple[Decision, Sender]]) -> set[str] | None:
        """Write ``batch`` (which grows by the changes decided meanwhile while the store can't
        be reached, for :attr:`patience` seconds); the tables another server wrote first, or
        ``None`` if the write failed (its changes were refused ``storage``). A write that takes
        more than :data:`NOTICE_AFTER`, or that the store can't take now, tells its senders
        ``waiting``."""
        failing: float | None = None
        pause = FIRST_PAUSE
        self.told = set()
        try:
            while True:
                try:
                    events = [d.event for d, _ in batch]
                    made = [d.checkpoint for d, _ in batch if d.checkpoint is not None]
                    # In the writer's own thread, with the one timer of the notice (not a
                    # timer for each write): a batch is one or two changes at a few hundred
                    # a second (issue 29 item 1).
                    write = self.writes.call(self.hub.store.append, events, made)
                    self._writing(batch)
                    try:
                        written = await write
                    finally:
                        self.under_way = None
                    if self.failure is not None:
                        log.warning(
                            "events are stored again (%d %s failed: %s)",
                            self.failures,
                            "write" if self.failures == 1 else "writes",
                            self.failure,
                        )
                        self.failure, self.failures = None, 0
                    return written
                except StoreUnavailable as exc:
                    now = time.monotonic()
                    if failing is None:
                        failing = now
                        self._failed(exc, len(batch), "trying again")
                    if self.waiting_since is None:
                        self.waiting_since = now
                    self._tell_waiting(batch)
                    if now - failing < self.patience:
                        await asyncio.sleep(pause)
                        pause = min(pause * 2, LONGEST_PAUSE)
                        batch += self.batch  # decided since, on top of these: written with them
                        self.batch = []
                        continue
                    log.error("gave up storing %d events after %.0f s", len(batch), now - failing)
                except Exception as exc:
                    self._failed(exc, len(batch), "refused storage")
                failed = batch + self.batch
                self.batch = []
                await self._fail(failed)
                return None
        finally:
            self.waiting_since = None
            self.told = set()

    def _failed(self, exc: Exception, events: int, then: str) -> None:
        """A write of ``events`` failed for ``exc``: one line is logged for each condition
        (the same error again, a full disk say, is counted, not logged), with a traceback
        only for an error no store makes (a fault of the program's)."""
        why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        self.failures += 1
        if why == self.failure:
            return
        if self.failure is not None:
            log.warning(
                "%d %s failed: %s",
                self.failures - 1,
                "write" if self.failures == 2 else "writes",
                self.failure,
            )
        self.failure, self.failures = why, 1
        if isinstance(exc, (StoreError, sqlite3.Error, OSError)):
            level = logging.WARNING if isinstance(exc, StoreUnavailable) else logging.ERROR
            log.log(
                level,
                "could not store %d events (%s): %s; said once while it lasts",
                events,
                then,
                why,
            )
        else:
            log.exception("could not store %d events (%s)", events, then)

    def _writing(self, batch: list[tuple[Decision, Sender]]) -> None:
        """A write of ``batch`` begins: its senders are told ``waiting`` if it takes more than
        :data:`NOTICE_AFTER`. One timer serves every write: it is set for the first write
        that finds none set, and set again, when it goes off, for the write then under way
        (each begins after the one before it, so the timer never goes off late)."""
        loop = asyncio.get_running_loop()
        self.under_way = (loop.time() + NOTICE_AFTER, batch)
        if self.notice is None:
            self.notice = loop.call_at(self.under_way[0], self._notice_due)

    def _notice_due(self) -> None:
        """The notice's timer: the write under way, if it began :data:`NOTICE_AFTER` ago, has
        its senders told ``waiting``; a write that began since gets the timer for its own."""
        self.notice = None
        if self.under_way is None:
            return
        due, batch = self.under_way
        loop = asyncio.get_running_loop()
        if loop.time() >= due:
            self._tell_waiting(batch)
        else:
            self.notice = loop.call_at(due, self._notice_due)

    def _tell_waiting(self, batch: list[tuple[Decision, Sender]]) -> None:
        """Tell the senders of ``batch`` not told yet that their changes wait for the store."""
        for decision, conn in batch:
            cid = decision.event.client_id
            if cid is not None and cid not in self.told:
                self.told.add(cid)
                conn.send_json(waiting_message(cid))

    async def _redo(self, stale: set[str], lost: list[tuple[Decision, Sender]]) -> None:
        """Tables another server's write got ahead of: each is loaded again (off the event
        loop, from its newest checkpoint: it then holds every event written, by any server),
        its phones here are shown it anew, and its changes that were not written (``lost``,
        and those of the next batch, decided on the same stale table) are decided again, in
        order, and queued; then the requests that came meanwhile."""
        self.conflicts += 1
        redo = lost + [(d, c) for d, c in self.batch if d.event.table in stale]
        self.batch = [(d, c) for d, c in self.batch if d.event.table not in stale]
        shown = {t: self.hub.tables[t].committed for t in stale}
        found = await self._reload(stale, redo)
        again: dict[tuple[str, str], Decision | int | TableError] = {}
        groups: set[tuple[str, str]] = set()
        for decision, conn in redo:
            event = decision.event
            cid = event.client_id
            table = self.hub.tables.get(event.table)
            # A seat's own change taken back under later ones is several changes, decided
            # again as the one request they were (issue 25 item 4): its id is the group's.
            group = decision.group
            if group is not None:
                if (event.table, group) in groups:
                    continue
                groups.add((event.table, group))
                cid = group
            if table is None or table.reloading:  # it could not be loaded: the store failed
                conn.send_json(error_message(cid, "storage", STORAGE))
                continue
            result: Decision | int | list[Decision]
            if (table.id, cid) in found:
                result = found[(table.id, cid)]
            else:
                try:  # what it reads of the log is read off the event loop
                    if group is not None:
                        main = _main_undo(redo, table.id, group)
                        decide_all = partial(table.decide_all, "undo", main.body, group, main.seat)
                        result, _ = await settled(table, decide_all, self.hub.store, self.reads)
                    else:
                        decide = partial(table.decide, event.kind, event.body, cid, event.seat)
                        result, _ = await settled(table, decide, self.hub.store, self.reads)
                except TableError as exc:
                    again[(table.id, cid)] = exc
                    conn.send_json({"type": "error", "id": cid, **exc.to_json()})
                    continue
            if isinstance(result, list):
                self.batch.extend((d, conn) for d in result)
                again[(table.id, cid)] = result[-1]
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
            found_again = again.get((table.id, cid))
            if isinstance(found_again, Decision):
                self.retries.append((table, conn, cid, found_again.event.seq))
            elif isinstance(found_again, int):
                self.retry(table, conn, cid, found_again)
            elif isinstance(found_again, TableError):
                conn.send_json({"type": "error", "id": cid, **found_again.to_json()})
            else:
                conn.send_json(error_message(cid, "storage", STORAGE))
        self._release(stale)
        for table_id in stale:
            table = self.hub.tables.get(table_id)
            if table is not None:
                self.hub.resync(table, shown[table_id])

    async def _fail(self, failed: list[tuple[Decision, Sender]]) -> None:
        """A write failed: forget every change not written (the tables are loaded again, off
        the event loop), and say so to who sent it."""
        for decision, conn in failed:
            conn.send_json(error_message(decision.event.client_id, "storage", STORAGE))
        tables = {d.event.table for d, _ in failed}
        await self._reload(tables, [])
        for table_id in tables:
            table = self.hub.tables.get(table_id)
            if table is not None and table.broken is not None:
                for conn in self.hub.conns.get(table_id, ()):
                    conn.send_json({"type": "error", "id": None, **table.broken.to_json()})
                    conn.close()
        waiting, self.retries = self.retries, []
        for table, conn, cid, seq in waiting:
            if table.id in tables and (table.reloading or seq > table.last_seq):
                conn.send_json(error_message(cid, "storage", STORAGE))
            else:
                self.retry(table, conn, cid, seq)
        self._release(tables)

    # -- loading a table again -----------------------------------------------------------------

    async def reload(self, table: Table) -> bool:
        """Load a table again from the store (off the event loop), then decide the requests
        that came meanwhile (see :meth:`_reload`); ``False`` if it was being loaded already."""
        if table.id in self.reloading:
            return False
        await self._reload({table.id}, [])
        self._release({table.id})
        return True

    async def _reload(
        self, table_ids: set[str], redo: list[tuple[Decision, Sender]]
    ) -> dict[tuple[str, str], int]:
        """Load these tables again in a thread, each taking the place of the one in memory
        (which decides nothing meanwhile: its requests wait in :attr:`reloading`, until
        :meth:`_release`). A table the store can't load now leaves memory, and its phones are
        told ``storage`` and disconnected (they come back, and it is loaded then). Returns the
        sequence numbers the store holds for the client ids of ``redo`` that the tables loaded
        don't remember (changes written long ago)."""
        store = self.hub.store
        tables = {t: self.hub.tables[t] for t in table_ids if t in self.hub.tables}
        for table_id, table in tables.items():
            self.reloading.setdefault(table_id, [])
            table.reloading = True

        def load() -> tuple[dict[str, Table | Exception], dict[tuple[str, str], int]]:
            fresh: dict[str, Table | Exception] = {}
            found: dict[tuple[str, str], int] = {}
            for table_id in tables:
                try:
                    loaded = Table(store, table_id)
                    for decision, _ in redo:
                        cid = decision.event.client_id
                        if decision.event.table == table_id and loaded.may_be_stored(cid):
                            event = store.event_by_client_id(table_id, cid)
                            if event is not None:
                                found[(table_id, cid)] = event.seq
                except Exception as exc:
                    fresh[table_id] = exc
                else:
                    fresh[table_id] = loaded
            return fresh, found

        fresh, found = await asyncio.to_thread(load)
        for table_id, table in tables.items():
            loaded = fresh[table_id]
            if isinstance(loaded, Table):
                table.take_over(loaded)
                continue
            log.warning("table %s: could not be loaded again (%s)", table_id, loaded)
            if self.hub.tables.get(table_id) is table:
                del self.hub.tables[table_id]  # loaded anew by the next request for it
            for conn in self.hub.conns.get(table_id, ()):
                conn.send_json(
                    error_message(
                        None, "storage", Sentence("The table's storage failed; reconnecting.")
                    )
                )
                conn.close()
        return found

    def _release(self, table_ids: set[str]) -> None:
        """The tables are loaded again: decide the requests that waited, in order."""
        for table_id in table_ids:
            waiting = self.reloading.pop(table_id, [])
            table = self.hub.tables.get(table_id)
            for request in waiting:
                if table is None or table.reloading:
                    self._storage(request, STORAGE)
                else:
                    self._handle(table, request)

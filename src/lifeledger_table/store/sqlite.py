"""The SQLite store (:class:`SQLiteStore`, the :class:`.records.Store` protocol), and the
SQL that the PostgreSQL store shares with it (the columns, reading a log).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar

from .records import (
    Checkpoint,
    DamagedError,
    DuplicateError,
    Event,
    Lease,
    StoreError,
    TableRow,
    newest_at_each_position,
)

__all__ = [
    "COLUMNS",
    "EVENT_COLUMNS",
    "LocalLeases",
    "LogReads",
    "SQLiteStore",
    "by_table",
    "event_row",
]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    watch TEXT NOT NULL UNIQUE,
    code TEXT NOT NULL UNIQUE,
    setup TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    client_id TEXT NOT NULL,
    seat TEXT,
    time REAL NOT NULL,
    PRIMARY KEY (table_id, seq),
    UNIQUE (table_id, client_id)
);
"""

#: The schema's upgrades, in order: upgrade ``n`` (from 1) takes a store from version ``n - 1``
#: to ``n`` (``PRAGMA user_version``). Each only adds: nothing stored is ever changed or lost.
_UPGRADES = [
    "",  # version 1: the tables, seats and events above
    """
    ALTER TABLE events ADD COLUMN game INTEGER;
    ALTER TABLE events ADD COLUMN position INTEGER;
    ALTER TABLE events ADD COLUMN entry TEXT;
    CREATE INDEX events_by_position ON events (table_id, game, position);
    CREATE TABLE checkpoints (
        table_id TEXT NOT NULL REFERENCES tables(id),
        game INTEGER NOT NULL,
        count INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (table_id, game, count)
    );
    """,
    # version 3: the table's tools (dice, clocks, the round timer), one versioned row a table
    """
    CREATE TABLE IF NOT EXISTS tools (
        table_id TEXT PRIMARY KEY REFERENCES tables(id),
        version INTEGER NOT NULL,
        data TEXT NOT NULL
    );
    """,
]
SCHEMA_VERSION = len(_UPGRADES)

COLUMNS = {
    "tables": ["id", "watch", "code", "setup", "created"],
    "seats": ["table_id", "seat", "token_hash"],
    "events": [
        "table_id",
        "seq",
        "kind",
        "body",
        "client_id",
        "seat",
        "time",
        "game",
        "position",
        "entry",
    ],
    "checkpoints": ["table_id", "game", "count", "seq", "data"],
    "tools": ["table_id", "version", "data"],
}
#: The columns of ``events`` after ``table_id``, as the reads and writes name them.
EVENT_COLUMNS = "seq, kind, body, client_id, seat, time, game, position, entry"


class LogReads:
    """The reads of a table and its log, one query each, the same for every SQL store: a
    store provides :meth:`_one`, :meth:`_read` and its placeholder (``?`` or ``%s``)."""

    _PARAM = "?"

    def _one(self, where: str, value: str) -> TableRow | None:
        """The table whose column ``where`` is ``value``, or ``None``."""
        raise NotImplementedError

    def table(self, table_id: str) -> TableRow | None:
        """The table with this id, or ``None``."""
        return self._one("id", table_id)

    def table_by_watch(self, watch: str) -> TableRow | None:
        """The table whose spectator id is ``watch``, or ``None``."""
        return self._one("watch", watch)

    def table_by_code(self, code: str) -> TableRow | None:
        """The table whose short code is ``code``, or ``None``."""
        return self._one("code", code)

    def _read(self, table_id: str, where: str, args: tuple[Any, ...]) -> list[Event]:
        """The table's events matching ``where`` (SQL after ``AND``, with ``_PARAM``s)."""
        raise NotImplementedError

    def events(self, table_id: str, after: int = 0) -> list[Event]:
        """The table's events with a sequence number above ``after``, in order."""
        return self._read(table_id, f"seq > {self._PARAM} ORDER BY seq", (after,))

    def event(self, table_id: str, seq: int) -> Event | None:
        """The table's event ``seq``, or ``None``."""
        found = self._read(table_id, f"seq = {self._PARAM}", (seq,))
        return found[0] if found else None

    def last_event(self, table_id: str) -> Event | None:
        """The table's newest event, or ``None`` if it has none."""
        found = self._read(table_id, "seq > 0 ORDER BY seq DESC LIMIT 1", ())
        return found[0] if found else None

    def event_by_client_id(self, table_id: str, client_id: str) -> Event | None:
        """The table's event sent with ``client_id``, or ``None``."""
        found = self._read(table_id, f"client_id = {self._PARAM}", (client_id,))
        return found[0] if found else None

    def game_events(self, table_id: str, game: int) -> list[Event]:
        """The events of match game ``game`` (see :attr:`Event.game`), in order."""
        return self._read(table_id, f"game = {self._PARAM} ORDER BY seq", (game,))

    def effective(self, table_id: str, game: int, start: int, end: int) -> list[Event]:
        """The actions of game ``game`` at positions ``start`` to ``end - 1`` that are in
        effect when the game has ``end`` actions in effect: at each position, the newest
        action (an action undone is followed by the next one at its position)."""
        p = self._PARAM
        found = self._read(
            table_id,
            f"game = {p} AND kind = 'action' AND position >= {p} AND position < {p} ORDER BY seq",
            (game, start, end),
        )
        return newest_at_each_position(found)


class LocalLeases:
    """The :class:`~.records.Leases` of a store only one process uses (SQLite): kept in
    memory, on this process's clock. The process claims every table it loads, and always
    gets it: the code is the same as with several processes, which need PostgreSQL."""

    _leases: dict[str, tuple[str, str, float]]
    _processes: dict[str, tuple[str, str]]

    def _held(self) -> dict[str, tuple[str, str, float]]:
        if not hasattr(self, "_leases"):
            self._leases = {}
            self._processes = {}
        return self._leases

    def claim(self, table_id: str, owner: str, address: str, seconds: float) -> Lease:
        """Take the table's lease if it is free, expired or ``owner``'s."""
        held, now = self._held(), time.monotonic()
        found = held.get(table_id)
        if found is None or found[2] <= now or found[0] == owner:
            found = held[table_id] = (owner, address, now + seconds)
        return Lease(table_id, found[0], found[1], found[2] - now)

    def renew(self, owner: str, seconds: float) -> set[str]:
        """Extend ``owner``'s leases; their tables."""
        held, now = self._held(), time.monotonic()
        mine = {t for t, (who, _, _) in held.items() if who == owner}
        for table_id in mine:
            who, address, _ = held[table_id]
            held[table_id] = (who, address, now + seconds)
        return mine

    def release(self, owner: str, table_ids: Sequence[str]) -> None:
        """Give up ``owner``'s leases of these tables."""
        held = self._held()
        for table_id in table_ids:
            if held.get(table_id, ("",))[0] == owner:
                del held[table_id]

    def register(self, owner: str, address: str, digest: str) -> None:
        """Register process ``owner`` (no other process shares an SQLite store)."""
        self._held()
        for other in [o for o, (a, _) in self._processes.items() if a == address and o != owner]:
            del self._processes[other]
        self._processes[owner] = (address, digest)

    def unregister(self, owner: str) -> None:
        """Forget process ``owner``."""
        self._held()
        self._processes.pop(owner, None)

    def processes(self) -> dict[str, tuple[str, str]]:
        """The processes registered: id -> (address, digest of its key)."""
        self._held()
        return dict(self._processes)


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _again_when_full(
    write: Callable[Concatenate[SQLiteStore, _P], _R],
) -> Callable[Concatenate[SQLiteStore, _P], _R]:
    """A write that fails for a full disk is tried once more after the write-ahead log is
    checkpointed into the database and truncated (issue 21 item 9: on a small volume the log
    filled it, and every write failed until a restart); if it fails again, it fails (the
    change is refused ``storage``). The write failed whole: nothing of it was kept."""

    def again(self: SQLiteStore, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return write(self, *args, **kwargs)
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", None) != sqlite3.SQLITE_FULL:
                raise
            if not self._truncate_log():
                raise
        return write(self, *args, **kwargs)

    again.__name__, again.__qualname__, again.__doc__ = (
        write.__name__,
        write.__qualname__,
        write.__doc__,
    )
    return again


class SQLiteStore(LogReads, LocalLeases):
    """The embedded default store: one SQLite file in WAL mode, ``synchronous=FULL``.

    Each write is its own transaction, committed (and synced to the WAL) before the method
    returns. The connection may be used from one thread at a time; a lock makes that so.

    Opening checks the store (issue 7 item 14): that the file opens as a database, passes
    SQLite's quick check, has the table store's schema, and takes a write; if not,
    :class:`StoreError` says what is wrong in one line.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(f"can't open the table store {path}: {exc}") from exc
        try:
            self._open()
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"can't use the table store {path}: {exc}") from exc
        except StoreError:
            self._db.close()
            raise
        self._file = self._identity()
        #: Reads go through a second connection (WAL: a reader never waits for a writer's
        #: sync), so that the event loop's reads don't wait behind a batch being written.
        self._reading = self._lock
        self._reader = self._db
        if self._file is not None:
            self._reading = threading.Lock()
            self._reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._reader.execute("PRAGMA busy_timeout=5000")
            self._reader.execute("PRAGMA query_only=ON")

    def _identity(self) -> tuple[int, int] | None:
        """The database file's device and inode (``None``: an in-memory database)."""
        if self.path in ("", ":memory:") or self.path.startswith("file:"):
            return None
        info = os.stat(self.path)
        return info.st_dev, info.st_ino

    def _check_file(self) -> None:
        """Before a write: the file is still the one opened. A database deleted (or replaced)
        while the server runs would take every write into a file nobody can open again, and
        lose them all at the next start: refuse them instead, saying why."""
        if self._file is None:
            return
        try:
            same = self._identity() == self._file
        except OSError:
            same = False
        if not same:
            raise StoreError(
                f"the table store {self.path} was deleted or replaced while the server runs; "
                "nothing more is written: put it back, or restart the server"
            )

    def _open(self) -> None:
        db = self._db
        db.execute("PRAGMA busy_timeout=5000")
        found = db.execute("PRAGMA quick_check").fetchall()
        if found != [("ok",)]:
            problem = "; ".join(str(r[0]) for r in found[:3])
            raise StoreError(f"the table store {self.path} is damaged: {problem}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        # The log is checkpointed every 128 pages and truncated to 512 kB when it starts
        # over: SQLite's 1,000 pages (4 MB) filled a 3 MB volume first (issue 21 item 9).
        db.execute("PRAGMA wal_autocheckpoint=128")
        db.execute("PRAGMA journal_size_limit=524288")
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(_SCHEMA)
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the table store {self.path} is of a newer lifeledger (schema version "
                f"{version}; this one knows up to {SCHEMA_VERSION}): upgrade lifeledger"
            )
        self._check_columns(upgraded=False)
        for number in range(max(version, 1), SCHEMA_VERSION):
            db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _UPGRADES[number].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {number + 1}")
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        self._check_columns(upgraded=True)
        # A write, committed: a store that can be read but not written fails now, not at the
        # first change a phone sends.
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _check_columns(self, *, upgraded: bool) -> None:
        """The store's tables have the columns of the table store (before the upgrades, those
        of version 1 at least): a database of another program is refused, not changed."""
        for table, columns in COLUMNS.items():
            have = [r[1] for r in self._db.execute(f"PRAGMA table_info({table})")]
            if have == columns:
                continue
            if not upgraded and table in ("checkpoints", "tools") and not have:
                continue
            if not upgraded and table == "events" and have == columns[:7]:
                continue
            raise StoreError(
                f"{self.path} is not a lifeledger table store "
                f"(its {table!r} table has the columns {have})"
            )

    def _row(self, row: tuple[Any, ...] | None) -> TableRow | None:
        if row is None:
            return None
        try:
            setup = json.loads(row[3])
            if not isinstance(setup, dict) or not isinstance(setup.get("header"), dict):
                raise ValueError("the setup is not an object with a header")
        except (ValueError, TypeError, RecursionError) as exc:
            raise DamagedError(str(row[0]), None, str(exc)[:200]) from exc
        return TableRow(id=row[0], watch=row[1], code=row[2], setup=setup, created=row[4])

    def _truncate_log(self) -> bool:
        """Checkpoint the write-ahead log into the database and truncate it (no read is under
        way meanwhile); whether it was (it fails too on a disk too full for the pages)."""
        with self._reading, contextlib.ExitStack() as held:
            if self._lock is not self._reading:
                held.enter_context(self._lock)
            try:
                busy = self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            except sqlite3.Error:
                return False
        return bool(busy == 0)

    @_again_when_full
    def create_table(self, row: TableRow) -> None:
        """Store a new table; raises :class:`DuplicateError` if its id, watch id or code exists."""
        with self._lock:
            self._check_file()
            try:
                self._db.execute(
                    "INSERT INTO tables (id, watch, code, setup, created) VALUES (?, ?, ?, ?, ?)",
                    (row.id, row.watch, row.code, json.dumps(row.setup), row.created),
                )
            except sqlite3.IntegrityError as exc:
                raise DuplicateError(str(exc)) from exc

    def _one(self, where: str, value: str) -> TableRow | None:
        with self._lock:
            cur = self._db.execute(
                f"SELECT id, watch, code, setup, created FROM tables WHERE {where} = ?", (value,)
            )
            return self._row(cur.fetchone())

    def table_ids(self) -> list[str]:
        """Every table's id, oldest first."""
        with self._lock:
            cur = self._db.execute("SELECT id FROM tables ORDER BY created, rowid")
            return [r[0] for r in cur.fetchall()]

    @_again_when_full
    def set_seat(
        self, table_id: str, seat: str, token_hash: str, previous: str | None = None
    ) -> bool:
        """Give ``seat`` of the table to the holder of the token with this digest, if the
        seat is still held by the digest ``previous`` (``None``: free); returns whether it
        was given (two servers granting one seat at once: one wins)."""
        with self._lock:
            self._check_file()
            if previous is None:
                cur = self._db.execute(
                    "INSERT INTO seats (table_id, seat, token_hash) VALUES (?, ?, ?) "
                    "ON CONFLICT (table_id, seat) DO NOTHING",
                    (table_id, seat, token_hash),
                )
            else:
                cur = self._db.execute(
                    "UPDATE seats SET token_hash = ? "
                    "WHERE table_id = ? AND seat = ? AND token_hash = ?",
                    (token_hash, table_id, seat, previous),
                )
            return cur.rowcount == 1

    def seats(self, table_id: str) -> dict[str, str]:
        """The table's taken seats: seat id -> token digest."""
        with self._lock:
            cur = self._db.execute(
                "SELECT seat, token_hash FROM seats WHERE table_id = ?", (table_id,)
            )
            return {r[0]: r[1] for r in cur.fetchall()}

    @_again_when_full
    def append(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint] = ()) -> set[str]:
        """Append events of one or more tables, with ``checkpoints`` (each replacing any of the
        same table, game and count), in one transaction, each table's all or none: a table
        that already has an event with one of its events' ``seq`` or ``client_id`` (another
        server wrote first) gets none of them, nor its checkpoints. Returns those tables."""
        refused: set[str] = set()
        grouped = by_table(events)
        with self._lock:
            self._check_file()
            try:
                self._db.execute("BEGIN IMMEDIATE")
                # The whole batch in one statement, in as few statements as can be (each lets
                # the event loop's thread take the interpreter's lock, and takes it back: issue
                # 29 item 1). A conflict is rare (another server on the same file): then the
                # transaction starts over, each table on its own.
                try:
                    self._insert([r for rows in grouped.values() for r in rows])
                except sqlite3.IntegrityError:
                    self._db.execute("ROLLBACK")
                    self._db.execute("BEGIN IMMEDIATE")
                    for table, rows in grouped.items():
                        self._db.execute("SAVEPOINT one_table")
                        try:
                            self._insert(rows)
                        except sqlite3.IntegrityError:
                            self._db.execute("ROLLBACK TO one_table")
                            refused.add(table)
                        self._db.execute("RELEASE one_table")
                kept = [c for c in checkpoints if c.table not in refused]
                if kept:
                    self._put_checkpoints(kept)
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
        return refused

    def _insert(self, rows: list[tuple[Any, ...]]) -> None:
        """Insert event rows, :data:`INSERT_ROWS` to a statement: one statement runs as one
        step of SQLite's (``executemany`` runs one for each row, and each step lets go of the
        interpreter's lock and waits to take it back from the event loop's thread)."""
        for start in range(0, len(rows), INSERT_ROWS):
            chunk = rows[start : start + INSERT_ROWS]
            self._db.execute(_insert_of(len(chunk)), [v for row in chunk for v in row])

    def _put_checkpoints(self, checkpoints: Sequence[Checkpoint]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO checkpoints (table_id, game, count, seq, data) "
            "VALUES (?, ?, ?, ?, ?)",
            [(c.table, c.game, c.count, c.seq, c.data) for c in checkpoints],
        )

    @_again_when_full
    def derive(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint]) -> None:
        """Keep what a table derived from events of a log written before it was kept
        (``game``, ``position``, ``entry`` of each event), and ``checkpoints``, at once."""
        with self._lock:
            self._check_file()
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.executemany(
                    "UPDATE events SET game = ?, position = ?, entry = ? "
                    "WHERE table_id = ? AND seq = ?",
                    [(e.game, e.position, e.entry, e.table, e.seq) for e in events],
                )
                self._put_checkpoints(checkpoints)
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def _read(self, table_id: str, where: str, args: tuple[Any, ...]) -> list[Event]:
        with self._reading:
            rows = self._reader.execute(
                f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = ? AND {where}",
                (table_id, *args),
            ).fetchall()
        return [_event(table_id, r) for r in rows]

    def entries(self, table_id: str, before: int, limit: int) -> list[tuple[int, str | None]]:
        """The newest ``limit`` timeline entries with a sequence number below ``before``,
        oldest first, as ``(seq, JSON text)`` (``None``: not derived yet)."""
        with self._reading:
            rows = self._reader.execute(
                "SELECT seq, entry FROM events WHERE table_id = ? AND seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (table_id, before, limit),
            ).fetchall()
        return [(seq, text) for seq, text in reversed(rows)]

    def client_ids(self, table_id: str, limit: int) -> list[tuple[int, str]]:
        """The client ids of the table's newest ``limit`` events, oldest first, as ``(seq,
        client id)``."""
        with self._reading:
            rows = self._reader.execute(
                "SELECT seq, client_id FROM events WHERE table_id = ? ORDER BY seq DESC LIMIT ?",
                (table_id, limit),
            ).fetchall()
        return [(seq, cid) for seq, cid in reversed(rows)]

    def checkpoint(self, table_id: str, game: int, count: int) -> Checkpoint | None:
        """The table's checkpoint at ``count`` actions in effect of game ``game``, if any."""
        with self._reading:
            row = self._reader.execute(
                "SELECT seq, data FROM checkpoints WHERE table_id = ? AND game = ? AND count = ?",
                (table_id, game, count),
            ).fetchone()
        return None if row is None else Checkpoint(table_id, game, count, row[0], bytes(row[1]))

    def tools(self, table_id: str) -> tuple[int, str] | None:
        """The table's tools as ``(version, JSON text)``, or ``None`` if it never had any."""
        with self._reading:
            row = self._reader.execute(
                "SELECT version, data FROM tools WHERE table_id = ?", (table_id,)
            ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    @_again_when_full
    def put_tools(self, table_id: str, version: int, data: str) -> bool:
        """Keep the table's tools as ``version`` if the store holds version ``version - 1``
        (none for version 1); returns whether they were kept."""
        with self._lock:
            self._check_file()
            if version == 1:
                cur = self._db.execute(
                    "INSERT INTO tools (table_id, version, data) VALUES (?, ?, ?) "
                    "ON CONFLICT (table_id) DO NOTHING",
                    (table_id, version, data),
                )
            else:
                cur = self._db.execute(
                    "UPDATE tools SET version = ?, data = ? WHERE table_id = ? AND version = ?",
                    (version, data, table_id, version - 1),
                )
            return cur.rowcount == 1

    def close(self) -> None:
        """Close the database connections."""
        if self._reader is not self._db:
            with self._reading:
                self._reader.close()
        with self._lock:
            self._db.close()


def by_table(events: Sequence[Event]) -> dict[str, list[tuple[Any, ...]]]:
    """Events as rows of the ``events`` table, by table, in order."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for e in events:
        out.setdefault(e.table, []).append(event_row(e))
    return out


#: The most event rows one INSERT statement writes: 10 values each, within the 999 values a
#: statement that SQLite before 3.32 takes (32,766 since).
INSERT_ROWS = 99


@functools.lru_cache(maxsize=64)
def _insert_of(rows: int) -> str:
    """The INSERT statement of ``rows`` events (one text for each count: SQLite's statement
    cache keeps each prepared)."""
    values = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"] * rows)
    return f"INSERT INTO events (table_id, {EVENT_COLUMNS}) VALUES {values}"


def event_row(e: Event) -> tuple[Any, ...]:
    """An event as a row of the ``events`` table: ``table_id``, then the ``EVENT_COLUMNS``."""
    body = json.dumps(e.body, separators=(",", ":"))
    return (e.table, e.seq, e.kind, body, e.client_id, e.seat, e.time, e.game, e.position, e.entry)


def _event(table_id: str, r: tuple[Any, ...]) -> Event:
    try:
        body = json.loads(r[2])
    except (ValueError, TypeError, RecursionError) as exc:
        raise DamagedError(table_id, r[0], f"its body is not JSON ({str(exc)[:200]})") from exc
    return Event(table_id, r[0], r[1], body, r[3], r[4], r[5], r[6], r[7], r[8])

"""The PostgreSQL store: the :class:`~.records.Store` protocol on a database server, for several
``lifeledger serve`` processes sharing their tables.

Same schema ideas as :class:`~.sqlite.SQLiteStore` (a table's setup, its seats' token digests,
its append-only log with what was derived from each event, and checkpoints), the same
guarantees, and the same contract tests (``tests/table/store_contract.py``):

- every write is one transaction, committed before the method returns (PostgreSQL's commit
  waits for its WAL to reach the disk; a session set to ``synchronous_commit = off`` is set
  back to ``on``);
- ``(table, seq)`` and ``(table, client_id)`` are unique keys: of two processes appending the
  same sequence number (or client op id) to a table, one wins and the other gets
  :class:`~.records.DuplicateError`, whichever commits second;
- bodies and setups are kept as the JSON text they were written as (not ``jsonb``, which
  reorders keys and refuses some strings), so they read back exactly.

The schema is versioned (the one row of ``lifeledger_schema``): opening a store creates it or
upgrades it, inside one transaction holding an advisory lock, so that processes starting
together don't race; each upgrade only adds. A database of a newer lifeledger is refused.

Connections come from a :class:`psycopg_pool.ConnectionPool` (thread-safe: the table app reads
on its event loop and writes from worker threads). A read that fails on a connection the server
closed (after a restart of the server, say) is tried once more on another connection; a write
is not, since it may have been committed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

import psycopg
from psycopg import conninfo
from psycopg_pool import ConnectionPool, PoolTimeout
from psycopg_pool.base import AttemptWithBackoff

from .records import (
    Checkpoint,
    DamagedError,
    DuplicateError,
    Event,
    Lease,
    StoreError,
    StoreUnavailable,
    TableRow,
)
from .sqlite import COLUMNS, EVENT_COLUMNS, LogReads, _event, by_table

log = logging.getLogger("lifeledger_table")

#: One row of ``events`` in an INSERT's VALUES (written as one statement a table: no pipeline).
_ROW = "(" + ", ".join(["%s"] * 10) + ")"

#: The channel on which every server is told of the others' writes (``NOTIFY``).
CHANNEL = "lifeledger"

#: How long a read made on an event loop's thread waits for a connection (seconds): the few
#: reads the table app still makes there (an undo back past a checkpoint, an old history page)
#: must never hold the loop for the pool's whole timeout while the server can't be reached.
LOOP_TIMEOUT = 0.5

#: How long making one connection may take (seconds, libpq's ``connect_timeout``; it counts
#: whole seconds, 2 at least): a server that can't be reached is found out in that time, not
#: in the pool's whole wait (issue 26 item 7: acknowledgements resumed 9.6 s after the
#: server's return).
CONNECT_TIMEOUT = 2
#: While the server can't be reached, the pool tries to connect again after FIRST_RECONNECT
#: seconds, doubling up to LONGEST_RECONNECT: the server's return is found within that (the
#: pool's own backoff doubles from 1 s without a bound, 8 s and more after a short outage).
FIRST_RECONNECT = 0.1
LONGEST_RECONNECT = 0.5
#: How long a call waits for a connection while the server can't be reached (seconds): it
#: fails then (:class:`StoreUnavailable`), its caller tries again, and a connection made again
#: meanwhile is given to the waiting call at once.
DOWN_TIMEOUT = 0.5

__all__ = ["SCHEMA_VERSION", "PostgresStore", "describe"]

T = TypeVar("T")
Connection = psycopg.Connection[tuple[Any, ...]]

#: The advisory lock held while the schema is created or upgraded ("lifeledg" in ASCII).
MIGRATION_LOCK = 0x6C6966656C656467

#: The schema's upgrades, in order: upgrade ``n`` (from 1) takes a database from version
#: ``n - 1`` to ``n`` (``lifeledger_schema.version``; 0: no table store yet). Each only adds:
#: nothing stored is ever changed or lost. Never edit one that was released: add another.
MIGRATIONS: list[str] = [
    """
    CREATE TABLE tables (
        id TEXT PRIMARY KEY,
        watch TEXT NOT NULL UNIQUE,
        code TEXT NOT NULL UNIQUE,
        setup TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL,
        number BIGINT GENERATED ALWAYS AS IDENTITY
    );
    CREATE TABLE seats (
        table_id TEXT NOT NULL REFERENCES tables (id),
        seat TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        PRIMARY KEY (table_id, seat)
    );
    CREATE TABLE events (
        table_id TEXT NOT NULL REFERENCES tables (id),
        seq BIGINT NOT NULL,
        kind TEXT NOT NULL,
        body TEXT NOT NULL,
        client_id TEXT NOT NULL,
        seat TEXT,
        time DOUBLE PRECISION NOT NULL,
        game BIGINT,
        position BIGINT,
        entry TEXT,
        PRIMARY KEY (table_id, seq),
        UNIQUE (table_id, client_id)
    );
    CREATE INDEX events_by_position ON events (table_id, game, position);
    CREATE TABLE checkpoints (
        table_id TEXT NOT NULL REFERENCES tables (id),
        game BIGINT NOT NULL,
        count BIGINT NOT NULL,
        seq BIGINT NOT NULL,
        data BYTEA NOT NULL,
        PRIMARY KEY (table_id, game, count)
    )
    """,
    # 2: the table's tools (dice, clocks, the round timer), one versioned row a table
    """
    CREATE TABLE tools (
        table_id TEXT PRIMARY KEY REFERENCES tables (id),
        version BIGINT NOT NULL,
        data TEXT NOT NULL
    )
    """,
    # 3: which process decides each table (issue 18 item 2), and the secret the processes
    # show each other when they forward changes to a table's owner
    """
    CREATE TABLE table_leases (
        table_id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        address TEXT NOT NULL,
        expires TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX table_leases_by_owner ON table_leases (owner);
    CREATE TABLE lifeledger_secret (
        one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
        secret TEXT NOT NULL
    )
    """,
    # 4: each process's key for the internal links, kept as a digest (issue 26 item 9: the
    # shared secret of version 3 was readable by anyone who could read the database; it is
    # forgotten, and no longer used)
    """
    CREATE TABLE lifeledger_processes (
        owner TEXT PRIMARY KEY,
        address TEXT NOT NULL,
        digest TEXT NOT NULL
    );
    DELETE FROM lifeledger_secret
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)

#: The columns of SQLite's store, and an identity column ``number`` that orders the tables.
_COLUMNS = {**COLUMNS, "tables": [*COLUMNS["tables"], "number"]}


def describe(url: str) -> str:
    """The database a URL names, for messages: ``postgresql://user@host:port/dbname``,
    without its password or other parameters."""
    try:
        parts = conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return "postgresql://(a malformed URL)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{parts.get('host') or ''}{port}/{parts.get('dbname') or ''}"


def _line(exc: BaseException, url: str = "") -> str:
    """An error's message on one line (libpq's span several), without the URL's password
    (libpq quotes the part of a URL it can't read)."""
    text = " ".join(str(exc).split())
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password:
        text = text.replace(password, "***")
    return text[:300] or type(exc).__name__


class PostgresStore(LogReads):
    """A table store in a PostgreSQL database (``url``: any libpq URL or connection string),
    through a pool of ``pool_size`` connections (opened at the start, each replaced when lost).

    Opening checks the database as :class:`~.sqlite.SQLiteStore` checks its file: that it can
    be reached, creates or upgrades the schema, refuses a newer one or another program's tables,
    and takes a write; if not, :class:`~.records.StoreError` says why in one line.
    """

    _PARAM = "%s"

    def __init__(self, url: str, *, pool_size: int = 4, timeout: float = 10.0) -> None:
        if pool_size < 1:
            raise StoreError("a PostgreSQL store needs a pool of at least 1 connection")
        self.url = url
        self.where = describe(url)
        try:
            given = conninfo.conninfo_to_dict(url)
        except psycopg.Error as exc:
            raise StoreError(
                f"can't open the table store: a malformed URL ({_line(exc, self.url)})"
            ) from exc
        settings: dict[str, Any] = {"autocommit": True}
        self._settings = settings
        if "connect_timeout" not in given:
            settings["connect_timeout"] = min(CONNECT_TIMEOUT, max(1, round(timeout)))
        if "application_name" not in given:
            settings["application_name"] = "lifeledger"
        try:
            with psycopg.connect(url, **settings) as conn:
                _durable(conn)
                self._migrate(conn)
        except StoreError:
            raise
        except psycopg.Error as exc:
            raise StoreError(
                f"can't open the table store {self.where}: {_line(exc, self.url)}"
            ) from exc
        self._pool: ConnectionPool[Connection] = _Pool(
            url,
            kwargs=settings,
            min_size=pool_size,
            max_size=pool_size,
            open=False,
            configure=_durable,
            timeout=timeout,
            name="lifeledger",
            reconnect_timeout=RECONNECT_FOREVER,
        )
        try:
            self._pool.open(wait=True, timeout=timeout)
        except psycopg.Error as exc:
            self._pool.close()
            raise StoreError(
                f"can't open the table store {self.where}: {_line(exc, self.url)}"
            ) from exc
        self._closed = threading.Event()
        #: The leases' own connection (made on first use): a renewal never waits for the
        #: pool, whose connections may all be busy with writes (a slow disk), or the leases
        #: would expire while their owner is alive and well.
        self._lease_conn: Connection | None = None
        self._lease_lock = threading.Lock()
        #: Set while the server can't be reached (the last call failed so), cleared by any
        #: call that succeeds: reads on an event loop's thread then fail at once.
        self._down = threading.Event()

    # -- the schema ------------------------------------------------------------------------

    def _migrate(self, conn: Connection) -> None:
        """Create or upgrade the schema, in one transaction under an advisory lock (another
        process starting at the same time waits, then finds it done). It ends with a write,
        so that a database that can be read but not written is refused now."""
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS lifeledger_schema ("
                " one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),"
                " version INTEGER NOT NULL)"
            )
            found = conn.execute("SELECT version FROM lifeledger_schema").fetchone()
            version = 0 if found is None else int(found[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the table store {self.where} is of a newer lifeledger (schema version "
                    f"{version}; this one knows up to {SCHEMA_VERSION}): upgrade lifeledger"
                )
            if version == 0:
                clash = self._columns(conn)
                if clash:
                    name = sorted(clash)[0]
                    raise StoreError(
                        f"{self.where} is not a lifeledger table store "
                        f"(it has a {name!r} table of another program)"
                    )
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        conn.execute(statement)
            self._check_columns(conn)
            conn.execute(
                "INSERT INTO lifeledger_schema (version) VALUES (%s) "
                "ON CONFLICT (one) DO UPDATE SET version = excluded.version",
                (SCHEMA_VERSION,),
            )

    @staticmethod
    def _columns(conn: Connection) -> dict[str, list[str]]:
        """The columns of the store's tables found in the database's current schema."""
        rows = conn.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND table_name = ANY(%s) "
            "ORDER BY table_name, ordinal_position",
            (list(_COLUMNS),),
        ).fetchall()
        found: dict[str, list[str]] = {}
        for table, column in rows:
            found.setdefault(table, []).append(column)
        return found

    def _check_columns(self, conn: Connection) -> None:
        found = self._columns(conn)
        for table, columns in _COLUMNS.items():
            have = found.get(table, [])
            if have != columns:
                raise StoreError(
                    f"{self.where} is not a lifeledger table store "
                    f"(its {table!r} table has the columns {have})"
                )

    # -- connections -----------------------------------------------------------------------

    @contextmanager
    def _connection(self) -> Iterator[Connection]:
        """A connection from the pool; a database error becomes :class:`StoreError`
        (a unique key's, :class:`DuplicateError`; a lost connection, a server that can't be
        reached, no connection free in time or a deadlock broken, :class:`StoreUnavailable`)."""
        wait = DOWN_TIMEOUT if self._down.is_set() else None
        try:
            with self._pool.connection(timeout=wait) as conn:
                yield conn
        except psycopg.IntegrityError as exc:
            raise DuplicateError(_line(exc, self.url)) from exc
        except psycopg.OperationalError as exc:
            self._down.set()
            raise StoreUnavailable(
                f"the table store {self.where} can't be reached: {_line(exc, self.url)}"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(
                f"the table store {self.where} failed: {_line(exc, self.url)}"
            ) from exc
        self._down.clear()

    def _reading(self, read: Callable[[Connection], T]) -> T:
        """Run a read; once more on another connection if the first one was lost. On an event
        loop's thread, a read fails at once (:class:`StoreUnavailable`) while the server can't
        be reached, and waits at most :data:`LOOP_TIMEOUT` for a connection."""
        on_loop = _on_loop()
        if on_loop and self._down.is_set():
            raise StoreUnavailable(f"the table store {self.where} can't be reached now")
        try:
            with self._pool.connection(timeout=LOOP_TIMEOUT if on_loop else None) as conn:
                found = read(conn)
            self._down.clear()
            return found
        except PoolTimeout as exc:
            if not on_loop:
                self._down.set()
            raise StoreUnavailable(
                f"the table store {self.where} can't be reached: {_line(exc, self.url)}"
            ) from exc
        except psycopg.OperationalError as exc:
            if self._closed.is_set():
                raise StoreError(f"the table store {self.where} is closed") from None
            if on_loop:  # no new connections made here: a thread's read does that
                self._down.set()
                raise StoreUnavailable(
                    f"the table store {self.where} can't be reached: {_line(exc, self.url)}"
                ) from exc
            self._pool.check()  # replaces every idle connection that was lost too
        except psycopg.Error as exc:
            raise StoreError(
                f"the table store {self.where} failed: {_line(exc, self.url)}"
            ) from exc
        with self._connection() as conn:
            return read(conn)

    def _rows(self, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if any(isinstance(arg, str) and "\x00" in arg for arg in args):
            return []  # PostgreSQL's text holds no NUL character: nothing stored matches

        def read(conn: Connection) -> list[tuple[Any, ...]]:
            return conn.execute(query, args).fetchall()

        return self._reading(read)

    # -- tables and seats ------------------------------------------------------------------

    def create_table(self, row: TableRow) -> None:
        """Store a new table; raises :class:`DuplicateError` if its id, watch id or code exists."""
        with self._connection() as conn:
            conn.execute(
                "INSERT INTO tables (id, watch, code, setup, created) VALUES (%s, %s, %s, %s, %s)",
                (row.id, row.watch, row.code, json.dumps(row.setup), row.created),
            )

    def _one(self, where: str, value: str) -> TableRow | None:
        rows = self._rows(
            f"SELECT id, watch, code, setup, created FROM tables WHERE {where} = %s", (value,)
        )
        return _table_row(rows[0]) if rows else None

    def table_ids(self) -> list[str]:
        """Every table's id, oldest first."""
        return [r[0] for r in self._rows("SELECT id FROM tables ORDER BY created, number", ())]

    def set_seat(
        self, table_id: str, seat: str, token_hash: str, previous: str | None = None
    ) -> bool:
        """Give ``seat`` of the table to the holder of the token with this digest, if the
        seat is still held by the digest ``previous`` (``None``: free); returns whether it
        was given (two servers granting one seat at once: one wins). The other servers are
        told (``seats``) when the transaction commits."""
        with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
            if previous is None:
                cur.execute(
                    "INSERT INTO seats (table_id, seat, token_hash) VALUES (%s, %s, %s) "
                    "ON CONFLICT (table_id, seat) DO NOTHING",
                    (table_id, seat, token_hash),
                )
            else:
                cur.execute(
                    "UPDATE seats SET token_hash = %s "
                    "WHERE table_id = %s AND seat = %s AND token_hash = %s",
                    (token_hash, table_id, seat, previous),
                )
            given = cur.rowcount == 1
            if given:
                cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"seats {table_id} "))
            return given

    def seats(self, table_id: str) -> dict[str, str]:
        """The table's taken seats: seat id -> token digest."""
        rows = self._rows("SELECT seat, token_hash FROM seats WHERE table_id = %s", (table_id,))
        return {r[0]: r[1] for r in rows}

    # -- the log ---------------------------------------------------------------------------

    def append(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint] = ()) -> set[str]:
        """Append events of one or more tables, with ``checkpoints`` (each replacing any of the
        same table, game and count), in one transaction, each table's all or none (a
        savepoint each): a table that already has an event with one of its events' ``seq`` or
        ``client_id`` (another server wrote first) gets none of them, nor its checkpoints.
        Returns those tables. The other servers are told of the rest when it commits.

        The tables are written in the order of their ids, and the checkpoints in the order of
        their keys, whatever the batch's order: two processes appending batches of the same
        tables take the rows' locks in one order, so neither waits for the other in a circle
        (a deadlock, which PostgreSQL ends by failing one of them after a second)."""
        refused: set[str] = set()
        grouped = sorted(by_table(events).items())
        with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
            # The whole batch in as few statements as may be (a round trip each, and its
            # work on both sides): a conflict is rare (another process wrote first); if a
            # table of the batch conflicts, each table is written on its own.
            try:
                with conn.transaction():
                    _insert_events(cur, [row for _, rows in grouped for row in rows])
            except psycopg.IntegrityError:
                for table, rows in grouped:
                    try:
                        with conn.transaction():
                            _insert_events(cur, rows)
                    except psycopg.IntegrityError:
                        refused.add(table)
            notices = [f"event {t} {rows[-1][1]}" for t, rows in grouped if t not in refused]
            if notices:
                cur.execute(
                    "SELECT pg_notify(%s, notice) FROM unnest(%s::text[]) AS notice",
                    (CHANNEL, notices),
                )
            _put_checkpoints(cur, [c for c in checkpoints if c.table not in refused])
        return refused

    async def listen(self, notified: Callable[[str, str, str], None]) -> None:
        """Call ``notified(kind, table_id, detail)`` for every notice of any server on this
        database (``event`` and ``seats`` from writes, and what :meth:`notify` sends) until
        cancelled, on a connection of its own (LISTEN). If that connection is lost, it
        connects again (after :data:`FIRST_RECONNECT`, then up to :data:`LONGEST_RECONNECT`
        apart: notices resume within that of the server's return) and calls
        ``notified("lost", "", "")``: notices may have been missed. One line is logged when
        they are lost, and one when they are heard again."""
        delay, lost = FIRST_RECONNECT, False
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.url, **self._settings
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    if lost:
                        log.warning("hearing the table store's notices again")
                        notified("lost", "", "")
                    delay, lost = FIRST_RECONNECT, False
                    async for note in conn.notifies():
                        kind, table, detail = [*note.payload.split(" ", 2), "", ""][:3]
                        notified(kind, table, detail)
            except psycopg.Error as exc:
                if not lost:
                    log.warning("lost the table store's notices (%s); listening again", _line(exc))
            lost = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, LONGEST_RECONNECT)

    def notify(self, kind: str, table_id: str, detail: str) -> None:
        """Send every server on this database a notice (``NOTIFY``)."""
        with self._connection() as conn:
            conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{kind} {table_id} {detail}"))

    def derive(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint]) -> None:
        """Keep what a table derived from events of a log written before it was kept
        (``game``, ``position``, ``entry`` of each event), and ``checkpoints``, at once."""
        with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
            if events:
                cur.executemany(
                    "UPDATE events SET game = %s, position = %s, entry = %s "
                    "WHERE table_id = %s AND seq = %s",
                    [
                        (e.game, e.position, e.entry, e.table, e.seq)
                        for e in sorted(events, key=lambda e: (e.table, e.seq))
                    ],
                )
            _put_checkpoints(cur, checkpoints)

    def _read(self, table_id: str, where: str, args: tuple[Any, ...]) -> list[Event]:
        rows = self._rows(
            f"SELECT {EVENT_COLUMNS} FROM events WHERE table_id = %s AND {where}", (table_id, *args)
        )
        return [_event(table_id, r) for r in rows]

    def entries(self, table_id: str, before: int, limit: int) -> list[tuple[int, str | None]]:
        """The newest ``limit`` timeline entries with a sequence number below ``before``,
        oldest first, as ``(seq, JSON text)`` (``None``: not derived yet)."""
        rows = self._rows(
            "SELECT seq, entry FROM events WHERE table_id = %s AND seq < %s "
            "ORDER BY seq DESC LIMIT %s",
            (table_id, before, limit),
        )
        return [(seq, text) for seq, text in reversed(rows)]

    def client_ids(self, table_id: str, limit: int) -> list[tuple[int, str]]:
        """The client ids of the table's newest ``limit`` events, oldest first, as ``(seq,
        client id)``."""
        rows = self._rows(
            "SELECT seq, client_id FROM events WHERE table_id = %s ORDER BY seq DESC LIMIT %s",
            (table_id, limit),
        )
        return [(int(seq), str(cid)) for seq, cid in reversed(rows)]

    def checkpoint(self, table_id: str, game: int, count: int) -> Checkpoint | None:
        """The table's checkpoint at ``count`` actions in effect of game ``game``, if any."""
        rows = self._rows(
            "SELECT seq, data FROM checkpoints WHERE table_id = %s AND game = %s AND count = %s",
            (table_id, game, count),
        )
        if not rows:
            return None
        return Checkpoint(table_id, game, count, rows[0][0], bytes(rows[0][1]))

    def tools(self, table_id: str) -> tuple[int, str] | None:
        """The table's tools as ``(version, JSON text)``, or ``None`` if it never had any."""
        rows = self._rows("SELECT version, data FROM tools WHERE table_id = %s", (table_id,))
        return (int(rows[0][0]), str(rows[0][1])) if rows else None

    def put_tools(self, table_id: str, version: int, data: str) -> bool:
        """Keep the table's tools as ``version`` if the store holds version ``version - 1``
        (none for version 1); returns whether they were kept. The other servers are told
        (``tools``, with the version) when the transaction commits."""
        with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
            if version == 1:
                cur.execute(
                    "INSERT INTO tools (table_id, version, data) VALUES (%s, %s, %s) "
                    "ON CONFLICT (table_id) DO NOTHING",
                    (table_id, version, data),
                )
            else:
                cur.execute(
                    "UPDATE tools SET version = %s, data = %s WHERE table_id = %s AND version = %s",
                    (version, data, table_id, version - 1),
                )
            kept = cur.rowcount == 1
            if kept:
                cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"tools {table_id} {version}"))
            return kept

    # -- leases (issue 18 item 2) ---------------------------------------------------------

    @contextmanager
    def _leasing(self) -> Iterator[Connection]:
        """The leases' connection (made again if it was lost), one thread at a time; a
        database error becomes :class:`StoreError` (:class:`StoreUnavailable` for a lost
        connection)."""
        with self._lease_lock:
            try:
                if self._lease_conn is None or self._lease_conn.closed:
                    if self._closed.is_set():
                        raise StoreError(f"the table store {self.where} is closed")
                    self._lease_conn = psycopg.connect(self.url, **self._settings)
                yield self._lease_conn
            except psycopg.OperationalError as exc:
                if self._lease_conn is not None:
                    self._lease_conn.close()
                self._lease_conn = None
                raise StoreUnavailable(
                    f"the table store {self.where} can't be reached: {_line(exc, self.url)}"
                ) from exc
            except psycopg.Error as exc:
                raise StoreError(
                    f"the table store {self.where} failed: {_line(exc, self.url)}"
                ) from exc

    def claim(self, table_id: str, owner: str, address: str, seconds: float) -> Lease:
        """Take the table's lease for ``seconds`` (by the database's clock) if nobody holds
        it, it expired, or ``owner`` holds it; the lease as it then is (one statement: of two
        processes claiming at once, one gets it)."""
        with self._leasing() as conn:
            row = conn.execute(
                "INSERT INTO table_leases AS l (table_id, owner, address, expires) "
                "VALUES (%s, %s, %s, now() + make_interval(secs => %s)) "
                "ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner, "
                "address = excluded.address, expires = excluded.expires "
                "WHERE l.expires <= now() OR l.owner = excluded.owner "
                "RETURNING owner, address, extract(epoch FROM expires - now())",
                (table_id, owner, address, seconds),
            ).fetchone()
            if row is None:
                row = conn.execute(
                    "SELECT owner, address, extract(epoch FROM expires - now()) "
                    "FROM table_leases WHERE table_id = %s",
                    (table_id,),
                ).fetchone()
        if row is None:  # released between the two statements: free to claim again
            return self.claim(table_id, owner, address, seconds)
        return Lease(table_id, str(row[0]), str(row[1]), float(row[2]))

    def renew(self, owner: str, seconds: float) -> set[str]:
        """Extend every lease ``owner`` holds by ``seconds`` from now (one statement); their
        tables."""
        with self._leasing() as conn:
            rows = conn.execute(
                "UPDATE table_leases SET expires = now() + make_interval(secs => %s) "
                "WHERE owner = %s RETURNING table_id",
                (seconds, owner),
            ).fetchall()
        return {str(r[0]) for r in rows}

    def release(self, owner: str, table_ids: Sequence[str]) -> None:
        """Give up ``owner``'s leases of these tables."""
        if table_ids:
            with self._leasing() as conn:
                conn.execute(
                    "DELETE FROM table_leases WHERE owner = %s AND table_id = ANY(%s)",
                    (owner, list(table_ids)),
                )

    def register(self, owner: str, address: str, digest: str) -> None:
        """Register process ``owner`` at ``address`` with its key's digest (a process
        registered at that address before is gone)."""
        with self._connection() as conn, conn.transaction():
            conn.execute(
                "DELETE FROM lifeledger_processes WHERE address = %s AND owner <> %s",
                (address, owner),
            )
            conn.execute(
                "INSERT INTO lifeledger_processes (owner, address, digest) VALUES (%s, %s, %s) "
                "ON CONFLICT (owner) DO UPDATE SET address = excluded.address, "
                "digest = excluded.digest",
                (owner, address, digest),
            )

    def unregister(self, owner: str) -> None:
        """Forget process ``owner``."""
        with self._connection() as conn:
            conn.execute("DELETE FROM lifeledger_processes WHERE owner = %s", (owner,))

    def processes(self) -> dict[str, tuple[str, str]]:
        """The processes registered: id -> (address, digest of its key)."""
        rows = self._rows("SELECT owner, address, digest FROM lifeledger_processes", ())
        return {str(o): (str(a), str(d)) for o, a, d in rows}

    def close(self) -> None:
        """Close the pool's connections (and the leases')."""
        self._closed.set()
        self._pool.close()
        with self._lease_lock:
            if self._lease_conn is not None:
                self._lease_conn.close()


#: The pool never gives up connecting again (seconds: ten years): a connection it gave up on
#: would leave it smaller for good.
RECONNECT_FOREVER = 10 * 365 * 86400.0


class _Attempt(AttemptWithBackoff):
    """The pool's attempts to connect again, from :data:`FIRST_RECONNECT` seconds apart,
    doubling, to :data:`LONGEST_RECONNECT`."""

    INITIAL_DELAY = FIRST_RECONNECT

    def update_delay(self, now: float) -> None:
        super().update_delay(now)
        self.delay = min(self.delay, LONGEST_RECONNECT)


class _Pool(ConnectionPool[Connection]):
    """A :class:`ConnectionPool` whose lost connections are made again within
    :data:`LONGEST_RECONNECT` of the server's return."""

    def _add_connection(self, attempt: AttemptWithBackoff | None, growing: bool = False) -> None:
        super()._add_connection(attempt or _Attempt(timeout=self.reconnect_timeout), growing)


def _on_loop() -> bool:
    """Whether this thread runs an event loop (a thread of ``asyncio.to_thread`` runs none)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _durable(conn: Connection) -> None:
    """A commit waits for the disk, whatever the server's default."""
    found = conn.execute("SHOW synchronous_commit").fetchone()
    if found is not None and found[0] == "off":
        conn.execute("SET synchronous_commit = on")


def _insert_events(cur: psycopg.Cursor[tuple[Any, ...]], rows: list[tuple[Any, ...]]) -> None:
    """Insert rows of ``events`` (``by_table``'s), a thousand a statement."""
    for start in range(0, len(rows), 1000):
        chunk = rows[start : start + 1000]
        values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
        cur.execute(
            f"INSERT INTO events (table_id, {EVENT_COLUMNS}) VALUES {values}",
            [value for row in chunk for value in row],
        )


def _put_checkpoints(cur: psycopg.Cursor[tuple[Any, ...]], made: Sequence[Checkpoint]) -> None:
    made = sorted(made, key=lambda c: (c.table, c.game, c.count))  # locks in one order
    if made:
        cur.executemany(
            "INSERT INTO checkpoints (table_id, game, count, seq, data) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (table_id, game, count) "
            "DO UPDATE SET seq = excluded.seq, data = excluded.data",
            [(c.table, c.game, c.count, c.seq, c.data) for c in made],
        )


def _table_row(row: tuple[Any, ...]) -> TableRow:
    try:
        setup = json.loads(row[3])
        if not isinstance(setup, dict) or not isinstance(setup.get("header"), dict):
            raise ValueError("the setup is not an object with a header")
    except (ValueError, TypeError, RecursionError) as exc:
        raise DamagedError(str(row[0]), None, str(exc)[:200]) from exc
    return TableRow(id=row[0], watch=row[1], code=row[2], setup=setup, created=row[4])

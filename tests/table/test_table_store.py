"""The SQLite and PostgreSQL stores keep the store contract; what only PostgreSQL has: its
migrations, several processes on one database, a server that drops connections."""

from __future__ import annotations

import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
from store_contract import StoreContract, event, row

from lifeledger_table.store.opening import open_store, sqlite_path
from lifeledger_table.store.postgres import SCHEMA_VERSION, PostgresStore
from lifeledger_table.store.records import Checkpoint, DamagedError, Store, StoreError, hash_token
from lifeledger_table.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from pg_cluster import Cluster


class TestSQLiteStore(StoreContract):
    @pytest.fixture(autouse=True)
    def _path(self, tmp_path: Path) -> None:
        self.path = str(tmp_path / "store.db")

    def make_store(self) -> Store:
        return SQLiteStore(self.path)

    def reopen(self, store: Store) -> Store:
        return SQLiteStore(self.path)


def test_the_database_is_in_wal_mode(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "wal.db"))
    mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    store.close()
    assert mode == "wal"


def test_tokens_are_stored_as_digests() -> None:
    assert hash_token("secret") != "secret" and len(hash_token("secret")) == 64


# -- PostgreSQL (issue 10): the same contract on a real server, and what only a server has ----


class TestPostgresStore(StoreContract):
    @pytest.fixture(autouse=True)
    def _database(self, pg_url: str) -> None:
        self.url = pg_url

    def make_store(self) -> Store:
        return PostgresStore(self.url)

    def reopen(self, store: Store) -> Store:
        return PostgresStore(self.url)


def sql(url: str, query: str, *args: Any) -> list[tuple[Any, ...]]:
    """Run one statement on the database directly; its rows (none for a statement without)."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute(query.encode(), args)
        return cur.fetchall() if cur.description else []


def schema(url: str) -> list[tuple[Any, ...]]:
    """The database's tables, columns and indexes, to compare before and after."""
    return sql(
        url,
        "SELECT table_name, column_name, data_type FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
    ) + sql(
        url,
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1",
    )


def test_migrations_create_the_schema_on_an_empty_database_and_keep_it_on_restart(
    pg_url: str,
) -> None:
    assert schema(pg_url) == []
    store = PostgresStore(pg_url)
    created = schema(pg_url)
    assert {r[0] for r in created if len(r) == 3} == {
        "lifeledger_schema",
        "tables",
        "seats",
        "events",
        "checkpoints",
        "tools",
        "table_leases",
        "lifeledger_secret",
        "lifeledger_processes",
    }
    assert sql(pg_url, "SELECT version FROM lifeledger_schema") == [(SCHEMA_VERSION,)]
    store.create_table(row(1))
    store.append([event("table-1", 1, "c1")], [Checkpoint("table-1", 1, 0, 1, b"\x00\xff")])
    store.close()
    for _ in range(2):  # a restart finds the schema done: it changes nothing
        again = PostgresStore(pg_url)
        assert again.events("table-1") == [event("table-1", 1, "c1")]
        assert again.checkpoint("table-1", 1, 0) == Checkpoint("table-1", 1, 0, 1, b"\x00\xff")
        again.close()
        assert schema(pg_url) == created
        assert sql(pg_url, "SELECT version FROM lifeledger_schema") == [(SCHEMA_VERSION,)]


def test_processes_starting_together_migrate_once(pg_url: str) -> None:
    """An advisory lock around the migrations: starts on an empty database don't race."""
    barrier = threading.Barrier(4)

    def start(_: int) -> PostgresStore:
        barrier.wait()
        return PostgresStore(pg_url, pool_size=1)

    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(start, range(4)))
    stores[0].create_table(row(1))
    assert [s.table_ids() for s in stores] == [["table-1"]] * 4
    for store in stores:
        store.close()
    assert sql(pg_url, "SELECT version FROM lifeledger_schema") == [(SCHEMA_VERSION,)]


def test_two_processes_appending_the_same_seq_at_once_one_wins(pg_url: str) -> None:
    """Two stores (two pools, as two processes have) append the same sequence number, or the
    same client op id, at the same moment: exactly one is written, the other is told its
    table was refused, and the log has no gap and no duplicate."""
    one, two = PostgresStore(pg_url, pool_size=1), PostgresStore(pg_url, pool_size=1)
    one.create_table(row(1))
    barrier = threading.Barrier(2)

    def append(store: PostgresStore, seq: int, client_id: str) -> bool:
        barrier.wait()
        return not store.append([event("table-1", seq, client_id)])

    try:
        with ThreadPoolExecutor(2) as pool:
            for seq in range(1, 31):
                same_seq = [
                    pool.submit(append, s, seq, f"{n}-{seq}") for n, s in enumerate((one, two))
                ]
                assert sorted(f.result() for f in same_seq) == [False, True]
            for seq in range(31, 41):  # the same client op id, retried through both at once
                same_id = [
                    pool.submit(append, s, seq + n * 100, f"op-{seq}")
                    for n, s in enumerate((one, two))
                ]
                assert sorted(f.result() for f in same_id) == [False, True]
                if two.event("table-1", seq + 100) is not None:  # the second one won: move it
                    sql(pg_url, "UPDATE events SET seq = %s WHERE seq = %s", seq, seq + 100)
        assert [e.seq for e in two.events("table-1")] == list(range(1, 41))
        assert len({e.client_id for e in one.events("table-1")}) == 40
    finally:
        one.close()
        two.close()


def test_a_database_of_a_newer_lifeledger_is_refused(pg_url: str) -> None:
    PostgresStore(pg_url).close()
    sql(pg_url, "UPDATE lifeledger_schema SET version = %s", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError) as refused:
        PostgresStore(pg_url)
    message = str(refused.value)
    assert "\n" not in message and "newer lifeledger" in message
    assert f"schema version {SCHEMA_VERSION + 1}" in message
    assert sql(pg_url, "SELECT version FROM lifeledger_schema") == [(SCHEMA_VERSION + 1,)]


def test_another_programs_tables_are_refused_and_left_alone(pg_url: str) -> None:
    sql(pg_url, "CREATE TABLE events (id SERIAL PRIMARY KEY, what TEXT)")
    sql(pg_url, "INSERT INTO events (what) VALUES ('theirs')")
    with pytest.raises(StoreError, match="not a lifeledger table store"):
        PostgresStore(pg_url)
    assert sql(pg_url, "SELECT what FROM events") == [("theirs",)]
    assert sql(pg_url, "SELECT to_regclass('lifeledger_schema')") == [(None,)]


def test_an_unreachable_server_is_a_one_line_error_without_the_password(
    pg_cluster: Cluster,
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens there
    with pytest.raises(StoreError) as failed:
        PostgresStore(f"postgresql://ana:s3cret@127.0.0.1:{port}/tables", timeout=2)
    message = str(failed.value)
    assert "\n" not in message and "s3cret" not in message
    assert f"postgresql://ana@127.0.0.1:{port}/tables" in message
    with pytest.raises(StoreError) as malformed:
        PostgresStore("postgresql://ana:p%zz@127.0.0.1/tables")
    assert "malformed URL" in str(malformed.value) and "p%zz" not in str(malformed.value)
    with pytest.raises(StoreError) as missing:
        PostgresStore(pg_cluster.url("no_such_database"))
    assert "no_such_database" in str(missing.value) and "\n" not in str(missing.value)


def test_a_damaged_event_is_named(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    try:
        store.create_table(row(1))
        store.append([event("table-1", 1, "c1"), event("table-1", 2, "c2")])
        sql(pg_url, "UPDATE events SET body = '{not json' WHERE seq = 2")
        with pytest.raises(DamagedError) as damaged:
            store.events("table-1")
        assert (damaged.value.table, damaged.value.seq) == ("table-1", 2)
        sql(pg_url, "UPDATE tables SET setup = '[]'")
        with pytest.raises(DamagedError, match="table table-1 is damaged"):
            store.table("table-1")
    finally:
        store.close()


def test_a_body_reads_back_exactly_as_written(pg_url: str) -> None:
    """Kept as JSON text, not jsonb: key order, big numbers and any string come back."""
    body: dict[str, Any] = {
        "z": 1,
        "a": [10**40, -0.0, 1.5e-300, 0.1],
        "nul": "a\x00b",
        "text": "é 😀 <b>\\",
        "m": {"b": None, "a": True},
    }
    store = PostgresStore(pg_url)
    try:
        store.create_table(row(1))
        store.append([event("table-1", 1, "c1", **body)])
        found = store.event("table-1", 1)
        assert found is not None and found.body == body
        assert json.dumps(found.body) == json.dumps(body)  # the same order of keys
        assert store.table("table-\x00") is None  # a NUL can't be stored, so it finds nothing
    finally:
        store.close()


def test_a_write_is_seen_by_another_process_at_once(pg_url: str) -> None:
    one, two = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        one.create_table(row(1))
        one.set_seat("table-1", "ana", "h1")
        one.append([event("table-1", 1, "c1")])
        assert two.table("table-1") == row(1)
        assert two.seats("table-1") == {"ana": "h1"}
        assert two.last_event("table-1") == event("table-1", 1, "c1")
    finally:
        one.close()
        two.close()


def test_reads_go_on_after_the_server_drops_the_connections(pg_url: str) -> None:
    store = PostgresStore(pg_url, pool_size=2)
    try:
        store.create_table(row(1))
        dropped = sql(
            pg_url,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'lifeledger' AND pid <> pg_backend_pid()",
        )
        assert len(dropped) == 2
        for _ in range(3):
            assert store.table("table-1") == row(1)
        store.append([event("table-1", 1, "c1")])
        assert store.events("table-1") == [event("table-1", 1, "c1")]
    finally:
        store.close()


def test_commits_wait_for_the_disk_even_if_the_database_says_otherwise(
    pg_cluster: Cluster,
) -> None:
    url = pg_cluster.create_database()
    sql(url, f"ALTER DATABASE {url.rsplit('/', 1)[1]} SET synchronous_commit = off")
    store = PostgresStore(url, pool_size=1)
    try:
        with store._pool.connection() as conn:
            assert conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
    finally:
        store.close()


def test_the_db_option_chooses_the_store(tmp_path: Path, pg_url: str) -> None:
    for db, path in [
        (str(tmp_path / "a.db"), tmp_path / "a.db"),
        (f"sqlite:///{tmp_path / 'b.db'}", tmp_path / "b.db"),  # sqlite:////abs/path
    ]:
        store = open_store(db)
        assert isinstance(store, SQLiteStore) and path.exists()
        store.close()
    assert sqlite_path("sqlite:///tables.db") == "tables.db"
    assert sqlite_path("sqlite://") == ":memory:"
    for url in (pg_url, pg_url.replace("postgresql://", "postgres://")):
        store = open_store(url)
        assert isinstance(store, PostgresStore)
        store.close()
    for wrong in ("mysql://x/y", "sqlite://host/x.db"):
        with pytest.raises(StoreError):
            open_store(wrong)

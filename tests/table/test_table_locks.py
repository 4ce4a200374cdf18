"""issue 21 item 6: two processes appending batches of several tables each take the tables'
locks in one order, so they never deadlock (PostgreSQL found one deadlock in 12 kill rounds,
and a 4-event batch failed with `storage` after a 1 s stall)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
from store_contract import event, row

from lifeledger_table.store.postgres import PostgresStore

INSERT = (
    "INSERT INTO events (table_id, seq, kind, body, client_id, seat, time) "
    "VALUES (%s, %s, 'action', '{}', %s, NULL, 0)"
)


def test_batches_of_several_tables_never_deadlock(pg_url: str) -> None:
    """Another process's transaction holds event 1 of table-1 and is about to write event 1
    of table-2; this store appends a batch naming table-2 first, then table-1. Taken in the
    batch's order, each would wait for the other (a deadlock, one of them failing after
    PostgreSQL's 1 s deadlock_timeout); taken in the tables' order, this store waits for
    table-1 alone, and finds both tables written first by the other."""
    store = PostgresStore(pg_url, pool_size=1)
    store.create_table(row(1))
    store.create_table(row(2))
    other = psycopg.connect(pg_url)  # not autocommit: one transaction, as a batch is
    try:
        other.execute(INSERT, ("table-1", 1, "x1"))
        with ThreadPoolExecutor(1) as pool:
            batch = [event("table-2", 1, "b1"), event("table-1", 1, "a1")]
            appended = pool.submit(store.append, batch)
            time.sleep(0.5)  # the store's transaction is under way, waiting for table-1
            other.execute(INSERT, ("table-2", 1, "x2"))  # a deadlock here, in batch order
            other.commit()
            assert appended.result(timeout=30) == {"table-1", "table-2"}
        assert [e.client_id for e in store.events("table-1")] == ["x1"]
        assert [e.client_id for e in store.events("table-2")] == ["x2"]
    finally:
        other.close()
        store.close()

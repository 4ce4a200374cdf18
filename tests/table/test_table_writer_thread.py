"""issue 29 item 1: the writer's writes are made in a thread of its own (live/onethread.py), not
in a pool's (cheaper on each call), one at a time and in order; what a write raises reaches the
writer; the thread ends when idle and at the server's end, after the write under way. The one
timer that tells a write's senders it waits for the database (issue 26 item 7) goes off for
each write that takes too long, however many writes came before it. SQLite writes a batch in
as few statements as it can, all of a table's events or none."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from table_helpers import open_table, phone, seat

from lifeledger_table.decide.limits import Limits
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.live import writer
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.live.onethread import OneThread
from lifeledger_table.server import create_app
from lifeledger_table.store import sqlite
from lifeledger_table.store.records import Checkpoint, Event, TableRow
from lifeledger_table.store.sqlite import SQLiteStore

FAST = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)


@pytest.mark.asyncio
async def test_calls_run_in_one_thread_in_order_off_the_event_loop() -> None:
    thread = OneThread("test-writes")
    done: list[tuple[int, int]] = []

    def work(n: int) -> int:
        time.sleep(0.001 * (5 - n % 5))  # a later call that is quicker still waits its turn
        done.append((n, threading.get_ident()))
        return n * 2

    futures = [thread.call(work, n) for n in range(20)]
    assert await asyncio.gather(*futures) == [n * 2 for n in range(20)]
    assert [n for n, _ in done] == list(range(20))
    idents = {ident for _, ident in done}
    assert len(idents) == 1 and threading.get_ident() not in idents
    thread.close()


@pytest.mark.asyncio
async def test_what_a_call_raises_reaches_its_caller_and_the_next_call_runs() -> None:
    thread = OneThread("test-writes")

    def fail() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        await thread.call(fail)
    assert await thread.call(lambda: "next") == "next"
    thread.close()


@pytest.mark.asyncio
async def test_the_thread_ends_when_idle_and_starts_again_for_the_next_call() -> None:
    thread = OneThread("test-writes", idle=0.05)
    first = await thread.call(threading.get_ident)
    for _ in range(100):
        if not any(t.ident == first for t in threading.enumerate()):
            break
        await asyncio.sleep(0.02)
    assert not any(t.ident == first for t in threading.enumerate())
    assert await thread.call(lambda: 7) == 7
    thread.close()


@pytest.mark.asyncio
async def test_close_waits_for_the_call_under_way_and_takes_no_more() -> None:
    thread = OneThread("test-writes")
    started = threading.Event()
    finished: list[bool] = []

    def slow() -> None:
        started.set()
        time.sleep(0.2)
        finished.append(True)

    future = thread.call(slow)
    await asyncio.to_thread(started.wait, 5)
    thread.close()
    assert finished == [True]
    await future
    with pytest.raises(RuntimeError, match="closed"):
        thread.call(lambda: None)


@pytest.mark.asyncio
async def test_a_cancelled_wait_leaves_the_thread_serving() -> None:
    thread = OneThread("test-writes")
    gate = threading.Event()
    waiting = asyncio.ensure_future(thread.call(gate.wait, 5))
    await asyncio.sleep(0.01)
    waiting.cancel()
    gate.set()
    assert await thread.call(lambda: "after") == "after"
    thread.close()


class Slow(SQLiteStore):
    """A store whose ``append`` takes ``stall`` seconds once ``slow`` is set."""

    slow = False
    stall = 0.0

    def append(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint] = ()) -> set[str]:
        if self.slow:
            time.sleep(self.stall)
        return super().append(events, checkpoints)


@pytest.mark.asyncio
async def test_waiting_is_told_of_each_slow_write_not_of_a_quick_one(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 26 item 7: a write taking more than NOTICE_AFTER tells its sender ``waiting``
    (the one timer set for an earlier, quick write goes off early and is set again for it);
    quick writes tell nobody; once the writer is idle, no timer is left set."""
    monkeypatch.setattr(writer, "NOTICE_AFTER", 0.3)
    store = Slow(str(tmp_path / "t.db"))
    client = await aiohttp_client(create_app(store, FAST))
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for n in range(1, 4):  # quick writes: acknowledged, nobody told to wait
        assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 1}))["seq"] == n
    await asyncio.sleep(0.15)  # the timer set for the first write is due before the next's
    store.slow, store.stall = True, 1.0
    began = time.monotonic()
    cid = await ana.send("action", {"do": "lose_life", "player": "bo", "amount": 1})
    told = await ana.until("waiting")  # the first: none was told of the quick writes
    assert told["ids"] == [cid]
    assert 0.25 <= time.monotonic() - began < 1.0
    assert await ana.reply(cid) == {"type": "ack", "id": cid, "seq": 4}
    store.slow = False
    hub = client.server.app[HUB_KEY]
    for _ in range(100):
        if hub.writer.notice is None:
            break
        await asyncio.sleep(0.05)
    assert hub.writer.notice is None and hub.writer.under_way is None


def test_a_batch_larger_than_one_statement_and_a_conflict_in_it(tmp_path: Path) -> None:
    """A batch is written INSERT_ROWS events to a statement, all of it or (a table another
    server wrote first) none of that table's."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    setup = build_setup({"players": [{"name": "Ana"}, {"name": "Bo"}]})
    for t in ("a", "b"):
        store.create_table(TableRow(t, f"w{t}", f"C{t}", setup, 0.0))

    def event(table: str, seq: int) -> Event:
        return Event(table, seq, "setup", {"n": seq}, f"{table}{seq}", None, 1.0, 1, 0, "{}")

    many = sqlite.INSERT_ROWS * 2 + 3
    assert store.append([event("a", s) for s in range(1, many + 1)]) == set()
    assert [e.seq for e in store.events("a", 0)] == list(range(1, many + 1))
    # b's first event is new; a's next repeats a sequence number: only b's is written.
    assert store.append([event("b", 1), event("a", many)]) == {"a"}
    assert [e.seq for e in store.events("b", 0)] == [1]
    assert len(store.events("a", 0)) == many
    store.close()

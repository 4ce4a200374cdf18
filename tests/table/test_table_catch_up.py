"""Issue 26 item 2: a follower's catch-up never freezes its other tables. A process following a
table at its owner keeps the owner's events and takes them into its copy only when something
reads it (a phone's hello, undo or history page, a page; never a ping), and then one event a
turn of the event loop, what it needs of the log read off the loop, its time spent from that
table's share of the server (docs/design.md: "no decision holds the event loop"; a table's
changes get their share of a core, ``decide.limits.TABLE_SHARE``)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import test_table_undo_processes
from table_helpers import SharedStore, open_table, phone, seat
from test_table_undo_processes import (
    Client,
    hub,
    life,
    opened,
    seated,
)

from lifeledger_table.decide.limits import TABLE_BURST, Limits
from lifeledger_table.decide.table import Table
from lifeledger_table.server import create_app
from lifeledger_table.store.records import Event

pytestmark = pytest.mark.asyncio

#: Two apps on one PostgreSQL database (the fixture of test_table_undo_processes).
apps = test_table_undo_processes.apps

FAST = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)
CHANGES = 30
#: What taking in one event is made to cost here (held on the event loop, as a costly change's
#: decision is).
COST = 0.02


async def heartbeat(gaps: list[float], stop: asyncio.Event) -> None:
    """Note how long each turn of the event loop took until ``stop``."""
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


async def behind(client: Client, table: str, seq: int) -> None:
    """The follower has been sent every event up to ``seq`` (and keeps them)."""
    async with asyncio.timeout(15):
        while hub(client).owners.copies.seen.get(table, 0) < seq:
            await asyncio.sleep(0.01)


async def played(a: Client, b: Client) -> tuple[str, Any, Any]:
    """A table owned by process ``a``, Bo's phone on it and Ana's on ``b``, which follows it:
    Bo plays :data:`CHANGES` changes, which ``b`` keeps, not yet taken in."""
    table = await opened(a)
    tid = table["id"]
    bo = await seated(a, tid, "bo")
    ana = await seated(b, tid, "ana")
    async with asyncio.timeout(10):  # followed there (the owner sends it every event)
        while not hub(a).owners.followers.get(tid):
            await asyncio.sleep(0.01)
    for _ in range(CHANGES):
        assert (await bo.act({"do": "lose_life", "player": "cy", "amount": 1}))["type"] == "ack"
    await behind(b, tid, CHANGES)
    return tid, bo, ana


async def test_a_ping_never_takes_in_what_the_owner_decided(apps: list[Client]) -> None:
    """Ana's ping on the follower is answered; the events the follower keeps stay kept."""
    a, b = apps
    tid, _bo, ana = await played(a, b)
    copy = hub(b).tables[tid]
    assert copy.last_seq == 0 and len(hub(b).owners.copies.behind[tid]) == CHANGES
    await ana.ws.send_json({"type": "ping"})
    await ana.until("pong")
    assert copy.last_seq == 0 and tid not in hub(b).owners.copies.taking


async def test_a_hello_on_the_follower_takes_them_in_in_slices_charged_to_the_table(
    apps: list[Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each event taken in is made to hold the event loop :data:`COST` seconds: Ana's hello
    on the follower waits for all of them (its welcome shows the table as the owner has it),
    while the loop turns between them (no gap near their sum), and the time they took is
    spent from the table's share on the follower."""
    a, b = apps
    tid, _bo, ana = await played(a, b)
    take_one = Table.take_one
    turns: list[int] = []

    def costly(table: Table, event: Event) -> str:
        turns.append(len(gaps))  # the loop's turn it is taken in
        end = time.thread_time() + COST
        while time.thread_time() < end:
            pass
        return take_one(table, event)

    monkeypatch.setattr(Table, "take_one", costly)
    gaps: list[float] = []
    stop = asyncio.Event()
    beating = asyncio.create_task(heartbeat(gaps, stop))
    began = time.perf_counter()
    welcome = await ana.hello()
    took = time.perf_counter() - began
    stop.set()
    await beating
    copy = hub(b).tables[tid]
    assert welcome["seq"] == CHANGES and life(welcome, "cy") == 40 - CHANGES
    assert copy.last_seq == CHANGES and tid not in hub(b).owners.copies.behind
    assert took >= CHANGES * COST
    # The loop turned between the events: never held for more than a few of them at once
    # (counted in turns, not timed: a loaded machine stretches a turn, not what it holds).
    assert max(Counter(turns).values()) <= 2, Counter(turns)
    assert copy.share.debt >= CHANGES * COST / 2  # (drained at 0.1 s a second meanwhile)


async def test_a_table_past_its_share_waits_the_others_go_on(apps: list[Client]) -> None:
    """The follower's copy of a table whose events took more than its share of the server
    takes in nothing more until its share has drained; Ana's ping is answered meanwhile."""
    a, b = apps
    tid, _bo, ana = await played(a, b)
    copy = hub(b).tables[tid]
    assert copy.last_seq == 0, (copy.last_seq, hub(b).owners.copies.taking)
    copy.share.debt = TABLE_BURST + 0.05  # half a second past its share (0.1 of a core)
    copy.share.since = time.monotonic()
    hub(b).owners.copies.catch_up(copy)
    await asyncio.sleep(0.2)
    assert copy.last_seq == 0
    await ana.ws.send_json({"type": "ping"})
    await ana.until("pong")
    async with asyncio.timeout(10):
        await hub(b).owners.copies.caught_up(copy)
    assert copy.last_seq == CHANGES


async def test_a_server_following_the_stores_notices_takes_events_in_in_slices(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two servers on one store without owners (a shared SQLite file: each follows the
    other's writes through the store's notices, issue 10): events written by another server
    are taken in one a turn of the event loop too, each sent to the phones here as it is, and
    their time spent from the table's share."""
    peers: list[SharedStore] = []
    path = str(tmp_path / "shared.db")
    one = await aiohttp_client(create_app(SharedStore(path, peers), FAST))
    two = await aiohttp_client(create_app(SharedStore(path, peers), FAST))
    table = await open_table(
        one, {"players": [{"name": "Ana"}, {"name": "Bo"}], "starting_life": 40}
    )
    tid = table["id"]
    bo = await phone(two, tid, await seat(two, tid, "bo"))
    copy = hub(two).tables[tid]
    action = {"do": "lose_life", "player": "bo", "amount": 1}
    hub(two).store.append(
        [
            Event(tid, n, "action", {"action": action}, f"w{n}", "ana", time.time())
            for n in range(1, CHANGES + 1)
        ]
    )
    take_one = Table.take_one
    turns: list[int] = []

    def costly(table: Table, event: Event) -> str:
        turns.append(len(gaps))  # the loop's turn it is taken in
        end = time.thread_time() + COST
        while time.thread_time() < end:
            pass
        return take_one(table, event)

    monkeypatch.setattr(Table, "take_one", costly)
    gaps: list[float] = []
    stop = asyncio.Event()
    beating = asyncio.create_task(heartbeat(gaps, stop))
    hub(two).follower.notified("event", tid, str(CHANGES))
    while bo.seq < CHANGES:  # each event as it is taken in (a gap fails the phone's check)
        await bo.recv()
    stop.set()
    await beating
    assert copy.last_seq == CHANGES and life(bo.view, "bo") == 40 - CHANGES
    assert max(Counter(turns).values()) <= 2, Counter(turns)
    assert copy.share.debt >= CHANGES * COST / 2

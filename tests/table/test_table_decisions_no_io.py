"""issue 18 item 4: the table's decisions do no I/O. A decision that needs part of the log not
in memory (an undo across a checkpoint, an undo naming an older event, the undo of a reset)
raises ``NeedsLog`` having changed nothing; the writer reads it off the event loop and decides
the request again, the table's requests that came meanwhile waiting behind it, in order; a
read that fails is refused ``storage`` and changes nothing."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_helpers import Phone, open_table, phone, seat
from test_table_memory import new_table, play

from lifeledger_table.decide.limits import Limits
from lifeledger_table.decide.logreads import LogRead, LogReads, NeedsLog
from lifeledger_table.decide.table import Table
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.records import Checkpoint, Event, StoreUnavailable
from lifeledger_table.store.sqlite import SQLiteStore

FAST = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)
LOSE_1 = {"do": "lose_life", "player": "ana", "amount": 1}
GAIN_2 = {"do": "gain_life", "player": "bo", "amount": 2}


class Watched(SQLiteStore):
    """A store that notes each read a decision may need, and on which thread it was made
    (``on_loop``: those made on the event loop's); ``gate``: reads wait for it; ``failing``:
    reads fail, as a database server that is not there."""

    loop: int | None = None
    gate: threading.Event | None = None
    failing = False

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.reads: list[str] = []
        self.on_loop: list[str] = []
        self.waiting = threading.Event()

    def _watch(self, name: str) -> None:
        if threading.get_ident() == self.loop:
            self.on_loop.append(name)
        self.reads.append(name)
        if self.gate is not None:
            self.waiting.set()
            self.gate.wait(10)
        if self.failing:
            raise StoreUnavailable("the table store can't be reached: connection refused")

    def event(self, table_id: str, seq: int) -> Event | None:
        self._watch("event")
        return super().event(table_id, seq)

    def event_by_client_id(self, table_id: str, client_id: str) -> Event | None:
        self._watch("event_by_client_id")
        return super().event_by_client_id(table_id, client_id)

    def checkpoint(self, table_id: str, game: int, count: int) -> Checkpoint | None:
        self._watch("checkpoint")
        return super().checkpoint(table_id, game, count)

    def effective(self, table_id: str, game: int, start: int, end: int) -> list[Event]:
        self._watch("effective")
        return super().effective(table_id, game, start, end)

    def entries(self, table_id: str, before: int, limit: int) -> list[tuple[int, str | None]]:
        self._watch("entries")
        return super().entries(table_id, before, limit)


async def _started(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, Watched, str, Phone]:
    """A server (checkpoints every 4 actions) on a watched store; a table where Ana lost 1
    life eight times (a checkpoint after 4 and 8 actions), and Ana's phone."""
    monkeypatch.setattr(Table, "CHECKPOINT", 4)
    store = Watched(str(tmp_path / "t.db"))
    client = await aiohttp_client(create_app(store, FAST))
    store.loop = threading.get_ident()
    table = (await open_table(client))["id"]
    ana = await phone(client, table, await seat(client, table, "ana"))
    for n in range(1, 9):
        assert (await ana.act(LOSE_1)) == {"type": "ack", "id": ana.sent, "seq": n}
    return client, store, table, ana


async def _undo(p: Phone, target: int, cid: str | None = None) -> dict[str, Any]:
    return await p.reply(await p.send("undo", target=target, cid=cid))


async def _state(client: Any, table: str) -> dict[str, Any]:
    res = await client.get(f"/api/tables/{table}")
    assert res.status == 200
    data: dict[str, Any] = await res.json()
    return data


def _life(data: dict[str, Any], player: str = "ana") -> int:
    value: int = next(p["life"] for p in data["state"]["players"] if p["id"] == player)
    return value


async def _same_as_loaded(client: Any, store: Watched, table: str) -> None:
    """The table in memory is the table its log loads into (the results of before)."""
    live = client.server.app[HUB_KEY].tables[table]
    fresh = await asyncio.to_thread(Table, store, table)
    assert (live.state, live.undo_target(), live.last_seq) == (
        fresh.state,
        fresh.undo_target(),
        fresh.last_seq,
    )


@pytest.fixture(autouse=True)
def _sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Phone.sent``: the id of the change it sent last."""
    real = Phone.send

    async def send(self: Phone, *args: Any, **kwargs: Any) -> str:
        self.sent = await real(self, *args, **kwargs)
        return self.sent

    monkeypatch.setattr(Phone, "send", send)


@pytest.mark.asyncio
async def test_undos_across_checkpoints_and_of_older_events_read_off_the_event_loop(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store, table, ana = await _started(aiohttp_client, tmp_path, monkeypatch)
    store.reads.clear()
    # Across the checkpoint after 4 actions: that checkpoint and the actions after it read.
    assert (await _undo(ana, 8))["seq"] == 9
    assert {"checkpoint", "effective"} <= set(store.reads)
    # Older targets: one undone (its event read), one under later ones (and its position's).
    refused = await _undo(ana, 8)
    assert (refused["type"], refused["error"]) == ("error", "already-undone")
    refused = await _undo(ana, 2)
    assert (refused["type"], refused["error"]) == ("error", "not-last")
    assert "event" in store.reads
    # Back to the checkpoint (its last action read), and across it to the game's start.
    for n, target in enumerate((7, 6, 5, 4), start=10):
        assert await _undo(ana, target) == {"type": "ack", "id": ana.sent, "seq": n}
    data = await _state(client, table)
    assert (_life(data), data["undo_target"], data["seq"]) == (17, 3, 13)
    assert store.on_loop == [] and store.reads
    await _same_as_loaded(client, store, table)


@pytest.mark.asyncio
async def test_the_undo_of_a_reset_reads_the_game_it_left_off_the_event_loop(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store, table, ana = await _started(aiohttp_client, tmp_path, monkeypatch)
    assert (await ana.reply(await ana.send("reset")))["seq"] == 9
    store.reads.clear()
    assert (await _undo(ana, 9))["seq"] == 10  # game 1 again: its checkpoint and actions read
    assert store.reads
    refused = await _undo(ana, 9)
    assert (refused["type"], refused["error"]) == ("error", "already-undone")
    assert (await _undo(ana, 8))["seq"] == 11
    data = await _state(client, table)
    assert (_life(data), data["undo_target"], data["score"]["game"]) == (13, 7, 1)
    assert store.on_loop == []
    await _same_as_loaded(client, store, table)


async def _until(flag: threading.Event) -> None:
    deadline = time.monotonic() + 10
    while not flag.is_set():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)


@pytest.mark.asyncio
async def test_changes_sent_while_the_log_is_read_are_decided_after_it_in_order(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store, table, ana = await _started(aiohttp_client, tmp_path, monkeypatch)
    bo = await phone(client, table, await seat(client, table, "bo"))
    store.gate = threading.Event()
    undo = await ana.send("undo", target=8)
    await _until(store.waiting)  # the read is under way (in a thread)
    first = await bo.send("action", GAIN_2)
    second = await ana.send("action", LOSE_1)
    await bo.ws.send_json({"type": "ping"})
    await asyncio.wait_for(bo.until("pong"), 5)  # the event loop is free meanwhile
    await asyncio.sleep(0.1)
    writer = client.server.app[HUB_KEY].writer
    assert [r.cid for r in writer.reading[table]] == [first, second]
    store.gate.set()
    assert (await ana.reply(undo))["seq"] == 9
    assert (await bo.reply(first))["seq"] == 10
    assert (await ana.reply(second))["seq"] == 11
    data = await _state(client, table)
    assert (_life(data), _life(data, "bo"), data["seq"]) == (12, 22, 11)
    assert store.on_loop == [] and table not in writer.reading
    await _same_as_loaded(client, store, table)


@pytest.mark.asyncio
async def test_a_read_that_fails_is_refused_storage_and_changes_nothing(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store, table, ana = await _started(aiohttp_client, tmp_path, monkeypatch)
    store.gate = threading.Event()
    store.failing = True
    await ana.send("undo", target=8, cid="u1")
    await _until(store.waiting)
    after = await ana.send("action", LOSE_1)  # waits behind it, and goes through
    store.gate.set()
    refused = await ana.reply("u1")
    assert (refused["type"], refused["error"]) == ("error", "storage")
    store.gate, store.failing = None, False
    assert (await ana.reply(after))["seq"] == 9
    data = await _state(client, table)
    assert (_life(data), data["undo_target"], data["seq"]) == (11, 9, 9)
    # Nothing was remembered of the refusal: sent again, the undo goes through.
    assert await _undo(ana, 9, "u1") == {"type": "ack", "id": "u1", "seq": 10}
    assert store.on_loop == []
    await _same_as_loaded(client, store, table)


def _memory(table: Table) -> tuple[Any, ...]:
    """What a table holds that a decision may change."""
    return (
        table.last_seq,
        table.count,
        table.base_count,
        [e.seq for e in table.tail],
        table.last,
        table.state,
        table.latest,
        list(table.recent),
        list(table.pending),
        dict(table.client_ids),
        len(table.refusals),
    )


def test_a_decision_that_needs_the_log_changes_nothing_and_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Table, "CHECKPOINT", 4)
    store = Watched(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 8)
    again = new_table(Watched(str(tmp_path / "u.db")), "t")
    play(again, 7)
    store.reads.clear()
    before = _memory(table)
    with pytest.raises(NeedsLog) as needed:
        table.decide("undo", {"target": 8}, "u1", None)
    assert store.reads == [] and _memory(table) == before
    need = needed.value
    while True:  # as the writer does, with each read made here
        assert table.learn(need, need.read.fetch(store))
        try:
            decision = table.decide("undo", {"target": 8}, "u1", None)
        except NeedsLog as more:
            need = more
            continue
        break
    assert not isinstance(decision, int)
    assert table.state == again.state and table.undo_target() == 7
    # The reads kept are dropped with the change: one made before it is not taken.
    assert table.learn(need, None) is False


def test_changes_written_while_the_log_is_read_are_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read made while a change decided here was being written may miss it: the table keeps
    the changes written since beside what was read."""
    monkeypatch.setattr(Table, "CHECKPOINT", 4)
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 3)
    action = {"do": "lose_life", "player": "ana", "amount": 1}
    decision = table.decide("action", {"action": action}, "a", None)  # a checkpoint after it
    assert not isinstance(decision, int) and decision.checkpoint is not None
    with pytest.raises(NeedsLog) as needed:  # the actions before the checkpoint
        table.decide("undo", {"target": 4}, "u", None)
    found = needed.value.read.fetch(store)  # made before the action is written
    store.append([decision.event], [decision.checkpoint])
    table.commit(decision)
    assert table.learn(needed.value, found)
    undo = table.decide("undo", {"target": 4}, "u", None)
    assert not isinstance(undo, int) and table.undo_target() == 3


def test_the_reads_kept_are_bounded() -> None:
    reads = LogReads()
    for seq in range(LogReads.KEPT + 10):
        reads.keep(LogRead("t", "event", seq=seq), None)
    assert len(reads.found) == LogReads.KEPT
    assert reads.get(LogRead("t", "event", seq=0)) == (False, None)
    assert reads.get(LogRead("t", "event", seq=LogReads.KEPT + 9)) == (True, None)


def test_a_copy_takes_in_an_undo_across_a_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A copy of the table (another server's, a follower's) takes in an undo across a
    checkpoint as it was decided (reading the log itself: ``take_in`` is yet to be sans I/O)."""
    monkeypatch.setattr(Table, "CHECKPOINT", 4)
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    copy = Table(store, "t")
    play(table, 8)
    table.submit("undo", {"target": 8}, "u1", None)
    table.submit("undo", {"target": 7}, "u2", None)
    copy.take_in([e for e in store.events("t", copy.last_seq) if e.seq > copy.last_seq])
    assert (copy.state, copy.undo_target(), copy.last_seq) == (table.state, 6, 10)


@pytest.mark.asyncio
async def test_history_older_than_memory_is_read_off_the_event_loop(
    aiohttp_client: Callable[..., Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A history page older than the entries a table holds in memory (here the newest 3) is
    read from the store in a thread, over HTTP and over the socket; the welcome and the
    table's GET show the entries in memory and say older ones exist (a page at a time)."""
    monkeypatch.setattr("lifeledger_table.decide.state.RECENT", 3)
    monkeypatch.setattr(Table, "CHECKPOINT", 4)
    store = Watched(str(tmp_path / "t.db"))
    client = await aiohttp_client(create_app(store, FAST))
    store.loop = threading.get_ident()
    table = (await open_table(client))["id"]
    ana = await phone(client, table, await seat(client, table, "ana"))
    for n in range(1, 9):
        assert (await ana.act(LOSE_1))["seq"] == n
    # A copy loaded from the store holds only the newest 3 entries in memory.
    hub = client.server.app[HUB_KEY]
    hub.tables[table] = await asyncio.to_thread(Table, store, table)
    store.reads.clear()
    data = await _state(client, table)
    assert [e["seq"] for e in data["entries"]] == [6, 7, 8] and data["more"]
    res = await client.get(f"/api/tables/{table}/history?before=6&limit=5")
    page = await res.json()
    assert res.status == 200 and [e["seq"] for e in page["entries"]] == [1, 2, 3, 4, 5]
    await ana.ws.send_json({"type": "history", "before": 4, "limit": 2})
    got = await ana.until("history")
    assert [e["seq"] for e in got["entries"]] == [2, 3] and got["more"]
    assert "entries" in store.reads and store.on_loop == []

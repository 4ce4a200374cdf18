"""A table costs the same at its 10,000th event as at its 10th (issue 9): it loads from its
newest checkpoint, an undo replays at most a checkpoint's worth of actions, older history is
read from the store, an event message is the change and not the state, and idle tables leave
memory and come back."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import open_table, phone, seat

from lifeledger_table.decide import engine as table_engine
from lifeledger_table.decide.limits import Limits
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.decide.table import PAGE, RECENT, NeedsLog, Table
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.store.records import TableRow
from lifeledger_table.store.sqlite import SQLiteStore

Client = TestClient[Any, Any]
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")]}


def new_table(store: SQLiteStore, name: str = "t") -> Table:
    store.create_table(TableRow(name, f"w{name}", f"C{name}", build_setup(FOUR), 0.0))
    return Table(store, name)


def play(table: Table, n: int) -> None:
    """``n`` more changes (gains and losses of 1 that never end the game), decided and then
    written in one batch, as the hub writes them."""
    ids = table.player_ids()
    decisions = []
    for i in range(table.last_seq, table.last_seq + n):
        kind = "gain_life" if i % 2 else "lose_life"
        action = {"do": kind, "player": ids[(i // 2) % len(ids)], "amount": 1}
        decision = table.decide("action", {"action": action}, f"c{i}", None)
        assert not isinstance(decision, int)
        decisions.append(decision)
    table.store.append(
        [d.event for d in decisions], [d.checkpoint for d in decisions if d.checkpoint]
    )
    for decision in decisions:
        table.commit(decision)


def replayed_actions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Records how many actions each call of the engine's ``resume`` replays."""
    counts: list[int] = []
    real = table_engine.resume

    def counted(game: Any, actions: Any, start: int) -> Any:
        counts.append(len(actions))
        return real(game, actions, start)

    monkeypatch.setattr(table_engine, "resume", counted)
    return counts


@pytest.mark.parametrize("events", [100, 1000, 2550])
def test_a_table_loads_from_its_newest_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, events: int
) -> None:
    """Loading replays at most CHECKPOINT actions, whatever the length of the log, and the
    loaded table is the same as the live one."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, events)
    counts = replayed_actions(monkeypatch)
    loaded = Table(store, "t")
    assert counts and max(counts) <= Table.CHECKPOINT
    assert loaded.state == table.state and loaded.view == table.view
    assert (loaded.count, loaded.last, loaded.last_seq) == (table.count, table.last, events)
    assert list(loaded.recent) == list(table.recent)[-RECENT:]


def test_an_undo_replays_at_most_a_checkpoints_worth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Undo after undo, back across checkpoints: each replays at most CHECKPOINT actions, and
    each leaves the table as its log replayed from the start."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 3 * Table.CHECKPOINT + 5)
    counts = replayed_actions(monkeypatch)
    for n in range(Table.CHECKPOINT + 10):
        assert table.last is not None
        table.submit("undo", {"target": table.last.seq}, f"u{n}", None)
        assert counts[-1] <= Table.CHECKPOINT
    monkeypatch.undo()
    actions = table.record(1)["actions"]
    assert len(actions) == table.count == 2 * Table.CHECKPOINT - 5
    assert table_engine.state_of(table_engine.replay(table.header, actions)) == table.state
    assert Table(store, "t").state == table.state


def test_an_action_undone_long_ago_is_named_as_undone(tmp_path: Path) -> None:
    """The table no longer keeps every undone action in memory: the store says whether an
    action was undone."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 5)
    table.submit("undo", {"target": 5}, "u1", None)
    play(table, 2 * RECENT)
    with pytest.raises(Exception) as refused:
        table.submit("undo", {"target": 5}, "u2", None)
    assert getattr(refused.value, "code", None) == "already-undone"
    with pytest.raises(Exception) as refused:
        table.submit("undo", {"target": 4}, "u3", None)
    assert getattr(refused.value, "code", None) == "not-last"


def test_a_log_from_before_checkpoints_is_derived_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written before issue 9 (schema version 1, no checkpoints) is upgraded when it
    opens; its first load replays the whole log once and keeps what it derived, and the next
    loads start from a checkpoint."""
    path = tmp_path / "old.db"
    store = SQLiteStore(str(path))
    table = new_table(store)
    play(table, 250)
    state = table.state
    store.close()
    old = sqlite3.connect(path)  # back to what an older lifeledger wrote
    old.executescript(
        "DROP TABLE checkpoints; DROP INDEX events_by_position;"
        "ALTER TABLE events DROP COLUMN game; ALTER TABLE events DROP COLUMN position;"
        "ALTER TABLE events DROP COLUMN entry; PRAGMA user_version = 0;"
    )
    old.close()
    store = SQLiteStore(str(path))
    counts = replayed_actions(monkeypatch)
    first = Table(store, "t")
    assert first.state == state and not counts  # replayed event by event, not resumed
    second = Table(store, "t")
    assert second.state == state and counts and max(counts) <= Table.CHECKPOINT
    pages = [t.settle(lambda t=t: t.history(PAGE)) for t in (first, second)]
    assert pages[0]["entries"] == pages[1]["entries"]


def test_a_checkpoint_another_build_wrote_is_not_read(tmp_path: Path) -> None:
    """A checkpoint is bytes only the build that wrote it reads: any other is ignored, the
    log is replayed from the start, and the checkpoints are written again."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 150)
    store._db.execute("UPDATE checkpoints SET data = ?", (b"not a checkpoint",))
    loaded = Table(store, "t")
    assert loaded.broken is None and loaded.state == table.state
    found = store.checkpoint("t", 1, 100)
    assert found is not None and table_engine.load_checkpoint(found.data)


def test_history_older_than_memory_comes_from_the_store(tmp_path: Path) -> None:
    """A page older than the entries in memory is a read of the log (NeedsLog: the server
    reads it in a thread, never on the event loop); the newest come from memory."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 3 * RECENT)
    kept = {json.loads(text)["seq"]: text for _, text in table.recent}
    with pytest.raises(NeedsLog):
        table.history(101, 50)
    page = table.settle(lambda: table.history(101, 50))
    assert [e["seq"] for e in page["entries"]] == list(range(51, 101)) and page["more"]
    assert table.history_text(3 * RECENT + 1, 5).count('"seq"') == 5
    assert all(
        json.dumps(e) == json.dumps(json.loads(kept.get(e["seq"], json.dumps(e))))
        for e in page["entries"]
    )


def test_an_event_message_is_the_change_not_the_state(tmp_path: Path) -> None:
    """A four-player change is sent as its timeline entry (what changed), under 400 bytes;
    the score comes only when it changes."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 1000)
    decision = table.decide(
        "action", {"action": {"do": "lose_life", "player": "cy", "amount": 3}}, "x", None
    )
    assert not isinstance(decision, int)
    message = json.loads(decision.text)
    assert len(decision.text) < 400
    assert "state" not in message and "score" not in message and "effects" not in message
    assert message["entry"]["changes"] == [
        {
            "player": "cy",
            "what": "life",
            "from": message["entry"]["changes"][0]["from"],
            "to": message["entry"]["changes"][0]["from"] - 3,
        }
    ]
    table.commit(decision)
    decision = table.decide(
        "action", {"action": {"do": "lose_life", "player": "cy", "amount": 99}}, "y", None
    )
    assert not isinstance(decision, int)
    assert "score" not in json.loads(decision.text)  # a loss in a game that goes on
    table.commit(decision)
    for who in ("bo", "di"):
        decision = table.decide(
            "action", {"action": {"do": "lose_life", "player": who, "amount": 99}}, who, None
        )
        assert not isinstance(decision, int)
        table.commit(decision)
    assert json.loads(decision.text)["score"]["sides"][0]["wins"] == 1  # Ana won: 104.2a


@pytest.mark.parametrize("limits", [Limits(idle=60.0, tables_held=2)])
@pytest.mark.asyncio
async def test_idle_tables_leave_memory_and_come_back(client: Client) -> None:
    """A table nobody is connected to leaves memory once idle (or, past tables_held, the
    longest idle first); the next request loads it again, as it was."""
    hub = client.app[HUB_KEY]
    tables = [await open_table(client) for _ in range(3)]
    ana = await phone(client, tables[0]["id"], await seat(client, tables[0]["id"], "ana"))
    for t in tables[1:]:
        bo = await phone(client, t["id"], await seat(client, t["id"], "bo"))
        assert (await bo.act({"do": "lose_life", "player": "ana", "amount": 2}))["type"] == "ack"
        await bo.ws.close()
    for _ in range(50):
        if len(hub.conns) == 1:
            break
        await client.app.loop.run_in_executor(None, lambda: None)
    assert set(hub.tables) == {t["id"] for t in tables}
    assert hub.evict() == 0  # none was idle long enough: a request may still hold it
    assert hub.evict(now=time.monotonic() + 31) == 1  # past tables_held: the longest idle
    assert tables[1]["id"] not in hub.tables and tables[0]["id"] in hub.tables
    assert hub.evict(now=10**9) == 1  # idle for long: the last one nobody is connected to
    assert set(hub.tables) == {tables[0]["id"]}  # a table with a socket stays
    res = await client.get(f"/api/tables/{tables[1]['id']}")
    data = await res.json()
    assert res.status == 200 and data["seq"] == 1
    assert next(p for p in data["state"]["players"] if p["id"] == "ana")["life"] == 18
    assert (await ana.act({"do": "gain_life", "player": "ana", "amount": 1}))["type"] == "ack"

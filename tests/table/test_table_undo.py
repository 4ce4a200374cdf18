"""Undo and the table's log: an undo names the action it takes back, a table's log always
loads (refusals inside a group are part of it), every change is worked out before anything in
memory changes, and a table that can't load says so without touching any other table."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import TWO, open_table, phone, seat

import lifeledger_table.decide.engine as table_engine
from lifeledger_table.decide import engine
from lifeledger_table.decide.errors import TableError
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.decide.table import Table
from lifeledger_table.server import create_app
from lifeledger_table.store.records import TableRow
from lifeledger_table.store.sqlite import SQLiteStore

Client = TestClient[Any, Any]


def life(state: dict[str, Any], player: str) -> int:
    value: int = next(p["life"] for p in state["players"] if p["id"] == player)
    return value


GROUP_WITH_A_REFUSED_PART = {
    "do": "together",
    "actions": [
        {"do": "pay_life", "player": "ana", "amount": 99},
        {"do": "gain_life", "player": "bo", "amount": 1},
    ],
}
BO_GAINS_1 = {"do": "gain_life", "player": "bo", "amount": 1}


@pytest.mark.asyncio
async def test_undo_after_a_group_with_a_refused_part_keeps_the_table(
    client: Client, db: str, aiohttp_client: Callable[..., Any]
) -> None:
    """issue 7 item 1: the group is accepted (609.3: its refused part changes nothing), four
    taps follow, and undo takes back the last tap; the log still loads after a restart."""
    table = await open_table(client)
    token = await seat(client, table["id"], "ana")
    ana = await phone(client, table["id"], token)
    assert (await ana.act(GROUP_WITH_A_REFUSED_PART))["type"] == "ack"
    for _ in range(4):
        assert (await ana.act(BO_GAINS_1))["type"] == "ack"
    reply = await ana.reply(await ana.send("undo", target=5))
    assert reply == {"type": "ack", "id": reply["id"], "seq": 6}
    res = await client.get(f"/api/tables/{table['id']}")
    assert res.status == 200
    data = await res.json()
    assert (life(data["state"], "ana"), life(data["state"], "bo")) == (20, 24)
    assert data["can_undo"] is True and data["undo_target"] == 4
    # A restart: a new server on the same database loads the log, refusal and all.
    again = await aiohttp_client(create_app(SQLiteStore(db)))
    res = await again.get(f"/api/tables/{table['id']}")
    assert res.status == 200
    assert (await res.json())["state"] == data["state"]
    # And the table goes on: the next undo takes back the next tap (Ana's: her phone's undo,
    # issue 17 item 10, as another seat's undo would ask her).
    ana = await phone(again, table["id"], token)
    assert (await ana.reply(await ana.send("undo", target=4)))["type"] == "ack"


def _new_table(tmp_path: Path, name: str = "t") -> tuple[SQLiteStore, Table]:
    store = SQLiteStore(str(tmp_path / f"{name}.db"))
    store.create_table(TableRow(name, f"w{name}", f"C{name}", build_setup(TWO), 0.0))
    return store, Table(store, name)


def _act(table: Table, action: dict[str, Any], cid: str, seat: str | None = "ana") -> int:
    _entry, seq = table.submit("action", {"action": action}, cid, seat)
    return seq


def test_an_undo_the_engine_fails_on_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 7 item 1: an undo works out the rebuilt game before anything in memory changes;
    if that fails, nothing changed (the action is still in effect and can still be undone)."""
    _store, table = _new_table(tmp_path)
    _act(table, BO_GAINS_1, "a")
    _act(table, BO_GAINS_1, "b")
    before = (table.state, table.count, table.last, table.tail, table.last_seq, table.view)

    def broken_resume(game: Any, actions: Any, start: int) -> Any:
        raise RuntimeError("the engine failed")

    monkeypatch.setattr(table_engine, "resume", broken_resume)
    with pytest.raises(TableError) as failed:
        table.submit("undo", {"target": 2}, "u1", "ana")
    assert failed.value.code == "engine-failed"
    assert (table.state, table.count, table.last, table.tail, table.last_seq, table.view) == before
    assert table.broken is None
    monkeypatch.undo()
    table.submit("undo", {"target": 2}, "u2", "ana")
    assert life(table.state, "bo") == 21


def test_a_group_the_engine_fails_on_midway_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 7 item 4 (table side): the engine applies half a group and then raises something
    other than a refusal: the table keeps no half-applied game and answers an error."""
    store, table = _new_table(tmp_path)
    _act(table, {"do": "lose_life", "player": "bo", "amount": 2}, "a")
    before = table.state
    real_apply = table_engine.apply

    def half_apply(game: engine.Game, action: Any, position: int) -> list[dict[str, str]]:
        if isinstance(action, engine.Together):
            game.apply(action.actions[0])  # the first part happens ...
            raise RuntimeError("... and then the engine fails")
        return real_apply(game, action, position)

    monkeypatch.setattr(table_engine, "apply", half_apply)
    group = {
        "do": "together",
        "actions": [
            {"do": "lose_life", "player": "bo", "amount": 5},
            {"do": "gain_life", "player": "ana", "amount": 10},
        ],
    }
    with pytest.raises(TableError) as failed:
        _act(table, group, "g")
    assert failed.value.code == "engine-failed"
    assert table.state == before
    assert engine.state_of(table.game) == before
    monkeypatch.undo()
    _act(table, {"do": "lose_life", "player": "bo", "amount": 1}, "b")
    assert life(table.state, "bo") == 17
    assert Table(store, table.id).state == table.state


def test_a_group_with_an_integer_past_the_bound_changes_nothing(tmp_path: Path) -> None:
    """issue 7 item 4 (table side): under Platinum Emperion, a group whose second part gains
    10^5000 life is turned down whole; bo keeps 20 and the log still replays."""
    store, table = _new_table(tmp_path)
    _act(table, {"do": "card", "id": "pe", "name": "Platinum Emperion", "controller": "ana"}, "c")
    before = table.state
    group = {
        "do": "together",
        "actions": [
            {"do": "lose_life", "player": "bo", "amount": 5},
            {"do": "gain_life", "player": "ana", "amount": 10**5000},
        ],
    }
    with pytest.raises(TableError):
        _act(table, group, "g")
    assert table.state == before and engine.state_of(table.game) == before
    assert Table(store, table.id).state == before


@pytest.mark.asyncio
async def test_two_phones_undoing_the_same_action_undo_it_once(client: Client) -> None:
    """issue 7 item 2: two phones press Undo together, both naming event 2; one undo happens,
    the other is answered already-undone (not applied to event 1)."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    bo = await phone(client, table["id"], await seat(client, table["id"], "bo"))
    await ana.act({"do": "lose_life", "player": "bo", "amount": 4})
    await ana.act({"do": "gain_life", "player": "ana", "amount": 2})
    first = await ana.send("undo", target=2)
    second = await bo.send("undo", target=2)
    replies = [await ana.reply(first), await bo.reply(second)]
    assert sorted(r["type"] for r in replies) == ["ack", "error"]
    refused = next(r for r in replies if r["type"] == "error")
    assert refused["error"] == "already-undone"
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert (life(data["state"], "ana"), life(data["state"], "bo")) == (20, 16)
    assert data["seq"] == 3 and data["undo_target"] == 1 and data["can_undo"] is True


@pytest.mark.asyncio
async def test_an_undo_names_the_last_action_in_effect(client: Client) -> None:
    """issue 7 item 2: an undo without a target is malformed, one naming an earlier action is
    not-last; the view names the target (welcome, event and GET)."""
    table = await open_table(client)
    token = await seat(client, table["id"], "ana")
    ana = await phone(client, table["id"], token)
    assert (await ana.hello(token))["undo_target"] is None
    await ana.act({"do": "lose_life", "player": "bo", "amount": 4})
    event = await ana.until("event")
    assert event["undo_target"] == 1 and event["can_undo"] is True
    await ana.act({"do": "gain_life", "player": "ana", "amount": 2})
    assert (await ana.reply(await ana.send("undo")))["error"] == "malformed"
    assert (await ana.reply(await ana.send("undo", target=1)))["error"] == "not-last"
    welcome = await ana.hello(token)
    assert welcome["undo_target"] == 2
    await ana.act({"do": "concede", "player": "ana"})
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["undo_target"] is None and data["can_undo"] is False


def _tamper(db: str, table_id: str, seq: int, body: str) -> None:
    con = sqlite3.connect(db)
    with con:
        con.execute(
            "UPDATE events SET body = ? WHERE table_id = ? AND seq = ?", (body, table_id, seq)
        )
    con.close()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "body",
    [
        '{"action": {"do": "pay_life", "player": "ana", "amount": 99}}',  # the engine refuses it
        '{"action": {"do": "fly"}}',  # malformed
        '{"action": ',  # not JSON
        "[]",  # not an object
    ],
)
async def test_a_table_whose_log_cant_load_says_so_and_spares_the_others(
    client: Client,
    db: str,
    aiohttp_client: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    body: str,
) -> None:
    """issue 7 items 1 and 14: one tampered event: its table answers 503 naming the table and
    the event (HTTP and socket), is not replayed again on every request, and every other table
    works."""
    damaged = await open_table(client)
    other = await open_table(client)
    for t in (damaged, other):
        ana = await phone(client, t["id"], await seat(client, t["id"], "ana"))
        for _ in range(3):
            await ana.act(BO_GAINS_1)
    _tamper(db, damaged["id"], 2, body)
    reads: list[str] = []
    real_last = SQLiteStore.last_event

    def counted(self: SQLiteStore, table_id: str) -> Any:
        reads.append(table_id)  # every load of a table begins here
        return real_last(self, table_id)

    monkeypatch.setattr(SQLiteStore, "last_event", counted)
    again = await aiohttp_client(create_app(SQLiteStore(db)))
    for path in (f"/api/tables/{damaged['id']}", f"/api/watch/{damaged['watch']}"):
        for _ in range(3):
            res = await again.get(path)
            assert res.status == 503
            error = await res.json()
            assert error["error"] == "table-unavailable"
            assert error["table"] == damaged["id"] and error["event"] == 2
            assert damaged["id"] in error["message"] and "event 2" in error["message"]
    assert reads.count(damaged["id"]) == 1
    ws = await again.ws_connect(f"/ws/t/{damaged['id']}")
    msg = await ws.receive_json(timeout=10)
    assert msg["type"] == "error" and msg["error"] == "table-unavailable" and msg["event"] == 2
    await ws.close()
    res = await again.post(f"/api/tables/{damaged['id']}/seats/bo", json={})
    assert res.status == 503
    res = await again.get(f"/api/tables/{other['id']}")
    assert res.status == 200 and (await res.json())["seq"] == 3
    bo = await phone(again, other["id"], await seat(again, other["id"], "bo"))
    assert (await bo.act(BO_GAINS_1))["type"] == "ack"


def test_a_log_with_an_impossible_undo_is_named_not_500(tmp_path: Path) -> None:
    """issue 7 item 1 (a sibling): a log whose undo has nothing to take back (or takes back a
    concession) can't load: the table names the event instead of failing with an IndexError."""
    store = SQLiteStore(str(tmp_path / "u.db"))
    store.create_table(TableRow("t", "w", "C", build_setup(TWO), 0.0))
    from lifeledger_table.store.records import Event

    store.append([Event("t", 1, "undo", {}, "x", "ana", 0.0)])
    table = Table(store, "t")
    assert table.broken is not None and table.broken.seq == 1
    with pytest.raises(TableError) as failed:
        table.snapshot()
    assert failed.value.code == "table-unavailable"


@pytest.mark.asyncio
async def test_a_failed_undo_leaves_the_socket_and_the_table_working(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 7 item 1: an undo that fails is answered with an error; nothing was dropped from
    memory, so the retry (same id) after the failure is decided afresh and works."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    await ana.act(BO_GAINS_1)
    real = table_engine.resume
    monkeypatch.setattr(table_engine, "resume", lambda *a: (_ for _ in ()).throw(OSError("x")))
    reply = await ana.reply(await ana.send("undo", cid="undo-1", target=1))
    assert reply["error"] == "engine-failed"
    monkeypatch.setattr(table_engine, "resume", real)
    reply = await ana.reply(await ana.send("undo", cid="undo-1", target=1))
    assert reply["type"] == "ack"
    await asyncio.sleep(0)
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert life(data["state"], "bo") == 20

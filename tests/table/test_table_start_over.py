"""Issue 17 item 3: starting over mid-game with the same players. "Reset" (the game starts over
from its beginning) and "New game" (the game in progress ends unfinished, the next begins) are
events of the table's log: every phone sees them, the history says who did it, they survive a
restart and replay identically, and the existing undo takes them back, bringing the game back
exactly as it was. A game left unfinished is not scored."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import TWO, open_table, phone, seat

from lifeledger_table.decide.errors import TableError
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.decide.table import Table
from lifeledger_table.decide.tools import _first_player
from lifeledger_table.store.records import TableRow
from lifeledger_table.store.sqlite import SQLiteStore
from lifeledger_table.web.pictures import stats

Client = TestClient[Any, Any]


def _table(tmp_path: Path) -> tuple[SQLiteStore, Table]:
    store = SQLiteStore(str(tmp_path / "t.db"))
    store.create_table(TableRow("t", "wt", "CT", build_setup(TWO), 0.0))
    return store, Table(store, "t")


def _act(table: Table, action: dict[str, Any], seat: str = "ana") -> int:
    _entry, seq = table.submit("action", {"action": action}, f"c{table.last_seq + 1}", seat)
    return seq


def _do(table: Table, kind: str, seat: str = "ana", **body: Any) -> int:
    _entry, seq = table.submit(kind, body, f"c{table.last_seq + 1}", seat)
    return seq


def _life(table: Table, player: str) -> int:
    value: int = next(p["life"] for p in table.state["players"] if p["id"] == player)
    return value


def _loaded(store: SQLiteStore) -> Table:
    """The table as a restarted server loads it (from its checkpoints)."""
    return Table(store, "t")


def _replayed(store: SQLiteStore) -> Table:
    """The table loaded from its log alone, replayed from its first event (what was derived
    from each event, and every checkpoint, forgotten): it derives the same entries again."""
    entries = store.entries("t", 10**9, 10**6)
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE events SET game = NULL, position = NULL, entry = NULL")
        db.execute("DELETE FROM checkpoints")
    table = Table(store, "t")
    assert store.entries("t", 10**9, 10**6) == entries
    return table


def _same(a: Table, b: Table) -> None:
    assert b.broken is None, b.broken
    assert b.view == a.view
    assert (b.number, b.count, b.last_seq) == (a.number, a.count, a.last_seq)
    assert (b.last.seq if b.last else None) == (a.last.seq if a.last else None)


LOSE_3 = {"do": "lose_life", "player": "bo", "amount": 3}
GAIN_2 = {"do": "gain_life", "player": "ana", "amount": 2}


@pytest.mark.parametrize("kind", ["reset", "new_game"])
def test_starting_over_and_its_undo_bring_the_game_back_as_it_was(
    tmp_path: Path, kind: str
) -> None:
    store, table = _table(tmp_path)
    _act(table, LOSE_3)
    _act(table, GAIN_2, "bo")
    before = table.view
    seq = _do(table, kind, "bo")
    # A fresh game with the same players: every total back to its start, not scored.
    assert (_life(table, "ana"), _life(table, "bo")) == (20, 20)
    assert table.number == 2 and table.outcomes[0].over is False
    assert all(s["wins"] == s["losses"] == s["draws"] == 0 for s in table.view["score"]["sides"])
    assert table.view["score"]["finished"] == 0
    # The history says what and who; the start over is what an undo takes back now.
    entry = table.history(seq + 1)["entries"][-1]
    assert (entry["kind"], entry["seat"], entry["game"]) == (kind, "bo", 2)
    assert {"player": "bo", "what": "life", "from": 17, "to": 20} in entry["changes"]
    assert table.view["can_undo"] is True and table.view["undo_target"] == seq
    # It survives a restart, and a replay of the whole log, identically.
    _same(table, _loaded(store))
    # The undo brings the game back exactly as it was: totals, undo target, score, number.
    undo = _do(table, "undo", "bo", target=seq)
    assert table.view == {**before, "undo_target": before["undo_target"]}
    assert table.number == 1 and table.outcomes == []
    undo_entry = table.history(undo + 1)["entries"][-1]
    assert (undo_entry["kind"], undo_entry["target"], undo_entry["game"]) == ("undo", seq, 1)
    _same(table, _loaded(store))
    # Undone once: a second undo of it is told so; the game goes on with its own undo.
    with pytest.raises(TableError) as refused:
        table.submit("undo", {"target": seq}, "again", "ana")
    assert refused.value.code == "already-undone"
    assert _do(table, "undo", "bo", target=table.undo_target())
    assert (_life(table, "ana"), _life(table, "bo")) == (20, 17)
    # The game's record holds its actions in effect only (the undo of the reset took none).
    assert table.record(1)["actions"] == [LOSE_3]
    _same(table, _loaded(store))
    _same(table, _replayed(store))


def test_undo_takes_back_the_new_games_actions_then_the_reset(tmp_path: Path) -> None:
    store, table = _table(tmp_path)
    _act(table, LOSE_3)
    before = table.view
    reset = _do(table, "reset")
    first = _act(table, GAIN_2)
    assert table.undo_target() == first
    _do(table, "undo", target=first)
    # No action of the new game in effect: the reset is the last change, and undo takes it.
    assert table.undo_target() == reset
    _same(table, _loaded(store))
    _do(table, "undo", target=reset)
    assert table.view == before
    _same(table, _loaded(store))
    _same(table, _replayed(store))


def test_a_long_game_is_brought_back_from_its_checkpoints(tmp_path: Path) -> None:
    """Past a checkpoint (every 100 actions): the undo reads the game's newest checkpoint and
    the actions after it, and a reset, undone, then reset again begins a fresh game."""
    store, table = _table(tmp_path)
    for i in range(130):
        _act(table, {"do": "gain_life", "player": "ana" if i % 2 else "bo", "amount": 1})
    before = table.view
    reset = _do(table, "reset")
    for _ in range(105):
        _act(table, GAIN_2)
    for _ in range(105):
        _do(table, "undo", target=table.undo_target())
    _same(table, _loaded(store))
    _do(table, "undo", target=reset)
    assert table.view == before and table.count == 130
    _same(table, _loaded(store))
    again = _do(table, "new_game")
    _act(table, LOSE_3)
    assert (_life(table, "ana"), _life(table, "bo")) == (20, 17)
    assert table.number == 2
    _do(table, "undo", target=table.undo_target())
    assert table.undo_target() == again
    _same(table, _loaded(store))
    _same(table, _replayed(store))


def test_a_game_left_unfinished_is_not_scored(tmp_path: Path) -> None:
    store, table = _table(tmp_path)
    _act(table, LOSE_3)
    _do(table, "new_game")
    _act(table, {"do": "concede", "player": "bo"}, "bo")
    score = table.view["score"]
    assert score["game"] == 2 and score["finished"] == 1
    wins = {s["id"]: (s["wins"], s["losses"]) for s in score["sides"]}
    assert wins == {"ana": (1, 0), "bo": (0, 1)}
    # The statistics list the games that were played out, by their numbers at the table.
    found = stats(table)
    assert [g["game"] for g in found["games"]] == [2]
    assert found["table"]["games"] == 1
    _same(table, _loaded(store))
    _same(table, _replayed(store))


def test_who_starts_after_a_reset_is_a_first_games_pick(tmp_path: Path) -> None:
    """103.1: the loser of the previous game chooses who starts a later game of a match; a
    game left unfinished has no loser, so the pick after a reset says nothing of it."""
    _store, table = _table(tmp_path)
    _act(table, LOSE_3)
    _do(table, "reset")
    assert "previous game" not in _first_player(table)["note"]
    _act(table, {"do": "concede", "player": "bo"}, "bo")
    _do(table, "next_game")
    assert "previous game" in _first_player(table)["note"]


def test_starting_over_is_refused_where_it_would_mean_nothing(tmp_path: Path) -> None:
    _store, table = _table(tmp_path)
    for kind in ("reset", "new_game"):
        with pytest.raises(TableError) as refused:
            table.submit(kind, {}, f"early-{kind}", "ana")
        assert refused.value.code == "unchanged"
    _act(table, {"do": "concede", "player": "bo"}, "bo")
    for kind in ("reset", "new_game"):
        with pytest.raises(TableError) as refused:
            table.submit(kind, {}, f"over-{kind}", "ana")
        assert refused.value.code == "over"
        assert "Next game" in refused.value.message
    assert table.number == 1 and table.last_seq == 1


@pytest.mark.asyncio
async def test_every_phone_sees_a_reset_and_a_spectator_may_not(client: Client) -> None:
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    bo = await phone(client, table["id"], await seat(client, table["id"], "bo"))
    watcher = await phone(client, table["watch"], watch=True)
    assert (await ana.act(LOSE_3))["type"] == "ack"
    refused = await watcher.reply(await watcher.send("reset"))
    assert refused["error"] == "spectator"
    reply = await bo.reply(await bo.send("reset"))
    assert reply["type"] == "ack"
    seen = await ana.until("event")
    seen = await ana.until("event")  # the first was Ana's own change
    assert seen["entry"]["kind"] == "reset" and seen["entry"]["seat"] == "bo"
    assert seen["undo_target"] == reply["seq"]
    assert [p["life"] for p in seen["state"]["players"]] == [20, 20]
    # Bo's own Undo takes his reset back at once; Ana's asks Bo first (issue 17 item 10).
    asked = await ana.reply(await ana.send("undo", target=reply["seq"]))
    assert asked["type"] == "undo_asked" and asked["owner"] == "bo"
    undone = await bo.reply(await bo.send("undo", target=reply["seq"]))
    assert undone["type"] == "ack"
    res = await client.get(f"/api/tables/{table['id']}")
    data = await res.json()
    assert [p["life"] for p in data["state"]["players"]] == [20, 17]
    assert data["score"]["game"] == 1


def test_on_postgresql_a_reset_a_name_and_their_undo_load_as_they_were(pg_url: str) -> None:
    """The same on PostgreSQL (issue 10's store): the checkpoints at a game's start and the
    names kept beside the log are read back there too."""
    from lifeledger_table.store.postgres import PostgresStore

    store = PostgresStore(pg_url)
    try:
        store.create_table(TableRow("t", "wt", "CT", build_setup(TWO), 0.0))
        table = Table(store, "t")
        _act(table, LOSE_3)
        before = table.view
        seq = _do(table, "reset")
        _do(table, "setup", player="bo", name="Bob", colour=9)
        again = Table(store, "t")
        assert again.view == table.view and again.undo_target() == seq
        assert again.label("bo") == "Bob" and again.view["colours"] == {"bo": 9}
        _do(again, "undo", target=seq)
        assert {k: v for k, v in again.view.items() if k not in ("names", "colours")} == {
            k: v for k, v in before.items() if k not in ("names", "colours")
        }
        assert Table(store, "t").view == again.view
    finally:
        store.close()

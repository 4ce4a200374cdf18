"""Issue 17 item 2: a player's name and colour are changed at the table (a quick game's "Player
1" becomes Ana). The change is an event of the table's log (``setup``): checked whole before
anything changes, sent to every phone, in the history, kept with the table's setup (it survives
a restart, and a log replayed from its start makes it again)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import open_table, phone, seat

from lifeledger_table.decide.errors import TableError
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.decide.table import Table
from lifeledger_table.server import create_app
from lifeledger_table.store.records import TableRow
from lifeledger_table.store.sqlite import SQLiteStore

Client = TestClient[Any, Any]

QUICK = {"players": [{"name": "Player 1"}, {"name": "Player 2"}, {"name": "Player 3"}]}


def _table(tmp_path: Path) -> tuple[SQLiteStore, Table]:
    store = SQLiteStore(str(tmp_path / "t.db"))
    store.create_table(TableRow("t", "wt", "CT", build_setup(QUICK), 0.0))
    return store, Table(store, "t")


def _rename(table: Table, seat: str = "player-1", **body: Any) -> int:
    _entry, seq = table.submit("setup", body, f"c{table.last_seq + 1}", seat)
    return seq


def _replayed(store: SQLiteStore) -> Table:
    """The table from its log alone (what was derived, and every checkpoint, forgotten)."""
    entries = store.entries("t", 10**9, 10**6)
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE events SET game = NULL, position = NULL, entry = NULL")
        db.execute("DELETE FROM checkpoints")
    table = Table(store, "t")
    assert store.entries("t", 10**9, 10**6) == entries
    return table


def test_a_name_and_a_colour_change_at_the_table_and_stay(tmp_path: Path) -> None:
    store, table = _table(tmp_path)
    _entry, _ = table.submit(
        "action",
        {"action": {"do": "lose_life", "player": "player-2", "amount": 3}},
        "a",
        "player-1",
    )
    state = table.view["state"]
    seq = _rename(table, player="player-1", name="  Ana  ", colour=5)
    assert table.label("player-1") == "Ana"  # trimmed, as the setup's names are
    assert table.view["names"] == {
        "player-1": "Ana",
        "player-2": "Player 2",
        "player-3": "Player 3",
    }
    assert table.view["colours"] == {"player-1": 5}
    assert table.view["state"] == state  # the game is as it was: ids never change
    info = table.info(spectator=False)
    assert info["header"]["players"][0]["name"] == "Ana" and info["colours"] == {"player-1": 5}
    entry = table.history(seq + 1)["entries"][-1]
    assert entry["kind"] == "setup" and entry["seat"] == "player-1" and entry["changes"] == []
    assert entry["setup"] == {
        "player": "player-1",
        "name": {"from": "Player 1", "to": "Ana"},
        "colour": {"from": None, "to": 5},
    }
    # The undo still takes back the last action (a name is no action of the game).
    assert table.undo_target() == 1
    _rename(table, "player-2", player="player-2", name="Bo")
    _rename(table, "player-2", player="player-1", colour=7)
    names = table.view["names"]
    for again in (Table(store, "t"), _replayed(store)):
        assert again.broken is None
        assert again.view == table.view and again.view["names"] == names
        assert again.info(spectator=True)["colours"] == {"player-1": 7}
        assert again.label("player-2") == "Bo"


@pytest.mark.parametrize(
    ("body", "code", "member"),
    [
        ({"player": "player-1", "name": "x" * 41}, "malformed", "name"),
        ({"player": "player-1", "name": "   "}, "malformed", "name"),
        ({"player": "player-1", "name": "<b>Ana</b>"}, "malformed", "name"),
        ({"player": "player-1", "name": "Ana\u202eevil"}, "malformed", "name"),
        ({"player": "player-1", "name": 7}, "malformed", "name"),
        ({"player": "player-1", "name": "player 2"}, "name-taken", "name"),
        ({"player": "player-1", "colour": 16}, "malformed", "colour"),
        ({"player": "player-1", "colour": True}, "malformed", "colour"),
        ({"player": "player-1", "colour": 3}, "colour-taken", "colour"),
        ({"player": "nobody", "name": "Ana"}, "unknown-player", "player"),
        ({"player": "player-1"}, "malformed", None),
        ({"player": "player-1", "name": "Player 1"}, "unchanged", None),
        ({"player": "player-1", "name": "Ana", "life": 3}, "malformed", "life"),
    ],
)
def test_a_bad_change_names_where_and_what_and_changes_nothing(
    tmp_path: Path, body: dict[str, Any], code: str, member: str | None
) -> None:
    store, table = _table(tmp_path)
    _rename(table, "player-2", player="player-2", colour=3)
    view, seq = table.view, table.last_seq
    with pytest.raises(TableError) as refused:
        _rename(table, **body)
    assert (refused.value.code, refused.value.member) == (code, member)
    assert refused.value.message  # a sentence a person can act on
    assert table.view == view and table.last_seq == seq
    assert Table(store, "t").view == view


@pytest.mark.asyncio
async def test_every_phone_sees_a_new_name_and_it_survives_a_restart(
    client: Client, db: str, aiohttp_client: Callable[..., Any]
) -> None:
    table = await open_table(client, QUICK)
    one = await phone(client, table["id"], await seat(client, table["id"], "player-1"))
    two = await phone(client, table["id"], await seat(client, table["id"], "player-2"))
    watcher = await phone(client, table["watch"], watch=True)
    refused = await watcher.reply(await watcher.send("setup"))
    assert refused["error"] == "spectator"
    await one.ws.send_json(
        {"type": "setup", "id": "n1", "player": "player-1", "name": "Ana", "colour": 2}
    )
    assert (await one.reply("n1"))["type"] == "ack"
    seen = await two.until("event")
    assert seen["names"]["player-1"] == "Ana" and seen["colours"] == {"player-1": 2}
    assert seen["entry"]["setup"]["name"] == {"from": "Player 1", "to": "Ana"}
    seen = await watcher.until("event")
    assert seen["names"]["player-1"] == "Ana"
    await one.ws.send_json({"type": "setup", "id": "n2", "player": "player-2", "name": "<i>"})
    bad = await one.reply("n2")
    assert (bad["type"], bad["error"], bad["member"]) == ("error", "malformed", "name")
    again = await aiohttp_client(create_app(SQLiteStore(db)))
    data = await (await again.get(f"/api/tables/{table['id']}")).json()
    assert data["table"]["header"]["players"][0]["name"] == "Ana"
    assert data["table"]["colours"] == {"player-1": 2}
    assert data["names"]["player-1"] == "Ana"
    assert [e["kind"] for e in data["entries"]] == ["setup"]

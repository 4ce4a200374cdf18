"""Starting and pacing the game: the table's shared tools over WebSocket (tools.py). The server
decides every random result (103.1, 810.6, 901.9), every phone sees the same, the clocks and
the round timer run on the server's time, and the round timer's end leads to a draw the
players record at the table (104.4i)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
import pytest
from aiohttp.test_utils import TestClient
from browser_helpers import server
from store_contract import row
from table_helpers import THG, TWO, Phone, SharedStore, open_table, phone, seat

from lifeledger_table.decide import tools as tools_module
from lifeledger_table.decide.limits import Limits
from lifeledger_table.live import toolmessages
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.postgres import SCHEMA_VERSION, PostgresStore
from lifeledger_table.store.sqlite import SQLiteStore

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")]}


@pytest.fixture
def limits() -> Limits:
    """Budgets that many quick rolls in a row stay under."""
    return Limits(
        rate=1000,
        burst=1000,
        table_rate=1000,
        table_burst=1000,
        tools_rate=1000,
        tools_burst=1000,
        tools_address_rate=1000,
        tools_address_burst=1000,
    )


class Clock:
    """The server's clock for the tools, moved by hand."""

    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[Clock]:
    made = Clock()
    monkeypatch.setattr(toolmessages, "now_ms", made)
    yield made


async def answer(p: Phone, cid: str) -> dict[str, Any]:
    """The answer to tool message ``cid``: the tools (its acknowledgement) or an error."""
    while True:
        msg = await p.recv()
        if msg.get("id") == cid and msg["type"] in ("tools", "error"):
            return msg


async def use(p: Phone, tool: str, **members: Any) -> dict[str, Any]:
    """Send a tool message; its answer."""
    p.n += 1
    cid = f"t{id(p)}-{p.n}"
    await p.ws.send_json({"type": "tool", "id": cid, "tool": tool, **members})
    return await answer(p, cid)


async def seated(client: Client, form: dict[str, Any], *players: str) -> tuple[str, list[Phone]]:
    table = await open_table(client, form)
    phones = [await phone(client, table["id"], await seat(client, table["id"], p)) for p in players]
    return table["id"], phones


async def test_103_1_a_random_player_is_picked_and_every_phone_sees_the_same(
    client: Client,
) -> None:
    table, (ana, bo) = await seated(client, TWO, "ana", "bo")
    info = await (await client.get(f"/api/tables/{table}")).json()
    watcher = await phone(client, info["table"]["watch"], watch=True)
    got = await use(ana, "first_player")
    assert got["type"] == "tools"
    result = got["tools"]["recent"][-1]
    assert result["tool"] == "first_player" and result["side"] in ("ana", "bo")
    assert result["kind"] == "player" and result["by"] == "ana"
    # 103.1: the one picked starts (or chooses another); 103.8a: the starter skips a draw.
    assert result["rules"] == ["103.1", "103.8a"] and result["skips_draw"] is True
    name = {"ana": "Ana", "bo": "Bo"}[result["side"]]
    assert result["note"].startswith(f"{name} takes the first turn and skips the draw step")
    assert "may choose to let the other player start" in result["note"]
    for other in (bo, watcher):
        seen = await other.until("tools")
        assert seen["tools"]["recent"][-1] == result and "id" not in seen
    # The pick is random: over many picks, both players come up.
    picked = {(await use(ana, "first_player"))["tools"]["recent"][-1]["side"] for _ in range(40)}
    assert picked == {"ana", "bo"}


async def test_810_6_two_headed_giant_picks_a_team_that_skips_its_first_draw(
    client: Client,
) -> None:
    _table, (ana,) = await seated(client, THG, "ana")
    teams = set()
    for _ in range(30):
        result = (await use(ana, "first_player"))["tools"]["recent"][-1]
        assert result["kind"] == "team" and result["rules"] == ["103.1a", "810.6"]
        assert result["skips_draw"] is True
        assert f"{result['label']} take the first turn and skip the draw step" in result["note"]
        teams.add((result["side"], tuple(result["players"]), result["label"]))
    assert teams == {("north", ("ana", "bo"), "North"), ("south", ("cy", "di"), "South")}


async def test_103_8c_in_other_multiplayer_games_nobody_skips_a_draw(client: Client) -> None:
    _table, (ana,) = await seated(client, FOUR, "ana")
    result = (await use(ana, "first_player"))["tools"]["recent"][-1]
    assert result["side"] in ("ana", "bo", "cy", "di") and result["skips_draw"] is False
    assert result["rules"] == ["103.1", "103.8c"] and "no player skips" in result["note"]


async def test_103_1b_the_archenemy_takes_the_first_turn(client: Client) -> None:
    form = {
        "variant": "archenemy",
        "players": [{"name": "Ana", "archenemy": True}, {"name": "Bo"}, {"name": "Cy"}],
    }
    _table, (bo,) = await seated(client, form, "bo")
    got = await use(bo, "first_player")
    assert got["type"] == "error" and got["error"] == "refused" and got["rule"] == "103.1b"
    assert "Ana" in got["message"]


async def test_dice_of_any_size_several_at_once_and_a_coin(client: Client) -> None:
    _table, (ana, bo) = await seated(client, TWO, "ana", "bo")
    got = await use(ana, "roll", sides=20, count=3)
    roll = got["tools"]["recent"][-1]
    assert roll["tool"] == "roll" and roll["sides"] == 20 and len(roll["values"]) == 3
    assert all(1 <= v <= 20 for v in roll["values"]) and roll["total"] == sum(roll["values"])
    assert (await bo.until("tools"))["tools"]["recent"][-1] == roll
    faces: set[int] = set()
    for _ in range(60):
        faces.update((await use(ana, "roll", sides=2))["tools"]["recent"][-1]["values"])
    assert faces == {1, 2}
    big = (await use(ana, "roll", sides=1000, count=20))["tools"]["recent"][-1]
    assert len(big["values"]) == 20 and all(1 <= v <= 1000 for v in big["values"])
    coins = {(await use(bo, "coin"))["tools"]["recent"][-1]["value"] for _ in range(40)}
    assert coins == {"heads", "tails"}
    # The recent list is short: the newest ten, numbered.
    recent = (await use(bo, "coin"))["tools"]["recent"]
    assert len(recent) == 10
    assert [r["n"] for r in recent] == list(range(recent[0]["n"], recent[0]["n"] + 10))


async def test_901_9_the_planar_die_only_in_planechase(client: Client) -> None:
    _table, (ana,) = await seated(client, TWO, "ana")
    got = await use(ana, "planar")
    assert got["type"] == "error" and got["error"] == "refused" and got["rule"] == "901.9"
    _table, (ana,) = await seated(client, {**TWO, "format": "planechase"}, "ana")
    counts = {"planeswalker": 0, "chaos": 0, "blank": 0}
    for _ in range(120):
        result = (await use(ana, "planar"))["tools"]["recent"][-1]
        assert result["rule"] == "901.9"
        counts[result["value"]] += 1
    # Six faces: one planeswalker symbol, one chaos symbol, four blank.
    assert all(counts.values()) and counts["blank"] > counts["chaos"]
    assert tools_module.PLANAR_FACES.count("blank") == 4
    assert tools_module.PLANAR_FACES.count("planeswalker") == 1
    assert tools_module.PLANAR_FACES.count("chaos") == 1


@pytest.mark.parametrize(
    ("members", "member"),
    [
        ({"tool": "dice"}, "tool"),
        ({}, "tool"),
        ({"tool": "roll"}, "sides"),
        ({"tool": "roll", "sides": 1}, "sides"),
        ({"tool": "roll", "sides": 1001}, "sides"),
        ({"tool": "roll", "sides": True}, "sides"),
        ({"tool": "roll", "sides": 6, "count": 0}, "count"),
        ({"tool": "roll", "sides": 6, "count": 21}, "count"),
        ({"tool": "roll", "sides": 6.5}, "sides"),
        ({"tool": "roll", "sides": 6, "colour": "red"}, "colour"),
        ({"tool": "coin", "count": 2}, "count"),
        ({"tool": "clock"}, "op"),
        ({"tool": "clock", "op": "explode"}, "op"),
        ({"tool": "clock", "op": "start"}, "seconds"),
        ({"tool": "clock", "op": "start", "seconds": 5}, "seconds"),
        ({"tool": "clock", "op": "start", "seconds": 60, "mode": "blitz"}, "mode"),
        ({"tool": "clock", "op": "start", "seconds": 60, "first": "nobody"}, "first"),
        ({"tool": "clock", "op": "start", "seconds": 60, "first": 3}, "first"),
        ({"tool": "clock", "op": "pause", "seconds": 60}, "seconds"),
        ({"tool": "round", "op": "start", "minutes": 0}, "minutes"),
        ({"tool": "round", "op": "start", "extra_turns": 11}, "extra_turns"),
        ({"tool": "round", "op": "extend"}, "minutes"),
        ({"tool": "round", "op": "turn", "minutes": 1}, "minutes"),
    ],
)
async def test_a_malformed_tool_message_names_its_member_and_changes_nothing(
    client: Client, members: dict[str, Any], member: str
) -> None:
    _table, (ana,) = await seated(client, TWO, "ana")
    before = await use(ana, "coin")
    await ana.ws.send_json({"type": "tool", "id": "bad-1", **members})
    got = await answer(ana, "bad-1")
    assert got["type"] == "error" and got["error"] == "malformed" and got["member"] == member
    after = await use(ana, "coin")
    # Nothing changed: the next result follows the one before the malformed message.
    assert after["tools"]["recent"][-1]["n"] == before["tools"]["recent"][-1]["n"] + 1
    assert after["tools"]["clock"] is None and after["tools"]["round"] is None


async def test_tools_need_an_id_a_hello_and_a_seat_spectators_see_the_results(
    client: Client,
) -> None:
    table = await open_table(client, TWO)
    info = await (await client.get(f"/api/tables/{table['id']}")).json()
    watcher = await phone(client, info["table"]["watch"], watch=True)
    await watcher.ws.send_json({"type": "tool", "id": "w1", "tool": "coin"})
    assert (await answer(watcher, "w1"))["error"] == "spectator"
    visitor = await phone(client, table["id"])
    await visitor.ws.send_json({"type": "tool", "id": "v1", "tool": "coin"})
    assert (await answer(visitor, "v1"))["error"] == "no-seat"
    await visitor.ws.send_json({"type": "tool", "tool": "coin"})
    msg = await visitor.until("error")
    assert msg["error"] == "malformed" and '"id"' in msg["message"]
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    assert (await use(ana, "coin"))["type"] == "tools"
    assert (await watcher.until("tools"))["tools"]["recent"][0]["tool"] == "coin"
    # A welcome carries the tools (and the server's time, for the page's clock offset).
    late = await phone(client, info["table"]["watch"], watch=True)
    await late.ws.send_json({"type": "hello", "since": 0})
    welcome = await late.until("welcome")
    assert welcome["tools"]["recent"][0]["tool"] == "coin" and isinstance(welcome["now"], int)


async def test_a_retried_tool_message_is_applied_once(client: Client) -> None:
    _table, (ana,) = await seated(client, TWO, "ana")
    await ana.ws.send_json({"type": "tool", "id": "roll-once", "tool": "roll", "sides": 6})
    first = await answer(ana, "roll-once")
    await ana.ws.send_json({"type": "tool", "id": "roll-once", "tool": "roll", "sides": 6})
    again = await answer(ana, "roll-once")
    assert first["tools"]["recent"] == again["tools"]["recent"]
    assert len(again["tools"]["recent"]) == 1


async def test_tool_messages_spend_the_sockets_message_budget(
    aiohttp_client: Callable[..., Any], db: str
) -> None:
    client = await aiohttp_client(create_app(SQLiteStore(db), Limits(burst=12, rate=0.5)))
    _table, (ana,) = await seated(client, TWO, "ana")
    for i in range(12):
        await ana.ws.send_json({"type": "tool", "id": f"r{i}", "tool": "coin"})
    answers: dict[str, dict[str, Any]] = {}
    while len(answers) < 12:
        msg = await ana.recv()
        if msg.get("id"):
            answers[msg["id"]] = msg
    # The hello spent one: the last one is throttled (answered at once, before the others).
    assert answers["r11"]["type"] == "error" and answers["r11"]["error"] == "throttled"
    assert [answers[f"r{i}"]["type"] for i in range(11)] == ["tools"] * 11


async def test_a_chess_clock_runs_for_one_side_at_a_time(client: Client, clock: Clock) -> None:
    _table, (ana, bo) = await seated(client, TWO, "ana", "bo")
    got = await use(ana, "clock", op="start", seconds=600, first="bo")
    c = got["tools"]["clock"]
    assert c["mode"] == "chess" and c["active"] == "bo" and c["since"] == clock.now
    assert [(s["id"], s["left_ms"], s["label"]) for s in c["sides"]] == [
        ("ana", 600_000, "Ana"),
        ("bo", 600_000, "Bo"),
    ]
    assert (await bo.until("tools"))["tools"]["clock"] == c
    clock.now += 40_000
    c = (await use(bo, "clock", op="pass"))["tools"]["clock"]
    assert c["active"] == "ana" and c["since"] == clock.now
    assert {s["id"]: s["left_ms"] for s in c["sides"]} == {"ana": 600_000, "bo": 560_000}
    clock.now += 15_000
    c = (await use(ana, "clock", op="pause"))["tools"]["clock"]
    assert c["since"] is None and c["sides"][0]["left_ms"] == 585_000
    clock.now += 99_000  # paused: nobody's time runs
    c = (await use(ana, "clock", op="resume"))["tools"]["clock"]
    assert c["since"] == clock.now and c["sides"][0]["left_ms"] == 585_000
    clock.now += 5_000
    c = (await use(ana, "clock", op="pass", to="bo"))["tools"]["clock"]
    assert {s["id"]: s["left_ms"] for s in c["sides"]} == {"ana": 580_000, "bo": 560_000}
    assert (await use(ana, "clock", op="stop"))["tools"]["clock"] is None
    got = await use(ana, "clock", op="pass")
    assert got["type"] == "error" and got["error"] == "no-clock"


async def test_a_turn_timer_gives_each_turn_the_same_time_and_skips_who_has_lost(
    client: Client, clock: Clock
) -> None:
    _table, (ana, bo, cy) = await seated(client, FOUR, "ana", "bo", "cy")
    await use(ana, "first_player")
    picked = (await use(ana, "first_player"))["tools"]["recent"][-1]["side"]
    c = (await use(ana, "clock", op="start", mode="turn", seconds=90))["tools"]["clock"]
    # Without "first", the clock starts with the player the last pick chose.
    assert c["active"] == picked
    await use(ana, "clock", op="pass", to="ana")
    assert (await bo.act({"do": "concede", "player": "bo"}))["type"] == "ack"
    clock.now += 100_000  # over time: shown as such, the table decides nothing
    c = (await use(cy, "clock", op="pass"))["tools"]["clock"]
    assert c["active"] == "cy"  # bo has left the game (104.3a): skipped
    assert {s["id"]: s["left_ms"] for s in c["sides"]} == dict.fromkeys(
        ("ana", "bo", "cy", "di"), 90_000
    )


async def test_a_two_headed_giant_clock_is_per_team(client: Client, clock: Clock) -> None:
    _table, (cy,) = await seated(client, THG, "cy")
    c = (await use(cy, "clock", op="start", seconds=1200))["tools"]["clock"]
    assert [(s["id"], s["label"]) for s in c["sides"]] == [("north", "North"), ("south", "South")]
    c = (await use(cy, "clock", op="pass"))["tools"]["clock"]
    assert c["active"] == "south"


async def test_104_4i_the_round_timer_counts_the_extra_turns_then_offers_a_draw(
    client: Client, clock: Clock
) -> None:
    table, (ana, bo) = await seated(client, TWO, "ana", "bo")
    start = clock.now
    r = (await use(ana, "round", op="start"))["tools"]["round"]
    # 50 minutes by default; five additional turns (Magic Tournament Rules 2.4).
    assert r["minutes"] == 50 and r["ends_at"] == start + 50 * 60_000
    assert r["extra_turns"] == 5 and r["phase"] == "running" and r["turns_done"] == 0
    assert (await bo.until("tools"))["tools"]["round"] == r
    early = await use(bo, "round", op="turn")
    assert early["type"] == "error" and early["error"] == "not-time"
    clock.now += 10 * 60_000
    r = (await use(ana, "round", op="pause"))["tools"]["round"]
    assert r["phase"] == "paused" and r["left_ms"] == 40 * 60_000 and r["ends_at"] is None
    clock.now += 5 * 60_000
    r = (await use(ana, "round", op="resume"))["tools"]["round"]
    assert r["ends_at"] == clock.now + 40 * 60_000
    r = (await use(ana, "round", op="extend", minutes=3))["tools"]["round"]
    assert r["ends_at"] == clock.now + 43 * 60_000
    clock.now = r["ends_at"]  # time is called: the turn in progress is turn 0
    r = (await use(bo, "round", op="turn"))["tools"]["round"]
    assert r["phase"] == "time" and r["turns_done"] == 1
    late = await use(bo, "round", op="extend", minutes=3)
    assert late["type"] == "error" and late["error"] == "round-over"
    for done in range(2, 7):
        r = (await use(bo if done % 2 else ana, "round", op="turn"))["tools"]["round"]
        assert r["turns_done"] == done
    assert r["phase"] == "over"
    over = await use(ana, "round", op="turn")
    assert over["type"] == "error" and over["error"] == "turns-over"
    # No one has won: the page offers the draw, recorded as an intentional draw (104.4i),
    # which every seated player in the game agrees to at the table.
    first = await ana.act({"do": "intentional_draw"})
    assert first["type"] == "error" and first["error"] == "awaiting-agreement"
    assert first["rule"] == "104.4i"
    assert (await bo.act({"do": "intentional_draw"}))["type"] == "ack"
    data = await (await client.get(f"/api/tables/{table}")).json()
    assert data["state"]["over"] is True
    assert all(p["status"] == "drew" for p in data["state"]["players"])


async def test_a_two_headed_giant_round_has_three_extra_turns(client: Client, clock: Clock) -> None:
    _table, (ana,) = await seated(client, THG, "ana")
    r = (await use(ana, "round", op="start", minutes=30))["tools"]["round"]
    assert r["extra_turns"] == 3 and r["ends_at"] == clock.now + 30 * 60_000
    r = (await use(ana, "round", op="start", minutes=30, extra_turns=0))["tools"]["round"]
    clock.now += 30 * 60_000
    assert (await use(ana, "round", op="turn"))["tools"]["round"]["phase"] == "over"
    assert (await use(ana, "round", op="stop"))["tools"]["round"] is None
    got = await use(ana, "round", op="pause")
    assert got["type"] == "error" and got["error"] == "no-round"


async def test_the_tools_are_kept_when_the_app_restarts(
    aiohttp_client: Callable[..., Any], db: str, clock: Clock
) -> None:
    first = await aiohttp_client(create_app(SQLiteStore(db), Limits()))
    table, (ana,) = await seated(first, TWO, "ana")
    await use(ana, "round", op="start", minutes=45)
    await use(ana, "clock", op="start", seconds=300)
    rolled = (await use(ana, "roll", sides=12))["tools"]
    await first.close()
    second = await aiohttp_client(create_app(SQLiteStore(db), Limits()))
    token = await seat(second, table, "bo")
    bo = await phone(second, table, token)
    await bo.ws.send_json({"type": "hello", "token": token, "since": 0})
    welcome = await bo.until("welcome")
    assert welcome["tools"] == rolled
    assert welcome["tools"]["round"]["ends_at"] == clock.now + 45 * 60_000


async def test_a_store_from_before_the_tools_gets_them_when_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    SQLiteStore(str(path)).close()
    old = sqlite3.connect(path)  # back to schema version 2, as an older lifeledger wrote it
    old.executescript("DROP TABLE tools; PRAGMA user_version = 2;")
    old.close()
    store = SQLiteStore(str(path))
    store.create_table(row(1))
    assert store.tools("table-1") is None and store.put_tools("table-1", 1, "{}")
    assert store._db.execute("PRAGMA user_version").fetchone()[0] == 3
    store.close()


async def test_a_tool_used_on_one_server_reaches_the_phones_on_another(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """Several servers on one store (issue 10): a tool change is written over the version
    before it and noticed by the others (PostgreSQL: NOTIFY ``tools``)."""
    peers: list[SharedStore] = []
    path = str(tmp_path / "shared.db")
    a, b = [await aiohttp_client(create_app(SharedStore(path, peers), Limits())) for _ in range(2)]
    table = await open_table(a, TWO)
    ana = await phone(a, table["id"], await seat(a, table["id"], "ana"))
    bo = await phone(b, table["id"], await seat(b, table["id"], "bo"))
    rolled = (await use(ana, "roll", sides=6))["tools"]
    seen = await bo.until("tools")
    assert seen["tools"] == rolled
    # Both servers change the tools: each change is written over the one before it.
    both = await asyncio.gather(use(ana, "coin"), use(bo, "coin"))
    assert all(m["type"] == "tools" for m in both)
    final = max((m["tools"]["recent"] for m in both), key=len)
    assert [r["n"] for r in final] == [1, 2, 3]


async def ws_phone(
    session: aiohttp.ClientSession, base: str, table: str, token: str
) -> tuple[Phone, dict[str, Any]]:
    """A phone on a real server process, and its welcome."""
    ws = await session.ws_connect(f"{base.replace('http', 'ws')}/ws/t/{table}?token={token}")
    p = Phone(ws)
    return p, await p.hello(token)


async def take_seat(session: aiohttp.ClientSession, base: str, table: str, who: str) -> str:
    async with session.post(f"{base}/api/tables/{table}/seats/{who}", json={}) as res:
        token: str = (await res.json())["token"]
        return token


async def test_a_running_round_timer_survives_a_killed_server(tmp_path: Path) -> None:
    """The tools are written before any phone is told (as an event is): a server killed
    with SIGKILL and started again on the same database still has the round timer running
    (the same end, on the server's clock), the clock and the results."""
    db = tmp_path / "restart.db"
    async with aiohttp.ClientSession() as session:
        with server(db) as (base, proc):
            async with session.post(f"{base}/api/tables", json=TWO) as res:
                table = (await res.json())["id"]
            ana, _ = await ws_phone(
                session, base, table, await take_seat(session, base, table, "ana")
            )
            started = await use(ana, "round", op="start", minutes=50)
            await use(ana, "clock", op="start", seconds=600, first="bo")
            kept = (await use(ana, "roll", sides=20, count=2))["tools"]
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            await ana.ws.close()
        with server(db) as (base, _):
            bo_token = await take_seat(session, base, table, "bo")
            _bo, welcome = await ws_phone(session, base, table, bo_token)
            welcome_tools = welcome["tools"]
    assert welcome_tools["recent"] == kept["recent"]
    assert welcome_tools["clock"] == kept["clock"]
    assert welcome_tools["round"]["ends_at"] == started["tools"]["round"]["ends_at"]
    assert welcome_tools["round"]["phase"] == "running"


async def test_tools_on_several_processes_sharing_postgresql(pg_url: str) -> None:
    """Two `lifeledger serve` processes on one PostgreSQL database (issue 10): a roll on one
    reaches the phones on the other (NOTIFY ``tools``), and changes made on both at once are
    each written over the one before it (none lost)."""
    async with aiohttp.ClientSession() as session:
        with server(pg_url) as (one, _), server(pg_url) as (two, _):  # type: ignore[arg-type]
            async with session.post(f"{one}/api/tables", json=TWO) as res:
                opened = await res.json()
                table, watch = opened["id"], opened["watch"]
            ana, _ = await ws_phone(
                session, one, table, await take_seat(session, one, table, "ana")
            )
            bo, _ = await ws_phone(session, two, table, await take_seat(session, two, table, "bo"))
            rolled = (await use(ana, "roll", sides=100))["tools"]
            assert (await bo.until("tools"))["tools"]["recent"] == rolled["recent"]
            for n in range(3):  # sent at once on both processes
                for p, who in ((ana, "a"), (bo, "b")):
                    await p.ws.send_json({"type": "tool", "id": f"{who}{n}", "tool": "coin"})

            async def answers(p: Phone, who: str) -> list[dict[str, Any]]:
                return [await answer(p, f"{who}{n}") for n in range(3)]

            got = [*await answers(ana, "a"), *await answers(bo, "b")]
            assert all(a["type"] == "tools" for a in got)
            newest = max((a["tools"]["recent"] for a in got), key=lambda r: r[-1]["n"])
            assert [r["n"] for r in newest] == list(range(1, 8))
            # Each process ends with the last version, whichever process wrote it.
            for base in (one, two):
                for _ in range(50):
                    ws = await session.ws_connect(f"{base.replace('http', 'ws')}/ws/w/{watch}")
                    welcome = await Phone(ws).hello()
                    await ws.close()
                    if welcome["tools"]["recent"][-1]["n"] == 7:
                        break
                    await asyncio.sleep(0.1)
                assert welcome["tools"]["recent"] == newest


async def test_a_postgresql_store_from_before_the_tools_is_migrated(pg_url: str) -> None:
    """PostgreSQL migration 2 adds the tools' table to a database of version 1, keeping
    what it holds."""
    store = PostgresStore(pg_url)
    store.create_table(row(1))
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # back to version 1
        conn.execute("DROP TABLE tools, table_leases, lifeledger_secret, lifeledger_processes")
        conn.execute("UPDATE lifeledger_schema SET version = 1")
    store = PostgresStore(pg_url)
    try:
        assert store.table("table-1") == row(1)
        assert store.tools("table-1") is None and store.put_tools("table-1", 1, "{}")
        assert store.tools("table-1") == (1, "{}")
    finally:
        store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        found = conn.execute("SELECT version FROM lifeledger_schema").fetchone()
    assert found == (SCHEMA_VERSION,) == (4,)


async def test_a_round_is_never_extended_past_600_minutes_left(
    client: Client, clock: Clock
) -> None:
    """Extensions were unbounded (60 minutes at a time, again and again: a round ending in
    years, a time no phone shows). A round never has more than 600 minutes left (as at its
    start): an extension past that is refused (``too-long``, member ``minutes``) and
    changes nothing, running or paused."""
    _table, (ana,) = await seated(client, TWO, "ana")
    start = (await use(ana, "round", op="start"))["tools"]["round"]
    for _ in range(9):
        r = (await use(ana, "round", op="extend", minutes=60))["tools"]["round"]
    assert r["ends_at"] == start["ends_at"] + 540 * 60_000  # 590 minutes left
    refused = await use(ana, "round", op="extend", minutes=11)
    assert refused["type"] == "error" and refused["error"] == "too-long"
    assert refused["member"] == "minutes" and "600" in refused["message"]
    r = (await use(ana, "round", op="extend", minutes=10))["tools"]["round"]
    assert r["ends_at"] == clock.now + 600 * 60_000
    clock.now += 60_000
    r = (await use(ana, "round", op="pause"))["tools"]["round"]
    assert r["left_ms"] == 599 * 60_000
    assert (await use(ana, "round", op="extend", minutes=2))["error"] == "too-long"
    r = (await use(ana, "round", op="extend", minutes=1))["tools"]["round"]
    assert r["left_ms"] == 600 * 60_000


class CountingStore(SQLiteStore):
    """Counts the tools' writes (each a sync to disk), each taking ``delay`` seconds."""

    writes = 0
    delay = 0.0

    def put_tools(self, table_id: str, version: int, data: str) -> bool:
        CountingStore.writes += 1
        time.sleep(self.delay)
        return super().put_tools(table_id, version, data)


async def test_tool_writes_are_budgeted_per_table_and_per_address_across_tables(
    aiohttp_client: Callable[..., Any], db: str
) -> None:
    """Every tool message is a write of its own to the store (a sync to disk; the game's
    changes are written in batches). The socket's budget allowed 20 a second, and a phone at
    many tables 200 a second together: the store's writes for every table waited behind
    them. A table's tool messages and an address's (over all its tables) have budgets of
    their own, sized as writes: past them a tool message is refused (``throttled``), is not
    written, and changes nothing."""
    limits = Limits(tools_burst=3, tools_rate=0.01, tools_address_burst=5, tools_address_rate=0.01)
    CountingStore.writes = 0
    client = await aiohttp_client(create_app(CountingStore(db), limits))
    first, (ana,) = await seated(client, TWO, "ana")
    second, (cy,) = await seated(client, TWO, "ana")
    kinds = [(await use(ana, "coin"))["type"] for _ in range(4)]
    assert kinds == ["tools"] * 3 + ["error"]
    assert CountingStore.writes == 3
    answers = [await use(cy, "coin") for _ in range(3)]  # another table: the address's budget
    assert [a["type"] for a in answers] == ["tools", "tools", "error"]
    assert answers[-1]["error"] == "throttled" and CountingStore.writes == 5
    for table in (first, second):
        data = await (await client.get(f"/api/tables/{table}")).json()
        assert data["table"]["id"] == table
    assert len(client.app[HUB_KEY].tables[first].tools.recent) == 3
    assert len(client.app[HUB_KEY].tables[second].tools.recent) == 2


@pytest.mark.parametrize("limits", [Limits(rate=1000, burst=1000, tools_waiting=2)])
async def test_tool_changes_waiting_for_a_slow_store_are_bounded(
    aiohttp_client: Callable[..., Any], db: str, limits: Limits
) -> None:
    """A store slow to write (a busy SD card) and a phone sending tool messages as fast as it
    may: the changes waiting for their write were unbounded (a task each, every one a write
    to come). At most ``tools_waiting`` wait per table; more are refused (``busy``) and change
    nothing; the others are all written and acknowledged."""
    CountingStore.writes, CountingStore.delay = 0, 0.2
    try:
        client = await aiohttp_client(create_app(CountingStore(db), limits))
        _table, (ana,) = await seated(client, TWO, "ana")
        for i in range(4):
            await ana.ws.send_json({"type": "tool", "id": f"w{i}", "tool": "coin"})
        got: dict[str, dict[str, Any]] = {}
        while len(got) < 4:  # the refusals come first, at once
            msg = await ana.recv()
            if msg.get("id") and msg["type"] in ("tools", "error"):
                got[msg["id"]] = msg
    finally:
        CountingStore.delay = 0.0
    assert [got[f"w{i}"]["type"] for i in range(4)] == ["tools", "tools", "error", "error"]
    assert {got[f"w{i}"]["error"] for i in (2, 3)} == {"busy"}
    assert CountingStore.writes == 2 and len(got["w1"]["tools"]["recent"]) == 2


class Contended(SQLiteStore):
    """Another server writes the table's tools first, ``losses`` times in a row: each of this
    server's writes then fails its version check."""

    losses = 0

    def put_tools(self, table_id: str, version: int, data: str) -> bool:
        if Contended.losses > 0:
            Contended.losses -= 1
            found = self.tools(table_id)  # what the other server read: nothing of ours
            rival = json.loads(found[1] if found else data) | (
                {} if found else {"recent": [], "ids": []}
            )
            rival["ids"] = [*rival["ids"], f"rival-{Contended.losses}"]
            super().put_tools(table_id, version, json.dumps(rival))
            return False
        return super().put_tools(table_id, version, data)


async def test_a_tool_change_losing_to_other_servers_again_and_again_is_still_written(
    aiohttp_client: Callable[..., Any], db: str
) -> None:
    """Two processes on one PostgreSQL database, each with tool messages queued for one table
    (test_tools_on_several_processes_sharing_postgresql): one lost its version check three
    times in a row, under load, and its phone got ``busy``. A change is now tried up to
    ATTEMPTS times, each after a short random pause: five losses in a row, and it is written
    on the sixth try; only past ATTEMPTS is it refused (``busy``), changing nothing."""
    client = await aiohttp_client(create_app(Contended(db)))
    table, (ana,) = await seated(client, TWO, "ana")
    Contended.losses = 5
    got = await use(ana, "coin")
    assert got["type"] == "tools" and got["tools"]["recent"][-1]["tool"] == "coin"
    Contended.losses = toolmessages.ATTEMPTS
    refused = await use(ana, "coin")
    assert refused["type"] == "error" and refused["error"] == "busy"
    Contended.losses = 0
    kept = client.app[HUB_KEY].tables[table].tools
    assert [r["tool"] for r in kept.recent] == ["coin"]  # the busy one changed nothing
    assert got["id"] in kept.ids and refused["id"] not in kept.ids


async def test_a_clock_follows_each_turn_once_and_a_pass_by_hand_stays(
    client: Client, clock: Clock
) -> None:
    """issue 17 item 13: every seated phone asks the clock to follow a new turn (its player's
    at once, the others a moment later). The first ask passes it; the later ones, and one
    that comes after a player passed by hand during the turn, change nothing (a phone that
    saw the turn late sent the clock back past the hand's pass: found by a full test run)."""
    _table, (ana, bo) = await seated(client, TWO, "ana", "bo")
    assert (await ana.act({"do": "turn", "player": "ana"}))["type"] == "ack"
    c = (await use(ana, "clock", op="start", seconds=600, first="ana"))["tools"]["clock"]
    assert c["active"] == "ana"
    assert (await bo.act({"do": "turn", "player": "bo"}))["type"] == "ack"
    c = (await use(bo, "clock", op="pass", to="bo", turn=2))["tools"]["clock"]
    assert c["active"] == "bo" and c["turns"] == 1
    c = (await use(ana, "clock", op="pass", to="bo", turn=2))["tools"]["clock"]
    assert c["active"] == "bo" and c["turns"] == 1  # asked again: one pass
    c = (await use(bo, "clock", op="pass"))["tools"]["clock"]  # by hand, during turn 2
    assert c["active"] == "ana" and c["turns"] == 2
    c = (await use(ana, "clock", op="pass", to="bo", turn=2))["tools"]["clock"]
    assert c["active"] == "ana" and c["turns"] == 2  # late: the hand's pass stays
    c = (await use(ana, "clock", op="pass", to="bo", turn=1))["tools"]["clock"]
    assert c["active"] == "ana"  # a turn that is over: nothing
    got = await use(ana, "clock", op="pass", to="bo", turn=0)
    assert got["type"] == "error" and got["member"] == "turn"


async def test_a_reset_restarts_the_clock_once_for_the_game_it_begins(
    client: Client, clock: Clock
) -> None:
    """issue 25 item 10: a reset begins the game again (game 2 of the table), and the chess
    clock (time per game) goes with it: stopped, every side's whole time back, to start with
    the first seat (103.1: a pick made in the game the reset left is not this game's). Every
    phone may ask; it happens once, and never for a game that is not the one in progress."""
    _table, (ana, bo) = await seated(client, TWO, "ana", "bo")
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 3}))["type"] == "ack"
    c = (await use(ana, "clock", op="start", seconds=600, first="bo"))["tools"]["clock"]
    clock.now += 40_000
    got = await use(ana, "clock", op="restart", game=2)
    assert got["tools"]["clock"] == c  # game 1 is still in progress: nothing
    cid = await ana.send("reset")
    assert (await ana.reply(cid))["type"] == "ack"
    c = (await use(bo, "clock", op="restart", game=2))["tools"]["clock"]
    assert c["since"] is None and c["active"] == "ana" and c["game"] == 2 and c["turns"] == 0
    assert {s["id"]: s["left_ms"] for s in c["sides"]} == {"ana": 600_000, "bo": 600_000}
    c = (await use(ana, "clock", op="resume"))["tools"]["clock"]
    clock.now += 5_000
    again = (await use(ana, "clock", op="restart", game=2))["tools"]["clock"]
    assert again == c  # asked again by another phone: once per game
    got = await use(ana, "clock", op="restart", game=0)
    assert got["type"] == "error" and got["member"] == "game"
    got = await use(ana, "clock", op="restart")
    assert got["type"] == "error" and got["member"] == "game"

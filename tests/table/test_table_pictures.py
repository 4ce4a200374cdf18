"""A picture of the game (issue 8): the life graph's series of a game, checked against the
engine replaying the game's record, and the table's statistics (games won, how games ended)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import THG, open_table, phone, seat

from lifeledger.outcome import Reason
from lifeledger.record import parse_action, parse_header
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.store.records import Event
from lifeledger_table.store.sqlite import SQLiteStore
from lifeledger_table.web import pictures
from lifeledger_table.web.pictures import BUCKETS, ENDINGS, POINTS, category, game_series, life_at

Client = TestClient[Any, Any]


async def series(client: Client, table: dict[str, Any], n: int = 1) -> dict[str, Any]:
    res = await client.get(f"/api/tables/{table['id']}/games/{n}/series")
    assert res.status == 200, await res.text()
    data: dict[str, Any] = await res.json()
    return data


async def fresh(client: Client, table: dict[str, Any], n: int = 1) -> dict[str, Any]:
    """Game ``n``'s series made from scratch from the store (the endpoint's current game is
    folded event by event, as they come)."""
    hub = client.app[HUB_KEY]
    loaded = await hub.table(table["id"])
    assert loaded is not None
    return game_series(hub.store, loaded.header, loaded.id, n, loaded.committed)


async def replayed(client: Client, table: dict[str, Any], n: int = 1) -> list[dict[str, Any]]:
    """The engine's own account of game ``n``: its record (the actions in effect), replayed
    with the python API, as each line's total and standing after 0, 1, 2... actions."""
    res = await client.get(f"/api/tables/{table['id']}/games/{n}/record")
    record = json.loads(await res.read())
    game = parse_header(record).new_game()
    frames = [_frame(game)]
    for position, action in enumerate(record["actions"]):
        game.apply(parse_action(action, str(position)))
        frames.append(_frame(game))
    return frames


def _frame(game: Any) -> dict[str, Any]:
    """Each line's total and standing: a team sharing its life (810.9a), or a player."""
    out: dict[str, Any] = {}
    shared = [t for t in game.teams if t.life is not None]
    for team in shared:
        out[team.id] = (team.life, team.result.status.value, team.result.rule)
    heads = {p for t in shared for p in t.players}
    for player in game.players:
        if player.id not in heads:
            out[player.id] = (player.life, player.result.status.value, player.result.rule)
    return out


def check_against_engine(data: dict[str, Any], frames: list[dict[str, Any]]) -> None:
    """Every point of every line is the engine's total after that many actions in effect (an
    undecimated line: at every action); every change of standing is a marker, with its rule."""
    assert data["count"] == len(frames) - 1
    assert [u["id"] for u in data["units"]] == list(frames[0])
    for unit in data["units"]:
        line = unit["points"]
        for x, value in line:
            assert frames[x][unit["id"]][0] == value
        if not data["decimated"]:
            for x, frame in enumerate(frames):
                assert life_at(line, x) == frame[unit["id"]][0]
        assert unit["end"] == frames[-1][unit["id"]][0]
        assert unit["status"] == frames[-1][unit["id"]][1]
    expected = [
        (x, uid, now[1], now[2])
        for x in range(1, len(frames))
        for uid, now in frames[x].items()
        if now[1] != frames[x - 1][uid][1] and now[1] != "playing"
    ]
    found = [(m["x"], m["unit"], m["status"], m["rule"]) for m in data["markers"]]
    assert sorted(found) == sorted(expected)


@pytest.mark.asyncio
async def test_704_5a_series_is_the_engines_replay_without_the_undone_actions(
    client: Client,
) -> None:
    """The series follows the actions in effect: an undone action (and the loss it made) is
    not in it; Bo's loss at 0 life is marked 704.5a, Ana's win 104.2a."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for action in (
        {"do": "lose_life", "player": "bo", "amount": 3},
        {"do": "gain_life", "player": "ana", "amount": 5},
        {"do": "damage", "to": "bo", "amount": 30, "source": "Fireball"},
    ):
        assert (await ana.act(action))["type"] == "ack"
    # The lethal Fireball (event 3) is undone: no loss, no point of it.
    assert (await ana.reply(await ana.send("undo", target=3)))["type"] == "ack"
    data = await series(client, table)
    assert data["count"] == 2 and data["markers"] == []
    for action in (
        {"do": "set_life", "player": "ana", "to": 7},
        {"do": "damage", "to": "bo", "amount": 17, "source": "Lava Axe"},
    ):
        assert (await ana.act(action))["type"] == "ack"
    data = await series(client, table)
    check_against_engine(data, await replayed(client, table))
    assert data == await fresh(client, table)
    bo = data["units"][1]
    assert bo["points"] == [[0, 20], [1, 17], [4, 0]] and bo["status"] == "lost"
    assert bo["rule"] == "704.5a" and bo["reason"] == "life"
    assert {(m["unit"], m["rule"], m["x"]) for m in data["markers"]} == {
        ("bo", "704.5a", 4),
        ("ana", "104.2a", 4),
    }
    assert data["units"][0]["min"] == 7 and data["units"][0]["max"] == 25
    # The spectators' twin answers the same.
    res = await client.get(f"/api/watch/{table['watch']}/games/1/series")
    assert await res.json() == data


@pytest.mark.asyncio
async def test_704_6a_two_headed_giant_draws_one_line_per_team(client: Client) -> None:
    """810.9a: a team's shared total is one line (from 30, 810.9a); the team's loss is marked
    704.6a, not once per head."""
    table = await open_table(client, THG)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for action in (
        {"do": "lose_life", "player": "cy", "amount": 4},
        {"do": "lose_life", "player": "di", "amount": 6},
        {"do": "gain_life", "player": "bo", "amount": 2},
        {"do": "damage", "to": "di", "amount": 20, "source": "Storm"},
    ):
        assert (await ana.act(action))["type"] == "ack"
    data = await series(client, table)
    check_against_engine(data, await replayed(client, table))
    assert [(u["id"], u["kind"], u["label"]) for u in data["units"]] == [
        ("north", "team", "Ana & Bo"),
        ("south", "team", "Cy & Di"),
    ]
    assert data["units"][1]["points"] == [[0, 30], [1, 26], [2, 20], [4, 0]]
    assert [(m["unit"], m["status"], m["rule"], m["life"]) for m in data["markers"]] == [
        ("north", "won", "104.2c", 32),
        ("south", "lost", "704.6a", 0),
    ]


def long_game(db: str, table_id: str, n: int) -> None:
    """``n`` actions written straight to the store: Bo's total goes up and down by 1, with a
    peak of +500 for one action at a third of the game; Ana's dips to 1 for one action at two
    thirds; a lethal hit on Bo ends it."""
    store = SQLiteStore(db)
    now = time.time()
    events = []
    for seq in range(1, n):
        if seq == n // 3:
            action = {"do": "gain_life", "player": "bo", "amount": 500}
        elif seq == n // 3 + 1:
            action = {"do": "lose_life", "player": "bo", "amount": 500}
        elif seq == 2 * n // 3:
            action = {"do": "set_life", "player": "ana", "to": 1}
        elif seq == 2 * n // 3 + 1:
            action = {"do": "set_life", "player": "ana", "to": 20}
        else:
            action = {"do": "gain_life" if seq % 2 else "lose_life", "player": "bo", "amount": 1}
        events.append(Event(table_id, seq, "action", {"action": action}, f"c{seq}", "ana", now))
    events.append(
        Event(
            table_id,
            n,
            "action",
            {"action": {"do": "lose_life", "player": "bo", "amount": 100}},
            f"c{n}",
            "ana",
            now,
        )
    )
    store.append(events)
    store.close()


@pytest.mark.asyncio
async def test_704_5a_a_5000_event_game_stays_small_with_its_extremes_and_its_loss(
    client: Client, db: str
) -> None:
    """A long game's series is decimated (a few hundred points a line), keeping each line's
    highest and lowest point, its ends and the loss (704.5a), every point still exact."""
    table = await open_table(client)
    long_game(db, table["id"], 5000)
    res = await client.get(f"/api/tables/{table['id']}/games/1/series")
    assert res.status == 200
    body = await res.read()
    assert len(body) < 16_000
    data = json.loads(body)
    assert data["count"] == 5000
    frames = await replayed(client, table)
    check_against_engine(data, frames)
    assert data["decimated"] is True
    for unit in data["units"]:
        values = [v for _, v in unit["points"]]
        assert len(unit["points"]) <= 3 * BUCKETS + 2 + len(data["markers"])
        assert len(unit["points"]) <= POINTS + 2 + len(data["markers"])
        assert min(values) == unit["min"] and max(values) == unit["max"]
        assert unit["points"][-1][1] == unit["end"]
    for marker in data["markers"]:
        line = next(u for u in data["units"] if u["id"] == marker["unit"])["points"]
        assert life_at(line, marker["x"]) == marker["life"]
    assert [(m["x"], m["unit"], m["rule"]) for m in data["markers"] if m["status"] == "lost"] == [
        (5000, "bo", "704.5a")
    ]
    ana, bo = data["units"]
    assert (ana["min"], ana["max"], bo["max"]) == (1, 20, max(f["bo"][0] for f in frames))
    assert [1666, bo["max"]] in bo["points"] and [3333, 1] in ana["points"]


@pytest.mark.asyncio
async def test_107_1_a_huge_total_is_exact_in_the_series(client: Client) -> None:
    """107.1: a total may be any integer (the record allows up to 10^1000): the series carries
    it exactly; the page scales it."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    huge = 10**1000
    assert (await ana.act({"do": "set_life", "player": "ana", "to": huge}))["type"] == "ack"
    assert (await ana.act({"do": "set_life", "player": "bo", "to": -huge}))["type"] == "ack"
    data = await series(client, table)
    assert data["units"][0]["points"] == [[0, 20], [1, huge]]
    assert data["units"][1]["end"] == -huge and data["units"][1]["status"] == "lost"


@pytest.mark.asyncio
async def test_a_series_of_no_such_game_is_404(client: Client) -> None:
    table = await open_table(client)
    for bad in ("0", "2", "x", "1e3", "²", "9999999999"):
        res = await client.get(f"/api/tables/{table['id']}/games/{bad}/series")
        assert res.status == 404, bad
    res = await client.get("/api/tables/nope/games/1/series")
    assert res.status == 404
    res = await client.get("/api/watch/nope/stats")
    assert res.status == 404


@pytest.mark.asyncio
async def test_stats_of_a_match_104_3a_704_5a_704_5c_and_a_draw(client: Client) -> None:
    """Games won per side and how each game ended, from the results' reasons and rules: a
    life loss (704.5a), poison (704.5c), a concession (104.3a) end the best-of-three match
    (100.6a: Ana 2-1); the next match's first game is a draw (104.4c)."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    bo = await phone(client, table["id"], await seat(client, table["id"], "bo"))

    async def next_game() -> None:
        assert (await ana.reply(await ana.send("next_game")))["type"] == "ack"

    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 20}))["type"] == "ack"
    await next_game()
    add = {"do": "add_counters", "player": "ana", "kind": "poison", "amount": 10}
    assert (await bo.act(add))["type"] == "ack"
    await next_game()
    assert (await bo.act({"do": "concede", "player": "bo"}))["type"] == "ack"
    res = await client.get(f"/api/tables/{table['id']}/stats")
    data = await res.json()
    assert data["match"]["winner"] == "ana" and data["match"]["wins"] == {"ana": 2, "bo": 1}
    await next_game()
    assert (await ana.act({"do": "draw_game", "source": "Divine Intervention"}))["type"] == "ack"
    res = await client.get(f"/api/tables/{table['id']}/stats")
    assert res.status == 200
    data = await res.json()
    games = data["games"]
    assert [(g["game"], g["match"], g["winners"], g["ended"]) for g in games] == [
        (1, 1, ["ana"], "life"),
        (2, 1, ["bo"], "poison"),
        (3, 1, ["ana"], "concession"),
        (4, 2, [], "draw"),
    ]
    rules = [[(r["side"], r["status"], r["rule"]) for r in g["results"]] for g in games]
    assert rules[0][1] == ("bo", "lost", "704.5a")
    assert rules[1][0] == ("ana", "lost", "704.5c")
    assert rules[2][1] == ("bo", "lost", "104.3a")
    assert rules[3][0][1] == "drew"
    assert data["table"]["wins"] == {"ana": 2, "bo": 1}
    assert data["table"]["ended"] == {"life": 1, "poison": 1, "concession": 1, "draw": 1}
    assert data["table"]["losses"] == {"life": 1, "poison": 1, "concession": 1}
    assert data["table"]["matches"] == {"ana": 1, "bo": 0}
    assert data["match"]["number"] == 2 and data["match"]["games"] == 1
    assert data["match"]["ended"] == {"draw": 1} and data["match"]["winner"] is None
    assert [s["label"] for s in data["sides"]] == ["Ana", "Bo"]
    watched = await (await client.get(f"/api/watch/{table['watch']}/stats")).json()
    assert watched == data
    # The graph of an earlier game stays what it was (Bo's 704.5a in game 1).
    first = await series(client, table, 1)
    assert [(m["unit"], m["rule"]) for m in first["markers"] if m["status"] == "lost"] == [
        ("bo", "704.5a")
    ]
    check_against_engine(first, await replayed(client, table, 1))


@pytest.mark.asyncio
async def test_stats_704_6c_commander_damage_in_a_free_for_all(client: Client) -> None:
    """704.6c: 21 combat damage from one commander; in a game of three, the other loser's
    cause differs (704.5a), so the game ended "mixed", and each loss counts by its cause."""
    form = {
        "variant": "free-for-all",
        "format": "commander",
        "players": [
            {"name": "Ana", "commanders": ["Atraxa"]},
            {"name": "Bo"},
            {"name": "Cy"},
        ],
    }
    table = await open_table(client, form)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    hit = {"do": "damage", "source": "ana-atraxa", "to": "bo", "amount": 21, "combat": True}
    assert (await ana.act(hit))["type"] == "ack"
    assert (await ana.act({"do": "lose_life", "player": "cy", "amount": 40}))["type"] == "ack"
    data = await (await client.get(f"/api/tables/{table['id']}/stats")).json()
    game = data["games"][0]
    assert game["winners"] == ["ana"] and game["ended"] == "mixed"
    causes = {r["side"]: (r["cause"], r["rule"]) for r in game["results"]}
    assert causes["bo"] == ("commander-damage", "704.6c")
    assert causes["cy"] == ("life", "704.5a")
    assert data["table"]["losses"] == {"life": 1, "commander-damage": 1}
    graph = await series(client, table)
    assert ("bo", "704.6c") in {(m["unit"], m["rule"]) for m in graph["markers"]}
    check_against_engine(graph, await replayed(client, table))


@pytest.mark.asyncio
async def test_a_series_made_costs_nothing_more_and_new_ones_are_budgeted(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A series already made (the same game, no new event) is answered again without work or
    budget; making new ones is budgeted per address (429 past it). The current game's series
    follows each new event, undo included, and stays the one made from scratch."""
    monkeypatch.setattr(pictures, "MADE_PER_ADDRESS", 3)
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for _ in range(5):
        assert (await series(client, table))["count"] == 0
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 2}))["type"] == "ack"
    assert (await series(client, table))["units"][1]["end"] == 18
    assert (await ana.reply(await ana.send("undo", target=1)))["type"] == "ack"
    data = await series(client, table)
    assert data["count"] == 0 and data["units"][1]["points"] == [[0, 20]]
    assert data == await fresh(client, table)
    for _ in range(5):  # following the current game costs no budget
        assert (await ana.act({"do": "gain_life", "player": "bo", "amount": 1}))["type"] == "ack"
        assert (await series(client, table))["count"] == ana.seq - 2
    assert (await ana.reply(await ana.send("next_game")))["type"] != "ack"  # not over
    await ana.act({"do": "lose_life", "player": "bo", "amount": 30})
    assert (await ana.reply(await ana.send("next_game")))["type"] == "ack"
    # Budgeted: game 1's first series (above), game 1's once over, from its whole log, game
    # 2's first; following game 2 is free; game 1's made again (none kept) is one too many.
    monkeypatch.setattr(pictures, "CACHED", 0)
    assert [m["rule"] for m in (await series(client, table, 1))["markers"]] == ["104.2a", "704.5a"]
    assert (await series(client, table, 2))["count"] == 0
    await ana.act({"do": "gain_life", "player": "ana", "amount": 1})
    assert (await series(client, table, 2))["count"] == 1
    res = await client.get(f"/api/tables/{table['id']}/games/1/series")
    assert res.status == 429 and (await res.json())["error"] == "throttled"


def test_every_reason_of_the_engine_has_its_cause() -> None:
    """Each reason the engine gives a result (lifeledger.outcome.Reason, each naming its rules)
    is a cause the statistics know, or a result that follows from another side's: 704.5a and
    704.6a are life, 704.5c and 704.6b poison, 704.6c commander damage, 104.3a a concession,
    104.4a/b/i draws; 810.8a, 809.5, 104.3h, 104.2a/c follow from another side's result."""
    assert set(pictures._CAUSES) == {reason.value for reason in Reason}
    for reason in Reason:
        found = category(reason.value)
        assert found is None or found in ENDINGS, reason
    assert category("life") == category("team-life") == "life"
    assert category("poison") == category("team-poison") == "poison"
    assert category("commander-damage") == "commander-damage"
    assert category("conceded") == "concession"
    assert category("teammate") is None and category("last-standing") is None


TWELVE = {"players": [{"name": f"P{i}"} for i in range(12)]}


def thousand_digit_game(db: str, table_id: str, players: list[str], n: int) -> None:
    """``n`` actions written straight to the store, each setting a player's total to a
    number of a thousand digits (107.1: any integer; the record allows up to 10^1000)."""
    store = SQLiteStore(db)
    huge, now = 10**999, time.time()
    events = [
        Event(
            table_id,
            seq,
            "action",
            {"action": {"do": "set_life", "player": players[seq % len(players)], "to": huge + seq}},
            f"c{seq}",
            players[0],
            now,
        )
        for seq in range(1, n + 1)
    ]
    store.append(events)
    store.close()


class JsonSpy:
    """Stands for :mod:`json` in :mod:`.pictures`: records each ``dumps`` call's thread and
    the length of what it wrote."""

    def __init__(self) -> None:
        self.calls: list[tuple[bool, int]] = []

    def dumps(self, obj: Any, **kw: Any) -> str:
        text = json.dumps(obj, **kw)
        self.calls.append((threading.current_thread() is threading.main_thread(), len(text)))
        return text

    loads = staticmethod(json.loads)


@pytest.mark.asyncio
async def test_107_1_a_series_of_thousand_digit_totals_is_written_in_pieces_off_the_loop(
    client: Client, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve lines of thousand-digit totals make a series of megabytes; written by one
    ``json.dumps`` (one call into C, holding the interpreter lock to its end) it held the
    event loop, and every table, for a tenth of a second. It is written off the loop, a point
    at a time (no piece more than a few kB), and reads back as the series made."""
    table = await open_table(client, TWELVE)
    players = [p["id"] for p in table["header"]["players"]]
    thousand_digit_game(db, table["id"], players, 600)
    spy = JsonSpy()
    monkeypatch.setattr(pictures, "json", spy)
    res = await client.get(f"/api/tables/{table['id']}/games/1/series")
    assert res.status == 200
    body = await res.read()
    assert len(body) > 500_000
    assert spy.calls and not any(on_loop for on_loop, _ in spy.calls)
    assert max(size for _, size in spy.calls) < 16_000
    assert len(spy.calls) > 500  # a call a point
    assert json.loads(body) == json.loads(json.dumps(await fresh(client, table)))


@pytest.mark.asyncio
async def test_stats_of_thousands_of_games_are_made_off_the_loop_once_per_event(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table plays game after game (up to 300; a table from before that cap may hold
    thousands): its statistics, a step per game, are made off the event loop, once until the
    next event."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 20}))["type"] == "ack"
    assert (await ana.reply(await ana.send("next_game")))["type"] == "ack"
    loaded = client.app[HUB_KEY].tables[table["id"]]
    loaded.outcomes = loaded.outcomes * 3000  # as if played
    made: list[bool] = []
    tabulate = pictures._tabulate

    def spying(found: Any) -> dict[str, Any]:
        made.append(threading.current_thread() is threading.main_thread())
        return tabulate(found)

    monkeypatch.setattr(pictures, "_tabulate", spying)
    for _ in range(3):
        res = await client.get(f"/api/tables/{table['id']}/stats")
        assert res.status == 200
        assert (await res.json())["table"]["games"] == 3000
    assert made == [False]
    assert (await ana.act({"do": "gain_life", "player": "bo", "amount": 1}))["type"] == "ack"
    res = await client.get(f"/api/watch/{table['watch']}/stats")
    assert res.status == 200 and made == [False, False]


def test_the_series_kept_are_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Series of megabytes (thousand-digit totals) are kept within CACHED_BYTES: the oldest
    go first, and one bigger than the whole budget is not kept at all."""
    monkeypatch.setattr(pictures, "CACHED_BYTES", 1000)
    made = pictures.Made()
    for n in range(5):
        made.keep(("t", n, -1), b"x" * 400)
    assert list(made.series) == [("t", 3, -1), ("t", 4, -1)] and made.size == 800
    made.keep(("t", 4, -1), b"y" * 100)  # made again: counted once
    assert made.size == 500
    made.keep(("t", 9, -1), b"z" * 1001)
    assert ("t", 9, -1) not in made.series and made.size == 500


@pytest.mark.asyncio
async def test_at_most_BUILDS_series_are_made_at_once(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Series asked for together are made BUILDS at a time: a burst of graphs never takes
    every worker thread (the store's writes use the same pool)."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for _ in range(4):
        assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 20}))["type"] == "ack"
        assert (await ana.reply(await ana.send("next_game")))["type"] == "ack"
    busy, peak, lock = 0, 0, threading.Lock()
    real = pictures.game_series

    def slow(*args: Any) -> dict[str, Any]:
        nonlocal busy, peak
        with lock:
            busy += 1
            peak = max(peak, busy)
        time.sleep(0.1)
        with lock:
            busy -= 1
        return real(*args)

    monkeypatch.setattr(pictures, "game_series", slow)
    answers = await asyncio.gather(
        *(client.get(f"/api/tables/{table['id']}/games/{n}/series") for n in (1, 2, 3, 4, 1))
    )
    assert [r.status for r in answers] == [200] * 5
    assert peak == pictures.BUILDS


@pytest.mark.asyncio
async def test_following_the_current_game_has_a_budget_of_its_own(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Following the current game event by event cost no budget at all: a phone acting and
    asking for the graph after every action (30 a second at a table) had the whole game's
    points made each time, without end. It has a budget of its own (FOLLOWED_PER_ADDRESS,
    far above a page's pace), apart from the one for series made from a whole log; past it,
    429 ``throttled``, and nothing changes."""
    monkeypatch.setattr(pictures, "FOLLOWED_PER_ADDRESS", 2)
    monkeypatch.setattr(pictures, "MADE_PER_ADDRESS", 100)
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    assert (await series(client, table))["count"] == 0  # made from the log: the other budget
    for n in range(1, 3):
        assert (await ana.act({"do": "gain_life", "player": "bo", "amount": 1}))["type"] == "ack"
        assert (await series(client, table))["count"] == n
    assert (await ana.act({"do": "gain_life", "player": "bo", "amount": 1}))["type"] == "ack"
    res = await client.get(f"/api/tables/{table['id']}/games/1/series")
    assert res.status == 429 and (await res.json())["error"] == "throttled"
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 3


@pytest.mark.asyncio
async def test_a_series_of_an_odd_game_number_is_404_naming_it_and_costs_no_budget(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Negative, signed, spaced, hexadecimal, fractional, non-ASCII digits, a thousand
    digits, on the table's and the spectator's route: 404 ``unknown-game`` with a message,
    none of them spending the budget for making series (one is made after them all)."""
    monkeypatch.setattr(pictures, "MADE_PER_ADDRESS", 1)
    table = await open_table(client)
    odd = ["-1", "+1", " 1", "1 ", "1.0", "0x1", "١", "01e0", "9" * 1000, "%2D1", "1%00"]
    for base in (f"/api/tables/{table['id']}", f"/api/watch/{table['watch']}"):
        for bad in odd:
            res = await client.get(f"{base}/games/{bad}/series")
            assert res.status == 404, bad
            answer = await res.json()
            assert answer["error"] == "unknown-game" and answer["message"], bad
    assert (await series(client, table))["count"] == 0

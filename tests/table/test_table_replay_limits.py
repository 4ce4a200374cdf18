"""/api/replay is bounded (issue 7 item 7): players, actions and the answer's size, counted as
it is made; a few replays at a time, in worker threads, others answered busy."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
import tracemalloc
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import JSON

from lifeledger_table.decide.errors import TableError
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.workers import replay
from lifeledger_table.workers.replay import MAX_PLAYERS, Replays, replay_json

Client = TestClient[Any, Any]


def record(players: int, actions: int) -> str:
    ids = [f"p{i}" for i in range(players)]
    return json.dumps(
        {
            "record": 1,
            "format": "normal",
            "players": [{"id": pid} for pid in ids],
            "actions": [
                {"do": "lose_life", "player": ids[i % players], "amount": 1} for i in range(actions)
            ],
        }
    )


@pytest.mark.asyncio
async def test_a_record_with_too_many_players_is_refused(client: Client) -> None:
    """issue 7 item 7: 300 players (a 235 MB answer before) is refused at once."""
    res = await client.post("/api/replay", data=record(300, 10), headers=JSON)
    assert res.status == 400
    error = await res.json()
    assert error["error"] == "malformed" and str(MAX_PLAYERS) in error["message"]


@pytest.mark.asyncio
async def test_a_replay_larger_than_the_bound_is_refused_413(client: Client) -> None:
    """issue 7 item 7: past the size bound the answer is 413 with a JSON error."""
    client.app[HUB_KEY].replaying = Replays(max_bytes=200_000)
    res = await client.post("/api/replay", data=record(MAX_PLAYERS, 2000), headers=JSON)
    assert res.status == 413
    assert (await res.json())["error"] == "too-large"
    res = await client.post("/api/replay", data=record(2, 20), headers=JSON)
    assert res.status == 200
    assert len((await res.json())["frames"]) == 21


def test_the_size_bound_is_found_while_the_answer_is_made() -> None:
    """issue 7 item 7: the bound stops the replay as soon as it is passed: memory stays near
    the bound, not the size the whole answer would have had."""
    text = record(MAX_PLAYERS, 3000)
    tracemalloc.start()
    try:
        with pytest.raises(TableError) as refused:
            replay_json(text, max_bytes=300_000)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert refused.value.code == "too-large"
    assert peak < 4_000_000


@pytest.mark.asyncio
async def test_only_a_few_replays_run_at_once(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 7 item 7: while the process's replay slots are taken, another replay waits briefly
    and is then answered 503 busy; tables go on meanwhile (the replay runs in a thread)."""
    # Threads instead of processes, so that the slow stand-in below is what runs.
    workers = concurrent.futures.ThreadPoolExecutor(1)
    client.app[HUB_KEY].replaying = Replays(at_once=1, wait=0.2, executor=workers)
    started, release = threading.Event(), threading.Event()
    real = replay.replay_json

    def slow(text: str, max_bytes: int = replay.MAX_BYTES) -> bytearray:
        started.set()
        release.wait(10)
        return real(text, max_bytes)

    monkeypatch.setattr(replay, "replay_json", slow)
    first = asyncio.ensure_future(client.post("/api/replay", data=record(2, 3), headers=JSON))
    await asyncio.to_thread(started.wait, 10)
    res = await client.post("/api/replay", data=record(2, 3), headers=JSON)
    assert res.status == 503 and (await res.json())["error"] == "busy"
    assert (await client.get("/api/catalogue")).status == 200  # the loop is free
    release.set()
    assert (await first).status == 200


@pytest.mark.asyncio
async def test_a_replay_runs_in_a_worker_process(client: Client) -> None:
    """issue 7 item 7: a replay is computed in a process of its own (in a thread it would hold
    the interpreter's lock, and the tables' changes would wait for it); its answer and its
    refusals cross back whole."""
    res = await client.post("/api/replay", data=record(2, 3), headers=JSON)
    assert res.status == 200
    assert len((await res.json())["frames"]) == 4
    executor = client.app[HUB_KEY].replaying.executor
    assert isinstance(executor, concurrent.futures.ProcessPoolExecutor)
    res = await client.post("/api/replay", data=record(MAX_PLAYERS + 1, 1), headers=JSON)
    assert res.status == 400
    assert (await res.json())["error"] == "malformed"


def test_a_replay_that_takes_too_long_is_given_up_naming_the_action() -> None:
    """Each action is bounded (the engine gives up on triggers that resolve too many times),
    but a record of thousands of slow actions would hold a worker for hours: a replay is given
    up past ``seconds`` (10 s by default), with the action it had reached."""
    with pytest.raises(TableError) as caught:
        replay_json(record(2, 5), seconds=-1.0)
    assert caught.value.code == "too-long"
    assert "at action 0" in str(caught.value.message)
    assert replay_json(record(2, 5))  # within the time, as before


def test_a_replay_s_time_limit_holds_inside_a_repeat() -> None:
    """Issue 21 item 3: the limit was checked between actions, so two 51 KB records of
    ``repeat`` 10^6 × 1,000 actions held both workers past 46 s. The engine keeps the replay's
    deadline inside the shortcut, and bounds its work by what it does: each iteration's
    actions are steps of its budget, so even with no deadline it is given up (malformed,
    member ``do``) after 500,000 of them."""
    import json

    # Iterations whose changes alternate (a gain, then the totals exchanged), so that the
    # shortcut can't be settled at once (issue 19 item 4): each iteration is played.
    busy = [
        {"do": "gain_life", "player": "p0", "amount": 1},
        {"do": "exchange_life", "players": ["p0", "p1"]},
        *[{"do": "lose_life", "player": "p1", "amount": 0}] * 998,
    ]
    text = json.dumps(
        {
            "record": 2,
            "players": [{"id": "p0"}, {"id": "p1"}],
            "actions": [{"do": "repeat", "times": 10**6, "actions": busy}],
        }
    )
    with pytest.raises(TableError) as caught:
        replay_json(text, seconds=0.05)
    assert caught.value.code == "too-long"
    assert "at action 0" in str(caught.value.message)
    with pytest.raises(TableError) as bounded:
        replay_json(text, seconds=3600)
    assert bounded.value.code == "malformed"
    assert "500,000 steps" in str(bounded.value.message)

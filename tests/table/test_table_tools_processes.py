"""A table's tools are decided by its owner (issue 18 item 2): two apps on one PostgreSQL
database, the table owned by the first. A tool message from a phone on the second goes to the
owner on the link, is decided and written there once, and every phone on both sees the new
tools once (the sender's with its acknowledgement); the table's tool budget is one budget
for its phones on both."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import TWO, Phone, open_table, phone, seat, until

from lifeledger_table.decide.limits import Limits
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.postgres import PostgresStore

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
#: No budget but the table's tools' is reached in these tests.
FREE: dict[str, Any] = {
    "rate": 1000.0,
    "burst": 1000.0,
    "table_rate": 1000.0,
    "table_burst": 1000.0,
    "tools_address_rate": 1000.0,
    "tools_address_burst": 1000.0,
}


async def two(
    aiohttp_client: Callable[..., Any], pg_url: str, **limits: Any
) -> tuple[Client, Client]:
    """Two apps on one PostgreSQL database (each its own store, as two processes have)."""
    made = Limits(**{**FREE, **limits})
    a, b = [await aiohttp_client(create_app(PostgresStore(pg_url), made)) for _ in range(2)]
    return a, b


async def seated(a: Client, b: Client) -> tuple[str, Phone, Phone, Phone]:
    """A table opened (and owned) on ``a``: Ana's phone there, Bo's and a spectator's on
    ``b``, which follows the table at ``a``."""
    table = await open_table(a, TWO)
    tid = table["id"]
    ana = await phone(a, tid, await seat(a, tid, "ana"))
    bo = await phone(b, tid, await seat(b, tid, "bo"))
    watcher = await phone(b, table["watch"], watch=True)
    await until(lambda: tid in b.app[HUB_KEY].owners.remote)
    assert tid in a.app[HUB_KEY].owners.mine
    return tid, ana, bo, watcher


async def use(p: Phone, tool: str, cid: str | None = None, **members: Any) -> str:
    p.n += 1
    cid = cid or f"t{id(p)}-{p.n}"
    await p.ws.send_json({"type": "tool", "id": cid, "tool": tool, **members})
    return cid


async def answer(p: Phone, cid: str) -> dict[str, Any]:
    """The answer to tool message ``cid`` (the tools, or an error); any tools before it
    fail the test (each phone sees each change once)."""
    while True:
        msg = await p.recv()
        if msg["type"] in ("tools", "error"):
            assert msg.get("id") == cid, msg
            return msg


async def tools(p: Phone) -> dict[str, Any]:
    """The next tools a phone is sent (not its own acknowledgement)."""
    msg = await p.until("tools")
    assert "id" not in msg
    return msg


async def quiet(*phones: Phone) -> None:
    """Nothing more reaches the phones for a moment (no tools twice)."""
    for p in phones:
        with pytest.raises(TimeoutError):
            await p.ws.receive_json(timeout=0.3)


async def test_a_die_rolled_on_the_follower_is_decided_once_by_the_owner(
    aiohttp_client: Callable[..., Any], pg_url: str
) -> None:
    a, b = await two(aiohttp_client, pg_url)
    tid, ana, bo, watcher = await seated(a, b)
    follower = b.app[HUB_KEY]
    forwarded = follower.owners.forwarded

    def written_here(*_: Any) -> bool:
        raise AssertionError("the follower wrote the tools")

    follower.store.put_tools = written_here  # type: ignore[method-assign]
    cid = await use(bo, "roll", sides=20)
    got = await answer(bo, cid)
    assert got["type"] == "tools", got
    result = got["tools"]["recent"][-1]
    assert result["tool"] == "roll" and result["by"] == "bo"
    for other in (ana, watcher):
        seen = await tools(other)
        assert seen["tools"] == got["tools"] and seen["now"] == got["now"]
    await quiet(ana, bo, watcher)
    assert follower.owners.forwarded == forwarded + 1
    owner = a.app[HUB_KEY]
    assert owner.tables[tid].tools.version == follower.tables[tid].tools.version == 1
    assert not follower.owners.inflight.get(tid)
    # Sent again (the phone did not hear its answer): the tools as they are, nothing rolled.
    await use(bo, "roll", cid=cid, sides=20)
    again = await answer(bo, cid)
    assert again["tools"]["recent"] == got["tools"]["recent"]
    await quiet(ana, watcher)
    # Ana's roll on the owner reaches the follower's phones once too.
    mine = await use(ana, "coin")
    flipped = await answer(ana, mine)
    for other in (bo, watcher):
        assert (await tools(other))["tools"] == flipped["tools"]
    await quiet(ana, bo, watcher)
    assert follower.tables[tid].tools.version == 2
    assert owner.tables[tid].tools.version == 2


async def test_a_clock_started_on_the_follower_runs_the_same_on_both(
    aiohttp_client: Callable[..., Any], pg_url: str
) -> None:
    a, b = await two(aiohttp_client, pg_url)
    tid, ana, bo, watcher = await seated(a, b)
    started = await answer(bo, await use(bo, "clock", op="start", seconds=300, first="bo"))
    clock = started["tools"]["clock"]
    assert clock is not None and clock["active"] == "bo", clock
    for other in (ana, watcher):
        assert (await tools(other))["tools"]["clock"] == clock
    # Passed on the owner: the follower's phones see the same clock.
    passed = await answer(ana, await use(ana, "clock", op="pass", to="ana"))
    assert passed["type"] == "tools", passed
    for other in (bo, watcher):
        assert (await tools(other))["tools"]["clock"] == passed["tools"]["clock"]
    # A phone coming to the follower is shown the clock as the owner runs it.
    late = Phone(await b.ws_connect(f"/ws/t/{tid}"))
    welcome = await late.hello()
    assert welcome["tools"]["clock"]["active"] == passed["tools"]["clock"]["active"] == "ana"
    assert welcome["tools"]["clock"]["sides"] == passed["tools"]["clock"]["sides"]
    await quiet(ana, bo, watcher)


async def test_the_tables_tool_budget_is_one_for_its_phones_on_both_processes(
    aiohttp_client: Callable[..., Any], pg_url: str
) -> None:
    a, b = await two(aiohttp_client, pg_url, tools_burst=3, tools_rate=0.01)
    tid, ana, bo, watcher = await seated(a, b)
    assert (await answer(ana, await use(ana, "coin")))["type"] == "tools"
    await tools(bo)
    # Bo floods from the follower: the two uses left in the table's budget, then refusals
    # from the owner's budget.
    sent = [await use(bo, "coin") for _ in range(4)]
    answers: dict[str, dict[str, Any]] = {}
    while len(answers) < len(sent):  # (a refusal comes at once, a use once written)
        msg = await bo.recv()
        if msg["type"] in ("tools", "error"):
            answers[msg["id"]] = msg
    got = [answers[cid] for cid in sent]
    assert [g["type"] for g in got] == ["tools", "tools", "error", "error"], got
    assert {g["error"] for g in got[2:]} == {"throttled"}
    assert "Too many tool uses" in got[2]["message"]
    # Ana, on the owner, shares the budget Bo spent (and saw his uses once each).
    assert [(await tools(ana))["tools"] for _ in range(2)] == [g["tools"] for g in got[:2]]
    refused = await answer(ana, await use(ana, "coin"))
    assert refused["type"] == "error" and refused["error"] == "throttled"
    assert a.app[HUB_KEY].tables[tid].tools.version == 3
    seen = [(await tools(watcher))["tools"]["recent"][-1]["by"] for _ in range(3)]
    assert seen == ["ana", "bo", "bo"]
    await quiet(watcher)
    await until(lambda: b.app[HUB_KEY].tables[tid].tools.version == 3)


async def test_a_tool_message_in_flight_when_its_owner_stops_is_applied_once(
    aiohttp_client: Callable[..., Any], pg_url: str
) -> None:
    """The owner writes Bo's roll and stops before answering (its leases given up, its links
    closed): the follower sends the roll again to the next owner, itself, which finds it
    written (its id among the tools') and answers Bo with the tools as they are."""
    a, b = await two(aiohttp_client, pg_url)
    tid, _ana, bo, _watcher = await seated(a, b)
    owner, follower = a.app[HUB_KEY], b.app[HUB_KEY]
    stopping: list[asyncio.Task[None]] = []

    def dies(*_: Any) -> None:  # written, and never sent on
        stopping.append(asyncio.get_running_loop().create_task(owner.owners.stop()))

    owner.subscribers.tools_sent[:] = [dies]
    cid = await use(bo, "roll", sides=6)
    got = await bo.until("tools")
    while got.get("id") != cid:  # (the tools read as the follower takes the table over)
        assert got["tools"]["recent"][-1]["by"] == "bo"
        got = await bo.until("tools")
    assert [r["by"] for r in got["tools"]["recent"]] == ["bo"]
    await asyncio.gather(*stopping)
    assert tid in follower.owners.mine and not follower.owners.inflight.get(tid)
    assert follower.owners.taken_over == 1
    assert follower.store.tools(tid)[0] == 1
    # The new owner decides the next tool message.
    nxt = await answer(bo, await use(bo, "coin"))
    assert [r["by"] for r in nxt["tools"]["recent"]] == ["bo", "bo"]

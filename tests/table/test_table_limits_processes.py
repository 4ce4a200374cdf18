"""A table's limits hold for the whole table, whichever process its phones are on (issue 18
item 2): two apps on one PostgreSQL database, the table owned by the first. A seat's sockets
on both together are capped at ``sockets_per_seat``, the spectators and visitors of both at
``watchers_per_table``, and the changes sent from phones on both spend one budget, the
owner's."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import WSCloseCode
from aiohttp.test_utils import TestClient
from table_helpers import TWO, Phone, open_table, phone, seat, until

from lifeledger_table.decide.limits import Limits, SocketGate
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.postgres import PostgresStore
from lifeledger_table.web.protocol import GATE_KEY

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
#: No budget of a socket or an address is reached in these tests.
FREE = {"rate": 1000.0, "burst": 1000.0, "address_rate": 1000.0, "address_burst": 1000.0}


@pytest_asyncio.fixture
async def apps(
    aiohttp_client: Callable[..., Any], pg_url: str, limits: Limits
) -> AsyncIterator[list[Client]]:
    """Two apps on one PostgreSQL database (each its own store, as two processes have)."""
    yield [await aiohttp_client(create_app(PostgresStore(pg_url), limits)) for _ in range(2)]


async def refused(client: Client, path: str) -> dict[str, Any]:
    """A socket turned away as it opens: its one message, the error."""
    ws = await client.ws_connect(path)
    got: dict[str, Any] = await ws.receive_json(timeout=10)
    assert got["type"] == "error" and got["error"] == "too-many-sockets", got
    await ws.receive(timeout=10)
    assert ws.close_code == WSCloseCode.TRY_AGAIN_LATER
    return got


def gates(*clients: Client) -> list[SocketGate]:
    return [c.app[GATE_KEY] for c in clients]


@pytest.mark.parametrize("limits", [Limits(sockets_per_seat=2, **FREE)])
async def test_a_seats_sockets_on_two_processes_are_capped_together(apps: list[Client]) -> None:
    """Ana's seat has a socket on each process: a third is refused on either (as it opens,
    or as its hello names the token); once one closes, the other process lets one in."""
    a, b = apps
    table = await open_table(a, TWO)
    tid = table["id"]
    token = await seat(a, tid, "ana")
    on_a, on_b = await phone(a, tid, token), await phone(b, tid, token)
    await until(lambda: tid in b.app[HUB_KEY].owners.remote)  # followed at the owner
    assert tid in a.app[HUB_KEY].owners.mine
    here, there = gates(a, b)
    await until(lambda: here.held(tid, "ana") == there.held(tid, "ana") == 2)
    for client in (a, b):
        got = await refused(client, f"/ws/t/{tid}?token={token}")
        assert "At most 2 connections for one seat." in got["message"]
        late = Phone(await client.ws_connect(f"/ws/t/{tid}"))  # a visitor, then its token
        await late.ws.send_json({"type": "hello", "token": token})
        error = await late.until("error")
        assert error["error"] == "too-many-sockets" and error["seats"] == ["ana"]
        assert (await late.until("welcome"))["seats"] == []
        await late.ws.close()
    assert here.counts(tid) == {"ana": 1} and there.counts(tid) == {"ana": 1}
    await on_b.ws.close()  # a place for Ana on the owner now
    await until(lambda: here.held(tid, "ana") == 1)
    again = await phone(a, tid, token)
    assert (await again.act({"do": "lose_life", "player": "ana", "amount": 1}))["type"] == "ack"
    await until(lambda: there.held(tid, "ana") == 2)
    await refused(b, f"/ws/t/{tid}?token={token}")
    await on_a.ws.close()


@pytest.mark.parametrize("limits", [Limits(watchers_per_table=2, **FREE)])
async def test_the_spectators_on_two_processes_are_capped_together(apps: list[Client]) -> None:
    """A spectator on each process: a third is refused on either; players still get in; a
    process that stops following the table (its link closed) is no longer counted."""
    a, b = apps
    table = await open_table(a, TWO)
    tid = table["id"]
    watching = [await phone(a, table["watch"], watch=True), await phone(b, tid)]
    here, there = gates(a, b)
    await until(lambda: here.held(tid) == there.held(tid) == 2)
    for client in (a, b):
        got = await refused(client, f"/ws/w/{table['watch']}")
        assert "spectators and visitors" in got["message"]
        await refused(client, f"/ws/t/{tid}")  # a visitor counts among them
    bo = await phone(b, tid, await seat(b, tid, "bo"))  # a player gets in
    assert (await bo.act({"do": "gain_life", "player": "bo", "amount": 1}))["type"] == "ack"
    await watching[1].ws.close()
    await until(lambda: here.held(tid) == 1)
    await phone(a, table["watch"], watch=True)
    await until(lambda: there.held(tid) == 2)
    await refused(b, f"/ws/w/{table['watch']}")
    # The follower's link closes: the owner drops what it told; the follower, following the
    # table again on a new link, tells it anew (counted once, not once a link).
    owners = a.app[HUB_KEY].owners
    (old,) = owners.followers[tid]
    await old.ws.close()
    await until(lambda: bool(owners.followers.get(tid)) and owners.followers[tid] != {old})
    await until(lambda: here.held(tid) == there.held(tid) == 2)
    assert list(owners.counts.reported[tid]) == list(owners.followers[tid])
    await refused(a, f"/ws/w/{table['watch']}")


@pytest.mark.parametrize(
    "limits", [Limits(table_rate=0.001, table_burst=10, sockets_per_seat=4, **FREE)]
)
async def test_a_tables_changes_from_two_processes_spend_one_budget(apps: list[Client]) -> None:
    """The table's budget is 10 messages (hardly given back). Ana's phone is on the owner,
    Bo's on the other process. Bo's changes spend the owner's budget, as Ana's do: once it is
    spent, Bo's are refused ``throttled`` by the owner, through the link, and so are Ana's;
    the table took 10 changes in all, not 10 on each process."""
    a, b = apps
    table = await open_table(a, TWO)
    tid = table["id"]
    ana = await phone(a, tid, await seat(a, tid, "ana"))
    bo = await phone(b, tid, await seat(b, tid, "bo"))
    owner, other = a.app[HUB_KEY], b.app[HUB_KEY]
    await until(lambda: tid in other.owners.remote)
    assert tid in owner.owners.mine

    async def send(p: Phone, n: int) -> list[str]:
        """Send ``n`` changes at once: their answers, in the order sent (a refusal comes at
        once, an acknowledgement once written: it may come first)."""
        cids = [
            await p.send("action", {"do": "lose_life", "player": "bo", "amount": 1})
            for _ in range(n)
        ]
        answers: dict[str, str] = {}
        while len(answers) < n:
            msg = await p.recv()
            if msg.get("id") in cids and msg["type"] in ("event", "error"):
                answers[msg["id"]] = msg.get("error") or "ack"
        return [answers[cid] for cid in cids]

    assert await send(bo, 6) == ["ack"] * 6  # forwarded: 6 of the owner's 10 spent
    assert await send(ana, 2) == ["ack"] * 2
    # Bo's process, 6 of its phones' messages counted, lets these 3 go; the owner, 8 of the
    # table's spent, takes 2.
    assert await send(bo, 3) == ["ack", "ack", "throttled"]
    assert await send(ana, 1) == ["throttled"]
    refusal = await bo.reply(await bo.send("action", {"do": "concede", "player": "bo"}))
    assert refusal["error"] == "throttled" and "slow down" in refusal["message"]
    assert other.owners.forwarded == 10 and owner.owners.forwarded == 0
    assert [e.seq for e in owner.store.events(tid)] == list(range(1, 11))

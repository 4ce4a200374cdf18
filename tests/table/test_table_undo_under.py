"""Issue 25 item 4, the server's side: a seat takes back its own last change even when other
seats' changes came after it. In the log it is the later changes taken back (newest first),
its own, and the later ones made again as they were (each still its seat's): every reader of
the log (records, a restart, the history) reads plain undos and actions. The engine works the
later changes out again first: one it now refuses refuses the undo, naming it and the rule; one
that now does something else is named, with how, and the undo waits for ``"confirm": true``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import Phone, SharedStore, open_table, phone, seat

from lifeledger_table.decide.limits import Limits
from lifeledger_table.decide.table import Table
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.sqlite import SQLiteStore

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], "starting_life": 40}


def lose(player: str, amount: int) -> dict[str, Any]:
    return {"do": "lose_life", "player": player, "amount": amount}


async def seated(client: Client) -> tuple[str, Phone, Phone, Phone]:
    table = (await open_table(client, THREE))["id"]
    phones = [await phone(client, table, await seat(client, table, p)) for p in ("ana", "bo", "cy")]
    return table, phones[0], phones[1], phones[2]


async def undo(p: Phone, target: int, confirm: bool | None = None) -> dict[str, Any]:
    p.n += 1
    cid = f"u{id(p)}-{p.n}"
    msg: dict[str, Any] = {"type": "undo", "id": cid, "target": target}
    if confirm is not None:
        msg["confirm"] = confirm
    await p.ws.send_str(json.dumps(msg))
    return await p.reply(cid)


async def life(client: Client, table: str, player: str) -> int:
    state = (await (await client.get(f"/api/tables/{table}")).json())["state"]
    value: int = next(p["life"] for p in state["players"] if p["id"] == player)
    return value


async def test_a_seat_takes_back_its_own_change_under_later_ones(client: Client, db: str) -> None:
    table, ana, bo, cy = await seated(client)
    assert (await ana.act(lose("cy", 3)))["type"] == "ack"  # event 1
    assert (await bo.act(lose("cy", 2)))["type"] == "ack"  # event 2
    assert (await cy.act(lose("cy", 1)))["type"] == "ack"  # event 3
    data = await (await client.get(f"/api/tables/{table}")).json()
    assert data["undo_target"] == 3
    assert data["undo_own"] == {"ana": 1, "bo": 2, "cy": 3}
    reply = await undo(ana, 1)
    assert reply["type"] == "ack" and reply["seq"] == 8, reply
    assert await life(client, table, "cy") == 37  # 40 − 2 − 1: Ana's −3 is gone
    data = await (await client.get(f"/api/tables/{table}")).json()
    entries = data["entries"]
    assert [(e["kind"], e["seat"], e["target"]) for e in entries[3:]] == [
        ("undo", "ana", 3),
        ("undo", "ana", 2),
        ("undo", "ana", 1),
        ("action", "bo", None),
        ("action", "cy", None),
    ]
    assert data["undo_own"] == {"bo": 7, "cy": 8}  # Ana has no change in effect now
    assert data["undo_target"] == 8
    record = await (await client.get(f"/api/tables/{table}/games/1/record")).json()
    assert record["actions"] == [lose("cy", 2), lose("cy", 1)]
    # The log loads as it was decided (a restart).
    loaded = Table(SQLiteStore(db), table)
    assert next(p["life"] for p in loaded.state["players"] if p["id"] == "cy") == 37
    assert loaded.undo_target() == 8


async def test_only_a_seats_own_last_change_is_taken_back_under_later_ones(
    client: Client,
) -> None:
    table, ana, bo, cy = await seated(client)
    assert (await ana.act(lose("cy", 3)))["type"] == "ack"  # event 1
    assert (await ana.act(lose("bo", 1)))["type"] == "ack"  # event 2: Ana's last
    assert (await bo.act(lose("cy", 2)))["type"] == "ack"  # event 3
    reply = await undo(ana, 1)
    assert reply["error"] == "not-last" and "event 2 came after it" in reply["message"]
    reply = await undo(cy, 2)  # Ana's change, not Cy's: refused, not asked
    assert reply["error"] == "not-last" and "only its own last change" in reply["message"]
    assert await life(client, table, "cy") == 35
    assert (await undo(ana, 2))["type"] == "ack"
    assert await life(client, table, "bo") == 40


@pytest.mark.rule("704.5a")
async def test_a_later_change_that_would_do_something_else_is_named_first(
    client: Client,
) -> None:
    """704.5a: with Ana's −38 Bo's −2 made Cy lose; without it, it doesn't. The undo is
    refused naming Bo's change and how it would change, then taken back when confirmed."""
    table, ana, bo, _cy = await seated(client)
    assert (await ana.act(lose("cy", 38)))["type"] == "ack"  # event 1: Cy at 2
    assert (await bo.act(lose("cy", 2)))["type"] == "ack"  # event 2: Cy at 0, loses
    reply = await undo(ana, 1)
    assert reply["error"] == "undo-changes-later", reply
    assert "Bo's change (event 2)" in reply["message"] and "status" in reply["message"]
    assert await life(client, table, "cy") == 0  # nothing changed
    reply = await undo(ana, 1, confirm=True)
    assert reply["type"] == "ack", reply
    assert await life(client, table, "cy") == 38
    state = (await (await client.get(f"/api/tables/{table}")).json())["state"]
    assert next(p["status"] for p in state["players"] if p["id"] == "cy") == "playing"


@pytest.mark.rule("119.4")
async def test_a_later_change_the_rules_now_refuse_refuses_the_undo(client: Client) -> None:
    """119.4: Cy paid 45 life after Ana gave her 10; without Ana's 10 she has 40, and can't pay
    45: the undo is refused, naming Cy's change and the rule, and nothing changes."""
    table, ana, _bo, cy = await seated(client)
    assert (await ana.act({"do": "gain_life", "player": "cy", "amount": 10}))["type"] == "ack"
    assert (await cy.act({"do": "pay_life", "player": "cy", "amount": 45}))["type"] == "ack"
    reply = await undo(ana, 1, confirm=True)
    assert reply["error"] == "refused", reply
    assert "Cy's later change (event 2) refused" in reply["message"]
    assert reply["rule"] == "119.4"
    assert await life(client, table, "cy") == 5


async def test_another_servers_write_first_decides_it_again_as_one(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """Two servers on one store (issue 10): Ana's undo of her change under Bo's is decided
    on hers while Bo's next change is written on his first. The undo's changes are decided
    again as the one request they were, against the log as it now is (Bo's two changes made
    again, each once), not one by one."""
    peers: list[SharedStore] = []
    path = str(tmp_path / "shared.db")
    fast = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)
    a, b = [await aiohttp_client(create_app(SharedStore(path, peers), fast)) for _ in range(2)]
    table = (await open_table(a, THREE))["id"]
    ana = await phone(a, table, await seat(a, table, "ana"))
    bo = await phone(b, table, await seat(b, table, "bo"))
    assert (await ana.act(lose("cy", 3)))["type"] == "ack"  # event 1
    assert (await bo.act(lose("cy", 2)))["type"] == "ack"  # event 2
    while a.app[HUB_KEY].tables[table].last_seq < 2:
        await asyncio.sleep(0.02)
    writer = a.app[HUB_KEY].writer
    gate = asyncio.Event()
    append = writer._append

    async def held(batch: Any) -> Any:
        await gate.wait()
        return await append(batch)

    writer._append = held  # type: ignore[method-assign]
    ana.n += 1
    await ana.ws.send_str(json.dumps({"type": "undo", "id": "own-1", "target": 1}))
    while not a.app[HUB_KEY].tables[table].pending:
        await asyncio.sleep(0.02)
    assert (await bo.act(lose("cy", 1)))["type"] == "ack"  # event 3, written first
    gate.set()
    reply = await ana.reply("own-1")
    assert reply["type"] == "ack" and reply["seq"] == 8, reply
    assert writer.conflicts == 1
    events = a.app[HUB_KEY].store.events(table)
    assert [(e.kind, e.seat) for e in events[3:]] == [
        ("undo", "ana"),
        ("undo", "ana"),
        ("undo", "ana"),
        ("action", "bo"),
        ("action", "bo"),
    ]
    assert await life(a, table, "cy") == 37  # 40 − 2 − 1

"""Issue 26 items 4 and 9 (first part): whose change an undo takes back is decided where the
change is decided. With several processes on one store, the table's owner checks an undo a
phone on another process sent when it decides it (that process's copy may not hold the change
yet): another seat's change is put to that seat as a question (docs/table.md, "Undo": a seat's
Undo takes back its own change; another seat's is asked of that seat or the host), never taken
back unasked. An undo's ``"target"`` is a sequence number, an integer: ``1.0`` or ``true`` is
refused ``malformed`` at once, before anyone is asked."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import test_table_undo_processes
from table_helpers import open_table, phone, seat
from test_table_undo_processes import (
    BO_TAKES_7_FROM_CY,
    Client,
    answer,
    collect,
    hub,
    life,
    opened,
    seated,
    until_heard,
)

from lifeledger_table.decide.table import Decision, Table
from lifeledger_table.live.sockets import Sender
from lifeledger_table.live.undoasks import UNDO_ASKS_KEY

pytestmark = pytest.mark.asyncio

#: Two apps on one PostgreSQL database (the fixture of test_table_undo_processes).
apps = test_table_undo_processes.apps

THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], "starting_life": 40}


async def followed(owner: Client, table: str) -> None:
    """The other process follows the table at its owner (it is sent every event from now)."""
    async with asyncio.timeout(10):
        while not hub(owner).owners.followers.get(table):
            await asyncio.sleep(0.01)


@pytest.mark.parametrize("target", [1.0, True, "1"])
async def test_an_undo_target_that_is_no_integer_is_refused_at_once(
    client: Client, target: Any
) -> None:
    """Bo's undo of Ana's change 1 naming ``"target": 1.0`` (or ``true``, or ``"1"``) is
    refused ``malformed`` naming "target"; Ana is asked nothing and nothing changes."""
    table = await open_table(client, THREE)
    tid = table["id"]
    ana = await phone(client, tid, await seat(client, tid, "ana"))
    bo = await phone(client, tid, await seat(client, tid, "bo"))
    assert (await ana.act({"do": "lose_life", "player": "cy", "amount": 7}))["type"] == "ack"
    await bo.ws.send_str(json.dumps({"type": "undo", "id": "u1", "target": target}))
    refused = await bo.until("error")
    assert refused["id"] == "u1" and refused["error"] == "malformed"
    assert refused["member"] == "target" and '"target" is its sequence number' in refused["message"]
    assert not client.app[UNDO_ASKS_KEY].asks
    await ana.ws.send_json({"type": "ping"})
    while (msg := await ana.recv())["type"] != "pong":
        assert msg["type"] != "undo_request"
    data: dict[str, Any] = await (await client.get(f"/api/tables/{tid}")).json()
    assert data["seq"] == 1 and life(data, "cy") == 33


async def test_the_owner_asks_before_undoing_another_seats_change_the_follower_lacked(
    apps: list[Client],
) -> None:
    """Process 1 owns the table; Bo's phone is on it, Ana's on process 2. Bo takes 7 from Cy,
    and before process 2 has heard of it Ana sends an undo naming it (sequence number 1): her
    process's copy holds no change 1, so it asks nobody and sends the undo on. The owner,
    deciding it, finds Bo's change: it is put to Bo as a question (Ana is told it was asked),
    and taken back, as Ana's noting Bo allowed it, only once Bo says yes."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    bo = await seated(a, tid, "bo")
    ana = await seated(b, tid, "ana")
    await until_heard(b, tid, "bo")
    await followed(a, tid)
    # The owner holds back what it sends process 2 of this table until told.
    held: list[tuple[Table, Decision, Sender]] = []
    written = hub(a).subscribers.written  # the owner's relay to the followers
    (relay,) = written
    written[:] = [lambda table, decision, sender: held.append((table, decision, sender))]
    assert (await bo.act(BO_TAKES_7_FROM_CY))["type"] == "ack"
    cid = await ana.send("undo", target=1)
    async with asyncio.timeout(10):  # the owner checked, and sent the undo back to be asked
        while not hub(b).owners.copies.awaited.get(tid):
            await asyncio.sleep(0.01)
    assert [e.kind for e in hub(a).store.events(tid)] == ["action"]  # nothing taken back
    written[:] = [relay]
    for each in held:
        relay(*each)
    asked = await ana.until("undo_asked")
    assert asked["id"] == cid and asked["target"] == 1 and asked["owner"] == "bo"
    question = await bo.until("undo_request")
    assert question["request"] == asked["request"] and question["seat"] == "ana"
    assert question["action"] == BO_TAKES_7_FROM_CY
    assert [e.kind for e in hub(a).store.events(tid)] == ["action"]
    await answer(bo, question, True)
    undo = (await collect(ana, "undo"))["undo"]
    assert undo["id"] == cid and undo["entry"]["seat"] == "ana"
    assert undo["entry"]["allowed"] == "bo" and life(undo, "cy") == 40
    events = hub(a).store.events(tid)
    assert [e.kind for e in events] == ["action", "undo"]


async def test_a_refused_question_the_owner_put_takes_nothing_back(apps: list[Client]) -> None:
    """As above, Bo refuses: nothing is taken back, and Ana is told Bo refused."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    bo = await seated(a, tid, "bo")
    ana = await seated(b, tid, "ana")
    await until_heard(b, tid, "bo")
    await followed(a, tid)
    held: list[tuple[Table, Decision, Sender]] = []
    written = hub(a).subscribers.written  # the owner's relay to the followers
    (relay,) = written
    written[:] = [lambda table, decision, sender: held.append((table, decision, sender))]
    await bo.act(BO_TAKES_7_FROM_CY)
    await ana.send("undo", target=1)
    async with asyncio.timeout(10):
        while not hub(b).owners.copies.awaited.get(tid):
            await asyncio.sleep(0.01)
    written[:] = [relay]
    for each in held:
        relay(*each)
    question = await bo.until("undo_request")
    await answer(bo, question, False)
    closed = await ana.until("undo_closed")
    assert closed["status"] == "refused" and closed["message"] == "Bo refused."
    assert [e.kind for e in hub(a).store.events(tid)] == ["action"]


async def test_a_seats_own_change_forwarded_is_taken_back_at_once(apps: list[Client]) -> None:
    """The owner's check asks nobody about a seat's own change: Ana (on process 2) undoes her
    own, which the owner applies at once."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    ana = await seated(b, tid, "ana")
    assert (await ana.act({"do": "lose_life", "player": "cy", "amount": 3}))["type"] == "ack"
    reply = await ana.reply(await ana.send("undo", target=1))
    assert reply["type"] == "ack" and reply["seq"] == 2
    undo = await ana.until("event")
    assert undo["entry"]["kind"] == "undo" and "allowed" not in undo["entry"]
    assert [e.kind for e in hub(a).store.events(tid)] == ["action", "undo"]

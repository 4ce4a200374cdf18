"""Issue 17 items 10 and 11, the server's side: a seat's Undo takes back that seat's own change;
another seat's change is put as a question to that seat's device (or the host), and the first
answer decides; a seat's own change under a later one is refused, naming the later one; the
history says what sent each change (a table device's: "table")."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import Phone, open_table, phone, seat

from lifeledger_table.live import undoasks

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], "starting_life": 40}
ANA_TAKES_7_FROM_CY = {"do": "lose_life", "player": "cy", "amount": 7}


def life(view: dict[str, Any], player: str) -> Any:
    return next(p for p in view["state"]["players"] if p["id"] == player)["life"]


async def state(client: Client, table: str) -> dict[str, Any]:
    data: dict[str, Any] = await (await client.get(f"/api/tables/{table}")).json()
    return data


async def three(client: Client) -> tuple[dict[str, Any], Phone, Phone, Phone]:
    table = await open_table(client, THREE)
    tid = table["id"]
    phones = [await phone(client, tid, await seat(client, tid, p)) for p in ("ana", "bo", "cy")]
    return table, phones[0], phones[1], phones[2]


async def undo_event(p: Phone) -> dict[str, Any]:
    """The next undo event the phone gets (the events before it are applied and skipped)."""
    while True:
        event = await p.until("event")
        if event["entry"]["kind"] == "undo":
            return event


async def host_phone(client: Client, table: dict[str, Any], player: str) -> Phone:
    """A phone holding ``player``'s seat that says hello with the table's host token."""
    token = await seat(client, table["id"], player, takeover=True, host=table["host"])
    p = Phone(await client.ws_connect(f"/ws/t/{table['id']}?token={token}"))
    await p.ws.send_json({"type": "hello", "token": token, "since": 0, "host": table["host"]})
    await p.until("welcome")
    return p


async def test_undo_of_another_seats_change_asks_that_seat_and_its_yes_takes_it_back(
    client: Client,
) -> None:
    """Ana takes 7 from Cy; Bo's Undo takes nothing back by itself: Ana's phone is asked,
    naming the change, and her yes takes it back on every phone, noting who allowed it."""
    table, ana, bo, cy = await three(client)
    assert (await ana.act(ANA_TAKES_7_FROM_CY))["type"] == "ack"
    cid = await bo.send("undo", target=1)
    asked = await bo.until("undo_asked")
    assert asked["id"] == cid and asked["target"] == 1 and asked["owner"] == "ana"
    assert "Ana's change" in asked["message"]
    question = await ana.until("undo_request")
    assert question["target"] == 1 and question["seat"] == "bo" and question["owner"] == "ana"
    assert question["action"] == ANA_TAKES_7_FROM_CY and question["by"] == "Ana"
    assert life(await state(client, table["id"]), "cy") == 33  # nothing happened yet
    await ana.ws.send_json({"type": "undo_answer", "request": question["request"], "allow": True})
    event = await undo_event(bo)
    assert event["id"] == cid  # Bo's undo, acknowledged
    assert event["entry"]["kind"] == "undo" and event["entry"]["seat"] == "bo"
    assert event["entry"]["target"] == 1 and event["entry"]["allowed"] == "ana"
    for p in (ana, cy):
        assert life(await undo_event(p), "cy") == 40
    assert life(await state(client, table["id"]), "cy") == 40


async def test_a_refused_or_unanswered_question_takes_nothing_back(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, ana, bo, _cy = await three(client)
    await ana.act(ANA_TAKES_7_FROM_CY)
    await bo.send("undo", target=1)
    question = await ana.until("undo_request")
    await ana.ws.send_json({"type": "undo_answer", "request": question["request"], "allow": False})
    closed = await bo.until("undo_closed")
    assert closed["status"] == "refused" and "Ana refused" in closed["message"]
    assert (await ana.until("undo_closed"))["status"] == "refused"
    # An answer after the question is over is turned down, and changes nothing.
    await ana.ws.send_json({"type": "undo_answer", "request": question["request"], "allow": True})
    assert (await ana.until("error"))["error"] == "unknown-request"
    monkeypatch.setattr(undoasks, "ASK_SECONDS", 0.05)
    await bo.send("undo", target=1)
    await ana.until("undo_request")
    assert (await bo.until("undo_closed"))["status"] == "expired"
    data = await state(client, table["id"])
    assert life(data, "cy") == 33 and data["seq"] == 1 and data["undo_target"] == 1


async def test_a_question_about_a_change_no_longer_last_is_over(client: Client) -> None:
    """Bo asks to take back Ana's change; Cy changes something meanwhile: the question is over
    (Ana's yes would now take back Cy's change), and Bo and Ana are told."""
    _table, ana, bo, cy = await three(client)
    await ana.act(ANA_TAKES_7_FROM_CY)
    await bo.send("undo", target=1)
    question = await ana.until("undo_request")
    await cy.act({"do": "gain_life", "player": "cy", "amount": 1})
    closed = await bo.until("undo_closed")
    assert closed["status"] == "stale" and closed["request"] == question["request"]
    assert (await ana.until("undo_closed"))["status"] == "stale"


async def test_a_seats_own_change_is_taken_back_at_once(client: Client) -> None:
    table, ana, bo, _cy = await three(client)
    await ana.act(ANA_TAKES_7_FROM_CY)
    await bo.act({"do": "gain_life", "player": "bo", "amount": 3})
    reply = await bo.reply(await bo.send("undo", target=2))
    assert reply["type"] == "ack"
    entry = (await state(client, table["id"]))["entries"][-1]
    assert entry["kind"] == "undo" and entry["seat"] == "bo" and "allowed" not in entry


async def test_a_seats_own_change_under_a_later_one_is_taken_back_and_the_rest_replayed(
    client: Client,
) -> None:
    """Issue 25 item 4 (it was refused before: issue 17 item 10): Bo's last change is no longer
    the table's last, and Bo takes it back all the same, nobody asked: Ana's change is made
    again as it was, still hers (docs/table.md "Whose undo")."""
    table, ana, bo, _cy = await three(client)
    await bo.act({"do": "gain_life", "player": "bo", "amount": 3})
    await ana.act(ANA_TAKES_7_FROM_CY)
    reply = await bo.reply(await bo.send("undo", target=1))
    assert reply["type"] == "ack", reply
    data = await state(client, table["id"])
    assert life(data, "bo") == 40 and life(data, "cy") == 33
    assert data["entries"][-1]["seat"] == "ana" and data["undo_own"] == {"ana": 5}


async def test_nobody_to_ask_is_said_and_the_host_decides_alone(client: Client) -> None:
    """Ana's phone is gone and no host is connected: Bo is told so. The host's own Undo of a
    change whose seat has no device connected takes it back at once, noting the host."""
    table, ana, bo, _cy = await three(client)
    await ana.act(ANA_TAKES_7_FROM_CY)
    await ana.ws.close()
    await asyncio.sleep(0.05)
    refused = await bo.reply(await bo.send("undo", target=1))
    assert refused["error"] == "not-yours" and "Neither Ana's device" in refused["message"]
    host = await host_phone(client, table, "cy")
    cid = await host.send("undo", target=1)
    assert (await host.reply(cid))["type"] == "ack"
    data = await state(client, table["id"])
    assert life(data, "cy") == 40 and data["entries"][-1]["allowed"] == "host"


async def test_the_host_is_asked_too_and_may_allow(client: Client) -> None:
    table, ana, bo, _ = await three(client)
    await ana.act(ANA_TAKES_7_FROM_CY)
    host = await host_phone(client, table, "cy")
    cid = await bo.send("undo", target=1)
    question = await host.until("undo_request")
    assert (await ana.until("undo_request"))["request"] == question["request"]
    await host.ws.send_json({"type": "undo_answer", "request": question["request"], "allow": True})
    event = await undo_event(bo)
    assert event["id"] == cid and event["entry"]["allowed"] == "host"
    assert (await ana.until("undo_closed"))["status"] == "allowed"


async def test_a_table_devices_change_is_logged_as_the_tables_and_undone_by_it(
    client: Client,
) -> None:
    """item 11: a tablet's tap on Cy's panel (Cy on her own phone) is sent as a seat the device
    holds; the history says the table sent it, not that seat's player. The device takes its
    own change back at once, whichever held seat it names; Cy's phone asks it."""
    table = await open_table(client, THREE)
    tid = table["id"]
    res = await client.post(f"/api/tables/{tid}/seats", json={"seats": ["ana", "bo"]})
    tokens = (await res.json())["tokens"]
    query = "&".join(f"token={t}" for t in tokens.values())
    dev = Phone(await client.ws_connect(f"/ws/t/{tid}?{query}&device=table"))
    hello = {"type": "hello", "tokens": list(tokens.values()), "since": 0, "device": "table"}
    await dev.ws.send_json(hello)
    await dev.until("welcome")
    cy = await phone(client, tid, await seat(client, tid, "cy"))

    async def device_sends(kind: str, **members: Any) -> dict[str, Any]:
        dev.n += 1
        cid = f"dev-{dev.n}"
        await dev.ws.send_str(json.dumps({"type": kind, "id": cid, **members}))
        return await dev.reply(cid)

    action = {"do": "lose_life", "player": "cy", "amount": 1}
    assert (await device_sends("action", action=action, **{"as": "ana"}))["type"] == "ack"
    await cy.act({"do": "gain_life", "player": "cy", "amount": 2})
    entries = (await state(client, tid))["entries"]
    assert entries[0]["seat"] == "ana" and entries[0]["device"] == "table"
    assert "device" not in entries[1]  # Cy's own phone
    # Cy takes back her own change; then the table's is on top: Cy's Undo asks the device.
    assert (await cy.reply(await cy.send("undo", target=2)))["type"] == "ack"
    await cy.send("undo", target=1)
    asked = await cy.until("undo_asked")
    assert "the table's change" in asked["message"]
    question = await dev.until("undo_request")
    assert question["by"] == "the table"
    await dev.ws.send_json({"type": "undo_answer", "request": question["request"], "allow": False})
    assert (await cy.until("undo_closed"))["status"] == "refused"
    # The device names Bo (a seat it holds), not Ana: its own change is taken back at once.
    assert (await device_sends("undo", target=1, **{"as": "bo"}))["type"] == "ack"
    data = await state(client, tid)
    assert life(data, "cy") == 40
    assert data["entries"][-1]["seat"] == "bo" and data["entries"][-1]["device"] == "table"

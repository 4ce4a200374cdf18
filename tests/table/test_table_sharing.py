"""Sharing a device table with a server (issue 27 item 3): the device's log, decided again by
the server change by change, continues there as the same game; nothing is lost or applied twice,
and the device keeps its seats and host rights. The rules named: 119.3 (life lost), 704.5a (a
player at 0 or less life loses), 119.4 (a player can't pay more life than they have)."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from lifeledger_table.device import host
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.workers.sharing import MAX_SHARED_CHANGES

Client = TestClient[Any, Any]

pytestmark = pytest.mark.asyncio

HOST = "h" * 43
TOKENS = {"ana": "a" * 32, "bo": "b" * 32}


@pytest.fixture(autouse=True)
def fresh_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "_DEVICE", host._Device())


def device_table() -> str:
    created = json.loads(host.create(json.dumps({"players": [{"name": "Ana"}, {"name": "Bo"}]})))
    return str(created["id"])


def act(table: str, cid: str, action: dict[str, Any], seat: str = "ana") -> None:
    msg = {"type": "action", "id": cid, "as": seat, "action": action}
    answer = json.loads(host.message(table, json.dumps(msg)))
    assert json.loads(answer["send"][0])["type"] == "event", answer


def share_body(table: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(host.shared(table))
    return {**body, "host": HOST, "tokens": TOKENS}


def device_state(table: str) -> dict[str, Any]:
    return json.loads(host.info(table))["state"]  # type: ignore[no-any-return]


@pytest.mark.rule("704.5a")
async def test_a_shared_table_continues_on_the_server_as_the_same_game(client: Client) -> None:
    """Ana and Bo play on the device: life lost (119.3), an undo, a rename, dice; the server
    decides the whole log again and holds the same state; the device's tokens hold the seats."""
    table = device_table()
    act(table, "c1", {"do": "lose_life", "player": "bo", "amount": 7})
    act(table, "c2", {"do": "lose_life", "player": "ana", "amount": 2}, seat="bo")
    host.message(table, json.dumps({"type": "undo", "id": "u1", "as": "ana", "target": 2}))
    host.message(
        table, json.dumps({"type": "setup", "id": "s1", "as": "bo", "player": "bo", "name": "Bea"})
    )
    host.message(table, json.dumps({"type": "tool", "id": "d6", "tool": "roll", "sides": 6}))
    act(table, "c3", {"do": "damage", "to": "bo", "amount": 13, "source": "ana-attackers"})
    response = await client.post("/api/tables/shared", json=share_body(table))
    assert response.status == 201, await response.text()
    shared = await response.json()
    served = await (await client.get(f"/api/tables/{shared['id']}")).json()
    assert served["state"] == device_state(table)
    assert served["seq"] == 5  # dice are no change of the log
    bo = next(p for p in served["state"]["players"] if p["id"] == "bo")
    assert (bo["life"], bo["status"], bo["rule"]) == (0, "lost", "704.5a")
    assert served["table"]["taken"] == ["ana", "bo"]
    # The device's seat token holds Ana's seat on the server.
    async with client.ws_connect(f"/ws/t/{shared['id']}") as ws:
        await ws.send_json({"type": "hello", "token": TOKENS["ana"], "since": 0, "host": HOST})
        welcome = await ws.receive_json()
        assert welcome["seat"] == "ana"
        assert welcome["host"] is True
        assert welcome["tools"]["recent"]
        # A change the device sent before sharing, sent again: acknowledged, not applied twice.
        await ws.send_json(
            {
                "type": "action",
                "id": "c1",
                "action": {"do": "lose_life", "player": "bo", "amount": 7},
            }
        )
        while (answer := await ws.receive_json())["type"] not in ("ack", "event", "error"):
            pass
        assert answer["type"] == "ack"
    again = await (await client.get(f"/api/tables/{shared['id']}")).json()
    assert again["seq"] == 5


async def test_sharing_again_after_a_lost_reply_finds_the_same_table(client: Client) -> None:
    table = device_table()
    act(table, "c1", {"do": "lose_life", "player": "bo", "amount": 1})
    first = await (await client.post("/api/tables/shared", json=share_body(table))).json()
    second = await client.post("/api/tables/shared", json=share_body(table))
    assert second.status == 201
    assert (await second.json())["id"] == first["id"]
    served = await (await client.get(f"/api/tables/{first['id']}")).json()
    assert served["seq"] == 1
    # Another host can't take over a table shared from the same device table.
    other = {**share_body(table), "host": "x" * 43}
    refused = await client.post("/api/tables/shared", json=other)
    assert refused.status == 409


@pytest.mark.rule("119.4")
async def test_a_log_the_rules_refuse_is_refused_naming_the_change(client: Client) -> None:
    """A forged log: Ana pays 30 life with 20 (119.4): nothing is kept, change 2 is named."""
    table = device_table()
    act(table, "c1", {"do": "lose_life", "player": "bo", "amount": 1})
    body = share_body(table)
    body["events"].append(
        {
            "kind": "action",
            "body": {"action": {"do": "pay_life", "player": "ana", "amount": 30}},
            "client_id": "forged",
            "seat": "ana",
            "time": 1.0,
        }
    )
    response = await client.post("/api/tables/shared", json=body)
    assert response.status == 400
    error = await response.json()
    assert error["member"] == "events[1]"
    assert error["rule"].startswith("119.4")
    assert "Change 2" in error["message"]


@pytest.mark.parametrize(
    ("change", "member"),
    [
        ({"device": "not-a-device"}, "device"),
        ({"host": "short"}, "host"),
        ({"tokens": {"cy": "c" * 32}}, "tokens"),
        ({"events": {}}, "events"),
        ({"tools": [0, "{}"]}, "tools"),
        ({"form": {"players": []}}, "players"),
        ({"extra": 1}, "extra"),
    ],
)
async def test_a_malformed_share_is_refused_naming_the_member(
    client: Client, change: dict[str, Any], member: str
) -> None:
    table = device_table()
    response = await client.post("/api/tables/shared", json={**share_body(table), **change})
    assert response.status == 400
    assert (await response.json())["member"] == member


async def test_a_change_of_the_log_that_is_not_one_is_refused(client: Client) -> None:
    table = device_table()
    body = share_body(table)
    body["events"] = [{"kind": "teleport", "body": {}, "client_id": "x", "seat": None, "time": 1}]
    response = await client.post("/api/tables/shared", json=body)
    assert response.status == 400
    assert (await response.json())["member"] == "events[0]"


async def test_a_log_too_long_to_share_says_so(client: Client) -> None:
    table = device_table()
    body = share_body(table)
    change = {"kind": "reset", "body": {}, "client_id": "r", "seat": None, "time": 1}
    body["events"] = [change] * (MAX_SHARED_CHANGES + 1)
    response = await client.post("/api/tables/shared", json=body)
    assert response.status == 400
    assert (await response.json())["error"] == "too-long"


async def test_a_shared_log_is_decided_in_a_worker_process(client: Client) -> None:
    """Deciding a long log is pure computation: done in the server's process (a thread
    included), it would slow every table being played; it goes to the replays' workers."""
    hub = client.app[HUB_KEY]
    assert hub.replaying.executor is None  # made on first use
    table = device_table()
    act(table, "c1", {"do": "lose_life", "player": "bo", "amount": 1})
    response = await client.post("/api/tables/shared", json=share_body(table))
    assert response.status == 201
    assert isinstance(hub.replaying.executor, ProcessPoolExecutor)

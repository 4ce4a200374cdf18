"""The limits on what one socket may send: flooding is throttled, oversized messages refused."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp import WSMsgType
from aiohttp.test_utils import TestClient
from table_helpers import TWO, open_table, phone, seat

from lifeledger_table.server import Limits
from lifeledger_table.web.pages import build_id

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]


async def two_phones(client: Client) -> tuple[Any, Any, Any]:
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    bo = await phone(client, table["id"], await seat(client, table["id"], "bo"))
    return table, ana, bo


@pytest.fixture
def limits() -> Limits:
    return Limits(rate=0.0001, burst=5, flood_close=20, message_bytes=2048)


async def test_a_flooding_socket_is_throttled_then_closed(client: Client) -> None:
    table, ana, _bo = await two_phones(client)
    for _ in range(30):
        await ana.send("action", {"do": "lose_life", "player": "bo", "amount": 1})
    kinds: list[str] = []
    while True:
        msg = await ana.ws.receive(timeout=10)
        if msg.type != WSMsgType.TEXT:
            break
        data = msg.json()
        kinds.append(data.get("error") or data["type"])
    assert kinds.count("throttled") >= 20
    # The burst of 5, less the hello: 4 changes got through (their acks may be cut off).
    # They are written in the background; wait (a bounded number of polls) for the write.
    for _ in range(500):
        data = await (await client.get(f"/api/tables/{table['id']}")).json()
        if data["seq"] == 4:
            break
        await asyncio.sleep(0.01)
    assert data["seq"] == 4
    assert ana.ws.closed or msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)


async def test_an_oversized_message_closes_the_socket_and_changes_nothing(client: Client) -> None:
    table, ana, _bo = await two_phones(client)
    await ana.ws.send_str('{"type": "action", "id": "x", "action": {"note": "' + "a" * 5000 + '"}}')
    msg = await ana.ws.receive(timeout=10)
    while msg.type == WSMsgType.TEXT:
        msg = await ana.ws.receive(timeout=10)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 0


@pytest.mark.parametrize("limits", [Limits(tables_opened=2, replays=1)])
async def test_opening_tables_and_replaying_records_are_limited_per_address(
    client: Client,
) -> None:
    await open_table(client, TWO)
    await open_table(client, TWO)
    res = await client.post("/api/tables", json=TWO)
    assert res.status == 429 and (await res.json())["error"] == "throttled"
    record = {"record": 1, "players": [{"id": "ana"}, {"id": "bo"}], "actions": []}
    assert (await client.post("/api/replay", json=record)).status == 200
    res = await client.post("/api/replay", json=record)
    assert res.status == 429 and (await res.json())["error"] == "throttled"


@pytest.mark.asyncio
@pytest.mark.parametrize("limits", [Limits()])
async def test_a_table_plays_at_most_max_games_and_the_next_is_refused_changing_nothing(
    client: TestClient[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A phone conceding (104.3a) and starting the next game, again and again, made
    thousands of games: each decisive change then scored them all on the event loop (85 ms
    at 3,000 games, every table on the server waiting). A table plays at most MAX_GAMES: the
    next game past them is refused (``too-many-games``, saying to open a new table) and
    changes nothing; the last game is still played, and its statistics are there."""
    from lifeledger_table.decide import deciding

    monkeypatch.setattr(deciding, "MAX_GAMES", 3)
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for _ in range(2):
        assert (await ana.act({"do": "concede", "player": "ana"}))["type"] == "ack"
        assert (await ana.reply(await ana.send("next_game")))["type"] == "ack"
    assert (await ana.act({"do": "concede", "player": "ana"}))["type"] == "ack"
    refused = await ana.reply(await ana.send("next_game"))
    assert refused["type"] == "error" and refused["error"] == "too-many-games"
    assert "3 games" in refused["message"] and "new table" in refused["message"]
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["score"]["game"] == 3 and data["state"]["over"] is True
    stats = await (await client.get(f"/api/tables/{table['id']}/stats")).json()
    assert stats["table"]["games"] == 3


@pytest.mark.asyncio
async def test_the_build_is_hashed_once_and_the_api_and_sockets_are_never_cached(
    client: Any,
) -> None:
    """/sw.js is asked for on every page load (and by a hostile loop): the digest of every
    static file is made once per process, not per request. The service worker and manifest
    are revalidated (``no-cache``), every /api answer is ``no-store``, and the worker leaves
    /api/ and /ws/ to the network."""
    build_id()  # made once for the process (as the first /sw.js does)
    made = build_id.cache_info().misses
    texts = set()
    for _ in range(5):
        res = await client.get("/sw.js")
        assert res.status == 200 and res.headers["Cache-Control"] == "no-cache"
        texts.add(await res.text())
    assert build_id.cache_info().misses == made and len(texts) == 1
    worker = texts.pop()
    # Paths relative to the app's root (the worker's own folder: / on the server).
    assert 'path.startsWith("api/") || path.startsWith("ws/")' in worker
    assert not any(u.startswith(("api/", "ws/", "/")) for u in build_id()[1])
    res = await client.get("/manifest.webmanifest")
    assert res.headers["Cache-Control"] == "no-cache"
    for path in ("/api/catalogue", "/api/tables/nope", "/api/code/XXXXXXXX"):
        res = await client.get(path)
        assert res.headers["Cache-Control"] == "no-store", path

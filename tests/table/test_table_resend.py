"""issue 21 item 4: a change the table wrote, whose answer was lost (a server killed, restarted,
or the table leaving memory), sent again with the same id as the page's offline queue does, is
answered `ack` with its sequence number, however long ago and whatever restarted since: never
refused for what it did itself."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import open_table, phone, seat
from test_table_memory import FOUR, new_table, play

from lifeledger_table.decide.limits import Limits
from lifeledger_table.decide.table import CLIENT_IDS_KEPT
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.postgres import PostgresStore
from lifeledger_table.store.records import Store
from lifeledger_table.store.sqlite import SQLiteStore

Client = TestClient[Any, Any]
FAST = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)
pytestmark = pytest.mark.asyncio


async def resend(client: Client, table: str, token: str, msg: dict[str, Any]) -> dict[str, Any]:
    """``msg`` sent again by a phone that connects anew: the answer to it."""
    p = await phone(client, table, token)
    await p.ws.send_str(json.dumps(msg))
    answer = await p.reply(msg["id"])
    await p.ws.close()
    return answer


@pytest.fixture(params=["sqlite", "postgresql"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Store]:
    """A store's opener: each call opens the same store again (as a server started anew)."""
    if request.param == "sqlite":
        db = str(tmp_path / "t.db")
        return lambda: SQLiteStore(db)
    url: str = request.getfixturevalue("pg_url")
    return lambda: PostgresStore(url)


async def test_resent_change_after_restart_is_acked(
    aiohttp_client: Callable[..., Any], make_store: Callable[[], Store]
) -> None:
    """Ana pays 15 life (20 to 5), Bo concedes, Ana's phone begins turn 1; each answer is
    lost. Sent again to a server started anew on the same store, each is acknowledged with
    its sequence number, not refused as "Ana can't pay 15 life with 5 life (119.4)", "Bo has
    left the game (800.4)" or `stale`; nothing applies twice."""
    first = await aiohttp_client(create_app(make_store(), FAST))
    table = await open_table(first, FOUR)
    tokens = {p: await seat(first, table["id"], p) for p in ("ana", "bo")}
    sent = [
        (
            "ana",
            {
                "type": "action",
                "id": "pay",
                "action": {"do": "pay_life", "player": "ana", "amount": 15},
            },
        ),
        ("bo", {"type": "action", "id": "concede", "action": {"do": "concede", "player": "bo"}}),
        (
            "ana",
            {
                "type": "action",
                "id": "next",
                "action": {"do": "turn", "player": "ana"},
                "at_turn": 0,
            },
        ),
    ]
    for n, (who, msg) in enumerate(sent, 1):
        assert await resend(first, table["id"], tokens[who], msg) == {
            "type": "ack",
            "id": msg["id"],
            "seq": n,
        }
    for restarted in (False, True):
        if restarted:
            again = await aiohttp_client(create_app(make_store(), FAST))
        else:  # the table leaves memory: the next request loads it from the store
            again = first
            first.app[HUB_KEY].tables.clear()
        for n, (who, msg) in enumerate(sent, 1):
            answer = await resend(again, table["id"], tokens[who], msg)
            assert answer == {"type": "ack", "id": msg["id"], "seq": n}, answer
        data = await (await again.get(f"/api/tables/{table['id']}")).json()
        assert data["seq"] == 3
        assert next(p for p in data["state"]["players"] if p["id"] == "ana")["life"] == 5


async def test_resent_change_long_ago_is_acked(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """A change written thousands of changes ago (older than any client id a table keeps in
    memory) is looked up in the store when the engine would refuse it: `ack`, not "Ana can't
    pay 15 life with 5 life"."""
    db = str(tmp_path / "t.db")
    store = SQLiteStore(db)
    table = new_table(store)
    pay = {"do": "pay_life", "player": "ana", "amount": 15}
    decision = table.decide("action", {"action": pay}, "pay-long-ago", None)
    assert not isinstance(decision, int)
    store.append([decision.event])
    table.commit(decision)
    play(table, 3 * CLIENT_IDS_KEPT)
    client = await aiohttp_client(create_app(SQLiteStore(db), FAST))
    token = await seat(client, "t", "ana")
    msg = {"type": "action", "id": "pay-long-ago", "action": pay}
    assert await resend(client, "t", token, msg) == {"type": "ack", "id": "pay-long-ago", "seq": 1}
    # A change never written is still refused by the engine, with its rule.
    msg = {"type": "action", "id": "never-sent", "action": pay}
    answer = await resend(client, "t", token, msg)
    assert answer["type"] == "error" and answer["error"] == "refused" and answer["rule"] == "119.4"

"""Fair share (issue 18 item 1): an unchanged table's answers are built once, carry an ETag,
and what a client's requests cost is counted against its share (not timed)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import TWO, open_table, phone, seat

from lifeledger_table.decide.limits import CostShares, Limits
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.web.answers import ANSWERS_KEY, Answers
from lifeledger_table.workers.drawing import WAITING, Drawing, DrawingBusy

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]


@pytest.fixture
def limits() -> Limits:
    """Refusals are sent late (a few seconds, by default): here at once."""
    return Limits(error_delay=0.01)


def kept(client: Client) -> Answers:
    return client.server.app[ANSWERS_KEY]


async def test_a_repeated_get_of_an_unchanged_table_is_built_once(client: Client) -> None:
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    url = f"/api/tables/{table['id']}"
    first = await (await client.get(url)).json()  # the seat taken above is in it
    built = kept(client).built
    for _ in range(5):
        assert await (await client.get(url)).json() == first
    assert kept(client).built == built
    assert first["table"]["taken"] == ["ana"] and first["links"]["play"].endswith(table["id"])

    # A change: built again, once.
    await ana.act({"do": "lose_life", "player": "bo", "amount": 3})
    changed = await (await client.get(url)).json()
    assert changed["seq"] == first["seq"] + 1
    assert changed["state"] != first["state"]
    await client.get(url)
    assert kept(client).built == built + 1

    # A seat taken is no change of the log, but of the answer.
    await seat(client, table["id"], "bo")
    assert (await (await client.get(url)).json())["table"]["taken"] == ["ana", "bo"]
    assert kept(client).built == built + 2


async def test_spectators_history_pages_and_qr_codes_are_built_once(client: Client) -> None:
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for n in range(3):
        await ana.act({"do": "lose_life", "player": "bo", "amount": n + 1})
    urls = [
        f"/api/watch/{table['watch']}",
        f"/api/tables/{table['id']}/history?before=3&limit=2",
        f"/api/watch/{table['watch']}/history?before=3&limit=2",
        f"/api/tables/{table['id']}/qr.svg",
        f"/api/tables/{table['id']}/qr.svg?for=watch",
    ]
    bodies = [await (await client.get(u)).read() for u in urls]
    built = kept(client).built
    store = client.server.app[HUB_KEY].store
    looked_up: list[str] = []
    store.table_by_watch = lambda watch: looked_up.append(watch)  # type: ignore[method-assign]
    assert [await (await client.get(u)).read() for u in urls] == bodies
    assert kept(client).built == built
    assert looked_up == []  # a spectator id seen before, of a table in memory: no lookup
    watched = await (await client.get(urls[0])).json()
    assert "id" not in watched["table"] and watched["seq"] == 3
    page = await (await client.get(urls[1])).json()
    assert [e["seq"] for e in page["entries"]] == [1, 2]

    # The socket's history message shares the HTTP page.
    await ana.ws.send_json({"type": "history", "before": 3, "limit": 2})
    assert (await ana.until("history"))["entries"] == page["entries"]
    assert kept(client).built == built


async def test_an_etag_is_answered_304_until_the_table_changes(client: Client) -> None:
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    url = f"/api/tables/{table['id']}"
    res = await client.get(url)
    etag = res.headers["ETag"]
    assert res.status == 200 and etag.startswith('"')
    res = await client.get(url, headers={"If-None-Match": etag})
    assert res.status == 304 and res.headers["ETag"] == etag and await res.read() == b""
    res = await client.get(url, headers={"If-None-Match": f'"other", W/{etag}'})
    assert res.status == 304

    await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
    res = await client.get(url, headers={"If-None-Match": etag})
    assert res.status == 200 and res.headers["ETag"] != etag
    assert (await res.json())["seq"] == 1

    qr = await client.get(f"/api/tables/{table['id']}/qr.svg")
    again = await client.get(
        f"/api/tables/{table['id']}/qr.svg", headers={"If-None-Match": qr.headers["ETag"]}
    )
    assert again.status == 304


async def test_a_client_past_its_cost_budget_is_answered_429(client: Client) -> None:
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    url = f"/api/tables/{table['id']}"
    # A share with no burst: the first request's cost is already past it.
    kept(client).address = CostShares(Limits().answer_share, 0.0)
    assert (await client.get(url)).status == 200
    kept(client).address.spend("127.0.0.1", 1.0)  # past it for 10 s, however slow the test
    res = await client.get(url)
    assert res.status == 429
    body = await res.json()
    assert body["error"] == "throttled" and "share of the server" in body["message"]
    # Past it, a socket's history page is refused too (the same address's budget) ...
    await ana.ws.send_json({"type": "history", "before": 1, "limit": 1})
    refused = await ana.until("error")
    assert refused["error"] == "throttled"
    # ... while the table's changes go on (they have a share of their own).
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"

    # The network's share holds the client's other addresses too.
    kept(client).address = CostShares(Limits().answer_share, Limits().answer_burst)
    kept(client).network = CostShares(Limits().answer_network_share, 0.0)
    kept(client).network.spend("127.0.0.0/24", 1.0)
    assert (await client.get(url)).status == 429


async def test_a_cost_share_drains_and_forgets() -> None:
    now = [0.0]
    shares = CostShares(0.1, 0.5, clock=lambda: now[0])
    shares.spend("a", 0.7)  # 0.2 s past its burst: 2 s at 10% of a core
    assert shares.wait("a") == pytest.approx(2.0)
    assert shares.wait("b") == 0
    now[0] = 2.0
    assert shares.wait("a") == pytest.approx(0.0)
    now[0] = 7.1  # drained whole: forgotten
    shares.spend("b", 0.01)
    assert len(shares) == 1 and shares.debt("a") == 0


async def test_qr_codes_past_those_waiting_for_the_worker_are_refused_busy() -> None:
    class Stuck(concurrent.futures.Executor):
        def submit(self, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
            return concurrent.futures.Future()  # never drawn

    drawing = Drawing(Stuck())
    waiting = [asyncio.create_task(drawing.qr(f"http://x/{n}")) for n in range(WAITING)]
    await asyncio.sleep(0)
    with pytest.raises(DrawingBusy):
        await drawing.qr("http://x/one-more")
    for task in waiting:
        task.cancel()
    await asyncio.gather(*waiting, return_exceptions=True)
    assert drawing.waiting == 0

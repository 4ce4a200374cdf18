"""Sharing from another site (issue 27 item 3, the app as static files): a page served by a
static host has no server of its own, so "Share this table" POSTs to a server at another
address. That one endpoint answers CORS (the preflight, Access-Control-Allow-Origin echoing the
page's origin, no credentials, only Content-Type); every other POST and the WebSocket stay
same-origin. The rules named: 119.3 (life lost, decided again on the server)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from lifeledger_table.decide.limits import Limits
from lifeledger_table.device import host

Client = TestClient[Any, Any]

pytestmark = pytest.mark.asyncio

SITE = "https://lifeledger.example"
SHARED = "/api/tables/shared"
PREFLIGHT = {
    "Origin": SITE,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type",
}


@pytest.fixture
def limits() -> Limits:
    """Two tables opened per address (a test sends at most two POSTs but the last one's)."""
    return Limits(tables_opened=2)


@pytest.fixture(autouse=True)
def fresh_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host, "_DEVICE", host._Device())


def shared_body() -> dict[str, Any]:
    """A device table where Bo lost 3 life, as the page sends it."""
    created = json.loads(host.create(json.dumps({"players": [{"name": "Ana"}, {"name": "Bo"}]})))
    table = str(created["id"])
    msg = {
        "type": "action",
        "id": "c1",
        "as": "ana",
        "action": {"do": "lose_life", "player": "bo", "amount": 3},
    }
    host.message(table, json.dumps(msg))
    body: dict[str, Any] = json.loads(host.shared(table))
    return {**body, "host": "h" * 43, "tokens": {"ana": "a" * 32, "bo": "b" * 32}}


async def test_the_preflight_allows_a_json_post_from_another_site(client: Client) -> None:
    res = await client.options(SHARED, headers=PREFLIGHT)
    assert res.status == 204
    assert res.headers["Access-Control-Allow-Origin"] == SITE
    assert res.headers["Access-Control-Allow-Methods"] == "POST"
    assert res.headers["Access-Control-Allow-Headers"] == "Content-Type"
    assert "Access-Control-Allow-Credentials" not in res.headers
    assert "Access-Control-Allow-Private-Network" not in res.headers
    assert res.headers["Vary"] == "Origin"
    # A page on the internet calling a server on the LAN: the browser asks, and may.
    lan = await client.options(
        SHARED, headers={**PREFLIGHT, "Access-Control-Request-Private-Network": "true"}
    )
    assert lan.headers["Access-Control-Allow-Private-Network"] == "true"


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"Access-Control-Request-Method": "DELETE"}, "DELETE"),
        ({"Access-Control-Request-Headers": "content-type, authorization"}, "authorization"),
        ({"Origin": "null"}, "http or https"),
        ({"Origin": "file://"}, "http or https"),
    ],
)
async def test_the_preflight_refuses_anything_else_naming_it(
    client: Client, change: dict[str, str], named: str
) -> None:
    res = await client.options(SHARED, headers={**PREFLIGHT, **change})
    assert res.status == 403
    error = await res.json()
    assert error["error"] == "cross-origin"
    assert named in error["message"]
    assert "Access-Control-Allow-Methods" not in res.headers


@pytest.mark.rule("119.3")
async def test_a_table_is_shared_from_another_site(client: Client) -> None:
    """The static app's page POSTs its device table: the server decides it again (Bo lost 3
    life, 119.3) and answers with the page's origin allowed, so the page reads the table's id."""
    res = await client.post(SHARED, json=shared_body(), headers={"Origin": SITE})
    assert res.status == 201, await res.text()
    assert res.headers["Access-Control-Allow-Origin"] == SITE
    assert "Access-Control-Allow-Credentials" not in res.headers
    shared = await res.json()
    served = await (await client.get(f"/api/tables/{shared['id']}")).json()
    bo = next(p for p in served["state"]["players"] if p["id"] == "bo")
    assert bo["life"] == 17


async def test_a_refusal_from_another_site_is_readable_there(client: Client) -> None:
    """A malformed share (400) and a JSON body not said to be JSON (415) carry the origin too:
    the page names why; the latter is still refused (only Content-Type: application/json)."""
    body = shared_body()
    res = await client.post(SHARED, json={**body, "extra": 1}, headers={"Origin": SITE})
    assert res.status == 400
    assert res.headers["Access-Control-Allow-Origin"] == SITE
    assert (await res.json())["member"] == "extra"
    plain = await client.post(
        SHARED,
        data=json.dumps(body),
        headers={"Origin": SITE, "Content-Type": "text/plain"},
    )
    assert plain.status == 415
    assert plain.headers["Access-Control-Allow-Origin"] == SITE


async def test_every_other_post_stays_same_origin(client: Client) -> None:
    """Only the share is open to other sites: opening a table from there is refused (403), with
    no Access-Control-Allow-Origin, and no other path answers a preflight."""
    two = {"players": [{"name": "Ana"}, {"name": "Bo"}]}
    res = await client.post("/api/tables", json=two, headers={"Origin": SITE})
    assert res.status == 403
    assert "Access-Control-Allow-Origin" not in res.headers
    other = await client.options("/api/tables", headers=PREFLIGHT)
    assert other.status == 405
    assert "Access-Control-Allow-Origin" not in other.headers


async def test_sharing_from_another_site_keeps_the_limits_of_openings(client: Client) -> None:
    """A share from another site counts as an opening from its address (a retry too): past
    the limit, 429 (readable by the page), as from this server's own page."""
    body = shared_body()
    for _ in range(2):
        res = await client.post(SHARED, json=body, headers={"Origin": SITE})
        assert res.status == 201
    third = await client.post(SHARED, json=body, headers={"Origin": SITE})
    assert third.status == 429
    assert third.headers["Access-Control-Allow-Origin"] == SITE

"""Player colours chosen when a table is opened (issue 8, "colours chosen per player"): kept
with the table's setup and given to every page, checked like the other setup members."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import open_table

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]


async def test_chosen_colours_are_given_to_every_page(client: Client) -> None:
    form = {"players": [{"name": "Ana", "colour": 5}, {"name": "Bo"}, {"name": "Cy", "colour": 0}]}
    table = await open_table(client, form)
    info = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["table"]["colours"] == {"ana": 5, "cy": 0}
    watch = await (await client.get(f"/api/watch/{table['watch']}")).json()
    assert watch["table"]["colours"] == {"ana": 5, "cy": 0}
    # The colour is the page's: the record's header does not carry it.
    assert all("colour" not in p for p in info["table"]["header"]["players"])


async def test_a_table_without_colours_has_none(client: Client) -> None:
    table = await open_table(client)
    info = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["table"]["colours"] == {}


@pytest.mark.parametrize(
    ("colours", "message"),
    [
        ([16, None], "The colour must be between 0 and 15."),
        ([-1, None], "The colour must be between 0 and 15."),
        (["red", None], "The colour is not a whole number."),
        ([True, None], "The colour is not a whole number."),
        ([3, 3], "Two players have colour 3; each has its own."),
    ],
)
async def test_a_wrong_colour_is_refused_naming_it(
    client: Client, colours: list[Any], message: str
) -> None:
    players: list[dict[str, Any]] = [{"name": "Ana"}, {"name": "Bo"}]
    for player, colour in zip(players, colours, strict=True):
        if colour is not None:
            player["colour"] = colour
    res = await client.post("/api/tables", json={"players": players})
    assert res.status == 400
    body = await res.json()
    assert body["message"] == message
    assert body["member"] == "colour"

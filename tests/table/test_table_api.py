"""The HTTP API: opening a table, joining by code, seats, QR codes, records and replays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import JSON, THG, TWO, open_table, phone, seat

from lifeledger import record, state

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "examples"


async def test_the_catalogue_lists_every_variant_format_and_card(client: Client) -> None:
    data = await (await client.get("/api/catalogue")).json()
    assert {v["name"] for v in data["variants"]} >= {
        "two-player", "free-for-all", "grand-melee", "team-vs-team", "two-headed-giant",
        "emperor", "alternating-teams", "archenemy", "supervillain-rumble",
    }  # fmt: skip
    assert set(data["formats"]) == {"normal", "commander", "brawl", "vanguard", "planechase"}
    assert "Platinum Angel" in data["cards"]


async def test_opening_a_table_gives_unguessable_ids_and_a_short_code(client: Client) -> None:
    table = await open_table(client)
    assert len(table["id"]) >= 32 and len(table["watch"]) >= 32  # 24 bytes = 192 bits
    assert table["id"] != table["watch"]
    assert len(table["code"]) == 10  # issue 7 item 10: 31^10 codes
    found = await (
        await client.get(f"/api/code/{table['code'][:5]}-{table['code'][5:].lower()}")
    ).json()
    assert found == {"id": table["id"]}
    assert [p["id"] for p in table["header"]["players"]] == ["ana", "bo"]


async def test_commanders_partners_teams_and_names(client: Client) -> None:
    form = {
        "variant": "free-for-all",
        "format": "commander",
        "players": [
            {"name": "Ana", "commanders": ["Thrasios", "Tymna"]},
            {"name": "Bo", "commanders": ["Atraxa"]},
            {"name": "Ana"},
        ],
    }
    table = await open_table(client, form)
    players = table["header"]["players"]
    assert [p["id"] for p in players] == ["ana", "bo", "ana-2"]
    assert players[0]["commanders"] == ["ana-thrasios", "ana-tymna"]
    info = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["table"]["labels"]["ana-tymna"] == "Tymna"
    assert info["state"]["players"][0]["life"] == 40


@pytest.mark.parametrize(
    ("form", "member"),
    [
        ({"players": [{"name": "<script>alert(1)</script>"}, {"name": "Bo"}]}, "player's name"),
        ({"players": [{"name": "Ana"}, {"name": "Bo", "team": "<b>"}]}, "team's name"),
        (
            {"players": [{"name": "Ana", "commanders": ["<i>x</i>"]}, {"name": "Bo"}]},
            "commander's name",
        ),
        ({"players": [{"name": ""}, {"name": "Bo"}]}, "player's name"),
        ({"players": [{"name": "A" * 41}, {"name": "Bo"}]}, "player's name"),
        ({"players": [{"name": "A\u0000"}, {"name": "Bo"}]}, "player's name"),
        ({"players": []}, "players"),
        ({"players": [{"name": "Ana"}, {"name": "Bo"}], "variant": "chess"}, "variant"),
        ({"players": [{"name": "Ana"}, {"name": "Bo"}], "format": "modern"}, "format"),
        ({"players": [{"name": "Ana"}, {"name": "Bo"}], "best_of": 2}, "best_of"),
        ({"players": [{"name": "Ana"}, {"name": "Bo"}], "starting_life": "20"}, "starting_life"),
        ({"players": [{"name": "Ana", "library": -1}, {"name": "Bo"}]}, "library"),
        ({**THG, "format": "commander"}, None),
    ],
)
async def test_a_bad_setup_gets_a_clear_error_and_opens_nothing(
    client: Client, form: dict[str, Any], member: str | None
) -> None:
    res = await client.post("/api/tables", json=form)
    assert res.status == 400
    data = await res.json()
    assert data["error"] == "malformed" and data["message"]
    if member is not None:
        assert data["member"] == member


async def test_a_body_that_is_not_json_or_too_big_is_refused(client: Client) -> None:
    res = await client.post("/api/tables", data="{nope", headers=JSON)
    assert res.status == 400 and (await res.json())["error"] == "malformed"
    res = await client.post("/api/tables", data="[" + "1," * 600_000 + "1]", headers=JSON)
    assert res.status == 413 and (await res.json())["error"]


async def test_unknown_tables_seats_codes_and_games(client: Client) -> None:
    table = await open_table(client)
    assert (await client.get("/api/tables/nope")).status == 404
    assert (await client.get("/api/watch/nope")).status == 404
    assert (await client.get("/api/code/ZZZZZZZZ")).status == 404
    assert (await client.post(f"/api/tables/{table['id']}/seats/cy", json={})).status == 404
    assert (await client.get(f"/api/tables/{table['id']}/games/2/record")).status == 404
    assert (await client.get("/ws/t/nope")).status == 404


async def test_a_spectator_does_not_learn_the_table_id_or_code(client: Client) -> None:
    table = await open_table(client)
    data = await (await client.get(f"/api/watch/{table['watch']}")).json()
    text = json.dumps(data)
    assert table["id"] not in text and table["code"] not in text
    assert data["state"]["players"][0]["life"] == 20


async def test_the_qr_code_is_an_svg_of_the_link(client: Client) -> None:
    table = await open_table(client)
    res = await client.get(f"/api/tables/{table['id']}/qr.svg")
    assert res.status == 200 and res.content_type == "image/svg+xml"
    assert (await res.text()).lstrip().startswith("<?xml")
    assert (await client.get(f"/api/tables/{table['id']}/qr.svg?for=watch")).status == 200
    assert (await client.get(f"/api/tables/{table['id']}/qr.svg?for=x")).status == 400


async def test_pages_are_served_with_a_strict_content_security_policy(client: Client) -> None:
    table = await open_table(client)
    for path in ("/", f"/t/{table['id']}", f"/w/{table['watch']}", "/replay"):
        res = await client.get(path)
        assert res.status == 200
        assert "script-src 'self'" in res.headers["Content-Security-Policy"]
        assert res.headers["Referrer-Policy"] == "no-referrer"
    assert (await client.get("/static/table.bundle.js")).status == 200


async def test_a_downloaded_record_replays_to_the_tables_state(client: Client) -> None:
    table = await open_table(client, THG)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for action in (
        {"do": "damage", "to": "cy", "amount": 4, "source": "x"},
        {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "di"},
        {"do": "pay_life", "player": "ana", "amount": 3},
        {"do": "lose_life", "player": "bo", "amount": 2},
    ):
        assert (await ana.act(action))["type"] == "ack"
    assert (await ana.reply(await ana.send("undo", target=4)))["type"] == "ack"
    res = await client.get(f"/api/tables/{table['id']}/games/1/record")
    assert res.headers["Content-Disposition"].startswith("attachment")
    document = await res.json()
    assert len(document["actions"]) == 3
    replayed = record.replay(document)
    assert not replayed.refused
    live = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert state.state_dict(replayed.game) == live["state"]
    watched = await client.get(f"/api/watch/{table['watch']}/games/1/record")
    assert await watched.json() == document


async def test_replay_frames_follow_the_engine(client: Client) -> None:
    doc = json.loads((EXAMPLES / "13-pay-life-more-than-you-have.json").read_text())
    data = await (await client.post("/api/replay", data=json.dumps(doc), headers=JSON)).json()
    frames = data["frames"]
    assert len(frames) == len(doc["actions"]) + 1
    refused = [f for f in frames if f.get("refused")]
    assert [f["position"] for f in refused] == [1]
    assert refused[0]["refused"]["rule"] == "119.4"
    final = record.replay(doc)
    assert frames[-1]["state"] == state.state_dict(final.game)


async def test_replay_accepts_the_stream_shape(client: Client) -> None:
    doc = json.loads((EXAMPLES / "01-two-player-lethal-damage.json").read_text())
    header = {k: v for k, v in doc.items() if k != "actions"}
    lines = [json.dumps(header)] + [json.dumps(a) for a in doc["actions"]]
    data = await (await client.post("/api/replay", data="\n".join(lines), headers=JSON)).json()
    assert data["frames"][-1]["state"]["over"] is True


async def test_a_malformed_record_names_its_position(client: Client) -> None:
    doc = json.loads((EXAMPLES / "23-malformed-negative-damage.json").read_text())
    res = await client.post("/api/replay", data=json.dumps(doc), headers=JSON)
    assert res.status == 400
    data = await res.json()
    assert data["error"] == "malformed" and "action" in data["message"]
    assert (await client.post("/api/replay", data="not a record", headers=JSON)).status == 400


async def test_every_example_record_replays_frame_by_frame_like_the_engine(client: Client) -> None:
    for path in sorted(EXAMPLES.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        doc = json.loads(path.read_text())
        res = await client.post("/api/replay", data=json.dumps(doc), headers=JSON)
        try:
            expected = record.replay(doc)
        except Exception:
            assert res.status == 400, path.name
            continue
        data = await res.json()
        assert data["frames"][-1]["state"] == state.state_dict(expected.game), path.name


async def test_two_tables_do_not_mix(client: Client) -> None:
    one = await open_table(client, TWO)
    two = await open_table(client, TWO)
    token = await seat(client, one["id"], "ana")
    other = await client.ws_connect(f"/ws/t/{two['id']}")
    await other.send_json({"type": "hello", "token": token, "since": 0})
    assert (await other.receive_json())["error"] == "bad-token"

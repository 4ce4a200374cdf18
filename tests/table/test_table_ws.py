"""The live table over WebSocket: every phone sees every change, in one order, decided by the
engine; retries never apply twice; undo, next game and resume."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import THG, TWO, Phone, open_table, phone, seat

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]


def life(state: dict[str, Any], player: str) -> int:
    value: int = next(p["life"] for p in state["players"] if p["id"] == player)
    return value


async def two_phones(client: Client, form: dict[str, Any] | None = None) -> tuple[Any, Any, Any]:
    table = await open_table(client, form or TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    bo = await phone(client, table["id"], await seat(client, table["id"], "bo"))
    return table, ana, bo


async def test_a_change_reaches_every_phone(client: Client) -> None:
    _table, ana, bo = await two_phones(client)
    reply = await ana.act({"do": "damage", "to": "bo", "amount": 3, "source": "bolt"})
    assert reply == {"type": "ack", "id": reply["id"], "seq": 1}
    for p in (ana, bo):
        event = await p.until("event")
        assert event["seq"] == 1
        assert life(event["state"], "bo") == 17
        assert event["entry"]["seat"] == "ana"
        assert {"player": "bo", "what": "life", "from": 20, "to": 17} in event["entry"]["changes"]


async def test_a_retry_never_applies_twice(client: Client) -> None:
    table, ana, _bo = await two_phones(client)
    action = {"do": "lose_life", "player": "bo", "amount": 1}
    first = await ana.reply(await ana.send("action", action, cid="same-id"))
    again = await ana.reply(await ana.send("action", action, cid="same-id"))
    assert first["seq"] == again["seq"] == 1
    res = await client.get(f"/api/tables/{table['id']}")
    data = await res.json()
    assert data["seq"] == 1 and life(data["state"], "bo") == 19


async def test_a_refused_action_says_why_with_its_rule_and_changes_nothing(client: Client) -> None:
    table, ana, _bo = await two_phones(client)
    await ana.act({"do": "lose_life", "player": "ana", "amount": 17})
    reply = await ana.act({"do": "pay_life", "player": "ana", "amount": 5})
    assert reply["type"] == "error" and reply["error"] == "refused"
    assert reply["rule"].startswith("119.4")
    assert "5" in reply["message"]
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 1 and life(data["state"], "ana") == 3


@pytest.mark.parametrize(
    "action",
    [
        {"do": "damage", "to": "bo", "amount": -3, "source": "x"},
        {"do": "damage", "to": "nobody", "amount": 3, "source": "x"},
        {"do": "fly", "player": "bo"},
        {"do": "lose_life", "player": "bo", "amount": 1.0},
        {"do": "card", "id": "c", "name": "Black Lotus", "controller": "bo"},
        "lose_life",
    ],
)
async def test_a_malformed_action_is_an_error_and_changes_nothing(
    client: Client, action: Any
) -> None:
    table, ana, _bo = await two_phones(client)
    reply = await ana.act(action)
    assert reply["type"] == "error" and reply["error"] == "malformed"
    assert reply["message"]
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 0


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '{"id": "x"}',
        '{"type": "action", "id": "bad id!", "action": {}}',
        '{"type": "teleport", "id": "x"}',
        '{"type": "action", "id": "x", "action": {"do": "lose_life", "player": "bo", "amount": '
        "NaN}}",
        '{"type": "undo", "id": "x", "action": {}}',
        '{"type": "action", "id": "x", "extra": 1, "action": {}}',
    ],
)
async def test_a_malformed_message_gets_a_clear_error(client: Client, text: str) -> None:
    table, ana, _bo = await two_phones(client)
    await ana.ws.send_str(text)
    msg = await ana.until("error")
    assert msg["error"] == "malformed" and msg["message"]
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 0


async def test_a_spectator_cannot_act(client: Client) -> None:
    table, ana, _bo = await two_phones(client)
    watcher = await phone(client, table["watch"], watch=True)
    reply = await watcher.act({"do": "lose_life", "player": "bo", "amount": 1})
    assert reply["error"] == "spectator"
    await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
    event = await watcher.until("event")
    assert life(event["state"], "bo") == 19


async def test_a_visitor_without_a_seat_cannot_act(client: Client) -> None:
    table = await open_table(client)
    visitor = await phone(client, table["id"])
    assert (await visitor.act({"do": "lose_life", "player": "bo", "amount": 1}))["error"] == (
        "no-seat"
    )
    other = await client.ws_connect(f"/ws/t/{table['id']}")
    await other.send_json({"type": "hello", "token": "x" * 43, "since": 0})
    msg = await other.receive_json()
    assert msg["error"] == "bad-token"


async def test_a_seat_taken_over_stops_the_old_token(client: Client) -> None:
    table = await open_table(client)
    old = await seat(client, table["id"], "ana")
    ana = await phone(client, table["id"], old)
    res = await client.post(f"/api/tables/{table['id']}/seats/ana", json={})
    assert res.status == 409
    new = await seat(client, table["id"], "ana", takeover=True, host=table["host"])
    assert (await ana.until("seat_lost"))["seat"] == "ana"
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 1}))["error"] == "no-seat"
    again = await phone(client, table["id"], new)
    assert (await again.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"


async def test_undo_takes_back_the_last_action_on_every_phone(client: Client) -> None:
    table, ana, bo = await two_phones(client)
    await ana.act({"do": "lose_life", "player": "bo", "amount": 4})
    await ana.act({"do": "gain_life", "player": "ana", "amount": 2})
    # Ana's own changes: her Undo takes them back (Bo's would ask her: issue 17 item 10).
    reply = await ana.reply(await ana.send("undo", target=2))
    assert reply["type"] == "ack" and reply["seq"] == 3
    for p in (ana, bo):
        while True:
            event = await p.until("event")
            if event["seq"] == 3:
                break
        assert event["entry"]["kind"] == "undo" and event["entry"]["target"] == 2
        assert life(event["state"], "ana") == 20 and life(event["state"], "bo") == 16
    await ana.reply(await ana.send("undo", target=1))
    assert (await bo.reply(await bo.send("undo", target=4)))["error"] == "nothing-to-undo"
    record = await (await client.get(f"/api/tables/{table['id']}/games/1/record")).json()
    assert record["actions"] == []


async def test_a_concession_is_final(client: Client) -> None:
    three = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy")]}
    _table, ana, _bo = await two_phones(client, three)
    await ana.act({"do": "concede", "player": "ana"})
    reply = await ana.reply(await ana.send("undo", target=1))
    assert reply["error"] == "final" and reply["rule"] == "104.3a"


async def test_a_lethal_hit_ends_the_game_and_the_match_is_scored(client: Client) -> None:
    table, ana, bo = await two_phones(client)
    assert (await bo.reply(await bo.send("next_game")))["error"] == "not-over"
    for game in (1, 2):
        await ana.act({"do": "damage", "to": "bo", "amount": 20, "source": "x"})
        event = await bo.until("event")
        while event["entry"]["kind"] != "action":
            event = await bo.until("event")
        bo_state = next(p for p in event["state"]["players"] if p["id"] == "bo")
        assert event["state"]["over"] is True
        assert (bo_state["status"], bo_state["reason"], bo_state["rule"]) == (
            "lost",
            "life",
            "704.5a",
        )
        if game == 1:
            reply = await bo.reply(await bo.send("next_game"))
            assert reply["type"] == "ack"
    score = (await (await client.get(f"/api/tables/{table['id']}")).json())["score"]
    assert score["best_of"] == 3
    assert score["match_winner"] == "ana"
    ana_row = next(r for r in score["sides"] if r["id"] == "ana")
    assert (ana_row["wins"], ana_row["losses"], ana_row["draws"]) == (2, 0, 0)
    assert score["match"] == 1 and ana_row["matches"] == 1
    # 100.6a: the match is over; the next game begins the next match, the matches won kept.
    reply = await bo.reply(await bo.send("next_game"))
    assert reply["type"] == "ack"
    score = (await (await client.get(f"/api/tables/{table['id']}")).json())["score"]
    assert (score["game"], score["match"], score["finished"], score["match_winner"]) == (
        3,
        2,
        0,
        None,
    )
    ana_row = next(r for r in score["sides"] if r["id"] == "ana")
    assert (ana_row["wins"], ana_row["matches"]) == (0, 1)


async def test_two_phones_acting_at_once_are_both_applied_in_one_order(client: Client) -> None:
    _table, ana, bo = await two_phones(client)
    sends = []
    for _i in range(10):
        sends.append(ana.send("action", {"do": "lose_life", "player": "bo", "amount": 1}))
        sends.append(bo.send("action", {"do": "gain_life", "player": "bo", "amount": 2}))
    await asyncio.gather(*sends)
    orders = []
    for p in (ana, bo):
        seqs = []
        while len(seqs) < 20:
            msg = await p.recv()
            if msg["type"] == "event":
                seqs.append((msg["seq"], msg["entry"]["action"]["do"], life(msg["state"], "bo")))
        orders.append(seqs)
    assert orders[0] == orders[1]
    assert [s for s, _, _ in orders[0]] == list(range(1, 21))
    assert orders[0][-1][2] == 20 - 10 + 20


async def test_a_phone_resumes_from_the_last_sequence_number_it_saw(client: Client) -> None:
    table, ana, _bo = await two_phones(client)
    token = await seat(client, table["id"], "bo", takeover=True, host=table["host"])
    await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
    await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
    await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
    late = await client.ws_connect(f"/ws/t/{table['id']}")
    await late.send_json({"type": "hello", "token": token, "since": 1})
    welcome = await late.receive_json()
    assert welcome["type"] == "welcome" and welcome["seat"] == "bo"
    assert [e["seq"] for e in welcome["entries"]] == [2, 3]
    assert life(welcome["state"], "bo") == 17


async def test_two_headed_giant_shares_the_team_total(client: Client) -> None:
    table = await open_table(client, THG)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    await ana.act({"do": "damage", "to": "cy", "amount": 4, "source": "x"})
    event = await ana.until("event")
    south = next(t for t in event["state"]["teams"] if t["id"] == "south")
    assert south["life"] == 26 and life(event["state"], "di") == 26
    assert {"team": "south", "what": "life", "from": 30, "to": 26} in event["entry"]["changes"]


@pytest.mark.rule("104.3a")
async def test_104_3a_only_the_player_concedes_for_themselves(client: Client) -> None:
    table, ana, bo = await two_phones(client)
    reply = await bo.act({"do": "concede", "player": "ana"})
    assert (reply["error"], reply["rule"]) == ("not-your-seat", "104.3a")
    grouped = {"do": "together", "actions": [{"do": "concede", "player": "ana"}]}
    assert (await bo.act(grouped))["error"] == "not-your-seat"
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 0 and not data["state"]["over"]
    assert (await ana.act({"do": "concede", "player": "ana"}))["type"] == "ack"


async def test_markup_in_any_string_of_an_action_is_refused(client: Client) -> None:
    table, ana, _bo = await two_phones(client)
    reply = await ana.act({"do": "damage", "to": "bo", "amount": 1, "source": "<b>x</b>"})
    assert (reply["error"], reply["member"]) == ("malformed", "action.source")
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 0


@pytest.mark.rule("704.5b")
async def test_704_5b_a_library_nobody_counts_is_empty_at_the_table(client: Client) -> None:
    """A library nobody counts is untracked at a version-2 table (the header omits it): draws
    never run out of it, the draw step's included (504.1). The player sheet's "Draws from an
    empty library" records one group, the library stated empty and the draw (121.4), and the
    player loses (704.5b)."""
    form = {"players": [{"name": "Ana", "library": 40}, {"name": "Bo"}]}
    table = await open_table(client, form)
    info = (await (await client.get(f"/api/tables/{table['id']}")).json())["table"]
    assert info["counted"] == ["ana"]
    assert info["header"]["record"] == 2
    assert [p.get("library") for p in info["header"]["players"]] == [40, None]
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    assert (await ana.act({"do": "draw", "player": "ana", "count": 7}))["type"] == "ack"
    assert (await ana.act({"do": "draw", "player": "bo", "count": 3}))["type"] == "ack"
    state = (await (await client.get(f"/api/tables/{table['id']}")).json())["state"]
    assert [(p["library"], p["status"]) for p in state["players"]] == [
        (33, "playing"),
        (None, "playing"),
    ]
    empty = {"do": "set_library", "player": "bo", "count": 0}
    group = {"do": "together", "actions": [empty, {"do": "draw", "player": "bo", "count": 1}]}
    assert (await ana.act(group))["type"] == "ack"
    state = (await (await client.get(f"/api/tables/{table['id']}")).json())["state"]
    ana_state, bo_state = state["players"]
    assert (ana_state["library"], ana_state["status"]) == (33, "won")
    assert (bo_state["library"], bo_state["status"], bo_state["reason"], bo_state["rule"]) == (
        0,
        "lost",
        "empty-library",
        "704.5b",
    )


async def test_a_spectators_record_does_not_give_away_the_table(client: Client) -> None:
    table = await open_table(client, TWO)
    res = await client.get(f"/api/watch/{table['watch']}/games/1/record")
    text = await res.text()
    assert table["code"] not in text and table["id"] not in text
    assert table["code"] not in res.headers["Content-Disposition"]


async def test_a_browser_asking_for_compression_gets_the_same_uncompressed_bytes(
    client: Client,
) -> None:
    """A browser asks for permessage-deflate (RFC 7692); the table's socket declines it, so a
    change's event is not compressed again for each phone (issue 29 item 1): the phone still
    plays, and every frame it is sent is plain text."""
    table = await open_table(client, TWO)
    token = await seat(client, table["id"], "ana")
    ws = await client.ws_connect(f"/ws/t/{table['id']}?token={token}", compress=15)
    assert ws.compress == 0  # the handshake's answer named no extension
    ana = Phone(ws)
    await ana.hello(token)
    reply = await ana.act({"do": "lose_life", "player": "ana", "amount": 1})
    assert reply["type"] == "ack"
    event = await ana.until("event")
    assert life(event["state"], "ana") == 19

"""The table asks the right phone for the choices the rules give a player for their triggered
abilities (603.3b, 603.3d), from the server's side: an action that needs one is turned down
``choice-needed`` with the choice, changes nothing, and is applied when sent again with the
same id once the controller has chosen (``choose``, from their own seat only); the view and
each change's message carry the open choices and the standing targets, the message only when
they changed (docs/table.md, "Triggers and choices")."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import THG, open_table, phone, seat

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]

THREE = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy")]}
BOND = {"do": "card", "id": "bond", "name": "Sanguine Bond", "controller": "ana"}
GAIN = {"do": "gain_life", "player": "ana", "amount": 3}


async def table_of_three(client: Client) -> tuple[str, Any, Any, Any]:
    table = (await open_table(client, THREE))["id"]
    phones = [await phone(client, table, await seat(client, table, p)) for p in ("ana", "bo", "cy")]
    return table, *phones


async def view_of(client: Client, table: str) -> dict[str, Any]:
    data: dict[str, Any] = await (await client.get(f"/api/tables/{table}")).json()
    return data


async def test_603_3d_a_gain_needing_sanguine_bonds_target_is_turned_down_choice_needed(
    client: Client,
) -> None:
    """Three players, Ana's Sanguine Bond: Cy's tap gaining Ana 3 life needs Ana's choice of
    target (Bo or Cy): answered choice-needed, naming Ana, the card and 603.3d, with the
    choice; nothing changed."""
    table, ana, _bo, cy = await table_of_three(client)
    assert (await ana.act(BOND))["type"] == "ack"
    reply = await cy.act(GAIN)
    assert reply["type"] == "error" and reply["error"] == "choice-needed", reply
    assert reply["rule"] == "603.3d" and reply["member"] == "do"
    assert "Ana" in reply["message"] and "the target of Sanguine Bond (Ana's)" in reply["message"]
    assert "Bo or Cy" in reply["message"]
    assert reply["choice"] == {
        "player": "ana",
        "choice": "targets",
        "ids": ["bond"],
        "options": ["bo", "cy"],
        "rule": "603.3d",
    }
    data = await view_of(client, table)
    assert data["seq"] == 1
    assert [p["life"] for p in data["state"]["players"]] == [20, 20, 20]


async def test_603_3d_the_same_id_is_applied_once_the_controller_has_chosen(
    client: Client,
) -> None:
    """The turned-down change is not remembered as refused: after Ana's choose (Cy), Cy's
    phone sends it again with the same id and it is applied (Ana 23, Cy 17); a third sending
    is the retry of an accepted change (ack, applied once)."""
    table, ana, _bo, cy = await table_of_three(client)
    await ana.act(BOND)
    cid = await cy.send("action", GAIN)
    assert (await cy.reply(cid))["error"] == "choice-needed"
    # Still needed: asked again, answered again (not a cached refusal either way).
    await cy.ws.send_str(json.dumps({"type": "action", "id": cid, "action": GAIN}))
    assert (await cy.reply(cid))["error"] == "choice-needed"
    choice = {"do": "choose", "player": "ana", "targets": {"bond": "cy"}}
    assert (await ana.act(choice))["type"] == "ack"
    await cy.ws.send_str(json.dumps({"type": "action", "id": cid, "action": GAIN}))
    assert (await cy.reply(cid))["type"] == "ack"
    await cy.ws.send_str(json.dumps({"type": "action", "id": cid, "action": GAIN}))
    assert (await cy.reply(cid))["type"] == "ack"
    data = await view_of(client, table)
    assert [p["life"] for p in data["state"]["players"]] == [23, 20, 17]
    assert data["seq"] == 3


async def test_603_3b_two_triggers_at_once_need_the_order_of_their_controller(
    client: Client,
) -> None:
    """Ana's Sanguine Bond and Exquisite Blood, two players: the order is Ana's (603.3b), and
    the view says so as soon as the second card is in play."""
    table = (await open_table(client, {"players": [{"name": "Ana"}, {"name": "Bo"}]}))["id"]
    ana = await phone(client, table, await seat(client, table, "ana"))
    await ana.act(BOND)
    msg = await ana.until("event")
    await ana.act({"do": "card", "id": "blood", "name": "Exquisite Blood", "controller": "ana"})
    msg = await ana.until("event")
    assert msg["choices"]["open"] == [
        {
            "player": "ana",
            "choice": "order",
            "ids": ["bond", "blood"],
            "options": ["bond", "blood"],
            "rule": "603.3b",
        }
    ]
    drain = {"do": "damage", "to": "bo", "amount": 2, "source": "bat", "lifelink": True}
    reply = await ana.act({**drain, "controller": "ana"})
    assert reply["error"] == "choice-needed" and reply["rule"] == "603.3b"
    assert reply["choice"]["choice"] == "order"


async def test_603_3d_only_the_controllers_seat_chooses(client: Client) -> None:
    """603.3b, 603.3d: the controller chooses. Bo's seat can't state Ana's choices, nor Ana
    choose for Bo's card; Ana's own choice is accepted."""
    _table, ana, bo, _cy = await table_of_three(client)
    await ana.act(BOND)
    reply = await bo.act({"do": "choose", "player": "ana", "targets": {"bond": "bo"}})
    assert reply["error"] == "not-your-seat" and reply["rule"] == "603.3d"
    reply = await bo.act({"do": "choose", "player": "bo", "targets": {"bond": "cy"}})
    assert reply["error"] == "not-your-seat" and reply["rule"] == "603.3d"
    assert "Ana" in reply["message"]
    reply = await ana.act({"do": "choose", "player": "ana", "order": ["bond"]})
    assert reply["type"] == "ack"


async def test_603_3d_a_table_device_holding_the_seat_chooses_as_it(client: Client) -> None:
    """A table device holding Ana's and Bo's seats sends Ana's choice as Ana (603.3d);
    as Bo it is refused."""
    table = (await open_table(client, THREE))["id"]
    res = await client.post(
        f"/api/tables/{table}/seats", json={"seats": ["ana", "bo"], "device": "table"}
    )
    tokens = (await res.json())["tokens"]
    ws = await client.ws_connect(f"/ws/t/{table}?device=table")
    hello = {"type": "hello", "token": tokens["ana"], "tokens": list(tokens.values())}
    await ws.send_json({**hello, "device": "table"})

    async def answer(cid: str) -> dict[str, Any]:
        while True:
            msg: dict[str, Any] = await ws.receive_json(timeout=10)
            if msg.get("id") == cid and msg["type"] in ("event", "error", "ack"):
                return msg

    choose = {"do": "choose", "player": "ana", "targets": {"bond": "cy"}}
    for cid, action, acting in (("c1", BOND, "ana"), ("c2", choose, "bo"), ("c3", choose, "ana")):
        await ws.send_json({"type": "action", "id": cid, "action": action, "as": acting})
        msg = await answer(cid)
        if cid == "c2":
            assert msg["type"] == "error" and msg["error"] == "not-your-seat"
        else:
            assert msg["type"] == "event", msg
    assert msg["choices"] == {
        "open": [],
        "targets": {"bond": {"target": "cy", "options": ["bo", "cy"]}},
    }
    await ws.close()


async def test_603_3d_open_choices_in_the_view_and_in_a_message_only_when_changed(
    client: Client,
) -> None:
    """The welcome's view carries the choices; a change's message carries them only when
    they changed (the card entering, Ana's choice), not on a plain life change."""
    table, ana, bo, _cy = await table_of_three(client)
    assert (await view_of(client, table))["choices"] == {"open": [], "targets": {}}
    await ana.act(BOND)
    entered = await bo.until("event")
    assert entered["choices"]["open"] == [
        {
            "player": "ana",
            "choice": "targets",
            "ids": ["bond"],
            "options": ["bo", "cy"],
            "rule": "603.3d",
        }
    ]
    assert entered["choices"]["targets"] == {"bond": {"target": None, "options": ["bo", "cy"]}}
    await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
    plain = await bo.until("event")
    assert "choices" not in plain
    await ana.act({"do": "choose", "player": "ana", "targets": {"bond": "bo"}})
    chosen = await bo.until("event")
    standing = {"bond": {"target": "bo", "options": ["bo", "cy"]}}
    assert chosen["choices"] == {"open": [], "targets": standing}
    data = await view_of(client, table)
    assert data["choices"] == {"open": [], "targets": standing}
    # Bo concedes: the stated target is gone, only Cy is left: the target is Cy, asked of none.
    await bo.act({"do": "concede", "player": "bo"})
    gone = await ana.until("event")
    while gone["entry"]["action"]["do"] != "concede":
        gone = await ana.until("event")
    assert gone["choices"] == {"open": [], "targets": {"bond": {"target": "cy", "options": ["cy"]}}}


async def test_732_2a_a_phone_s_shortcut_is_at_most_a_thousand_events(client: Client) -> None:
    """Found by a hostile run: a phone's shortcut of a million life gains under Sanguine Bond
    held the server for 46 s. A shortcut from a phone is at most SHORTCUT_EVENTS events (its
    times times its actions): one more is turned down too-large, naming ``times``, and
    changes nothing; as many is applied."""
    from lifeledger_table.decide.limits import SHORTCUT_EVENTS

    table, ana, _bo, _cy = await table_of_three(client)
    assert (await ana.act(BOND))["type"] == "ack"
    assert (await ana.act({"do": "choose", "player": "ana", "targets": {"bond": ["bo"]}}))[
        "type"
    ] == "ack"
    gain = {"do": "gain_life", "player": "ana", "amount": 1}
    times = SHORTCUT_EVENTS // 2 + 1
    reply = await ana.act({"do": "repeat", "times": times, "actions": [gain, gain]})
    assert reply["type"] == "error" and reply["error"] == "too-large", reply
    assert reply["member"] == "times" and f"{2 * times:,} events" in reply["message"]
    before = await view_of(client, table)
    assert [p["life"] for p in before["state"]["players"]] == [20, 20, 20]
    reply = await ana.act({"do": "repeat", "times": SHORTCUT_EVENTS, "actions": [gain]})
    assert reply["type"] == "ack", reply
    # Bo is at 0 after 20 iterations (704.5a); the Bond's only legal target is then Cy, at 0
    # after 20 more: Ana wins, and the shortcut stops with the game (732.2a).
    after = await view_of(client, table)
    assert [p["life"] for p in after["state"]["players"]] == [60, 0, 0]
    assert after["state"]["over"] is True


async def test_a_card_s_effects_name_the_card_for_a_phone_that_joins_later(client: Client) -> None:
    """The view's effects name their card: a phone that joins after the card's entry left the
    timeline it is sent (the newest PAGE entries) still shows "Sanguine Bond", not its id."""
    table, ana, _bo, _cy = await table_of_three(client)
    assert (await ana.act(BOND))["type"] == "ack"
    effects = (await view_of(client, table))["effects"]
    assert effects == [
        {"id": "bond", "kind": "gain_drains_target", "controller": "ana", "card": "Sanguine Bond"}
    ]


async def test_a_long_shortcut_s_entry_lists_its_first_and_last_consequences(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A shortcut (732.2a) with more consequences than a change may send to every phone was
    turned down too-large. Its entry lists the first ones, a line saying how many more and
    their rules, and the last ones; the change is applied and the phones see its totals. (The
    iterations alternate, a gain and an exchange of Bo's and Cy's totals, so that they are
    played one by one, not settled at once: 41 of them, 3 consequences each under Sanguine
    Bond, and the shortcut's own note.)"""
    from lifeledger_table.decide import deciding
    from lifeledger_table.decide.engine import NOTES_HEAD, NOTES_SHOWN

    # 41 iterations under Sanguine Bond take milliseconds of the engine's 10 ms a change: a
    # loaded machine may pass it (too-much-work, what test_table_work.py is about).
    monkeypatch.setattr(deciding, "DECISION_SECONDS", 1.0)

    big = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy")], "starting_life": 100_000}
    table = (await open_table(client, big))["id"]
    ana = await phone(client, table, await seat(client, table, "ana"))
    assert (await ana.act(BOND))["type"] == "ack"
    assert (await ana.act({"do": "choose", "player": "ana", "targets": {"bond": ["bo"]}}))[
        "type"
    ] == "ack"
    gain = {"do": "gain_life", "player": "ana", "amount": 1}
    swap = {"do": "exchange_life", "players": ["bo", "cy"]}
    reply = await ana.act({"do": "repeat", "times": 41, "actions": [gain, swap]})
    assert reply["type"] == "ack", reply
    data = await view_of(client, table)
    assert [p["life"] for p in data["state"]["players"]] == [100_041, 99_980, 99_979]
    notes = data["entries"][-1]["notes"]
    assert len(notes) == NOTES_SHOWN
    summary = notes[NOTES_HEAD]
    assert summary["text"].startswith(f"… and {124 - NOTES_SHOWN + 1:,} more consequences")
    assert summary["rule"] == "603.2, 603.3b, 608.2"
    assert notes[-1]["rule"] == "732.2a"  # the shortcut's own note, last


async def test_616_1_the_order_of_replacements_is_asked_of_the_player_gaining_life(
    client: Client,
) -> None:
    """Ana's Rhox Faithmender and Bo's Tainted Remedy both apply when Ana gains life: the
    order is Ana's, the affected player's (616.1), open in the view as soon as both are in
    play. Bo's tap gaining Ana 3 is turned down choice-needed; Bo can't choose for her; once
    Ana states the doubler first, the same id lands: a loss of 6 (Ana 14)."""
    table = (await open_table(client, {"players": [{"name": "Ana"}, {"name": "Bo"}]}))["id"]
    ana = await phone(client, table, await seat(client, table, "ana"))
    bo = await phone(client, table, await seat(client, table, "bo"))
    rhox = {"do": "card", "id": "rhox", "name": "Rhox Faithmender", "controller": "ana"}
    assert (await ana.act(rhox))["type"] == "ack"
    remedy = {"do": "card", "id": "remedy", "name": "Tainted Remedy", "controller": "bo"}
    assert (await bo.act(remedy))["type"] == "ack"
    wanted = {
        "player": "ana",
        "choice": "replacements",
        "ids": ["remedy", "rhox"],
        "options": ["remedy", "rhox"],
        "rule": "616.1",
    }
    assert (await view_of(client, table))["choices"]["open"] == [wanted]
    cid = await bo.send("action", {"do": "gain_life", "player": "ana", "amount": 3})
    reply = await bo.reply(cid)
    assert reply["error"] == "choice-needed" and reply["rule"] == "616.1", reply
    assert reply["choice"] == wanted
    assert (
        "Waiting for Ana to choose the order in which Tainted Remedy and Rhox Faithmender "
        "apply to the life Ana gains (616.1)"
    ) in reply["message"]
    order = {"do": "choose", "player": "ana", "replacements": ["rhox", "remedy"]}
    assert (await bo.act(order))["error"] == "not-your-seat"
    assert (await ana.act(order))["type"] == "ack"
    assert (await view_of(client, table))["choices"]["open"] == []
    await bo.ws.send_str(
        json.dumps(
            {
                "type": "action",
                "id": cid,
                "action": {"do": "gain_life", "player": "ana", "amount": 3},
            }
        )
    )
    assert (await bo.reply(cid))["type"] == "ack"
    data = await view_of(client, table)
    assert [p["life"] for p in data["state"]["players"]] == [14, 20]


async def test_616_1_which_lichs_mirror_replaces_a_teams_loss_is_asked_of_its_first_head(
    client: Client,
) -> None:
    """Two-Headed Giant: Ana and Bo each control Lich's Mirror, and the team's loss (810.8a)
    is one event either would replace (614.1a). Ana, the first seated head, chooses (616.1):
    open as soon as both are in play; Cy's lethal damage is turned down choice-needed naming
    both Mirrors and their controllers; Bo can't choose for her; once Ana picks Bo's, the
    damage lands and the team's total becomes 20 (810.9c)."""
    table = (await open_table(client, THG))["id"]
    ana, bo, cy = [
        await phone(client, table, await seat(client, table, p)) for p in ("ana", "bo", "cy")
    ]
    for who, p in (("ana", ana), ("bo", bo)):
        mirror = {"do": "card", "id": f"{who}-m", "name": "Lich's Mirror", "controller": who}
        assert (await p.act(mirror))["type"] == "ack"
    wanted = {
        "player": "ana",
        "choice": "replacements",
        "ids": ["ana-m", "bo-m"],
        "options": ["ana-m", "bo-m"],
        "rule": "616.1",
    }
    assert (await view_of(client, table))["choices"]["open"] == [wanted]
    hit = {"do": "damage", "to": "bo", "amount": 40, "source": "dragon"}
    reply = await cy.act(hit)
    assert reply["error"] == "choice-needed" and reply["choice"] == wanted, reply
    assert (
        "Waiting for Ana to choose which of Lich's Mirror (Ana's) and Lich's Mirror (Bo's) "
        "replaces Ana's loss of the game (616.1)"
    ) in reply["message"]
    pick = {"do": "choose", "player": "ana", "replacements": ["bo-m", "ana-m"]}
    assert (await bo.act(pick))["error"] == "not-your-seat"
    assert (await ana.act(pick))["type"] == "ack"
    assert (await cy.act(hit))["type"] == "ack"
    data = await view_of(client, table)
    assert (
        data["state"]["teams"][0]["life"] == 20 and data["state"]["teams"][0]["status"] == "playing"
    )
    assert [e["id"] for e in data["effects"]] == ["ana-m"]

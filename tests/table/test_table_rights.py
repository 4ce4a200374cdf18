"""Who may do what from a seat (docs/table.md, "Who may do what"): each row of the table there,
from the server's side, on its own and inside groups (issue 7 item 11)."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import THG, TWO, open_table, phone, seat

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]


def group(*actions: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"do": "together", "actions": list(actions), **extra}


def nested(action: dict[str, Any]) -> dict[str, Any]:
    """The action inside a group inside a group, after an action anyone may send."""
    return group({"do": "gain_life", "player": "ana", "amount": 1}, group(action))


# Sent from Ana's seat about Bo: refused, with the rule that makes it Bo's alone.
REFUSED = [
    ({"do": "concede", "player": "bo"}, "104.3a"),
    ({"do": "penalty", "player": "bo"}, "104.3k"),
    ({"do": "pay_life", "player": "bo", "amount": 1}, "119.4"),
    ({"do": "pay_life", "payments": {"ana": 1, "bo": 1}}, "119.4"),
    ({"do": "lose", "player": "bo"}, "104.3e"),
    ({"do": "lose", "players": ["ana", "bo"]}, "104.3e"),
    ({"do": "win", "player": "bo"}, "104.2b"),
    ({"do": "draw_game"}, "104.4c"),
]


# Issue 21 item 8: what ends the game, or decides who wins or loses, needs its source even
# from the player's own seat: a seat won for itself (its opponents lost) and a `loop` ended
# the game in a draw with no source, while `draw_game` needed one.
def effect(kind: str, controller: str = "ana", **extra: Any) -> dict[str, Any]:
    return {"do": "effect", "id": "e1", "kind": kind, "controller": controller, **extra}


ENDS_THE_GAME = [
    ({"do": "win", "player": "ana"}, "104.2b"),
    ({"do": "loop", "controllers": ["ana", "bo"]}, "104.4b"),
    ({"do": "restart", "controller": "ana"}, "727.1"),
    ({"do": "restart"}, "727.1"),
    (effect("win_at_upkeep", life_at_least=0), "104.2b"),
    (effect("win_at_upkeep_with_1"), "104.2b"),
    (effect("win_on_empty_draw"), "104.2b"),
    (effect("cant_lose_game"), "104.3"),
    (effect("no_loss_for_life"), "104.3"),
    (effect("losing_replaced"), "104.3"),
    (effect("cant_win_game", affects="opponents"), "104.2"),
    (effect("cant_win_game", "bo"), "104.2"),
    (effect("lose_at_20_life", "bo"), "104.3e"),
]
REFUSED += ENDS_THE_GAME

# Sent from Ana's seat: accepted (an effect does it, or it is Ana's own to decide).
ALLOWED = [
    {"do": "damage", "to": "bo", "amount": 3, "source": "bolt"},
    {"do": "lose_life", "player": "bo", "amount": 1},
    {"do": "gain_life", "player": "bo", "amount": 1},
    {"do": "set_life", "player": "bo", "to": 12},
    {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 2},
    {"do": "remove_counters", "player": "bo", "kind": "poison", "amount": 1},
    {"do": "exchange_life", "players": ["ana", "bo"]},
    {"do": "draw", "player": "bo", "count": 1},
    {"do": "upkeep", "player": "bo"},
    {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "bo"},
    {"do": "lose", "player": "bo", "source": "Door to Nothingness"},
    {"do": "win", "player": "bo", "source": "Test of Endurance"},
    {"do": "draw_game", "source": "Divine Intervention"},
    {"do": "loop", "controllers": ["ana", "bo"], "source": "Sanguine Bond, Exquisite Blood"},
    {"do": "restart", "controller": "bo", "source": "Karn Liberated"},
    effect("win_at_upkeep", "bo", life_at_least=40, source="Felidar Sovereign"),
    effect("cant_lose_game", source="Platinum Angel"),
    # An effect that only makes the sender lose, or unable to win, is theirs (104.3a).
    effect("cant_win_game"),
    effect("lose_at_20_life"),
    effect("cant_win_game", affects=["ana"]),
    {"do": "concede", "player": "ana"},
    {"do": "penalty", "player": "ana"},
    {"do": "pay_life", "player": "ana", "amount": 2},
    {"do": "lose", "player": "ana"},
    {"do": "win", "player": "ana", "source": "Felidar Sovereign"},
    # A group's source is the source of the actions in it.
    group({"do": "lose", "player": "bo"}, source="Door to Nothingness"),
]


async def ana_and_table(client: Client, form: dict[str, Any] | None = None) -> tuple[Any, Any]:
    table = await open_table(client, form or TWO)
    return table, await phone(client, table["id"], await seat(client, table["id"], "ana"))


@pytest.mark.parametrize("action,rule", REFUSED)
@pytest.mark.parametrize("wrap", ["alone", "group", "nested", "shortcut"])
async def test_a_seat_cannot_decide_what_is_another_players(
    client: Client, action: dict[str, Any], rule: str, wrap: str
) -> None:
    """issue 7 item 11: conceding, a judge's game loss, paying life, and an effect's win or
    loss without its source are refused for another player, on their own and inside groups;
    and inside a shortcut (732.2a: found by a review, a `repeat` of Bo's concession from Ana's
    seat conceded for Bo)."""
    table, ana = await ana_and_table(client)
    shortcut = {"do": "repeat", "times": 1, "actions": [nested(action)]}
    sent = {"alone": action, "group": group(action), "nested": nested(action)}.get(wrap, shortcut)
    reply = await ana.act(sent)
    assert reply["type"] == "error" and reply["error"] == "not-your-seat", reply
    assert reply["rule"] == rule and reply["message"]
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 0


@pytest.mark.parametrize("action", ALLOWED)
@pytest.mark.parametrize("wrap", ["alone", "nested"])
async def test_a_seat_may_record_what_an_effect_does_to_anyone(
    client: Client, action: dict[str, Any], wrap: str
) -> None:
    """issue 7 item 11: opponents deal damage, make you lose life, give you counters and make
    you draw; an effect naming its source may make anyone win or lose; your own is yours."""
    if wrap == "nested" and action["do"] == "restart":
        pytest.skip("a restart can't be part of a group")
    _table, ana = await ana_and_table(client)
    reply = await ana.act(action if wrap == "alone" else nested(action))
    assert reply["type"] == "ack", reply


async def test_teammates_pay_life_together_but_not_for_the_other_team(client: Client) -> None:
    """issue 7 item 11: in Two-Headed Giant a team's members may pay at once from one phone
    (810.9b); paying for a player of the other team is refused (119.4)."""
    _table, ana = await ana_and_table(client, THG)
    assert (await ana.act({"do": "pay_life", "payments": {"ana": 1, "bo": 2}}))["type"] == "ack"
    reply = await ana.act({"do": "pay_life", "payments": {"ana": 1, "cy": 2}})
    assert reply["error"] == "not-your-seat" and reply["rule"] == "119.4"
    reply = await ana.act({"do": "pay_life", "player": "bo", "amount": 1})
    assert reply["error"] == "not-your-seat"


async def test_an_intentional_draw_needs_every_seated_player_in_the_game(client: Client) -> None:
    """issue 7 item 11: 104.4i, all players in the game agree: the draw happens once every
    seated player still in the game has sent it since the last change."""
    three = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy")]}
    table = await open_table(client, three)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    bo = await phone(client, table["id"], await seat(client, table["id"], "bo"))
    draw = {"do": "intentional_draw"}
    reply = await ana.act(draw)
    assert reply["error"] == "awaiting-agreement" and reply["rule"] == "104.4i"
    assert "Bo" in reply["message"] and "Cy" not in reply["message"]  # Cy has no seat
    # A change in between: the agreement starts again.
    await bo.act({"do": "lose_life", "player": "cy", "amount": 1})
    assert (await bo.act(draw))["error"] == "awaiting-agreement"
    assert (await ana.act(draw))["type"] == "ack"
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["state"]["over"] is True
    assert {p["status"] for p in data["state"]["players"]} == {"drew"}


async def test_a_lone_seat_may_record_an_intentional_draw(client: Client) -> None:
    """issue 7 item 11: with no other seat taken, the one phone speaks for the table."""
    _table, ana = await ana_and_table(client)
    assert (await ana.act({"do": "intentional_draw"}))["type"] == "ack"


@pytest.mark.rule("104.3e")
@pytest.mark.asyncio
async def test_104_3e_a_blank_source_names_no_card(client: Client) -> None:
    """issue 7 item 11 (found by an audit): a source of " " or a lone zero-width joiner
    counted as naming the card that makes another player lose."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    for blank in (" ", "\u200d", "--"):
        answer = await ana.act({"do": "lose", "player": "bo", "source": blank})
        assert answer.get("error") == "not-your-seat", blank
    answer = await ana.act({"do": "lose", "player": "bo", "source": "Door to Nothingness"})
    assert answer["type"] == "ack"


# Version 2's designations (issue 11): an effect instructs the player, and no player chooses
# them (725.1, 726.1; ascend is no choice, 702.131a-b), so any seat records them for anyone.
DESIGNATIONS = [
    ({"do": "become_monarch", "player": "bo"}, "monarch", "bo"),
    ({"do": "take_initiative", "player": "bo"}, "initiative", "bo"),
    ({"do": "city_blessing", "player": "bo"}, "city_blessing", ["bo"]),
]


@pytest.mark.parametrize("action,member,holder", DESIGNATIONS)
@pytest.mark.parametrize("wrap", ["alone", "nested"])
async def test_a_seat_may_record_a_designation_for_anyone_725_1_726_1_702_131c(
    client: Client, action: dict[str, Any], member: str, holder: Any, wrap: str
) -> None:
    """issue 11: Ana's seat makes Bo the monarch, gives Bo the initiative, gives Bo the
    city's blessing; then combat damage from Ana's creature to Bo, naming its controller,
    passes the monarch and the initiative to Ana (725.2, 726.2)."""
    table, ana = await ana_and_table(client)
    reply = await ana.act(action if wrap == "alone" else nested(action))
    assert reply["type"] == "ack", reply
    got = (await (await client.get(f"/api/tables/{table['id']}")).json())["state"]["designations"]
    assert got[member] == holder
    hit = {"do": "damage", "to": "bo", "amount": 2, "source": "Bears", "combat": True}
    assert (await ana.act({**hit, "controller": "ana"}))["type"] == "ack"
    got = (await (await client.get(f"/api/tables/{table['id']}")).json())["state"]["designations"]
    assert got[member] == (["bo"] if member == "city_blessing" else "ana")


@pytest.mark.parametrize("action,rule", ENDS_THE_GAME)
async def test_what_ends_the_game_or_decides_a_result_needs_its_source_from_any_seat(
    client: Client, action: dict[str, Any], rule: str
) -> None:
    """Issue 21 item 8: from Ana's own seat, winning (her opponent loses), a loop's draw, a
    restart, and an effect that decides who wins or loses are refused without the card that
    does it, and change nothing; with it, they are recorded."""
    table, ana = await ana_and_table(client)
    reply = await ana.act(action)
    assert reply["error"] == "not-your-seat" and reply["rule"] == rule, reply
    assert "(its source)" in reply["message"]
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 0 and data["state"]["over"] is False
    assert (await ana.act({**action, "source": "A Card"}))["type"] == "ack"

"""The turn tracker from the server's side (issue 11, "At the table"; docs/table.md, "Turns"):
a table of record version 2 applies ``turn``, ``step``, ``cast`` and ``day_night`` from any
seat, every phone sees the changes, and the view's ``turns`` gives what the engine knows —
who may play first and who skips the first draw (103.1b, 103.8a-c, 810.6), whose turn is next
(103.1, 805.4, 810.2, 800.4), the spells cast this turn (502.2, 731.2), the rad counters to
state (728.1), and a Grand Melee that can't take turns (807.4)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import THG, TWO, Phone, open_table, seat

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]

THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}]}


class Tracker:
    """A phone that keeps the view's ``turns`` as the page does: from the welcome, then from
    each event that carries it (only when it changed)."""

    def __init__(self, p: Phone, welcome: dict[str, Any]) -> None:
        self.p = p
        self.turns: dict[str, Any] | None = welcome.get("turns")

    async def event(self) -> dict[str, Any]:
        msg = await self.p.until("event")
        if "turns" in msg:
            self.turns = msg["turns"]
        return msg

    @property
    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.p.view["state"]
        return state


async def tracker(client: Client, table: str, player: str | None) -> Tracker:
    """A seated phone (or a spectator's, with no player) that tracks the turns."""
    token = await seat(client, table, player) if player else None
    seated = f"?token={token}" if token else ""
    ws = await client.ws_connect(f"/ws/t/{table}{seated}")
    p = Phone(ws)
    return Tracker(p, await p.hello(token))


async def act(t: Tracker, action: dict[str, Any]) -> dict[str, Any]:
    """Send an action from this phone; returns its event (or the error)."""
    reply = await t.p.act(action)
    if reply["type"] != "ack":
        return reply
    return await t.event()


async def test_a_version_2_table_takes_turns_and_every_phone_sees_them_500_1_103_8a(
    client: Client,
) -> None:
    """500.1, 103.8a: Ana plays first (offered with 103.8a: she skips her first draw), her
    steps and spells are recorded from Bo's phone too (any seat keeps the table's clock), and
    Bo's phone sees every change; the next turn is Bo's, as the engine says."""
    table = await open_table(client, TWO)
    ana = await tracker(client, table["id"], "ana")
    bo = await tracker(client, table["id"], "bo")
    assert ana.turns is not None
    assert ana.turns["first"] == ["ana", "bo"]
    assert ana.turns["first_draw"] == "103.8a"
    assert ana.turns["next"] is None
    assert ana.state["turn"] is None

    event = await act(ana, {"do": "turn", "player": "ana"})
    assert [c["what"] for c in event["entry"]["changes"]] == ["turn"]
    seen = await bo.event()
    assert bo.state["turn"] == {"number": 1, "active": ["ana"], "team": None, "step": "upkeep"}
    assert seen["turns"]["first"] == [] and bo.turns is not None and bo.turns["next"] == "bo"

    # Bo's seat records Ana's draw step: she skips it (103.8a), as the engine notes.
    event = await act(bo, {"do": "step", "step": "draw"})
    skip = "ana plays first and skips the draw step of the first turn"
    assert {"rule": "103.8a", "text": skip} in [
        {"rule": n["rule"], "text": n["text"]} for n in event["entry"]["notes"]
    ]
    await ana.event()
    assert ana.state["turn"]["step"] == "draw"

    # Day and night (731.1), and two spells Ana casts (502.2): counted for this turn.
    await act(ana, {"do": "day_night", "to": "night"})
    await bo.event()
    assert bo.state["designations"]["day_night"] == "night"
    await act(bo, {"do": "cast", "player": "ana", "count": 2})
    await ana.event()
    assert ana.turns is not None and ana.turns["cast"] == {"ana": 2}

    # The next turn: 731.2b, night becomes day after 2 spells; the count starts again.
    event = await act(ana, {"do": "turn", "player": "bo"})
    assert any(n["rule"] == "502.2" for n in event["entry"]["notes"])
    await bo.event()
    assert bo.state["turn"]["number"] == 2 and bo.state["turn"]["active"] == ["bo"]
    assert bo.state["designations"]["day_night"] == "day"
    assert bo.turns is not None and bo.turns["cast"] == {} and bo.turns["next"] == "ana"


async def test_turns_pass_at_a_table_that_counts_no_library_and_nobody_loses_504_1_103_8a(
    client: Client,
) -> None:
    """504.1: each draw step's active player draws a card; a library the table doesn't count
    is untracked (the header omits it), so the draw never runs out: Ana skips her first draw
    (103.8a), Bo draws in his, and nobody loses. The sheet's "Library is empty now" (set_library
    0, from any seat) makes Bo's next draw step an attempt to draw from an empty library: he
    loses (121.4, 704.5b)."""
    table = await open_table(client, TWO)
    ana = await tracker(client, table["id"], "ana")
    bo = await tracker(client, table["id"], "bo")
    for player in ("ana", "bo", "ana"):
        await act(ana, {"do": "turn", "player": player})
        await act(bo, {"do": "step", "step": "draw"})
    assert ana.state["turn"]["number"] == 3
    assert [(p["library"], p["status"]) for p in ana.state["players"]] == [
        (None, "playing"),
        (None, "playing"),
    ]
    event = await act(ana, {"do": "set_library", "player": "bo", "count": 0})
    assert {"player": "bo", "what": "library", "from": None, "to": 0} in event["entry"]["changes"]
    await bo.event()
    assert [p["status"] for p in bo.state["players"]] == ["playing", "playing"]
    await act(ana, {"do": "turn", "player": "bo"})
    await act(ana, {"do": "step", "step": "draw"})
    bo_state = ana.state["players"][1]
    assert (bo_state["status"], bo_state["reason"], bo_state["rule"]) == (
        "lost",
        "empty-library",
        "704.5b",
    )


@pytest.mark.parametrize(
    "form,rule",
    [(TWO, "103.8a"), (THG, "810.6"), (THREE, "103.8c")],
    ids=["two-player", "two-headed-giant", "free-for-all"],
)
async def test_the_view_gives_who_skips_the_first_draw_103_8a_810_6_103_8c(
    client: Client, form: dict[str, Any], rule: str
) -> None:
    """103.8a: the player who plays first in a two-player game; 103.8b, 810.6: the team in
    Two-Headed Giant; 103.8c: no one in other multiplayer games. The rule is the engine's."""
    table = await open_table(client, form)
    watcher = await tracker(client, table["id"], None)
    assert watcher.turns is not None and watcher.turns["first_draw"] == rule
    info = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["turns"]["first_draw"] == rule


async def test_the_next_player_skips_one_who_left_the_game_103_1_800_4(client: Client) -> None:
    """103.1: turn order goes clockwise from the starting player; 800.4: a player who left
    the game takes no turns, so the next player is the one after them."""
    table = await open_table(client, THREE)
    ana = await tracker(client, table["id"], "ana")
    bo = await tracker(client, table["id"], "bo")
    await act(ana, {"do": "turn", "player": "ana"})
    await bo.event()
    assert bo.turns is not None and bo.turns["next"] == "bo"
    await act(bo, {"do": "concede", "player": "bo"})
    await ana.event()
    assert ana.turns is not None and ana.turns["next"] == "cy"


async def test_a_team_takes_the_turn_in_two_headed_giant_805_4_810_2(client: Client) -> None:
    """805.4a, 810.2: naming Bo begins the North team's turn, both heads active; the next
    turn is the South team's (named by its first seated player); the team skips its first
    draw (810.6)."""
    table = await open_table(client, THG)
    ana = await tracker(client, table["id"], "ana")
    cy = await tracker(client, table["id"], "cy")
    assert ana.turns is not None and ana.turns["shared"] is True
    await act(cy, {"do": "turn", "player": "bo"})
    await ana.event()
    turn = ana.state["turn"]
    assert turn["active"] == ["ana", "bo"] and turn["team"] == "north" and turn["number"] == 1
    assert ana.turns["next"] == "cy"
    event = await act(ana, {"do": "step", "step": "draw"})
    assert any(n["rule"] == "810.6" for n in event["entry"]["notes"])
    await act(ana, {"do": "turn", "player": "cy"})
    await cy.event()
    await cy.event()
    assert cy.state["turn"]["active"] == ["cy", "di"] and cy.state["turn"]["team"] == "south"
    assert cy.turns is not None and cy.turns["next"] == "ana"


async def test_an_undo_takes_back_a_turn_and_the_first_turn_is_offered_again_500_1(
    client: Client,
) -> None:
    """An undo of the first ``turn``: no turn again (500.1), and the view offers who may play
    first once more, on every phone."""
    table = await open_table(client, TWO)
    ana = await tracker(client, table["id"], "ana")
    bo = await tracker(client, table["id"], "bo")
    event = await act(ana, {"do": "turn", "player": "bo"})
    await bo.event()
    reply = await ana.p.reply(await ana.p.send("undo", target=event["seq"]))
    assert reply["type"] == "ack"
    await ana.event()
    msg = await bo.event()
    assert msg["entry"]["kind"] == "undo"
    assert bo.state["turn"] is None
    assert bo.turns is not None and bo.turns["first"] == ["ana", "bo"] and bo.turns["next"] is None


async def test_the_archenemy_takes_the_first_turn_and_no_other_player_may_103_1b(
    client: Client,
) -> None:
    """103.1b, 904.6: the archenemy takes the first turn: the view offers only them, and a
    hero's first turn is refused with the rule (nothing changes)."""
    form = {
        "variant": "archenemy",
        "players": [{"name": "Ana", "archenemy": True}, {"name": "Bo"}, {"name": "Cy"}],
    }
    table = await open_table(client, form)
    bo = await tracker(client, table["id"], "bo")
    assert bo.turns is not None and bo.turns["first"] == ["ana"]
    reply = await act(bo, {"do": "turn", "player": "bo"})
    assert reply["type"] == "error" and reply["error"] == "refused" and reply["rule"] == "103.1b"
    assert (await act(bo, {"do": "turn", "player": "ana"}))["type"] == "event"
    assert bo.state["turn"]["active"] == ["ana"]


async def test_rad_counters_are_offered_with_the_most_they_can_mill_728_1(client: Client) -> None:
    """728.1: an active player with rad counters mills that many cards as the main phase
    begins; the view names them with the count to ask for, a step into the main phase without
    it is malformed, and with it the nonland cards cost life and rad counters. (Ana's library
    is counted: the most she can mill is the smaller of her rad counters and her library.)"""
    table = await open_table(client, {"players": [{"name": "Ana", "library": 40}, {"name": "Bo"}]})
    ana = await tracker(client, table["id"], "ana")
    await act(ana, {"do": "add_counters", "player": "ana", "kind": "rad", "amount": 3})
    await act(ana, {"do": "turn", "player": "ana"})
    assert ana.turns is not None and ana.turns["radiation"] == {"ana": 3}
    reply = await act(ana, {"do": "step", "step": "main"})
    assert reply["type"] == "error" and reply["error"] == "malformed"
    await act(ana, {"do": "step", "step": "end", "nonland_milled": {"ana": 2}})
    player = ana.state["players"][0]
    assert player["life"] == 18 and player["counters"] == {"rad": 1}
    assert ana.turns["radiation"] == {}


async def test_grand_melee_of_eight_takes_no_turns_807_4(client: Client) -> None:
    """807.4: a Grand Melee game of 8 or more players has several turn markers; version 2
    records no simultaneous turns, so the view says so and a ``turn`` is malformed."""
    names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    table = await open_table(
        client, {"variant": "grand-melee", "players": [{"name": n} for n in names]}
    )
    ana = await tracker(client, table["id"], "ana")
    assert ana.turns is not None and ana.turns["markers"] == "807.4"
    reply = await act(ana, {"do": "turn", "player": "ana"})
    assert reply["type"] == "error" and reply["error"] == "malformed"


async def test_two_phones_pressing_next_at_once_begin_one_turn_500_1(client: Client) -> None:
    """Ana's and Bo's phones both press "Next" on turn 1: each sends Bo's turn ``at_turn`` 1.
    The first begins turn 2; the second is answered ``stale`` (turn 2 has begun since) and
    changes nothing, where without it Bo would have taken a second turn (500.7). A retry of
    the first (a lost reply) is its acknowledgement again; a malformed ``at_turn`` is named."""
    table = (await open_table(client, TWO))["id"]
    ana, bo = await tracker(client, table, "ana"), await tracker(client, table, "bo")
    assert (await act(ana, {"do": "turn", "player": "ana"}))["type"] == "event"
    next_turn = {"do": "turn", "player": "bo"}
    await ana.p.ws.send_str(
        json.dumps({"type": "action", "id": "next-a", "action": next_turn, "at_turn": 1})
    )
    await bo.p.ws.send_str(
        json.dumps({"type": "action", "id": "next-b", "action": next_turn, "at_turn": 1})
    )
    assert (await ana.p.reply("next-a"))["type"] == "ack"
    stale = await bo.p.reply("next-b")
    assert stale["type"] == "error" and stale["error"] == "stale", stale
    assert stale["member"] == "at_turn" and "Turn 2 (Bo's) has begun since" in stale["message"]
    data = await (await client.get(f"/api/tables/{table}")).json()
    assert data["state"]["turn"]["number"] == 2 and data["seq"] == 2
    await ana.p.ws.send_str(
        json.dumps({"type": "action", "id": "next-a", "action": next_turn, "at_turn": 1})
    )
    assert (await ana.p.reply("next-a"))["type"] == "ack"  # the retry: applied once
    for bad in ("2", True, -1, 10**10):
        await ana.p.ws.send_str(
            json.dumps({"type": "action", "id": "bad", "action": next_turn, "at_turn": bad})
        )
        reply = await ana.p.reply("bad")
        assert reply["error"] == "malformed" and reply["member"] == "at_turn", reply
    data = await (await client.get(f"/api/tables/{table}")).json()
    assert data["seq"] == 2

"""Rule stories for version 2 of the record: turns (500-514, 103.8, 805, 810.2-810.7, 904) and
the designations (725 the monarch, 726 the initiative, 731 day and night, 702.131c the city's
blessing), each a short game told through the record (``docs/record-format.md``).
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import Game, Seat, record
from lifeledger.errors import MalformedError, RefusedError
from stories import Story, card, damage, effect, gain, step, turn, v2


def rad(player: str, amount: int) -> dict[str, Any]:
    return {"do": "add_counters", "player": player, "kind": "rad", "amount": amount}


def libraries(st: dict[str, Any]) -> dict[str, int | None]:
    return {p["id"]: p["library"] for p in st["players"]}


def lib(pid: str, n: int = 10) -> dict[str, Any]:
    return {"id": pid, "library": n}


THG = [
    {"id": "ana", "team": "north", "library": 10},
    {"id": "bo", "team": "north", "library": 10},
    {"id": "cy", "team": "south", "library": 10},
    {"id": "di", "team": "south", "library": 10},
]


# --- the record's version -------------------------------------------------------------------


def test_a_version_1_record_has_no_turns_or_designations():
    s = Story(["ana", "bo"])
    state = s.state()
    assert state["record"] == 1 and "turn" not in state and "designations" not in state
    err = s.malformed(turn("ana"))
    assert (err.position, err.member) == ("0", "do")
    err = s.malformed(effect("e", "cant_lose_game", "ana", until="end_of_turn"))
    assert err.member == "until"


def test_a_version_2_record_states_its_turn_and_designations():
    state = v2(["ana", "bo"]).state()
    assert state["record"] == 2
    assert state["turn"] is None
    assert state["designations"] == {
        "monarch": None,
        "initiative": None,
        "day_night": None,
        "city_blessing": [],
    }


def test_record_version_3_is_malformed():
    with pytest.raises(MalformedError) as err:
        Story(["ana", "bo"], record=3).state()
    assert err.value.member == "record"


def test_a_version_2_game_round_trips_through_the_record():
    game = Game([Seat("ana", library=5), Seat("bo", library=5)], version=2)
    game.turn("ana")
    game.become_monarch("ana")
    game.step("end")
    game.turn("bo")
    game.cast("bo", 2)
    game.day_night("night")
    game.city_blessing("ana")
    game.take_initiative("bo")
    game.effect("e", "cant_gain_life", "bo", "opponents", until="end_of_turn")
    again = record.loads(record.dumps(game))
    assert again.game.version == 2
    assert record.dumps(again.game) == record.dumps(game)
    assert (again.game.monarch, again.game.initiative, again.game.day_or_night) == (
        "ana",
        "bo",
        "night",
    )
    assert again.game.player("ana").library == 4  # 103.8a, then the monarch's draw (725.2)


# --- 500.1 the steps of a turn ------------------------------------------------------------------


@pytest.mark.rule("500.1")
def test_500_1_a_turn_goes_through_its_steps_in_order():
    s = v2([lib("ana"), lib("bo")])
    assert s.do(turn("ana"))["turn"] == {
        "number": 1,
        "active": ["ana"],
        "team": None,
        "step": "upkeep",
    }
    assert s.do(step("main"))["turn"]["step"] == "main"
    s.do(step("draw"))
    assert s.refused_last()["rule"] == "500.1"  # the draw step is over
    s.do(step("main"))
    assert s.refused_last()["rule"] == "500.1"  # it has begun
    assert s.do(step("cleanup"))["turn"]["step"] == "cleanup"
    s.do(step("cleanup"))  # 514.3a: another cleanup step
    assert s.refused_last() is None


@pytest.mark.rule("500.1")
def test_500_1_no_step_before_the_first_turn_and_none_inside_a_group():
    s = v2(["ana", "bo"])
    s.do(step("draw"))
    assert s.refused_last()["rule"] == "500.1"
    err = s.malformed({"do": "together", "actions": [turn("ana")]})
    assert (err.position, err.member) == ("1.0", "do")


@pytest.mark.rule("500.1")
def test_500_1_combat_damage_comes_after_the_precombat_main_phase():
    s = v2(["ana", "bo"])
    s.do(turn("ana"))
    s.do(damage("bo", 3, combat=True))
    assert s.refused_last()["rule"] == "500.1"
    s.do(damage("bo", 3))  # non-combat damage: any time
    assert s.refused_last() is None
    s.do(step("main"))
    assert s.do(damage("bo", 3, combat=True)).life("bo") == 14
    s.do(step("end"))
    s.do(damage("bo", 3, combat=True))
    assert s.refused_last()["rule"] == "500.1"


@pytest.mark.rule("500.1")
def test_500_1_a_new_turn_finishes_the_last_one_first():
    s = v2([lib("ana"), lib("bo")])
    s.do(turn("ana"))
    s.do({"do": "become_monarch", "player": "ana"})
    st = s.do(turn("bo"))  # ana's end step happened: the monarch drew (725.2)
    assert libraries(st) == {"ana": 9, "bo": 10}
    st = s.do(turn("ana"))  # bo's draw step happened
    assert libraries(st) == {"ana": 9, "bo": 9}


# --- 103.8 who skips the first draw -------------------------------------------------------------


@pytest.mark.rule("103.8a")
def test_103_8a_in_a_two_player_game_the_first_player_skips_their_first_draw():
    s = v2([lib("ana"), lib("bo")])
    s.do(turn("ana"))
    assert libraries(s.do(step("draw"))) == {"ana": 10, "bo": 10}
    s.do(turn("bo"))
    assert libraries(s.do(step("draw"))) == {"ana": 10, "bo": 9}
    s.do(turn("ana"))
    assert libraries(s.do(step("draw"))) == {"ana": 9, "bo": 9}


@pytest.mark.rule("103.8a")
def test_103_8a_a_game_that_begins_with_two_players_is_a_two_player_game():
    # Archenemy against one hero: a two-player game (800.1), so the archenemy skips.
    s = v2([{"id": "arch", "archenemy": True, "library": 5}, lib("hero", 5)], variant="archenemy")
    s.do(turn("arch"))
    assert libraries(s.do(step("draw")))["arch"] == 5


@pytest.mark.rule("103.8b")
def test_103_8b_in_two_headed_giant_the_first_team_skips_its_first_draw():
    s = v2(THG, variant="two-headed-giant")
    s.do(turn("bo"))
    assert set(libraries(s.do(step("draw"))).values()) == {10}
    s.do(turn("cy"))
    assert libraries(s.do(step("draw"))) == {"ana": 10, "bo": 10, "cy": 9, "di": 9}


@pytest.mark.rule("810.6")
def test_810_6_the_team_who_plays_first_skips_the_draw_step_of_its_first_turn():
    s = v2(THG, variant="two-headed-giant")
    s.do(turn("cy"))
    s.do(step("draw"))
    s.do(turn("ana"))
    s.do(step("draw"))
    st = s.do(turn("di"))  # south's second turn: its draw step comes
    st = s.do(step("draw"))
    assert libraries(st) == {"ana": 9, "bo": 9, "cy": 9, "di": 9}


@pytest.mark.rule("103.8c")
def test_103_8c_in_other_multiplayer_games_no_player_skips_their_first_draw():
    s = v2([lib("ana"), lib("bo"), lib("cy")], variant="free-for-all")
    s.do(turn("ana"))
    assert libraries(s.do(step("draw"))) == {"ana": 9, "bo": 10, "cy": 10}


@pytest.mark.rule("504.1")
def test_504_1_the_draw_from_an_empty_library_loses_and_lab_maniac_wins_instead():
    s = v2([lib("ana", 3), lib("bo", 0)])
    s.do(turn("ana"))
    s.do(turn("bo"))
    st = s.do(step("draw"))
    assert st.why("bo") == ("lost", "empty-library", "704.5b")
    s = v2([lib("ana", 3), lib("bo", 0)])
    s.do(card("maniac", "Laboratory Maniac", "bo"))
    s.do(turn("ana"))
    st = s.do(turn("bo"))
    st = s.do(step("draw"))
    assert st.why("bo") == ("won", "effect", "104.2b")


# --- who takes the first turn -------------------------------------------------------------------


@pytest.mark.rule("103.1b")
def test_103_1b_the_archenemy_takes_the_first_turn():
    players = [{"id": "arch", "archenemy": True}, "h0", "h1"]
    s = v2(players, variant="archenemy")
    s.do(turn("h0"))
    assert s.refused_last()["rule"] == "103.1b"
    st = s.do(turn("arch"))
    assert st["turn"]["active"] == ["arch"]


@pytest.mark.rule("904.2")
def test_904_2_the_heroes_share_their_turns_and_no_one_skips_the_first_draw():
    players = [{"id": "arch", "archenemy": True, "library": 9}, lib("h0", 9), lib("h1", 9)]
    s = v2(players, variant="archenemy")
    s.do(turn("arch"))
    assert libraries(s.do(step("draw"))) == {"arch": 8, "h0": 9, "h1": 9}  # 103.8c
    st = s.do(turn("h1"))
    assert st["turn"] == {"number": 2, "active": ["h0", "h1"], "team": "heroes", "step": "upkeep"}
    assert libraries(s.do(step("draw"))) == {"arch": 8, "h0": 8, "h1": 8}  # 805.4b


@pytest.mark.rule("727.1a")
def test_727_1a_the_restarts_controller_takes_the_new_games_first_turn():
    s = v2([lib("ana"), lib("bo")])
    s.do(turn("ana"))
    s.do({"do": "become_monarch", "player": "ana"})
    st = s.do({"do": "restart", "controller": "bo"})
    assert st["turn"] is None and st["designations"]["monarch"] is None  # 727.1: a new game
    s.do(turn("ana"))
    assert s.refused_last()["rule"] == "727.1a"
    s.do(turn("bo"))
    assert libraries(s.do(step("draw"))) == {"ana": 10, "bo": 10}  # 103.8a again


@pytest.mark.rule("103.1a")
def test_103_1a_727_1a_after_a_restart_in_two_headed_giant_the_restarters_team_plays_first():
    """Issue 19 item 2: under shared team turns there is a starting team (103.1a, 805.4,
    810.2): after Di restarts the game, a first turn naming Cy, Di's teammate, is the south
    team's first turn, which skips its draw step (103.8b, 810.6); north's is refused."""
    s = v2(THG, variant="two-headed-giant")
    s.do(turn("ana"))
    s.do({"do": "restart", "controller": "di", "source": "karn"})
    s.do(turn("bo"))
    assert s.refused_last()["rule"] == "727.1a"
    assert "south" in s.refused_last()["message"]
    st = s.do(turn("cy"))
    assert s.refused_last() is None
    assert st["turn"] == {"number": 1, "active": ["cy", "di"], "team": "south", "step": "upkeep"}
    st = s.do(step("draw"))
    assert s.refused_last() is None
    assert libraries(st) == {"ana": 10, "bo": 10, "cy": 10, "di": 10}  # 810.6: skipped
    assert libraries(s.do(turn("ana"))) == {"ana": 10, "bo": 10, "cy": 10, "di": 10}
    assert libraries(s.do(step("draw"))) == {"ana": 9, "bo": 9, "cy": 10, "di": 10}
    game = Game([Seat(p["id"], team=p["team"]) for p in THG], "two-headed-giant", version=2)
    game.restart("di")
    assert game.first_turn_players() == ("cy", "di")


@pytest.mark.rule("103.1a")
def test_103_1a_727_1a_after_a_restart_in_archenemy_the_restarters_team_plays_first():
    """Archenemy shares turns too (904.2): a hero's restart makes the heroes the starting
    team (103.1a, 727.1a), either hero named; the archenemy's first turn is refused; no one
    skips the first draw (103.8c)."""
    players = [{"id": "arch", "archenemy": True, "library": 9}, lib("h0", 9), lib("h1", 9)]
    s = v2(players, variant="archenemy")
    s.do(turn("arch"))
    s.do({"do": "restart", "controller": "h0", "source": "karn"})
    s.do(turn("arch"))
    assert s.refused_last()["rule"] == "727.1a"
    st = s.do(turn("h1"))
    assert s.refused_last() is None
    assert st["turn"] == {"number": 1, "active": ["h0", "h1"], "team": "heroes", "step": "upkeep"}
    assert libraries(s.do(step("draw"))) == {"arch": 9, "h0": 8, "h1": 8}  # 103.8c
    game = Game([Seat("arch", archenemy=True), Seat("h0"), Seat("h1")], "archenemy", version=2)
    assert game.first_turn_players() == ("arch",)  # 103.1b: a team of one
    game.restart("h1")
    assert game.first_turn_players() == ("h0", "h1")
    game.restart("arch")
    assert game.first_turn_players() == ("arch",)


# --- 810 Two-Headed Giant and 805 shared team turns -------------------------------------------


@pytest.mark.rule("810.2")
def test_810_2_two_headed_giant_uses_shared_team_turns():
    s = v2(THG, variant="two-headed-giant")
    st = s.do(turn("bo"))
    assert st["turn"] == {"number": 1, "active": ["ana", "bo"], "team": "north", "step": "upkeep"}
    # 805.4: the team takes the turn: an upkeep belongs to either head, not to south.
    s.do({"do": "upkeep", "player": "ana"})
    assert s.refused_last() is None
    s.do({"do": "upkeep", "player": "cy"})
    assert s.refused_last()["rule"] == "102.1"


@pytest.mark.rule("810.2")
def test_810_2_each_heads_upkeep_ability_checks_at_the_teams_upkeep():
    s = v2(THG, variant="two-headed-giant")
    s.do(card("toe", "Test of Endurance", "bo"))
    s.do(gain("ana", 20))  # the team has 50 life (810.9a)
    st = s.do(turn("ana"))  # ana's turn is bo's too: Test of Endurance sees 50
    assert st.why("bo") == ("won", "effect", "104.2b")
    assert st.why("ana") == ("won", "team", "810.8a")


@pytest.mark.rule("810.3")
def test_810_3_each_team_decides_the_order_in_which_its_players_sit():
    players = [
        {"id": "bo", "team": "north"},
        {"id": "ana", "team": "north"},
        {"id": "di", "team": "south"},
        {"id": "cy", "team": "south"},
    ]
    s = v2(players, variant="two-headed-giant")
    assert s.do(turn("ana"))["turn"]["active"] == ["bo", "ana"]  # as north sat
    apart = [
        {"id": "ana", "team": "north"},
        {"id": "cy", "team": "south"},
        {"id": "bo", "team": "north"},
        {"id": "di", "team": "south"},
    ]
    with pytest.raises(MalformedError):  # a team sits together
        v2(apart, variant="two-headed-giant").state()


@pytest.mark.rule("810.7")
def test_810_7_the_active_team_attacks_as_a_group_and_the_monarch_passes():
    s = v2(THG, variant="two-headed-giant")
    s.do({"do": "become_monarch", "player": "cy"})
    s.do(turn("ana"))
    s.do(step("main"))
    # 805.10a: one combat damage step: both heads' attackers hit the defending team.
    st = s.do(
        {
            "do": "together",
            "actions": [
                damage("cy", 3, source="ana-bear", combat=True, controller="ana"),
                damage("di", 4, source="bo-ogre", combat=True, controller="bo"),
            ],
        }
    )
    assert st.team("south")["life"] == 23
    assert st["designations"]["monarch"] == "ana"  # 725.2: the creature's controller
    s.do(damage("cy", 1, source="bo-ogre", combat=True))
    err = s.malformed(damage("ana", 1, source="cy-bear", combat=True))
    assert err.member == "controller"


@pytest.mark.rule("810.10d")
def test_810_10d_a_head_has_its_own_counters_and_is_poisoned_when_its_team_is():
    s = v2(THG, variant="two-headed-giant")
    s.do(rad("ana", 2))
    st = s.do({"do": "add_counters", "player": "ana", "kind": "poison", "amount": 1})
    assert st.player("bo")["poison"] == 1  # bo is poisoned: the team has a poison counter
    assert st.player("bo")["counters"] == {}  # ana's rad counters are hers alone
    s.do(turn("bo"))
    # 728.1: only the head who has rad counters mills for them.
    err = s.malformed(step("main", nonland_milled={"bo": 0}))
    assert err.member == "nonland_milled"
    st = s.do(step("main", nonland_milled={"ana": 1}))
    assert st.player("ana")["counters"] == {"rad": 1}
    assert st.team("north")["life"] == 29
    assert libraries(st) == {"ana": 8, "bo": 10, "cy": 10, "di": 10}


# --- 801.2c ranges of influence are determined as each turn begins ----------------------------


@pytest.mark.rule("801.2c")
def test_801_2c_carissa_enters_alexs_range_at_the_start_of_the_next_turn():
    # The rules' example: range 1; Alex sits left of Rob, Carissa right of Rob.
    s = v2(["carissa", "rob", "alex", "dee", "eve"], options={"range_of_influence": 1})
    s.do(turn("alex"))
    s.do(effect("curse", "cant_gain_life", "alex", affects="opponents"))
    s.do({"do": "concede", "player": "rob"})
    assert s.do(gain("carissa", 3)).life("carissa") == 23  # still out of Alex's range
    s.do(turn("dee"))
    assert s.do(gain("carissa", 3)).life("carissa") == 23  # now within it


# --- 514.2 "until end of turn" and "this turn" ----------------------------------------------------


@pytest.mark.rule("514.2")
def test_514_2_this_turn_effects_end_in_the_cleanup_step():
    s = v2(["ana", "bo"])
    s.do(turn("ana"))
    s.do(effect("grace", "cant_lose_game", "ana", until="end_of_turn"))  # Angel's Grace
    st = s.do(damage("ana", 25))
    assert st.why("ana")[0] == "playing"
    st = s.do(step("cleanup"))  # 514.3a: state-based actions, now the grace has ended
    assert st.why("ana") == ("lost", "life", "704.5a")


@pytest.mark.rule("514.2")
def test_514_2_the_next_turn_ends_them_when_the_record_leaves_out_the_cleanup():
    s = v2(["ana", "bo"])
    s.do(turn("bo"))
    s.do(effect("curse", "cant_gain_life", "bo", affects="opponents", until="end_of_turn"))
    s.do(effect("leyline", "cant_gain_life", "bo", affects="opponents"))
    assert s.do(gain("ana", 2)).life("ana") == 20
    st = s.do(turn("ana"))
    assert [e for e in ("curse", "leyline") if e in str(st)] == []  # effects aren't state
    assert s.do(gain("ana", 2)).life("ana") == 20  # the permanent's effect still applies
    s.do({"do": "end", "id": "leyline"})
    assert s.do(gain("ana", 2)).life("ana") == 22


# --- 503, 500.9 the upkeep ---------------------------------------------------------------------


@pytest.mark.rule("503.2")
def test_503_2_an_additional_upkeep_step_comes_only_right_after_the_upkeep():
    s = v2(["ana", "bo"])
    s.do(card("toe", "Test of Endurance", "ana"))
    s.do(turn("ana"))
    s.do(gain("ana", 30))
    st = s.do({"do": "upkeep", "player": "ana"})  # Paradox Haze's extra upkeep
    assert st.why("ana") == ("won", "effect", "104.2b")
    s = v2(["ana", "bo"])
    s.do(turn("ana"))
    s.do(step("draw"))
    s.do({"do": "upkeep", "player": "ana"})
    assert s.refused_last()["rule"] == "500.1"


def test_a_version_2_record_without_turns_reads_upkeep_as_version_1_does():
    s = v2(["ana", "bo"])
    s.do(card("toe", "Test of Endurance", "bo"))
    s.do(gain("bo", 30))
    assert s.do({"do": "upkeep", "player": "bo"}).why("bo") == ("won", "effect", "104.2b")


# --- 728 rad counters ---------------------------------------------------------------------------


@pytest.mark.rule("728.1")
def test_728_1_rad_counters_mill_and_each_nonland_card_costs_a_life_and_a_counter():
    s = v2([lib("ana", 20), lib("bo", 20)])
    s.do(rad("bo", 4))
    s.do(turn("bo"))
    st = s.do(step("main", nonland_milled={"bo": 3}))
    assert st.player("bo")["counters"] == {"rad": 1}
    assert st.life("bo") == 17
    assert st.player("bo")["library"] == 16  # bo plays first: no draw (103.8a); 4 milled


@pytest.mark.rule("728.1")
def test_728_1_the_record_states_how_many_nonland_cards_were_milled():
    s = v2([lib("ana", 2), "bo"])
    s.do(rad("ana", 4))
    s.do(turn("ana"))
    err = s.malformed(step("main"))
    assert err.member == "nonland_milled"
    err = s.malformed(step("end"))  # moving past the main phase needs it too
    assert err.member == "nonland_milled"
    err = s.malformed(turn("bo"))  # and so does ending the turn without it
    assert err.member == "do"
    err = s.malformed(step("main", nonland_milled={"ana": 3}))  # only 2 cards to mill
    assert err.member == "nonland_milled"
    err = s.malformed(step("draw", nonland_milled={"ana": 1}))
    assert err.member == "nonland_milled"
    st = s.do(step("main", nonland_milled={"ana": 2}))
    assert (st.life("ana"), st.player("ana")["counters"], st.player("ana")["library"]) == (
        18,
        {"rad": 2},
        0,
    )


@pytest.mark.rule("728.1")
def test_728_1_a_player_who_cant_lose_life_still_removes_the_counters():
    s = v2(["ana", "bo"])
    s.do(card("emperion", "Platinum Emperion", "ana"))
    s.do(rad("ana", 2))
    s.do(turn("ana"))
    st = s.do(step("main", nonland_milled={"ana": 2}))
    assert (st.life("ana"), st.player("ana")["counters"]) == (20, {})


@pytest.mark.rule("728.1")
def test_728_1_radiation_can_end_the_game():
    s = v2(["ana", "bo"])
    s.do(damage("bo", 18))
    s.do(rad("bo", 5))
    s.do(turn("bo"))
    st = s.do(step("main", nonland_milled={"bo": 2}))
    assert st.why("bo") == ("lost", "life", "704.5a")


# --- 725 the monarch ----------------------------------------------------------------------------


@pytest.mark.rule("725.3")
def test_725_3_only_one_player_is_the_monarch():
    s = v2(["ana", "bo", "cy"])
    assert s.do({"do": "become_monarch", "player": "ana"})["designations"]["monarch"] == "ana"
    assert s.do({"do": "become_monarch", "player": "cy"})["designations"]["monarch"] == "cy"


@pytest.mark.rule("725.2")
def test_725_2_combat_damage_to_the_monarch_makes_its_controller_the_monarch():
    s = v2(["ana", "bo", "cy"])
    s.do({"do": "become_monarch", "player": "cy"})
    s.do(damage("cy", 2, source="bolt", controller="bo"))  # not combat damage
    assert s.state()["designations"]["monarch"] == "cy"
    s.do(damage("cy", 0, source="bear", combat=True, controller="bo"))  # 120.8: none dealt
    assert s.state()["designations"]["monarch"] == "cy"
    st = s.do(damage("cy", 2, source="bear", combat=True, controller="bo"))
    assert st["designations"]["monarch"] == "bo"


@pytest.mark.rule("725.2")
def test_725_2_the_monarch_draws_at_the_beginning_of_their_end_step():
    s = v2([lib("ana"), lib("bo")])
    s.do({"do": "become_monarch", "player": "bo"})
    s.do(turn("ana"))
    assert libraries(s.do(step("end"))) == {"ana": 10, "bo": 10}  # not bo's end step
    s.do(turn("bo"))
    assert libraries(s.do(step("end"))) == {"ana": 10, "bo": 8}  # the draw step, the monarch


@pytest.mark.rule("725.4")
def test_725_4_the_active_player_becomes_the_monarch_when_the_monarch_leaves():
    s = v2(["ana", "bo", "cy"])
    s.do({"do": "become_monarch", "player": "cy"})
    s.do(turn("ana"))
    st = s.do({"do": "concede", "player": "cy"})
    assert st["designations"]["monarch"] == "ana"


@pytest.mark.rule("725.4")
def test_725_4_if_the_active_player_is_leaving_the_next_player_in_turn_order():
    s = v2(["ana", "bo", "cy", "di"])
    s.do({"do": "become_monarch", "player": "bo"})
    s.do(turn("bo"))
    st = s.do({"do": "lose", "players": ["bo", "cy"]})
    assert st["designations"]["monarch"] == "di"
    # No turn is being taken: the next player in turn order after the monarch.
    s = v2(["ana", "bo", "cy"])
    s.do({"do": "become_monarch", "player": "cy"})
    assert s.do({"do": "concede", "player": "cy"})["designations"]["monarch"] == "ana"


@pytest.mark.rule("725.4")
def test_725_4_the_monarchs_trigger_leaves_with_a_monarch_killed_in_combat():
    s = v2(["ana", "bo", "cy"])
    s.do({"do": "become_monarch", "player": "cy"})
    s.do(turn("ana"))
    s.do(step("main"))
    st = s.do(damage("cy", 20, source="bo-stolen", combat=True, controller="bo"))
    assert st.why("cy") == ("lost", "life", "704.5a")
    assert st["designations"]["monarch"] == "ana"  # the active player, 725.4; 800.4a


# --- 726 the initiative ---------------------------------------------------------------------------


@pytest.mark.rule("726.3")
def test_726_3_taking_the_initiative_takes_it_from_whoever_had_it():
    s = v2(["ana", "bo"])
    s.do({"do": "take_initiative", "player": "ana"})
    assert s.do({"do": "take_initiative", "player": "bo"})["designations"]["initiative"] == "bo"


@pytest.mark.rule("726.5")
def test_726_5_taking_it_again_makes_no_second_initiative():
    s = v2(["ana", "bo"])
    s.do({"do": "take_initiative", "player": "ana"})
    game = record.replay(s.document([*s.actions, {"do": "take_initiative", "player": "ana"}]))
    assert game.game.initiative == "ana"


@pytest.mark.rule("726.2")
def test_726_2_combat_damage_to_the_player_with_the_initiative_passes_it():
    s = v2(["ana", "bo"])
    s.do({"do": "take_initiative", "player": "bo"})
    s.do(turn("ana"))
    s.do(step("main"))
    st = s.do(damage("bo", 1, source="bear", combat=True, controller="ana", infect=True))
    assert st["designations"]["initiative"] == "ana"


@pytest.mark.rule("726.4")
def test_726_4_the_active_player_takes_the_initiative_when_its_holder_leaves():
    s = v2(["ana", "bo", "cy"])
    s.do({"do": "take_initiative", "player": "bo"})
    s.do(turn("cy"))
    assert s.do({"do": "concede", "player": "bo"})["designations"]["initiative"] == "cy"


# --- 731 day and night ----------------------------------------------------------------------------


def cast(player: str, count: int = 1) -> dict[str, Any]:
    return {"do": "cast", "player": player, "count": count}


@pytest.mark.rule("731.2c")
def test_731_2c_a_game_that_is_neither_day_nor_night_stays_neither():
    s = v2(["ana", "bo"])
    s.do(turn("ana"))
    assert s.do(turn("bo"))["designations"]["day_night"] is None


@pytest.mark.rule("731.2a")
def test_731_2a_day_becomes_night_after_a_turn_without_spells():
    s = v2(["ana", "bo"])
    s.do(turn("ana"))
    s.do({"do": "day_night", "to": "day"})
    s.do(cast("bo"))  # not the active player's spell
    assert s.do(turn("bo"))["designations"]["day_night"] == "night"


@pytest.mark.rule("731.2b")
def test_731_2b_night_becomes_day_after_a_turn_with_two_spells():
    s = v2(["ana", "bo"])
    s.do({"do": "day_night", "to": "night"})
    s.do(turn("ana"))
    s.do(cast("ana"))
    assert s.do(turn("bo"))["designations"]["day_night"] == "night"  # one spell isn't enough
    s.do(cast("bo", 2))
    assert s.do(turn("ana"))["designations"]["day_night"] == "day"
    s.do(cast("ana"))
    assert s.do(turn("bo"))["designations"]["day_night"] == "day"  # a spell keeps it day


@pytest.mark.rule("502.2a")
def test_502_2a_with_shared_team_turns_any_player_of_the_active_team_counts():
    s = v2(THG, variant="two-headed-giant")
    s.do({"do": "day_night", "to": "night"})
    s.do(turn("ana"))
    s.do(cast("ana"))
    s.do(cast("bo"))  # two spells by the team, but no player cast two
    assert s.do(turn("cy"))["designations"]["day_night"] == "night"
    s.do(cast("di", 2))
    assert s.do(turn("ana"))["designations"]["day_night"] == "day"


@pytest.mark.rule("731.1")
def test_731_1_it_becomes_day_or_night_and_nothing_else():
    s = v2(["ana", "bo"])
    err = s.malformed({"do": "day_night", "to": "dusk"})
    assert err.member == "to"


# --- 702.131c the city's blessing ---------------------------------------------------------------


@pytest.mark.rule("702.131c")
def test_702_131c_any_number_of_players_may_have_the_citys_blessing():
    s = v2(["ana", "bo", "cy"])
    s.do({"do": "city_blessing", "player": "cy"})
    s.do({"do": "city_blessing", "player": "ana"})
    st = s.do({"do": "city_blessing", "player": "cy"})
    assert st["designations"]["city_blessing"] == ["ana", "cy"]
    st = s.do({"do": "concede", "player": "cy"})  # the designation leaves with its player
    assert st["designations"]["city_blessing"] == ["ana"]
    st = s.do({"do": "restart"})  # 727.1: for the rest of the game, not the next one
    assert st["designations"]["city_blessing"] == []


# --- the Python API -------------------------------------------------------------------------------


def test_the_api_refuses_and_rejects_as_the_record_does():
    game = Game([Seat("ana"), Seat("bo")], version=2)
    with pytest.raises(RefusedError) as refused:
        game.step("draw")
    assert refused.value.rule == "500.1"
    game.turn("ana")
    assert (game.turn_number, game.active_players, game.current_step) == (1, ("ana",), "upkeep")
    assert game.is_active_player("ana") and not game.is_active_player("bo")
    game.become_monarch("bo")
    assert game.is_monarch("bo") and not game.has_initiative("bo")
    game.city_blessing("ana")
    assert game.has_city_blessing("ana")
    with pytest.raises(MalformedError):
        Game([Seat("ana"), Seat("bo")]).turn("ana")  # version 1


def test_a_turn_that_fails_half_way_changes_nothing():
    game = Game([Seat("ana", library=5), Seat("bo", library=5)], version=2, range_of_influence=1)
    game.turn("ana")
    game.step("main")
    game.effect("grace", "cant_lose_game", "ana", until="end_of_turn")
    game.become_monarch("ana")
    game.add_counters("bo", "rad", 2)
    game.turn("bo")
    before = record.dumps(game), game.player("bo").library, game.effects(), game.current_step
    with pytest.raises(MalformedError):
        game.step("end")  # the draw step draws, then bo's rad count is missing (728.1)
    assert (record.dumps(game), game.player("bo").library, game.effects()) == before[:3]
    assert game.current_step == "upkeep"
    game.add_counters("ana", "rad", 1)
    game.step("main", {"bo": 0})
    game.turn("ana")  # ana's rad counters: a count needed before her main phase, not now
    assert game.effects() == () and game.monarch == "ana"
    assert game.player("ana").library == 4  # the monarch's draw in her first end step


def test_the_timeline_shows_the_turn_the_steps_and_the_designations(capsys):
    from pathlib import Path

    from lifeledger import cli

    examples = Path(__file__).resolve().parent.parent / "examples"
    assert (
        cli.main(["replay", str(examples / "01-two-player-first-player-skips-first-draw.json")])
        == 0
    )
    out = capsys.readouterr().out
    assert "   0  ana's turn begins\n      turn: 1 (ana)\n      step: upkeep\n" in out
    assert "ana plays first and skips the draw step of the first turn (103.8a)" in out
    assert "      bo library: 10 -> 9\n      step: upkeep -> draw\n" in out
    assert cli.main(["replay", str(examples / "11-monarch-leaves-the-game.json")]) == 0
    out = capsys.readouterr().out
    assert "      monarch: cy -> ana\n" in out and "(725.4)" in out
    assert cli.main(["replay", str(examples / "08-this-turn-effect-ends-in-cleanup.json")]) == 0
    assert "grace ends with the turn (514.2)" in capsys.readouterr().out
    assert repr(Game([Seat("ana"), Seat("bo")], version=2)).endswith("version=2)")


# --- 704.3 state-based actions in the steps an action moves through ---------------------------


@pytest.mark.rule("704.5b")
def test_704_5b_a_draw_from_an_empty_library_under_angels_grace_is_forgiven_in_its_step():
    # Bo draws from his empty library in his draw step while he can't lose the game this
    # turn: state-based actions are checked in that draw step (504.2, 704.3), and he doesn't
    # lose; when the grace ends in the cleanup step he has not drawn since that check.
    s = v2([lib("ana", 5), lib("bo", 0)])
    s.do(turn("ana"))
    s.do(turn("bo"))
    s.do(effect("grace", "cant_lose_game", "bo", until="end_of_turn"))
    st = s.do(step("cleanup"))
    assert st.why("bo") == ("playing", None, None)


@pytest.mark.rule("704.3")
def test_704_3_a_game_that_ends_in_the_turn_before_begins_no_new_turn():
    s = v2([lib("ana", 0), lib("bo", 5)])
    s.do({"do": "become_monarch", "player": "ana"})
    s.do(turn("ana"))
    st = s.do(turn("bo"))  # ana's end step: the monarch draws from an empty library (725.2)
    assert st.why("ana") == ("lost", "empty-library", "704.5b") and st["over"]
    assert st["turn"] == {"number": 1, "active": ["ana"], "team": None, "step": "end"}


@pytest.mark.rule("800.4")
def test_800_4_a_turn_of_a_player_who_left_as_the_turn_before_ended_is_refused():
    s = v2(["ana", "bo", "cy"])
    s.do(turn("ana"))
    s.do(effect("grace", "cant_lose_game", "bo", until="end_of_turn"))
    before = s.do(damage("bo", 25))
    assert before.why("bo")[0] == "playing"
    s.do(turn("bo"))  # bo loses in ana's cleanup step (514.2, 514.3a): his turn can't begin
    assert s.refused_last()["rule"] == "800.4"
    assert {k: v for k, v in s.state().items() if k != "refused"} == {
        k: v for k, v in before.items() if k != "refused"
    }
    st = s.do(turn("cy"))
    assert st.why("bo") == ("lost", "life", "704.5a")
    assert st["turn"]["active"] == ["cy"]


@pytest.mark.rule("103.8")
def test_103_8_skips_first_draw_says_whether_the_first_player_or_team_skips():
    two = Game([Seat("ana"), Seat("bo")], version=2)
    thg = Game([Seat(p["id"], team=p["team"]) for p in THG], "two-headed-giant", version=2)
    ffa = Game([Seat("ana"), Seat("bo"), Seat("cy")], version=2)
    assert (two.skips_first_draw(), thg.skips_first_draw(), ffa.skips_first_draw()) == (
        True,
        True,
        False,
    )

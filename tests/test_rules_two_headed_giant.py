"""Rule stories for the Two-Headed Giant variant (810), with every "Example:" of 810.

Each test is a short game, told through the game record (../shared/spec/game-record.md), that
checks the state after every step. In every story but the N-headed ones, ana and bo are team
north, cy and di team south.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from stories import Story, card, damage, effect, gain, life_of, lose, pay, thg


def team_lives(st):
    return {t["id"]: t["life"] for t in st["teams"]}


def team_poison(st):
    return {t["id"]: t["poison"] for t in st["teams"]}


def add_poison(player, amount):
    return {"do": "add_counters", "player": player, "kind": "poison", "amount": amount}


# --- 810.1, 810.11 Teams --------------------------------------------------------------------------


@pytest.mark.rule("810.1")
def test_810_1_two_teams_of_two_players():
    st = thg().state()
    assert [(t["id"], t["players"]) for t in st["teams"]] == [
        ("north", ["ana", "bo"]),
        ("south", ["cy", "di"]),
    ]
    assert [p["team"] for p in st["players"]] == ["north", "north", "south", "south"]


@pytest.mark.rule("810.1")
def test_810_1_teams_of_unequal_size_are_malformed():
    from lifeledger.errors import MalformedError

    s = Story(["ana/north", "bo/north", "cy/north", "di/south"], variant="two-headed-giant")
    with pytest.raises(MalformedError):
        s.state()
    s = Story(
        ["ana/north", "bo/north", "cy/south", "di/south", "ed/east", "fi/east"],
        variant="two-headed-giant",
    )
    with pytest.raises(MalformedError):
        s.state()


# --- 810.4 Shared life ----------------------------------------------------------------------------


@pytest.mark.rule("810.4")
def test_810_4_each_team_has_a_shared_life_total_starting_at_30():
    s = thg()
    st = s.state()
    assert team_lives(st) == {"north": 30, "south": 30}
    assert team_poison(st) == {"north": 0, "south": 0}
    assert st.lives() == {"ana": 30, "bo": 30, "cy": 30, "di": 30}
    st = s.do(damage("ana", 4, source="cy-creature"))
    assert team_lives(st) == {"north": 26, "south": 30}
    assert st.lives() == {"ana": 26, "bo": 26, "cy": 30, "di": 30}
    st = s.do(gain("bo", 1))
    assert st.lives() == {"ana": 27, "bo": 27, "cy": 30, "di": 30}


@pytest.mark.rule("810.5")
def test_810_5_counters_other_than_poison_are_not_shared():
    s = thg()
    st = s.do({"do": "add_counters", "player": "ana", "kind": "energy", "amount": 3})
    assert st.player("ana")["counters"] == {"energy": 3}
    assert st.player("bo")["counters"] == {}
    st = s.do(add_poison("ana", 2))
    assert st.poison("ana") == 2 and st.poison("bo") == 2
    assert st.player("bo")["counters"] == {}


# --- 810.8 Winning and losing as a team -----------------------------------------------------------


@pytest.mark.rule("810.8a")
def test_810_8a_example_transcendence_team_at_0_life_does_not_lose():
    s = thg()
    s.do(effect("transcendence", "no_loss_for_life", "ana"))
    st = s.do(damage("bo", 30, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 0
    assert st.statuses() == dict.fromkeys(["ana", "bo", "cy", "di"], "playing")
    st = s.do(damage("bo", 5, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == -5 and st["over"] is False
    st = s.do({"do": "end", "id": "transcendence"})
    assert st.why("ana") == ("lost", "team-life", "704.6a")
    assert st.why("bo") == ("lost", "team-life", "704.6a")
    assert st.why("cy") == ("won", "last-standing", "104.2c")
    assert st.team("north")["status"] == "lost" and st.team("south")["status"] == "won"


@pytest.mark.rule("810.8a")
def test_810_8a_example_empty_library_loses_for_the_whole_team():
    s = Story(
        ["ana/north", {"id": "bo", "team": "north", "library": 1}, "cy/south", "di/south"],
        variant="two-headed-giant",
    )
    st = s.do({"do": "draw", "player": "bo", "count": 1})
    assert st.player("bo")["library"] == 0 and st["over"] is False
    assert st.player("ana")["library"] is None
    st = s.do({"do": "draw", "player": "bo", "count": 1})
    assert st.why("bo") == ("lost", "empty-library", "704.5b")
    assert st.why("ana") == ("lost", "teammate", "810.8a")
    assert st.life("ana") == 30
    assert st.why("cy") == ("won", "last-standing", "104.2c")
    assert st.why("di") == ("won", "last-standing", "104.2c")
    assert st["over"] is True


@pytest.mark.rule("810.8a")
def test_810_8a_example_platinum_angel_team_cant_lose_and_opponents_cant_win():
    s = thg()
    s.do(card("platinum-angel-1", "Platinum Angel", "ana"))
    st = s.do(damage("bo", 30, source="cy-attackers", combat=True))
    assert team_lives(st) == {"north": 0, "south": 30}
    assert st.statuses() == dict.fromkeys(["ana", "bo", "cy", "di"], "playing")
    st = s.do({"do": "win", "player": "di", "source": "di-alt-win"})
    assert s.refused_last() is None
    assert st.statuses() == dict.fromkeys(["ana", "bo", "cy", "di"], "playing")
    st = s.do({"do": "lose", "player": "bo", "source": "cy-lose-effect"})
    assert st.statuses() == dict.fromkeys(["ana", "bo", "cy", "di"], "playing")
    st = s.do({"do": "end", "id": "platinum-angel-1"})
    assert st.why("ana") == ("lost", "team-life", "704.6a")
    assert st.why("bo") == ("lost", "team-life", "704.6a")
    assert st.why("di") == ("won", "last-standing", "104.2c")
    assert st["over"] is True


@pytest.mark.rule("810.8a")
def test_810_8a_one_head_winning_wins_for_the_whole_team():
    s = thg()
    st = s.do({"do": "win", "player": "bo", "source": "bo-alt-win"})
    assert st.why("bo") == ("won", "effect", "104.2b")
    assert st.player("ana")["status"] == "won" and st.player("ana")["reason"] == "team"
    assert st.player("cy")["status"] == "lost" and st.player("cy")["reason"] == "opponent-won"
    assert st.player("di")["status"] == "lost" and st.player("di")["reason"] == "opponent-won"
    assert st.team("north")["status"] == "won" and st.team("south")["status"] == "lost"
    assert st["over"] is True


@pytest.mark.rule("810.8a")
def test_810_8a_abyssal_persecutor_opposing_team_cant_lose_and_own_team_cant_win():
    s = thg()
    s.do(card("persecutor", "Abyssal Persecutor", "ana"))
    st = s.do(damage("cy", 30, source="ana-attackers", combat=True))
    assert team_lives(st) == {"north": 30, "south": 0}
    assert st["over"] is False and st.statuses()["di"] == "playing"
    st = s.do({"do": "win", "player": "bo", "source": "bo-alt-win"})
    assert st["over"] is False and st.statuses()["bo"] == "playing"
    st = s.do({"do": "end", "id": "persecutor"})
    assert st.why("cy") == ("lost", "team-life", "704.6a")
    assert st.why("di") == ("lost", "team-life", "704.6a")
    assert st.why("ana") == ("won", "last-standing", "104.2c")


@pytest.mark.rule("810.8b")
def test_810_8b_a_head_who_concedes_takes_the_team_out_at_once():
    s = thg()
    st = s.do(damage("cy", 10, source="ana-attackers", combat=True))
    assert team_lives(st) == {"north": 30, "south": 20}
    st = s.do({"do": "concede", "player": "ana"})
    assert st.why("ana")[:2] == ("lost", "conceded")
    assert st.why("ana")[2] in {"104.3a", "810.8b"}
    assert st.why("bo") == ("lost", "teammate", "810.8a")
    assert st.why("cy") == ("won", "last-standing", "104.2c")
    assert st.why("di") == ("won", "last-standing", "104.2c")
    assert st.team("north")["status"] == "lost"
    assert st["over"] is True
    st = s.do(damage("cy", 1, source="bo-creature"))
    assert s.refused_last()["rule"] == "104.1"
    assert team_lives(st)["south"] == 20


@pytest.mark.rule("810.8b")
def test_810_8b_conceding_cannot_be_stopped_by_platinum_angel():
    s = thg()
    s.do(card("platinum-angel-1", "Platinum Angel", "bo"))
    st = s.do({"do": "concede", "player": "ana"})
    assert st.why("ana")[:2] == ("lost", "conceded")
    assert st.why("ana")[2] in {"104.3a", "810.8b"}
    assert st.player("bo")["status"] == "lost"
    assert st.player("cy")["status"] == "won"


@pytest.mark.rule("810.8c")
def test_810_8c_a_team_at_0_life_loses():
    s = thg()
    st = s.do(damage("ana", 16, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 14
    st = s.do(damage("bo", 13, source="di-attackers", combat=True))
    assert team_lives(st)["north"] == 1 and st["over"] is False
    st = s.do(lose("ana", 1, source="cy-drain"))
    assert team_lives(st)["north"] == 0
    assert st.why("ana") == ("lost", "team-life", "704.6a")
    assert st.why("bo") == ("lost", "team-life", "704.6a")
    assert st.team("north")["status"] == "lost"
    assert st.team("north")["reason"] == "team-life"
    assert st.why("cy") == ("won", "last-standing", "104.2c")
    assert st.team("south")["status"] == "won"


@pytest.mark.rule("810.8d")
def test_810_8d_a_team_with_fifteen_poison_counters_loses_and_ten_is_not_enough():
    s = thg()
    st = s.do(damage("ana", 10, source="cy-infector", infect=True, combat=True))
    assert team_poison(st)["north"] == 10
    assert st.poison("ana") == 10 and st.poison("bo") == 10
    assert st.statuses()["ana"] == "playing", "704.5c is ignored in Two-Headed Giant"
    st = s.do(damage("bo", 4, source="di-infector", infect=True, combat=True))
    assert team_poison(st)["north"] == 14 and st["over"] is False
    st = s.do(add_poison("bo", 1))
    assert team_poison(st)["north"] == 15
    assert st.why("ana") == ("lost", "team-poison", "704.6b")
    assert st.why("bo") == ("lost", "team-poison", "704.6b")
    assert team_lives(st)["north"] == 30
    assert st.why("cy") == ("won", "last-standing", "104.2c")


# --- 810.9 Life happens to each player, the result to the team ------------------------------------


@pytest.mark.rule("810.9")
def test_810_9_example_flame_rift_deals_each_team_8():
    s = thg()
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(
        {
            "do": "together",
            "note": "Flame Rift resolves",
            "actions": [damage(p, 4, source="flame-rift") for p in ("ana", "bo", "cy", "di")],
        }
    )
    assert team_lives(st) == {"north": 22, "south": 22}
    assert st.lives() == {"ana": 22, "bo": 22, "cy": 22, "di": 22}
    assert st["triggered"] == {"ana-loses": 1}


@pytest.mark.rule("810.9")
def test_810_9_gains_happen_to_each_player_so_pridemate_sees_only_its_controller():
    s = thg()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(gain("bo", 5, source="bo-salve"))
    assert team_lives(st)["north"] == 35
    assert st["triggered"] == {"pridemate-1": 0}
    st = s.do(gain("ana", 2, source="ana-salve"))
    assert team_lives(st)["north"] == 37
    assert st["triggered"] == {"pridemate-1": 1}


@pytest.mark.rule("810.9")
def test_810_9_replacements_apply_only_to_the_individual_player():
    s = thg()
    s.do(card("boon", "Boon Reflection", "ana"))
    st = s.do(gain("bo", 3))
    assert team_lives(st)["north"] == 33
    st = s.do(gain("ana", 3))
    assert team_lives(st)["north"] == 39
    s.do(effect("remedy-on-ana", "gain_becomes_loss", "cy", affects=["ana"]))
    st = s.do(gain("bo", 1))
    assert team_lives(st)["north"] == 40


@pytest.mark.rule("810.9a")
def test_810_9a_example_beacon_of_immortality_team_at_17_winds_up_at_34():
    s = thg()
    st = s.do(damage("ana", 13, source="cy-attackers", combat=True))
    assert team_lives(st) == {"north": 17, "south": 30}
    st = s.do(gain("ana", life_of("ana"), source="beacon-of-immortality"))
    assert team_lives(st) == {"north": 34, "south": 30}
    assert st.lives() == {"ana": 34, "bo": 34, "cy": 30, "di": 30}


@pytest.mark.rule("810.9a")
def test_810_9a_doubling_a_heads_life_total_as_a_set_life_doubles_the_team_total():
    s = thg()
    s.do(damage("bo", 13, source="cy-attackers", combat=True))
    st = s.do({"do": "set_life", "player": "ana", "to": life_of("ana", [2, 1])})
    assert team_lives(st) == {"north": 34, "south": 30}


@pytest.mark.rule("810.9a")
def test_810_9a_example_test_of_endurance_wins_at_the_team_upkeep_with_50_team_life():
    s = thg()
    s.do(card("test-of-endurance-1", "Test of Endurance", "ana"))
    st = s.do(gain("bo", 19, source="bo-lifegain-spell"))
    assert team_lives(st)["north"] == 49
    st = s.do({"do": "upkeep", "player": "ana"})
    assert st["over"] is False
    st = s.do(gain("bo", 1, source="bo-lifegain-spell"))
    assert team_lives(st)["north"] == 50
    st = s.do({"do": "upkeep", "player": "cy"})
    assert st["over"] is False, "south's upkeep is not ana's"
    st = s.do({"do": "upkeep", "player": "bo"})
    assert st.why("ana") == ("won", "effect", "104.2b")
    assert st.player("bo")["status"] == "won" and st.player("bo")["reason"] == "team"
    assert st.player("cy")["reason"] == "opponent-won"
    assert st.player("di")["reason"] == "opponent-won"
    assert st.team("north")["status"] == "won" and st.team("south")["status"] == "lost"


@pytest.mark.rule("810.9a")
def test_810_9a_example_lurking_evil_team_at_11_pays_6_and_winds_up_at_5():
    s = thg()
    st = s.do(damage("bo", 19, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 11
    st = s.do(pay("ana", life_of("ana", [1, 2], "up")))
    assert st["refused"] == []
    assert team_lives(st) == {"north": 5, "south": 30}
    assert st.statuses()["ana"] == "playing"


@pytest.mark.rule("810.9b")
def test_810_9b_both_heads_paying_at_once_may_not_exceed_the_team_total():
    s = thg()
    st = s.do(damage("ana", 20, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 10
    st = s.do({"do": "pay_life", "payments": {"ana": 6, "bo": 5}})
    assert s.refused_last()["rule"] in {"810.9b", "119.4a"}
    assert team_lives(st)["north"] == 10
    st = s.do({"do": "pay_life", "payments": {"ana": 5, "bo": 5}})
    assert s.refused_last() is None
    assert team_lives(st)["north"] == 0
    assert st.why("ana") == ("lost", "team-life", "704.6a")


@pytest.mark.rule("810.9b")
def test_810_9b_players_can_always_pay_0_life():
    s = thg()
    s.do(card("platinum-angel-1", "Platinum Angel", "bo"))
    st = s.do(damage("ana", 33, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == -3 and st["over"] is False
    st = s.do({"do": "pay_life", "payments": {"ana": 0, "bo": 0}})
    assert s.refused_last() is None
    assert team_lives(st)["north"] == -3
    st = s.do({"do": "pay_life", "payments": {"ana": 1, "bo": 0}})
    assert s.refused_last() is not None
    assert team_lives(st)["north"] == -3


@pytest.mark.rule("810.9c")
def test_810_9c_example_one_heads_life_becomes_10_at_team_25():
    s = thg()
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(damage("bo", 5, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 25
    assert st["triggered"] == {"ana-loses": 0}
    st = s.do({"do": "set_life", "player": "ana", "to": 10})
    assert team_lives(st) == {"north": 10, "south": 30}
    assert st.lives() == {"ana": 10, "bo": 10, "cy": 30, "di": 30}
    assert st["triggered"] == {"ana-loses": 1}


@pytest.mark.rule("810.9d")
def test_810_9d_example_repay_in_kind_both_teams_end_at_7():
    s = thg()
    s.do(effect("cy-loses", "on_lose_life", "cy"))
    s.do(effect("di-loses", "on_lose_life", "di"))
    st = s.do(damage("ana", 23, source="cy-attackers", combat=True))
    st = s.do(damage("di", 17, source="ana-attackers", combat=True))
    assert team_lives(st) == {"north": 7, "south": 13}
    assert st["triggered"] == {"cy-loses": 0, "di-loses": 1}
    st = s.do(
        {
            "do": "set_life",
            "each": {"ana": 7, "bo": 7, "cy": 7, "di": 7},
            "chosen": {"north": "bo", "south": "di"},
            "note": "Repay in Kind resolves",
        }
    )
    assert team_lives(st) == {"north": 7, "south": 7}
    assert st.lives() == {"ana": 7, "bo": 7, "cy": 7, "di": 7}
    assert st["triggered"] == {"cy-loses": 0, "di-loses": 2}


@pytest.mark.rule("810.9d")
def test_810_9d_only_the_chosen_head_is_affected_by_default_the_first_seated():
    s = thg()
    s.do(effect("cy-loses", "on_lose_life", "cy"))
    s.do(effect("di-loses", "on_lose_life", "di"))
    st = s.do(damage("ana", 23, source="cy-attackers", combat=True))
    assert team_lives(st) == {"north": 7, "south": 30}
    st = s.do({"do": "set_life", "each": {"ana": 7, "bo": 7, "cy": 7, "di": 7}})
    assert team_lives(st) == {"north": 7, "south": 7}, "not 7 - 23 - 23: one head per team"
    assert st["triggered"] == {"cy-loses": 1, "di-loses": 0}


@pytest.mark.rule("810.9e")
def test_810_9e_a_player_cant_exchange_life_totals_with_a_teammate():
    s = thg()
    s.do(damage("ana", 23, source="cy-attackers", combat=True))
    st = s.do(damage("di", 17, source="ana-attackers", combat=True))
    assert team_lives(st) == {"north": 7, "south": 13}
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert s.refused_last()["rule"] == "810.9e"
    assert team_lives(st) == {"north": 7, "south": 13}
    st = s.do({"do": "exchange_life", "players": ["bo", "cy"]})
    assert s.refused_last() is None
    assert team_lives(st) == {"north": 13, "south": 7}
    assert st.refused_rules() == [("2", "810.9e")]


@pytest.mark.rule("810.9f")
def test_810_9f_a_redistribution_may_affect_only_one_head_of_each_team():
    s = thg()
    s.do(damage("ana", 23, source="cy-attackers", combat=True))
    s.do(damage("di", 17, source="ana-attackers", combat=True))
    st = s.do({"do": "redistribute_life", "totals": {"ana": 13, "bo": 7, "cy": 7}})
    assert s.refused_last()["rule"] == "810.9f"
    assert team_lives(st) == {"north": 7, "south": 13}
    st = s.do({"do": "redistribute_life", "totals": {"ana": 13, "cy": 7}, "controller": "ana"})
    assert s.refused_last() is None
    assert team_lives(st) == {"north": 13, "south": 7}


@pytest.mark.rule("810.9g")
def test_810_9g_if_one_head_cant_gain_life_neither_head_can():
    s = thg()
    s.do(effect("no-gain", "cant_gain_life", "ana"))
    st = s.do(gain("bo", 5, source="bo-salve"))
    assert s.refused_last() is None
    assert team_lives(st)["north"] == 30
    st = s.do(damage("cy", 3, source="bo-lifelinker", lifelink=True, controller="bo"))
    assert team_lives(st) == {"north": 30, "south": 27}
    st = s.do(damage("bo", 8, source="cy-attackers", combat=True))
    assert team_lives(st) == {"north": 22, "south": 27}
    st = s.do({"do": "exchange_life", "players": ["bo", "cy"]})
    assert s.refused_last()["rule"] in {"810.9g", "119.7"}
    assert team_lives(st) == {"north": 22, "south": 27}
    st = s.do(gain("cy", 2))
    assert team_lives(st) == {"north": 22, "south": 29}


@pytest.mark.rule("810.9g")
def test_810_9g_erebos_stops_both_opposing_heads_from_gaining():
    s = thg()
    s.do(card("erebos", "Erebos, God of the Dead", "cy"))
    st = s.do(gain("ana", 4))
    st = s.do(gain("bo", 4))
    assert team_lives(st) == {"north": 30, "south": 30}
    st = s.do(gain("di", 4))
    assert team_lives(st) == {"north": 30, "south": 34}


@pytest.mark.rule("810.9h")
def test_810_9h_if_one_head_cant_lose_life_neither_head_can_lose_or_pay_life():
    s = thg()
    s.do(effect("no-loss", "cant_lose_life", "ana"))
    st = s.do(damage("bo", 6, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 30
    st = s.do(lose("bo", 2, source="cy-drain"))
    assert team_lives(st)["north"] == 30
    st = s.do(pay("bo", 3))
    assert s.refused_last()["rule"] in {"810.9h", "119.8"}
    assert team_lives(st)["north"] == 30
    st = s.do(pay("bo", 0))
    assert s.refused_last() is None
    st = s.do({"do": "pay_life", "payments": {"ana": 0, "bo": 0}})
    assert s.refused_last() is None
    st = s.do(gain("bo", 2))
    assert team_lives(st) == {"north": 32, "south": 30}


# --- 810.10 Poison counters -----------------------------------------------------------------------


@pytest.mark.rule("810.10")
def test_810_10_poison_counters_are_given_to_each_player_and_shared_by_the_team():
    s = thg()
    st = s.do(damage("ana", 3, source="cy-infector", infect=True))
    assert team_poison(st) == {"north": 3, "south": 0}
    st = s.do(
        {
            "do": "together",
            "actions": [
                damage("ana", 2, source="cy-infector", infect=True),
                damage("bo", 2, source="cy-infector", infect=True),
            ],
        }
    )
    assert team_poison(st) == {"north": 7, "south": 0}
    assert team_lives(st) == {"north": 30, "south": 30}


@pytest.mark.rule("810.10a")
def test_810_10a_a_players_poison_count_is_the_teams():
    s = thg()
    s.do(add_poison("ana", 1))
    st = s.do(add_poison("bo", 6))
    assert [st.poison(p) for p in ("ana", "bo", "cy", "di")] == [7, 7, 0, 0]
    assert st.player("ana")["counters"] == {}


@pytest.mark.rule("810.10b")
def test_810_10b_a_player_who_loses_poison_counters_takes_them_off_the_team():
    s = thg()
    s.do(add_poison("ana", 1))
    st = s.do(add_poison("bo", 6))
    assert team_poison(st)["north"] == 7
    st = s.do({"do": "remove_counters", "player": "ana", "kind": "poison", "amount": 3})
    assert team_poison(st)["north"] == 4
    assert st.poison("ana") == 4 and st.poison("bo") == 4
    st = s.do({"do": "remove_counters", "player": "bo", "kind": "poison", "amount": 9})
    assert team_poison(st)["north"] == 0


@pytest.mark.rule("810.10c")
def test_810_10c_if_one_head_cant_get_poison_counters_neither_head_can():
    s = thg()
    s.do(effect("no-poison", "cant_get_poison", "ana"))
    st = s.do(damage("bo", 5, source="cy-infector", infect=True, combat=True))
    assert team_poison(st)["north"] == 0
    assert team_lives(st)["north"] == 30, "infect damage is never life loss"
    st = s.do(add_poison("bo", 2))
    assert team_poison(st)["north"] == 0
    st = s.do({"do": "add_counters", "player": "bo", "kind": "energy", "amount": 2})
    assert st.player("bo")["counters"] == {"energy": 2}
    st = s.do(add_poison("cy", 2))
    assert team_poison(st) == {"north": 0, "south": 2}


# --- 810.11 N-headed giants -----------------------------------------------------------------------


def three_headed():
    return Story(
        ["ana/north", "bo/north", "cy/north", "di/south", "ed/south", "fi/south"],
        variant="two-headed-giant",
    )


@pytest.mark.rule("810.11")
def test_810_11_three_headed_giant_teams_start_at_45():
    s = three_headed()
    st = s.state()
    assert team_lives(st) == {"north": 45, "south": 45}
    assert set(st.lives().values()) == {45}
    st = s.do(damage("ana", 30, source="di-attackers", combat=True))
    assert team_lives(st)["north"] == 15 and st["over"] is False
    st = s.do(damage("cy", 15, source="ed-attackers", combat=True))
    assert team_lives(st)["north"] == 0
    assert {st.why(p) for p in ("ana", "bo", "cy")} == {("lost", "team-life", "704.6a")}
    assert {st.player(p)["status"] for p in ("di", "ed", "fi")} == {"won"}


@pytest.mark.rule("810.11")
def test_810_11_three_headed_giant_teams_lose_at_20_poison_not_15():
    s = three_headed()
    st = s.do(add_poison("ana", 10))
    st = s.do(add_poison("bo", 5))
    assert team_poison(st)["north"] == 15
    assert st["over"] is False and st.statuses()["ana"] == "playing"
    st = s.do(add_poison("cy", 4))
    assert team_poison(st)["north"] == 19 and st["over"] is False
    st = s.do(add_poison("cy", 1))
    assert team_poison(st)["north"] == 20
    assert st.why("cy") == ("lost", "team-poison", "704.6b")
    assert st.why("ana") == ("lost", "team-poison", "704.6b")
    assert st.player("fi")["status"] == "won"


@pytest.mark.rule("810.11")
def test_810_11_four_headed_giant_teams_start_at_60_and_lose_at_25_poison():
    s = Story(
        [f"{p}/north" for p in ("a1", "a2", "a3", "a4")]
        + [f"{p}/south" for p in ("b1", "b2", "b3", "b4")],
        variant="two-headed-giant",
    )
    assert team_lives(s.state()) == {"north": 60, "south": 60}
    st = s.do(add_poison("b1", 24))
    assert team_poison(st)["south"] == 24 and st["over"] is False
    st = s.do(add_poison("b4", 1))
    assert st.why("b2") == ("lost", "team-poison", "704.6b")
    assert st.player("a3")["status"] == "won"


# --- 810 more stories -----------------------------------------------------------------------------


@pytest.mark.rule("810.9g")
def test_810_9g_a_gain_replacement_does_nothing_when_the_teammate_cant_gain():
    s = thg()
    s.do(effect("no-gain", "cant_gain_life", "ana"))
    s.do(card("remedy", "Tainted Remedy", "cy"))
    st = s.do(gain("bo", 4))
    assert team_lives(st)["north"] == 30, "119.7: neither the gain nor its replacement happens"
    s.do({"do": "end", "id": "no-gain"})
    st = s.do(gain("bo", 4))
    assert team_lives(st)["north"] == 26


@pytest.mark.rule("810.9c")
def test_810_9c_setting_one_heads_life_higher_is_a_gain_that_boon_reflection_doubles():
    s = thg()
    s.do(card("boon", "Boon Reflection", "ana"))
    s.do(card("pridemate-1", "Ajani's Pridemate", "bo"))
    st = s.do({"do": "set_life", "player": "ana", "to": 40})
    assert team_lives(st)["north"] == 50
    assert st["triggered"] == {"pridemate-1": 0}
    st = s.do({"do": "set_life", "player": "bo", "to": 60})
    assert team_lives(st)["north"] == 60
    assert st["triggered"] == {"pridemate-1": 1}


@pytest.mark.rule("810.9c")
def test_810_9c_setting_one_heads_life_lower_does_nothing_when_the_teammate_cant_lose():
    s = thg()
    s.do(effect("no-loss", "cant_lose_life", "bo"))
    st = s.do({"do": "set_life", "player": "ana", "to": 10})
    assert team_lives(st)["north"] == 30
    st = s.do({"do": "set_life", "player": "ana", "to": 35})
    assert team_lives(st)["north"] == 35


@pytest.mark.rule("810.9")
def test_810_9_each_heads_payment_is_its_own_life_loss():
    s = thg()
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do({"do": "pay_life", "payments": {"ana": 3, "bo": 2}})
    assert team_lives(st)["north"] == 25
    assert st["triggered"] == {"ana-loses": 1, "bo-loses": 1}
    st = s.do({"do": "pay_life", "payments": {"ana": 4, "bo": 0}})
    assert team_lives(st)["north"] == 21
    assert st["triggered"] == {"ana-loses": 2, "bo-loses": 1}


@pytest.mark.rule("810.9")
def test_810_9_lifelink_gains_for_its_controller_only():
    s = thg()
    s.do(card("pridemate-ana", "Ajani's Pridemate", "ana"))
    s.do(card("pridemate-bo", "Ajani's Pridemate", "bo"))
    st = s.do(damage("cy", 3, source="bo-lifelinker", lifelink=True, controller="bo", combat=True))
    assert team_lives(st) == {"north": 33, "south": 27}
    assert st["triggered"] == {"pridemate-ana": 0, "pridemate-bo": 1}


@pytest.mark.rule("810.10a")
def test_810_10a_infect_damage_to_each_head_adds_to_one_team_count_with_lifelink():
    s = thg()
    st = s.do(
        {
            "do": "together",
            "actions": [
                damage("cy", 3, source="ana-vampire", infect=True, lifelink=True, controller="ana"),
                damage("di", 3, source="ana-vampire", infect=True, lifelink=True, controller="ana"),
            ],
        }
    )
    assert [st.poison(p) for p in ("ana", "bo", "cy", "di")] == [0, 0, 6, 6]
    assert team_lives(st) == {"north": 36, "south": 30}


@pytest.mark.rule("810.8a")
def test_810_8a_a_team_cant_lose_to_poison_either_while_platinum_angel_is_out():
    s = thg()
    s.do(card("platinum-angel-1", "Platinum Angel", "bo"))
    st = s.do(add_poison("ana", 16))
    assert team_poison(st)["north"] == 16
    assert st.statuses() == dict.fromkeys(["ana", "bo", "cy", "di"], "playing")
    st = s.do({"do": "end", "id": "platinum-angel-1"})
    assert st.why("ana") == ("lost", "team-poison", "704.6b")
    assert st.why("bo") == ("lost", "team-poison", "704.6b")


@pytest.mark.rule("810.8a")
def test_810_8a_both_teams_at_0_at_once_is_a_draw():
    s = thg()
    s.do(damage("ana", 27, source="cy-attackers", combat=True))
    st = s.do(damage("di", 27, source="ana-attackers", combat=True))
    assert team_lives(st) == {"north": 3, "south": 3}
    st = s.do(
        {
            "do": "together",
            "note": "Flame Rift",
            "actions": [damage(p, 4, source="flame-rift") for p in ("ana", "bo", "cy", "di")],
        }
    )
    assert team_lives(st) == {"north": -5, "south": -5}
    assert st.statuses() == dict.fromkeys(["ana", "bo", "cy", "di"], "drew")
    assert st.player("ana")["reason"] == "simultaneous-loss"
    assert st["over"] is True


# --- 810.9 as a property --------------------------------------------------------------------------

_giant_actions = st_.lists(
    st_.tuples(
        st_.sampled_from(["damage", "lose_life", "gain_life", "pay_life"]),
        st_.sampled_from(["ana", "bo", "cy", "di"]),
        st_.integers(min_value=0, max_value=15),
    ),
    max_size=8,
)


@pytest.mark.rule("810.9")
@settings()
@given(steps=_giant_actions)
def test_810_9_what_happens_to_either_head_happens_to_the_team_total(steps):
    s = thg()
    team_of = {"ana": "north", "bo": "north", "cy": "south", "di": "south"}
    life = {"north": 30, "south": 30}
    refused = []
    over = False
    for n, (kind, player, amount) in enumerate(steps):
        action = (
            damage(player, amount)
            if kind == "damage"
            else {"do": kind, "player": player, "amount": amount}
        )
        st = s.do(action)
        team = team_of[player]
        if over:
            refused.append((str(n), "104.1"))
        elif kind == "pay_life" and amount > life[team]:
            refused.append((str(n), "119.4a"))
        else:
            life[team] += amount if kind == "gain_life" else -amount
        assert team_lives(st) == life
        assert st.lives() == {p: life[t] for p, t in team_of.items()}
        assert st.refused_rules() == refused
        over = over or min(life.values()) <= 0
        assert st["over"] is over


@pytest.mark.rule("810.9d")
def test_810_9d_the_chosen_heads_own_number_is_the_teams_new_total():
    s = thg()
    each = {"ana": 5, "bo": 25, "cy": 40, "di": 1}
    st = s.do({"do": "set_life", "each": each, "chosen": {"north": "bo", "south": "cy"}})
    assert team_lives(st) == {"north": 25, "south": 40}
    st = s.do({"do": "set_life", "each": each})
    assert team_lives(st) == {"north": 5, "south": 40}


@pytest.mark.rule("810.8a")
def test_810_8a_a_team_that_cant_win_still_wins_when_the_other_team_leaves():
    s = thg()
    s.do(card("persecutor", "Abyssal Persecutor", "ana"))
    st = s.do({"do": "win", "player": "bo", "source": "bo-alt-win"})
    assert st["over"] is False
    st = s.do({"do": "concede", "player": "di"})
    assert st.player("di")["status"] == "lost" and st.player("cy")["status"] == "lost"
    assert st.why("ana") == ("won", "last-standing", "104.2c")
    assert st.why("bo") == ("won", "last-standing", "104.2c")

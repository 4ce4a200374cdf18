"""Rule stories for life (119), computed amounts (107.1b), damage (120) and lifelink (702.15e).

Each test is a short game, told through the game record (../shared/spec/game-record.md), that
checks the state after every step. Rule text: ../shared/rules/life-and-game-end.txt.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from stories import Story, card, damage, effect, gain, life_of, lose, pay, two_player

# --- 119.1 Starting life --------------------------------------------------------------------------


@pytest.mark.rule("119.1")
def test_119_1_two_players_each_begin_at_20():
    s = two_player()
    st = s.state()
    assert st["game"] == 1 and st["over"] is False
    assert st.lives() == {"ana": 20, "bo": 20}
    assert [st.poison("ana"), st.poison("bo")] == [0, 0]
    assert st.statuses() == {"ana": "playing", "bo": "playing"}
    assert st.why("ana") == ("playing", None, None)
    st = s.do(damage("bo", 3, source="ana-shock"))
    assert st.lives() == {"ana": 20, "bo": 17}


@pytest.mark.rule("119.1")
def test_119_1_four_player_free_for_all_each_begin_at_20():
    s = Story(["ana", "bo", "cy", "di"], variant="free-for-all")
    assert s.state().lives() == {"ana": 20, "bo": 20, "cy": 20, "di": 20}
    st = s.do(damage("cy", 5, source="ana-creature"))
    assert st.lives() == {"ana": 20, "bo": 20, "cy": 15, "di": 20}


@pytest.mark.rule("119.1")
def test_119_1_team_vs_team_players_begin_at_20_each_with_no_shared_total():
    s = Story(["ana/north", "bo/north", "cy/south", "di/south"], variant="team-vs-team")
    st = s.state()
    assert st.lives() == {"ana": 20, "bo": 20, "cy": 20, "di": 20}
    assert st.team("north")["life"] is None and st.team("north")["poison"] is None
    st = s.do(damage("ana", 6, source="cy-creature"))
    assert st.lives() == {"ana": 14, "bo": 20, "cy": 20, "di": 20}


@pytest.mark.rule("119.1")
def test_119_1_the_starting_life_option_overrides_20_for_every_player():
    s = Story(["ana", "bo"], variant="two-player", options={"starting_life": 30})
    assert s.state().lives() == {"ana": 30, "bo": 30}
    assert s.do(damage("ana", 30, source="bo-creature")).why("ana") == ("lost", "life", "704.5a")


@pytest.mark.rule("119.1a")
def test_119_1a_two_headed_giant_each_team_begins_at_30():
    s = Story(["ana/north", "bo/north", "cy/south", "di/south"], variant="two-headed-giant")
    st = s.state()
    assert st.team("north")["life"] == 30 and st.team("south")["life"] == 30
    assert st.lives() == {"ana": 30, "bo": 30, "cy": 30, "di": 30}
    st = s.do(damage("ana", 2, source="cy-creature"))
    assert st.team("north")["life"] == 28 and st.lives()["bo"] == 28


@pytest.mark.rule("119.1b")
def test_119_1b_vanguard_starting_life_is_20_plus_or_minus_the_life_modifier():
    s = Story(
        [{"id": "ana", "life_modifier": -3}, {"id": "bo", "life_modifier": 4}, {"id": "cy"}],
        variant="free-for-all",
        format="vanguard",
    )
    assert s.state().lives() == {"ana": 17, "bo": 24, "cy": 20}
    st = s.do(damage("ana", 17, source="bo-creature"))
    assert st.why("ana") == ("lost", "life", "704.5a")
    assert st.lives() == {"ana": 0, "bo": 24, "cy": 20}


@pytest.mark.rule("119.1c")
def test_119_1c_commander_each_player_begins_at_40():
    s = Story(
        [{"id": "ana", "commanders": ["ana-cmdr"]}, {"id": "bo", "commanders": ["bo-cmdr"]}],
        variant="two-player",
        format="commander",
    )
    assert s.state().lives() == {"ana": 40, "bo": 40}
    assert s.do(damage("bo", 20, source="ana-fireball")).lives() == {"ana": 40, "bo": 20}


@pytest.mark.rule("119.1d")
def test_119_1d_brawl_begins_at_25_with_two_players():
    s = Story(
        [{"id": "ana", "commanders": ["ana-cmdr"]}, {"id": "bo", "commanders": ["bo-cmdr"]}],
        variant="two-player",
        format="brawl",
    )
    assert s.state().lives() == {"ana": 25, "bo": 25}


@pytest.mark.rule("119.1d")
def test_119_1d_brawl_begins_at_30_with_more_players():
    s = Story(
        [{"id": p, "commanders": [f"{p}-cmdr"]} for p in ("ana", "bo", "cy", "di")],
        variant="free-for-all",
        format="brawl",
    )
    assert s.state().lives() == {"ana": 30, "bo": 30, "cy": 30, "di": 30}


@pytest.mark.rule("119.1e")
def test_119_1e_archenemy_begins_at_40():
    s = Story(
        [{"id": "villain", "archenemy": True}, "ana", "bo", "cy"],
        variant="archenemy",
    )
    assert s.state().lives() == {"villain": 40, "ana": 20, "bo": 20, "cy": 20}


# --- 119.2-119.3 Damage and gaining or losing life ------------------------------------------------


@pytest.mark.rule("119.2")
def test_119_2_damage_makes_the_player_lose_that_much_life():
    s = two_player()
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do(damage("bo", 7, source="ana-giant", combat=True))
    assert st.lives() == {"ana": 20, "bo": 13}
    assert st["triggered"] == {"bo-loses": 1}
    st = s.do(damage("bo", 13, source="ana-fireball"))
    assert st.lives() == {"ana": 20, "bo": 0}
    assert st["triggered"] == {"bo-loses": 2}
    assert st.why("bo") == ("lost", "life", "704.5a")
    assert st.why("ana") == ("won", "last-standing", "104.2a")
    assert st["over"] is True


@pytest.mark.rule("119.3")
def test_119_3_gaining_and_losing_life_adjust_the_total():
    s = two_player()
    s.do(effect("ana-gains", "on_gain_life", "ana"))
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(gain("ana", 5, source="healing-salve"))
    assert st.lives() == {"ana": 25, "bo": 20}
    assert st["triggered"] == {"ana-gains": 1, "ana-loses": 0}
    st = s.do(lose("ana", 7, source="bo-drain"))
    assert st.lives() == {"ana": 18, "bo": 20}
    assert st["triggered"] == {"ana-gains": 1, "ana-loses": 1}
    st = s.do(lose("ana", 18, source="bo-drain"))
    assert st.why("ana") == ("lost", "life", "704.5a")


# --- 119.4 Paying life ----------------------------------------------------------------------------


@pytest.mark.rule("119.4")
def test_119_4_paying_life_is_losing_it_and_needs_a_total_at_least_the_payment():
    s = two_player()
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(pay("ana", 7))
    assert st.lives() == {"ana": 13, "bo": 20}
    assert st["triggered"] == {"ana-loses": 1}
    assert s.refused_last() is None
    st = s.do(pay("ana", 14))
    assert s.refused_last()["rule"] == "119.4"
    assert st.refused_rules() == [("2", "119.4")]
    assert st.lives() == {"ana": 13, "bo": 20}
    assert st["triggered"] == {"ana-loses": 1}
    st = s.do(pay("ana", 13))
    assert s.refused_last() is None
    assert st.life("ana") == 0
    assert st["triggered"] == {"ana-loses": 2}
    assert st.why("ana") == ("lost", "life", "704.5a")


@pytest.mark.rule("119.4")
def test_119_4_example_13_paying_5_at_3_is_refused_then_paying_0_works():
    s = two_player()
    assert s.do(damage("ana", 17, source="bo-attackers", combat=True)).life("ana") == 3
    st = s.do(pay("ana", 5))
    assert st.refused_rules() == [("1", "119.4")]
    assert st.life("ana") == 3
    st = s.do(pay("ana", 0))
    assert st.refused_rules() == [("1", "119.4")]
    assert st.life("ana") == 3 and st.why("ana") == ("playing", None, None)


@pytest.mark.rule("119.4a")
def test_119_4a_one_head_pays_from_the_team_total():
    s = Story(["ana/north", "bo/north", "cy/south", "di/south"], variant="two-headed-giant")
    st = s.do(damage("bo", 19, source="cy-attackers", combat=True))
    assert st.team("north")["life"] == 11 and st.life("ana") == 11
    st = s.do(pay("ana", 12))
    assert s.refused_last()["rule"] == "119.4a"
    assert st.team("north")["life"] == 11
    st = s.do(pay("ana", 11))
    assert s.refused_last() is None
    assert st.team("north")["life"] == 0
    assert st.why("ana") == ("lost", "team-life", "704.6a")
    assert st.why("bo") == ("lost", "team-life", "704.6a")


@pytest.mark.rule("119.4a")
def test_119_4a_team_pays_only_if_team_total_covers_both_payments():
    s = Story(["ana/north", "bo/north", "cy/south", "di/south"], variant="two-headed-giant")
    s.do(damage("bo", 19, source="cy-attackers", combat=True))
    st = s.do({"do": "pay_life", "payments": {"ana": 6, "bo": 6}})
    assert s.refused_last()["rule"] in {"119.4a", "810.9b"}
    assert st.team("north")["life"] == 11
    st = s.do({"do": "pay_life", "payments": {"ana": 6, "bo": 4}})
    assert s.refused_last() is None
    assert st.team("north")["life"] == 1
    assert st.lives() == {"ana": 1, "bo": 1, "cy": 30, "di": 30}


@pytest.mark.rule("119.4b")
def test_119_4b_zero_life_can_always_be_paid_even_below_zero():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do(damage("ana", 25, source="bo-attackers", combat=True))
    assert st.life("ana") == -5 and st.why("ana") == ("playing", None, None)
    st = s.do(pay("ana", 0))
    assert s.refused_last() is None
    assert st.life("ana") == -5
    st = s.do(pay("ana", 1))
    assert s.refused_last()["rule"] == "119.4"
    assert st.life("ana") == -5


@pytest.mark.rule("119.4b")
def test_119_4b_zero_life_can_be_paid_under_cant_lose_life():
    s = two_player()
    s.do(effect("no-loss", "cant_lose_life", "ana"))
    st = s.do(pay("ana", 0))
    assert s.refused_last() is None and st.life("ana") == 20
    st = s.do(pay("ana", 2))
    assert s.refused_last()["rule"] == "119.8"
    assert st.life("ana") == 20


# --- 119.5 Setting a life total -------------------------------------------------------------------


@pytest.mark.rule("119.5")
def test_119_5_setting_a_life_total_is_a_gain_or_loss_of_the_difference():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do({"do": "set_life", "player": "ana", "to": 25})
    assert st.life("ana") == 25
    assert st["triggered"] == {"pridemate-1": 1, "ana-loses": 0}
    st = s.do({"do": "set_life", "player": "ana", "to": 8})
    assert st.life("ana") == 8
    assert st["triggered"] == {"pridemate-1": 1, "ana-loses": 1}
    st = s.do({"do": "set_life", "player": "ana", "to": 8})
    assert st.life("ana") == 8
    assert st["triggered"] == {"pridemate-1": 1, "ana-loses": 1}
    st = s.do({"do": "set_life", "player": "ana", "to": 0})
    assert st.why("ana") == ("lost", "life", "704.5a")


@pytest.mark.rule("119.5")
def test_119_5_example_14_life_becomes_25_at_20_triggers_pridemate_once():
    s = two_player()
    st = s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    assert st["triggered"] == {"pridemate-1": 0}
    st = s.do({"do": "set_life", "player": "ana", "to": 25})
    assert st.lives() == {"ana": 25, "bo": 20}
    assert st["triggered"] == {"pridemate-1": 1}


# --- 119.6 Zero or less life ----------------------------------------------------------------------


@pytest.mark.rule("119.6")
def test_119_6_a_player_at_0_or_less_loses_and_the_total_may_be_negative():
    s = Story(["ana", "bo", "cy"], variant="free-for-all")
    st = s.do(damage("bo", 15, source="ana-creature"))
    assert st.life("bo") == 5 and st.statuses()["bo"] == "playing"
    st = s.do(damage("bo", 8, source="cy-fireball"))
    assert st.life("bo") == -3
    assert st.why("bo") == ("lost", "life", "704.5a")
    assert st["over"] is False
    assert st.statuses() == {"ana": "playing", "bo": "lost", "cy": "playing"}


@pytest.mark.rule("119.6")
def test_119_6_is_a_state_based_action_checked_after_a_whole_group():
    s = two_player()
    st = s.do(
        {
            "do": "together",
            "actions": [damage("ana", 20, source="bo-blast"), gain("ana", 5, source="ana-salve")],
        }
    )
    assert st.life("ana") == 5
    assert st.why("ana") == ("playing", None, None)
    st = s.do(damage("ana", 5, source="bo-blast"))
    assert st.why("ana") == ("lost", "life", "704.5a")


# --- 119.7 Can't gain life ------------------------------------------------------------------------


@pytest.mark.rule("119.7")
def test_119_7_cant_gain_life_stops_gains_without_refusing_them():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(card("leyline", "Leyline of Punishment", "bo"))
    st = s.do(gain("ana", 5, source="healing-salve"))
    assert s.refused_last() is None
    assert st.lives() == {"ana": 20, "bo": 20}
    st = s.do(damage("bo", 3, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 20, "bo": 17}
    st = s.do({"do": "set_life", "player": "ana", "to": 30})
    assert st.lives() == {"ana": 20, "bo": 17}
    assert st["triggered"] == {"pridemate-1": 0}
    assert st["refused"] == []


@pytest.mark.rule("119.7")
def test_119_7_an_exchange_that_would_raise_a_player_who_cant_gain_wont_happen():
    s = two_player()
    s.do(card("erebos", "Erebos, God of the Dead", "ana"))
    st = s.do(damage("bo", 5, source="ana-creature"))
    assert st.lives() == {"ana": 20, "bo": 15}
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert s.refused_last()["rule"] == "119.7"
    assert st.lives() == {"ana": 20, "bo": 15}
    st = s.do(damage("ana", 10, source="bo-creature"))
    assert st.lives() == {"ana": 10, "bo": 15}
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert s.refused_last() is None
    assert st.lives() == {"ana": 15, "bo": 10}


@pytest.mark.rule("119.7")
def test_119_7_a_redistribution_that_would_raise_a_player_who_cant_gain_wont_happen():
    s = two_player()
    s.do(card("erebos", "Erebos, God of the Dead", "ana"))
    s.do(damage("bo", 5, source="ana-creature"))
    st = s.do({"do": "redistribute_life", "totals": {"ana": 15, "bo": 20}, "controller": "ana"})
    assert s.refused_last()["rule"] == "119.7"
    assert st.lives() == {"ana": 20, "bo": 15}
    st = s.do({"do": "redistribute_life", "totals": {"ana": 20, "bo": 15}, "controller": "ana"})
    assert s.refused_last() is None
    assert st.lives() == {"ana": 20, "bo": 15}


@pytest.mark.rule("119.7")
def test_119_7_a_replacement_of_a_life_gain_under_cant_gain_life_does_nothing():
    s = two_player()
    s.do(card("remedy", "Tainted Remedy", "bo"))
    st = s.do(gain("ana", 4, source="healing-salve"))
    assert st.life("ana") == 16
    s.do(card("leyline", "Leyline of Punishment", "bo"))
    st = s.do(gain("ana", 4, source="healing-salve"))
    assert s.refused_last() is None
    assert st.life("ana") == 16


# --- 119.8 Can't lose life ------------------------------------------------------------------------


@pytest.mark.rule("119.8")
def test_119_8_cant_lose_life_stops_losses_and_refuses_life_payments():
    s = two_player()
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    s.do(effect("no-loss", "cant_lose_life", "ana"))
    st = s.do(damage("ana", 5, source="bo-creature", combat=True))
    assert st.life("ana") == 20
    st = s.do(lose("ana", 3, source="bo-drain"))
    assert s.refused_last() is None
    assert st.life("ana") == 20
    st = s.do({"do": "set_life", "player": "ana", "to": 5})
    assert st.life("ana") == 20
    st = s.do(pay("ana", 2))
    assert s.refused_last()["rule"] == "119.8"
    assert st.life("ana") == 20
    st = s.do(gain("ana", 3))
    assert st.life("ana") == 23
    assert st["triggered"] == {"ana-loses": 0}
    assert st.refused_rules() == [("5", "119.8")]


@pytest.mark.rule("119.8")
def test_119_8_an_exchange_or_redistribution_lowering_a_player_who_cant_lose_wont_happen():
    s = two_player()
    s.do(effect("no-loss", "cant_lose_life", "ana"))
    st = s.do(damage("bo", 8, source="ana-creature"))
    assert st.lives() == {"ana": 20, "bo": 12}
    st = s.do({"do": "exchange_life", "players": ["bo", "ana"]})
    assert s.refused_last()["rule"] == "119.8"
    assert st.lives() == {"ana": 20, "bo": 12}
    st = s.do({"do": "redistribute_life", "totals": {"ana": 12, "bo": 20}})
    assert s.refused_last()["rule"] == "119.8"
    assert st.lives() == {"ana": 20, "bo": 12}
    s.do({"do": "end", "id": "no-loss"})
    st = s.do({"do": "exchange_life", "players": ["bo", "ana"]})
    assert s.refused_last() is None
    assert st.lives() == {"ana": 12, "bo": 20}


# --- 119.9-119.10 Gain triggers and replacements --------------------------------------------------


@pytest.mark.rule("119.9")
def test_119_9_gaining_0_life_is_no_event_so_pridemate_does_not_trigger():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(gain("ana", 0, source="ana-x-spell"))
    assert s.refused_last() is None
    assert st.life("ana") == 20 and st["triggered"] == {"pridemate-1": 0}
    st = s.do(gain("ana", 1, source="ana-x-spell"))
    assert st.life("ana") == 21 and st["triggered"] == {"pridemate-1": 1}
    st = s.do(gain("bo", 4, source="bo-salve"))
    assert st.life("bo") == 24 and st["triggered"] == {"pridemate-1": 1}
    st = s.do({"do": "set_life", "player": "ana", "to": 21})
    assert st["triggered"] == {"pridemate-1": 1}


@pytest.mark.rule("119.9")
def test_119_9_each_life_gain_event_triggers_once_whatever_its_size():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(gain("ana", 10, source="big-salve"))
    assert st.life("ana") == 30 and st["triggered"] == {"pridemate-1": 1}
    st = s.do(
        {"do": "together", "actions": [gain("ana", 1, source="a"), gain("ana", 2, source="b")]}
    )
    assert st.life("ana") == 33 and st["triggered"] == {"pridemate-1": 3}


@pytest.mark.rule("119.10")
def test_119_10_a_gain_replacement_applies_to_real_gains_but_not_to_gaining_0():
    s = two_player()
    s.do(card("boon", "Boon Reflection", "ana"))
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(gain("ana", 3, source="salve"))
    assert st.life("ana") == 26 and st["triggered"] == {"pridemate-1": 1}
    st = s.do(gain("ana", 0, source="x-spell"))
    assert st.life("ana") == 26 and st["triggered"] == {"pridemate-1": 1}


@pytest.mark.rule("119.10")
def test_119_10_tainted_remedy_does_not_turn_gaining_0_into_a_loss():
    s = two_player()
    s.do(card("remedy", "Tainted Remedy", "ana"))
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do(gain("bo", 0, source="x-spell"))
    assert st.life("bo") == 20 and st["triggered"] == {"bo-loses": 0}
    st = s.do(gain("bo", 2, source="salve"))
    assert st.life("bo") == 18 and st["triggered"] == {"bo-loses": 1}


# --- 107.1b Computed amounts below zero -----------------------------------------------------------


@pytest.mark.rule("107.1b")
def test_107_1b_a_computed_amount_below_zero_counts_as_zero():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(damage("ana", 25, source="bo-attackers", combat=True))
    assert st.life("ana") == -5 and st.statuses()["ana"] == "playing"
    assert st["triggered"] == {"pridemate-1": 0, "ana-loses": 1}
    st = s.do(gain("ana", life_of("ana"), source="gain-life-equal-to-your-life"))
    assert st.life("ana") == -5 and st["triggered"] == {"pridemate-1": 0, "ana-loses": 1}
    st = s.do(lose("ana", life_of("ana"), source="lose-life-equal-to-your-life"))
    assert st.life("ana") == -5 and st["triggered"] == {"pridemate-1": 0, "ana-loses": 1}
    st = s.do(damage("bo", life_of("ana"), source="damage-equal-to-her-life"))
    assert st.lives() == {"ana": -5, "bo": 20}
    assert s.refused_last() is None


@pytest.mark.rule("107.1b")
def test_107_1b_doubling_a_negative_life_total_uses_the_negative_value():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do(damage("ana", 25, source="bo-attackers", combat=True))
    assert st.life("ana") == -5
    st = s.do({"do": "set_life", "player": "ana", "to": life_of("ana", [2, 1]), "source": "beacon"})
    assert st.life("ana") == -10
    assert st.statuses() == {"ana": "playing", "bo": "playing"}


@pytest.mark.rule("107.1b")
def test_107_1b_half_a_life_total_rounded_up_or_down():
    s = two_player()
    st = s.do(damage("ana", 9, source="bo-creature"))
    assert st.life("ana") == 11
    st = s.do(pay("ana", life_of("ana", [1, 2], "up")))
    assert st.life("ana") == 5
    st = s.do(lose("ana", life_of("ana", [1, 2], "down")))
    assert st.life("ana") == 3


@pytest.mark.rule("107.1b")
def test_107_1b_a_negative_amount_in_a_record_is_malformed():
    s = two_player()
    assert s.do(damage("bo", 2, source="ana-creature")).life("bo") == 18
    err = s.malformed(damage("bo", -3, source="ana-creature"))
    assert err.position == "1" and err.member == "amount"
    err = s.malformed(gain("ana", -1))
    assert err.position == "1" and err.member == "amount"
    assert s.state().lives() == {"ana": 20, "bo": 18}


# --- 120 Damage -----------------------------------------------------------------------------------


@pytest.mark.rule("120.3a")
def test_120_3a_damage_without_infect_is_life_loss():
    s = two_player()
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do(damage("bo", 4, source="ana-bear", combat=True))
    assert st.lives() == {"ana": 20, "bo": 16} and st.poison("bo") == 0
    assert st["triggered"] == {"bo-loses": 1}
    st = s.do(damage("bo", 16, source="ana-bolt"))
    assert st.life("bo") == 0 and st.why("bo") == ("lost", "life", "704.5a")


@pytest.mark.rule("120.3b")
def test_120_3b_damage_with_infect_gives_poison_counters_and_no_life_loss():
    s = two_player()
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do(damage("bo", 4, source="skithiryx", infect=True))
    assert st.life("bo") == 20 and st.poison("bo") == 4
    assert st["triggered"] == {"bo-loses": 0}
    st = s.do(damage("bo", 5, source="skithiryx", infect=True))
    assert st.poison("bo") == 9 and st.statuses()["bo"] == "playing"
    st = s.do(damage("bo", 1, source="blight-mamba", infect=True))
    assert st.poison("bo") == 10 and st.life("bo") == 20
    assert st.why("bo") == ("lost", "poison", "704.5c")


@pytest.mark.rule("702.90b")
def test_702_90b_example_21_infect_damage_is_poison_not_life_loss():
    s = two_player()
    st = s.do(damage("bo", 4, source="skithiryx", infect=True))
    assert st.lives() == {"ana": 20, "bo": 20}
    assert st.poison("bo") == 4 and st.poison("ana") == 0
    assert st["over"] is False


@pytest.mark.rule("120.3f")
def test_120_3f_lifelink_damage_makes_its_controller_gain_that_much():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(damage("bo", 3, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 23, "bo": 17}
    assert st["triggered"] == {"pridemate-1": 1}
    st = s.do(damage("bo", 2, source="ana-vampire", infect=True, lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 25, "bo": 17} and st.poison("bo") == 2
    assert st["triggered"] == {"pridemate-1": 2}


@pytest.mark.rule("120.3f")
def test_120_3f_lifelink_gains_even_when_the_damaged_player_cant_lose_life():
    s = two_player()
    s.do(effect("bo-safe", "cant_lose_life", "bo"))
    st = s.do(damage("bo", 4, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 24, "bo": 20}


@pytest.mark.rule("120.3f")
def test_120_3f_lifelink_damage_to_its_own_controller_is_a_loss_and_a_gain():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(damage("ana", 3, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.life("ana") == 20
    assert st["triggered"] == {"pridemate-1": 1, "ana-loses": 1}


@pytest.mark.rule("702.15b")
def test_702_15b_lifelink_without_a_controller_is_malformed():
    s = two_player()
    err = s.malformed(damage("bo", 3, source="ana-lifelinker", lifelink=True))
    assert err.position == "0"


@pytest.mark.rule("120.3g")
def test_120_3g_toxic_combat_damage_gives_poison_in_addition_to_life_loss():
    # The record has no "toxic" member: toxic is the combat damage and the poison counters
    # in one event.
    s = two_player()
    st = s.do(
        {
            "do": "together",
            "note": "a 3/3 with toxic 1 deals combat damage",
            "actions": [
                damage("bo", 3, source="ana-toxic", combat=True),
                {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 1},
            ],
        }
    )
    assert st.life("bo") == 17 and st.poison("bo") == 1
    st = s.do(
        {
            "do": "together",
            "actions": [
                damage("bo", 17, source="ana-toxic", combat=True),
                {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 1},
            ],
        }
    )
    assert st.life("bo") == 0 and st.poison("bo") == 2
    assert st.why("bo") == ("lost", "life", "704.5a")


@pytest.mark.rule("120.8")
def test_120_8_zero_damage_is_no_damage_at_all():
    s = Story(
        [{"id": "ana", "commanders": ["ana-cmdr"]}, {"id": "bo", "commanders": ["bo-cmdr"]}],
        variant="two-player",
        format="commander",
    )
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do(damage("bo", 0, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert s.refused_last() is None
    assert st.lives() == {"ana": 40, "bo": 40}
    assert st["triggered"] == {"pridemate-1": 0, "bo-loses": 0}
    st = s.do(damage("bo", 0, source="ana-cmdr", combat=True, infect=True))
    assert st.poison("bo") == 0
    assert st.player("bo")["commander_damage"].get("ana-cmdr", 0) == 0
    assert st["triggered"] == {"pridemate-1": 0, "bo-loses": 0}
    st = s.do(damage("bo", 1, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 41, "bo": 39}
    assert st["triggered"] == {"pridemate-1": 1, "bo-loses": 1}


# --- 702.15e Separate life gain events per lifelink source ----------------------------------------


@pytest.mark.rule("702.15e")
def test_702_15e_two_lifelink_sources_at_once_are_two_life_gain_events():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(
        {
            "do": "together",
            "note": "combat damage: two lifelinkers hit bo",
            "actions": [
                damage(
                    "bo", 2, source="lifelinker-a", combat=True, lifelink=True, controller="ana"
                ),
                damage(
                    "bo", 3, source="lifelinker-b", combat=True, lifelink=True, controller="ana"
                ),
            ],
        }
    )
    assert st.lives() == {"ana": 25, "bo": 15}
    assert st["triggered"] == {"pridemate-1": 2}


@pytest.mark.rule("702.15e")
def test_702_15e_each_lifelink_event_is_doubled_by_boon_reflection_separately():
    s = two_player()
    s.do(card("boon", "Boon Reflection", "ana"))
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(
        {
            "do": "together",
            "actions": [
                damage(
                    "bo", 2, source="lifelinker-a", combat=True, lifelink=True, controller="ana"
                ),
                damage(
                    "bo", 3, source="lifelinker-b", combat=True, lifelink=True, controller="ana"
                ),
            ],
        }
    )
    assert st.lives() == {"ana": 30, "bo": 15}
    assert st["triggered"] == {"pridemate-1": 2}


@pytest.mark.rule("702.15e")
def test_702_15e_one_lifelink_source_hitting_two_players_at_once_is_one_life_gain_event():
    s = Story(["ana", "bo", "cy"], variant="free-for-all")
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(
        {
            "do": "together",
            "note": "one lifelink source deals 2 damage to each opponent",
            "actions": [
                damage("bo", 2, source="ana-lifelinker", lifelink=True, controller="ana"),
                damage("cy", 2, source="ana-lifelinker", lifelink=True, controller="ana"),
            ],
        }
    )
    assert st.lives() == {"ana": 24, "bo": 18, "cy": 18}
    assert st["triggered"] == {"pridemate-1": 1}
    st = s.do(damage("bo", 1, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 25, "bo": 17, "cy": 18}
    assert st["triggered"] == {"pridemate-1": 2}


# --- 119 more stories -----------------------------------------------------------------------------


@pytest.mark.rule("119.3")
def test_119_3_every_amount_in_one_group_is_read_as_the_group_begins():
    s = Story(["ana", "bo", "cy"], variant="free-for-all")
    s.do(damage("bo", 8, source="ana-creature"))
    st = s.do(damage("cy", 2, source="ana-creature"))
    assert st.lives() == {"ana": 20, "bo": 12, "cy": 18}
    st = s.do(
        {
            "do": "together",
            "note": "each player loses a third of their life, rounded up",
            "actions": [lose(p, life_of(p, [1, 3], "up")) for p in ("ana", "bo", "cy")],
        }
    )
    assert st.lives() == {"ana": 13, "bo": 8, "cy": 12}
    st = s.do(
        {
            "do": "together",
            "note": "bo loses 4, then ana gains life equal to bo's life total",
            "actions": [lose("bo", 4), gain("ana", life_of("bo"))],
        }
    )
    assert st.lives() == {"ana": 21, "bo": 4, "cy": 12}


@pytest.mark.rule("119.7")
def test_119_7_an_exchange_of_equal_totals_raises_nobody_and_happens():
    s = two_player()
    s.do(card("leyline", "Leyline of Punishment", "ana"))
    s.do(effect("no-loss", "cant_lose_life", "ana", affects="players"))
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert s.refused_last() is None
    assert st.lives() == {"ana": 20, "bo": 20}
    st = s.do({"do": "redistribute_life", "totals": {"ana": 20, "bo": 20}})
    assert s.refused_last() is None
    assert st["refused"] == []


@pytest.mark.rule("119.7")
def test_119_7_an_exchange_with_a_player_who_cant_gain_happens_when_they_go_down():
    s = two_player()
    s.do(card("leyline", "Leyline of Punishment", "bo"))
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(damage("ana", 12, source="bo-attackers", combat=True))
    assert st.lives() == {"ana": 8, "bo": 20}
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert s.refused_last()["rule"] == "119.7"
    assert st.lives() == {"ana": 8, "bo": 20}
    assert st["triggered"] == {"pridemate-1": 0}
    s.do({"do": "end", "id": "leyline"})
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert st.lives() == {"ana": 20, "bo": 8}
    assert st["triggered"] == {"pridemate-1": 1}


@pytest.mark.rule("119.6")
def test_119_6_a_player_back_above_0_before_the_check_keeps_playing():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do(damage("ana", 24, source="bo-attackers", combat=True))
    assert st.life("ana") == -4 and st.statuses()["ana"] == "playing"
    st = s.do(gain("ana", 5))
    assert st.life("ana") == 1
    st = s.do({"do": "end", "id": "angel"})
    assert st.life("ana") == 1 and st.statuses() == {"ana": "playing", "bo": "playing"}


@pytest.mark.rule("107.1b")
def test_107_1b_half_a_negative_life_total_is_a_payment_of_0():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do(damage("ana", 25, source="bo-attackers", combat=True))
    assert st.life("ana") == -5
    st = s.do(pay("ana", life_of("ana", [1, 2], "up")))
    assert s.refused_last() is None
    assert st.life("ana") == -5


@pytest.mark.rule("120.3b")
def test_120_3b_infect_gives_poison_even_to_a_player_who_cant_lose_life():
    s = two_player()
    s.do(effect("no-loss", "cant_lose_life", "bo"))
    st = s.do(damage("bo", 6, source="ana-infector", infect=True, combat=True))
    assert st.life("bo") == 20 and st.poison("bo") == 6
    st = s.do(damage("bo", 4, source="ana-infector", infect=True, combat=True))
    assert st.why("bo") == ("lost", "poison", "704.5c")


# --- 122 Counters on players ----------------------------------------------------------------------


@pytest.mark.rule("122.1f")
def test_122_1f_example_16_nine_poison_counters_then_the_tenth():
    s = two_player()
    st = s.do({"do": "add_counters", "player": "bo", "kind": "poison", "amount": 9})
    assert st.poison("bo") == 9 and st.why("bo") == ("playing", None, None)
    assert st.player("bo")["counters"] == {}
    st = s.do({"do": "add_counters", "player": "bo", "kind": "poison", "amount": 1})
    assert st.poison("bo") == 10 and st.life("bo") == 20
    assert st.why("bo") == ("lost", "poison", "704.5c")
    assert st.why("ana") == ("won", "last-standing", "104.2a")
    assert st["refused"] == []


@pytest.mark.rule("122.1f")
def test_122_1f_losing_poison_counters_keeps_a_player_under_ten():
    s = two_player()
    st = s.do({"do": "add_counters", "player": "bo", "kind": "poison", "amount": 8})
    st = s.do({"do": "remove_counters", "player": "bo", "kind": "poison", "amount": 3})
    assert st.poison("bo") == 5
    st = s.do({"do": "add_counters", "player": "bo", "kind": "poison", "amount": 4})
    assert st.poison("bo") == 9 and st.statuses()["bo"] == "playing"


@pytest.mark.rule("122.1")
def test_122_1_other_player_counters_are_kept_by_kind_and_never_go_below_0():
    s = two_player()
    st = s.do({"do": "add_counters", "player": "ana", "kind": "energy", "amount": 3})
    assert st.player("ana")["counters"] == {"energy": 3}
    st = s.do({"do": "add_counters", "player": "ana", "kind": "experience", "amount": 1})
    assert st.player("ana")["counters"] == {"energy": 3, "experience": 1}
    st = s.do({"do": "remove_counters", "player": "ana", "kind": "energy", "amount": 5})
    assert s.refused_last() is None
    assert st.player("ana")["counters"] == {"experience": 1}
    st = s.do({"do": "remove_counters", "player": "ana", "kind": "poison", "amount": 2})
    assert st.poison("ana") == 0
    st = s.do({"do": "add_counters", "player": "ana", "kind": "energy", "amount": 0})
    assert st.player("ana")["counters"] == {"experience": 1}
    st = s.do({"do": "add_counters", "player": "ana", "kind": "rad", "amount": 12})
    assert st.player("ana")["counters"] == {"experience": 1, "rad": 12}
    assert st.why("ana") == ("playing", None, None), "only poison counters end the game"
    assert st.life("ana") == 20 and st.poison("ana") == 0


@pytest.mark.rule("122.1")
def test_122_1_a_counter_kind_is_a_lowercase_word():
    s = two_player()
    err = s.malformed({"do": "add_counters", "player": "ana", "kind": "Energy", "amount": 1})
    assert err.position == "0" and err.member == "kind"
    err = s.malformed({"do": "add_counters", "player": "ana", "kind": "poison", "amount": -1})
    assert err.position == "0" and err.member == "amount"


# --- 119.3, 119.4, 119.6 as a property ------------------------------------------------------------

_life_actions = st_.lists(
    st_.tuples(
        st_.sampled_from(["damage", "lose_life", "gain_life", "pay_life"]),
        st_.sampled_from(["ana", "bo"]),
        st_.integers(min_value=0, max_value=12),
    ),
    max_size=8,
)


def _as_action(kind, player, amount):
    if kind == "damage":
        return damage(player, amount, source="a-source")
    return {"do": kind, "player": player, "amount": amount}


@pytest.mark.rule("119.3")
@settings()
@given(steps=_life_actions)
def test_119_3_life_totals_follow_gains_losses_and_payments_step_by_step(steps):
    s = two_player()
    life = {"ana": 20, "bo": 20}
    refused = []
    over = False
    for n, (kind, player, amount) in enumerate(steps):
        st = s.do(_as_action(kind, player, amount))
        if over:
            refused.append((str(n), "104.1"))
        elif kind == "pay_life" and amount > life[player]:
            refused.append((str(n), "119.4"))
        else:
            life[player] += amount if kind == "gain_life" else -amount
        assert st.lives() == life
        assert st.refused_rules() == refused
        down = {p for p, v in life.items() if v <= 0}
        if down and not over:
            over = True
        assert st["over"] is over
        for p in ("ana", "bo"):
            if not over:
                assert st.why(p) == ("playing", None, None)
            elif down == {"ana", "bo"}:
                assert st.why(p) == ("drew", "simultaneous-loss", "104.4a")
            elif p in down:
                assert st.why(p) == ("lost", "life", "704.5a")
            else:
                assert st.why(p) == ("won", "last-standing", "104.2a")


@pytest.mark.rule("119.5")
def test_119_5_each_players_life_total_becomes_a_number_outside_two_headed_giant():
    s = Story(["ana", "bo", "cy"], variant="free-for-all")
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    s.do(damage("ana", 13, source="cy-creature"))
    st = s.do(damage("cy", 2, source="ana-creature"))
    assert st.lives() == {"ana": 7, "bo": 20, "cy": 18}
    st = s.do({"do": "set_life", "each": {"ana": 10, "bo": 10, "cy": 10}})
    assert st.lives() == {"ana": 10, "bo": 10, "cy": 10}
    assert st["triggered"] == {"pridemate-1": 1, "bo-loses": 1}


@pytest.mark.rule("119.5")
def test_119_5_a_redistribution_sets_life_totals_so_it_is_gains_and_losses():
    s = two_player()
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do(damage("ana", 10, source="bo-creature"))
    assert st.lives() == {"ana": 10, "bo": 20}
    st = s.do({"do": "redistribute_life", "totals": {"ana": 20, "bo": 10}, "controller": "ana"})
    assert st.lives() == {"ana": 20, "bo": 10}
    assert st["triggered"] == {"pridemate-1": 1, "bo-loses": 1}


@pytest.mark.rule("107.1b")
def test_107_1b_amounts_are_integers_of_any_size_and_nothing_else():
    s = two_player()
    st = s.do(gain("ana", 10**30))
    assert st.life("ana") == 10**30 + 20
    st = s.do(damage("ana", 10**30, source="bo-big"))
    assert st.life("ana") == 20
    for bad in (True, 3.0, "3", float("nan"), float("inf"), None):
        err = s.malformed(damage("bo", bad, source="ana-creature"))
        assert err.position == "2" and err.member == "amount"

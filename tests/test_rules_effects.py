"""Rule stories for the effect kinds and the card catalogue of the game record
(../shared/spec/game-record.md, "Effect kinds" and "Card catalogue").

Each test is a short game that checks the state after every step. "Can't" kinds that reach a
player reach that player's whole team in Two-Headed Giant (810.8a, 810.9g, 810.9h, 810.10c);
triggers and replacements reach only the individual player (810.9).
"""

from __future__ import annotations

import pytest

from stories import Story, card, damage, effect, gain, lose, pay, thg, two_player


def three_player():
    return Story(["ana", "bo", "cy"], variant="free-for-all")


def add_poison(player, amount):
    return {"do": "add_counters", "player": player, "kind": "poison", "amount": amount}


def end(eid):
    return {"do": "end", "id": eid}


def team_lives(st):
    return {t["id"]: t["life"] for t in st["teams"]}


# --- cant_gain_life -------------------------------------------------------------------------------


@pytest.mark.rule("119.7")
def test_119_7_cant_gain_life_reaches_you_by_default():
    s = two_player()
    s.do(effect("no-gain", "cant_gain_life", "ana"))
    st = s.do(gain("ana", 3))
    assert st.lives() == {"ana": 20, "bo": 20}
    st = s.do(gain("bo", 3))
    assert st.lives() == {"ana": 20, "bo": 23}
    st = s.do(end("no-gain"))
    st = s.do(gain("ana", 3))
    assert st.lives() == {"ana": 23, "bo": 23}


@pytest.mark.rule("119.7")
@pytest.mark.parametrize(
    ("affects", "blocked"),
    [
        ("you", {"ana"}),
        ("opponents", {"bo", "cy"}),
        ("players", {"ana", "bo", "cy"}),
        (["cy"], {"cy"}),
        (["ana", "bo"], {"ana", "bo"}),
    ],
)
def test_119_7_cant_gain_life_reaches_the_players_it_affects(affects, blocked):
    s = three_player()
    s.do(effect("no-gain", "cant_gain_life", "ana", affects=affects))
    for n, p in enumerate(("ana", "bo", "cy"), start=1):
        st = s.do(gain(p, n))
        assert st.life(p) == (20 if p in blocked else 20 + n)
    assert s.state()["refused"] == []


@pytest.mark.rule("119.7")
def test_119_7_leyline_of_punishment_stops_every_players_gain():
    s = two_player()
    s.do(card("leyline", "Leyline of Punishment", "ana"))
    st = s.do(gain("ana", 2))
    st = s.do(gain("bo", 2))
    assert st.lives() == {"ana": 20, "bo": 20}
    st = s.do(damage("bo", 2, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 20, "bo": 18}
    s.do(end("leyline"))
    st = s.do(gain("bo", 2))
    assert st.lives() == {"ana": 20, "bo": 20}


@pytest.mark.rule("119.7")
def test_119_7_erebos_stops_only_its_controllers_opponents():
    s = three_player()
    s.do(card("erebos", "Erebos, God of the Dead", "bo"))
    st = s.do(gain("ana", 5))
    st = s.do(gain("cy", 5))
    assert st.lives() == {"ana": 20, "bo": 20, "cy": 20}
    st = s.do(gain("bo", 5))
    assert st.lives() == {"ana": 20, "bo": 25, "cy": 20}


# --- cant_lose_life, life_total_cant_change -------------------------------------------------------


@pytest.mark.rule("119.8")
def test_119_8_cant_lose_life_for_opponents():
    s = three_player()
    s.do(effect("fog-of-life", "cant_lose_life", "ana", affects="opponents"))
    st = s.do(damage("bo", 5, source="ana-creature"))
    st = s.do(lose("cy", 5))
    assert st.lives() == {"ana": 20, "bo": 20, "cy": 20}
    st = s.do(damage("ana", 5, source="bo-creature"))
    assert st.lives() == {"ana": 15, "bo": 20, "cy": 20}
    st = s.do(pay("cy", 1))
    assert s.refused_last()["rule"] == "119.8"
    st = s.do(pay("ana", 1))
    assert s.refused_last() is None
    assert st.lives() == {"ana": 14, "bo": 20, "cy": 20}


@pytest.mark.rule("119.8")
def test_119_8_platinum_emperion_life_total_cant_change():
    s = two_player()
    s.do(card("emperion", "Platinum Emperion", "ana"))
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(gain("ana", 4))
    assert st.life("ana") == 20
    st = s.do(damage("ana", 4, source="bo-creature", combat=True))
    assert st.life("ana") == 20
    st = s.do(lose("ana", 4))
    assert st.life("ana") == 20
    st = s.do({"do": "set_life", "player": "ana", "to": 30})
    assert st.life("ana") == 20
    st = s.do({"do": "set_life", "player": "ana", "to": 1})
    assert st.life("ana") == 20
    st = s.do(damage("bo", 3, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 20, "bo": 17}
    assert st["triggered"] == {"pridemate-1": 0, "ana-loses": 0}
    assert st["refused"] == []
    st = s.do(pay("ana", 1))
    assert s.refused_last()["rule"] == "119.8"
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert s.refused_last()["rule"] == "119.8"
    assert st.lives() == {"ana": 20, "bo": 17}
    st = s.do(damage("ana", 3, source="bo-infector", infect=True))
    assert st.life("ana") == 20 and st.poison("ana") == 3


@pytest.mark.rule("810.9h")
def test_810_9h_platinum_emperion_keeps_the_whole_giant_teams_total_fixed():
    s = thg()
    s.do(card("emperion", "Platinum Emperion", "ana"))
    st = s.do(damage("bo", 7, source="cy-attackers", combat=True))
    st = s.do(gain("bo", 7))
    assert team_lives(st) == {"north": 30, "south": 30}
    st = s.do(pay("bo", 2))
    assert s.refused_last() is not None
    st = s.do(damage("cy", 7, source="bo-attackers", combat=True))
    assert team_lives(st) == {"north": 30, "south": 23}


# --- cant_lose_game, cant_win_game (Platinum Angel, Abyssal Persecutor) ---------------------------


@pytest.mark.rule("104.3")
def test_104_3_platinum_angel_keeps_its_controller_in_at_0_life_until_it_leaves():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do(damage("ana", 20, source="bo-attackers", combat=True))
    assert st.life("ana") == 0 and st.why("ana") == ("playing", None, None)
    st = s.do({"do": "lose", "player": "ana", "source": "bo-lose-effect"})
    assert s.refused_last() is None
    assert st.why("ana") == ("playing", None, None)
    st = s.do({"do": "win", "player": "bo", "source": "bo-alt-win"})
    assert st.statuses() == {"ana": "playing", "bo": "playing"} and st["over"] is False
    st = s.do(end("angel"))
    assert st.why("ana") == ("lost", "life", "704.5a")
    assert st.why("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3")
def test_104_3_platinum_angel_keeps_a_poisoned_player_in_until_it_leaves():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do(add_poison("ana", 12))
    assert st.poison("ana") == 12 and st.statuses()["ana"] == "playing"
    st = s.do(end("angel"))
    assert st.why("ana") == ("lost", "poison", "704.5c")


@pytest.mark.rule("704.5b")
def test_704_5b_an_empty_draw_under_platinum_angel_is_forgotten_once_checked():
    s = Story([{"id": "ana", "library": 0}, "bo"], variant="two-player")
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do({"do": "draw", "player": "ana", "count": 1})
    assert st.statuses() == {"ana": "playing", "bo": "playing"}
    st = s.do(end("angel"))
    assert st.statuses() == {"ana": "playing", "bo": "playing"}, (
        "704.5b: no draw from an empty library since state-based actions were last checked"
    )
    st = s.do({"do": "draw", "player": "ana", "count": 1})
    assert st.why("ana") == ("lost", "empty-library", "704.5b")


@pytest.mark.rule("104.3a")
def test_104_3a_conceding_cannot_be_stopped_by_platinum_angel():
    s = two_player()
    s.do(card("angel", "Platinum Angel", "ana"))
    st = s.do({"do": "concede", "player": "ana"})
    assert st.why("ana") == ("lost", "conceded", "104.3a")
    assert st.why("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.2b")
def test_104_2b_a_win_ends_the_game_for_opponents_who_cant_lose():
    s = two_player()
    s.do(effect("bo-cant-lose", "cant_lose_game", "bo"))
    st = s.do(damage("bo", 25, source="ana-fireball"))
    assert st.life("bo") == -5 and st["over"] is False
    st = s.do({"do": "win", "player": "ana", "source": "ana-alt-win"})
    assert st.why("ana") == ("won", "effect", "104.2b")
    assert st.player("bo")["status"] == "lost"
    assert st.player("bo")["reason"] == "opponent-won"
    assert st["over"] is True


@pytest.mark.rule("104.2")
def test_104_2_abyssal_persecutor_its_controller_cant_win_and_opponents_cant_lose():
    s = two_player()
    s.do(card("persecutor", "Abyssal Persecutor", "ana"))
    st = s.do(damage("bo", 23, source="ana-persecutor", combat=True))
    assert st.life("bo") == -3 and st.statuses() == {"ana": "playing", "bo": "playing"}
    st = s.do(add_poison("bo", 10))
    assert st.statuses()["bo"] == "playing"
    st = s.do({"do": "win", "player": "ana", "source": "ana-alt-win"})
    assert s.refused_last() is None
    assert st.statuses() == {"ana": "playing", "bo": "playing"} and st["over"] is False
    st = s.do(damage("ana", 5, source="bo-creature"))
    assert st.life("ana") == 15
    st = s.do(end("persecutor"))
    assert st.player("bo")["status"] == "lost"
    assert st.why("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.2a")
def test_104_2a_cant_win_never_stops_winning_as_the_last_player_standing():
    s = Story(["ana", "bo", "cy"], variant="free-for-all")
    s.do(card("persecutor", "Abyssal Persecutor", "ana"))
    st = s.do({"do": "concede", "player": "bo"})
    assert st.why("bo") == ("lost", "conceded", "104.3a") and st["over"] is False
    st = s.do({"do": "concede", "player": "cy"})
    assert st.why("ana") == ("won", "last-standing", "104.2a")
    assert st["over"] is True


# --- no_loss_for_life, infect_at_or_below_zero (Phyrexian Unlife) ---------------------------------


@pytest.mark.rule("704.5a")
def test_704_5a_no_loss_for_life_keeps_a_player_in_at_0_but_not_against_poison():
    s = two_player()
    s.do(effect("transcendence", "no_loss_for_life", "ana"))
    st = s.do(damage("ana", 22, source="bo-attackers", combat=True))
    assert st.life("ana") == -2 and st.statuses()["ana"] == "playing"
    st = s.do(add_poison("ana", 10))
    assert st.why("ana") == ("lost", "poison", "704.5c")


@pytest.mark.rule("702.90b")
def test_702_90b_phyrexian_unlife_damage_at_0_or_less_is_dealt_as_though_with_infect():
    s = two_player()
    s.do(card("unlife", "Phyrexian Unlife", "ana"))
    st = s.do(damage("ana", 18, source="bo-attackers", combat=True))
    assert st.life("ana") == 2 and st.poison("ana") == 0
    st = s.do(damage("ana", 5, source="bo-fireball"))
    assert st.life("ana") == -3 and st.poison("ana") == 0, "she had 2 life when it was dealt"
    assert st.statuses()["ana"] == "playing"
    st = s.do(damage("ana", 4, source="bo-attackers", combat=True))
    assert st.life("ana") == -3 and st.poison("ana") == 4
    st = s.do(lose("ana", 2, source="bo-drain"))
    assert st.life("ana") == -5 and st.poison("ana") == 4, "life loss is not damage"
    st = s.do(gain("ana", 8))
    assert st.life("ana") == 3
    st = s.do(damage("ana", 3, source="bo-shock"))
    assert st.life("ana") == 0 and st.poison("ana") == 4
    st = s.do(damage("ana", 6, source="bo-attackers", combat=True))
    assert st.life("ana") == 0 and st.poison("ana") == 10
    assert st.why("ana") == ("lost", "poison", "704.5c")


@pytest.mark.rule("810.8a")
def test_810_8a_phyrexian_unlife_in_two_headed_giant():
    s = thg()
    s.do(card("unlife", "Phyrexian Unlife", "ana"))
    st = s.do(damage("bo", 30, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 0 and st["over"] is False
    st = s.do(damage("ana", 3, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == 0 and st.poison("ana") == 3
    st = s.do(damage("bo", 3, source="cy-attackers", combat=True))
    assert team_lives(st)["north"] == -3 and st.poison("bo") == 3
    assert st["over"] is False


# --- cant_get_poison ------------------------------------------------------------------------------


@pytest.mark.rule("122.1f")
def test_122_1f_cant_get_poison_stops_infect_and_poison_counters_only():
    s = two_player()
    st = s.do(add_poison("ana", 3))
    assert st.poison("ana") == 3
    s.do(effect("no-poison", "cant_get_poison", "ana"))
    st = s.do(damage("ana", 4, source="bo-infector", infect=True))
    assert st.poison("ana") == 3 and st.life("ana") == 20
    st = s.do(add_poison("ana", 7))
    assert st.poison("ana") == 3 and st.statuses()["ana"] == "playing"
    st = s.do({"do": "add_counters", "player": "ana", "kind": "energy", "amount": 2})
    assert st.player("ana")["counters"] == {"energy": 2}
    st = s.do({"do": "remove_counters", "player": "ana", "kind": "poison", "amount": 1})
    assert st.poison("ana") == 2
    s.do(end("no-poison"))
    st = s.do(add_poison("ana", 8))
    assert st.why("ana") == ("lost", "poison", "704.5c")


# --- gain_life_times (Boon Reflection, Rhox Faithmender) ------------------------------------------


@pytest.mark.rule("119.10")
def test_119_10_gain_life_times_multiplies_each_gain_by_its_factor():
    s = two_player()
    s.do(effect("triple", "gain_life_times", "ana", factor=3))
    st = s.do(gain("ana", 2))
    assert st.life("ana") == 26
    st = s.do(gain("bo", 2))
    assert st.life("bo") == 22
    st = s.do(gain("ana", 0))
    assert st.life("ana") == 26


@pytest.mark.rule("119.10")
def test_119_10_boon_reflection_and_rhox_faithmender_together_quadruple():
    s = two_player()
    s.do(card("boon", "Boon Reflection", "ana"))
    st = s.do(gain("ana", 1))
    assert st.life("ana") == 22
    s.do(card("rhox", "Rhox Faithmender", "ana"))
    st = s.do(gain("ana", 1))
    assert st.life("ana") == 26
    st = s.do(damage("bo", 2, source="ana-lifelinker", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 34, "bo": 18}


@pytest.mark.rule("119.5")
def test_119_5_boon_reflection_doubles_the_gain_of_a_set_life_total():
    s = two_player()
    s.do(card("boon", "Boon Reflection", "ana"))
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do({"do": "set_life", "player": "ana", "to": 25})
    assert st.life("ana") == 30
    assert st["triggered"] == {"pridemate-1": 1}
    st = s.do({"do": "set_life", "player": "ana", "to": 10})
    assert st.life("ana") == 10, "a loss is not doubled"


@pytest.mark.rule("119.5")
def test_119_5_rhox_faithmender_doubles_the_gain_of_a_set_life_total():
    s = two_player()
    s.do(card("rhox", "Rhox Faithmender", "bo"))
    st = s.do(damage("bo", 10, source="ana-creature"))
    assert st.life("bo") == 10
    st = s.do({"do": "set_life", "player": "bo", "to": 20, "source": "bo-reset"})
    assert st.life("bo") == 30


@pytest.mark.rule("701.12c")
def test_701_12c_exchanged_life_is_a_gain_that_boon_reflection_doubles():
    s = two_player()
    s.do(card("boon", "Boon Reflection", "ana"))
    s.do(damage("ana", 15, source="bo-attackers", combat=True))
    st = s.do(damage("bo", 5, source="ana-attackers", combat=True))
    assert st.lives() == {"ana": 5, "bo": 15}
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert st.lives() == {"ana": 25, "bo": 5}


@pytest.mark.rule("810.9")
def test_810_9_rhox_faithmender_doubles_only_its_controllers_gains_in_two_headed_giant():
    s = thg()
    s.do(card("rhox", "Rhox Faithmender", "ana"))
    st = s.do(gain("bo", 5))
    assert team_lives(st)["north"] == 35
    st = s.do(gain("ana", 5))
    assert team_lives(st)["north"] == 45


# --- gain_becomes_loss (Tainted Remedy) -----------------------------------------------------------


@pytest.mark.rule("119.10")
def test_119_10_tainted_remedy_turns_opponents_gains_into_losses():
    s = two_player()
    s.do(card("remedy", "Tainted Remedy", "ana"))
    s.do(card("bo-pridemate", "Ajani's Pridemate", "bo"))
    s.do(effect("bo-loses", "on_lose_life", "bo"))
    st = s.do(gain("bo", 4))
    assert st.lives() == {"ana": 20, "bo": 16}
    assert st["triggered"] == {"bo-pridemate": 0, "bo-loses": 1}
    st = s.do(gain("ana", 4))
    assert st.lives() == {"ana": 24, "bo": 16}
    st = s.do(damage("ana", 3, source="bo-lifelinker", lifelink=True, controller="bo"))
    assert st.lives() == {"ana": 21, "bo": 13}
    assert st["triggered"] == {"bo-pridemate": 0, "bo-loses": 2}
    st = s.do({"do": "set_life", "player": "bo", "to": 20, "source": "bo-reset"})
    assert st.lives() == {"ana": 21, "bo": 6}
    st = s.do(gain("bo", 6))
    assert st.why("bo") == ("lost", "life", "704.5a")
    assert st.why("ana") == ("won", "last-standing", "104.2a")


# --- on_gain_life, on_lose_life (Ajani's Pridemate) -----------------------------------------------


@pytest.mark.rule("119.9")
def test_119_9_triggers_are_counted_from_0_per_event_and_per_affected_player():
    s = three_player()
    st = s.do(effect("opp-loses", "on_lose_life", "ana", affects="opponents"))
    assert st["triggered"] == {"opp-loses": 0}
    s.do(effect("all-gain", "on_gain_life", "ana", affects="players"))
    st = s.do(
        {
            "do": "together",
            "note": "2 damage to each player",
            "actions": [damage(p, 2, source="pestilence") for p in ("ana", "bo", "cy")],
        }
    )
    assert st.lives() == {"ana": 18, "bo": 18, "cy": 18}
    assert st["triggered"] == {"opp-loses": 2, "all-gain": 0}
    st = s.do(pay("bo", 3))
    assert st["triggered"] == {"opp-loses": 3, "all-gain": 0}
    st = s.do({"do": "together", "actions": [gain(p, 1) for p in ("ana", "bo", "cy")]})
    assert st["triggered"] == {"opp-loses": 3, "all-gain": 3}
    s.do(end("opp-loses"))
    st = s.do(lose("cy", 1))
    assert st["triggered"] == {"opp-loses": 3, "all-gain": 3}


@pytest.mark.rule("119.9")
def test_119_9_ajanis_pridemate_counts_its_controllers_gains():
    s = two_player()
    st = s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    assert st["triggered"] == {"pridemate-1": 0}
    s.do(gain("ana", 2))
    s.do(gain("bo", 2))
    st = s.do(gain("ana", 3))
    assert st["triggered"] == {"pridemate-1": 2}
    st = s.do(end("pridemate-1"))
    st = s.do(gain("ana", 3))
    assert st["triggered"] == {"pridemate-1": 2}


# --- win_at_upkeep (Test of Endurance, Felidar Sovereign) -----------------------------------------


@pytest.mark.rule("104.2b")
def test_104_2b_felidar_sovereign_wins_at_its_controllers_upkeep_with_40_life():
    s = two_player()
    s.do(card("felidar", "Felidar Sovereign", "ana"))
    st = s.do(gain("ana", 19))
    st = s.do({"do": "upkeep", "player": "ana"})
    assert st.life("ana") == 39 and st["over"] is False
    st = s.do(gain("ana", 1))
    st = s.do({"do": "upkeep", "player": "bo"})
    assert st["over"] is False
    st = s.do({"do": "upkeep", "player": "ana"})
    assert st.why("ana") == ("won", "effect", "104.2b")
    assert st.player("bo")["reason"] == "opponent-won"
    assert st["over"] is True


@pytest.mark.rule("104.2b")
def test_104_2b_test_of_endurance_needs_50_and_a_win_at_upkeep_kind_its_own_number():
    s = two_player()
    s.do(card("toe", "Test of Endurance", "ana"))
    s.do(effect("bo-wins-at-15", "win_at_upkeep", "bo", life_at_least=15))
    st = s.do(gain("ana", 29))
    st = s.do({"do": "upkeep", "player": "ana"})
    assert st.life("ana") == 49 and st["over"] is False
    st = s.do(damage("bo", 6, source="ana-creature"))
    st = s.do({"do": "upkeep", "player": "bo"})
    assert st.life("bo") == 14 and st["over"] is False
    st = s.do(gain("bo", 1))
    st = s.do({"do": "upkeep", "player": "bo"})
    assert st.why("bo") == ("won", "effect", "104.2b")
    assert st.player("ana")["status"] == "lost"


@pytest.mark.rule("104.2b")
def test_104_2b_an_upkeep_win_does_nothing_while_the_opponent_has_platinum_angel():
    s = two_player()
    s.do(card("felidar", "Felidar Sovereign", "ana"))
    s.do(card("angel", "Platinum Angel", "bo"))
    s.do(gain("ana", 25))
    st = s.do({"do": "upkeep", "player": "ana"})
    assert st["over"] is False and st["refused"] == []
    s.do(end("angel"))
    st = s.do({"do": "upkeep", "player": "ana"})
    assert st.why("ana") == ("won", "effect", "104.2b")


# --- win_on_empty_draw (Laboratory Maniac) --------------------------------------------------------


@pytest.mark.rule("104.2b")
def test_104_2b_laboratory_maniac_wins_instead_of_drawing_from_an_empty_library():
    s = Story([{"id": "ana", "library": 2}, {"id": "bo", "library": 0}], variant="two-player")
    s.do(card("maniac", "Laboratory Maniac", "ana"))
    st = s.do({"do": "draw", "player": "ana", "count": 1})
    assert st.player("ana")["library"] == 1 and st["over"] is False
    st = s.do({"do": "draw", "player": "ana", "count": 0})
    assert st.player("ana")["library"] == 1 and st["over"] is False
    st = s.do({"do": "draw", "player": "ana", "count": 2})
    assert st.player("ana")["library"] == 0
    assert st.why("ana") == ("won", "effect", "104.2b")
    assert st.player("bo")["reason"] == "opponent-won"


@pytest.mark.rule("704.5b")
def test_704_5b_laboratory_maniac_does_not_help_its_controllers_opponent():
    s = Story([{"id": "ana", "library": 5}, {"id": "bo", "library": 0}], variant="two-player")
    s.do(card("maniac", "Laboratory Maniac", "ana"))
    st = s.do({"do": "draw", "player": "bo", "count": 1})
    assert st.why("bo") == ("lost", "empty-library", "704.5b")
    assert st.why("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("119.10")
def test_119_10_boon_reflection_doubles_a_heads_set_life_gain_in_two_headed_giant():
    s = thg()
    s.do(card("boon", "Boon Reflection", "di"))
    st = s.do(damage("cy", 10, source="ana-attackers", combat=True))
    assert team_lives(st)["south"] == 20
    st = s.do({"do": "set_life", "player": "di", "to": 30})
    assert team_lives(st)["south"] == 40
    st = s.do({"do": "set_life", "player": "cy", "to": 45})
    assert team_lives(st)["south"] == 45


@pytest.mark.rule("810.9g")
def test_810_9g_leyline_of_punishment_stops_both_teams_gains():
    s = thg()
    s.do(card("leyline", "Leyline of Punishment", "ana"))
    st = s.do({"do": "together", "actions": [gain(p, 3) for p in ("ana", "bo", "cy", "di")]})
    assert team_lives(st) == {"north": 30, "south": 30}


@pytest.mark.rule("810.8a")
def test_810_8a_laboratory_maniac_wins_for_the_whole_team():
    s = Story(
        ["ana/north", {"id": "bo", "team": "north", "library": 0}, "cy/south", "di/south"],
        variant="two-headed-giant",
    )
    s.do(card("maniac", "Laboratory Maniac", "bo"))
    st = s.do({"do": "draw", "player": "bo", "count": 1})
    assert st.why("bo") == ("won", "effect", "104.2b")
    assert st.player("ana")["status"] == "won"
    assert st.player("cy")["status"] == "lost" and st.player("di")["status"] == "lost"


@pytest.mark.rule("701.12c")
def test_701_12c_an_exchange_gain_that_tainted_remedy_turns_into_a_loss():
    s = two_player()
    s.do(card("remedy", "Tainted Remedy", "bo"))
    s.do(damage("ana", 15, source="bo-attackers", combat=True))
    st = s.do(damage("bo", 5, source="ana-attackers", combat=True))
    assert st.lives() == {"ana": 5, "bo": 15}
    st = s.do({"do": "exchange_life", "players": ["ana", "bo"]})
    assert s.refused_last() is None
    assert st.lives() == {"ana": -5, "bo": 5}
    assert st.why("ana") == ("lost", "life", "704.5a")


@pytest.mark.rule("119.10")
def test_119_10_two_tainted_remedies_turn_a_gain_into_one_loss_not_two():
    s = two_player()
    s.do(card("remedy-1", "Tainted Remedy", "ana"))
    s.do(card("remedy-2", "Tainted Remedy", "ana"))
    st = s.do(gain("bo", 3))
    assert st.life("bo") == 17


@pytest.mark.rule("119.10")
def test_119_10_gain_multipliers_multiply_together():
    s = two_player()
    s.do(effect("double", "gain_life_times", "ana", factor=2))
    s.do(effect("triple", "gain_life_times", "ana", factor=3))
    st = s.do(gain("ana", 1))
    assert st.life("ana") == 26
    s.do(card("boon-1", "Boon Reflection", "ana"))
    s.do(card("boon-2", "Boon Reflection", "ana"))
    st = s.do(gain("ana", 1))
    assert st.life("ana") == 50


@pytest.mark.rule("702.90b")
def test_702_90b_damage_dealt_as_though_with_infect_is_no_life_loss_so_no_loss_trigger():
    s = two_player()
    s.do(card("unlife", "Phyrexian Unlife", "ana"))
    s.do(effect("ana-loses", "on_lose_life", "ana"))
    st = s.do(damage("ana", 20, source="bo-attackers", combat=True))
    assert st.life("ana") == 0 and st["triggered"] == {"ana-loses": 1}
    st = s.do(damage("ana", 2, source="bo-attackers", combat=True))
    assert st.poison("ana") == 2 and st["triggered"] == {"ana-loses": 1}


@pytest.mark.rule("104.2b")
def test_104_2b_laboratory_maniac_under_an_opposing_platinum_angel_neither_wins_nor_loses():
    s = Story([{"id": "ana", "library": 0}, "bo"], variant="two-player")
    s.do(card("maniac", "Laboratory Maniac", "ana"))
    s.do(card("angel", "Platinum Angel", "bo"))
    st = s.do({"do": "draw", "player": "ana", "count": 1})
    assert st.statuses() == {"ana": "playing", "bo": "playing"}
    st = s.do(end("angel"))
    assert st.statuses() == {"ana": "playing", "bo": "playing"}


@pytest.mark.rule("810.8a")
def test_810_8a_test_of_endurance_does_nothing_while_an_opponent_has_platinum_angel():
    s = thg()
    s.do(card("toe", "Test of Endurance", "ana"))
    s.do(card("angel", "Platinum Angel", "di"))
    st = s.do(gain("bo", 25))
    st = s.do({"do": "upkeep", "player": "ana"})
    assert team_lives(st)["north"] == 55 and st["over"] is False
    s.do(end("angel"))
    st = s.do({"do": "upkeep", "player": "bo"})
    assert st.why("ana") == ("won", "effect", "104.2b")

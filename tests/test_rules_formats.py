"""Rule stories for the formats and casual variants: Vanguard (902), Commander and Brawl (903),
Archenemy, Supervillain Rumble and Archenemy Commander (904), and the starting life of each
variant and format (103.4, 119.1).

Each test is a short game, told through the game record (../shared/spec/game-record.md), that
checks the state after every step.
"""

from __future__ import annotations

import pytest

from lifeledger.errors import MalformedError
from stories import Story, card, damage, effect, gain, pay

CMDR = "commander"


def commander_players(*ids, partners=()):
    seats = [{"id": p, "commanders": [f"{p}-cmdr"]} for p in ids]
    for seat in seats:
        if seat["id"] in partners:
            seat["commanders"] = [f"{seat['id']}-partner-a", f"{seat['id']}-partner-b"]
    return seats


def cmdr_hit(to, amount, commander, **kw):
    return damage(to, amount, source=commander, combat=True, **kw)


# --- Starting life of each variant ----------------------------------------------------------------


@pytest.mark.rule("103.4")
@pytest.mark.parametrize(
    ("variant", "players"),
    [
        ("two-player", ["ana", "bo"]),
        ("free-for-all", ["ana", "bo", "cy"]),
        ("grand-melee", ["ana", "bo", "cy", "di", "ed", "fi"]),
        ("team-vs-team", ["ana/north", "bo/north", "cy/south", "di/south"]),
        ("alternating-teams", ["ana/north", "cy/south", "bo/north", "di/south"]),
    ],
)
def test_103_4_every_player_starts_at_20_outside_the_special_variants(variant, players):
    s = Story(players, variant=variant)
    st = s.state()
    assert set(st.lives().values()) == {20}
    assert {p["status"] for p in st["players"]} == {"playing"}
    assert all(t["life"] is None for t in st["teams"])
    first = st["players"][0]["id"]
    st = s.do(damage(first, 5, source="a-creature"))
    assert st.life(first) == 15
    assert sorted(st.lives().values()) == [15] + [20] * (len(players) - 1)


@pytest.mark.rule("103.4")
def test_103_4_emperor_players_start_at_20_each():
    s = Story(
        [
            "a1/north",
            {"id": "a2", "team": "north", "emperor": True},
            "a3/north",
            "b1/south",
            {"id": "b2", "team": "south", "emperor": True},
            "b3/south",
        ],
        variant="emperor",
    )
    assert set(s.state().lives().values()) == {20}


@pytest.mark.rule("103.4")
def test_103_4_planechase_players_start_at_20():
    s = Story(["ana", "bo", "cy"], variant="free-for-all", format="planechase")
    assert s.state().lives() == {"ana": 20, "bo": 20, "cy": 20}


@pytest.mark.rule("119.1")
def test_119_1_the_starting_life_option_gives_a_shared_total_to_each_giant_team():
    s = Story(
        ["ana/north", "bo/north", "cy/south", "di/south"],
        variant="two-headed-giant",
        options={"starting_life": 40},
    )
    st = s.state()
    assert {t["id"]: t["life"] for t in st["teams"]} == {"north": 40, "south": 40}
    st = s.do(damage("ana", 5, source="cy-creature"))
    assert st.lives() == {"ana": 35, "bo": 35, "cy": 40, "di": 40}


@pytest.mark.rule("119.1")
def test_119_1_a_combination_the_rules_do_not_define_needs_a_starting_life():
    players = [
        {"id": "ana", "team": "north", "commanders": ["ana-cmdr"]},
        {"id": "bo", "team": "north", "commanders": ["bo-cmdr"]},
        {"id": "cy", "team": "south", "commanders": ["cy-cmdr"]},
        {"id": "di", "team": "south", "commanders": ["di-cmdr"]},
    ]
    with pytest.raises(MalformedError):
        Story(players, variant="two-headed-giant", format="commander").state()
    s = Story(
        players, variant="two-headed-giant", format="commander", options={"starting_life": 60}
    )
    assert set(s.state().lives().values()) == {60}


# --- 902 Vanguard ---------------------------------------------------------------------------------


@pytest.mark.rule("902.4")
def test_902_4_example_life_modifier_minus_3_starts_at_17():
    s = Story(
        [{"id": "ana", "life_modifier": -3}, {"id": "bo", "life_modifier": 0}],
        variant="two-player",
        format="vanguard",
    )
    st = s.state()
    assert st.lives() == {"ana": 17, "bo": 20}
    st = s.do(damage("ana", 16, source="bo-creature"))
    assert st.lives() == {"ana": 1, "bo": 20} and st["over"] is False
    st = s.do(damage("ana", 1, source="bo-creature"))
    assert st.why("ana") == ("lost", "life", "704.5a")
    assert st.why("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("902.4")
def test_902_4_modifiers_up_and_down_and_by_default_0_in_a_multiplayer_vanguard_game():
    s = Story(
        [{"id": "ana", "life_modifier": 6}, {"id": "bo", "life_modifier": -8}, {"id": "cy"}],
        variant="free-for-all",
        format="vanguard",
    )
    st = s.state()
    assert st.lives() == {"ana": 26, "bo": 12, "cy": 20}
    st = s.do(damage("bo", 12, source="ana-creature"))
    assert st.why("bo") == ("lost", "life", "704.5a")
    assert st["over"] is False


# --- 903 Commander --------------------------------------------------------------------------------


@pytest.mark.rule("903.7")
def test_903_7_each_commander_player_sets_their_life_to_40():
    s = Story(
        commander_players("ana", "bo", "cy", "di"), variant="free-for-all", format="commander"
    )
    st = s.state()
    assert st.lives() == {"ana": 40, "bo": 40, "cy": 40, "di": 40}
    assert all(p["commander_damage"] == {} for p in st["players"])
    st = s.do(damage("bo", 20, source="ana-fireball"))
    assert st.lives() == {"ana": 40, "bo": 20, "cy": 40, "di": 40}


@pytest.mark.rule("903.7")
def test_903_7_two_player_commander_is_also_40():
    s = Story(commander_players("ana", "bo"), variant="two-player", format="commander")
    assert s.state().lives() == {"ana": 40, "bo": 40}


@pytest.mark.rule("903.10a")
def test_903_10a_example_19_twenty_one_combat_damage_from_one_commander_loses():
    s = Story(
        commander_players("ana", "bo", "cy", "di"), variant="free-for-all", format="commander"
    )
    st = s.do(cmdr_hit("bo", 10, "ana-cmdr"))
    assert st.life("bo") == 30
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 10}
    assert st.statuses()["bo"] == "playing"
    st = s.do(cmdr_hit("bo", 11, "ana-cmdr"))
    assert st.life("bo") == 19
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 21}
    assert st.why("bo") == ("lost", "commander-damage", "704.6c")
    assert st["over"] is False
    assert st.statuses() == {"ana": "playing", "bo": "lost", "cy": "playing", "di": "playing"}
    assert st["refused"] == []


@pytest.mark.rule("903.10a")
def test_903_10a_only_combat_damage_from_the_same_commander_counts():
    s = Story(commander_players("ana", "bo", "cy"), variant="free-for-all", format="commander")
    st = s.do(cmdr_hit("bo", 20, "ana-cmdr"))
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 20}
    st = s.do(damage("bo", 5, source="ana-cmdr", note="the commander's non-combat ability"))
    assert st.life("bo") == 15
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 20}
    assert st.statuses()["bo"] == "playing"
    st = s.do(cmdr_hit("bo", 10, "cy-cmdr"))
    assert st.life("bo") == 5
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 20, "cy-cmdr": 10}
    assert st.statuses()["bo"] == "playing"
    st = s.do(cmdr_hit("cy", 20, "ana-cmdr"))
    assert st.player("cy")["commander_damage"] == {"ana-cmdr": 20}
    assert st.statuses() == {"ana": "playing", "bo": "playing", "cy": "playing"}
    st = s.do(cmdr_hit("bo", 1, "ana-cmdr"))
    assert st.why("bo") == ("lost", "commander-damage", "704.6c")
    assert st.life("bo") == 4
    assert st.statuses()["cy"] == "playing"


@pytest.mark.rule("903.10a")
def test_903_10a_each_partner_commander_counts_on_its_own():
    s = Story(
        commander_players("ana", "bo", partners=("ana",)),
        variant="two-player",
        format="commander",
    )
    s.do(cmdr_hit("bo", 12, "ana-partner-a"))
    st = s.do(cmdr_hit("bo", 12, "ana-partner-b"))
    assert st.life("bo") == 16
    assert st.player("bo")["commander_damage"] == {"ana-partner-a": 12, "ana-partner-b": 12}
    assert st.statuses()["bo"] == "playing"
    st = s.do(cmdr_hit("bo", 9, "ana-partner-a"))
    assert st.why("bo") == ("lost", "commander-damage", "704.6c")
    assert st.life("bo") == 7


@pytest.mark.rule("903.10a")
def test_903_10a_commander_damage_counts_though_no_life_is_lost():
    s = Story(commander_players("ana", "bo"), variant="two-player", format="commander")
    s.do(card("emperion", "Platinum Emperion", "bo"))
    st = s.do(cmdr_hit("bo", 15, "ana-cmdr"))
    assert st.life("bo") == 40
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 15}
    st = s.do(cmdr_hit("bo", 6, "ana-cmdr", infect=True))
    assert st.life("bo") == 40 and st.poison("bo") == 6
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 21}
    assert st.why("bo") == ("lost", "commander-damage", "704.6c")
    assert st.why("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("903.10a")
def test_903_10a_platinum_angel_stops_the_commander_damage_loss():
    s = Story(commander_players("ana", "bo"), variant="two-player", format="commander")
    s.do(card("angel", "Platinum Angel", "bo"))
    st = s.do(cmdr_hit("bo", 25, "ana-cmdr"))
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 25}
    assert st.statuses() == {"ana": "playing", "bo": "playing"}
    st = s.do({"do": "end", "id": "angel"})
    assert st.why("bo") == ("lost", "commander-damage", "704.6c")


@pytest.mark.rule("903.12f")
def test_903_12f_brawl_starts_at_25_with_two_players():
    s = Story(commander_players("ana", "bo"), variant="two-player", format="brawl")
    st = s.state()
    assert st.lives() == {"ana": 25, "bo": 25}
    st = s.do(damage("bo", 25, source="ana-fireball"))
    assert st.why("bo") == ("lost", "life", "704.5a")


@pytest.mark.rule("903.12f")
def test_903_12f_brawl_starts_at_30_with_more_than_two_players():
    s = Story(commander_players("ana", "bo", "cy"), variant="free-for-all", format="brawl")
    st = s.state()
    assert st.lives() == {"ana": 30, "bo": 30, "cy": 30}
    st = s.do(damage("cy", 25, source="ana-fireball"))
    assert st.lives() == {"ana": 30, "bo": 30, "cy": 5}


@pytest.mark.rule("903.12h")
def test_903_12h_brawl_records_commander_damage_but_never_loses_to_it():
    s = Story(commander_players("ana", "bo", "cy"), variant="free-for-all", format="brawl")
    st = s.do(cmdr_hit("bo", 11, "ana-cmdr"))
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 11}
    st = s.do(cmdr_hit("bo", 10, "ana-cmdr"))
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 21}
    assert st.life("bo") == 9
    assert st.why("bo") == ("playing", None, None)
    st = s.do(cmdr_hit("bo", 8, "ana-cmdr"))
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 29}
    assert st.life("bo") == 1 and st.statuses()["bo"] == "playing"
    st = s.do(cmdr_hit("bo", 1, "ana-cmdr"))
    assert st.why("bo") == ("lost", "life", "704.5a")


# --- 904 Archenemy --------------------------------------------------------------------------------


def archenemy_story(fmt=None, team=None):
    heroes = [{"id": p, "team": team} if team else {"id": p} for p in ("ana", "bo", "cy")]
    return Story([{"id": "villain", "archenemy": True}, *heroes], variant="archenemy", format=fmt)


@pytest.mark.rule("904.5")
def test_904_5_archenemy_starts_at_40_and_each_other_player_at_20():
    s = archenemy_story()
    st = s.state()
    assert st.lives() == {"villain": 40, "ana": 20, "bo": 20, "cy": 20}
    assert st.player("villain")["team"] is None
    heroes = st.team("heroes")
    assert heroes["players"] == ["ana", "bo", "cy"]
    assert heroes["life"] is None and heroes["poison"] is None
    st = s.do(damage("villain", 20, source="ana-attackers", combat=True))
    assert st.lives() == {"villain": 20, "ana": 20, "bo": 20, "cy": 20}


@pytest.mark.rule("904.5")
def test_904_5_heroes_lose_one_by_one_and_the_archenemy_wins_when_all_are_gone():
    s = archenemy_story(team="avengers")
    st = s.do(damage("ana", 20, source="villain-attackers", combat=True))
    assert st.why("ana") == ("lost", "life", "704.5a")
    assert st["over"] is False
    assert st.team("avengers")["status"] == "playing"
    st = s.do(
        {
            "do": "together",
            "actions": [damage(p, 20, source="villain-scheme") for p in ("bo", "cy")],
        }
    )
    assert st.player("bo")["status"] == "lost" and st.player("cy")["status"] == "lost"
    assert st.player("villain")["status"] == "won"
    assert st.player("villain")["reason"] == "last-standing"
    assert st["over"] is True


@pytest.mark.rule("904.5")
def test_904_5_the_archenemy_at_0_life_loses_and_the_team_wins():
    s = archenemy_story()
    st = s.do(damage("villain", 39, source="heroes-attackers", combat=True))
    assert st.life("villain") == 1 and st["over"] is False
    st = s.do(damage("villain", 1, source="ana-shock"))
    assert st.why("villain") == ("lost", "life", "704.5a")
    assert {st.player(p)["status"] for p in ("ana", "bo", "cy")} == {"won"}
    assert st["over"] is True


@pytest.mark.rule("904.12c")
def test_904_12c_supervillain_rumble_every_archenemy_starts_at_40():
    s = Story(
        [{"id": p, "archenemy": True} for p in ("ana", "bo", "cy")],
        variant="supervillain-rumble",
    )
    st = s.state()
    assert st.lives() == {"ana": 40, "bo": 40, "cy": 40}
    st = s.do(damage("bo", 40, source="ana-scheme"))
    assert st.why("bo") == ("lost", "life", "704.5a")
    assert st["over"] is False
    st = s.do(damage("cy", 40, source="ana-scheme"))
    assert st.why("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("904.13b")
def test_904_13b_archenemy_commander_archenemy_at_60_and_a_shared_60_for_the_team():
    s = Story(
        [
            {"id": "villain", "archenemy": True, "commanders": ["villain-cmdr"]},
            {"id": "ana", "team": "heroes", "commanders": ["ana-cmdr"]},
            {"id": "bo", "team": "heroes", "commanders": ["bo-cmdr"]},
        ],
        variant="archenemy",
        format="commander",
    )
    st = s.state()
    assert st.lives() == {"villain": 60, "ana": 60, "bo": 60}
    assert st.team("heroes")["life"] == 60
    st = s.do(damage("ana", 10, source="villain-fireball"))
    assert st.lives() == {"villain": 60, "ana": 50, "bo": 50}
    assert st.team("heroes")["life"] == 50
    st = s.do(gain("bo", 4))
    assert st.team("heroes")["life"] == 54
    st = s.do(pay("ana", 55))
    assert s.refused_last() is not None
    assert st.team("heroes")["life"] == 54
    st = s.do({"do": "pay_life", "payments": {"ana": 30, "bo": 30}})
    assert s.refused_last() is not None
    assert st.team("heroes")["life"] == 54
    st = s.do(damage("bo", 54, source="villain-cmdr", combat=True))
    assert st.lives() == {"villain": 60, "ana": 0, "bo": 0}
    assert st.player("ana")["status"] == "lost" and st.player("bo")["status"] == "lost"
    assert st.player("ana")["reason"] == "team-life"
    assert st.player("villain")["status"] == "won"


@pytest.mark.rule("904.13b")
def test_904_13b_the_shared_team_total_is_each_heros_life_for_effects():
    s = Story(
        [
            {"id": "villain", "archenemy": True, "commanders": ["villain-cmdr"]},
            {"id": "ana", "team": "heroes", "commanders": ["ana-cmdr"]},
            {"id": "bo", "team": "heroes", "commanders": ["bo-cmdr"]},
        ],
        variant="archenemy",
        format="commander",
    )
    s.do(card("pridemate-1", "Ajani's Pridemate", "ana"))
    st = s.do(damage("bo", 40, source="villain-scheme"))
    assert st.team("heroes")["life"] == 20
    st = s.do(gain("bo", {"life_of": "ana"}, source="beacon-on-bo"))
    assert st.team("heroes")["life"] == 40
    assert st["triggered"] == {"pridemate-1": 0}


@pytest.mark.rule("904.13c")
def test_904_13c_poison_counters_are_not_shared_in_archenemy_commander():
    s = Story(
        [
            {"id": "villain", "archenemy": True, "commanders": ["villain-cmdr"]},
            {"id": "ana", "team": "heroes", "commanders": ["ana-cmdr"]},
            {"id": "bo", "team": "heroes", "commanders": ["bo-cmdr"]},
        ],
        variant="archenemy",
        format="commander",
    )
    st = s.do(damage("ana", 6, source="villain-infector", infect=True))
    assert st.poison("ana") == 6 and st.poison("bo") == 0
    assert st.team("heroes")["poison"] is None
    st = s.do(damage("bo", 9, source="villain-infector", infect=True))
    assert st.poison("ana") == 6 and st.poison("bo") == 9
    assert st["over"] is False, "15 between them is no loss: nothing is shared"
    st = s.do(damage("villain", 9, source="bo-infector", infect=True))
    assert [st.poison(p) for p in ("villain", "ana", "bo")] == [9, 6, 9]
    assert st["over"] is False
    st = s.do(damage("ana", 4, source="villain-infector", infect=True))
    assert [st.poison(p) for p in ("villain", "ana", "bo")] == [9, 10, 9]
    assert st.why("ana") == ("lost", "poison", "704.5c")
    # Whether bo goes down with ana (810.8a, which 904.13b may or may not bring in) is left open.


@pytest.mark.rule("904.13c")
def test_904_13c_an_archenemy_with_ten_poison_counters_loses():
    s = Story(
        [
            {"id": "villain", "archenemy": True, "commanders": ["villain-cmdr"]},
            {"id": "ana", "team": "heroes", "commanders": ["ana-cmdr"]},
            {"id": "bo", "team": "heroes", "commanders": ["bo-cmdr"]},
        ],
        variant="archenemy",
        format="commander",
    )
    st = s.do(damage("villain", 5, source="ana-infector", infect=True))
    st = s.do(damage("villain", 4, source="bo-infector", infect=True))
    assert st.poison("villain") == 9 and st["over"] is False
    st = s.do(damage("villain", 1, source="bo-infector", infect=True))
    assert st.why("villain") == ("lost", "poison", "704.5c")
    assert st.player("ana")["status"] == "won" and st.player("bo")["status"] == "won"
    assert st.life("villain") == 60


@pytest.mark.rule("903.10a")
def test_903_10a_commander_damage_to_archenemy_commander_heroes_counts_per_hero():
    s = Story(
        [
            {"id": "villain", "archenemy": True, "commanders": ["villain-cmdr"]},
            {"id": "ana", "team": "heroes", "commanders": ["ana-cmdr"]},
            {"id": "bo", "team": "heroes", "commanders": ["bo-cmdr"]},
        ],
        variant="archenemy",
        format="commander",
    )
    s.do(cmdr_hit("ana", 11, "villain-cmdr"))
    st = s.do(cmdr_hit("bo", 11, "villain-cmdr"))
    assert st.team("heroes")["life"] == 38
    assert st.player("ana")["commander_damage"] == {"villain-cmdr": 11}
    assert st.player("bo")["commander_damage"] == {"villain-cmdr": 11}
    assert st["over"] is False


@pytest.mark.rule("904.2a")
def test_904_2a_an_archenemy_game_without_an_archenemy_is_malformed():
    with pytest.raises(MalformedError):
        Story(["ana", "bo", "cy"], variant="archenemy").state()


@pytest.mark.rule("903.10a")
def test_903_10a_commander_damage_lifelink_and_effects_together():
    s = Story(commander_players("ana", "bo"), variant="two-player", format="commander")
    s.do(effect("ana-gains", "on_gain_life", "ana"))
    st = s.do(cmdr_hit("bo", 7, "ana-cmdr", lifelink=True, controller="ana"))
    assert st.lives() == {"ana": 47, "bo": 33}
    assert st.player("bo")["commander_damage"] == {"ana-cmdr": 7}
    assert st["triggered"] == {"ana-gains": 1}


@pytest.mark.rule("904.2")
def test_904_2_a_hero_who_lost_earlier_still_wins_with_the_team():
    s = archenemy_story()
    st = s.do(damage("ana", 20, source="villain-attackers", combat=True))
    assert st.why("ana") == ("lost", "life", "704.5a")
    assert st.team("heroes")["status"] == "playing"
    st = s.do(damage("villain", 40, source="bo-attackers", combat=True))
    assert st.why("villain") == ("lost", "life", "704.5a")
    assert st.why("ana") == ("won", "last-standing", "104.2c")
    assert st.why("bo") == ("won", "last-standing", "104.2c")
    assert st.team("heroes")["status"] == "won"

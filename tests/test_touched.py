"""``Game.touched``: what each action may have changed, so that an app computes a change's delta
from it instead of diffing the whole state; and ``state.player_state`` / ``team_state``, the
entries of one player and one team exactly as ``state_dict`` gives them.

The guarantee, property-tested over random games: every player and team whose entry in the
state differs after an action is named in ``touched`` (or ``touched.everything`` is set), the
continuous effects are unchanged unless ``touched.effects`` is set, and a refused or malformed
action touches nothing.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lifeledger import Game, MalformedError, RefusedError, Seat, Touched, record
from lifeledger import state as ll_state
from lifeledger.actions import Damage, GainLife, Together
from test_properties import SETTINGS, Table, an_action, headers, life_action


def by_id(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {entry["id"]: entry for entry in entries}


def check_touched(game: Game, before: dict[str, Any], effects: tuple[Any, ...]) -> None:
    """Whatever differs between ``before`` and the game's state now is in ``game.touched``."""
    touched = game.touched
    after = ll_state.state_dict(game)
    if touched.everything:
        return
    old_players, old_teams = by_id(before["players"]), by_id(before["teams"])
    for pid, entry in by_id(after["players"]).items():
        if entry != old_players[pid]:
            assert pid in touched.players, (pid, old_players[pid], entry, touched)
    for tid, entry in by_id(after["teams"]).items():
        if entry != old_teams[tid]:
            assert tid in touched.teams, (tid, old_teams[tid], entry, touched)
    if not touched.effects:
        assert game.effects() == effects, touched
    # Only ids of the game: an app looks each of them up.
    assert touched.players <= set(old_players)
    assert touched.teams <= set(old_teams)


def play_checking(data: st.DataObject, head: dict[str, Any], chooser: Any, length: int) -> int:
    """Play a random game, checking ``touched`` after every action; returns how many actions
    were applied (not refused)."""
    game = record.replay({**head, "actions": []}).game
    table = Table(head)
    applied = 0
    for index in range(data.draw(st.integers(0, length))):
        before = ll_state.state_dict(game)
        if before["over"] and data.draw(st.integers(0, 2)) > 0:
            break
        obj = chooser(data.draw, table, before)
        action = record.parse_action(obj, str(index))
        effects = game.effects()
        try:
            game.apply(action)
        except RefusedError:
            assert game.touched == Touched()
            assert ll_state.state_dict(game) == before
            continue
        applied += 1
        check_touched(game, before, effects)
        table.applied(obj)
    return applied


@SETTINGS
@given(st.data())
def test_every_player_and_team_whose_state_changed_is_touched(data: st.DataObject):
    play_checking(data, data.draw(headers()), an_action, 24)


@SETTINGS
@given(st.data())
def test_810_9a_every_head_of_a_team_whose_shared_total_changed_is_touched(data: st.DataObject):
    play_checking(data, data.draw(headers(["two-headed-giant"])), life_action, 16)


@SETTINGS
@given(st.data())
def test_player_state_and_team_state_are_the_entries_of_state_dict(data: st.DataObject):
    head = data.draw(headers())
    game = record.replay({**head, "actions": []}).game
    table = Table(head)
    for index in range(data.draw(st.integers(0, 8))):
        obj = an_action(data.draw, table, ll_state.state_dict(game))
        try:
            game.apply(record.parse_action(obj, str(index)))
        except RefusedError:
            continue
        table.applied(obj)
    state = ll_state.state_dict(game)
    assert [ll_state.player_state(game, p["id"]) for p in state["players"]] == state["players"]
    assert [ll_state.team_state(game, t["id"]) for t in state["teams"]] == state["teams"]


# --- stories ----------------------------------------------------------------------------------


def two_headed_giant() -> Game:
    return Game(
        [
            Seat("ana", team="north"),
            Seat("bo", team="north"),
            Seat("cy", team="south"),
            Seat("di", team="south"),
        ],
        variant="two-headed-giant",
    )


@pytest.mark.rule("810.9a")
def test_810_9a_a_team_that_loses_life_touches_the_team_and_both_heads():
    game = two_headed_giant()
    game.damage("bo", 5, source="cy-attackers")
    assert game.touched == Touched(frozenset({"ana", "bo"}), frozenset({"north"}))
    assert ll_state.player_state(game, "ana")["life"] == 25
    assert ll_state.team_state(game, "north")["life"] == 25


@pytest.mark.rule("810.10a")
def test_810_10a_shared_poison_touches_the_team_and_both_heads():
    game = two_headed_giant()
    game.add_counters("cy", "poison", 2)
    assert game.touched == Touched(frozenset({"cy", "di"}), frozenset({"south"}))


@pytest.mark.rule("702.15b")
def test_702_15b_lifelink_touches_both_teams():
    game = two_headed_giant()
    game.damage("ana", 4, source="cy-attackers", combat=True, lifelink=True, controller="cy")
    assert game.touched.teams == {"north", "south"}
    assert game.touched.players == {"ana", "bo", "cy", "di"}


@pytest.mark.rule("704.5a")
def test_704_5a_a_player_at_0_life_loses_and_the_last_one_standing_wins():
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.damage("bo", 20, source="ana-creature")
    assert game.touched.players == {"bo"}
    assert ll_state.player_state(game, "bo")["rule"] == "704.5a"
    game.lose_life("cy", 20)
    # cy loses (704.5a) and ana wins (104.2a): both entries changed, bo's didn't.
    assert game.touched.players == {"ana", "cy"}
    assert not game.touched.everything


@pytest.mark.rule("810.8a")
def test_810_8a_a_team_that_loses_touches_its_standing_and_the_winners():
    game = two_headed_giant()
    game.damage("ana", 30, source="cy-attackers")
    assert game.touched.teams == {"north", "south"}
    assert game.touched.players == {"ana", "bo", "cy", "di"}


@pytest.mark.rule("119.4")
def test_119_4_a_refused_action_touches_nothing():
    game = Game([Seat("ana"), Seat("bo")])
    game.damage("bo", 3, source="ana-creature")
    assert game.touched.players == {"bo"}
    with pytest.raises(RefusedError):
        game.pay_life("ana", 21)
    assert game.touched == Touched()


def test_a_malformed_action_touches_nothing_even_half_way_through_a_group():
    game = Game([Seat("ana"), Seat("bo")])
    game.damage("bo", 3, source="ana-creature")
    with pytest.raises(MalformedError):
        game.apply(Together((GainLife("ana", 5), Damage("nobody", 1, source="x"))))
    assert game.touched == Touched()
    with pytest.raises(MalformedError):
        game.apply(Together((GainLife("ana", 5), GainLife("bo", 10**1000))))
    assert game.touched == Touched()
    assert game.life_of("ana") == 20


@pytest.mark.rule("609.3")
def test_609_3_a_group_touches_what_its_parts_changed():
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.concede("cy")
    game.together(GainLife("ana", 2), GainLife("cy", 2), Damage("bo", 1, source="x"))
    assert [position for position, _ in game.refusals] == ["1"]
    assert {"ana", "bo"} <= game.touched.players


@pytest.mark.rule("611")
def test_611_an_effect_that_begins_or_ends_touches_the_effects():
    game = Game([Seat("ana"), Seat("bo")])
    game.card("angel", "Platinum Angel", controller="ana")
    assert game.touched == Touched(effects=True)
    game.gain_life("ana", 1)
    assert not game.touched.effects
    game.end("angel")
    assert game.touched == Touched(effects=True)


@pytest.mark.rule("104.5")
def test_104_5_the_effects_of_a_player_who_leaves_stop_and_are_touched():
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.card("angel", "Platinum Angel", controller="cy")
    game.concede("cy")
    assert game.touched.effects
    assert game.touched.players == {"cy"}
    assert game.effects() == ()


@pytest.mark.rule("122.1")
def test_122_1_counters_touch_their_player_as_they_come_and_go():
    game = Game([Seat("ana"), Seat("bo")])
    game.add_counters("bo", "energy", 2)
    assert game.touched.players == {"bo"}
    game.remove_counters("bo", "energy", 5)
    assert game.touched.players == {"bo"}
    assert ll_state.player_state(game, "bo")["counters"] == {}


@pytest.mark.rule("903.10a")
def test_903_10a_commander_damage_touches_a_player_whose_life_cant_change():
    game = Game(
        [Seat("ana", commanders=("ana-c",)), Seat("bo", commanders=("bo-c",))],
        format="commander",
    )
    game.card("emperion", "Platinum Emperion", controller="ana")
    game.damage("ana", 3, source="bo-c", combat=True)
    assert game.touched.players == {"ana"}
    assert ll_state.player_state(game, "ana")["life"] == 40
    assert ll_state.player_state(game, "ana")["commander_damage"] == {"bo-c": 3}


@pytest.mark.rule("121.4")
def test_121_4_a_draw_touches_the_library_of_its_player():
    game = Game([Seat("ana", library=1), Seat("bo")])
    game.draw("ana")
    assert game.touched.players == {"ana"}
    game.draw("ana")  # 704.5b: ana loses, bo wins
    assert game.touched.players == {"ana", "bo"}


@pytest.mark.rule("727.1")
def test_727_1_a_restart_touches_everything():
    game = Game([Seat("ana"), Seat("bo")])
    game.damage("bo", 3, source="ana-creature")
    game.restart()
    assert game.touched.everything


def test_an_action_that_changes_nothing_touches_nothing():
    game = Game([Seat("ana"), Seat("bo")])
    game.damage("bo", 0, source="ana-creature")  # 120.8: no damage at all
    assert game.touched == Touched()


def test_team_state_of_an_unknown_team_is_malformed():
    with pytest.raises(MalformedError):
        ll_state.team_state(two_headed_giant(), "west")


@pytest.mark.rule("104.3a")
def test_104_3a_a_concession_is_settled_once_and_touches_nothing_after_it():
    """What an action states (a concession, a loss) is settled as it ends, and never again:
    the next action touches only what it changes."""
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.concede("ana")
    assert game.touched.players == {"ana"}
    game.gain_life("bo", 1)
    assert game.touched == Touched(frozenset({"bo"}))
    assert game.notes == []

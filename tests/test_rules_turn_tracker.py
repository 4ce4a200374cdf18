"""What a turn tracker asks the engine (``Game.first_turn_players``, ``next_turn_player``,
``first_draw_rule``, ``spells_cast``, ``radiation``, ``has_several_turn_markers``): the rules of
who plays first (103.1, 103.1b, 727.1a), turn order (103.1, 800.4, 805.4, 810.2), the first draw
(103.8a-c, 810.6), spells counted for day and night (502.2, 731.2), rad counters (728.1) and
Grand Melee's turn markers (807.4). The table app shows exactly these (docs/table.md, "Turns").
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import Game, Seat, record
from lifeledger.errors import MalformedError
from stories import turn


def play(game: Game, *actions: dict[str, Any]) -> Game:
    for position, action in enumerate(actions):
        game.apply(record.parse_action(action, str(position)))
    return game


FOUR = [Seat("ana"), Seat("bo"), Seat("cy"), Seat("di")]
TEAMS = [Seat("ana", team="n"), Seat("bo", team="n"), Seat("cy", team="s"), Seat("di", team="s")]


@pytest.mark.rule("103.1")
def test_103_1_anyone_still_in_the_game_may_play_first_until_a_turn_begins() -> None:
    game = Game(FOUR, version=2)
    assert game.first_turn_players() == ("ana", "bo", "cy", "di")
    play(game, {"do": "concede", "player": "bo"})
    assert game.first_turn_players() == ("ana", "cy", "di")
    play(game, turn("cy"))
    assert game.first_turn_players() == ()


@pytest.mark.rule("103.1b")
def test_103_1b_only_the_archenemy_may_play_first() -> None:
    seats = [Seat("ana", archenemy=True), Seat("bo"), Seat("cy")]
    assert Game(seats, "archenemy", version=2).first_turn_players() == ("ana",)


@pytest.mark.rule("727.1a")
def test_727_1a_after_a_restart_only_its_controller_may_play_first() -> None:
    game = play(
        Game(FOUR, version=2), turn("ana"), {"do": "restart", "controller": "cy", "source": "k"}
    )
    assert game.first_turn_players() == ("cy",)


@pytest.mark.rule("800.4")
def test_103_1_800_4_the_next_player_is_clockwise_and_still_in_the_game() -> None:
    game = Game(FOUR, version=2)
    assert game.next_turn_player() is None  # before the first turn
    play(game, turn("di"))
    assert game.next_turn_player() == "ana"  # clockwise, round the table
    play(game, {"do": "concede", "player": "ana"})
    assert game.next_turn_player() == "bo"


@pytest.mark.rule("810.2")
def test_805_4_810_2_the_next_turn_is_the_next_teams() -> None:
    seats = [
        Seat("ana", team="n"),
        Seat("bo", team="n"),
        Seat("cy", team="s"),
        Seat("di", team="s"),
    ]
    game = play(Game(seats, "two-headed-giant", version=2), turn("bo"))
    assert game.next_turn_player() == "cy"
    play(game, {"do": "concede", "player": "cy"})  # 810.8b: the team leaves with them
    assert game.is_over() and game.next_turn_player() is None


@pytest.mark.rule("103.8a")
def test_103_8_the_first_draw_rule_of_each_kind_of_game() -> None:
    assert Game(FOUR[:2], version=2).first_draw_rule == "103.8a"
    assert Game(TEAMS, "two-headed-giant", version=2).first_draw_rule == "810.6"
    assert Game(FOUR, version=2).first_draw_rule == "103.8c"


@pytest.mark.rule("731.2")
def test_502_2_731_2_the_spells_cast_this_turn_start_again_each_turn() -> None:
    game = play(Game(FOUR[:2], version=2), turn("ana"), {"do": "cast", "player": "ana", "count": 2})
    assert game.spells_cast == {"ana": 2}
    play(game, turn("bo"))
    assert game.spells_cast == {}


@pytest.mark.rule("728.1")
def test_728_1_radiation_names_who_mills_and_how_many_cards() -> None:
    game = Game([Seat("ana", library=2), Seat("bo")], version=2)
    add = {"do": "add_counters", "kind": "rad", "amount": 3}
    play(game, {**add, "player": "ana"}, {**add, "player": "bo"}, turn("ana"))
    assert game.radiation() == {"ana": 2}  # two cards left to mill; Bo is not active
    play(game, {"do": "step", "step": "main", "nonland_milled": {"ana": 1}})
    assert game.radiation() == {}


@pytest.mark.rule("807.4")
def test_807_4_grand_melee_of_eight_has_several_turn_markers() -> None:
    eight = [Seat(f"p{i}") for i in range(8)]
    game = Game(eight, "grand-melee", version=2)
    assert game.has_several_turn_markers()
    with pytest.raises(MalformedError):
        play(game, turn("p0"))
    play(game, {"do": "concede", "player": "p7"})
    assert not game.has_several_turn_markers()

"""Points the record format left open, each settled by its rules (issue 19, item 3;
docs/record-format.md, "Choices the rules leave open" and "The state"): the order of a team's
triggered abilities under shared team turns (805.7), radiation's life loss (728.1), what
``triggered`` counts (603.2), "the next player in turn order" (725.4, 726.4, 800.4j) and day
and night after the active player left (502.2, 731.2, 800.4i).
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import Game, Seat, record
from stories import turn


def play(game: Game, *actions: dict[str, Any]) -> Game:
    for position, action in enumerate(actions):
        game.apply(record.parse_action(action, str(position)))
    return game


TEAMS = [Seat("ana", team="n"), Seat("bo", team="n"), Seat("cy", team="s"), Seat("di", team="s")]


def card(card_id: str, name: str, controller: str) -> dict[str, Any]:
    return {"do": "card", "id": card_id, "name": name, "controller": controller}


def put_on(game: Game) -> list[str]:
    """The ids of the abilities the last action put on the stack, in order (603.3b)."""
    return [n.text.split(" ")[0] for n in game.notes if "is put on the stack" in n.text]


def bonds_and_blood() -> Game:
    """Two-Headed Giant: Ana's and Bo's Sanguine Bonds (north), Cy's Exquisite Blood (south)."""
    return play(
        Game(TEAMS, "two-headed-giant", version=2),
        card("bond", "Sanguine Bond", "ana"),
        card("bond2", "Sanguine Bond", "bo"),
        card("blood", "Exquisite Blood", "cy"),
        {"do": "choose", "player": "ana", "targets": {"bond": "cy"}},
        {"do": "choose", "player": "bo", "targets": {"bond2": "di"}},
    )


def gains_and_a_loss() -> dict[str, Any]:
    return {
        "do": "together",
        "actions": [
            {"do": "gain_life", "player": "ana", "amount": 1},
            {"do": "gain_life", "player": "bo", "amount": 2},
            {"do": "lose_life", "player": "ana", "amount": 3},
        ],
    }


@pytest.mark.rule("805.7")
def test_805_7_the_active_team_puts_all_its_abilities_on_the_stack_before_the_other_team() -> None:
    # The turn names Bo, the second seat of north: Ana's ability is north's all the same,
    # and goes on the stack before Cy's (it went after it, as though Ana came after south);
    # with no order of the team's stated, member by member from Ana, the primary player (805.2).
    game = play(bonds_and_blood(), turn("bo"), gains_and_a_loss())
    assert put_on(game) == ["bond", "bond2", "blood"]


@pytest.mark.rule("805.7")
def test_805_7_a_member_states_the_order_of_the_whole_teams_abilities_interleaved() -> None:
    game = play(
        bonds_and_blood(),
        card("priest", "Marauding Blight-Priest", "ana"),
        {"do": "choose", "player": "ana", "order": ["bond", "priest"]},
        {"do": "choose", "player": "bo", "order": ["priest", "bond2", "bond"]},
        turn("ana"),
        gains_and_a_loss(),
    )
    assert put_on(game) == ["priest", "bond2", "bond", "blood"]
    assert [n.text for n in game.notes if n.rule == "805.7"] == [
        "team n orders its abilities as bo stated"
    ]


@pytest.mark.rule("805.7")
def test_805_7_without_an_order_of_the_whole_team_each_member_puts_theirs_on_in_turn() -> None:
    game = play(
        bonds_and_blood(),
        card("priest", "Marauding Blight-Priest", "ana"),
        {"do": "choose", "player": "ana", "order": ["priest", "bond"]},
        turn("bo"),
        gains_and_a_loss(),
    )
    # 805.2: from the primary player, Ana (north's rightmost seat), whatever seat the turn named.
    assert put_on(game) == ["priest", "bond", "bond2", "blood"]


@pytest.mark.rule("603.3b")
def test_603_3b_without_shared_team_turns_a_teammates_order_is_not_theirs() -> None:
    seats = [Seat("ana", team="n"), Seat("bo", team="n"), Seat("cy", team="s")]
    game = play(
        Game(seats, "team-vs-team", version=2),
        card("bond", "Sanguine Bond", "ana"),
        card("bond2", "Sanguine Bond", "bo"),
        {"do": "choose", "player": "bo", "order": ["bond", "bond2"]},
        turn("bo"),
        {
            "do": "together",
            "actions": [
                {"do": "gain_life", "player": "ana", "amount": 1},
                {"do": "gain_life", "player": "bo", "amount": 2},
            ],
        },
    )
    assert put_on(game) == ["bond2", "bond"]  # APNAP: Bo's, then Ana's (101.4, 603.3b)


@pytest.mark.rule("728.1")
def test_728_1_radiation_loses_its_life_in_one_event_per_player() -> None:
    # "For each nonland card milled this way, that player loses 1 life": one event of that
    # many life, so Exquisite Blood triggers once (603.2c), for all of it; under shared team
    # turns each active player's rad counters are an ability of their own: an event each.
    game = play(
        Game(TEAMS, "two-headed-giant", version=2),
        card("blood", "Exquisite Blood", "ana"),
        turn("ana"),
        turn("cy"),
        {"do": "add_counters", "player": "cy", "kind": "rad", "amount": 3},
        {"do": "add_counters", "player": "di", "kind": "rad", "amount": 2},
        {"do": "step", "step": "main", "nonland_milled": {"cy": 3, "di": 1}},
    )
    assert game.triggered == {"blood": 2}
    assert (game.life_of("ana"), game.life_of("cy")) == (34, 26)
    assert [n.text for n in game.notes if n.rule == "603.2"] == [
        "blood triggers: cy loses 3 life",
        "blood triggers: di loses 1 life",
    ]


@pytest.mark.rule("603.2")
def test_603_2_triggered_counts_triggers_whether_or_not_they_resolve() -> None:
    # 603.2: an ability triggers when its event happens, and `triggered` counts that; one whose
    # controller leaves before it goes on the stack (800.4a) counts all the same. Replacement
    # effects (Lich's Mirror) and the upkeep "win" abilities (Near-Death Experience) are not
    # listed.
    three = [Seat("ana"), Seat("bo"), Seat("cy")]
    game = play(
        Game(three, version=2),
        card("bond", "Sanguine Bond", "ana"),
        card("blood", "Exquisite Blood", "bo"),
        card("ned", "Near-Death Experience", "cy"),
        card("mirror", "Lich's Mirror", "cy"),
        {"do": "choose", "player": "ana", "targets": {"bond": "cy"}},
        {
            "do": "together",
            "actions": [
                {"do": "gain_life", "player": "ana", "amount": 2},
                {"do": "damage", "source": "x", "to": "ana", "amount": 30},
            ],
        },
    )
    assert not game.is_in_game("ana")
    assert game.triggered == {"bond": 1, "blood": 1}
    assert game.life_of("bo") == 50  # Blood resolved; Ana's Bond left with her, unresolved


FIVE = [Seat("ana"), Seat("bo"), Seat("cy"), Seat("di"), Seat("eve")]


@pytest.mark.rule("725.4")
def test_725_4_800_4j_with_the_active_player_gone_the_next_player_is_the_one_after_them() -> None:
    game = play(
        Game(FIVE, version=2),
        turn("ana"),
        {"do": "become_monarch", "player": "cy"},
        {"do": "take_initiative", "player": "cy"},
        {"do": "concede", "player": "ana"},  # 800.4j: the turn goes on with no active player
        {"do": "concede", "player": "cy"},
    )
    assert (game.monarch, game.initiative) == ("bo", "bo")  # after Ana, not after Cy (di)


@pytest.mark.rule("726.4")
def test_726_4_before_the_first_turn_the_next_player_is_the_one_after_the_holder() -> None:
    game = play(
        Game(FIVE, version=2),
        {"do": "take_initiative", "player": "eve"},
        {"do": "concede", "player": "eve"},
    )
    assert game.initiative == "ana"  # clockwise from Eve, round the table (103.1)


@pytest.mark.rule("502.2")
def test_502_2_800_4i_the_spells_of_an_active_player_who_left_count_for_day_and_night() -> None:
    four = [Seat("ana"), Seat("bo"), Seat("cy"), Seat("di")]
    game = play(
        Game(four, version=2),
        {"do": "day_night", "to": "day"},
        turn("ana"),
        {"do": "concede", "player": "ana"},
        {"do": "cast", "player": "bo"},  # a nonactive player's spell counts for nothing
        turn("bo"),
    )
    assert game.day_or_night == "night"  # Ana, the previous turn's active player, cast none
    play(game, {"do": "cast", "player": "bo", "count": 2}, {"do": "concede", "player": "bo"})
    play(game, turn("cy"))
    assert game.day_or_night == "day"  # Bo cast two before he left (800.4i)


@pytest.mark.rule("731.2b")
def test_731_2b_a_member_of_the_active_team_who_left_still_counts_for_day_and_night() -> None:
    seats = [Seat("eve", archenemy=True), Seat("hana"), Seat("ivo"), Seat("jo")]
    game = play(
        Game(seats, "archenemy", version=2),
        {"do": "day_night", "to": "night"},
        turn("eve"),
        turn("hana"),
        {"do": "cast", "player": "hana", "count": 2},
        {"do": "concede", "player": "hana"},
        turn("eve"),
    )
    assert game.day_or_night == "day"  # 731.2b: a player of the previous turn's active team

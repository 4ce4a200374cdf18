"""A team that can't agree (issue 28, item 5; docs/record-format.md, "Choices the rules leave
open in the stack"): 805.2 makes the player in a team's rightmost seat its primary player, who
decides a choice the team can't agree on. The header lists the seats clockwise, so a player's
left is the next seat (101.4) and the primary player is the team's first seat in clockwise order:
the first member listed, or, for a team that wraps around the end of the list, the member after
the break. The engine applies it to every choice a team makes: the order of its members'
triggered abilities (805.7), the head 810.9d affects, and which Lich's Mirror applies (616.1).
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import ChoiceNeeded, Game, MalformedError, Seat, record
from stories import turn


def play(game: Game, *actions: dict[str, Any]) -> Game:
    for position, action in enumerate(actions):
        game.apply(record.parse_action(action, str(position)))
    return game


#: North is Ana (the rightmost seat, the primary player) and Bo on her left.
TEAMS = [Seat("ana", team="n"), Seat("bo", team="n"), Seat("cy", team="s"), Seat("di", team="s")]
#: North wraps around the end of the list: clockwise Ana, then Bo, so Ana is primary still.
WRAPPED = [Seat("bo", team="n"), Seat("cy", team="s"), Seat("di", team="s"), Seat("ana", team="n")]


def card(card_id: str, name: str, controller: str) -> dict[str, Any]:
    return {"do": "card", "id": card_id, "name": name, "controller": controller}


def choose(player: str, **members: Any) -> dict[str, Any]:
    return {"do": "choose", "player": player, **members}


def put_on(game: Game) -> list[str]:
    """The ids of the abilities put on the stack so far, in order (603.3b)."""
    return [n.text.split(" ")[0] for n in game.notes if "is put on the stack" in n.text]


def two_bonds(seats: list[Seat]) -> Game:
    """Two-Headed Giant: Ana's and Bo's Sanguine Bonds, targets stated."""
    return play(
        Game(seats, "two-headed-giant", version=2),
        card("bond-ana", "Sanguine Bond", "ana"),
        card("bond-bo", "Sanguine Bond", "bo"),
        choose("ana", targets={"bond-ana": "cy"}),
        choose("bo", targets={"bond-bo": "di"}),
    )


GAINS = {
    "do": "together",
    "actions": [
        {"do": "gain_life", "player": "ana", "amount": 1},
        {"do": "gain_life", "player": "bo", "amount": 2},
    ],
}


@pytest.mark.rule("805.2")
def test_805_2_heads_who_state_different_orders_the_primary_player_decides() -> None:
    # Ana wants Bo's Bond on the stack first, Bo wants Ana's first; the turn names Bo. They
    # can't agree, and Ana, in north's rightmost seat, makes the choice (805.2, 805.7).
    game = play(
        two_bonds(TEAMS),
        choose("ana", order=["bond-bo", "bond-ana"]),
        choose("bo", order=["bond-ana", "bond-bo"]),
        turn("bo"),
        GAINS,
    )
    assert put_on(game) == ["bond-bo", "bond-ana"]
    said = "bo stated another order of team n's abilities: the primary player, ana, decides"
    assert [(n.rule, n.text) for n in game.notes if n.rule in ("805.2", "805.7")] == [
        ("805.7", "team n orders its abilities as ana stated"),
        ("805.2", said),
    ]


@pytest.mark.rule("805.2")
def test_805_2_the_primary_player_of_a_team_that_wraps_around_the_list_is_after_the_break() -> None:
    # Bo is listed first, but clockwise Ana sits before him: Ana is north's rightmost seat.
    game = play(
        two_bonds(WRAPPED),
        choose("bo", order=["bond-ana", "bond-bo"]),
        choose("ana", order=["bond-bo", "bond-ana"]),
        turn("ana"),
        GAINS,
    )
    assert put_on(game) == ["bond-bo", "bond-ana"]
    assert "the primary player, ana, decides" in " ".join(n.text for n in game.notes)


@pytest.mark.rule("805.7")
def test_805_7_a_teammate_states_the_order_the_primary_player_left_unstated() -> None:
    # Ana orders only her own ability; Bo orders the team's: no disagreement, Bo's order stands.
    game = play(
        two_bonds(TEAMS),
        card("priest", "Marauding Blight-Priest", "ana"),
        choose("ana", order=["bond-ana", "priest"]),
        choose("bo", order=["priest", "bond-bo", "bond-ana"]),
        turn("ana"),
        GAINS,
    )
    assert put_on(game) == ["priest", "bond-bo", "bond-ana"]
    assert not [n for n in game.notes if n.rule == "805.2"]


@pytest.mark.rule("805.2")
def test_805_2_two_heads_with_no_order_stated_go_member_by_member_from_the_primary_player() -> None:
    # Each head has one ability waiting, and no one stated the team's order: not malformed;
    # member by member, from Ana, whatever seat the turn named (805.6: "in whatever order they
    # like"; unstated, the primary player's). The last on resolves first: Bo's Bond.
    game = play(two_bonds(TEAMS), turn("bo"), GAINS)
    assert put_on(game) == ["bond-ana", "bond-bo"]
    game = play(two_bonds(WRAPPED), turn("bo"), GAINS)
    assert put_on(game) == ["bond-ana", "bond-bo"]


@pytest.mark.rule("603.3b")
def test_603_3b_one_heads_two_abilities_with_no_order_stated_are_malformed_all_the_same() -> None:
    game = play(
        two_bonds(TEAMS),
        card("priest", "Marauding Blight-Priest", "bo"),
        turn("ana"),
    )
    with pytest.raises(ChoiceNeeded) as caught:
        play(game, {"do": "gain_life", "player": "bo", "amount": 1})
    assert (caught.value.player, caught.value.choice) == ("bo", "order")


@pytest.mark.rule("810.9d")
def test_810_9d_unstated_the_team_chooses_its_primary_player() -> None:
    # "Each player's life total becomes 7": one head per team is affected; the record names
    # none, so the primary players: Ana (after the break in the list) and Cy.
    game = play(
        Game(WRAPPED, "two-headed-giant", version=2),
        {"do": "effect", "id": "ana-loses", "kind": "on_lose_life", "controller": "ana"},
        {"do": "effect", "id": "bo-loses", "kind": "on_lose_life", "controller": "bo"},
        {"do": "set_life", "each": {"bo": 7, "cy": 7, "di": 7, "ana": 7}},
    )
    assert game.triggered == {"ana-loses": 1, "bo-loses": 0}
    assert (game.life_of("ana"), game.life_of("cy")) == (7, 7)


@pytest.mark.rule("616.1")
def test_616_1_which_lichs_mirror_replaces_a_teams_loss_is_its_primary_players_choice() -> None:
    # Two Mirrors would replace north's loss (810.8a): Ana, the primary player, chooses; Bo,
    # listed first, doesn't.
    seats = [
        Seat("bo", team="n", library=30),
        Seat("cy", team="s"),
        Seat("di", team="s"),
        Seat("ana", team="n"),
    ]
    game = play(
        Game(seats, "two-headed-giant", version=2),
        card("m1", "Lich's Mirror", "bo"),
        card("m2", "Lich's Mirror", "bo"),
        choose("bo", replacements=["m2", "m1"]),
    )
    assert [(c.player, c.choice) for c in game.open_choices()] == [("ana", "replacements")]
    with pytest.raises(ChoiceNeeded) as caught:
        play(game, {"do": "lose", "players": ["bo"], "source": "a-card"})
    assert caught.value.player == "ana"
    play(game, choose("ana", replacements=["m2", "m1"]))
    play(game, {"do": "lose", "players": ["bo"], "source": "a-card"})
    assert "m2: bo would lose the game" in " ".join(n.text for n in game.notes)
    assert not game.is_over()


@pytest.mark.rule("805.2")
def test_805_2_the_heroes_primary_player_sits_on_the_archenemys_left() -> None:
    # Archenemy (904): the heroes' rightmost seat is the one after the archenemy's.
    seats = [
        Seat("cy", team="heroes"),
        Seat("di", team="heroes"),
        Seat("arch", archenemy=True),
        Seat("bo", team="heroes"),
    ]
    game = play(
        Game(seats, "archenemy", version=2),
        card("bond-bo", "Sanguine Bond", "bo"),
        card("bond-cy", "Sanguine Bond", "cy"),
        choose("cy", order=["bond-bo", "bond-cy"]),
        choose("bo", order=["bond-cy", "bond-bo"]),
        turn("arch"),
        turn("cy"),
        {
            "do": "together",
            "actions": [
                {"do": "gain_life", "player": "cy", "amount": 1},
                {"do": "gain_life", "player": "bo", "amount": 1},
            ],
        },
    )
    assert put_on(game) == ["bond-cy", "bond-bo"]
    assert "the primary player, bo, decides" in " ".join(n.text for n in game.notes)


def test_an_unknown_team_member_is_still_malformed() -> None:
    with pytest.raises(MalformedError):
        play(
            Game(TEAMS, "two-headed-giant", version=2),
            {"do": "set_life", "each": {"ana": 7, "bo": 7}, "chosen": {"n": "cy"}},
        )

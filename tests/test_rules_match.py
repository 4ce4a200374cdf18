"""100.6a: matches, scored as wins-losses-draws."""

from __future__ import annotations

import pytest

from lifeledger import Game, MalformedError, Match, Seat
from lifeledger.outcome import Outcome


def two_player(loser: str | None) -> Outcome:
    """A finished two-player game that ``loser`` lost (``None``: a draw)."""
    game = Game([Seat("ana"), Seat("bo")])
    if loser is None:
        game.intentional_draw()
    else:
        game.concede(loser)
    return game.outcome()


@pytest.mark.rule("100.6a")
def test_100_6a_a_two_player_match_is_won_by_the_first_to_win_two_games() -> None:
    match = Match.usual(players=2)
    assert (match.best_of, match.wins_needed) == (3, 2)
    sides = ["ana", "bo"]
    game = Game([Seat("ana"), Seat("bo")])
    score = match.score([], game.outcome(), sides)
    assert (score.number, score.games, score.winner) == (1, 0, None)  # game 1 under way
    first = two_player("bo")
    score = match.score([], first, sides)
    assert (score.games, str(score.tallies["ana"]), score.winner) == (1, "1-0-0", None)
    draw = two_player(None)  # a draw counts for no one: the match goes on
    score = match.score([first], draw, sides)
    assert (str(score.tallies["ana"]), str(score.tallies["bo"])) == ("1-0-1", "0-1-1")
    assert score.winner is None
    third = two_player("bo")
    score = match.score([first, draw], third, sides)
    assert (score.number, score.winner, score.won["ana"]) == (1, "ana", 1)
    # The next game begins match 2.
    score = match.score([first, draw, third], Game([Seat("ana"), Seat("bo")]).outcome(), sides)
    assert (score.number, score.games, score.winner, dict(score.won)) == (
        2,
        0,
        None,
        {"ana": 1, "bo": 0},
    )


@pytest.mark.rule("100.6a")
def test_100_6a_a_multiplayer_match_is_one_game_and_teams_score_as_sides() -> None:
    match = Match.usual(players=4)
    assert match.best_of == 1
    seats = [
        Seat("ana", team="n"),
        Seat("bo", team="n"),
        Seat("cy", team="s"),
        Seat("di", team="s"),
    ]
    game = Game(seats, variant="two-headed-giant")
    game.damage("ana", 30, source="x")
    score = match.score([], game.outcome(), ["n", "s"])
    assert (score.winner, str(score.tallies["s"]), str(score.tallies["n"])) == (
        "s",
        "1-0-0",
        "0-1-0",
    )


@pytest.mark.rule("100.6a")
def test_100_6a_an_open_match_never_ends_and_odd_lengths_only() -> None:
    match = Match(None)
    outcomes = [two_player("bo") for _ in range(5)]
    score = match.score(outcomes[:-1], outcomes[-1], ["ana", "bo"])
    assert (score.number, score.games, score.winner) == (1, 5, None)
    for bad in (2, 0, True, 3.0, "3"):
        with pytest.raises(MalformedError) as error:
            Match(bad)  # type: ignore[arg-type]
        assert error.value.member == "best_of"

"""Matches: a series of games between the same sides, scored as wins-losses-draws (100.6a)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .errors import MalformedError
from .outcome import Outcome, Result, Status
from .sentences import Items, Sentence

__all__ = ["BEST_OF", "Match", "MatchScore", "Tally"]

#: The match lengths a match may have; ``None`` is an open match, which never ends by itself.
BEST_OF = (1, 3, 5, 7)


@dataclass(frozen=True, slots=True)
class Tally:
    """One side's games in a match."""

    wins: int = 0
    losses: int = 0
    draws: int = 0

    def __str__(self) -> str:
        return f"{self.wins}-{self.losses}-{self.draws}"


@dataclass(frozen=True, slots=True)
class MatchScore:
    """Where a series of matches stands.

    ``number`` is the current match (from 1); ``games`` the games of it that are over;
    ``tallies`` each side's wins, losses and draws in it; ``winner`` the side that has won it,
    if one has; ``won`` how many matches each side has won so far (this one included).
    """

    number: int
    games: int
    tallies: Mapping[str, Tally]
    winner: str | None
    won: Mapping[str, int]


class Match:
    """100.6a: "A two-player match usually involves playing until one player has won two
    games. A multiplayer match usually consists of only one game."

    A side is a team (by its id) or a player on no team (by theirs); its result in a game is
    the team's result or the player's. A match of ``best_of`` games is won by the first side
    to win more than half of them; draws count for no one. ``best_of=None`` is an open match.

    >>> from lifeledger import Game, Seat
    >>> match = Match.usual(players=2)
    >>> game = Game([Seat("ana"), Seat("bo")])
    >>> game.concede("bo")
    >>> print(match.score([], game.outcome(), ["ana", "bo"]).tallies["ana"])
    1-0-0
    """

    def __init__(self, best_of: int | None) -> None:
        if best_of is not None and (type(best_of) is not int or best_of not in BEST_OF):
            raise MalformedError(
                Sentence(
                    "a match is best of {lengths} games, or open", lengths=Items(BEST_OF, ",")
                ),
                member="best_of",
            )
        self.best_of = best_of

    @classmethod
    def usual(cls, players: int) -> Match:
        """100.6a: best of three for two players, one game for more."""
        return cls(3 if players == 2 else 1)

    @property
    def wins_needed(self) -> int | None:
        """The wins that take the match (more than half its games); ``None`` if open."""
        return None if self.best_of is None else self.best_of // 2 + 1

    @staticmethod
    def result_of(outcome: Outcome, side: str) -> Result | None:
        """The side's result in a game: its team's, or the player's."""
        return outcome.team_results.get(side) or outcome.results.get(side)

    def tally(self, games: Sequence[Outcome], sides: Sequence[str]) -> dict[str, Tally]:
        """Each side's wins, losses and draws over ``games``."""
        out: dict[str, Tally] = {}
        for side in sides:
            statuses = [r.status for r in (self.result_of(o, side) for o in games) if r is not None]
            out[side] = Tally(
                statuses.count(Status.WON), statuses.count(Status.LOST), statuses.count(Status.DREW)
            )
        return out

    def winner(self, games: Sequence[Outcome], sides: Sequence[str]) -> str | None:
        """The side that has won a match made of ``games``, if one has."""
        needed = self.wins_needed
        if needed is None:
            return None
        tallies = self.tally(games, sides)
        return next((side for side in sides if tallies[side].wins >= needed), None)

    def score(
        self, finished: Sequence[Outcome], current: Outcome | None, sides: Sequence[str]
    ) -> MatchScore:
        """Where things stand: ``finished`` are the games played before the current one, in
        order (each match ends with the game its winner needed; the next game begins the next
        match), ``current`` the current game's outcome (counted if it is over)."""
        won = dict.fromkeys(sides, 0)
        number = 1
        games: list[Outcome] = []
        for outcome in finished:
            games.append(outcome)
            winner = self.winner(games, sides)
            if winner is not None:
                won[winner] += 1
                number += 1
                games = []
        winner = None
        if current is not None and current.over:
            games.append(current)
            winner = self.winner(games, sides)
            if winner is not None:
                won[winner] += 1
        return MatchScore(number, len(games), self.tally(games, sides), winner, won)

"""Results: who won, lost or drew, why, and by which rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

__all__ = ["PLAYING", "Outcome", "Reason", "Result", "Status"]


class Status(Enum):
    """A player's (or team's) standing in the game."""

    PLAYING = "playing"
    WON = "won"
    LOST = "lost"
    DREW = "drew"


class Reason(Enum):
    """Why a player won, lost or drew; each member names the rules that produce it."""

    LIFE = "life"  #: 704.5a
    TEAM_LIFE = "team-life"  #: 704.6a
    POISON = "poison"  #: 704.5c
    TEAM_POISON = "team-poison"  #: 704.6b
    EMPTY_LIBRARY = "empty-library"  #: 704.5b
    COMMANDER_DAMAGE = "commander-damage"  #: 704.6c
    CONCEDED = "conceded"  #: 104.3a, 810.8b
    EFFECT = "effect"  #: 104.3e (lost), 104.2b (won), 104.4c / 801.15 (drew)
    PENALTY = "penalty"  #: 104.3k
    TEAMMATE = "teammate"  #: 810.8a
    EMPEROR = "emperor"  #: 809.5
    OPPONENT_WON = "opponent-won"  #: 104.2b, 104.3h, 801.14
    LAST_STANDING = "last-standing"  #: 104.2a, 104.2c
    TEAM = "team"  #: 104.2c, 810.8a
    SIMULTANEOUS_LOSS = "simultaneous-loss"  #: 104.4a, 104.4d
    LOOP = "loop"  #: 104.4b, 801.16
    INTENTIONAL = "intentional"  #: 104.4i


@dataclass(frozen=True, slots=True)
class Result:
    """A standing with its reason and rule; ``reason`` and ``rule`` are ``None`` while playing."""

    status: Status
    reason: Reason | None = None
    rule: str | None = None
    #: Whether the player is still in the game (104.5: one who won, lost or drew has left).
    is_playing: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "is_playing", self.status is Status.PLAYING)

    def __str__(self) -> str:
        if self.reason is None:
            return self.status.value
        return f"{self.status.value} ({self.reason.value}, {self.rule})"


PLAYING = Result(Status.PLAYING)


@dataclass(frozen=True)
class Outcome:
    """Who won, lost or drew so far, and whether the game is over (104.1).

    ``results`` maps every player id to a :class:`Result`, ``team_results`` every team id.
    """

    over: bool
    game: int
    results: Mapping[str, Result]
    team_results: Mapping[str, Result]

    @property
    def winners(self) -> tuple[str, ...]:
        """The players who won, in seating order."""
        return tuple(p for p, r in self.results.items() if r.status is Status.WON)

    @property
    def is_draw(self) -> bool:
        """Whether the game ended as a draw for everyone still in it at the end (104.4)."""
        return (
            self.over
            and not self.winners
            and any(r.status is Status.DREW for r in self.results.values())
        )

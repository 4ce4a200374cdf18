"""Formats: the deck format or casual variant, which sets starting life and extra rules."""

from __future__ import annotations

from typing import ClassVar

from .errors import MalformedError, quote
from .seats import Seat
from .sentences import Sentence

__all__ = ["FORMATS", "Brawl", "Commander", "Format", "Normal", "Planechase", "Vanguard"]


class Format:
    """A normal game: every player starts at 20 life (119.1, 103.4)."""

    name: ClassVar[str] = "normal"
    #: The rule that sets the starting life total.
    life_rule: ClassVar[str] = "119.1"
    #: Whether players have commanders (903.3).
    has_commanders: ClassVar[bool] = False
    #: Whether 21 combat damage from one commander loses the game (704.6c).
    commander_damage_loses: ClassVar[bool] = False

    def starting_life(self, seat: Seat, players: int) -> int:
        """119.1: each player begins the game with a starting life total of 20."""
        return 20

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Normal(Format):
    """The default format (119.1)."""


class Planechase(Format):
    """901: Planechase changes nothing about life or the end of the game."""

    name = "planechase"


class Commander(Format):
    """903: starting life 40 (903.7); 21 combat damage from one commander loses (903.10a)."""

    name = "commander"
    life_rule = "903.7"
    has_commanders = True
    commander_damage_loses = True

    def starting_life(self, seat: Seat, players: int) -> int:
        """903.7: each player sets their life total to 40."""
        return 40


class Brawl(Commander):
    """903.12: Commander with 25 life for two players, 30 for more (903.12f); no 704.6c."""

    name = "brawl"
    life_rule = "903.12f"
    commander_damage_loses = False

    def starting_life(self, seat: Seat, players: int) -> int:
        """903.12f: 25 in a two-player Brawl game, 30 in a multiplayer one."""
        return 25 if players == 2 else 30


class Vanguard(Format):
    """902: starting life 20 plus the vanguard card's life modifier (902.4)."""

    name = "vanguard"
    life_rule = "902.4"

    def starting_life(self, seat: Seat, players: int) -> int:
        """902.4: 20 plus or minus the life modifier of the player's vanguard card."""
        return 20 + (seat.life_modifier or 0)


FORMATS: dict[str, type[Format]] = {
    cls.name: cls for cls in (Normal, Commander, Brawl, Vanguard, Planechase)
}


def find_format(name: str) -> Format:
    """The format called ``name``."""
    try:
        return FORMATS[name]()
    except KeyError:
        raise MalformedError(
            Sentence(
                "unknown format {name} (one of {names})", name=quote(name), names=", ".join(FORMATS)
            ),
            member="format",
        ) from None

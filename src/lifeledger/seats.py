"""A seat at the table: one player's entry in the record's header."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .bounds import check_integer
from .errors import MalformedError, quote
from .sentences import Grouped, Sentence

__all__ = ["ID_PATTERN", "Seat", "check_id", "check_text"]

ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_id(value: str, member: str) -> str:
    """An id is 1-64 letters, digits, ``_`` and ``-`` (the record's rule for player ids)."""
    if not ID_PATTERN.fullmatch(value):
        raise MalformedError(
            Sentence(
                "{value} is not an id (1-64 letters, digits, '_' and '-')", value=quote(value)
            ),
            member=member,
        )
    return value


def check_text(value: str, member: str) -> str:
    """``value`` if it is Unicode text: a lone surrogate (which JSON's ``\\ud800`` escapes can
    make) is no character, can't be written as UTF-8, and is malformed."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MalformedError(
            Sentence(
                "not Unicode text: a lone surrogate ({escape}) at character {n}",
                escape=f"\\u{ord(value[exc.start]):04x}",
                n=Grouped(exc.start + 1),
            ),
            member=member,
        ) from None
    return value


@dataclass(frozen=True, slots=True)
class Seat:
    """One player, as the header declares them, in seating order (clockwise).

    ``library`` is the number of cards in the library (``None``: not tracked, draws never run
    out); ``life_modifier`` is the Vanguard card's (902.4); ``commanders`` are the ids of this
    player's commander cards (903.3; a partner pair is two ids); ``archenemy`` (904.2a) and
    ``emperor`` (809.2) mark those roles; ``range`` is this player's range of influence (801.2a).
    """

    id: str
    name: str | None = None
    team: str | None = None
    library: int | None = None
    life_modifier: int | None = None
    commanders: tuple[str, ...] = ()
    archenemy: bool = False
    emperor: bool = False
    range: int | None = None

    def __post_init__(self) -> None:
        check_id(self.id, "id")
        if self.name is not None:
            check_text(self.name, "name")
        if self.team is not None:
            # The record restricts player ids only: a team's id is any text (``"North Team"``).
            if not self.team:
                raise MalformedError(Sentence("a team id is an empty string"), member="team")
            check_text(self.team, "team")
        for commander in self.commanders:
            if not commander:
                raise MalformedError(
                    Sentence("a commander id is an empty string"), member="commanders"
                )
            check_text(commander, "commanders")
        if len(set(self.commanders)) != len(self.commanders):
            raise MalformedError(Sentence("a commander is listed twice"), member="commanders")
        # Every integer of a record lies within 10^1000 (lifeledger.bounds).
        if self.library is not None:
            check_integer(self.library, "library")
            if self.library < 0:
                raise MalformedError(
                    Sentence("a library can't hold fewer than 0 cards"), member="library"
                )
        if self.life_modifier is not None:
            check_integer(self.life_modifier, "life_modifier")
        if self.range is not None:
            check_integer(self.range, "range")
            if self.range < 0:
                raise MalformedError(Sentence("a range of influence is 0 or more"), member="range")

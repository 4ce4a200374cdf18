"""Turns (500-514, 805) and the designations players and the game have (725, 726, 731,
702.131): what version 2 of the game record adds to a game's state.

:class:`Clock` is whose turn it is and which step; :class:`Designations` are the monarch, the
initiative, day and night and the city's blessing. The game changes both only through its
journal (validate, then mutate; an action that fails half-way is undone).
"""

from __future__ import annotations

__all__ = [
    "CLEANUP",
    "DAY_NIGHT",
    "DRAW",
    "END",
    "MAIN",
    "STEPS",
    "UNTIL",
    "UPKEEP",
    "Clock",
    "Designations",
]

#: The steps of a turn a record marks, in order (500.1): the upkeep (503) begins with the turn,
#: then the draw step (504), the precombat main phase (505; ``main`` stands for the stretch from
#: it through combat and the postcombat main phase), the end step (513) and cleanup (514).
STEPS = ("upkeep", "draw", "main", "end", "cleanup")
UPKEEP, DRAW, MAIN, END, CLEANUP = range(len(STEPS))

#: 731.1: the game's day/night designation, once it has one.
DAY_NIGHT = ("day", "night")

#: The durations an effect may state (611.2a); ``end_of_turn`` is "until end of turn" and
#: "this turn" alike, which end in the cleanup step (514.2).
UNTIL = ("end_of_turn",)


class Clock:
    """Whose turn it is: the turn's ``number`` in this game (0 before the first), the
    ``player`` the record named, the ``active`` players (805.4: with shared team turns, every
    member of the active team still in the game) and their ``team``, the ``step`` (an index of
    :data:`STEPS`), the spells each player cast this turn (for 502.2), and who must take the
    game's first turn, if the rules say, and the ``rule`` that says so (103.1b: the archenemy,
    904.6; 727.1a: a restart's controller)."""

    __slots__ = ("active", "number", "player", "rule", "spells", "starting", "step", "team")

    def __init__(self, starting: str | None = None, rule: str = "103.1b") -> None:
        self.number = 0
        self.player: str | None = None
        self.active: tuple[str, ...] = ()
        self.team: str | None = None
        self.step = UPKEEP
        self.spells: dict[str, int] = {}
        self.starting = starting
        self.rule = rule

    def copy(self) -> Clock:
        """An independent copy."""
        new = Clock(self.starting, self.rule)
        new.number, new.player, new.active = self.number, self.player, self.active
        new.team, new.step, new.spells = self.team, self.step, dict(self.spells)
        return new


class Designations:
    """725: the monarch; 726: who has the initiative; 731: day or night (``None``: neither,
    as the game starts); 702.131c: the players who have the city's blessing (any number);
    and the triggers that combat damage to the monarch or the player with the initiative set
    off, which resolve after state-based actions (725.2, 726.2), as ``(designation, new
    holder, the trigger's controller)``."""

    __slots__ = ("city_blessing", "day_night", "initiative", "monarch", "pending")

    def __init__(self) -> None:
        self.monarch: str | None = None
        self.initiative: str | None = None
        self.day_night: str | None = None
        self.city_blessing: frozenset[str] = frozenset()
        self.pending: list[tuple[str, str, str]] = []

    def copy(self) -> Designations:
        """An independent copy."""
        new = Designations()
        new.monarch, new.initiative = self.monarch, self.initiative
        new.day_night, new.city_blessing = self.day_night, self.city_blessing
        new.pending = list(self.pending)
        return new

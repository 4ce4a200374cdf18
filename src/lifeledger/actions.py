"""The actions of the game record, one dataclass each.

An action says what happened; :meth:`lifeledger.Game.apply` decides, by the rules, what it does.
Actions are values: the game never changes one, and neither should their users. (They are not
frozen dataclasses only because a frozen dataclass takes four times as long to build, and a
replay builds one per line.)
Every action may name its ``source`` (a free string for the object that causes it) and carry a
``note`` (free text, kept, ignored by the rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import gcd
from typing import ClassVar

from .bounds import MAX_INTEGER, check_integer
from .effects import Affects, Kind, Reach
from .errors import MalformedError, quote
from .sentences import Sentence
from .turns import DAY_NIGHT, STEPS, UNTIL

__all__ = [
    "Action",
    "AddCounters",
    "Amount",
    "BecomeMonarch",
    "BeginStep",
    "Cast",
    "Choose",
    "CityBlessing",
    "Concede",
    "Damage",
    "DayNight",
    "Draw",
    "DrawGame",
    "End",
    "ExchangeLife",
    "GainLife",
    "IntentionalDraw",
    "LifeOf",
    "Loop",
    "Lose",
    "LoseLife",
    "PayLife",
    "Penalty",
    "PlayerAction",
    "RedistributeLife",
    "RemoveCounters",
    "Repeat",
    "Restart",
    "SetLibrary",
    "SetLife",
    "SetLifeEach",
    "StartCard",
    "StartEffect",
    "TakeInitiative",
    "Together",
    "Turn",
    "Upkeep",
    "Win",
]


@dataclass(slots=True)
class LifeOf:
    """An amount computed from a life total as the rules read it (810.9a: the team's in
    Two-Headed Giant): ``fraction`` of it, rounded ``"up"`` or ``"down"`` where it isn't whole
    (107.1a). Used as an amount, a result below zero counts as zero (107.1b)."""

    player: str
    fraction: tuple[int, int] = (1, 1)
    round: str | None = None

    def __post_init__(self) -> None:
        numerator, denominator = self.fraction
        # Both within 10^1000 (lifeledger.bounds), checked before any arithmetic on them.
        check_integer(numerator, "fraction", Sentence("a fraction's numerator"))
        check_integer(denominator, "fraction", Sentence("a fraction's denominator"))
        if numerator < 0 or denominator <= 0:
            raise MalformedError(
                Sentence(
                    "a fraction is [numerator, denominator] with numerator >= 0 and denominator > 0"
                ),
                member="fraction",
            )
        if self.round not in (None, "up", "down"):
            raise MalformedError(Sentence('round is "up" or "down"'), member="round")
        if self.round is None and denominator // gcd(numerator, denominator) != 1:
            raise MalformedError(
                Sentence("a fraction that may not be whole says how to round it (107.1a)"),
                member="round",
            )

    def of(self, life: int) -> int:
        """This expression's value for a life total of ``life``."""
        numerator, denominator = self.fraction
        value = life * numerator
        if self.round == "up":
            return -(-value // denominator)
        return value // denominator


Amount = int | LifeOf


@dataclass(slots=True)
class Action:
    """The base of all actions: the record's ``do`` and the members every action may have."""

    do: ClassVar[str] = ""
    source: str | None = field(default=None, kw_only=True)
    note: str | None = field(default=None, kw_only=True)

    def players(self) -> tuple[tuple[str, str], ...]:
        """Every player this action names, as ``(member, player id)``."""
        return ()


@dataclass(slots=True)
class PlayerAction(Action):
    """An action about one ``player``."""

    player: str

    def players(self) -> tuple[tuple[str, str], ...]:
        """The player the action is about."""
        return (("player", self.player),)


@dataclass(slots=True)
class LoseLife(PlayerAction):
    """``player`` loses ``amount`` life (119.3)."""

    do = "lose_life"
    amount: Amount


@dataclass(slots=True)
class GainLife(PlayerAction):
    """``player`` gains ``amount`` life (119.3)."""

    do = "gain_life"
    amount: Amount


@dataclass(slots=True)
class SetLife(PlayerAction):
    """``player``'s life total becomes ``to`` (119.5, 810.9c)."""

    do = "set_life"
    to: Amount


@dataclass(slots=True)
class AddCounters(PlayerAction):
    """``player`` gets ``amount`` counters of ``kind`` (122; poison: 122.1f, 810.10)."""

    do = "add_counters"
    kind: str
    amount: Amount


@dataclass(slots=True)
class RemoveCounters(PlayerAction):
    """``player`` loses ``amount`` counters of ``kind``; a count never goes below 0 (810.10b)."""

    do = "remove_counters"
    kind: str
    amount: Amount


@dataclass(slots=True)
class Draw(PlayerAction):
    """``player`` draws ``count`` cards (121); from an empty library, 104.3c and 704.5b."""

    do = "draw"
    count: int = 1


@dataclass(slots=True)
class Concede(PlayerAction):
    """``player`` concedes (104.3a; 810.8b: in Two-Headed Giant, with their team)."""

    do = "concede"


@dataclass(slots=True)
class Win(PlayerAction):
    """An effect says ``player`` wins the game (104.2b; 801.14 under limited range)."""

    do = "win"


@dataclass(slots=True)
class Penalty(PlayerAction):
    """A judge gives ``player`` a game loss (104.3k)."""

    do = "penalty"


@dataclass(slots=True)
class Upkeep(PlayerAction):
    """``player``'s upkeep begins (503; with shared team turns, the team's: 805); a new turn
    has begun, so ranges of influence are determined anew (801.2c)."""

    do = "upkeep"


@dataclass(slots=True)
class Damage(Action):
    """``source`` deals ``amount`` damage to the player ``to`` (120.3). With ``lifelink``,
    ``controller`` gains that much life (120.3f); ``toxic`` is the creature's total toxic value
    (120.3g, combat damage only)."""

    do = "damage"
    to: str
    amount: Amount
    combat: bool = False
    infect: bool = False
    lifelink: bool = False
    controller: str | None = None
    toxic: int = 0

    def __post_init__(self) -> None:
        if self.lifelink and self.controller is None:
            raise MalformedError(
                Sentence("lifelink needs the source's controller"), member="controller"
            )
        if self.toxic:
            if not 0 <= self.toxic <= MAX_INTEGER:
                check_integer(self.toxic, "toxic")
                raise MalformedError(Sentence("toxic is 0 or more"), member="toxic")
            if not self.combat:
                raise MalformedError(
                    Sentence("toxic works through combat damage only (120.3g)"), member="toxic"
                )

    def players(self) -> tuple[tuple[str, str], ...]:
        """The player dealt damage, and the lifelink controller."""
        if self.controller is None:
            return (("to", self.to),)
        return (("to", self.to), ("controller", self.controller))


@dataclass(slots=True)
class PayLife(Action):
    """Players pay life (119.4); several teammates may pay at once (119.4a, 810.9b).

    ``payments`` holds ``(player, amount)`` pairs; ``single`` says the record named one
    ``player`` and ``amount`` rather than ``payments``."""

    do = "pay_life"
    payments: tuple[tuple[str, Amount], ...]
    single: bool = True

    def players(self) -> tuple[tuple[str, str], ...]:
        """The players paying."""
        member = "player" if self.single else "payments"
        return tuple((member, player) for player, _ in self.payments)


@dataclass(slots=True)
class SetLifeEach(Action):
    """Each listed player's life total becomes their number, in one event (119.5). With shared
    life totals only the ``chosen`` member of each team is affected (810.9d)."""

    do = "set_life"
    each: tuple[tuple[str, Amount], ...]
    chosen: tuple[tuple[str, str], ...] = ()

    def players(self) -> tuple[tuple[str, str], ...]:
        """The players named in ``each`` and ``chosen``."""
        each = tuple(("each", player) for player, _ in self.each)
        return each + tuple(("chosen", player) for _, player in self.chosen)


@dataclass(slots=True)
class ExchangeLife(Action):
    """Two players exchange life totals: all or nothing (119.7, 119.8, 810.9e, 701.12c)."""

    do = "exchange_life"
    a: str
    b: str

    def __post_init__(self) -> None:
        if self.a == self.b:
            raise MalformedError(
                Sentence("a player can't exchange life with themselves"), member="players"
            )

    def players(self) -> tuple[tuple[str, str], ...]:
        """The two players."""
        return (("players", self.a), ("players", self.b))


@dataclass(slots=True)
class RedistributeLife(Action):
    """The players' current life totals are rearranged among them (119.7, 119.8, 810.9f)."""

    do = "redistribute_life"
    totals: tuple[tuple[str, int], ...]
    controller: str | None = None

    def players(self) -> tuple[tuple[str, str], ...]:
        """The players whose totals are redistributed, and the controller."""
        named = tuple(("totals", player) for player, _ in self.totals)
        return named if self.controller is None else (*named, ("controller", self.controller))


@dataclass(slots=True)
class Lose(Action):
    """An effect says these players lose the game (104.3e). ``single`` says the record named
    one ``player`` rather than ``players``."""

    do = "lose"
    losers: tuple[str, ...]
    single: bool = True

    def players(self) -> tuple[tuple[str, str], ...]:
        """The players the effect names."""
        member = "player" if self.single else "players"
        return tuple((member, player) for player in self.losers)


@dataclass(slots=True)
class DrawGame(Action):
    """An effect says the game is a draw (104.4c; 801.15 under limited range)."""

    do = "draw_game"
    controller: str | None = None

    def players(self) -> tuple[tuple[str, str], ...]:
        """The effect's controller."""
        return () if self.controller is None else (("controller", self.controller),)


@dataclass(slots=True)
class Loop(Action):
    """The game is in a loop of mandatory actions (104.4b; 801.16 under limited range);
    ``controllers`` control the objects involved."""

    do = "loop"
    controllers: tuple[str, ...] = ()

    def players(self) -> tuple[tuple[str, str], ...]:
        """The controllers of the objects in the loop."""
        return tuple(("controllers", player) for player in self.controllers)


@dataclass(slots=True)
class IntentionalDraw(Action):
    """The players agree to an intentional draw (104.4i)."""

    do = "intentional_draw"


@dataclass(slots=True)
class Restart(Action):
    """The game restarts (104.6, 727; Karn Liberated)."""

    do = "restart"
    controller: str | None = None

    def players(self) -> tuple[tuple[str, str], ...]:
        """The controller of the effect that restarts the game."""
        return () if self.controller is None else (("controller", self.controller),)


@dataclass(slots=True)
class StartEffect(Action):
    """A continuous effect begins (611-616): ``kind`` from :class:`lifeledger.effects.Kind`,
    controlled by ``controller``, affecting ``affects`` (a :class:`Reach` or player ids)."""

    do = "effect"
    id: str
    kind: Kind
    controller: str
    affects: Affects = Reach.YOU
    factor: int | None = None
    life_at_least: int | None = None
    #: Version 2: how long the effect lasts (611.2a): ``"end_of_turn"`` ("until end of turn",
    #: "this turn": it ends in the cleanup step, 514.2); ``None``: until it is ended.
    until: str | None = None

    def __post_init__(self) -> None:
        if self.until is not None and self.until not in UNTIL:
            raise MalformedError(
                Sentence(
                    "until is {values}, not {value}",
                    values=" or ".join(map(repr, UNTIL)),
                    value=quote(self.until),
                ),
                member="until",
            )
        wants_factor = self.kind is Kind.GAIN_LIFE_TIMES
        wants_life = self.kind is Kind.WIN_AT_UPKEEP
        if wants_factor != (self.factor is not None):
            raise MalformedError(
                Sentence("factor is needed for {kind}", kind=self.kind.value)
                if wants_factor
                else Sentence("factor is not a member for {kind}", kind=self.kind.value),
                member="factor",
            )
        if self.factor is not None:
            check_integer(self.factor, "factor")
            if self.factor < 1:
                raise MalformedError(
                    Sentence("factor is a whole number of 1 or more"), member="factor"
                )
        if wants_life != (self.life_at_least is not None):
            raise MalformedError(
                Sentence("life_at_least is needed for {kind}", kind=self.kind.value)
                if wants_life
                else Sentence("life_at_least is not a member for {kind}", kind=self.kind.value),
                member="life_at_least",
            )
        if self.life_at_least is not None:
            check_integer(self.life_at_least, "life_at_least")
            if self.life_at_least < 0:
                raise MalformedError(Sentence("life_at_least is 0 or more"), member="life_at_least")

    def players(self) -> tuple[tuple[str, str], ...]:
        """The controller and the players listed in ``affects``."""
        affected = self.affects if isinstance(self.affects, tuple) else ()
        return (("controller", self.controller), *(("affects", p) for p in affected))


@dataclass(slots=True)
class StartCard(Action):
    """A card from the catalogue starts to apply: its permanent entered the battlefield."""

    do = "card"
    id: str
    name: str
    controller: str

    def players(self) -> tuple[tuple[str, str], ...]:
        """The card's controller."""
        return (("controller", self.controller),)


@dataclass(slots=True)
class End(Action):
    """The effect or card with this ``id`` stops applying (the permanent left)."""

    do = "end"
    id: str


@dataclass(slots=True)
class Together(Action):
    """Actions that form one event or one resolution: state-based actions are checked once,
    after all of them (704.3); the wins and losses they state happen as the group ends."""

    do = "together"
    actions: tuple[Action, ...]


# -- version 2: turns and designations ---------------------------------------------------------


@dataclass(slots=True)
class Turn(PlayerAction):
    """``player``'s turn begins (500.1; with shared team turns, their team's: 805.4, 810.2,
    904.2): the turn before it ends (its remaining steps happen), ranges of influence are
    determined again (801.2c), the untap step checks day and night (502.2, 731.2), and the
    upkeep begins (503). Version 2."""

    do = "turn"


@dataclass(slots=True)
class BeginStep(Action):
    """The active player's (team's) ``step`` begins: ``"draw"`` (504, 103.8), ``"main"`` (the
    precombat main phase: 505, 728), ``"end"`` (513, 725.2) or ``"cleanup"`` (514). The steps
    between the current one and it happen first. ``nonland_milled`` states, for each active
    player with rad counters, how many nonland cards their rad counters milled (728.1).
    Version 2."""

    do = "step"
    step: str
    nonland_milled: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        if self.step not in STEPS[1:]:
            raise MalformedError(
                Sentence(
                    "step is one of {steps} (the upkeep begins with the turn), not {value}",
                    steps=", ".join(STEPS[1:]),
                    value=quote(self.step),
                ),
                member="step",
            )
        for _, count in self.nonland_milled:
            if not 0 <= count <= MAX_INTEGER:
                check_integer(count, "nonland_milled")
                raise MalformedError(
                    Sentence("a count of cards is 0 or more"), member="nonland_milled"
                )

    def players(self) -> tuple[tuple[str, str], ...]:
        """The players named in ``nonland_milled``."""
        return tuple(("nonland_milled", player) for player, _ in self.nonland_milled)


@dataclass(slots=True)
class Cast(PlayerAction):
    """``player`` casts ``count`` spells this turn (counted for day and night: 502.2, 731.2).
    Version 2."""

    do = "cast"
    count: int = 1


@dataclass(slots=True)
class BecomeMonarch(PlayerAction):
    """An effect makes ``player`` the monarch (725.1, 725.3). Version 2."""

    do = "become_monarch"


@dataclass(slots=True)
class TakeInitiative(PlayerAction):
    """``player`` takes the initiative (726.1, 726.3, 726.5). Version 2."""

    do = "take_initiative"


@dataclass(slots=True)
class CityBlessing(PlayerAction):
    """``player`` gets the city's blessing for the rest of the game (702.131a-c). Version 2."""

    do = "city_blessing"


@dataclass(slots=True)
class DayNight(Action):
    """It becomes day or night (``to``: ``"day"`` or ``"night"``; 731.1, 731.1a). Version 2."""

    do = "day_night"
    to: str

    def __post_init__(self) -> None:
        if self.to not in DAY_NIGHT:
            raise MalformedError(
                Sentence('to is "day" or "night" (731.1), not {value}', value=quote(self.to)),
                member="to",
            )


@dataclass(slots=True)
class Choose(PlayerAction):
    """The choices ``player`` makes for their triggered abilities from now on (until they
    state them again): ``order``, the ids of their effects and cards in the order they put
    their simultaneous triggered abilities on the stack (603.3b: the last one listed
    resolves first), and ``targets``, for an ability that targets ("target opponent"), the
    players it targets, by preference: the first legal one (601.2c, 603.3d); and
    ``replacements``, the ids of replacement effects in the order the player applies them to
    an event that affects them (616.1; those stated before keep their order after these).
    Version 2."""

    do = "choose"
    order: tuple[str, ...] = ()
    targets: tuple[tuple[str, tuple[str, ...]], ...] = ()
    replacements: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for member in ("order", "replacements"):
            ids = getattr(self, member)
            if len(set(ids)) != len(ids):
                raise MalformedError(
                    Sentence("{member} lists an id twice", member=member), member=member
                )
        for _, players in self.targets:
            if not players:
                raise MalformedError(
                    Sentence("a target names at least one player"), member="targets"
                )


@dataclass(slots=True)
class SetLibrary(PlayerAction):
    """The record states how many cards are in ``player``'s library from now on (``count``, 0
    or more): a library the record didn't track becomes tracked; with 0, the player's next
    draw is an attempt to draw from an empty library (121.4, 704.5b). No life changes and no
    card is drawn. Version 2."""

    do = "set_library"
    count: int = 0

    def __post_init__(self) -> None:
        count = self.count
        if type(count) is not int or not 0 <= count <= MAX_INTEGER:
            if type(count) is int:
                check_integer(count, "count", Sentence("a count of cards"))
            raise MalformedError(
                Sentence(
                    "a library's count of cards is an integer, 0 or more, not {value}",
                    value=quote(count),
                ),
                member="count",
            )


#: The most iterations a :class:`Repeat` may state: any finite number (732.2a) within the
#: record's bound on integers (a shortcut's cost doesn't grow with it: ``shortcuts.py``).
MAX_REPEAT = MAX_INTEGER


@dataclass(slots=True)
class Repeat(Action):
    """A shortcut (732.2a): an optional loop, ``actions`` in order (each an event, with
    priority after it: 117.5), ``times`` times. Version 2."""

    do = "repeat"
    times: int
    actions: tuple[Action, ...]

    def __post_init__(self) -> None:
        if not 1 <= self.times <= MAX_REPEAT:
            check_integer(self.times, "times")
            raise MalformedError(
                Sentence(
                    "a shortcut repeats 1 to {most} times (732.2a), not {value}",
                    most="10^1000",
                    value=quote(self.times),
                ),
                member="times",
            )
        if not self.actions:
            raise MalformedError(
                Sentence("a shortcut repeats at least one action"), member="actions"
            )

    def players(self) -> tuple[tuple[str, str], ...]:
        """The players its actions name."""
        return tuple(pair for a in self.actions for pair in a.players())


#: The actions that version 2 of the record adds.
VERSION_2 = frozenset(
    {
        Turn,
        BeginStep,
        Cast,
        BecomeMonarch,
        TakeInitiative,
        CityBlessing,
        DayNight,
        Choose,
        Repeat,
        SetLibrary,
    }
)

"""Version 2 of the record: triggered abilities of the card catalogue on a stack (405, 603).

A :class:`Trigger` is one triggered ability that has triggered (603.2) and waits to be put on
the stack the next time a player would receive priority (117.5, 603.3), then on the stack until
it resolves (608.2). :class:`Stack` holds those waiting, the stack itself, and the choices the
record states for each player (:class:`lifeledger.actions.Choose`): the order in which they put
their simultaneous triggered abilities on the stack (603.3b) and their targets (603.3d).
"""

from __future__ import annotations

from dataclasses import dataclass

from .effects import Kind
from .errors import CHOICE_RULES
from .sentences import Id, Sentence

__all__ = ["MAX_HEIGHT", "MAX_RESOLUTIONS", "OpenChoice", "Stack", "Trigger"]

#: How many resolutions one action may cause before the engine gives up on it (a loop that
#: neither ends nor repeats in a way the engine can prove: ``docs/record-format.md``).
MAX_RESOLUTIONS = 20_000
#: How high the stack may grow in one action before the engine gives up on it the same way:
#: a stack that keeps growing is no loop the engine can prove, and each resolution's loop
#: check reads the whole stack (so the work is bounded by this times ``MAX_RESOLUTIONS``).
MAX_HEIGHT = 1_000

#: The kinds whose triggers are no life event (a state trigger, 603.8; an upkeep's, 503.1;
#: the last omen counter's): their ``amount`` is always 1 and never read.
NO_AMOUNT = frozenset({Kind.LOSE_AT_20_LIFE, Kind.OMEN_COUNTDOWN, Kind.LAST_OMEN})


@dataclass(slots=True)
class Trigger:
    """One triggered ability: the effect (card) ``id`` it comes from, its ``controller`` and
    ``kind``, the ``amount`` of life of its trigger event ("that much life"), the player whose
    life changed (``subject``) and, once on the stack, its ``target``."""

    id: str
    controller: str
    kind: Kind
    amount: int
    subject: str
    target: str | None = None

    def shape(self) -> tuple[str, str, Kind, str | None]:
        """What the trigger is, without its amount (for the loop detection)."""
        return (self.id, self.controller, self.kind, self.target)

    @property
    def sentence(self) -> Sentence:
        """The trigger as notes name it: ``pridemate-1 (ana's, 3) targeting bo``."""
        player = Id(self.controller)
        if self.kind in NO_AMOUNT:  # no life event: its amount means nothing
            return Sentence("{id} ({player}'s)", id=Id(self.id), player=player)
        if self.target is None:
            return Sentence("{id} ({player}'s, {n})", id=Id(self.id), player=player, n=self.amount)
        return Sentence(
            "{id} ({player}'s, {n}) targeting {target}",
            id=Id(self.id),
            player=player,
            n=self.amount,
            target=Id(self.target),
        )

    def __str__(self) -> str:
        return self.sentence


@dataclass(frozen=True, slots=True)
class OpenChoice:
    """A choice the rules give ``player`` that the record hasn't stated yet
    (:meth:`lifeledger.Game.open_choices`): ``choice`` is ``"targets"`` (603.3d: ``ids`` is
    the one effect whose ability targets, ``options`` its legal targets), ``"order"`` (603.3b:
    ``ids`` are the effects whose abilities can be put on the stack at once, and ``options``
    the same ids, to be ordered) or ``"replacements"`` (616.1: the replacement effects that
    would apply to an event that affects the player, their gain of life or their loss of the
    game, to be ordered)."""

    player: str
    choice: str
    ids: tuple[str, ...]
    options: tuple[str, ...]

    @property
    def rule(self) -> str:
        """The rule that gives the player the choice."""
        return CHOICE_RULES[self.choice]


class Stack:
    """The triggers waiting to be put on the stack (``pending``), the stack (``items``, the
    top last), the life events triggers of one event add up in (``merge``: 603.2c, 119.10,
    702.15e), and the choices each player stated: ``order[player]`` (603.3b: the order in
    which they put their triggered abilities on the stack, by id) and ``targets[id]`` (the
    players, by preference, its ability targets), and ``replacements[player]`` (616.1); and
    the omen counters of Celestial Convergence (``omens[id]``, 122.1: the state shows those
    of the cards still in the game, :attr:`lifeledger.Game.omen_counters`)."""

    __slots__ = (
        "items",
        "merge",
        "omens",
        "order",
        "pending",
        "replacements",
        "resolved",
        "targets",
    )

    def __init__(self) -> None:
        self.pending: list[Trigger] = []
        self.items: list[Trigger] = []
        self.merge: dict[tuple[str, ...], list[Trigger]] = {}
        self.order: dict[str, tuple[str, ...]] = {}
        self.targets: dict[str, tuple[str, ...]] = {}
        #: 616.1: the order in which a player applies the replacement effects to their
        #: gains of life (ids), where it matters (Tainted Remedy and a life doubler).
        self.replacements: dict[str, tuple[str, ...]] = {}
        #: 122.1: the omen counters on each Celestial Convergence (by id) in the game.
        self.omens: dict[str, int] = {}
        #: How many abilities resolved in the action being applied (a ``repeat``'s iterations
        #: together): bounded by :data:`MAX_RESOLUTIONS`.
        self.resolved = 0

    def copy(self) -> Stack:
        """An independent copy, in time linear in what the stack holds: each trigger is
        copied once, and ``merge`` lists the copies of the triggers it listed."""
        copies: dict[int, Trigger] = {}

        def trigger(t: Trigger) -> Trigger:
            copied = copies.get(id(t))
            if copied is None:
                copied = copies[id(t)] = Trigger(
                    t.id, t.controller, t.kind, t.amount, t.subject, t.target
                )
            return copied

        new = Stack()
        new.pending = [trigger(t) for t in self.pending]
        new.items = [trigger(t) for t in self.items]
        new.merge = {key: [trigger(t) for t in ts] for key, ts in self.merge.items()}
        new.order = dict(self.order)
        new.targets = dict(self.targets)
        new.replacements = dict(self.replacements)
        new.omens = dict(self.omens)
        new.resolved = self.resolved
        return new

"""The rules engine's shared core: its constants, :class:`Note` and :class:`Touched`, and
:class:`GameBase`, the attributes and helpers every rule area of the game uses."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .actions import Action, Amount, Damage, Draw, DrawGame, LifeOf, Loop, Lose, Together, Win
from .bounds import MAX_INTEGER, check_integer
from .budget import Budget
from .effects import TEAM_WIDE, Effect, Kind, Reach
from .errors import MalformedError, RefusedError, quote
from .formats import Format
from .outcome import Reason, Result, Status
from .roster import Player, Team, Total, copy_roster
from .seats import Seat
from .sentences import Arg, Id, Sentence
from .stack import OpenChoice, Stack
from .turns import Clock, Designations
from .variants import Variant

POISON = "poison"
#: 122: a counter kind is a lowercase word (``poison``, ``energy``, ``experience``, ``rad``, ...).
COUNTER_KIND = re.compile(r"[a-z]+(?:[_-][a-z0-9]+)*")
#: The longest counter kind: a word (``experience``), not a text of any length.
COUNTER_KIND_LENGTH = 64
#: 903.10a: 21 or more combat damage from the same commander.
COMMANDER_DAMAGE_THRESHOLD = 21
#: The versions of the game record a game can be written in.
RECORD_VERSIONS = (1, 2)

_MAY_STILL_WIN = (Status.PLAYING, Status.LOST)
_NOBODY: set[Player] = set()


#: Version 2: the kinds that trigger on a gain of life, and on a loss of life (119.9).
_ON_GAIN = (Kind.GAIN_DRAINS_TARGET, Kind.GAIN_DRAINS_EACH)
_ON_LOSS = (Kind.OPPONENT_LOSS_GAINS, Kind.LOSS_GAINS_TWICE)
_LOST_LIFE = Result(Status.LOST, Reason.LIFE, "704.5a")
_LOST_EMPTY_LIBRARY = Result(Status.LOST, Reason.EMPTY_LIBRARY, "704.5b")
_LOST_POISON = Result(Status.LOST, Reason.POISON, "704.5c")
_LOST_TEAM_POISON = Result(Status.LOST, Reason.TEAM_POISON, "704.6b")
_LOST_COMMANDER_DAMAGE = Result(Status.LOST, Reason.COMMANDER_DAMAGE, "704.6c")
#: 614.1a: the losses "if you would lose the game, instead ..." (Lich's Mirror) replaces: the
#: state-based ones (104.3b-d, 104.3j: 704.5a-c, 704.6a-c) and an effect's (104.3e; 104.3h and
#: 801.14, an opponent's win under the limited range of influence option). Not a concession
#: (104.3a, 810.8b: the player leaves at once), a judge's game loss (104.3k: a tournament
#: penalty, 100.6, outside the game) or an opponent's win (104.2b: the game ends, 104.1).
_REPLACEABLE_LOSSES = frozenset(
    {
        Reason.LIFE,
        Reason.TEAM_LIFE,
        Reason.POISON,
        Reason.TEAM_POISON,
        Reason.EMPTY_LIBRARY,
        Reason.COMMANDER_DAMAGE,
        Reason.EFFECT,
    }
)

#: The least integer a total may hold (made once: negating 10^1000 makes a new integer of
#: 3,322 bits, and every change of a total compares with it).
_MIN_INTEGER = -MAX_INTEGER

#: A count and an amount, as an error about one beyond 10^1000 names them (made once: the
#: counts and amounts of a game almost never need them).
_A_COUNT = Sentence("a count")
_THE_AMOUNT = Sentence("the amount")
#: The words of a counter's kind a player may have (122.1), translated; any other kind is
#: written as the record names it (:func:`counter_kind`).
COUNTER_WORDS: dict[str, Sentence] = {
    "poison": Sentence("poison"),
    "energy": Sentence("energy"),
    "experience": Sentence("experience"),
    "rad": Sentence("rad"),
    "ticket": Sentence("ticket"),
}


def counter_kind(kind: str) -> Arg:
    """A counter's kind, in words: ``poison`` (translated), or the record's word."""
    return COUNTER_WORDS.get(kind, kind)


@dataclass(frozen=True, slots=True)
class Note:
    """One consequence of an action, with the rule that caused it (for timelines and apps).
    ``text`` is a :class:`~lifeledger.sentences.Sentence`: its English words, translatable."""

    rule: str
    text: str


@dataclass(frozen=True, slots=True)
class Touched:
    """What the last action applied may have changed (:attr:`Game.touched`): the ``players``
    and ``teams`` (by id) whose entries in the state may differ, whether the set of continuous
    effects may differ (``effects``), and ``everything`` where all of it may (a restart). A
    player or team left out is exactly as it was; one named may be unchanged all the same.
    A shared total (810.9a) is the team's and each of its heads': a change to it names the
    team and every member who shares it."""

    players: frozenset[str] = frozenset()
    teams: frozenset[str] = frozenset()
    effects: bool = False
    everything: bool = False


_UNTOUCHED = Touched()
#: The marks of :attr:`Game.touched` for "the effects" and "everything" (a restart), beside
#: the ids of teams in 1-tuples.
_EFFECTS = 0
_EVERYTHING = 1


@dataclass(slots=True)
class _Event:
    """What one top-level action states, settled as it ends (104.1, 104.3f, 704.3)."""

    frozen_life: dict[str, int] | None = None
    wins: list[str] = field(default_factory=list)
    losses: dict[str, Result] = field(default_factory=dict)
    draws: list[tuple[frozenset[str] | None, Result]] = field(default_factory=list)
    lifelink: set[tuple[str, str]] = field(default_factory=set)


class GameBase:
    """What every rule area of :class:`lifeledger.game.Game` shares: the game's attributes
    (set in ``Game.__init__``) and the helpers that change totals within bounds and undoably.
    The rule areas are mixins on it (:mod:`lifeledger.life`, :mod:`lifeledger.ending`, ...),
    composed by ``Game``; a mixin never imports another, nor the game."""

    _v2: bool
    seats: tuple[Seat, ...]
    variant: Variant
    format: Format
    starting_life: int | None
    range_of_influence: int | None
    history: list[Action] | None
    notes: list[Note]
    refusals: list[tuple[str, RefusedError]]
    game_number: int
    triggered: dict[str, int]
    _players: dict[str, Player]
    _teams: dict[str, Team]
    _commander_owner: dict[str, str]
    _budget: Budget
    _ranges: dict[str, int | None]
    _limited: bool
    _effects: dict[str, list[Effect]]
    _by_kind: dict[Kind, list[Effect]]
    _known_ids: set[str]
    _event: _Event | None
    _journal: list[tuple[Any, Any, Any]]
    _dirty: set[Player] | None
    _in_range: dict[str, frozenset[str]]
    _over: bool
    _touched: set[str]
    _touched_other: set[object]
    _clock: Clock
    _marks: Designations
    _stack: Stack

    def _shares_life(self, p: Player) -> bool:
        return p.team is not None and self._teams[p.team].shares_life

    def _life_group(self, p: Player) -> Sequence[Player]:
        """``p``'s team if it shares its life total (810.8a: a member's loss is the team's),
        in seating order; else ``p`` alone."""
        return self._teams[p.team].members if p.team and self._shares_life(p) else [p]

    def _by_primary(self, team_id: str) -> list[Player]:
        """805.2: team ``team_id``'s members from its primary player, "the player seated in the
        rightmost seat from that team's perspective", leftward (clockwise). The header lists
        the seats clockwise, so the next seat is on a player's left (101.4): the primary player
        is the member whose seat before them (wrapping around the list) is not the team's, the
        first member listed unless the team wraps around the end of the list. With no such
        member (a team not seated together, where 805.2 doesn't apply), the first listed."""
        members = self._teams[team_id].members
        seats = len(self._players)
        ids = {m.index for m in members}
        start = next((i for i, m in enumerate(members) if (m.index - 1) % seats not in ids), 0)
        return members[start:] + members[:start]

    def _chooser(self, group: Sequence[Player]) -> Player:
        """Who makes the choice of ``group`` (a player, or a team that shares its life total:
        :meth:`_life_group`): the player alone, or the team's primary player still in the game
        (805.2: the primary player decides a choice the team can't agree on)."""
        first = group[0]
        if len(group) == 1 or first.team is None:
            return first
        return next(m for m in self._by_primary(first.team) if m.result.is_playing)

    def _shares_poison(self, p: Player) -> bool:
        return p.team is not None and self._teams[p.team].shares_poison

    def _touch(self, p: Player) -> None:
        """Mark ``p`` (and whoever shares a total with them) for the next state-based check."""
        dirty = self._dirty
        if dirty is None:
            return
        team = None if p.team is None else self._teams[p.team]
        if team is not None and (team.shares_life or team.shares_poison):
            dirty.update(team.members)
        else:
            dirty.add(p)

    # -- helpers ----------------------------------------------------------------------------

    def _get(self, player_id: str, member: str) -> Player:
        try:
            return self._players[player_id]
        except KeyError:
            raise MalformedError(
                Sentence("unknown player {value}", value=quote(player_id)), member=member
            ) from None

    def _note(self, rule: str, text: str) -> None:
        self.notes.append(Note(rule, text))
        budget = self._budget  # a note is a step (and memory): _spend, inline
        budget.left -= 1
        if budget.left < budget.next_look:
            budget.look()

    def _spend(self, steps: int) -> None:
        """The action being applied does ``steps`` steps of work (:mod:`lifeledger.budget`);
        past its budget, :class:`TooMuchWork` (and nothing of the action happens)."""
        budget = self._budget
        budget.left -= steps
        if budget.left < budget.next_look:
            budget.look()

    def _present(self) -> list[Player]:
        return [p for p in self._players.values() if p.result.is_playing]

    def _affected(self, effect: Effect) -> Iterable[str]:
        """611-616: whom an effect affects; 801.10: only players within its controller's
        range of influence."""
        affects = effect.affects
        controller = self._players[effect.controller]
        ids: Iterable[str]
        if affects is Reach.YOU:
            ids = (controller.id,)
        elif affects is Reach.PLAYERS:
            ids = [p.id for p in self._present()]
        elif affects is Reach.OPPONENTS:
            ids = [
                p.id
                for p in self._present()
                if p is not controller and (p.team is None or p.team != controller.team)
            ]
        else:
            assert isinstance(affects, tuple)
            ids = affects
        if self._limited:
            reach = self._in_range.get(controller.id, frozenset({controller.id}))
            ids = [i for i in ids if i in reach]
        return ids

    def _effects_reaching(self, kind: Kind, p: Player) -> Iterator[Effect]:
        """The effects of ``kind`` that reach ``p``: in Two-Headed Giant, the "can't" kinds
        that reach a player reach the whole team (810.8a, 810.9g, 810.9h, 810.10c)."""
        effects = self._by_kind.get(kind) if self._effects else None
        if not effects:
            return
        team_wide = (
            kind in TEAM_WIDE
            and p.team is not None
            and (
                self._teams[p.team].shares_poison
                if kind is Kind.CANT_GET_POISON
                else self._teams[p.team].shares_life
            )
        )
        mates = {m.id for m in self._teams[p.team].members} if team_wide and p.team else {p.id}
        self._spend(len(effects))
        for effect in effects:
            if not mates.isdisjoint(self._affected(effect)):
                yield effect

    def _reaches(self, kind: Kind, p: Player) -> bool:
        if not self._effects or not self._by_kind.get(kind):
            return False
        return next(self._effects_reaching(kind, p), None) is not None

    def _life_as_event_began(self, p: Player) -> int:
        """The player's life total as the current event began: the parts of one event happen
        at once (120.4, 704.3), so each reads the totals from before any of them."""
        event = self._event
        if event is not None and event.frozen_life is not None:
            return event.frozen_life[p.id]
        return p.life.value

    def _amount(self, value: Amount, member: str, *, clamp: bool = True) -> int:
        """The value of an amount; 107.1b: a computed amount below zero counts as zero. Like
        every integer of a record, it lies within 10^1000 (else the action is malformed)."""
        if type(value) is int and 0 <= value <= MAX_INTEGER:
            return value  # the usual amount: a whole number within the bound
        if isinstance(value, LifeOf):
            result = value.of(self._life_as_event_began(self._get(value.player, member)))
            check_integer(result, member, _THE_AMOUNT)
            return max(result, 0) if clamp else result
        if isinstance(value, bool) or not isinstance(value, int):
            raise MalformedError(
                Sentence("{type} is not an amount", type=type(value).__name__), member=member
            )
        check_integer(value, member, _THE_AMOUNT)
        if value < 0 and clamp:
            raise MalformedError(
                Sentence("an amount is 0 or more, not {value}", value=value), member=member
            )
        return value

    # -- changing totals, within bounds and undoably ----------------------------------------

    def _set_total(self, p: Player, total: Total, value: int, what: str, member: str) -> None:
        """Set ``p``'s life or poison total (``what``: "life total", "poison counters", as
        the caller reads it; an error names the total by which it is); a result beyond
        10^1000 makes the action malformed. 810.9a, 810.10a: a shared total is the team's and
        each head's."""
        if not _MIN_INTEGER <= value <= MAX_INTEGER:
            player = Id(p.id)
            words = (
                Sentence("{player}'s life total", player=player)
                if total is p.life
                else Sentence("{player}'s poison counters", player=player)
            )
            check_integer(value, member, words)
        self._journal.append((total, "value", total.value))
        total.value = value
        if p.team is None:
            self._touched.add(p.id)
        else:
            self._touched_total(p, total)

    def _touched_total(self, p: Player, total: Total) -> None:
        team = self._teams[p.team]  # type: ignore[index]
        touched = self._touched
        if team.shares_life if total is p.life else team.shares_poison:
            self._touched_other.add((team.id,))
            touched.update(m.id for m in team.members if m.life is total or m.poison is total)
        touched.add(p.id)

    def _set_life(self, p: Player, value: int, member: str) -> None:
        """``p``'s life total becomes ``value`` (:meth:`_set_total`), and ``p`` is checked at
        the next state-based check (:meth:`_touch`)."""
        if not _MIN_INTEGER <= value <= MAX_INTEGER:
            check_integer(value, member, Sentence("{player}'s life total", player=Id(p.id)))
        total = p.life
        self._journal.append((total, "value", total.value))
        total.value = value
        if p.team is None:
            self._touched.add(p.id)
            dirty = self._dirty
            if dirty is not None:
                dirty.add(p)
        else:
            self._touched_total(p, total)
            self._touch(p)

    def _changed(self, p: Player) -> None:
        """``p``'s own entry in the state changed (:attr:`touched`)."""
        self._touched.add(p.id)

    def _set_result(self, p: Player, result: Result) -> None:
        """``p``'s standing becomes ``result``."""
        p.result = result
        self._touched.add(p.id)

    def _set_team_result(self, team: Team, result: Result) -> None:
        """The team's standing becomes ``result``."""
        team.result = result
        self._touched_other.add((team.id,))

    def _set_count(
        self, counts: dict[str, int], key: str, value: int, what: str, member: str
    ) -> None:
        """Set a count (counters, commander damage, triggers); 0 removes it. ``what`` is the
        count in words (a :class:`~lifeledger.sentences.Sentence`), for the error about a count
        beyond 10^1000."""
        if value > MAX_INTEGER:
            check_integer(value, member, what)
        self._journal.append((counts, key, counts.get(key)))
        if value > 0:
            counts[key] = value
        else:
            counts.pop(key, None)

    def _set_attribute(self, p: Player, name: str, value: object) -> None:
        self._journal.append((p, name, getattr(p, name)))
        setattr(p, name, value)
        self._touched.add(p.id)

    def _roll_back(self, was_dirty: tuple[str, ...] | None) -> None:
        """Undo what the action being applied changed: it failed half-way, and a malformed or
        refused action changes nothing, not whom the next state-based check looks at
        (``was_dirty``, ids) either."""
        journal = self._journal
        while journal:
            target, key, old = journal.pop()
            if isinstance(target, dict):
                if old is None:
                    target.pop(key, None)
                else:
                    target[key] = old
            else:
                setattr(target, key, old)
        self._dirty = self._dirty_again(was_dirty)
        self._marks.pending = []
        self._stack.pending = []
        self._stack.merge = {}

    # -- undoing a failed action -----------------------------------------------------------

    def _forget(self, snapshot: Any, was_dirty: tuple[str, ...] | None) -> None:
        """Nothing of a failed action stays: the game is as ``snapshot`` holds it (``None``:
        none was taken), the next state-based check looks at whom it would have before
        (``was_dirty``, ids), and the action leaves no notes, refusals or touches."""
        if snapshot is not None:
            self._restore(snapshot)
            self._dirty = self._dirty_again(was_dirty)
        self.notes = []
        self.refusals = []
        self._untouch()

    def _dirty_again(self, was_dirty: tuple[str, ...] | None) -> set[Player] | None:
        """The players (by id: a restored snapshot holds other objects) whom the next
        state-based check looks at again; ``None``: everyone."""
        return None if was_dirty is None else {self._players[pid] for pid in was_dirty}

    def _untouch(self) -> None:
        """Nothing is touched yet (:attr:`touched`)."""
        self._touched.clear()
        self._touched_other.clear()

    def _check_in_game(self, named: Iterable[tuple[str, str]]) -> None:
        """800.4: an action can't involve a player who has left the game."""
        for member, player_id in named:
            if not self._players[player_id].result.is_playing:
                raise RefusedError(
                    "800.4",
                    Sentence(
                        "{player} has left the game ({member})", player=Id(player_id), member=member
                    ),
                )

    def _snapshot(self) -> Any:
        """What :meth:`_restore` needs to put the game back as it is now, in time linear in
        what the game holds and without copying anything that never changes: the players and
        teams (copied), the effects (the containers copied: an effect is immutable, and the
        lists in them are replaced, never changed in place, :meth:`_start`), the counts, the
        clock, the designations and the stack."""
        self._spend(1 + (len(self._known_ids) + len(self.triggered)) // 16)
        players, teams = copy_roster(self._players, self._teams)
        return (
            players, teams, dict(self._effects),
            {kind: list(effects) for kind, effects in self._by_kind.items()},
            set(self._known_ids), dict(self.triggered), dict(self._in_range), self._over,
            self._clock.copy(), self._marks.copy(), self._stack.copy(),
        )  # fmt: skip

    def _restore(self, snapshot: Any) -> None:
        self._dirty = None
        (
            self._players,
            self._teams,
            self._effects,
            self._by_kind,
            self._known_ids,
            self.triggered,
            self._in_range,
            self._over,
            self._clock,
            self._marks,
            self._stack,
        ) = snapshot

    if TYPE_CHECKING:
        # The methods one rule area calls of another's (or of ``Game``'s), declared for the type
        # checker alone: at run time they are the game's own, found on its class as ever.

        @property
        def version(self) -> int: ...
        def _begin(self, players: list[Player]) -> None: ...
        def _determine_ranges(self) -> None: ...
        def _stop(self, effect_id: str) -> None: ...
        def _upkeep(self, active: Iterable[str]) -> None: ...
        def _do_draw(self, action: Draw) -> None: ...
        def _combat_damage_to_holder(self, action: Damage, p: Player) -> None: ...
        def _resolve_designation_triggers(self) -> None: ...
        def _pass_designations(self, gone: set[str]) -> None: ...
        def _next_clockwise(self, start: int, team: str | None = None) -> str | None: ...
        def _do_together(self, action: Together, prefix: str = "") -> None: ...
        def _do_lose(self, action: Lose) -> None: ...
        def _do_win(self, action: Win) -> None: ...
        def _do_draw_game(self, action: DrawGame) -> None: ...
        def _do_loop(self, action: Loop) -> None: ...
        def _settle_event(self) -> None: ...
        def _check_state_based_actions(self) -> None: ...
        def _check_members(self, action: Action) -> None: ...
        def _dispatch(self, action: Action) -> None: ...
        def _gain(
            self, p: Player, amount: int, source: str | None = None, *, member: str = "amount"
        ) -> None: ...
        def _unstated_replacement_order(
            self, p: Player, remedies: Sequence[Effect], doublers: Sequence[Effect]
        ) -> OpenChoice | None: ...
        def _lose(
            self,
            p: Player,
            amount: int,
            *,
            new_event: bool = True,
            member: str = "amount",
            merge: tuple[str, ...] | None = None,
        ) -> None: ...
        def _add_poison(self, p: Player, amount: int, member: str = "amount") -> None: ...
        def _replace_losing(self, losses: dict[str, Result]) -> None: ...
        def _mirrors(self, group: Sequence[Player]) -> list[tuple[Player, Effect]]: ...
        def _unstated_mirror(
            self, group: Sequence[Player], found: Sequence[tuple[Player, Effect]]
        ) -> OpenChoice | None: ...
        def _which_mirror(self, group: Sequence[Player]) -> tuple[Player, Effect] | None: ...
        def _use_mirror(self, mirror: Effect, p: Player, rule: str | None) -> None: ...
        def are_opponents(self, a: str, b: str) -> bool: ...
        def is_in_range(self, a: str, b: str) -> bool: ...
        def can_lose_game(self, player_id: str) -> bool: ...
        def can_win_game(self, player_id: str) -> bool: ...
        def _can_gain(self, p: Player) -> bool: ...
        def _can_lose(self, p: Player) -> bool: ...
        def _set_count_any(self, mapping: dict[str, Any], key: str, value: object) -> None: ...
        def _queue(
            self,
            kinds: tuple[Kind, ...],
            p: Player,
            amount: int,
            merge: tuple[str, ...] | None,
            what: str,
        ) -> None: ...
        def _add_trigger(
            self, effect: Effect, kind: Kind, p: Player, rule: str, what: str
        ) -> None: ...
        def _state_triggers(self) -> None: ...
        def _run_stack(self) -> None: ...
        def _set_field(self, target: object, name: str, value: object) -> None: ...
        def _whose_turn(self) -> str: ...
        def _check_version_2(self, action: Action) -> None: ...
        def _priority(self) -> None: ...

"""The game: life totals, counters and standings, decided by the Comprehensive Rules.

:class:`Game` is whole here: its ``__init__``, its typed methods (one per action of the record),
:meth:`Game.apply` and :meth:`Game.outcome`; each rule area is a module of its own, a mixin the
game composes (:mod:`lifeledger.life`, :mod:`lifeledger.ending`, :mod:`lifeledger.triggers`,
...) on :class:`lifeledger.core.GameBase`. The names this module held before the areas had
modules of their own stay importable from it (the imports ``X as X``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass
from types import MappingProxyType
from typing import Any

from .actions import (
    VERSION_2,
    Action,
    AddCounters,
    Amount,
    BecomeMonarch,
    BeginStep,
    Cast,
    Choose,
    CityBlessing,
    Concede,
    Damage,
    DayNight,
    Draw,
    DrawGame,
    End,
    ExchangeLife,
    GainLife,
    IntentionalDraw,
    Loop,
    Lose,
    LoseLife,
    PayLife,
    Penalty,
    PlayerAction,
    RedistributeLife,
    RemoveCounters,
    Repeat,
    Restart,
    SetLibrary,
    SetLife,
    SetLifeEach,
    StartCard,
    StartEffect,
    TakeInitiative,
    Together,
    Turn,
    Upkeep,
    Win,
)
from .actions import LifeOf as LifeOf
from .beginning import BeginningMixin
from .bounds import MAX_INTEGER as MAX_INTEGER
from .bounds import check_integer
from .budget import HELD, Budget
from .choices import ChoicesMixin
from .continuous import ContinuousMixin
from .core import _EFFECTS as _EFFECTS
from .core import _EVERYTHING as _EVERYTHING
from .core import _LOST_COMMANDER_DAMAGE as _LOST_COMMANDER_DAMAGE
from .core import _LOST_EMPTY_LIBRARY as _LOST_EMPTY_LIBRARY
from .core import _LOST_LIFE as _LOST_LIFE
from .core import _LOST_POISON as _LOST_POISON
from .core import _LOST_TEAM_POISON as _LOST_TEAM_POISON
from .core import _MAY_STILL_WIN as _MAY_STILL_WIN
from .core import _NOBODY as _NOBODY
from .core import _ON_GAIN as _ON_GAIN
from .core import _ON_LOSS as _ON_LOSS
from .core import _REPLACEABLE_LOSSES as _REPLACEABLE_LOSSES
from .core import _UNTOUCHED as _UNTOUCHED
from .core import COMMANDER_DAMAGE_THRESHOLD as COMMANDER_DAMAGE_THRESHOLD
from .core import COUNTER_KIND as COUNTER_KIND
from .core import COUNTER_KIND_LENGTH as COUNTER_KIND_LENGTH
from .core import POISON as POISON
from .core import RECORD_VERSIONS as RECORD_VERSIONS
from .core import GameBase as GameBase
from .core import Note as Note
from .core import Touched as Touched
from .core import _Event as _Event
from .counters import CountersMixin
from .designations import DesignationsMixin
from .effects import CARD_DURATION as CARD_DURATION
from .effects import CARD_ONLY_KINDS as CARD_ONLY_KINDS
from .effects import CATALOGUE as CATALOGUE
from .effects import CATALOGUE_V2 as CATALOGUE_V2
from .effects import OMEN_COUNTERS as OMEN_COUNTERS
from .effects import STACK_KINDS as STACK_KINDS
from .effects import TEAM_WIDE as TEAM_WIDE
from .effects import VERSION_2_KINDS as VERSION_2_KINDS
from .effects import Affects, Effect, Kind, Reach
from .ending import EndingMixin
from .errors import ChoiceNeeded as ChoiceNeeded
from .errors import MalformedError, RefusedError, quote
from .errors import TooMuchWork as TooMuchWork
from .formats import Format, find_format
from .life import LifeMixin
from .life import _replaceable as _replaceable
from .outcome import PLAYING as PLAYING
from .outcome import Outcome
from .outcome import Reason as Reason
from .outcome import Result as Result
from .outcome import Status as Status
from .reading import ReadingMixin
from .roster import POISON_THRESHOLD as POISON_THRESHOLD
from .roster import Player, PlayerView, Team, TeamView
from .roster import Total as Total
from .roster import copy_roster as copy_roster
from .seats import Seat, check_text
from .sentences import Id, Sentence
from .shortcuts import ShortcutsMixin
from .shortcuts import _measured as _measured
from .shortcuts import _moved as _moved
from .shortcuts import _Point as _Point
from .shortcuts import _Step as _Step
from .shortcuts import _step_between as _step_between
from .stack import MAX_HEIGHT as MAX_HEIGHT
from .stack import MAX_RESOLUTIONS as MAX_RESOLUTIONS
from .stack import OpenChoice as OpenChoice
from .stack import Stack
from .stack import Trigger as Trigger
from .triggers import TriggersMixin
from .turnorder import TurnOrderMixin
from .turns import CLEANUP as CLEANUP
from .turns import DRAW as DRAW
from .turns import END as END
from .turns import MAIN as MAIN
from .turns import STEPS as STEPS
from .turns import UPKEEP as UPKEEP
from .turns import Clock, Designations
from .variants import Variant, find_variant, infer_variant
from .variants import seating_distance as seating_distance

__all__ = ["COUNTER_KIND", "Game", "Note", "PlayerView", "TeamView", "Touched"]


class Game(
    BeginningMixin,
    ReadingMixin,
    LifeMixin,
    CountersMixin,
    EndingMixin,
    ContinuousMixin,
    TurnOrderMixin,
    DesignationsMixin,
    TriggersMixin,
    ChoicesMixin,
    ShortcutsMixin,
):
    """One game of Magic: The Gathering, as far as life totals and the end of the game go.

    >>> from lifeledger import Game, Seat
    >>> game = Game([Seat("ana"), Seat("bo")])
    >>> game.damage("bo", 7, source="ana-creature")
    >>> game.player("bo").life
    13
    >>> game.damage("bo", 13, source="ana-creature")
    >>> print(game.outcome().results["ana"])
    won (last-standing, 104.2a)

    ``variant`` and ``format`` are names (``"two-headed-giant"``, ``"commander"``) or instances;
    ``starting_life`` overrides the rules' starting life (and makes a combination the rules
    don't define a house variant); ``range_of_influence`` is the limited range of influence
    option (801) for every player without a ``range`` of their own. With ``keep_history``
    false the game keeps no history, so that a long replay runs in constant memory.
    ``version`` is the version of the game record the game is written in: 2 adds turns
    (:meth:`turn`, :meth:`step`) and designations (:meth:`become_monarch`, ...).
    """

    def __init__(
        self,
        seats: Sequence[Seat],
        variant: str | Variant | None = None,
        format: str | Format = "normal",
        *,
        starting_life: int | None = None,
        range_of_influence: int | None = None,
        keep_history: bool = True,
        version: int = 1,
    ) -> None:
        if version not in RECORD_VERSIONS:
            raise MalformedError(
                Sentence("this is record version 1 or 2, not {value}", value=quote(version)),
                member="record",
            )
        # Whether the game is written in version 2 of the record (:attr:`version`). The game
        # keeps at most 30 attributes: more, and CPython (3.11) no longer shares its instance
        # dictionary's keys, which makes every attribute read slower (issue 9's replay).
        self._v2 = version >= 2
        self.seats = tuple(seats)
        self.variant = (
            infer_variant(self.seats)
            if variant is None
            else find_variant(variant)
            if isinstance(variant, str)
            else variant
        )
        self.format = find_format(format) if isinstance(format, str) else format
        self.starting_life = starting_life
        self.range_of_influence = range_of_influence
        self._check_setup()
        self.history: list[Action] | None = [] if keep_history else None
        #: The consequences of the last action applied, each with its rule.
        self.notes: list[Note] = []
        #: The actions of the last group applied that the rules refused (609.3: the rest of
        #: the group happened), by their position in it (``"1"``, ``"2.0"``), with the error.
        self.refusals: list[tuple[str, RefusedError]] = []
        self.game_number = 1
        self.triggered: dict[str, int] = {}
        self._players: dict[str, Player] = {}
        self._teams: dict[str, Team] = {}
        for index, seat in enumerate(self.seats):
            team = self.variant.team_of(seat)
            player = Player(seat, index, team)
            self._players[seat.id] = player
            if team is not None:
                self._teams.setdefault(team, Team(team, [])).members.append(player)
        self._commander_owner = {c: s.id for s in self.seats for c in s.commanders}
        #: The work the action being applied may still do (:mod:`lifeledger.budget`).
        self._budget = Budget()
        self._ranges = self._initial_ranges()
        self._limited = any(r is not None for r in self._ranges.values())
        self._effects: dict[str, list[Effect]] = {}
        self._by_kind: dict[Kind, list[Effect]] = {}
        self._known_ids: set[str] = set()
        self._event: _Event | None = None
        #: What the action being applied changed, as ``(object, key, old value)``, so that an
        #: action that fails half-way is undone (:meth:`_roll_back`).
        self._journal: list[tuple[Any, Any, Any]] = []
        #: The players whose totals changed since state-based actions were last checked
        #: (``None``: everyone, as after an effect began or ended).
        self._dirty: set[Player] | None = None
        self._in_range: dict[str, frozenset[str]] = {}
        self._over = False
        #: What the action being applied changed (:attr:`touched`): the ids of players, and
        #: the rest (rarer): the ids of teams in 1-tuples, :data:`_EFFECTS`, :data:`_EVERYTHING`.
        self._touched: set[str] = set()
        self._touched_other: set[object] = set()
        #: Version 2: whose turn and which step (500), and the designations (725, 726, 731,
        #: 702.131c) with the triggers combat damage to their holders set off (725.2, 726.2).
        self._clock = Clock()
        self._marks = Designations()
        #: Version 2: the triggered abilities waiting and on the stack, and the choices the
        #: players stated for them (603.3b, 603.3d).
        self._stack = Stack()
        self._begin(list(self._players.values()))
        starting = Sentence("a starting life total")
        for index, p in enumerate(self._players.values()):
            # A starting total is an integer of the game too: 20 plus a life modifier of
            # 10^1000 is beyond the bound (902.4).
            member = "starting_life" if starting_life is not None else f"players[{index}]"
            check_integer(p.life.value, member, starting)

    @property
    def touched(self) -> Touched:
        """What the last action applied may have changed: every player and team whose entry
        in the state (:func:`lifeledger.state.player_state`, ``team_state``) differs from
        before it is named, and the effects are as they were unless ``effects`` is set
        (``everything``: assume all of it changed). A refused or malformed action touches
        nothing. The game's number, whether it is over, the trigger counts and (version 2)
        the turn, the designations and the omen counters are not covered: compare them.

        >>> from lifeledger import Game, Seat
        >>> game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
        >>> game.damage("bo", 3, source="ana-creature")
        >>> sorted(game.touched.players)
        ['bo']
        """
        players, other = self._touched, self._touched_other
        if not other:
            return Touched(frozenset(players)) if players else _UNTOUCHED
        return Touched(
            frozenset(players),
            frozenset(m[0] for m in other if type(m) is tuple),
            _EFFECTS in other,
            _EVERYTHING in other,
        )

    def outcome(self) -> Outcome:
        """Who won, lost or drew, why and by which rule; the single source of truth for results.

        Results come about in this order within one action (704.3, 104.1): the draws the action
        states, then the wins and losses it states (simultaneously, 104.3f), then state-based
        actions, checked together and repeated while they do something. After each departure
        the game checks whether one player or team is left standing (104.2a, 104.2c).
        """
        return Outcome(
            over=self._over,
            game=self.game_number,
            results=MappingProxyType({p.id: p.result for p in self._players.values()}),
            team_results=MappingProxyType({t.id: t.result for t in self._teams.values()}),
        )

    # -- applying actions -------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply one action: validate it, then change the game; a malformed action raises
        :class:`MalformedError`, one the rules forbid :class:`RefusedError`, and either leaves
        the game exactly as it was. State-based actions are then checked (704.3)."""
        # The notes and refusals are the last action's: a refused action has none (issue 7:
        # a group's refusals used to outlive a refused action after it); so is what it touched.
        self.notes = []
        self.refusals = []
        self._budget.start()
        if self._touched:
            self._touched.clear()
        if self._touched_other:
            self._touched_other.clear()
        # Validate what can be checked without changing anything: the action's members (else
        # malformed), then that the game is not over (104.1) and that the players it names
        # are still in it (800.4; a group checks each of its actions as it comes).
        kind = type(action)
        if kind in _ABOUT_ONE_PLAYER:  # the usual action, checked without a tuple of names
            player_id = action.player  # type: ignore[attr-defined]
            p = self._players.get(player_id)
            if p is None:
                raise MalformedError(
                    Sentence("unknown player {value}", value=quote(player_id)), member="player"
                )
            check = _MEMBER_CHECKS.get(kind)
            if check is not None:
                check(self, action)
            if self._over or not p.result.is_playing:
                if self._over:
                    raise RefusedError("104.1", Sentence("the game is over"))
                raise RefusedError(
                    "800.4",
                    Sentence(
                        "{player} has left the game ({member})",
                        player=Id(player_id),
                        member="player",
                    ),
                )
        elif kind is Damage and action.controller is None:  # type: ignore[attr-defined]
            player_id = action.to  # type: ignore[attr-defined]
            p = self._players.get(player_id)
            if p is None:
                raise MalformedError(
                    Sentence("unknown player {value}", value=quote(player_id)), member="to"
                )
            if action.source is None:
                self._check_damage_source(action)  # type: ignore[arg-type]
            if self._over or not p.result.is_playing:
                if self._over:
                    raise RefusedError("104.1", Sentence("the game is over"))
                raise RefusedError(
                    "800.4",
                    Sentence(
                        "{player} has left the game ({member})",
                        player=Id(player_id),
                        member="to",
                    ),
                )
        elif kind is Together:
            self._check_members(action)
            if self._over:
                raise RefusedError("104.1", Sentence("the game is over"))
        else:
            named = action.players()
            players = self._players
            for member, player_id in named:
                if player_id not in players:
                    raise MalformedError(
                        Sentence("unknown player {value}", value=quote(player_id)), member=member
                    )
            check = _MEMBER_CHECKS.get(kind)
            if check is not None:
                check(self, action)
            if self._over:
                raise RefusedError("104.1", Sentence("the game is over"))
            for member, player_id in named:
                if not players[player_id].result.is_playing:
                    raise RefusedError(
                        "800.4",
                        Sentence(
                            "{player} has left the game ({member})",
                            player=Id(player_id),
                            member=member,
                        ),
                    )
        if self._journal:
            self._journal.clear()
        # Who the next state-based check looks at: a failed action leaves it as it was, as
        # everything else (the checks note what they find, so the timeline would differ).
        dirty = self._dirty
        was_dirty = None if dirty is None else tuple(p.id for p in dirty) if dirty else ()
        guard = None
        if self._v2:
            self._stack.merge.clear()
            self._stack.resolved = 0  # MAX_RESOLUTIONS bounds the whole action
            if kind is Together or self._armed() or self._mirrors_compete():
                guard = self._snapshot()  # the stack or a loss may yet need a choice
        if kind is Together:
            snapshot = self._snapshot()
            self._event = _Event({p.id: p.life.value for p in self._players.values()})
            try:
                self._do_together(action)  # type: ignore[arg-type]
                self._settle_event()
            except BaseException:
                # Whatever stops a group half-way (a result beyond 10^1000, ...), nothing of
                # it happens.
                self._forget(snapshot, was_dirty)
                raise
            finally:
                self._event = None
        elif kind is Restart:
            self._restart(action.controller)  # type: ignore[attr-defined]
        else:
            try:
                _HANDLERS[kind](self, action)
                if self._event is not None:
                    self._settle_event()
                    self._event = None
            except BaseException:
                self._roll_back(was_dirty)
                self._forget(guard, was_dirty)
                self._event = None
                raise
        if guard is None:
            # What follows has no snapshot to fall back on (version 1, or no stack): it is
            # bounded by the players, not the cards, and not stopped half-way (Budget.hold,
            # without the call).
            self._budget.next_look = HELD
        try:
            if not self._over and self._dirty != _NOBODY:
                self._check_state_based_actions()
            if self._v2 and self._marks.pending:
                self._resolve_designation_triggers()
            if self._v2 and self._effects and self._by_kind.get(Kind.LOSE_AT_20_LIFE):
                self._state_triggers()
            if self._v2 and self._stack.pending:
                self._run_stack()
        except BaseException:
            # A choice not stated (which Lich's Mirror, 616.1; a trigger's order or target,
            # 603.3b, 603.3d) or too much work (732.2a): nothing of the action happens.
            self._forget(guard, was_dirty)
            raise
        if self.history is not None:
            self.history.append(action)

    def _check_members(self, action: Action) -> None:
        kind = type(action)
        if kind is Together:
            assert isinstance(action, Together)
            if not action.actions:
                raise MalformedError(Sentence("a together group has actions"), member="actions")
            for i, inner in enumerate(action.actions):
                try:
                    if type(inner) is Restart:
                        raise MalformedError(
                            Sentence(
                                "a restart ends the game at once and can't be part of a group"
                            ),
                            member="do",
                        )
                    if type(inner) is Turn or type(inner) is BeginStep:
                        raise MalformedError(
                            Sentence(
                                "a turn or step begins between events and can't be part of a group"
                            ),
                            member="do",
                        )
                    self._check_members(inner)
                except MalformedError as exc:
                    raise exc.at(str(i)) from None
            return
        if kind not in _HANDLERS and kind is not Restart:
            raise MalformedError(
                Sentence("{type} is not an action", type=kind.__name__), member="do"
            )
        players = self._players
        for member, player_id in action.players():
            if player_id not in players:
                raise MalformedError(
                    Sentence("unknown player {value}", value=quote(player_id)), member=member
                )
        check = _MEMBER_CHECKS.get(kind)
        if check is not None:
            check(self, action)

    def _dispatch(self, action: Action) -> None:
        _HANDLERS[type(action)](self, action)

    # -- the typed methods, one per action of the record ------------------------------------

    def _apply_typed(self, action: Action) -> None:
        """Apply an action built by a typed method, whose strings are checked first as the
        record's parser checks them (Unicode text: no lone surrogate), so that whatever the API
        accepts, the record can say. :meth:`apply` is the fast path for parsed actions."""
        todo: list[Any] = [action]
        while todo:
            item = todo.pop()
            for member in fields(item):
                value = getattr(item, member.name)
                if isinstance(value, str):
                    check_text(value, member.name)
                elif isinstance(value, tuple):
                    todo.extend(v for v in value if is_dataclass(v) and not isinstance(v, type))
        self.apply(action)

    def damage(
        self,
        to: str,
        amount: Amount,
        *,
        source: str,
        combat: bool = False,
        infect: bool = False,
        lifelink: bool = False,
        controller: str | None = None,
        toxic: int = 0,
    ) -> None:
        """120.3: ``source`` deals ``amount`` damage to the player ``to``."""
        action = Damage(to, amount, combat, infect, lifelink, controller, toxic, source=source)
        self._apply_typed(action)

    def lose_life(self, player: str, amount: Amount, *, source: str | None = None) -> None:
        """119.3: ``player`` loses ``amount`` life."""
        self._apply_typed(LoseLife(player, amount, source=source))

    def gain_life(self, player: str, amount: Amount, *, source: str | None = None) -> None:
        """119.3: ``player`` gains ``amount`` life."""
        self._apply_typed(GainLife(player, amount, source=source))

    def pay_life(self, player: str, amount: Amount, *, source: str | None = None) -> None:
        """119.4: ``player`` pays ``amount`` life; refused unless it can be paid."""
        self._apply_typed(PayLife(((player, amount),), source=source))

    def pay_life_together(
        self, payments: Mapping[str, Amount], *, source: str | None = None
    ) -> None:
        """119.4a, 810.9b: teammates pay life at once, for one cost or effect."""
        self._apply_typed(PayLife(tuple(payments.items()), single=False, source=source))

    def set_life(self, player: str, to: Amount, *, source: str | None = None) -> None:
        """119.5: ``player``'s life total becomes ``to``."""
        self._apply_typed(SetLife(player, to, source=source))

    def set_life_each(
        self,
        each: Mapping[str, Amount],
        chosen: Mapping[str, str] | None = None,
        *,
        source: str | None = None,
    ) -> None:
        """119.5, 810.9d: each listed player's life total becomes their number."""
        chosen_pairs = tuple((chosen or {}).items())
        self._apply_typed(SetLifeEach(tuple(each.items()), chosen_pairs, source=source))

    def exchange_life(self, a: str, b: str, *, source: str | None = None) -> None:
        """701.12c: two players exchange life totals."""
        self._apply_typed(ExchangeLife(a, b, source=source))

    def redistribute_life(self, totals: Mapping[str, int], controller: str | None = None) -> None:
        """119.7, 119.8: the players' life totals are rearranged among them."""
        self._apply_typed(RedistributeLife(tuple(totals.items()), controller))

    def add_counters(self, player: str, kind: str, amount: Amount) -> None:
        """122.1: ``player`` gets ``amount`` counters of ``kind``."""
        self._apply_typed(AddCounters(player, kind, amount))

    def remove_counters(self, player: str, kind: str, amount: Amount) -> None:
        """122: ``player`` loses ``amount`` counters of ``kind``, never going below 0."""
        self._apply_typed(RemoveCounters(player, kind, amount))

    def draw(self, player: str, count: int = 1) -> None:
        """121: ``player`` draws ``count`` cards."""
        self._apply_typed(Draw(player, count))

    def concede(self, player: str) -> None:
        """104.3a: ``player`` concedes."""
        self._apply_typed(Concede(player))

    def win(self, player: str, *, source: str | None = None) -> None:
        """104.2b: an effect says ``player`` wins the game."""
        self._apply_typed(Win(player, source=source))

    def lose(self, *players: str, source: str | None = None) -> None:
        """104.3e: an effect says ``players`` lose the game."""
        self._apply_typed(Lose(players, single=len(players) == 1, source=source))

    def draw_game(self, controller: str | None = None, *, source: str | None = None) -> None:
        """104.4c: an effect says the game is a draw."""
        self._apply_typed(DrawGame(controller, source=source))

    def loop(self, *controllers: str) -> None:
        """104.4b: the game is in a loop of mandatory actions."""
        self._apply_typed(Loop(controllers))

    def intentional_draw(self) -> None:
        """104.4i: the players agree to a draw."""
        self._apply_typed(IntentionalDraw())

    def penalty(self, player: str) -> None:
        """104.3k: a judge gives ``player`` a game loss."""
        self._apply_typed(Penalty(player))

    def restart(self, controller: str | None = None) -> None:
        """104.6, 727: the game restarts."""
        self._apply_typed(Restart(controller))

    def effect(
        self,
        effect_id: str,
        kind: Kind | str,
        controller: str,
        affects: Affects | str | Sequence[str] = Reach.YOU,
        *,
        factor: int | None = None,
        life_at_least: int | None = None,
        until: str | None = None,
    ) -> None:
        """611: a continuous effect of ``kind`` begins; ``affects`` is ``"you"``,
        ``"opponents"``, ``"players"`` or a list of player ids; ``until="end_of_turn"``
        (version 2) ends it in the cleanup step (514.2)."""
        if isinstance(affects, str):
            affects = Reach(affects)
        elif not isinstance(affects, Reach):
            affects = tuple(affects)
        self._apply_typed(
            StartEffect(
                effect_id, Kind(kind), controller, affects, factor, life_at_least, until=until
            )
        )

    def card(self, card_id: str, name: str, controller: str) -> None:
        """A catalogue card starts to apply (its permanent entered the battlefield)."""
        self._apply_typed(StartCard(card_id, name, controller))

    def end(self, effect_id: str) -> None:
        """The effect or card with this id stops applying."""
        self._apply_typed(End(effect_id))

    def upkeep(self, player: str) -> None:
        """503: ``player``'s (with shared turns, their team's) upkeep begins."""
        self._apply_typed(Upkeep(player))

    def turn(self, player: str) -> None:
        """500.1: ``player``'s turn begins (805.4: with shared team turns, their team's), with
        its untap step and upkeep. Version 2."""
        self._apply_typed(Turn(player))

    def step(self, step: str, nonland_milled: Mapping[str, int] | None = None) -> None:
        """500.1: the current turn's ``step`` begins (``"draw"``, ``"main"``, ``"end"``,
        ``"cleanup"``); ``nonland_milled`` states what each active player's rad counters
        milled (728.1). Version 2."""
        self._apply_typed(BeginStep(step, tuple((nonland_milled or {}).items())))

    def cast(self, player: str, count: int = 1) -> None:
        """``player`` casts ``count`` spells (counted for day and night, 731.2). Version 2."""
        self._apply_typed(Cast(player, count))

    def become_monarch(self, player: str, *, source: str | None = None) -> None:
        """725.1: ``player`` becomes the monarch. Version 2."""
        self._apply_typed(BecomeMonarch(player, source=source))

    def take_initiative(self, player: str, *, source: str | None = None) -> None:
        """726.1: ``player`` takes the initiative. Version 2."""
        self._apply_typed(TakeInitiative(player, source=source))

    def day_night(self, to: str, *, source: str | None = None) -> None:
        """731.1: it becomes ``"day"`` or ``"night"``. Version 2."""
        self._apply_typed(DayNight(to, source=source))

    def city_blessing(self, player: str, *, source: str | None = None) -> None:
        """702.131: ``player`` gets the city's blessing for the rest of the game. Version 2."""
        self._apply_typed(CityBlessing(player, source=source))

    def set_library(self, player: str, count: int, *, source: str | None = None) -> None:
        """121.4: the record states that ``player``'s library has ``count`` cards from now on
        (0: their next draw is from an empty library, 704.5b). Version 2."""
        self._apply_typed(SetLibrary(player, count, source=source))

    def together(self, *actions: Action, source: str | None = None) -> None:
        """704.3: ``actions`` form one event; state-based actions are checked once, after."""
        self._apply_typed(Together(actions, source=source))

    def choose(
        self,
        player: str,
        order: Sequence[str] = (),
        targets: Mapping[str, str | Sequence[str]] | None = None,
        replacements: Sequence[str] = (),
    ) -> None:
        """603.3b, 603.3d: the choices ``player`` makes for their triggered abilities from
        now on: the ``order`` (ids) in which they put simultaneous ones on the stack, the
        last resolving first, the ``targets`` of each (players by preference), and the order
        of the ``replacements`` applied to their gains of life (616.1). Version 2."""
        pairs = tuple(
            (i, (t,) if isinstance(t, str) else tuple(t)) for i, t in (targets or {}).items()
        )
        self._apply_typed(Choose(player, tuple(order), pairs, tuple(replacements)))

    def repeat(self, times: int, *actions: Action, source: str | None = None) -> None:
        """732.2a: a shortcut: ``actions`` in order, ``times`` times. Version 2."""
        self._apply_typed(Repeat(times, actions, source=source))

    def copy(self) -> Game:
        """An independent game in the same state, history included: actions applied to one
        never change the other (python-chess's ``Board.copy``). A checkpoint: an app that
        copies its game every K actions undoes an action by replaying at most K actions from
        the nearest copy, however long the game."""
        memo: dict[int, Any] = {id(self.variant): self.variant, id(self.format): self.format}
        for seat in self.seats:  # immutable: shared, like the actions of the history
            memo[id(seat)] = seat
        memo[id(self.seats)] = self.seats
        history, self.history = self.history, None
        try:
            clone = copy.deepcopy(self, memo)
        finally:
            self.history = history
        clone.history = None if history is None else list(history)
        # The bounds in time are the application's, for this game: a copy (a checkpoint, an
        # undo's replay) is bounded in steps only, as a record is.
        clone._budget = Budget()
        return clone

    def __repr__(self) -> str:
        options = ""
        if self.starting_life is not None:
            options += f", starting_life={self.starting_life}"
        if self.range_of_influence is not None:
            options += f", range_of_influence={self.range_of_influence}"
        if self._v2:
            options += ", version=2"
        return (
            f"Game([{', '.join(repr(s) for s in self.seats)}], variant={self.variant.name!r}, "
            f"format={self.format.name!r}{options})"
        )


_HANDLERS: dict[type[Action], Any] = {
    Damage: Game._do_damage,
    LoseLife: Game._do_lose_life,
    GainLife: Game._do_gain_life,
    PayLife: Game._do_pay_life,
    SetLife: Game._do_set_life,
    SetLifeEach: Game._do_set_life_each,
    ExchangeLife: Game._do_exchange_life,
    RedistributeLife: Game._do_redistribute_life,
    AddCounters: Game._do_add_counters,
    RemoveCounters: Game._do_remove_counters,
    Draw: Game._do_draw,
    Concede: Game._do_concede,
    Win: Game._do_win,
    Lose: Game._do_lose,
    DrawGame: Game._do_draw_game,
    Loop: Game._do_loop,
    IntentionalDraw: Game._do_intentional_draw,
    Penalty: Game._do_penalty,
    StartEffect: Game._do_effect,
    StartCard: Game._do_card,
    End: Game._do_end,
    Upkeep: Game._do_upkeep,
    Together: Game._do_together,
    Turn: Game._do_turn,
    BeginStep: Game._do_step,
    Cast: Game._do_cast,
    BecomeMonarch: Game._do_become_monarch,
    Choose: Game._do_choose,
    Repeat: Game._do_repeat,
    TakeInitiative: Game._do_take_initiative,
    DayNight: Game._do_day_night,
    CityBlessing: Game._do_city_blessing,
    SetLibrary: Game._do_set_library,
}


#: The actions whose only player is ``player`` (:class:`PlayerAction`), which :meth:`Game.apply`
#: checks without building the tuple of :meth:`Action.players`.
_ABOUT_ONE_PLAYER = frozenset(
    kind for kind in (*_HANDLERS, Restart) if issubclass(kind, PlayerAction)
)

_MEMBER_CHECKS: dict[type[Action], Any] = {
    Damage: Game._check_damage_source,
    StartEffect: Game._check_effect_id,
    StartCard: Game._check_effect_id,
    End: Game._check_known_id,
    AddCounters: Game._check_counter_kind,
    RemoveCounters: Game._check_counter_kind,
    **dict.fromkeys(VERSION_2, Game._check_version_2),
    Choose: Game._check_choose,
    Repeat: Game._check_repeat,
}

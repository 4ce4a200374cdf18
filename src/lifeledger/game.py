"""The game: life totals, counters and standings, decided by the Comprehensive Rules."""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
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
    LifeOf,
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
from .bounds import MAX_INTEGER, check_integer
from .budget import Budget
from .effects import (
    CARD_DURATION,
    CARD_ONLY_KINDS,
    CATALOGUE,
    CATALOGUE_V2,
    OMEN_COUNTERS,
    STACK_KINDS,
    TEAM_WIDE,
    VERSION_2_KINDS,
    Affects,
    Effect,
    Kind,
    Reach,
)
from .errors import ChoiceNeeded, MalformedError, RefusedError, TooMuchWork, quote
from .formats import Format, find_format
from .outcome import PLAYING, Outcome, Reason, Result, Status
from .roster import POISON_THRESHOLD, Player, PlayerView, Team, TeamView, Total, copy_roster
from .seats import Seat, check_text
from .stack import MAX_HEIGHT, MAX_RESOLUTIONS, OpenChoice, Stack, Trigger
from .turns import CLEANUP, DRAW, END, MAIN, STEPS, UPKEEP, Clock, Designations
from .variants import Variant, find_variant, infer_variant, seating_distance

__all__ = ["COUNTER_KIND", "Game", "Note", "PlayerView", "TeamView", "Touched"]

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


@dataclass(frozen=True, slots=True)
class Note:
    """One consequence of an action, with the rule that caused it (for timelines and apps)."""

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


class Game:
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
                f"this is record version 1 or 2, not {quote(version)}", member="record"
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
        for index, p in enumerate(self._players.values()):
            # A starting total is an integer of the game too: 20 plus a life modifier of
            # 10^1000 is beyond the bound (902.4).
            member = "starting_life" if starting_life is not None else f"players[{index}]"
            check_integer(p.life.value, member, "a starting life total")

    # -- setting up -------------------------------------------------------------------------

    def _check_setup(self) -> None:
        seats = self.seats
        ids = [s.id for s in seats]
        for i, seat_id in enumerate(ids):
            if seat_id in ids[:i]:
                raise MalformedError(
                    f"duplicate player id {quote(seat_id)}", member=f"players[{i}].id"
                )
        commanders = [c for s in seats for c in s.commanders]
        if len(set(commanders)) != len(commanders):
            raise MalformedError("a commander id is listed for two players", member="players")
        for i, seat in enumerate(seats):
            if seat.commanders and not self.format.has_commanders:
                raise MalformedError(
                    f"{self.format.name} games have no commanders (903.3)",
                    member=f"players[{i}].commanders",
                )
            if seat.life_modifier is not None and self.format.name != "vanguard":
                raise MalformedError(
                    "only a vanguard game has life modifiers (902.4)",
                    member=f"players[{i}].life_modifier",
                )
        self.variant.check(seats)
        if self.format.name not in self.variant.formats and self.starting_life is None:
            raise MalformedError(
                f"the rules define no {self.variant.name} game of format {self.format.name}; "
                "give options.starting_life to play it as a house variant",
                member="format",
            )
        if self.starting_life is not None:
            check_integer(self.starting_life, "starting_life", "a starting life total")
            if self.starting_life < 1:
                raise MalformedError("a starting life total is 1 or more", member="starting_life")
        if self.range_of_influence is not None:
            check_integer(self.range_of_influence, "range_of_influence", "a range of influence")
            if self.range_of_influence < 0:
                raise MalformedError(
                    "a range of influence is 0 or more", member="range_of_influence"
                )

    @property
    def time_limit(self) -> float | None:
        """The processor time one action may take, in seconds (``None``, the default: no
        bound in time): the time of the thread that applies it, which other work on the
        machine doesn't use up. Past it, the action raises :class:`TooMuchWork` and nothing of
        it happens. A server deciding its users' actions sets it; a record replayed to check
        it needs none (the bound in steps holds everywhere alike: :mod:`lifeledger.budget`)."""
        return self._budget.seconds

    @time_limit.setter
    def time_limit(self, seconds: float | None) -> None:
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a time limit is a positive number of seconds, not {seconds!r}")
        self._budget.seconds = seconds

    @property
    def deadline(self) -> float | None:
        """The instant (:func:`time.monotonic`) past which no action of this game works
        (``None``, the default: none): the action under way then raises :class:`TooMuchWork`
        and nothing of it happens. A replay bounded in time as a whole sets it."""
        return self._budget.until

    @deadline.setter
    def deadline(self, instant: float | None) -> None:
        self._budget.until = instant
        self._budget.countdown = 0  # the next action looks at once

    @property
    def version(self) -> int:
        """The version of the game record this game is written in: 2 adds turns and
        designations (``docs/record-format.md``); a version-1 game rejects them as malformed."""
        return 2 if self._v2 else 1

    @property
    def is_house_variant(self) -> bool:
        """Whether ``starting_life`` overrides the rules (a house variant)."""
        return self.starting_life is not None

    def _initial_ranges(self) -> dict[str, int | None]:
        defaults = self.variant.ranges(self.seats)
        return {
            seat.id: seat.range
            if seat.range is not None
            else self.range_of_influence
            if self.range_of_influence is not None
            else default
            for seat, default in zip(self.seats, defaults, strict=True)
        }

    def _begin(self, players: list[Player]) -> None:
        """103.4, 119.1: every player in the game starts at their starting life total."""
        shares_life = self.variant.shares_life(self.format)
        shares_poison = self.variant.shares_poison()
        # 727.1, 800.1: a restarted game begins with the players still in the old one.
        seats = [p.seat for p in players]
        for p in players:
            if self.starting_life is not None:
                life = self.starting_life
            else:
                life, _ = self.variant.starting_life(self.format, p.seat, seats)
            p.life = Total(life)
            p.poison = Total(0)
            p.counters = {}
            p.commander_damage = {}
            p.library = p.seat.library
            p.drew_from_empty = False
            p.result = PLAYING
            p.game = self.game_number
        for team in self._teams.values():
            members = [p for p in team.members if p in players]
            if not members:
                continue
            team.result = PLAYING
            team.shares_life = shares_life
            team.shares_poison = shares_poison
            if shares_life:
                life = (
                    self.starting_life
                    if self.starting_life is not None
                    else self.variant.team_starting_life(self.format, len(team.members))[0]
                )
                shared = Total(life)
                for p in members:
                    p.life = shared
            if shares_poison:
                self_poison = Total(0)
                team.poison_threshold = self.variant.team_poison_threshold(len(team.members))
                for p in members:
                    p.poison = self_poison
        self._effects.clear()
        self._by_kind.clear()
        self._known_ids.clear()  # 727.1: a new game; its cards and effects are new too
        # 727.1: a new game has no turn yet and no designations; 103.1b, 904.6: the archenemy
        # takes its first turn.
        archenemy = [p.id for p in players if p.seat.archenemy]
        starting = archenemy[0] if self.variant.name == "archenemy" and archenemy else None
        self._clock = Clock(starting)
        self._marks = Designations()
        self._stack = Stack()
        self._determine_ranges()
        self._dirty = None
        self._over = False

    def _determine_ranges(self) -> None:
        """801.2c: the players within each player's range of influence are determined as each
        turn begins, counting only the players still in the game."""
        if not self._limited:
            return
        self._dirty = None
        present = [p for p in self._players.values() if p.result.is_playing]
        n = len(present)
        self._journal.append((self, "_in_range", self._in_range))  # undoably, as _stop
        self._in_range = {}
        for i, p in enumerate(present):
            reach = self._ranges[p.id]
            self._in_range[p.id] = frozenset(
                q.id
                for j, q in enumerate(present)
                if reach is None or seating_distance(i, j, n) <= reach
            )

    # -- reading the game -------------------------------------------------------------------

    @property
    def players(self) -> tuple[PlayerView, ...]:
        """Every player, in seating order."""
        return tuple(PlayerView(p) for p in self._players.values())

    @property
    def teams(self) -> tuple[TeamView, ...]:
        """Every team, in the order their first players are seated."""
        return tuple(TeamView(t) for t in self._teams.values())

    @property
    def omen_counters(self) -> dict[str, int]:
        """122.1: the omen counters on each Celestial Convergence in the game, by its id, in
        the order the cards entered (a card that has left the game is not listed)."""
        effects = self._effects
        return {cid: n for cid, n in self._stack.omens.items() if cid in effects}

    def player(self, player_id: str) -> PlayerView:
        """The player with this id."""
        return PlayerView(self._get(player_id, "player"))

    def team(self, team_id: str) -> TeamView:
        """The team with this id."""
        try:
            return TeamView(self._teams[team_id])
        except KeyError:
            raise MalformedError(f"unknown team {quote(team_id)}", member="team") from None

    def life_of(self, player_id: str) -> int:
        """The player's life total as the rules read it (810.9a: the team's, where shared)."""
        return self._get(player_id, "player").life.value

    def effects(self) -> tuple[Effect, ...]:
        """The continuous effects that apply now."""
        return tuple(e for group in self._effects.values() for e in group)

    # -- the turn and the designations (version 2) ------------------------------------------

    @property
    def turn_number(self) -> int:
        """500: how many turns this game has begun (0 before the first; a restart, 727,
        begins a new game at 0)."""
        return self._clock.number

    @property
    def active_players(self) -> tuple[str, ...]:
        """102.1: the players whose turn it is (805.4a: every member of the active team still
        in the game as the turn began), in seating order; empty before the first turn."""
        return self._clock.active

    @property
    def active_team(self) -> str | None:
        """805.4a: the active team, under shared team turns."""
        return self._clock.team

    @property
    def current_step(self) -> str | None:
        """The step of the current turn (``upkeep``, ``draw``, ``main``, ``end``,
        ``cleanup``), or ``None`` before the first turn."""
        return STEPS[self._clock.step] if self._clock.number else None

    @property
    def monarch(self) -> str | None:
        """725: the monarch, if there is one."""
        return self._marks.monarch

    @property
    def initiative(self) -> str | None:
        """726: the player who has the initiative, if any."""
        return self._marks.initiative

    @property
    def day_or_night(self) -> str | None:
        """731.1: ``"day"`` or ``"night"``, or ``None`` while the game is neither."""
        return self._marks.day_night

    @property
    def city_blessed(self) -> tuple[str, ...]:
        """702.131c: the players who have the city's blessing, in seating order."""
        blessed = self._marks.city_blessing
        return tuple(pid for pid in self._players if pid in blessed)

    def is_active_player(self, player_id: str) -> bool:
        """102.1, 805.4a: whether it is this player's (or their team's) turn."""
        return self._get(player_id, "player").id in self._clock.active

    def is_monarch(self, player_id: str) -> bool:
        """725.3: whether this player is the monarch (one player at a time)."""
        return self._get(player_id, "player").id == self._marks.monarch

    def has_initiative(self, player_id: str) -> bool:
        """726.3: whether this player has the initiative (one player at a time)."""
        return self._get(player_id, "player").id == self._marks.initiative

    def has_city_blessing(self, player_id: str) -> bool:
        """702.131c: whether this player has the city's blessing (any number may)."""
        return self._get(player_id, "player").id in self._marks.city_blessing

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

    def is_over(self) -> bool:
        """104.1: whether the game has ended."""
        return self._over

    def is_in_game(self, player_id: str) -> bool:
        """104.5, 800.4: whether the player is still in the game (has not won, lost or drawn)."""
        return self._get(player_id, "player").result.is_playing

    def are_opponents(self, a: str, b: str) -> bool:
        """102.2, 102.3: in a game between teams, a player's opponents are the players not on
        their team; otherwise every other player."""
        pa, pb = self._get(a, "player"), self._get(b, "player")
        return pa is not pb and (pa.team is None or pa.team != pb.team)

    def is_in_range(self, a: str, b: str) -> bool:
        """801.2: whether ``b`` is within ``a``'s range of influence (always true without the
        limited range of influence option)."""
        return not self._limited or b in self._in_range.get(a, frozenset({a}))

    def can_gain_life(self, player_id: str) -> bool:
        """119.7: no "can't gain life" effect reaches the player (810.9g: or a teammate
        sharing their life total)."""
        return self._can_gain(self._get(player_id, "player"))

    def can_lose_life(self, player_id: str) -> bool:
        """119.8: no "can't lose life" effect reaches the player (810.9h: or a teammate
        sharing their life total)."""
        return self._can_lose(self._get(player_id, "player"))

    def can_lose_game(self, player_id: str) -> bool:
        """104.3: no "can't lose the game" effect reaches the player (810.8a: or their team)."""
        return not self._reaches(Kind.CANT_LOSE_GAME, self._get(player_id, "player"))

    def can_win_game(self, player_id: str) -> bool:
        """104.2: no "can't win the game" effect reaches the player (810.8a: or their team).
        Such effects never stop 104.2a."""
        return not self._reaches(Kind.CANT_WIN_GAME, self._get(player_id, "player"))

    def can_get_poison(self, player_id: str) -> bool:
        """810.10c: no "can't get poison counters" effect reaches the player or, where poison
        counters are shared, their team."""
        return not self._reaches(Kind.CANT_GET_POISON, self._get(player_id, "player"))

    def _can_gain(self, p: Player) -> bool:
        if not self._effects:
            return True
        return not (
            self._reaches(Kind.CANT_GAIN_LIFE, p) or self._reaches(Kind.LIFE_TOTAL_CANT_CHANGE, p)
        )

    def _can_lose(self, p: Player) -> bool:
        if not self._effects:
            return True
        return not (
            self._reaches(Kind.CANT_LOSE_LIFE, p) or self._reaches(Kind.LIFE_TOTAL_CANT_CHANGE, p)
        )

    # -- the checks of the state-based actions (704.5, 704.6) -------------------------------

    def has_no_life_left(self, player_id: str) -> bool:
        """704.5a: the player has 0 or less life and nothing says they don't lose for it
        (ignored where life is shared: 704.6a instead)."""
        p = self._get(player_id, "player")
        return not self._shares_life(p) and self._out_of_life(p)

    def has_drawn_from_empty_library(self, player_id: str) -> bool:
        """704.5b: the player attempted to draw from an empty library since the last time
        state-based actions were checked."""
        return self._get(player_id, "player").drew_from_empty

    def has_ten_poison(self, player_id: str) -> bool:
        """704.5c: the player has ten or more poison counters (ignored where poison counters
        are shared: 704.6b instead)."""
        p = self._get(player_id, "player")
        return not self._shares_poison(p) and p.poison.value >= POISON_THRESHOLD

    def has_no_team_life_left(self, team_id: str) -> bool:
        """704.6a, 810.8c: the team has 0 or less life and nothing says it doesn't lose for it."""
        team = self._teams[team_id]
        return team.shares_life and self._out_of_life(team.members[0])

    def has_team_poison_threshold(self, team_id: str) -> bool:
        """704.6b, 810.8d: the team has fifteen or more poison counters (810.11: five more for
        each player beyond the second)."""
        team = self._teams[team_id]
        return team.shares_poison and team.members[0].poison.value >= team.poison_threshold

    def has_lethal_commander_damage(self, player_id: str) -> bool:
        """704.6c, 903.10a: 21 or more combat damage from the same commander, in a Commander
        game (not in Brawl, 903.12h)."""
        return self._lethal_commander_damage(self._get(player_id, "player"))

    def _out_of_life(self, p: Player) -> bool:
        return p.life.value <= 0 and not self._reaches(Kind.NO_LOSS_FOR_LIFE, p)

    def _lethal_commander_damage(self, p: Player) -> bool:
        damage = p.commander_damage
        return (
            bool(damage)
            and self.format.commander_damage_loses
            and max(damage.values()) >= COMMANDER_DAMAGE_THRESHOLD
        )

    def _state_based_loss(self, p: Player) -> Result | None:
        """The first state-based action of 704.5 and 704.6 that applies to ``p``, if any."""
        team = None if p.team is None else self._teams[p.team]
        shares_life = team is not None and team.shares_life
        out_of_life = p.life.value <= 0 and not (
            self._effects and self._reaches(Kind.NO_LOSS_FOR_LIFE, p)
        )
        if out_of_life and not shares_life:
            return _LOST_LIFE
        if p.drew_from_empty:
            return _LOST_EMPTY_LIBRARY
        poison = p.poison.value
        if (team is None or not team.shares_poison) and poison >= POISON_THRESHOLD:
            return _LOST_POISON
        if p.commander_damage and self._lethal_commander_damage(p):
            return _LOST_COMMANDER_DAMAGE
        if out_of_life:  # and shared
            return Result(Status.LOST, Reason.TEAM_LIFE, self.variant.team_life_rule)
        if team is not None and team.shares_poison and poison >= team.poison_threshold:
            return _LOST_TEAM_POISON
        return None

    def _shares_life(self, p: Player) -> bool:
        return p.team is not None and self._teams[p.team].shares_life

    def _life_group(self, p: Player) -> Sequence[Player]:
        """``p``'s team if it shares its life total (810.8a: a member's loss is the team's),
        in seating order; else ``p`` alone."""
        return self._teams[p.team].members if p.team and self._shares_life(p) else [p]

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
            raise MalformedError(f"unknown player {quote(player_id)}", member=member) from None

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
            check_integer(result, member, "the amount")
            return max(result, 0) if clamp else result
        if isinstance(value, bool) or not isinstance(value, int):
            raise MalformedError(f"{type(value).__name__} is not an amount", member=member)
        check_integer(value, member, "the amount")
        if value < 0 and clamp:
            raise MalformedError(f"an amount is 0 or more, not {value}", member=member)
        return value

    # -- changing totals, within bounds and undoably ----------------------------------------

    def _set_total(self, p: Player, total: Total, value: int, what: str, member: str) -> None:
        """Set ``p``'s life or poison total (``what``: "life total", "poison counters"); a
        result beyond 10^1000 makes the action malformed. 810.9a, 810.10a: a shared total is
        the team's and each head's."""
        if not -MAX_INTEGER <= value <= MAX_INTEGER:
            check_integer(value, member, f"{p.id}'s {what}")
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
        if not -MAX_INTEGER <= value <= MAX_INTEGER:
            check_integer(value, member, f"{p.id}'s life total")
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
        """Set a count (counters, commander damage, triggers); 0 removes it."""
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
                raise MalformedError(f"unknown player {quote(player_id)}", member="player")
            check = _MEMBER_CHECKS.get(kind)
            if check is not None:
                check(self, action)
            if self._over or not p.result.is_playing:
                if self._over:
                    raise RefusedError("104.1", "the game is over")
                raise RefusedError("800.4", f"{player_id} has left the game (player)")
        elif kind is Damage and action.controller is None:  # type: ignore[attr-defined]
            player_id = action.to  # type: ignore[attr-defined]
            p = self._players.get(player_id)
            if p is None:
                raise MalformedError(f"unknown player {quote(player_id)}", member="to")
            if action.source is None:
                self._check_damage_source(action)  # type: ignore[arg-type]
            if self._over or not p.result.is_playing:
                if self._over:
                    raise RefusedError("104.1", "the game is over")
                raise RefusedError("800.4", f"{player_id} has left the game (to)")
        elif kind is Together:
            self._check_members(action)
            if self._over:
                raise RefusedError("104.1", "the game is over")
        else:
            named = action.players()
            players = self._players
            for member, player_id in named:
                if player_id not in players:
                    raise MalformedError(f"unknown player {quote(player_id)}", member=member)
            check = _MEMBER_CHECKS.get(kind)
            if check is not None:
                check(self, action)
            if self._over:
                raise RefusedError("104.1", "the game is over")
            for member, player_id in named:
                if not players[player_id].result.is_playing:
                    raise RefusedError("800.4", f"{player_id} has left the game ({member})")
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
            # bounded by the players, not the cards, and not stopped half-way.
            self._budget.hold()
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
                raise RefusedError("800.4", f"{player_id} has left the game ({member})")

    def _check_members(self, action: Action) -> None:
        kind = type(action)
        if kind is Together:
            assert isinstance(action, Together)
            if not action.actions:
                raise MalformedError("a together group has actions", member="actions")
            for i, inner in enumerate(action.actions):
                try:
                    if type(inner) is Restart:
                        raise MalformedError(
                            "a restart ends the game at once and can't be part of a group",
                            member="do",
                        )
                    if type(inner) is Turn or type(inner) is BeginStep:
                        raise MalformedError(
                            "a turn or step begins between events and can't be part of a group",
                            member="do",
                        )
                    self._check_members(inner)
                except MalformedError as exc:
                    raise exc.at(str(i)) from None
            return
        if kind not in _HANDLERS and kind is not Restart:
            raise MalformedError(f"{kind.__name__} is not an action", member="do")
        players = self._players
        for member, player_id in action.players():
            if player_id not in players:
                raise MalformedError(f"unknown player {quote(player_id)}", member=member)
        check = _MEMBER_CHECKS.get(kind)
        if check is not None:
            check(self, action)

    def _check_effect_id(self, action: StartEffect | StartCard) -> None:
        if isinstance(action, StartEffect) and action.until is not None and not self._v2:
            raise MalformedError(
                f"until is a member of record version 2; this record is version {self.version}",
                member="until",
            )
        if isinstance(action, StartEffect) and action.kind in CARD_ONLY_KINDS:
            raise MalformedError(
                f"{action.kind.value} is a catalogue card's (Celestial Convergence, with its "
                "omen counters): name the card",
                member="kind",
            )
        if not action.id:  # an effect's or card's id is any text but the empty string
            raise MalformedError("an id is an empty string", member="id")
        self._check_new_id(action.id)
        if isinstance(action, StartCard) and action.name not in CATALOGUE:
            raise MalformedError(
                f"{quote(action.name)} is not in the card catalogue", member="name"
            )
        if not self._v2 and (
            action.name in CATALOGUE_V2
            if isinstance(action, StartCard)
            else action.kind in VERSION_2_KINDS
        ):
            raise MalformedError(
                "triggered abilities on the stack are of record version 2; this record is "
                "version 1",
                member="name" if isinstance(action, StartCard) else "kind",
            )

    def _check_known_id(self, action: End) -> None:
        if action.id not in self._known_ids:
            raise MalformedError(f"no effect or card has the id {quote(action.id)}", member="id")

    def _check_damage_source(self, action: Damage) -> None:
        if action.source is None:
            raise MalformedError("120.1: damage is dealt by a source; name it", member="source")

    def _check_counter_kind(self, action: AddCounters | RemoveCounters) -> None:
        if len(action.kind) > COUNTER_KIND_LENGTH or not COUNTER_KIND.fullmatch(action.kind):
            raise MalformedError(
                f"{quote(action.kind)} is not a counter kind (a lowercase word of at most "
                f"{COUNTER_KIND_LENGTH} characters)",
                member="kind",
            )

    def _check_new_id(self, effect_id: str) -> None:
        if effect_id in self._known_ids:
            raise MalformedError(f"duplicate effect or card id {quote(effect_id)}", member="id")

    def _dispatch(self, action: Action) -> None:
        _HANDLERS[type(action)](self, action)

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

    # -- life (119) -------------------------------------------------------------------------

    def _gain(
        self, p: Player, amount: int, source: str | None = None, *, member: str = "amount"
    ) -> None:
        """119.3: the player gains life. 119.9, 119.10: gaining 0 life is no event. 119.7: a
        player who can't gain life doesn't, and no replacement applies."""
        if amount <= 0:
            return
        if self._effects and not self._can_gain(p):
            self._note("119.7", f"{p.id} can't gain life: the gain of {amount} does nothing")
            return
        # 702.15e: one life-gain event per lifelink source in one damage event; the later
        # parts of that event add to its amount but trigger nothing of their own.
        event = self._event
        new_event = True
        if source is not None and event is not None:
            key = (source, p.id)
            new_event = key not in event.lifelink
            event.lifelink.add(key)
        if self._effects:
            remedy, doublers = self._gain_replacements(p)
            for effect in doublers:
                assert effect.factor is not None
                amount *= effect.factor
                if amount > 2 * MAX_INTEGER:  # the total, at least -10^1000, would pass 10^1000
                    check_integer(amount, member, f"the life {p.id} would gain")
                if remedy is None:
                    self._note("616.1", f"{effect.id}: {p.id} gains {amount} instead")
                else:
                    self._note("616.1", f"{effect.id}: {p.id} would gain {amount} instead")
            if remedy is not None:
                # 614.6: the loss is one event in place of the gain.
                self._note(
                    "616.1", f"{remedy.id}: {p.id} loses {amount} life instead of gaining it"
                )
                merge = ("gain", p.id, source) if source is not None and event else None
                self._lose(p, amount, new_event=new_event, member=member, merge=merge)
                return
        self._set_life(p, p.life.value + amount, member)
        if new_event and self._effects:
            self._trigger(Kind.ON_GAIN_LIFE, p, "119.9", "gains life")
        if self._v2 and self._effects:
            merge = ("gain", p.id, source) if source is not None and event else None
            self._queue(_ON_GAIN, p, amount, merge, "gains")

    def _gain_replacements(self, p: Player) -> tuple[Effect | None, tuple[Effect, ...]]:
        """616.1: the replacement effects on ``p``'s gain of life, as they apply: the life
        doublers that apply, then the Remedy that turns the gain into a loss ("that player
        loses that much life instead"), if one does (after it no gain is left to double).
        Without a Remedy every doubler applies, in any order (the products are the same).
        With both, the affected player orders them (616.1, 616.1e): version 2 takes the order
        they stated (:meth:`choose` ``replacements``: the doublers listed before the first
        listed Remedy apply) and, with none stated that lists them all, the action needs
        the choice (:class:`ChoiceNeeded`); version 1 can't state it and applies a Remedy
        first, the order that serves the player."""
        remedies = list(self._effects_reaching(Kind.GAIN_BECOMES_LOSS, p))
        doublers = tuple(self._effects_reaching(Kind.GAIN_LIFE_TIMES, p))
        if not remedies:
            return None, doublers
        if not doublers or not self._v2:
            return remedies[0], ()
        unstated = self._unstated_replacement_order(p, remedies, doublers)
        if unstated is not None:
            ids = unstated.ids
            missing = [i for i in ids if i not in self._stack.replacements.get(p.id, ())]
            raise ChoiceNeeded(
                f"the replacement effects {', '.join(ids)} would apply to the life {p.id} "
                f"gains: {p.id} states the order they apply in with choose (616.1); "
                f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not in it",
                player=p.id,
                choice=unstated.choice,
                ids=ids,
                options=unstated.options,
            )
        stated = self._stack.replacements[p.id]
        remedy = min(remedies, key=lambda e: stated.index(e.id))
        first = stated.index(remedy.id)
        return remedy, tuple(e for e in doublers if stated.index(e.id) < first)

    def _unstated_replacement_order(
        self, p: Player, remedies: Sequence[Effect], doublers: Sequence[Effect]
    ) -> OpenChoice | None:
        """616.1, version 2: the order of the replacement effects on ``p``'s gains of life, if
        ``remedies`` and ``doublers`` (those that reach ``p``) both apply and ``p`` has stated
        no order that lists them all (a card that enters since opens it again)."""
        if not remedies or not doublers:
            return None
        ids = tuple(dict.fromkeys(e.id for e in (*remedies, *doublers)))
        stated = self._stack.replacements.get(p.id, ())
        if all(i in stated for i in ids):
            return None
        return OpenChoice(p.id, "replacements", ids, ids)

    def _lose(
        self,
        p: Player,
        amount: int,
        *,
        new_event: bool = True,
        member: str = "amount",
        merge: tuple[str, ...] | None = None,
    ) -> None:
        """119.3: the player loses life; 119.8: not if they can't lose life. ``new_event``
        is false for a part of a loss event that has already triggered."""
        if amount <= 0:
            return
        if self._effects and not self._can_lose(p):
            self._note("119.8", f"{p.id} can't lose life: the loss of {amount} does nothing")
            return
        self._set_life(p, p.life.value - amount, member)
        if new_event and self._effects:
            self._trigger(Kind.ON_LOSE_LIFE, p, "603.2", "loses life")
        if self._v2 and self._effects:
            self._queue(_ON_LOSS, p, amount, merge, "loses")

    def _trigger(self, kind: Kind, p: Player, rule: str, what: str) -> None:
        if not self._effects:
            return
        for effect in self._effects_reaching(kind, p):
            self._set_count(
                self.triggered, effect.id, self.triggered[effect.id] + 1, "a count", "id"
            )
            self._note(rule, f"{effect.id} triggers: {p.id} {what}")

    def _add_poison(self, p: Player, amount: int, member: str = "amount") -> None:
        """122.1f, 810.10: poison counters, shared by a Two-Headed Giant team; 810.10c."""
        if amount <= 0:
            return
        if self._reaches(Kind.CANT_GET_POISON, p):
            self._note("810.10c", f"{p.id} can't get poison counters")
            return
        self._set_total(p, p.poison, p.poison.value + amount, "poison counters", member)
        self._touch(p)

    def _change_life(self, p: Player, delta: int, member: str) -> None:
        if delta > 0:
            self._gain(p, delta, member=member)
        elif delta < 0:
            self._lose(p, -delta, member=member)

    def _do_damage(self, action: Damage) -> None:
        """120.3: damage to a player; 120.8: 0 damage is no damage at all. Version 2: 500.1,
        combat damage comes in the combat phase, after the precombat main phase and before
        the end step; 725.2, 726.2: combat damage to the monarch (the player with the
        initiative) passes it on."""
        p = self._players[action.to]
        designated = self._v2 and action.combat
        if designated and self._clock.number and self._clock.step != MAIN:
            raise RefusedError(
                "500.1",
                f"combat damage in the {STEPS[self._clock.step]} step: combat comes after "
                "the precombat main phase and before the end step",
            )
        amount = action.amount
        if type(amount) is not int or not 0 <= amount <= MAX_INTEGER:
            amount = self._amount(amount, "amount")
        if amount == 0:
            self._note("120.8", "0 damage is no damage: nothing happens")
            return
        if designated:
            self._combat_damage_to_holder(action, p)
        if action.infect:
            self._add_poison(p, amount)  # 120.3b, 702.90b
        elif (
            self._effects
            and self._reaches(Kind.INFECT_AT_OR_BELOW_ZERO, p)
            and self._life_as_event_began(p) <= 0
        ):
            self._note("120.3b", f"damage is dealt to {p.id} as though its source had infect")
            self._add_poison(p, amount)
        else:
            # 120.3a, 119.2; 119.10, 603.2c: the damage a group deals a player at once is one
            # life-loss event, whatever the number of its sources.
            event = self._event
            merge = ("damage", p.id) if event is not None and event.frozen_life else None
            lost = amount
            if self._v2 and self._effects and self._reaches(Kind.DAMAGE_FLOOR_ONE, p):
                lost = self._damage_floor(p, amount)
            self._lose(p, lost, merge=merge)
        if action.combat and action.toxic:
            self._add_poison(p, action.toxic, "toxic")  # 120.3g
        if action.combat and action.source in self._commander_owner:
            # 903.10a: combat damage dealt by a commander is tracked by commander.
            dealt = p.commander_damage.get(action.source, 0) + amount
            what = f"the commander damage {p.id} has taken from {action.source}"
            self._set_count(p.commander_damage, action.source, dealt, what, "amount")
            self._changed(p)
            self._touch(p)
        if action.lifelink:
            assert action.controller is not None
            controller = self._players[action.controller]
            # 120.3f, 702.15b: lifelink; 702.15e: one life-gain event per source.
            self._gain(controller, amount, source=action.source)

    def _damage_floor(self, p: Player, amount: int) -> int:
        """614.1a, 120.4d: "damage that would reduce your life total to less than 1 reduces
        it to 1 instead" (Worship): the life the damage makes the player lose. The damage is
        dealt all the same (lifelink, commander damage, 120.3f)."""
        life = p.life.value
        if life - amount >= 1:
            return amount
        effect = next(self._effects_reaching(Kind.DAMAGE_FLOOR_ONE, p))
        lost = max(0, life - 1)
        self._note("614.1a", f"{effect.id}: the damage reduces {p.id}'s life total to 1 at most")
        return lost

    def _replace_losing(self, losses: dict[str, Result]) -> None:
        """614.1a: "if you would lose the game, instead shuffle your hand, your graveyard, and
        all permanents you own into your library, then draw seven cards and your life total
        becomes 20" (Lich's Mirror) replaces each loss it can (``_REPLACEABLE_LOSSES``): all
        of one player's losses at once are one loss, one replacement (704.7's example: 704.5a
        and 704.5b). 810.8a: where a team shares its life total, a member's loss is the team's,
        so a Mirror reaching either member replaces the losses of both (its controller does
        what it says, the teammate nothing); a team one of whose members loses in a way the
        Mirror can't replace loses all the same (810.8a, 810.8b)."""
        for pid in list(losses):
            if pid not in losses:  # replaced with a teammate's
                continue
            p = self._players[pid]
            group = self._life_group(p)
            if any(m.id in losses and not _replaceable(losses[m.id]) for m in group):
                continue
            found = self._which_mirror(group)
            if found is None:
                continue
            m, mirror = found
            rules = {q.id: losses.pop(q.id).rule for q in group if q.id in losses}
            self._use_mirror(mirror, m, rules.get(m.id) or "810.8a")
            for q in group:
                self._set_attribute(q, "drew_from_empty", False)

    def _mirrors(self, group: Sequence[Player]) -> list[tuple[Player, Effect]]:
        """The Lich's Mirrors that would replace the loss of the game of ``group`` (a player,
        or a team that shares its life total: 810.8a), each with the member it reaches, the
        members in seating order, each one's Mirrors in the order they entered."""
        found: dict[str, tuple[Player, Effect]] = {}
        for m in group:
            if m.result.is_playing:
                for e in self._effects_reaching(Kind.LOSING_REPLACED, m):
                    found.setdefault(e.id, (m, e))
        return list(found.values())

    def _unstated_mirror(
        self, group: Sequence[Player], found: Sequence[tuple[Player, Effect]]
    ) -> OpenChoice | None:
        """616.1: the choice of which of the Lich's Mirrors ``found`` (:meth:`_mirrors`)
        replaces ``group``'s loss of the game, if two or more would and the player who
        chooses (the affected player; for a team, its first seated member still in the game)
        has stated no order (``choose`` ``replacements``) that lists them all (a Mirror that
        enters since opens it again)."""
        if len(found) < 2:
            return None
        chooser = next(m for m in group if m.result.is_playing)
        ids = tuple(e.id for _, e in found)
        stated = self._stack.replacements.get(chooser.id, ())
        if all(i in stated for i in ids):
            return None
        return OpenChoice(chooser.id, "replacements", ids, ids)

    def _which_mirror(self, group: Sequence[Player]) -> tuple[Player, Effect] | None:
        """614.1a, 616.1: the Lich's Mirror that replaces ``group``'s loss of the game, with
        the member it reaches: the only one, or the first of those the chooser listed
        (:meth:`_unstated_mirror`); with the choice unstated, the action needs it
        (:class:`ChoiceNeeded`): the engine never guesses."""
        found = self._mirrors(group)
        if len(found) < 2:
            return found[0] if found else None
        unstated = self._unstated_mirror(group, found)
        if unstated is not None:
            raise ChoiceNeeded(
                f"the Lich's Mirrors {', '.join(unstated.ids)} would each replace "
                f"{unstated.player}'s loss of the game: {unstated.player} states which "
                "applies with choose (616.1)",
                player=unstated.player,
                choice=unstated.choice,
                ids=unstated.ids,
                options=unstated.options,
            )
        stated = self._stack.replacements[next(m for m in group if m.result.is_playing).id]
        return min(found, key=lambda pair: stated.index(pair[1].id))

    def _use_mirror(self, mirror: Effect, p: Player, rule: str | None) -> None:
        """614.1a, 614.6: Lich's Mirror's event happens instead of ``p``'s loss of the game
        (by ``rule``): the Mirror's cards are shuffled into the library, the Mirror with them
        (its effect ends), ``p`` draws seven cards (the library's count is no longer known:
        ``null``) and their life total becomes 20 (119.5, 810.9c: a gain or loss of the
        difference, which triggers as any would; 119.7: a player who can't gain life stays
        where they are, and loses at the next check, the Mirror gone)."""
        self._note(
            "614.1a",
            f"{mirror.id}: {p.id} would lose the game ({rule}); instead their cards are "
            "shuffled into their library, they draw seven and their life total becomes 20",
        )
        self._stop(mirror.id)
        if p.library is not None:
            self._set_attribute(p, "library", None)
        self._set_attribute(p, "drew_from_empty", False)
        self._change_life(p, 20 - p.life.value, "amount")

    def _do_lose_life(self, action: LoseLife) -> None:
        """119.3: an effect causes a player to lose life."""
        amount = action.amount
        if type(amount) is not int or not 0 <= amount <= MAX_INTEGER:
            amount = self._amount(amount, "amount")
        self._lose(self._players[action.player], amount)

    def _do_gain_life(self, action: GainLife) -> None:
        """119.3: an effect causes a player to gain life."""
        amount = action.amount
        if type(amount) is not int or not 0 <= amount <= MAX_INTEGER:
            amount = self._amount(amount, "amount")
        self._gain(self._players[action.player], amount)

    def _do_pay_life(self, action: PayLife) -> None:
        """119.4: a player may pay life only if their life total covers it (119.4a, 810.9b:
        the team's, for both members' payments together); 119.4b: 0 can always be paid;
        119.8, 810.9h: a player who can't lose life can't pay any."""
        member = "amount" if action.single else "payments"
        payments = [
            (self._players[pid], self._amount(amount, member)) for pid, amount in action.payments
        ]
        pools: dict[int, tuple[Total, list[str], int]] = {}
        for p, amount in payments:
            if amount == 0:
                continue
            if not self._can_lose(p):
                rule = "810.9h" if self._shares_life(p) else "119.8"
                raise RefusedError(rule, f"{p.id} can't lose life, so can't pay {amount} life")
            total, payers, due = pools.get(id(p.life), (p.life, [], 0))
            pools[id(p.life)] = (total, [*payers, p.id], due + amount)
        for total, payers, due in pools.values():
            if total.value < due:
                shared = len(payers) > 1 or self._shares_life(self._players[payers[0]])
                raise RefusedError(
                    "119.4a" if shared else "119.4",
                    f"{' and '.join(payers)} can't pay {due} life with "
                    f"{'a team total of ' if shared else ''}{total.value} life",
                )
        for p, amount in payments:
            self._lose(p, amount)

    def _do_set_life(self, action: SetLife) -> None:
        """119.5, 810.9c: the player gains or loses the difference."""
        p = self._players[action.player]
        self._change_life(p, self._amount(action.to, "to", clamp=False) - p.life.value, "to")

    def _do_set_life_each(self, action: SetLifeEach) -> None:
        """119.5: each player gains or loses the difference, in one event; 810.9d: where it
        sets the totals of more than one member of a team with a shared life total, only the
        member the team chooses is affected (by default its first seated member listed)."""
        totals = {pid: self._amount(to, "each", clamp=False) for pid, to in action.each}
        chosen = dict(action.chosen)
        for team_id, pid in chosen.items():
            team = self._teams.get(team_id)
            if team is None or not team.shares_life:
                raise MalformedError(
                    f"{quote(team_id)} is not a team with a shared life total (810.9d)",
                    member="chosen",
                )
            if self._players[pid].team != team_id:
                raise MalformedError(f"{pid} is not on team {quote(team_id)}", member="chosen")
        listed = Counter(self._players[pid].team for pid in totals)
        changes: list[tuple[Player, int]] = []
        for pid, total in totals.items():
            p = self._players[pid]
            # 810.9c: a single player's total is set as it is; 810.9d: the team chooses one
            # member only when the effect sets the total of more than one of them.
            if (
                p.team is not None
                and self._shares_life(p)
                and (listed[p.team] > 1 or p.team in chosen)
            ):
                pick = chosen.get(p.team) or next(
                    m.id for m in self._teams[p.team].members if m.id in totals
                )
                if pick not in totals:
                    raise MalformedError(
                        f"team {quote(p.team)} chose {pick}, who has no total here (810.9d)",
                        member="each",
                    )
                if pick != pid:
                    continue
            changes.append((p, total - p.life.value))
        for p, delta in changes:
            self._change_life(p, delta, "each")

    def _do_exchange_life(self, action: ExchangeLife) -> None:
        """701.12c: each player gains or loses the difference; 119.7, 119.8: the exchange
        won't happen if either can't; 810.9e: not between teammates sharing a life total."""
        a, b = self._players[action.a], self._players[action.b]
        if a.life is b.life:
            raise RefusedError("810.9e", f"{a.id} can't exchange life totals with a teammate")
        delta = b.life.value - a.life.value
        changes = [(a, delta), (b, -delta)]
        self._check_life_can_change(changes, "exchange")
        for p, change in changes:
            self._change_life(p, change, "players")

    def _check_life_can_change(self, changes: list[tuple[Player, int]], what: str) -> None:
        """119.7, 119.8: an exchange or redistribution that would raise the total of a player
        who can't gain life, or lower that of one who can't lose life, won't happen."""
        for p, delta in changes:
            if delta > 0 and not self._can_gain(p):
                raise RefusedError("119.7", f"{p.id} can't gain life, so the {what} won't happen")
            if delta < 0 and not self._can_lose(p):
                raise RefusedError("119.8", f"{p.id} can't lose life, so the {what} won't happen")

    def _do_redistribute_life(self, action: RedistributeLife) -> None:
        """119.7, 119.8: no player may receive a higher total if they can't gain life, or a
        lower one if they can't lose life; 810.9f: at most one member of each team; 801.10:
        only players within the controller's range of influence."""
        players = [self._players[pid] for pid, _ in action.totals]
        current = sorted(p.life.value for p in players)
        wanted = [total for _, total in action.totals]
        if sorted(wanted) != current:
            raise MalformedError(
                f"the new totals {sorted(wanted)} are not the players' current totals {current}",
                member="totals",
            )
        teams = [p.team for p in players if self._shares_life(p)]
        if len(set(teams)) != len(teams):
            raise RefusedError("810.9f", "a redistribution may affect one member of each team")
        if action.controller is not None:
            for p in players:
                if not self.is_in_range(action.controller, p.id):
                    raise RefusedError(
                        "801.10", f"{p.id} is outside {action.controller}'s range of influence"
                    )
        changes = [(p, new - p.life.value) for p, new in zip(players, wanted, strict=True)]
        self._check_life_can_change(changes, "redistribution")
        for p, delta in changes:
            self._change_life(p, delta, "totals")

    # -- counters (122) ---------------------------------------------------------------------

    def _do_add_counters(self, action: AddCounters) -> None:
        """122.1: a player gets counters; poison counters: 122.1f, 810.10."""
        p = self._players[action.player]
        amount = self._amount(action.amount, "amount")
        if action.kind == POISON:
            self._add_poison(p, amount)
        elif amount:
            count = p.counters.get(action.kind, 0) + amount
            what = f"{p.id}'s {action.kind} counters"
            self._set_count(p.counters, action.kind, count, what, "amount")
            self._changed(p)

    def _do_remove_counters(self, action: RemoveCounters) -> None:
        """122: a count never goes below 0; 810.10b: a player's lost poison counters are the
        team's."""
        p = self._players[action.player]
        amount = self._amount(action.amount, "amount")
        if action.kind == POISON:
            poison = max(0, p.poison.value - amount)
            self._set_total(p, p.poison, poison, "poison counters", "amount")
            return
        left = p.counters.get(action.kind, 0) - amount
        self._set_count(p.counters, action.kind, left, "a count", "amount")
        self._changed(p)

    # -- drawing (121) ----------------------------------------------------------------------

    def _do_draw(self, action: Draw) -> None:
        """121, 104.3c: a player draws the cards they can; an attempt to draw from an empty
        library is marked for 704.5b, unless an effect makes the player win instead."""
        p = self._players[action.player]
        count = self._amount(action.count, "count")
        if p.library is None or count == 0:
            return
        drawn = min(count, p.library)
        self._set_attribute(p, "library", p.library - drawn)
        if count == drawn:
            return
        maniac = next(self._effects_reaching(Kind.WIN_ON_EMPTY_DRAW, p), None)
        if maniac is not None:
            self._note("614.1a", f"{maniac.id}: {p.id} would win the game instead of drawing")
            self._do_win(Win(p.id, source=maniac.id))
        else:
            self._set_attribute(p, "drew_from_empty", True)
            self._touch(p)
            self._note("121.4", f"{p.id} attempted to draw from an empty library")

    # -- ending the game (104) --------------------------------------------------------------

    def _stated(self) -> _Event:
        """What the current action states, to be settled as it ends."""
        if self._event is None:
            self._event = _Event()
        return self._event

    def _do_concede(self, action: Concede) -> None:
        """104.3a: a player can concede at any time and loses; 810.8b: with their team."""
        p = self._players[action.player]
        rule = "810.8b" if self._shares_life(p) else "104.3a"
        self._stated().losses[p.id] = Result(Status.LOST, Reason.CONCEDED, rule)

    def _do_penalty(self, action: Penalty) -> None:
        """104.3k: a judge's game loss."""
        self._stated().losses[action.player] = Result(Status.LOST, Reason.PENALTY, "104.3k")

    def _do_lose(self, action: Lose) -> None:
        """104.3e: an effect says these players lose, unless they can't lose (104.3, 810.8a)."""
        for pid in action.losers:
            if self.can_lose_game(pid):
                self._stated().losses.setdefault(pid, Result(Status.LOST, Reason.EFFECT, "104.3e"))
            else:
                self._note("104.3", f"{pid} can't lose the game")

    def _do_win(self, action: Win) -> None:
        """104.2b: an effect says a player wins, unless they can't (104.2, 810.8a); under the
        limited range of influence option, 104.3h and 801.14: that player's opponents within
        their range of influence lose instead."""
        pid = action.player
        if self._ranges[pid] is not None:
            for q in self._present():
                if self.are_opponents(pid, q.id) and self.is_in_range(pid, q.id):
                    if self.can_lose_game(q.id):
                        self._stated().losses.setdefault(
                            q.id, Result(Status.LOST, Reason.OPPONENT_WON, "801.14")
                        )
                    else:
                        self._note("104.3", f"{q.id} can't lose the game")
        elif self.can_win_game(pid):
            self._stated().wins.append(pid)
        else:
            self._note("104.2", f"{pid} can't win the game")

    def _do_draw_game(self, action: DrawGame) -> None:
        """104.4c: an effect says the game is a draw; 801.15 under limited range: for its
        controller and the players within their range of influence, who leave the game."""
        controller = action.controller
        if controller is not None and self._ranges[controller] is not None:
            players = frozenset(q.id for q in self._present() if self.is_in_range(controller, q.id))
            self._stated().draws.append((players, Result(Status.DREW, Reason.EFFECT, "801.15")))
        else:
            self._stated().draws.append((None, Result(Status.DREW, Reason.EFFECT, "104.4c")))

    def _do_loop(self, action: Loop) -> None:
        """104.4b: a loop of mandatory actions is a draw; 801.16 under limited range: for the
        controllers of the objects in it and the players within their ranges of influence."""
        if any(self._ranges[c] is not None for c in action.controllers):
            players = frozenset(
                q.id
                for q in self._present()
                if any(self.is_in_range(c, q.id) for c in action.controllers)
            )
            self._stated().draws.append((players, Result(Status.DREW, Reason.LOOP, "801.16")))
        else:
            self._stated().draws.append((None, Result(Status.DREW, Reason.LOOP, "104.4b")))

    def _do_intentional_draw(self, action: IntentionalDraw) -> None:
        """104.4i: all players agree to an intentional draw."""
        self._stated().draws.append((None, Result(Status.DREW, Reason.INTENTIONAL, "104.4i")))

    def _restart(self, controller: str | None = None) -> None:
        """104.6, 727.1: the game ends with no winner, loser or draw; everyone still in it
        starts a new game (801.17: whatever their ranges of influence), with no turn taken
        and no designations yet; 727.1a: the restart's controller takes its first turn."""
        present = self._present()
        self._touched_other.add(_EVERYTHING)
        self.game_number += 1
        self._note("727.1", f"the game restarts: game {self.game_number} begins")
        self._begin(present)
        if controller is not None:
            self._clock.starting = controller

    # -- effects (611-616) ------------------------------------------------------------------

    def _start(self, effect: Effect) -> None:
        self._dirty = None
        self._touched_other.add(_EFFECTS)
        same_id = self._effects.get(effect.id)  # replaced, not changed: see _snapshot
        self._effects[effect.id] = [effect] if same_id is None else [*same_id, effect]
        self._by_kind.setdefault(effect.kind, []).append(effect)
        if effect.kind in (Kind.ON_GAIN_LIFE, Kind.ON_LOSE_LIFE) or effect.kind in STACK_KINDS:
            self.triggered.setdefault(effect.id, 0)

    def _do_effect(self, action: StartEffect) -> None:
        """611: a continuous effect begins."""
        self._check_new_id(action.id)
        self._known_ids.add(action.id)
        self._start(
            Effect(
                action.id,
                action.kind,
                action.controller,
                action.affects,
                action.factor,
                action.life_at_least,
                action.until,
            )
        )

    def _do_card(self, action: StartCard) -> None:
        """A catalogue card's permanent enters the battlefield: its effects begin."""
        self._check_new_id(action.id)
        self._known_ids.add(action.id)
        until = CARD_DURATION.get(action.name)
        for kind, reach, params in CATALOGUE[action.name]:
            factor, life = params.get("factor"), params.get("life_at_least")
            self._start(
                Effect(action.id, kind, action.controller, reach, factor, life, until, action.name)
            )
            if kind is Kind.OMEN_COUNTDOWN:  # 122.1: it enters with seven omen counters
                self._set_count_any(self._stack.omens, action.id, OMEN_COUNTERS)
                self._note("122.1", f"{action.id} enters with {OMEN_COUNTERS} omen counters")

    def _do_end(self, action: End) -> None:
        """The effect or card stops applying (its permanent left the battlefield)."""
        self._stop(action.id)

    def _stop(self, effect_id: str) -> None:
        """The effects with this id stop applying, undoably (:meth:`_roll_back`: a turn that
        ends "this turn" effects may yet fail)."""
        self._dirty = None
        stopped = self._effects.get(effect_id)
        if not stopped:
            return
        journal = self._journal
        journal.append((self._effects, effect_id, stopped))
        del self._effects[effect_id]
        by_kind = self._by_kind
        for effect in stopped:
            kinds = by_kind[effect.kind]
            journal.append((by_kind, effect.kind, kinds))
            by_kind[effect.kind] = [e for e in kinds if e is not effect]
            self._touched_other.add(_EFFECTS)

    def _do_upkeep(self, action: Upkeep) -> None:
        """503.1: "at the beginning of your upkeep" abilities trigger for the player whose
        upkeep it is (805.4: with shared team turns, for each member of the team), checking
        their life total as the rules read it (810.9a).

        In a game that records no turns (version 1, or version 2 without :meth:`turn`), an
        upkeep stands for a new turn, so ranges of influence are determined again (801.2c).
        Once the game records turns, the upkeep begins with each turn and this is an
        additional upkeep step (500.9, 503.2): of the active player's, right after the upkeep
        (refused otherwise, 102.1, 500.1)."""
        p = self._players[action.player]
        clock = self._clock
        if clock.number:
            if p.id not in clock.active:
                raise RefusedError("102.1", f"it is {self._whose_turn()}'s turn, not {p.id}'s")
            if clock.step != UPKEEP:
                raise RefusedError(
                    "500.1",
                    f"an additional upkeep step comes right after the upkeep; the turn is at "
                    f"its {STEPS[clock.step]} step",
                )
            self._upkeep(clock.active)
            return
        self._determine_ranges()
        active = [p.id]
        if self.variant.shared_turns and p.team is not None:
            active = [m.id for m in self._teams[p.team].members if m.result.is_playing]
        self._upkeep(active)

    def _upkeep(self, active: Iterable[str]) -> None:
        """503.1, 603.4: the active players' "at the beginning of your upkeep, if you have N
        or more life, you win the game" abilities."""
        for pid in active:
            for effect in list(self._effects_reaching(Kind.WIN_AT_UPKEEP, self._players[pid])):
                assert effect.life_at_least is not None
                life = self._players[pid].life.value
                if life >= effect.life_at_least:
                    self._note("603.4", f"{effect.id}: {pid} has {life} life at upkeep")
                    self._do_win(Win(pid, source=effect.id))
            if not self._v2:
                continue
            p = self._players[pid]
            for effect in list(self._effects_reaching(Kind.WIN_AT_UPKEEP_WITH_1, p)):
                if p.life.value == 1:
                    self._note("603.4", f"{effect.id}: {pid} has exactly 1 life at upkeep")
                    self._do_win(Win(pid, source=effect.id))
            for effect in self._by_kind.get(Kind.OMEN_COUNTDOWN, ()) if self._effects else ():
                # 503.1: "at the beginning of your upkeep, remove an omen counter" triggers
                # for its controller (805.4d: each player of the active team has "your
                # upkeep"); it goes on the stack (603.3).
                if effect.controller == pid:
                    self._add_trigger(effect, Kind.OMEN_COUNTDOWN, p, "503.1", "upkeep begins")

    # -- turns (500-514, 805) ---------------------------------------------------------------

    def _set_field(self, target: object, name: str, value: object) -> None:
        """Set a field of the turn or the designations, undoably (:meth:`_roll_back`)."""
        self._journal.append((target, name, getattr(target, name)))
        setattr(target, name, value)

    def _whose_turn(self) -> str:
        clock = self._clock
        return f"team {clock.team}" if clock.team is not None else str(clock.player)

    def _check_version_2(self, action: Action) -> None:
        if not self._v2:
            raise MalformedError(
                f"{action.do} is an action of record version 2; this record is version "
                f"{self.version}",
                member="do",
            )

    def _do_turn(self, action: Turn) -> None:
        """500.1: a turn begins. The turn before it ends first: its steps that the record left
        out happen (their turn-based actions: the draw, rad counters, the monarch's draw), and
        its "until end of turn" effects end (514.2). 805.4: with shared team turns the team
        takes the turn. 801.2c: ranges of influence are determined again. 502.2, 731.2: the
        untap step checks day and night. 503: the upkeep begins.

        If the game ends in the steps of the turn before (704.3: state-based actions are
        checked in each), no turn begins; a turn of a player who left the game in them is
        refused (800.4), and then none of it happens."""
        snapshot = self._snapshot() if self._clock.number else None
        try:
            self._begin_turn(action)
        except BaseException:
            if snapshot is not None:
                self._restore(snapshot)
            raise

    def _begin_turn(self, action: Turn) -> None:
        p = self._players[action.player]
        clock = self._clock
        starting = clock.starting
        if (
            not clock.number
            and starting is not None
            and p.id not in self._starting_side(starting)
            and self._players[starting].result.is_playing
        ):
            rule = "727.1a" if self.game_number > 1 else "103.1b"
            who = starting
            if self.variant.shared_turns and self._players[starting].team is not None:
                who = f"{starting}'s team ({self._players[starting].team})"  # 103.1a
            raise RefusedError(rule, f"{who} takes the game's first turn, not {p.id}")
        if self.has_several_turn_markers():
            raise MalformedError(
                "a Grand Melee game of 8 or more players has several turn markers, and "
                "version 2 records no simultaneous turns (807.4)",
                member="do",
            )
        if clock.number and clock.step < CLEANUP:
            self._advance(CLEANUP, {}, "turn")
            if not self._over:
                self._priority()  # 514.3a: the cleanup step's state-based actions
            if self._over:
                return
            if not p.result.is_playing:
                raise RefusedError("800.4", f"{p.id} left the game as the turn before ended")
        previous, spells = clock.active, clock.spells
        if self.variant.shared_turns and p.team is not None:
            team: str | None = p.team
            active = tuple(m.id for m in self._teams[p.team].members if m.result.is_playing)
        else:
            team, active = None, (p.id,)
        number = clock.number + 1
        self._set_field(clock, "number", number)
        self._set_field(clock, "player", p.id)
        self._set_field(clock, "team", team)
        self._set_field(clock, "active", active)
        self._set_field(clock, "step", UPKEEP)
        self._set_field(clock, "spells", {})
        self._note("500.1", f"turn {number}: {self._whose_turn()}'s turn begins")
        self._determine_ranges()  # 801.2c
        self._check_day_night(previous, spells)
        self._upkeep(active)

    def _check_day_night(self, previous: tuple[str, ...], spells: Mapping[str, int]) -> None:
        """502.2, 731.2: as the untap step's second part, if it's day and the previous turn's
        active player (502.2a: no player of the active team) cast no spell, it becomes night;
        if it's night and they (any one of them) cast two or more, it becomes day; if it's
        neither, it stays neither."""
        marks = self._marks
        if marks.day_night is None or not previous:
            return
        cast = [spells.get(pid, 0) for pid in previous]
        rule = "502.2a" if len(previous) > 1 or self.variant.shared_turns else "502.2"
        if marks.day_night == "day" and not any(cast):
            self._set_field(marks, "day_night", "night")
            self._note(rule, "day becomes night: the previous turn's active player cast no spell")
        elif marks.day_night == "night" and max(cast) >= 2:
            self._set_field(marks, "day_night", "day")
            self._note(
                rule, "night becomes day: the previous turn's active player cast 2 or more spells"
            )

    def _do_step(self, action: BeginStep) -> None:
        """500.1: the steps of a turn come in order; a step the record leaves out happens all
        the same as the record moves past it (its turn-based actions do). 514.3a: a cleanup
        step may follow another."""
        clock = self._clock
        if not clock.number:
            raise RefusedError("500.1", f"no turn has begun: the {action.step} step is a turn's")
        target = STEPS.index(action.step)
        if target < clock.step or (target == clock.step and target != CLEANUP):
            raise RefusedError(
                "500.1",
                f"the turn is at its {STEPS[clock.step]} step: its {action.step} step "
                f"{'has begun' if target == clock.step else 'is over'}",
            )
        milled = dict(action.nonland_milled)
        if milled and not clock.step < MAIN <= target:
            raise MalformedError(
                "nonland_milled goes with the step that begins the precombat main phase (728.1)",
                member="nonland_milled",
            )
        if target == clock.step:  # 514.3a: another cleanup step
            self._cleanup()
            return
        snapshot = self._snapshot()  # results may change in the steps it goes through
        try:
            self._advance(target, milled, "step")
        except BaseException:
            self._restore(snapshot)
            raise

    def _advance(self, target: int, milled: Mapping[str, int], member: str) -> None:
        """Begin each step after the current one up to ``target``, with its turn-based actions
        (500.1, 500.11 aside: version 2 records no skipped steps but the first draw)."""
        clock = self._clock
        for index in range(clock.step + 1, target + 1):
            self._set_field(clock, "step", index)
            if index == DRAW:
                self._draw_step()
            elif index == MAIN:
                self._main_phase(milled, member)
            elif index == END:
                self._end_step()
            else:
                self._cleanup()
            if index < target:
                self._priority()
                if self._over:
                    return

    def _priority(self) -> None:
        """704.3, 117.5: a player would receive priority in the step (504.2, 505.6, 513.1;
        514.3a in cleanup): the results stated so far happen, then state-based actions are
        checked. (The step the action ends in is checked as every action ends.)"""
        if self._event is not None:
            self._settle_event()
            self._event = None
        if not self._over and self._dirty != _NOBODY:
            self._check_state_based_actions()
        if self._v2 and not self._over and self._by_kind.get(Kind.LOSE_AT_20_LIFE):
            self._state_triggers()
        if self._v2 and self._stack.pending:
            self._run_stack()

    def first_turn_players(self) -> tuple[str, ...]:
        """103.1: the players who may take the game's first turn, in seating order: the
        archenemy (103.1b, 904.6), or after a restart its controller (727.1a) — under shared
        team turns each member of their team still in the game (103.1a: a starting team) —
        where the rules say who, else any player still in the game; none once a turn has
        begun or the game is over."""
        clock = self._clock
        if clock.number or self._over:
            return ()
        starting = clock.starting
        if starting is not None and self._players[starting].result.is_playing:
            return self._starting_side(starting)
        return tuple(p.id for p in self._present())

    def _starting_side(self, starting: str) -> tuple[str, ...]:
        """103.1a: under shared team turns (805.4, 810.2, 904.2) there is a starting team, not
        a starting player: the members of ``starting``'s team still in the game, any of whom
        the first ``turn`` may name; else ``starting`` alone."""
        team = self._players[starting].team
        if not self.variant.shared_turns or team is None:
            return (starting,)
        return tuple(m.id for m in self._teams[team].members if m.result.is_playing)

    def next_turn_player(self) -> str | None:
        """The player whose turn comes next in turn order (103.1: clockwise from the player
        whose turn it is), skipping players who left the game (800.4); with shared team turns
        the next team's first seated player still in the game (805.4, 810.2). ``None`` before
        the first turn (see :meth:`first_turn_players`) or once the game is over."""
        clock = self._clock
        if not clock.number or self._over or clock.player is None:
            return None
        return self._next_clockwise(self._players[clock.player].index, clock.team)

    def has_several_turn_markers(self) -> bool:
        """807.4, 807.4a: whether this is a Grand Melee game of 8 or more players still in it,
        which has a turn marker per full four players; version 2 records no simultaneous turns,
        so such a game takes no ``turn``."""
        return self.variant.name == "grand-melee" and len(self._present()) >= 8

    @property
    def first_draw_rule(self) -> str:
        """103.8: the rule that says who skips the draw step of the game's first turn: 103.8a
        (a two-player game: the player who plays first), 810.6 (103.8b, Two-Headed Giant: the
        team who plays first) or 103.8c (every other multiplayer game: no player)."""
        return self._first_draw_rule()

    @property
    def spells_cast(self) -> dict[str, int]:
        """502.2, 731.2: the spells each player has cast this turn (``cast``), as counted for
        day and night; players who cast none are left out."""
        return dict(self._clock.spells)

    def radiation(self) -> dict[str, int]:
        """728.1: each active player still in the game whose rad counters will mill at the
        beginning of this turn's precombat main phase, with the number of cards they mill (their
        rad counters, or fewer cards left in a counted library): the most nonland cards a step
        into or past the main phase can state for them (``nonland_milled``). Empty before the
        first turn and once the main phase has begun."""
        clock = self._clock
        if not clock.number or clock.step >= MAIN or self._over:
            return {}
        out = {}
        for pid in clock.active:
            p = self._players[pid]
            rad = p.counters.get("rad", 0)
            if rad and p.result.is_playing:
                out[pid] = rad if p.library is None else min(rad, p.library)
        return out

    def skips_first_draw(self) -> bool:
        """103.8: whether the player (103.8a, in a two-player game) or team (103.8b, 810.6, in
        Two-Headed Giant) who plays first skips the draw step of their first turn; 103.8c: in
        all other multiplayer games no player does. A two-player game is one that begins with
        two players (800.1: more is multiplayer), whatever its variant."""
        return self._first_draw_rule() != "103.8c"

    def _first_draw_rule(self) -> str:
        """The rule of 103.8 that says who skips the first draw step of this game."""
        if sum(1 for p in self._players.values() if p.game == self.game_number) == 2:
            return "103.8a"
        return "810.6" if self.variant.name == "two-headed-giant" else "103.8c"

    def _draw_step(self) -> None:
        """504.1: the active player draws a card (805.4b: each player on the active team
        does, 121.2d); 103.8: unless it's the first turn of the player or team who plays
        first, and they skip this draw step."""
        clock = self._clock
        if clock.number == 1:
            rule = self._first_draw_rule()
            if rule != "103.8c":
                self._note(
                    rule,
                    f"{self._whose_turn()} plays first and skips the draw step of the first turn",
                )
                return
            self._note(rule, "in a multiplayer game no player skips their first draw step")
        for pid in clock.active:
            if self._players[pid].result.is_playing:
                self._note("504.1", f"{pid} draws a card in the draw step")
                self._do_draw(Draw(pid, 1))

    def _main_phase(self, milled: Mapping[str, int], member: str) -> None:
        """728.1: at the beginning of each active player's precombat main phase, if they have
        rad counters, they mill that many cards; for each nonland card milled they lose 1 life
        and remove a rad counter. The record states how many nonland cards were milled; the
        life is lost as one event (the player loses that much life)."""
        clock = self._clock
        for pid in milled:
            p = self._players[pid]
            if pid not in clock.active or not p.counters.get("rad"):
                raise MalformedError(
                    f"{pid} {'has no rad counters' if pid in clock.active else 'is not active'}"
                    " to mill for (728.1)",
                    member="nonland_milled",
                )
        for pid in clock.active:
            p = self._players[pid]
            rad = p.counters.get("rad", 0)
            if not rad or not p.result.is_playing:
                continue
            if pid not in milled:
                raise MalformedError(
                    f"{pid} has {rad} rad counters: state how many nonland cards they milled "
                    "(728.1) with nonland_milled on the step that begins the main phase",
                    member="nonland_milled" if member == "step" else "do",
                )
            nonland = milled[pid]
            mill = rad if p.library is None else min(rad, p.library)
            if nonland > mill:
                raise MalformedError(
                    f"{pid} milled {mill} cards: {nonland} of them can't be nonland cards",
                    member="nonland_milled",
                )
            if p.library is not None and mill:
                self._set_attribute(p, "library", p.library - mill)
            self._note(
                "728.1", f"{pid} mills {mill} cards for their rad counters, {nonland} nonland"
            )
            if nonland:
                self._set_count(p.counters, "rad", rad - nonland, "a count", "nonland_milled")
                self._changed(p)
                self._lose(p, nonland, member="nonland_milled")

    def _end_step(self) -> None:
        """725.2: at the beginning of the monarch's end step (805.4: their team's), the
        monarch draws a card."""
        monarch = self._marks.monarch
        if (
            monarch is not None
            and monarch in self._clock.active
            and self._players[monarch].result.is_playing
        ):
            self._note("725.2", f"{monarch} is the monarch and draws a card")
            self._do_draw(Draw(monarch, 1))

    def _cleanup(self) -> None:
        """514.2: "until end of turn" and "this turn" effects end."""
        for effect_id, effects in list(self._effects.items()):
            if any(e.until == "end_of_turn" for e in effects):
                self._stop(effect_id)
                self._note("514.2", f"{effect_id} ends with the turn")

    def _do_cast(self, action: Cast) -> None:
        """502.2, 731.2: the spells each player casts this turn are counted for day and
        night."""
        count = self._amount(action.count, "count")
        if count:
            spells = self._clock.spells
            total = spells.get(action.player, 0) + count
            self._set_count(spells, action.player, total, "a count of spells", "count")

    # -- designations (725, 726, 731, 702.131) ----------------------------------------------

    def _do_become_monarch(self, action: BecomeMonarch) -> None:
        """725.1, 725.3: the player becomes the monarch, and the monarch before them ceases to
        be."""
        self._designate("monarch", action.player, "725.3")

    def _do_take_initiative(self, action: TakeInitiative) -> None:
        """726.1, 726.3: the player takes the initiative from whoever had it; 726.5: taking it
        again makes no second initiative."""
        self._designate("initiative", action.player, "726.3")

    def _designate(self, name: str, pid: str, rule: str) -> None:
        marks = self._marks
        old = getattr(marks, name)
        what = "the monarch" if name == "monarch" else "the initiative"
        if old == pid:
            self._note("726.5" if name == "initiative" else rule, f"{pid} already has {what}")
            return
        self._set_field(marks, name, pid)
        if old is not None:
            self._note(rule, f"{old} ceases to have {what}; {pid} has it")

    def _do_day_night(self, action: DayNight) -> None:
        """731.1: it becomes day or night; once it has been either, the game is always one of
        them; 731.1a: day becomes night and night becomes day."""
        old = self._marks.day_night
        if old is not None and old != action.to:
            self._note("731.1a", f"{old} becomes {action.to}")
        self._set_field(self._marks, "day_night", action.to)

    def _do_city_blessing(self, action: CityBlessing) -> None:
        """702.131a-c: the player gets the city's blessing for the rest of the game; any
        number of players may have it."""
        blessed = self._marks.city_blessing
        if action.player in blessed:
            self._note("702.131c", f"{action.player} already has the city's blessing")
            return
        self._set_field(self._marks, "city_blessing", blessed | {action.player})

    def _do_set_library(self, action: SetLibrary) -> None:
        """121.4, 704.5b: the record states how many cards are in the player's library from
        now on; a library it didn't track becomes tracked, and with none left the player's
        next draw is an attempt to draw from an empty library. No card is drawn."""
        self._set_attribute(self._players[action.player], "library", action.count)

    def _combat_damage_to_holder(self, action: Damage, p: Player) -> None:
        """725.2: whenever a creature deals combat damage to the monarch, its controller
        becomes the monarch; 726.2: likewise the initiative. The trigger is controlled by the
        player hit, and resolves after state-based actions (:meth:`apply`). The record names
        the creature's ``controller``."""
        marks = self._marks
        for name in ("monarch", "initiative"):
            if getattr(marks, name) != p.id:
                continue
            if action.controller is None:
                raise MalformedError(
                    f"{p.id} has {'the ' + name}: combat damage to them passes it to the "
                    f"controller of the creature (725.2, 726.2); name the controller",
                    member="controller",
                )
            marks.pending.append((name, action.controller, p.id))

    def _resolve_designation_triggers(self) -> None:
        """725.2, 726.2: the designation triggers that combat damage set off resolve, in the
        order the damage was recorded (the player who controls them orders them, 603.3b); a
        trigger whose controller has left the game is gone with them (800.4a), and a player
        who has left can't become the monarch or take the initiative."""
        marks = self._marks
        pending, marks.pending = marks.pending, []
        for name, new, controller in dict.fromkeys(pending):
            rule = "725.2" if name == "monarch" else "726.2"
            if self._over:
                return
            if not self._players[controller].result.is_playing:
                self._note("800.4a", f"{controller} has left the game: their {name} trigger too")
                continue
            if self._players[new].result.is_playing and getattr(self._marks, name) != new:
                setattr(self._marks, name, new)
                what = "becomes the monarch" if name == "monarch" else "takes the initiative"
                self._note(rule, f"combat damage to {controller}: {new} {what}")

    def _pass_designations(self, gone: set[str]) -> None:
        """725.4, 726.4: if the monarch (the player with the initiative) leaves the game, the
        active player becomes the monarch (takes the initiative) at the same time; if the
        active player is leaving too or no turn is being taken, the next player in turn order
        still in the game does; if none is left, there is none."""
        marks = self._marks
        if not marks.city_blessing.isdisjoint(gone):  # 702.131c: a player's designation
            self._set_field(marks, "city_blessing", marks.city_blessing - gone)
        for name, rule in (("monarch", "725.4"), ("initiative", "726.4")):
            holder = getattr(marks, name)
            if holder is None or holder not in gone:
                continue
            heir = self._heir(holder)
            self._set_field(marks, name, heir)
            self._note(
                rule, f"{holder} leaves the game: {heir if heir else 'no player'} has the {name}"
            )

    def _heir(self, holder: str) -> str | None:
        """The player 725.4 and 726.4 name: the active player (with shared team turns, the
        player whose turn the record began, else the first seated member of the active team
        still in the game), else the next player in turn order (clockwise from the active
        player, or from the departed holder when no turn is being taken)."""
        clock = self._clock
        players = self._players
        if clock.number:
            assert clock.player is not None
            for pid in (clock.player, *clock.active):
                if players[pid].result.is_playing:
                    return pid
            return self._next_clockwise(players[clock.player].index)
        return self._next_clockwise(players[holder].index)

    def _next_clockwise(self, start: int, team: str | None = None) -> str | None:
        """101.4, 103.1: the first player still in the game clockwise after seat ``start``
        (skipping the players of ``team``: the next team's, under shared team turns)."""
        order = list(self._players.values())
        for step in range(1, len(order) + 1):
            q = order[(start + step) % len(order)]
            if q.result.is_playing and (team is None or q.team != team):
                return q.id
        return None

    def _do_together(self, action: Together, prefix: str = "") -> None:
        """704.3: the actions form one event. 609.3: an effect does as much as it can, so an
        inner action the rules refuse (701.12a: an exchange that can't be completed, ...)
        changes nothing and is listed in :attr:`refusals`, and the others happen."""
        for i, inner in enumerate(action.actions):
            position = f"{prefix}{i}"
            try:
                if type(inner) is Together:
                    self._do_together(inner, f"{position}.")
                    continue
                snapshot = self._snapshot()
                noted = len(self.notes)
                try:
                    self._check_in_game(inner.players())
                    self._dispatch(inner)
                except RefusedError as exc:
                    self._restore(snapshot)
                    del self.notes[noted:]
                    self.refusals.append((position, exc))
                    self._note(
                        exc.rule, f"action {position} of the group is refused: {exc.message}"
                    )
            except MalformedError as exc:
                raise exc.at(str(i)) from None

    # -- triggered abilities on the stack (version 2: 117.5, 603, 608, 104.4b, 732) ---------

    def _mirrors_compete(self) -> bool:
        """Whether two or more Lich's Mirrors apply (which replaces a loss is a choice, 616.1)."""
        return len(self._by_kind.get(Kind.LOSING_REPLACED, ())) > 1

    def _armed(self) -> bool:
        """Whether an effect whose triggered abilities use the stack applies."""
        by_kind = self._by_kind
        return bool(self._effects) and any(by_kind.get(k) for k in STACK_KINDS)

    def _queue(
        self,
        kinds: tuple[Kind, ...],
        p: Player,
        amount: int,
        merge: tuple[str, ...] | None,
        what: str,
    ) -> None:
        """119.9, 603.2: the abilities of ``kinds`` that the life event reaches trigger, and
        wait to be put on the stack (603.3). 603.2c, 119.10: an ability triggers once per
        event: a further part of the same event (``merge``: damage dealt at once by a group,
        a lifelink source's gain, 702.15e) adds its amount to the triggers it set off."""
        stack = self._stack
        if merge is not None:
            merged = stack.merge.get(merge)
            if merged is not None:
                for t in merged:
                    t.amount += amount
                return
        new: list[Trigger] = []
        for kind in kinds:
            for effect in self._effects_reaching(kind, p):
                new.append(Trigger(effect.id, effect.controller, kind, amount, p.id))
                count = self.triggered.get(effect.id, 0) + 1
                self._set_count(self.triggered, effect.id, count, "a count", "id")
                self._note("603.2", f"{effect.id} triggers: {p.id} {what} {amount} life")
        stack.pending.extend(new)
        if merge is not None:
            stack.merge[merge] = new

    def _add_trigger(self, effect: Effect, kind: Kind, p: Player, rule: str, what: str) -> None:
        """603.2, 603.8: one ability of ``effect`` triggers (not on a life event: the amount
        is 1, never read) and waits to be put on the stack."""
        self._stack.pending.append(Trigger(effect.id, effect.controller, kind, 1, p.id))
        count = self.triggered.get(effect.id, 0) + 1
        self._set_count(self.triggered, effect.id, count, "a count", "id")
        self._note(rule, f"{effect.id} triggers: {p.id}'s {what}")

    def _state_triggers(self) -> None:
        """603.8: "when you have 20 or more life, you lose the game" (Transcendence) is a state
        trigger: it triggers as soon as its controller has 20 or more life (810.9a: their
        team's total, if shared), and doesn't trigger again while it waits or is on the stack."""
        stack = self._stack
        for effect in self._by_kind.get(Kind.LOSE_AT_20_LIFE, ()):
            p = self._players[effect.controller]
            if not p.result.is_playing or p.life.value < 20:
                continue
            if any(
                t.id == effect.id and t.kind is Kind.LOSE_AT_20_LIFE
                for t in (*stack.pending, *stack.items)
            ):
                continue
            self._add_trigger(effect, Kind.LOSE_AT_20_LIFE, p, "603.8", f"life is {p.life.value}")

    def _apnap(self) -> list[str]:
        """101.4: the players in turn order (seating order), from the active player (the
        player whose turn the record began); before the first turn, from the first seat.
        805.6, 805.7: under shared team turns every member of the active team comes before
        the nonactive teams (from the player the turn named, then their teammates clockwise),
        whatever seat the turn named."""
        order = list(self._players)
        start = self._players[self._clock.player].index if self._clock.player else 0
        order = order[start:] + order[:start]
        team = self._clock.team
        if team is None:
            return order
        players = self._players
        return [p for p in order if players[p].team == team] + [
            p for p in order if players[p].team != team
        ]

    def _legal_targets(self, controller: str) -> list[str]:
        """115.1, 801.5: "target opponent": an opponent still in the game, within the
        controller's range of influence."""
        return [
            q.id
            for q in self._present()
            if self.are_opponents(controller, q.id) and self.is_in_range(controller, q.id)
        ]

    def _put_on_stack(self) -> None:
        """117.5, 603.3b: the triggered abilities waiting are put on the stack, each player in
        APNAP order (101.4) putting theirs in the order they stated (:meth:`choose`); a player
        with abilities of two or more effects at once who stated no order for them makes the
        action malformed: the record states it, the engine never guesses. 603.3d: a target is
        chosen as the ability goes on the stack (the first legal player the record stated, or
        the only legal one); with none, the ability is removed."""
        stack = self._stack
        pending, stack.pending = stack.pending, []
        stack.merge.clear()
        mine: dict[str, list[Trigger]] = {}
        for t in pending:
            if t.amount <= 0:  # 119.9, 119.10 (never so: a part of 0 is no event)
                continue
            if not self._players[t.controller].result.is_playing:
                self._note("800.4a", f"{t.id} leaves the game with {t.controller}")
                continue
            mine.setdefault(t.controller, []).append(t)
        apnap = self._apnap()
        stated = self._team_orders(mine, apnap) if self.variant.shared_turns else {}
        for pid in apnap:
            batch = mine.get(pid)
            if not batch:
                continue
            ids = list(dict.fromkeys(t.id for t in batch))
            if len(ids) > 1:
                order = stated.get(pid) or stack.order.get(pid, ())
                missing = [i for i in ids if i not in order]
                if missing:
                    raise ChoiceNeeded(
                        f"{pid} puts the triggered abilities of {', '.join(ids)} on the stack at "
                        f"once: state their order with choose (603.3b); {', '.join(missing)} "
                        "is not in it",
                        player=pid,
                        choice="order",
                        ids=tuple(ids),
                        options=tuple(ids),
                    )
                batch.sort(key=lambda t: order.index(t.id))  # stable: one effect's in order
            for t in batch:
                if t.kind is Kind.GAIN_DRAINS_TARGET:
                    target = self._choose_target(t)
                    if target is None:
                        self._note("603.3d", f"{t.id} has no legal target: it is removed")
                        continue
                    t.target = target
                stack.items.append(t)
                self._note("603.3b", f"{t} is put on the stack")

    def _team_orders(
        self, mine: dict[str, list[Trigger]], apnap: list[str]
    ) -> dict[str, tuple[str, ...]]:
        """805.7: under shared team turns the members of each team put all the triggered
        abilities any of them controls on the stack in any order they choose. Where two or more
        members of a team have abilities waiting and a member of it in the game (the first in
        APNAP order) stated an ``order`` that lists every one of them, they go on the stack
        together in that order, interleaved: their batches are merged into the first member's
        in ``mine``, and that order is returned for it. Otherwise each member puts theirs on in
        their own order, member by member."""
        players, order = self._players, self._stack.order
        stated: dict[str, tuple[str, ...]] = {}
        for team in self._teams.values():
            members = [pid for pid in apnap if players[pid].team == team.id]
            waiting = [pid for pid in members if mine.get(pid)]
            if len(waiting) < 2:
                continue
            batch = [t for pid in waiting for t in mine[pid]]
            ids = {t.id for t in batch}
            for pid in members:
                if players[pid].result.is_playing and ids.issubset(order.get(pid, ())):
                    mine[waiting[0]] = batch
                    for other in waiting[1:]:
                        del mine[other]
                    stated[waiting[0]] = order[pid]
                    self._note("805.7", f"team {team.id} orders its abilities as {pid} stated")
                    break
        return stated

    def _choose_target(self, t: Trigger) -> str | None:
        legal = self._legal_targets(t.controller)
        for pid in self._stack.targets.get(t.id, ()):
            if pid in legal:
                return pid
        if len(legal) > 1:
            raise ChoiceNeeded(
                f"{t.id} targets an opponent of {t.controller}: state which with choose "
                f"(603.3d); {', '.join(legal)} are legal targets",
                player=t.controller,
                choice="targets",
                ids=(t.id,),
                options=tuple(legal),
            )
        return legal[0] if legal else None

    def open_choices(self) -> tuple[OpenChoice, ...]:
        """The choices players would be asked for now, before any action makes their
        triggered abilities need them (version 2; none in version 1), in seating order:

        - 603.3d, 115.1: for each effect of a player in the game whose ability targets an
          opponent (Sanguine Bond, Vito) with two or more legal targets now (opponents in the
          game, within range: 801.5) and no legal one among those its controller stated
          (``choose`` ``targets``): which opponent it targets;
        - 603.3b: for each player in the game who controls two or more effects (ids) whose
          triggered abilities use the stack, which can trigger and wait at once (one
          ``together`` group can gain and lose life both), without a stated ``order`` that
          lists them all: the order in which they go on the stack;
        - 616.1: for each player in the game whose gains of life both a Remedy and a life
          doubler would replace, without stated ``replacements`` that list them all: the
          order in which they apply; and for each player (for a team that shares its life
          total, its first seated member in the game) whose loss of the game two or more Lich's
          Mirrors would replace, without stated ``replacements`` that list them all: which
          applies (the first listed).

        Each is a standing choice: once stated it stays until stated again, and the choice is
        open again only when what is legal changes (a stated target leaves the game, a new
        card enters)."""
        if not self._v2 or not self._effects or self._over:
            return ()
        stack = self._stack
        mine: dict[str, list[str]] = {}
        targeting: dict[str, list[str]] = {}
        for effect_id, group in self._effects.items():
            for effect in group:
                if effect.kind in STACK_KINDS:
                    ids = mine.setdefault(effect.controller, [])
                    if effect_id not in ids:
                        ids.append(effect_id)
                if effect.kind is Kind.GAIN_DRAINS_TARGET:
                    targeting.setdefault(effect.controller, []).append(effect_id)
        out: list[OpenChoice] = []
        for p in self._present():
            for effect_id in targeting.get(p.id, ()):
                legal = self._legal_targets(p.id)
                stated = stack.targets.get(effect_id, ())
                if len(legal) > 1 and not any(pid in legal for pid in stated):
                    out.append(OpenChoice(p.id, "targets", (effect_id,), tuple(legal)))
            ids = mine.get(p.id, [])
            order = stack.order.get(p.id, ())
            if len(ids) > 1 and any(i not in order for i in ids):
                out.append(OpenChoice(p.id, "order", tuple(ids), tuple(ids)))
            replacements = self._can_gain(p) and self._unstated_replacement_order(
                p,
                list(self._effects_reaching(Kind.GAIN_BECOMES_LOSS, p)),
                list(self._effects_reaching(Kind.GAIN_LIFE_TIMES, p)),
            )
            if replacements:
                out.append(replacements)
            heads = self._life_group(p)
            if p is next(m for m in heads if m.result.is_playing):
                mirror = self._unstated_mirror(heads, self._mirrors(heads))
                if mirror is not None:
                    out.append(mirror)
        return tuple(out)

    def standing_targets(self) -> dict[str, tuple[str | None, tuple[str, ...]]]:
        """603.3d, 115.1: for each effect of a player in the game whose ability targets an
        opponent (Sanguine Bond, Vito), ``(target, legal)``: the player it would target if it
        triggered now (the first legal one its controller stated, else the only legal one,
        else ``None``: none, or a choice still open, :meth:`open_choices`) and its legal
        targets now (801.5). Version 2; empty in version 1."""
        if not self._v2 or not self._effects:
            return {}
        out: dict[str, tuple[str | None, tuple[str, ...]]] = {}
        for effect in self._by_kind.get(Kind.GAIN_DRAINS_TARGET, ()):
            if effect.id in out or not self._players[effect.controller].result.is_playing:
                continue
            legal = self._legal_targets(effect.controller)
            stated = [pid for pid in self._stack.targets.get(effect.id, ()) if pid in legal]
            target = stated[0] if stated else legal[0] if len(legal) == 1 else None
            out[effect.id] = (target, tuple(legal))
        return out

    def _resolve(self, t: Trigger) -> None:
        """608.2: the ability on top of the stack resolves; 608.2b: one whose target is no
        longer legal doesn't (the target has left the game, 800.4)."""
        controller = self._players[t.controller]
        if t.kind is Kind.GAIN_DRAINS_TARGET:
            assert t.target is not None
            if t.target not in self._legal_targets(t.controller):
                self._note("608.2b", f"{t} doesn't resolve: its target is illegal")
                return
            self._note("608.2", f"{t} resolves: {t.target} loses {t.amount} life")
            self._lose(self._players[t.target], t.amount)
        elif t.kind is Kind.GAIN_DRAINS_EACH:
            opponents = self._legal_targets(t.controller)  # each opponent within range, 801.10
            self._note("608.2", f"{t} resolves: {', '.join(opponents) or 'no one'} loses 1 life")
            for pid in opponents:
                self._lose(self._players[pid], 1)
        elif t.kind is Kind.LOSS_GAINS_TWICE:
            gain = 2 * t.amount
            self._note("608.2", f"{t} resolves: {t.controller} gains {gain} life (2 for each 1)")
            self._gain(controller, gain)
        elif t.kind is Kind.LOSE_AT_20_LIFE:
            # 603.8: the condition is not checked again as it resolves (no "if"): it loses.
            self._note("608.2", f"{t} resolves: {t.controller} loses the game (104.3e)")
            self._do_lose(Lose((t.controller,), source=t.id))
        elif t.kind is Kind.OMEN_COUNTDOWN:
            self._remove_omen(t)
        elif t.kind is Kind.LAST_OMEN:
            self._highest_life_wins(t)
        else:
            self._note("608.2", f"{t} resolves: {t.controller} gains {t.amount} life")
            self._gain(controller, t.amount)

    def _remove_omen(self, t: Trigger) -> None:
        """608.2, 122.1: an omen counter is removed from Celestial Convergence (if it has one
        left, and is still in the game); 603.2: removing the last triggers its last ability."""
        omens = self._stack.omens
        left = omens.get(t.id, 0)
        if left <= 0 or t.id not in self._effects:
            self._note("608.2", f"{t} resolves: no omen counter to remove")
            return
        self._set_count_any(omens, t.id, left - 1)
        self._note("608.2", f"{t} resolves: an omen counter is removed, {left - 1} left")
        if left == 1:
            effect = self._effects[t.id][0]
            p = self._players[t.controller]
            self._add_trigger(effect, Kind.LAST_OMEN, p, "603.2", "last omen counter is removed")

    def _highest_life_wins(self, t: Trigger) -> None:
        """104.2b, 104.4c: "the player with the highest life total wins the game. If two or
        more players are tied for highest life total, the game is a draw." The players still
        in the game are compared; 801.11: with limited range of influence, only those within
        the controller's range (801.14: the winner's opponents within their range lose
        instead; 801.15: the draw is for those within the controller's range); 810.9a: a team
        that shares its life total is one competitor with that total (its players are not
        tied with each other: 810.8a, the team wins together)."""
        totals: dict[object, tuple[int, str]] = {}
        for p in self._present():
            if not self.is_in_range(t.controller, p.id):
                continue
            key: object = p.team if self._shares_life(p) else p.id
            totals.setdefault(key, (p.life.value, p.id))
        if not totals:
            return
        highest = max(life for life, _ in totals.values())
        top = [pid for life, pid in totals.values() if life == highest]
        if len(top) > 1:
            self._note(
                "104.4c",
                f"{t} resolves: {', '.join(top)} are tied for the highest life total "
                f"({highest}): the game is a draw",
            )
            self._do_draw_game(DrawGame(t.controller, source=t.id))
        else:
            self._note(
                "104.2b", f"{t} resolves: {top[0]} has the highest life total ({highest}) and wins"
            )
            self._do_win(Win(top[0], source=t.id))

    def _run_stack(self) -> None:
        """117.5, 704.3: a player would receive priority: state-based actions have been
        checked; the triggered abilities waiting are put on the stack; the top one resolves
        (every player passes, 608.1); state-based actions are checked again; and so on until
        the stack is empty or the game is over.

        104.4b, 732.4: each time the stack's top repeats (the same ability of the same
        controller with the same target, the part of the stack beneath untouched since),
        the engine compares the two moments (:meth:`_loop_between`): a loop of mandatory
        actions that can't end is a draw (104.4b; 801.16 under the limited range of
        influence option); one that will end by state-based actions is skipped forward by
        the whole cycles before it does (computed, not simulated)."""
        stack = self._stack
        seen: dict[tuple[Any, ...], list[Any]] = {}
        lost: dict[str, int] = dict.fromkeys(self._players, 0)
        gained: dict[str, int] = dict.fromkeys(self._players, 0)
        while not self._over:
            if self._effects and self._by_kind.get(Kind.LOSE_AT_20_LIFE):
                self._state_triggers()
            if stack.pending:
                self._put_on_stack()
            items = stack.items
            if not items:
                return
            point = self._loop_point(lost, gained)
            key = items[-1].shape()
            earlier = seen.get(key)
            if earlier is not None:
                decided = self._loop_between(earlier, point, lost)
                if decided:
                    return
                if decided is None:  # skipped forward: start afresh
                    seen.clear()
                    continue
            seen[key] = point
            self._spend(1 + len(items) + len(self.triggered))  # the loop point's copies
            top = items.pop()
            for mark in seen.values():
                mark[1] = min(mark[1], len(items))
            before = {pid: p.life.value for pid, p in self._players.items()}
            self._resolve(top)
            if self._event is not None:  # an effect's win, loss or draw (104.2b, 104.3e)
                self._settle_event()
                self._event = None
            for pid, p in self._players.items():
                if p.life.value < before[pid]:
                    lost[pid] += before[pid] - p.life.value
                elif p.life.value > before[pid]:
                    gained[pid] += p.life.value - before[pid]
            if self._dirty != _NOBODY:
                self._check_state_based_actions()
            if self._over:
                break
            # 800.4a: the abilities of a player who left the game leave with them.
            stack.items = [t for t in stack.items if self._players[t.controller].result.is_playing]
            stack.resolved += 1
            if stack.resolved > MAX_RESOLUTIONS or len(stack.items) > MAX_HEIGHT:
                what = (
                    f"resolve more than {MAX_RESOLUTIONS:,} times"
                    if stack.resolved > MAX_RESOLUTIONS
                    else f"pile up more than {MAX_HEIGHT:,} high on the stack"
                )
                raise MalformedError(
                    f"the triggered abilities {what} without ending or repeating in a way the "
                    "engine can decide; record the loop's result (loop, or a shortcut, 732.2a)",
                    member="do",
                )
        stack.items = []
        stack.pending = []

    def _loop_point(self, lost: Mapping[str, int], gained: Mapping[str, int]) -> list[Any]:
        """The moment before the top of the stack resolves: ``[stack height, lowest height
        since, shapes, amounts, life totals, life lost so far, trigger counts, who is in the
        game, which effects apply, life gained so far]``."""
        items = self._stack.items
        return [
            len(items),
            len(items),
            [t.shape() for t in items],
            [t.amount for t in items],
            {pid: p.life.value for pid, p in self._players.items()},
            dict(lost),
            dict(self.triggered),
            [pid for pid, p in self._players.items() if p.result.is_playing],
            list(self._effects),
            dict(gained),
        ]

    def _cannot_lose_for_life(self, p: Player) -> bool:
        """104.3, 810.8a; "you don't lose the game for having 0 or less life": nothing that
        lowers this player's life total can make them lose the game."""
        return self._reaches(Kind.CANT_LOSE_GAME, p) or self._reaches(Kind.NO_LOSS_FOR_LIFE, p)

    def _loop_between(
        self, earlier: list[Any], now: list[Any], lost: Mapping[str, int]
    ) -> bool | None:
        """Decide the loop between two moments with the same top of the stack, if it is one:
        True if the game is a draw (104.4b), None if it was skipped forward, False if the
        engine goes on resolving one ability at a time.

        It is a loop when the same players are in the game under the same effects, and the
        part of the stack above the lowest height reached since ``earlier`` was (the part it
        resolved) is again on top now, ability for ability: what follows repeats what
        followed, since no ability of the catalogue depends on a life total, and nothing
        but state-based actions (a player with 0 or less life, 704.5a) can stop it. Every
        ability of the catalogue is mandatory ("may" is in none of them), so it is a loop of
        mandatory actions (104.4b, 732.4) that ends only if a player who can lose it has
        their life lowered by it:

        - if every player whose life it lowers can't lose for it (Platinum Angel, 104.3;
          Transcendence), it never ends: a draw;
        - if it repeats exactly (the same amounts, the same height) and every player who
          could lose has as much life or more after each cycle, each cycle's state-based
          checks find them at least as high as the last one did: a draw;
        - if it repeats exactly and lowers such a player's total, the cycles before the
          first in which any of them could reach 0 are skipped at once (their life changes
          and trigger counts multiplied), and the rest resolves one ability at a time.

        A cycle whose amounts grow (a life doubler) is resolved one ability at a time: its
        amounts at least double each cycle, so it ends within a few thousand cycles (or its
        totals pass 10^1000, and the record is malformed)."""
        height, low, shapes, amounts = earlier[0], earlier[1], earlier[2], earlier[3]
        if now[7] != earlier[7] or now[8] != earlier[8]:
            return False
        top = shapes[low:]
        # The copy of the part resolved since is on top, above the part left untouched.
        if not top or len(now[2]) - len(top) < low or now[2][len(now[2]) - len(top) :] != top:
            return False
        players = self._players
        in_cycle = {pid: lost[pid] - earlier[5][pid] for pid in now[7]}
        losers = [
            pid
            for pid, amount in in_cycle.items()
            if amount > 0 and not self._cannot_lose_for_life(players[pid])
        ]
        exact = len(now[2]) == height and now[3][low:] == amounts[low:]
        change = {pid: now[4][pid] - earlier[4][pid] for pid in now[7]}
        # 603.8: "when you have 20 or more life, you lose the game" (Transcendence) reads the
        # life total: a cycle that raises the total of such a player who can lose the game
        # ends when it reaches 20 (the state trigger goes on the stack and resolves first).
        rising = [
            pid
            for pid in now[7]
            if change[pid] > 0
            and not self._reaches(Kind.CANT_LOSE_GAME, players[pid])
            and any(
                e.controller == pid and e.id in self._effects
                for e in self._by_kind.get(Kind.LOSE_AT_20_LIFE, ())
            )
        ]
        controllers = sorted(
            {s[1] for s in now[2][len(now[2]) - len(top) :]} | {s[1] for s in top},
            key=lambda c: players[c].index,
        )
        if not rising and (not losers or (exact and all(change[pid] >= 0 for pid in losers))):
            self._note(
                "732.4",
                f"the triggered abilities of {', '.join(s[0] for s in top)} repeat with no way "
                "to stop and no player able to lose by them: a loop of mandatory actions",
            )
            self._do_loop(Loop(tuple(controllers)))
            self._settle_event()
            self._event = None
            self._stack.items = []
            self._stack.pending = []
            return True
        if not exact:
            return False
        # The whole cycles before any loser could reach 0 (their life, less 1, less what
        # they lose within a cycle, by their net loss per cycle), and before any rising
        # Transcendence could reach 20 (19, less their life, less what they gain within a
        # cycle, by their net gain per cycle).
        bounds = [
            max(0, (now[4][pid] - 1 - in_cycle[pid]) // -change[pid])
            for pid in losers
            if change[pid] < 0
        ] + [
            max(0, (19 - now[4][pid] - (now[9][pid] - earlier[9][pid])) // change[pid])
            for pid in rising
        ]
        cycles = min(bounds) if bounds else 0
        if cycles < 1:
            return False
        done: set[int] = set()
        for pid in now[7]:
            p = players[pid]
            if change[pid] and id(p.life) not in done:
                done.add(id(p.life))
                self._set_life(p, p.life.value + cycles * change[pid], "amount")
        for effect_id, count in now[6].items():
            more = count - earlier[6].get(effect_id, 0)
            if more:
                total = count + cycles * more
                self._set_count(self.triggered, effect_id, total, "a count", "id")
        self._note(
            "732.2a",
            f"the loop of {', '.join(s[0] for s in top)} repeats {cycles:,} more times at once "
            "(computed): "
            + ", ".join(f"{pid} {cycles * change[pid]:+,} life" for pid in now[7] if change[pid]),
        )
        return None

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

    def _check_choose(self, action: Choose) -> None:
        self._check_version_2(action)
        for member, ids in (
            ("order", action.order),
            ("targets", [i for i, _ in action.targets]),
            ("replacements", action.replacements),
        ):
            for effect_id in ids:
                if effect_id not in self._known_ids:
                    raise MalformedError(
                        f"no effect or card has the id {quote(effect_id)}", member=member
                    )
        for _, players in action.targets:
            for pid in players:
                self._get(pid, "targets")

    def _do_choose(self, action: Choose) -> None:
        """603.3b, 603.3d: the player's choices stand until they state them again.

        Each choice is one player's, and only theirs counts: the order of triggered abilities
        and their targets are their controller's (603.3b, 603.3d, 601.2c, 115.1), the order of
        replacement effects the affected player's (616.1). What a player states of a choice
        that isn't theirs is ignored (a note says so where the engine can tell already: an
        ability another player controls); the rest of their statement stands."""
        stack = self._stack
        player = action.player
        team_orders = self.variant.shared_turns  # 805.7: a team orders its members' abilities
        for effect_id in action.order:
            owner = self._controller_of(effect_id)
            if team_orders and owner is not None and not self.are_opponents(owner, player):
                continue
            if owner is not None and owner != player:
                self._note(
                    "603.3b",
                    f"{effect_id} is {owner}'s: {owner} orders its abilities, {player}'s "
                    "statement of it is ignored",
                )
        if action.order:
            self._set_count_any(stack.order, action.player, action.order)
        if action.replacements:
            # The ids stated come first, in their order; those stated before keep theirs
            # after them (a statement on one event leaves the order on another standing).
            kept = stack.replacements.get(action.player, ())
            stated = set(action.replacements)  # each statement costs its length, however long
            merged = (*action.replacements, *(i for i in kept if i not in stated))
            self._set_count_any(stack.replacements, action.player, merged)
        for effect_id, players in action.targets:
            owner = self._controller_of(effect_id)
            if owner is not None and owner != player:
                # 603.3d, 601.2c: the controller chooses the targets; another's word changes
                # nothing, not even a statement of the controller's own that it would follow.
                self._note(
                    "603.3d",
                    f"{effect_id} is {owner}'s: {owner} chooses its targets, {player}'s "
                    "statement of them is ignored",
                )
                continue
            self._set_count_any(stack.targets, effect_id, players)

    def _controller_of(self, effect_id: str) -> str | None:
        """The controller of the effect or card ``effect_id`` that applies now (``None``: none
        does: it has ended, and no ability of it will trigger again)."""
        group = self._effects.get(effect_id)
        return group[0].controller if group else None

    def repeat(self, times: int, *actions: Action, source: str | None = None) -> None:
        """732.2a: a shortcut: ``actions`` in order, ``times`` times. Version 2."""
        self._apply_typed(Repeat(times, actions, source=source))

    def _check_repeat(self, action: Repeat) -> None:
        self._check_version_2(action)
        for i, inner in enumerate(action.actions):
            try:
                if type(inner) in (Restart, Turn, BeginStep, Repeat):
                    raise MalformedError(
                        f"a shortcut repeats actions within a turn, not {inner.do}", member="do"
                    )
                self._check_members(inner)
            except MalformedError as exc:
                raise exc.at(str(i)) from None

    def _do_repeat(self, action: Repeat) -> None:
        """732.2a: a shortcut the players agreed to: the actions, each an event followed by
        priority (117.5: state-based actions, then triggered abilities resolve), repeated the
        stated number of times, or until the game ends. An action of it the rules refuse
        makes the whole shortcut illegal: refused, and nothing of it happens.

        Iterations that change the game's integers by the same amounts, leaving everything
        else as it was, are settled at once (:meth:`_settle_iterations`): the result is the
        one iterating gives, in work that doesn't grow with their number."""
        snapshot = self._snapshot()
        journal = self._journal
        mark = len(journal)
        try:
            times = action.times
            done = 0
            # Iterations are compared (:meth:`_shortcut_point`) at the boundaries after the
            # first few since ``base`` and then at exponentially spaced ones.
            base = 0
            point: _Point | None = None
            step: _Step | None = None
            settle = self._settle_shortcuts
            while done < times:
                run = done - base
                measured = settle and times - done > 1 and _measured(run)
                if measured and point is None:
                    point = self._shortcut_point()
                resolved, refused = self._stack.resolved, len(self.refusals)
                self._iteration(action)
                done += 1
                del journal[mark:]  # the snapshot undoes a failed shortcut: see below
                if self._over:
                    break
                if not measured or point is None:
                    point = step = None
                    continue
                after = self._shortcut_point()
                now = _step_between(point, after, self._stack.resolved - resolved)
                if now is not None and len(self.refusals) != refused:
                    now = None  # a refused part is listed for each iteration: iterate
                if now is not None and now == step and times - done > 1:
                    settled = self._settle_iterations(action, after, now, times - done)
                    if settled:
                        done += settled + 1  # and the iteration that verified them
                        del journal[mark:]
                        base, point, step = done, None, None
                        if self._over:
                            break
                        continue
                point, step = after, now
            self._note("732.2a", f"a shortcut: {done:,} of {action.times:,} iterations")
        except BaseException:
            self._restore(snapshot)
            del journal[mark:]  # what the iterations changed is undone by the snapshot
            raise

    #: Whether :meth:`_do_repeat` settles linear iterations at once (tests compare it with
    #: iterating every one).
    _settle_shortcuts = True

    def _iteration(self, action: Repeat) -> None:
        """One iteration of a shortcut (732.2a): each action an event followed by priority."""
        self._spend(len(action.actions))  # each action of an iteration is a step
        for inner in action.actions:
            self._check_in_game(inner.players())
            if type(inner) is Together:
                self._event = _Event({p.id: p.life.value for p in self._players.values()})
                self._do_together(inner)
            else:
                self._dispatch(inner)
            self._priority()
            if self._marks.pending:
                self._resolve_designation_triggers()
            if self._over:
                break

    def _shortcut_point(self) -> _Point:
        """The game between two iterations of a shortcut, as :meth:`_settle_iterations` reads
        it: every integer of the game by where it is (life and poison by the first player
        holding the total: teammates may share one, 810.9a, 810.10a; counters, commander
        damage, tracked libraries, trigger counts, omen counters, spells cast), and the shape
        of everything else (which integers there are, results, effects, designations, the
        turn, the stack, the stated choices, ranges of influence)."""
        ints: dict[tuple[str, ...], int] = {}
        seen: set[int] = set()
        players = self._players
        for pid, p in players.items():
            if id(p.life) not in seen:
                seen.add(id(p.life))
                ints[("life", pid)] = p.life.value
            if id(p.poison) not in seen:
                seen.add(id(p.poison))
                ints[("poison", pid)] = p.poison.value
            for kind, n in p.counters.items():
                ints[("counters", pid, kind)] = n
            for commander, n in p.commander_damage.items():
                ints[("commander_damage", pid, commander)] = n
            if p.library is not None:
                ints[("library", pid)] = p.library
        for effect_id, n in self.triggered.items():
            ints[("triggered", effect_id)] = n
        stack, clock, marks = self._stack, self._clock, self._marks
        for effect_id, n in stack.omens.items():
            ints[("omens", effect_id)] = n
        for pid, n in clock.spells.items():
            ints[("spells", pid)] = n
        self._spend(1 + len(ints) // 16)
        shape = (
            tuple(ints),
            tuple((p.result, p.drew_from_empty) for p in players.values()),
            tuple(t.result for t in self._teams.values()),
            self._over,
            self.game_number,
            tuple((effect_id, len(group)) for effect_id, group in self._effects.items()),
            tuple((kind, len(group)) for kind, group in self._by_kind.items()),
            (clock.number, clock.player, clock.active, clock.team, clock.step, clock.starting),
            (marks.monarch, marks.initiative, marks.day_night, marks.city_blessing),
            tuple(marks.pending),
            tuple((*t.shape(), t.amount) for t in stack.items),
            tuple((*t.shape(), t.amount) for t in stack.pending),
            dict(stack.order),
            dict(stack.targets),
            dict(stack.replacements),
            dict(self._in_range),
        )
        return ints, shape

    def _settle_iterations(self, action: Repeat, at: _Point, step: _Step, left: int) -> int:
        """732.2a: the last two iterations of the shortcut changed every integer of the game
        by the same amounts (``step``) and nothing else; the players agree on the result of
        the next ones. Settle as many as can be at once and return how many (0: none): J of
        them are J times the change, verified by playing the next one for real from there
        (it must change the same amounts, nothing else). What can end the sameness is a
        threshold along a straight line (0 or less life, 10 poison counters, an empty
        library, 20 life under Transcendence, a total past 10^1000, ...), crossed once: if
        the iteration after J is as the others, so was every one before it; if not, the
        largest J that is is found by bisection, and the iterations after it are played one
        by one (the one that crosses: a player dying, say). Skipped iterations cost no steps
        of work; their resolutions count toward the action's bound (:data:`MAX_RESOLUTIONS`):
        the iteration that would pass it is played, and fails, for real. An upkeep win at
        exactly 1 life (Near-Death Experience) is no threshold: such a game is iterated."""
        if self._effects and self._by_kind.get(Kind.WIN_AT_UPKEEP_WITH_1):
            return 0
        resolved = step[1]
        most = left - 1  # the last iteration to settle is played to verify them
        if resolved:
            most = min(most, (MAX_RESOLUTIONS - self._stack.resolved) // resolved - 1)
        if most < 1:
            return 0
        if self._settles(action, at, step, most, keep=True):
            return most
        low, high = 0, most  # low verifies (0: trivially), high doesn't
        while high - low > 1:
            middle = (low + high) // 2
            if self._settles(action, at, step, middle, keep=False):
                low = middle
            else:
                high = middle
        if low and not self._settles(action, at, step, low, keep=True):
            return 0  # (never: the same jump verified a moment ago)
        return low

    def _settles(self, action: Repeat, at: _Point, step: _Step, count: int, *, keep: bool) -> bool:
        """Whether ``count`` iterations of ``step`` settled at once, then one played, give
        the same change again with the same shape; kept (with the played one) only if they
        do and ``keep``, else the game is put back as it was."""
        snapshot = self._snapshot()
        dirty = self._dirty
        was_dirty = None if dirty is None else tuple(p.id for p in dirty)
        notes, touched = len(self.notes), set(self._touched)
        ints, shape = at
        delta, resolved = step
        ok = False
        try:
            if self._jump(ints, delta, count):
                self._stack.resolved += count * resolved
                self._note(
                    "732.2a",
                    f"{count:,} iterations of the shortcut change the game as the last one "
                    "did: settled at once (computed)",
                )
                before = self._stack.resolved
                self._iteration(action)
                if not self._over:
                    after = self._shortcut_point()
                    moved = _step_between((_moved(ints, delta, count), shape), after, 0)
                    ok = (
                        moved is not None
                        and moved[0] == delta
                        and self._stack.resolved - before == resolved
                    )
        except TooMuchWork:
            raise
        except (MalformedError, RefusedError):
            ok = False  # a later iteration fails: it is played for real, and fails then
        if ok and keep:
            return True
        self._restore(snapshot)
        self._dirty = self._dirty_again(was_dirty)
        self._event = None
        del self.notes[notes:]
        self._touched.intersection_update(touched)
        return ok

    def _jump(
        self, ints: Mapping[tuple[str, ...], int], delta: Mapping[tuple[str, ...], int], count: int
    ) -> bool:
        """Add ``count`` times ``delta`` to the integers (the game is at ``ints``), undoably;
        False if one would leave what it can be (a count below 0, a total past 10^1000)."""
        players = self._players
        for key, change in delta.items():
            if not change:
                continue
            value = ints[key] + count * change
            what, *where = key
            if what != "life" and value < 0:
                return False
            if not -MAX_INTEGER <= value <= MAX_INTEGER:
                return False
            if what == "life":
                self._set_life(players[where[0]], value, "amount")
            elif what == "poison":
                p = players[where[0]]
                self._set_total(p, p.poison, value, "poison counters", "amount")
                self._touch(p)
            elif what == "counters":
                p = players[where[0]]
                self._set_count(p.counters, where[1], value, "counters", "amount")
                self._changed(p)
            elif what == "commander_damage":
                p = players[where[0]]
                self._set_count(p.commander_damage, where[1], value, "damage", "amount")
                self._changed(p)
                self._touch(p)
            elif what == "library":
                self._set_attribute(players[where[0]], "library", value)
            elif what == "triggered":
                self._set_count_any(self.triggered, where[0], value)
            elif what == "omens":
                self._set_count_any(self._stack.omens, where[0], value)
            else:  # spells
                self._set_count_any(self._clock.spells, where[0], value)
        return True

    def _set_count_any(self, mapping: dict[str, Any], key: str, value: object) -> None:
        """Set ``mapping[key]``, undoably (:meth:`_roll_back`)."""
        self._journal.append((mapping, key, mapping.get(key)))
        mapping[key] = value

    # -- settling results -------------------------------------------------------------------

    def _settle_event(self) -> None:
        """104.1, 104.3f: the draws, then the wins and losses an action states, happen as it
        ends, simultaneously."""
        event = self._stated()
        for players, result in event.draws:
            if not self._over:
                self._draw_for(players, result)
        if not self._over and (event.wins or event.losses):
            self._settle(dict(event.losses), event.wins)

    def _settle(self, losses: dict[str, Result], wins: Sequence[str] = ()) -> None:
        """Players lose simultaneously, and maybe others win.

        104.3f: a player who would both win and lose loses, and their win never happens.
        104.2b: when a player wins, the game ends for everyone: their opponents lose, can't
        lose effects notwithstanding. 104.4a, 104.4d: if every player still in the game loses
        at once, the game is a draw.
        """
        if losses and self._v2 and self._effects and self._by_kind.get(Kind.LOSING_REPLACED):
            self._replace_losing(losses)  # 614.1a: before the losses happen (614.6)
            if not losses and not wins:
                return
        present = self._present()
        spared: set[str] = set()  # generals whose Lich's Mirror replaced their 809.5b loss
        self._spread_to_teams(losses, spared)
        winners = [
            w for w in dict.fromkeys(wins) if self._players[w].result.is_playing and w not in losses
        ]
        for w in winners:
            for q in present:
                if self.are_opponents(w, q.id):
                    losses.setdefault(q.id, Result(Status.LOST, Reason.OPPONENT_WON, "104.2b"))
        self._spread_to_teams(losses, spared)
        # 104.3f again: a winner whom another's simultaneous win makes lose, loses.
        winners = [w for w in winners if w not in losses]
        if not winners and all(p.id in losses for p in present):
            rule = "104.4d" if self.variant.between_teams else "104.4a"
            draw = Result(Status.DREW, Reason.SIMULTANEOUS_LOSS, rule)
            for p in present:
                self._set_result(p, draw)
            self._left(present)
            return
        for pid, result in losses.items():
            self._set_result(self._players[pid], result)
        if winners:
            self._win_with_team(winners, Result(Status.WON, Reason.EFFECT, "104.2b"))
        self._left([self._players[pid] for pid in losses])

    def _spread_to_teams(self, losses: dict[str, Result], spared: set[str]) -> None:
        """810.8a: where a team shares its life total, a member's loss is the team's; 809.5b:
        a team whose emperor loses, loses (``spared``: the generals whose Lich's Mirror has
        replaced that loss, 614.1a, once and for all)."""
        for pid in list(losses):
            p = self._players[pid]
            if p.team is None:
                continue
            if self._teams[p.team].shares_life:
                follow = Result(Status.LOST, Reason.TEAMMATE, "810.8a")
            elif self.variant.emperor_leads and p.seat.emperor:
                follow = Result(Status.LOST, Reason.EMPEROR, "809.5b")
            else:
                continue
            for mate in self._teams[p.team].members:
                if not mate.result.is_playing or mate.id in losses or mate.id in spared:
                    continue
                # 101.2, 104.3: a general who can't lose the game doesn't (810.8a has no
                # counterpart here: in Two-Headed Giant such an effect protects the team).
                if follow.reason is Reason.EMPEROR and self._reaches(Kind.CANT_LOSE_GAME, mate):
                    self._note("104.3", f"{mate.id} can't lose the game (809.5b applies)")
                    continue
                if follow.reason is Reason.EMPEROR and self._v2 and self._effects:
                    # 614.1a: a general's Lich's Mirror replaces their loss by 809.5b.
                    found = self._which_mirror([mate])
                    if found is not None:
                        self._use_mirror(found[1], mate, "809.5b")
                        spared.add(mate.id)
                        continue
                losses[mate.id] = follow

    def _win_with_team(self, winners: Sequence[str], result: Result) -> None:
        """104.2b: the winners win; 104.2c, 810.8a, 809.5a: so does every player on their
        teams, even one who had lost this game."""
        for w in winners:
            self._set_result(self._players[w], result)
        for w in winners:
            p = self._players[w]
            if p.team is None:
                continue
            team = self._teams[p.team]
            if result.reason is Reason.LAST_STANDING:
                follow = result
            elif self.variant.emperor_leads and p.seat.emperor:
                follow = Result(Status.WON, Reason.EMPEROR, "809.5a")
            else:
                follow = Result(Status.WON, Reason.TEAM, "810.8a" if team.shares_life else "104.2c")
            for mate in team.members:
                # 104.2c: even one who had lost wins; one who drew has left with a draw.
                if mate.game == self.game_number and mate.result.status in _MAY_STILL_WIN:
                    self._set_result(mate, follow)

    def _draw_for(self, players: frozenset[str] | None, result: Result) -> None:
        """104.4: the game is a draw for these players (``None``: for everyone still in it);
        809.5c: a draw for an emperor is a draw for their team."""
        results = {p.id: result for p in self._present() if players is None or p.id in players}
        if self.variant.emperor_leads:
            follow = Result(Status.DREW, Reason.EMPEROR, "809.5c")
            for pid in list(results):
                p = self._players[pid]
                if p.seat.emperor and p.team is not None:
                    for mate in self._teams[p.team].members:
                        if mate.result.is_playing:
                            results.setdefault(mate.id, follow)
        for pid, drew in results.items():
            self._set_result(self._players[pid], drew)
        self._left([self._players[pid] for pid in results])

    def _left(self, departed: Sequence[Player]) -> None:
        """104.5, 800.4a: players who won, lost or drew leave the game, and the effects they
        controlled stop applying; then 104.2a, 104.2c: is one player or team left standing?"""
        gone = {p.id for p in departed}
        for effect_id, effects in list(self._effects.items()):
            if any(e.controller in gone for e in effects):
                self._stop(effect_id)
        if self._v2:
            self._pass_designations(gone)
        self._check_last_standing()
        for team in self._teams.values():
            if team.result.is_playing and not any(m.result.is_playing for m in team.members):
                self._set_team_result(team, self._team_result(team, departed))
        self._over = not any(p.result.is_playing for p in self._players.values())

    def _team_result(self, team: Team, departed: Sequence[Player]) -> Result:
        """A team's standing once none of its players is left: that of the players who left
        last (104.4g: a draw for all remaining players is a draw for the team; 104.3g: a team
        loses when all its players have lost); 809.5: its emperor's, if among them."""
        last = [m for m in team.members if m in departed or m.result.status is Status.WON]
        members = last or team.members
        leader = next((m for m in members if m.seat.emperor), None)
        if leader is None:
            leader = next(
                (m for m in members if m.result.reason not in (Reason.TEAMMATE, Reason.EMPEROR)),
                members[0],
            )
        return leader.result

    def _check_last_standing(self) -> None:
        """104.2a: a player still in the game wins if all their opponents have left, overriding
        every effect that would preclude it; 104.2c: likewise a team, each of whose players wins
        even if they had lost."""
        present = self._present()
        if not present:
            return
        first = present[0]
        if any(self.are_opponents(first.id, q.id) for q in present[1:]):
            return
        rule = "104.2c" if self.variant.between_teams else "104.2a"
        self._win_with_team([p.id for p in present], Result(Status.WON, Reason.LAST_STANDING, rule))

    def _check_state_based_actions(self) -> None:
        """704.3: check every state-based action at once, perform them simultaneously as a
        single event, and repeat while any were performed. Checked here: 704.5a, 704.5b,
        704.5c, 704.6a, 704.6b, 704.6c; a player who can't lose the game doesn't (104.3)."""
        while not self._over:
            dirty = self._dirty
            if dirty is None:
                self._dirty = set()
                candidates = self._present()
            elif len(dirty) == 1:
                # The usual case: one player changed. The set, emptied, gathers the next round.
                p = dirty.pop()
                if not p.result.is_playing or (
                    # ... and, playing alone, has life, poison and commander damage to spare:
                    # nothing of 704.5a-c or 704.6c applies to them.
                    p.team is None
                    and p.life.value > 0
                    and not p.drew_from_empty
                    and p.poison.value < POISON_THRESHOLD
                    and (
                        not p.commander_damage
                        or max(p.commander_damage.values()) < COMMANDER_DAMAGE_THRESHOLD
                    )
                ):
                    return
                candidates = [p]
            elif not dirty:
                return
            else:
                self._dirty = set()
                candidates = sorted(
                    (p for p in dirty if p.result.is_playing), key=lambda p: p.index
                )
            losses: dict[str, Result] = {}
            for p in candidates:
                result = self._state_based_loss(p)
                p.drew_from_empty = False
                if result is None:
                    continue
                if self._reaches(Kind.CANT_LOSE_GAME, p):
                    self._note("104.3", f"{p.id} can't lose the game ({result.rule} applies)")
                else:
                    losses[p.id] = result
            if not losses:
                return
            # 614.1a: Lich's Mirror may replace some of them (``_settle``); whatever it
            # changed (the Mirror gone, a total of 20) is checked again (704.3).
            self._settle(losses)

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


#: The game between two iterations of a shortcut (:meth:`Game._shortcut_point`): its integers
#: by where they are, and the shape of the rest.
_Point = tuple[dict[tuple[str, ...], int], tuple[Any, ...]]
#: What one iteration changed: each integer's change, and the abilities that resolved.
_Step = tuple[dict[tuple[str, ...], int], int]


def _measured(run: int) -> bool:
    """Whether the iteration ``run`` iterations after the shortcut began (or was last settled)
    is compared with the one before it: the first few, then pairs at powers of 2."""
    return run < 4 or not run & (run - 1) or not (run - 1) & (run - 2)


def _step_between(before: _Point, after: _Point, resolved: int) -> _Step | None:
    """What an iteration changed from ``before`` to ``after``, if only integers changed."""
    if before[1] != after[1]:
        return None
    ints = before[0]
    return {key: value - ints[key] for key, value in after[0].items()}, resolved


def _moved(
    ints: Mapping[tuple[str, ...], int], delta: Mapping[tuple[str, ...], int], count: int
) -> dict[tuple[str, ...], int]:
    """The integers ``count`` iterations of ``delta`` after ``ints``."""
    return {key: value + count * delta[key] for key, value in ints.items()}


def _replaceable(result: Result) -> bool:
    """614.1a: whether Lich's Mirror can replace this loss of the game (``_REPLACEABLE_LOSSES``;
    an opponent's win only under the limited range of influence option, 104.3h, 801.14)."""
    if result.reason is Reason.OPPONENT_WON:
        return result.rule == "801.14"
    return result.reason in _REPLACEABLE_LOSSES

"""Setting up a game (103): the seats checked, the starting totals and ranges of influence
(801), the bounds in time of an action, the record's version."""

from __future__ import annotations

from .bounds import check_integer
from .core import GameBase
from .errors import MalformedError, quote
from .outcome import PLAYING
from .roster import Player, Total
from .sentences import Sentence
from .stack import Stack
from .turns import Clock, Designations
from .variants import seating_distance


class BeginningMixin(GameBase):
    """Setting up: the seats, the starting totals (103.4), the ranges of influence (801.2)."""

    # -- setting up -------------------------------------------------------------------------

    def _check_setup(self) -> None:
        seats = self.seats
        ids = [s.id for s in seats]
        for i, seat_id in enumerate(ids):
            if seat_id in ids[:i]:
                raise MalformedError(
                    Sentence("duplicate player id {value}", value=quote(seat_id)),
                    member=f"players[{i}].id",
                )
        commanders = [c for s in seats for c in s.commanders]
        if len(set(commanders)) != len(commanders):
            raise MalformedError(
                Sentence("a commander id is listed for two players"), member="players"
            )
        for i, seat in enumerate(seats):
            if seat.commanders and not self.format.has_commanders:
                raise MalformedError(
                    Sentence("{format} games have no commanders (903.3)", format=self.format.name),
                    member=f"players[{i}].commanders",
                )
            if seat.life_modifier is not None and self.format.name != "vanguard":
                raise MalformedError(
                    Sentence("only a vanguard game has life modifiers (902.4)"),
                    member=f"players[{i}].life_modifier",
                )
        self.variant.check(seats)
        if self.format.name not in self.variant.formats and self.starting_life is None:
            raise MalformedError(
                Sentence(
                    "the rules define no {variant} game of format {format}; give"
                    " options.starting_life to play it as a house variant",
                    variant=self.variant.name,
                    format=self.format.name,
                ),
                member="format",
            )
        if self.starting_life is not None:
            check_integer(self.starting_life, "starting_life", Sentence("a starting life total"))
            if self.starting_life < 1:
                raise MalformedError(
                    Sentence("a starting life total is 1 or more"), member="starting_life"
                )
        if self.range_of_influence is not None:
            check_integer(
                self.range_of_influence, "range_of_influence", Sentence("a range of influence")
            )
            if self.range_of_influence < 0:
                raise MalformedError(
                    Sentence("a range of influence is 0 or more"), member="range_of_influence"
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

"""Turns (500-514, 805), version 2: whose turn and which step, who skips the first draw (103.8),
the spells cast, day becoming night or night day as a turn begins (502.2, 731.2), and rad
counters milling in the precombat main phase (728.1)."""

from __future__ import annotations

from collections.abc import Mapping

from .actions import Action, BeginStep, Cast, Draw, Turn
from .core import _NOBODY, GameBase
from .effects import Kind
from .errors import MalformedError, RefusedError
from .sentences import Id, Plural, Sentence
from .turns import CLEANUP, DRAW, END, MAIN, STEPS, UPKEEP

__all__ = ["STEP_WORDS", "TurnOrderMixin"]

#: Each step of :data:`lifeledger.turns.STEPS` as the notes and refusals name it, by its index
#: (``the turn is at its draw step``).
STEP_WORDS = (
    Sentence("upkeep step"),
    Sentence("draw step"),
    Sentence("main step"),
    Sentence("end step"),
    Sentence("cleanup step"),
)
#: What a count of spells and of rad counters is, where one is too large (never built per use).
_SPELLS = Sentence("a count of spells")
_A_COUNT = Sentence("a count")


class TurnOrderMixin(GameBase):
    """Turns and steps (500-514; 805 for shared team turns)."""

    # -- turns (500-514, 805) ---------------------------------------------------------------

    def _set_field(self, target: object, name: str, value: object) -> None:
        """Set a field of the turn or the designations, undoably (:meth:`_roll_back`)."""
        self._journal.append((target, name, getattr(target, name)))
        setattr(target, name, value)

    def _check_version_2(self, action: Action) -> None:
        if not self._v2:
            raise MalformedError(
                Sentence(
                    "{action} is an action of record version 2; this record is version {version}",
                    action=action.do,
                    version=self.version,
                ),
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
            rule = clock.rule  # 103.1b (904.6), or 727.1a after a restart with a controller
            side = self._players[starting].team
            if self.variant.shared_turns and side is not None:  # 103.1a
                raise RefusedError(
                    rule,
                    Sentence(
                        "{player}'s team ({team}) takes the game's first turn, not {other}",
                        player=Id(starting),
                        team=Id(side),
                        other=Id(p.id),
                    ),
                )
            raise RefusedError(
                rule,
                Sentence(
                    "{player} takes the game's first turn, not {other}",
                    player=Id(starting),
                    other=Id(p.id),
                ),
            )
        if self.has_several_turn_markers():
            raise MalformedError(
                Sentence(
                    "a Grand Melee game of 8 or more players has several turn markers, and"
                    " version 2 records no simultaneous turns (807.4)"
                ),
                member="do",
            )
        if clock.number and clock.step < CLEANUP:
            self._advance(CLEANUP, {}, "turn")
            if not self._over:
                self._priority()  # 514.3a: the cleanup step's state-based actions
            if self._over:
                return
            if not p.result.is_playing:
                raise RefusedError(
                    "800.4",
                    Sentence("{player} left the game as the turn before ended", player=Id(p.id)),
                )
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
        self._note(
            "500.1",
            Sentence("turn {n}: {player}'s turn begins", n=number, player=Id(p.id))
            if team is None
            else Sentence("turn {n}: team {team}'s turn begins", n=number, team=Id(team)),
        )
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
            self._note(
                rule, Sentence("day becomes night: the previous turn's active player cast no spell")
            )
        elif marks.day_night == "night" and max(cast) >= 2:
            self._set_field(marks, "day_night", "day")
            self._note(
                rule,
                Sentence(
                    "night becomes day: the previous turn's active player cast 2 or more spells"
                ),
            )

    def _do_step(self, action: BeginStep) -> None:
        """500.1: the steps of a turn come in order; a step the record leaves out happens all
        the same as the record moves past it (its turn-based actions do). 514.3a: a cleanup
        step may follow another."""
        clock = self._clock
        if not clock.number:
            raise RefusedError(
                "500.1",
                Sentence(
                    "no turn has begun: the {step} is a turn's",
                    step=STEP_WORDS[STEPS.index(action.step)],
                ),
            )
        target = STEPS.index(action.step)
        if target < clock.step or (target == clock.step and target != CLEANUP):
            raise RefusedError(
                "500.1",
                Sentence(
                    "the turn is at its {step}: its {target} has begun",
                    step=STEP_WORDS[clock.step],
                    target=STEP_WORDS[target],
                )
                if target == clock.step
                else Sentence(
                    "the turn is at its {step}: its {target} is over",
                    step=STEP_WORDS[clock.step],
                    target=STEP_WORDS[target],
                ),
            )
        milled = dict(action.nonland_milled)
        if milled and not clock.step < MAIN <= target:
            raise MalformedError(
                Sentence(
                    "nonland_milled goes with the step that begins the precombat main phase (728.1)"
                ),
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
                    Sentence(
                        "{player} plays first and skips the draw step of the first turn",
                        player=Id(clock.player or ""),
                    )
                    if clock.team is None
                    else Sentence(
                        "team {team} plays first and skips the draw step of the first turn",
                        team=Id(clock.team),
                    ),
                )
                return
            self._note(
                rule, Sentence("in a multiplayer game no player skips their first draw step")
            )
        for pid in clock.active:
            if self._players[pid].result.is_playing:
                self._note(
                    "504.1", Sentence("{player} draws a card in the draw step", player=Id(pid))
                )
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
                    Sentence("{player} has no rad counters to mill for (728.1)", player=Id(pid))
                    if pid in clock.active
                    else Sentence("{player} is not active to mill for (728.1)", player=Id(pid)),
                    member="nonland_milled",
                )
        for pid in clock.active:
            p = self._players[pid]
            rad = p.counters.get("rad", 0)
            if not rad or not p.result.is_playing:
                continue
            if pid not in milled:
                raise MalformedError(
                    Plural(
                        "{player} has {n} rad counters: state how many nonland cards they milled"
                        " (728.1) with nonland_milled on the step that begins the main phase",
                        "{player} has {n} rad counters: state how many nonland cards they milled"
                        " (728.1) with nonland_milled on the step that begins the main phase",
                        "n",
                        player=Id(pid),
                        n=rad,
                    ),
                    member="nonland_milled" if member == "step" else "do",
                )
            nonland = milled[pid]
            mill = rad if p.library is None else min(rad, p.library)
            if nonland > mill:
                raise MalformedError(
                    Plural(
                        "{player} milled {n} cards: {nonland} of them can't be nonland cards",
                        "{player} milled {n} cards: {nonland} of them can't be nonland cards",
                        "n",
                        player=Id(pid),
                        n=mill,
                        nonland=nonland,
                    ),
                    member="nonland_milled",
                )
            if p.library is not None and mill:
                self._set_attribute(p, "library", p.library - mill)
            self._note(
                "728.1",
                Plural(
                    "{player} mills {n} cards for their rad counters, {nonland} nonland",
                    "{player} mills {n} cards for their rad counters, {nonland} nonland",
                    "n",
                    player=Id(pid),
                    n=mill,
                    nonland=nonland,
                ),
            )
            if nonland:
                self._set_count(p.counters, "rad", rad - nonland, _A_COUNT, "nonland_milled")
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
            self._note(
                "725.2", Sentence("{player} is the monarch and draws a card", player=Id(monarch))
            )
            self._do_draw(Draw(monarch, 1))

    def _cleanup(self) -> None:
        """514.2: "until end of turn" and "this turn" effects end."""
        for effect_id, effects in list(self._effects.items()):
            if any(e.until == "end_of_turn" for e in effects):
                self._stop(effect_id)
                self._note("514.2", Sentence("{id} ends with the turn", id=Id(effect_id)))

    def _do_cast(self, action: Cast) -> None:
        """502.2, 731.2: the spells each player casts this turn are counted for day and
        night."""
        count = self._amount(action.count, "count")
        if count:
            spells = self._clock.spells
            total = spells.get(action.player, 0) + count
            self._set_count(spells, action.player, total, _SPELLS, "count")

"""Continuous effects (611-616): starting and ending them, effects and cards of the catalogue,
and the upkeep's triggers (503.1, 603.4)."""

from __future__ import annotations

from collections.abc import Iterable

from .actions import End, StartCard, StartEffect, Upkeep, Win
from .core import _EFFECTS, GameBase
from .effects import (
    CARD_DURATION,
    CARD_ONLY_KINDS,
    CATALOGUE,
    CATALOGUE_V2,
    OMEN_COUNTERS,
    STACK_KINDS,
    VERSION_2_KINDS,
    Effect,
    Kind,
)
from .errors import MalformedError, RefusedError, quote
from .sentences import Id, Plural, Sentence
from .turnorder import STEP_WORDS
from .turns import UPKEEP


class ContinuousMixin(GameBase):
    """Continuous effects beginning and ending (611-616)."""

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
                self._note(
                    "122.1",
                    Plural(
                        "{id} enters with {n} omen counter",
                        "{id} enters with {n} omen counters",
                        "n",
                        id=Id(action.id),
                        n=OMEN_COUNTERS,
                    ),
                )

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
                raise RefusedError(
                    "102.1",
                    Sentence(
                        "it is {active}'s turn, not {player}'s",
                        active=Id(clock.player or ""),
                        player=Id(p.id),
                    )
                    if clock.team is None
                    else Sentence(
                        "it is team {team}'s turn, not {player}'s",
                        team=Id(clock.team),
                        player=Id(p.id),
                    ),
                )
            if clock.step != UPKEEP:
                raise RefusedError(
                    "500.1",
                    Sentence(
                        "an additional upkeep step comes right after the upkeep; the turn is at"
                        " its {step}",
                        step=STEP_WORDS[clock.step],
                    ),
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
                    self._note(
                        "603.4",
                        Plural(
                            "{id}: {player} has {n} life at upkeep",
                            "{id}: {player} has {n} life at upkeep",
                            "n",
                            id=Id(effect.id),
                            player=Id(pid),
                            n=life,
                        ),
                    )
                    self._do_win(Win(pid, source=effect.id))
            if not self._v2:
                continue
            p = self._players[pid]
            for effect in list(self._effects_reaching(Kind.WIN_AT_UPKEEP_WITH_1, p)):
                if p.life.value == 1:
                    self._note(
                        "603.4",
                        Sentence(
                            "{id}: {player} has exactly 1 life at upkeep",
                            id=Id(effect.id),
                            player=Id(pid),
                        ),
                    )
                    self._do_win(Win(pid, source=effect.id))
            for effect in self._by_kind.get(Kind.OMEN_COUNTDOWN, ()) if self._effects else ():
                # 503.1: "at the beginning of your upkeep, remove an omen counter" triggers
                # for its controller (805.4d: each player of the active team has "your
                # upkeep"); it goes on the stack (603.3).
                if effect.controller == pid:
                    self._add_trigger(
                        effect,
                        Kind.OMEN_COUNTDOWN,
                        p,
                        "503.1",
                        Sentence(
                            "{id} triggers: {player}'s upkeep begins",
                            id=Id(effect.id),
                            player=Id(pid),
                        ),
                    )

    def _check_effect_id(self, action: StartEffect | StartCard) -> None:
        if isinstance(action, StartEffect) and action.until is not None and not self._v2:
            raise MalformedError(
                Sentence(
                    "until is a member of record version 2; this record is version {version}",
                    version=self.version,
                ),
                member="until",
            )
        if isinstance(action, StartEffect) and action.kind in CARD_ONLY_KINDS:
            raise MalformedError(
                Sentence(
                    "{kind} is a catalogue card's (Celestial Convergence, with its omen"
                    " counters): name the card",
                    kind=action.kind.value,
                ),
                member="kind",
            )
        if not action.id:  # an effect's or card's id is any text but the empty string
            raise MalformedError(Sentence("an id is an empty string"), member="id")
        self._check_new_id(action.id)
        if isinstance(action, StartCard) and action.name not in CATALOGUE:
            raise MalformedError(
                Sentence("{name} is not in the card catalogue", name=quote(action.name)),
                member="name",
            )
        if not self._v2 and (
            action.name in CATALOGUE_V2
            if isinstance(action, StartCard)
            else action.kind in VERSION_2_KINDS
        ):
            raise MalformedError(
                Sentence(
                    "triggered abilities on the stack are of record version 2; this record is"
                    " version 1"
                ),
                member="name" if isinstance(action, StartCard) else "kind",
            )

    def _check_known_id(self, action: End) -> None:
        if action.id not in self._known_ids:
            raise MalformedError(
                Sentence("no effect or card has the id {id}", id=quote(action.id)), member="id"
            )

    def _check_new_id(self, effect_id: str) -> None:
        if effect_id in self._known_ids:
            raise MalformedError(
                Sentence("duplicate effect or card id {id}", id=quote(effect_id)), member="id"
            )

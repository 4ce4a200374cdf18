"""Counters on players (122), poison counters among them, and drawing cards (121, 104.3c)."""

from __future__ import annotations

from .actions import AddCounters, Draw, RemoveCounters, Win
from .bounds import MAX_INTEGER, check_integer
from .core import _A_COUNT, COUNTER_KIND, COUNTER_KIND_LENGTH, POISON, GameBase, counter_kind
from .effects import Kind
from .errors import MalformedError, quote
from .sentences import Id, Sentence


class CountersMixin(GameBase):
    """Counters (122) and drawing (121)."""

    # -- counters (122) ---------------------------------------------------------------------

    def _do_add_counters(self, action: AddCounters) -> None:
        """122.1: a player gets counters; poison counters: 122.1f, 810.10."""
        p = self._players[action.player]
        amount = self._amount(action.amount, "amount")
        if action.kind == POISON:
            self._add_poison(p, amount)
        elif amount:
            count = p.counters.get(action.kind, 0) + amount
            if count > MAX_INTEGER:
                what = Sentence(
                    "{player}'s {kind} counters", player=Id(p.id), kind=counter_kind(action.kind)
                )
                check_integer(count, "amount", what)
            self._set_count(p.counters, action.kind, count, _A_COUNT, "amount")
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
        self._set_count(p.counters, action.kind, left, _A_COUNT, "amount")
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
            self._note(
                "614.1a",
                Sentence(
                    "{id}: {player} would win the game instead of drawing",
                    id=Id(maniac.id),
                    player=Id(p.id),
                ),
            )
            self._do_win(Win(p.id, source=maniac.id))
        else:
            self._set_attribute(p, "drew_from_empty", True)
            self._touch(p)
            self._note(
                "121.4",
                Sentence("{player} attempted to draw from an empty library", player=Id(p.id)),
            )

    def _check_counter_kind(self, action: AddCounters | RemoveCounters) -> None:
        """122.1: a counter kind is a lowercase word (:data:`COUNTER_KIND`); a kind found
        well-formed once is known (:data:`_KNOWN_KINDS`), not matched again."""
        kind = action.kind
        if type(kind) is str and kind in _KNOWN_KINDS:
            return
        if len(kind) > COUNTER_KIND_LENGTH or not COUNTER_KIND.fullmatch(kind):
            raise MalformedError(
                Sentence(
                    "{value} is not a counter kind (a lowercase word of at most {n} characters)",
                    value=quote(action.kind),
                    n=COUNTER_KIND_LENGTH,
                ),
                member="kind",
            )
        if type(kind) is str and len(_KNOWN_KINDS) < _KNOWN_KINDS_MAX:
            _KNOWN_KINDS.add(kind)


#: The counter kinds already found well-formed (:meth:`CountersMixin._check_counter_kind`), at
#: most :data:`_KNOWN_KINDS_MAX` of them (a stream of ever new kinds can't grow it further).
_KNOWN_KINDS: set[str] = {POISON}
_KNOWN_KINDS_MAX = 1024

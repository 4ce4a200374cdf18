"""Shortcuts (732.2a): a repeat of a group of actions a number of times, settled at once
when its iterations change integers alone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import Action, BeginStep, Repeat, Restart, Together, Turn, Upkeep
from .bounds import MAX_INTEGER
from .core import GameBase, _Event
from .effects import Kind
from .errors import MalformedError, RefusedError, TooMuchWork
from .sentences import Grouped, Plural, Sentence

#: What each integer a settled shortcut sets is, should it be too large (never: :meth:`_jump`
#: checks the bound first), made once.
_POISON = Sentence("poison counters")
_COUNTERS = Sentence("counters")
_DAMAGE = Sentence("damage")


class ShortcutsMixin(GameBase):
    """Repeats and their settling (732.2a)."""

    def _check_repeat(self, action: Repeat) -> None:
        self._check_version_2(action)
        for i, inner in enumerate(action.actions):
            try:
                if type(inner) in (Restart, Turn, BeginStep, Repeat):
                    raise MalformedError(
                        Sentence(
                            "a shortcut repeats actions within a turn, not {action}",
                            action=inner.do,
                        ),
                        member="do",
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
            self._note(
                "732.2a",
                Plural(
                    "a shortcut: {done} of {times} iterations",
                    "a shortcut: {done} of {times} iterations",
                    "done",
                    done=Grouped(done),
                    times=Grouped(action.times),
                ),
            )
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
        (it must change the same amounts, nothing else).

        What can end the sameness is a threshold along a straight line, crossed once: J is
        computed (:func:`_span`) as the iterations before the first at whose end an integer
        would leave the range it is in (life: 0 or less, and 20 or more under Transcendence,
        an upkeep win's total; poison counters: 10; commander damage: 21; a count below 0; a
        total past 10^1000), less the one that verifies them. If that one is as the others,
        so was every one before it (a threshold the game doesn't read only settles fewer at
        a time: the shortcut goes on and settles again past it). If not (a threshold crossed
        within an iteration), the largest J that is is found below: J-1, J-2, J-4, ... then
        by bisection, and the iterations after it are played one by one (the one that
        crosses: a player dying, say). Skipped iterations cost no steps of work and count
        toward no bound on resolutions: only the work done is bounded (the iterations
        played, the verifications). An upkeep win at exactly 1 life (Near-Death Experience)
        is no threshold crossed once: a shortcut with an upkeep under it is iterated.
        verifications)."""
        effects, by_kind = self._effects, self._by_kind
        if effects and by_kind.get(Kind.WIN_AT_UPKEEP_WITH_1) and _has_upkeep(action.actions):
            return 0
        life = _LIFE
        if effects:  # the totals the effects that apply read: 20 (Transcendence), 40, 50
            read = {e.life_at_least for e in by_kind.get(Kind.WIN_AT_UPKEEP, ())}
            if by_kind.get(Kind.LOSE_AT_20_LIFE):
                read.add(20)
            if read - {None}:
                life = tuple(sorted({*life, *(n for n in read if n is not None)}))
        most = min(left - 1, _span(at[0], step[0], life) - 2)
        if most < 1:
            return 0
        if self._settles(action, at, step, most, keep=True):
            return most
        low, high, gap = 0, most, 1  # low verifies (0: trivially), high doesn't
        while high - low > 1:
            if gap:  # J-1, J-2, J-4, ... below the first that failed
                middle = max(low + 1, high - gap)
                gap = 0 if middle == low + 1 else gap * 2
            else:
                middle = (low + high) // 2
            if self._settles(action, at, step, middle, keep=False):
                low, gap = middle, 0
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
                self._note(
                    "732.2a",
                    Plural(
                        "{n} iterations of the shortcut change the game as the last one did:"
                        " settled at once (computed)",
                        "{n} iterations of the shortcut change the game as the last one did:"
                        " settled at once (computed)",
                        "n",
                        n=Grouped(count),
                    ),
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
                self._set_total(p, p.poison, value, _POISON, "amount")
                self._touch(p)
            elif what == "counters":
                p = players[where[0]]
                self._set_count(p.counters, where[1], value, _COUNTERS, "amount")
                self._changed(p)
            elif what == "commander_damage":
                p = players[where[0]]
                self._set_count(p.commander_damage, where[1], value, _DAMAGE, "amount")
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


#: Where each kind of integer passes a threshold a rule or a card of the catalogue reads (the
#: least value of each range after the first), within the bounds every integer has (0 for a
#: count, 10^1000 for all): life at 0 or less (704.5a, Worship, Lich's Mirror, Phyrexian
#: Unlife, Platinum Angel; where an effect that applies reads more, 20 under Transcendence,
#: 40 and 50 for upkeep wins, those are added); 10 poison counters (704.5c); 21 damage from
#: one commander (704.6c); the last omen counter removed.
_LIFE: tuple[int, ...] = (-MAX_INTEGER, 1, MAX_INTEGER + 1)
_THRESHOLDS: dict[str, tuple[int, ...]] = {
    "poison": (0, 10, MAX_INTEGER + 1),
    "commander_damage": (0, 21, MAX_INTEGER + 1),
    "omens": (0, 1, MAX_INTEGER + 1),
}
_COUNT = (0, MAX_INTEGER + 1)


def _span(
    ints: Mapping[tuple[str, ...], int],
    delta: Mapping[tuple[str, ...], int],
    life: tuple[int, ...],
) -> int:
    """The first iteration (1: the next) at whose end an integer that changes by ``delta``
    each time leaves the range it is in at ``ints`` (:data:`_THRESHOLDS`; ``life``'s for
    life totals): ceil-divided for each, the least. Every integer stays in its range for
    the iterations before it. None can pass 10^1000 in fewer than 10^1000 iterations, so it
    is at most 2 × 10^1000 + 2."""
    first = 2 * MAX_INTEGER + 2
    for key, change in delta.items():
        if not change:
            continue
        value = ints[key]
        bounds = life if key[0] == "life" else _THRESHOLDS.get(key[0], _COUNT)
        if change > 0:  # the least bound above ``value``: reached at ceil((bound - value) / d)
            bound = next((b for b in bounds if b > value), None)
            if bound is not None:
                first = min(first, -((value - bound) // change))
        else:  # the greatest bound at or below ``value``: passed at floor((value - b) / -d) + 1
            bound = next((b for b in reversed(bounds) if b <= value), None)
            if bound is not None:
                first = min(first, (value - bound) // -change + 1)
    return first


def _has_upkeep(actions: tuple[Action, ...]) -> bool:
    """Whether an upkeep begins among ``actions`` (a group's included): only there is an upkeep
    win at exactly 1 life (Near-Death Experience) read, and that is no threshold crossed once
    along a straight line (a total can pass 1 and come back), so such a shortcut is iterated."""
    return any(
        type(a) is Upkeep or (type(a) is Together and _has_upkeep(a.actions)) for a in actions
    )

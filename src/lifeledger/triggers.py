"""Triggered abilities on the stack (version 2: 117.5, 603, 608), and loops of mandatory
actions among them (104.4b, 732)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .actions import DrawGame, Loop, Lose, Win
from .core import _NOBODY, GameBase
from .effects import STACK_KINDS, Effect, Kind
from .errors import ChoiceNeeded, MalformedError
from .roster import Player
from .sentences import Grouped, Id, Items, Plural, Sentence
from .stack import MAX_HEIGHT, MAX_RESOLUTIONS, OpenChoice, Trigger

#: What a trigger count is, should one be too large (made once, not per trigger).
_A_COUNT = Sentence("a count")


class TriggersMixin(GameBase):
    """Triggered abilities waiting, put on the stack and resolving (603, 608, 104.4b, 732)."""

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
        a lifelink source's gain, 702.15e) adds its amount to the triggers it set off.
        ``what`` is ``"gains"`` or ``"loses"``: the life event, as the notes say it."""
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
                self._set_count(self.triggered, effect.id, count, _A_COUNT, "id")
                self._note(
                    "603.2",
                    Plural(
                        "{id} triggers: {player} gains {n} life",
                        "{id} triggers: {player} gains {n} life",
                        "n",
                        id=Id(effect.id),
                        player=Id(p.id),
                        n=amount,
                    )
                    if what == "gains"
                    else Plural(
                        "{id} triggers: {player} loses {n} life",
                        "{id} triggers: {player} loses {n} life",
                        "n",
                        id=Id(effect.id),
                        player=Id(p.id),
                        n=amount,
                    ),
                )
        stack.pending.extend(new)
        if merge is not None:
            stack.merge[merge] = new

    def _add_trigger(self, effect: Effect, kind: Kind, p: Player, rule: str, what: str) -> None:
        """603.2, 603.8: one ability of ``effect`` triggers (not on a life event: the amount
        is 1, never read) and waits to be put on the stack; ``what`` is the note that says so,
        under ``rule`` (``"{id} triggers: {player}'s upkeep begins"``)."""
        self._stack.pending.append(Trigger(effect.id, effect.controller, kind, 1, p.id))
        count = self.triggered.get(effect.id, 0) + 1
        self._set_count(self.triggered, effect.id, count, _A_COUNT, "id")
        self._note(rule, what)

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
            life = p.life.value
            self._add_trigger(
                effect,
                Kind.LOSE_AT_20_LIFE,
                p,
                "603.8",
                Plural(
                    "{id} triggers: {player}'s life is {n}",
                    "{id} triggers: {player}'s life is {n}",
                    "n",
                    id=Id(effect.id),
                    player=Id(p.id),
                    n=life,
                ),
            )

    def _apnap(self) -> list[str]:
        """101.4: the players in turn order (seating order), from the active player (the
        player whose turn the record began); before the first turn, from the first seat.
        805.6, 805.7: under shared team turns every member of the active team comes before
        the nonactive teams, whatever seat the turn named, then each nonactive team in turn
        order; within a team the order is the team's ("in whatever order they like"), and
        unstated it is the primary player's (805.2): from the primary player, leftward."""
        order = list(self._players)
        start = self._players[self._clock.player].index if self._clock.player else 0
        order = order[start:] + order[:start]
        if not self.variant.shared_turns:
            return order
        players = self._players
        sides = list(dict.fromkeys(players[p].team or p for p in order))
        team = self._clock.team
        if team is not None:
            sides.remove(team)
            sides.insert(0, team)
        return [
            m.id
            for side in sides
            for m in (self._by_primary(side) if side in self._teams else [players[side]])
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
                self._note(
                    "800.4a",
                    Sentence(
                        "{id} leaves the game with {player}", id=Id(t.id), player=Id(t.controller)
                    ),
                )
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
                        Sentence(
                            "{player} puts the triggered abilities of {ids} on the stack at once:"
                            " state their order with choose (603.3b); {missing} is not in it",
                            player=Id(pid),
                            ids=Items([Id(i) for i in ids], ","),
                            missing=Items([Id(i) for i in missing], ","),
                        ),
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
                        self._note(
                            "603.3d",
                            Sentence("{id} has no legal target: it is removed", id=Id(t.id)),
                        )
                        continue
                    t.target = target
                stack.items.append(t)
                self._note("603.3b", Sentence("{trigger} is put on the stack", trigger=t.sentence))

    def _team_orders(
        self, mine: dict[str, list[Trigger]], apnap: list[str]
    ) -> dict[str, tuple[str, ...]]:
        """805.7: under shared team turns the members of each team put all the triggered
        abilities any of them controls on the stack in any order they choose. Where two or more
        members of a team have abilities waiting and a member of it in the game stated an
        ``order`` that lists every one of them, they go on the stack together in that order,
        interleaved: their batches are merged into the first member's in ``mine``, and that
        order is returned for it. 805.2: where members state different orders of them, the
        primary player's stands (the first stated from the primary player, leftward: the
        primary player decides a choice the team can't agree on). Otherwise each member puts
        theirs on in their own order, member by member from the primary player (``apnap``)."""
        players, order = self._players, self._stack.order
        stated: dict[str, tuple[str, ...]] = {}
        for team in self._teams.values():
            members = [pid for pid in apnap if players[pid].team == team.id]
            waiting = [pid for pid in members if mine.get(pid)]
            if len(waiting) < 2:
                continue
            batch = [t for pid in waiting for t in mine[pid]]
            ids = {t.id for t in batch}
            full = [
                m.id
                for m in self._by_primary(team.id)
                if m.result.is_playing and ids.issubset(order.get(m.id, ()))
            ]
            if not full:
                continue
            pid = full[0]
            mine[waiting[0]] = batch
            for other in waiting[1:]:
                del mine[other]
            stated[waiting[0]] = order[pid]
            self._note(
                "805.7",
                Sentence(
                    "team {team} orders its abilities as {player} stated",
                    team=Id(team.id),
                    player=Id(pid),
                ),
            )
            chosen = [i for i in order[pid] if i in ids]
            primary = self._chooser(self._by_primary(team.id)).id
            for other in full[1:]:
                if [i for i in order[other] if i in ids] == chosen:
                    continue
                self._note(
                    "805.2",
                    Sentence(
                        "{other} stated another order of team {team}'s abilities: the primary"
                        " player, {player}, decides",
                        other=Id(other),
                        team=Id(team.id),
                        player=Id(pid),
                    )
                    if pid == primary
                    else Sentence(
                        "{other} stated another order of team {team}'s abilities: {player}'s"
                        " stands, the first from the primary player, {primary}",
                        other=Id(other),
                        team=Id(team.id),
                        player=Id(pid),
                        primary=Id(primary),
                    ),
                )
        return stated

    def _choose_target(self, t: Trigger) -> str | None:
        legal = self._legal_targets(t.controller)
        for pid in self._stack.targets.get(t.id, ()):
            if pid in legal:
                return pid
        if len(legal) > 1:
            raise ChoiceNeeded(
                Sentence(
                    "{id} targets an opponent of {player}: state which with choose (603.3d);"
                    " {targets} are legal targets",
                    id=Id(t.id),
                    player=Id(t.controller),
                    targets=Items([Id(pid) for pid in legal], ","),
                ),
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
          total, its primary player in the game, 805.2) whose loss of the game two or more Lich's
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
            if p is self._chooser(heads):
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
                self._note(
                    "608.2b",
                    Sentence(
                        "{trigger} doesn't resolve: its target is illegal", trigger=t.sentence
                    ),
                )
                return
            self._note(
                "608.2",
                Plural(
                    "{trigger} resolves: {player} loses {n} life",
                    "{trigger} resolves: {player} loses {n} life",
                    "n",
                    trigger=t.sentence,
                    player=Id(t.target),
                    n=t.amount,
                ),
            )
            self._lose(self._players[t.target], t.amount)
        elif t.kind is Kind.GAIN_DRAINS_EACH:
            opponents = self._legal_targets(t.controller)  # each opponent within range, 801.10
            self._note(
                "608.2",
                Plural(
                    "{trigger} resolves: {players} loses 1 life",
                    "{trigger} resolves: {players} each lose 1 life",
                    "n",
                    trigger=t.sentence,
                    players=Items([Id(pid) for pid in opponents], ","),
                    n=len(opponents),
                )
                if opponents
                else Sentence("{trigger} resolves: no one loses 1 life", trigger=t.sentence),
            )
            for pid in opponents:
                self._lose(self._players[pid], 1)
        elif t.kind is Kind.LOSS_GAINS_TWICE:
            gain = 2 * t.amount
            self._note(
                "608.2",
                Plural(
                    "{trigger} resolves: {player} gains {n} life (2 for each 1)",
                    "{trigger} resolves: {player} gains {n} life (2 for each 1)",
                    "n",
                    trigger=t.sentence,
                    player=Id(t.controller),
                    n=gain,
                ),
            )
            self._gain(controller, gain)
        elif t.kind is Kind.LOSE_AT_20_LIFE:
            # 603.8: the condition is not checked again as it resolves (no "if"): it loses.
            self._note(
                "608.2",
                Sentence(
                    "{trigger} resolves: {player} loses the game (104.3e)",
                    trigger=t.sentence,
                    player=Id(t.controller),
                ),
            )
            self._do_lose(Lose((t.controller,), source=t.id))
        elif t.kind is Kind.OMEN_COUNTDOWN:
            self._remove_omen(t)
        elif t.kind is Kind.LAST_OMEN:
            self._highest_life_wins(t)
        else:
            self._note(
                "608.2",
                Plural(
                    "{trigger} resolves: {player} gains {n} life",
                    "{trigger} resolves: {player} gains {n} life",
                    "n",
                    trigger=t.sentence,
                    player=Id(t.controller),
                    n=t.amount,
                ),
            )
            self._gain(controller, t.amount)

    def _remove_omen(self, t: Trigger) -> None:
        """608.2, 122.1: an omen counter is removed from Celestial Convergence (if it has one
        left, and is still in the game); 603.2: removing the last triggers its last ability."""
        omens = self._stack.omens
        left = omens.get(t.id, 0)
        if left <= 0 or t.id not in self._effects:
            self._note(
                "608.2",
                Sentence("{trigger} resolves: no omen counter to remove", trigger=t.sentence),
            )
            return
        self._set_count_any(omens, t.id, left - 1)
        self._note(
            "608.2",
            Plural(
                "{trigger} resolves: an omen counter is removed, {n} left",
                "{trigger} resolves: an omen counter is removed, {n} left",
                "n",
                trigger=t.sentence,
                n=left - 1,
            ),
        )
        if left == 1:
            effect = self._effects[t.id][0]
            p = self._players[t.controller]
            self._add_trigger(
                effect,
                Kind.LAST_OMEN,
                p,
                "603.2",
                Sentence(
                    "{id} triggers: {player}'s last omen counter is removed",
                    id=Id(effect.id),
                    player=Id(p.id),
                ),
            )

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
                Sentence(
                    "{trigger} resolves: {players} are tied for the highest life total ({life}):"
                    " the game is a draw",
                    trigger=t.sentence,
                    players=Items([Id(pid) for pid in top], ","),
                    life=highest,
                ),
            )
            self._do_draw_game(DrawGame(t.controller, source=t.id))
        else:
            self._note(
                "104.2b",
                Sentence(
                    "{trigger} resolves: {player} has the highest life total ({life}) and wins",
                    trigger=t.sentence,
                    player=Id(top[0]),
                    life=highest,
                ),
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
                raise MalformedError(
                    Sentence(
                        "the triggered abilities resolve more than {n} times without ending or"
                        " repeating in a way the engine can decide; record the loop's result"
                        " (loop, or a shortcut, 732.2a)",
                        n=Grouped(MAX_RESOLUTIONS),
                    )
                    if stack.resolved > MAX_RESOLUTIONS
                    else Sentence(
                        "the triggered abilities pile up more than {n} high on the stack without"
                        " ending or repeating in a way the engine can decide; record the loop's"
                        " result (loop, or a shortcut, 732.2a)",
                        n=Grouped(MAX_HEIGHT),
                    ),
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
                Sentence(
                    "the triggered abilities of {ids} repeat with no way to stop and no player"
                    " able to lose by them: a loop of mandatory actions",
                    ids=Items([Id(s[0]) for s in top], ","),
                ),
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
                self._set_count(self.triggered, effect_id, total, _A_COUNT, "id")
        self._note(
            "732.2a",
            Plural(
                "the loop of {ids} repeats {n} more times at once (computed): {changes}",
                "the loop of {ids} repeats {n} more times at once (computed): {changes}",
                "n",
                ids=Items([Id(s[0]) for s in top], ","),
                n=Grouped(cycles),
                changes=Items(
                    [_life_change(pid, cycles * change[pid]) for pid in now[7] if change[pid]], ","
                ),
            ),
        )
        return None


def _life_change(pid: str, change: int) -> Sentence:
    """A player's life total's change, as a loop's note lists it: ``ana +1,000 life``."""
    if change < 0:
        return Plural(
            "{player} -{n} life", "{player} -{n} life", "n", player=Id(pid), n=Grouped(-change)
        )
    return Plural(
        "{player} +{n} life", "{player} +{n} life", "n", player=Id(pid), n=Grouped(change)
    )

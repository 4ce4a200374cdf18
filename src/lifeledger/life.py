"""Life (119): gaining and losing it, damage (120), paying it (119.4), setting and exchanging
totals (119.5, 701.12), and the replacements of 614 on them (Lich's Mirror, 616.1)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .actions import (
    Damage,
    ExchangeLife,
    GainLife,
    LoseLife,
    PayLife,
    RedistributeLife,
    SetLife,
    SetLifeEach,
)
from .bounds import MAX_INTEGER, check_integer
from .core import _A_COUNT, _ON_GAIN, _ON_LOSS, _REPLACEABLE_LOSSES, GameBase
from .effects import INSTANTS, Effect, Kind
from .errors import ChoiceNeeded, MalformedError, RefusedError, quote
from .outcome import Reason, Result
from .roster import Player, Total
from .sentences import Id, Items, Plural, Sentence
from .stack import OpenChoice
from .turns import CLEANUP, DRAW, MAIN, UPKEEP


class LifeMixin(GameBase):
    """Life totals (119), damage (120) and their replacements (614, 616.1)."""

    # -- life (119) -------------------------------------------------------------------------

    def _gain(
        self, p: Player, amount: int, source: str | None = None, *, member: str = "amount"
    ) -> None:
        """119.3: the player gains life. 119.9, 119.10: gaining 0 life is no event. 119.7: a
        player who can't gain life doesn't, and no replacement applies."""
        if amount <= 0:
            return
        if self._effects and not self._can_gain(p):
            self._note(
                "119.7",
                Sentence(
                    "{player} can't gain life: the gain of {n} does nothing",
                    player=Id(p.id),
                    n=amount,
                ),
            )
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
                    check_integer(
                        amount, member, Sentence("the life {player} would gain", player=Id(p.id))
                    )
                if remedy is None:
                    said = Plural(
                        "{id}: {player} gains {n} instead",
                        "{id}: {player} gains {n} instead",
                        "n",
                        id=Id(effect.id),
                        player=Id(p.id),
                        n=amount,
                    )
                else:
                    said = Plural(
                        "{id}: {player} would gain {n} instead",
                        "{id}: {player} would gain {n} instead",
                        "n",
                        id=Id(effect.id),
                        player=Id(p.id),
                        n=amount,
                    )
                self._note("616.1", said)
            if remedy is not None:
                # 614.6: the loss is one event in place of the gain.
                self._note(
                    "616.1",
                    Plural(
                        "{id}: {player} loses {n} life instead of gaining it",
                        "{id}: {player} loses {n} life instead of gaining it",
                        "n",
                        id=Id(remedy.id),
                        player=Id(p.id),
                        n=amount,
                    ),
                )
                merge = ("gain", p.id, source) if source is not None and event else None
                self._lose(p, amount, new_event=new_event, member=member, merge=merge)
                return
        self._set_life(p, p.life.value + amount, member)
        if new_event and self._effects:
            self._trigger(Kind.ON_GAIN_LIFE, p, "119.9")
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
                Plural(
                    "the replacement effects {ids} would apply to the life {player} gains:"
                    " {player} states the order they apply in with choose (616.1); {missing} is"
                    " not in it",
                    "the replacement effects {ids} would apply to the life {player} gains:"
                    " {player} states the order they apply in with choose (616.1); {missing} are"
                    " not in it",
                    "n",
                    ids=Items([Id(i) for i in ids], ","),
                    player=Id(p.id),
                    missing=Items([Id(i) for i in missing], ","),
                    n=len(missing),
                ),
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
            self._note(
                "119.8",
                Sentence(
                    "{player} can't lose life: the loss of {n} does nothing",
                    player=Id(p.id),
                    n=amount,
                ),
            )
            return
        self._set_life(p, p.life.value - amount, member)
        if new_event and self._effects:
            self._trigger(Kind.ON_LOSE_LIFE, p, "603.2")
        if self._v2 and self._effects:
            self._queue(_ON_LOSS, p, amount, merge, "loses")

    def _trigger(self, kind: Kind, p: Player, rule: str) -> None:
        """The abilities of ``kind`` (:data:`Kind.ON_GAIN_LIFE`, :data:`Kind.ON_LOSE_LIFE`)
        that reach ``p`` trigger."""
        if not self._effects:
            return
        for effect in self._effects_reaching(kind, p):
            self._set_count(
                self.triggered, effect.id, self.triggered[effect.id] + 1, _A_COUNT, "id"
            )
            if kind is Kind.ON_GAIN_LIFE:
                said = Sentence(
                    "{id} triggers: {player} gains life", id=Id(effect.id), player=Id(p.id)
                )
            else:
                said = Sentence(
                    "{id} triggers: {player} loses life", id=Id(effect.id), player=Id(p.id)
                )
            self._note(rule, said)

    def _add_poison(self, p: Player, amount: int, member: str = "amount") -> None:
        """122.1f, 810.10: poison counters, shared by a Two-Headed Giant team; 810.10c."""
        if amount <= 0:
            return
        if self._reaches(Kind.CANT_GET_POISON, p):
            self._note("810.10c", Sentence("{player} can't get poison counters", player=Id(p.id)))
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
                Sentence(
                    "combat damage in {step}: combat comes after the precombat main phase and"
                    " before the end step",
                    step=_the_step(self._clock.step),
                ),
            )
        amount = action.amount
        if type(amount) is not int or not 0 <= amount <= MAX_INTEGER:
            amount = self._amount(amount, "amount")
        if amount == 0:
            self._note("120.8", Sentence("0 damage is no damage: nothing happens"))
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
            self._note(
                "120.3b",
                Sentence(
                    "damage is dealt to {player} as though its source had infect", player=Id(p.id)
                ),
            )
            self._add_poison(p, amount)
        else:
            # 120.3a, 119.2; 119.10, 603.2c: the damage a group deals a player at once is one
            # life-loss event, whatever the number of its sources.
            event = self._event
            merge = ("damage", p.id) if event is not None and event.frozen_life else None
            if not self._effects:
                # No effect to consult (119.8, 614): the loss itself, as _lose makes it.
                self._set_life(p, p.life.value - amount, "amount")
            else:
                lost = amount
                if self._v2 and self._reaches(Kind.DAMAGE_FLOOR_ONE, p):
                    lost = self._damage_floor(p, amount)
                self._lose(p, lost, merge=merge)
        if action.combat and action.toxic:
            self._add_poison(p, action.toxic, "toxic")  # 120.3g
        if action.combat and action.source in self._commander_owner:
            # 903.10a: combat damage dealt by a commander is tracked by commander.
            dealt = p.commander_damage.get(action.source, 0) + amount
            if dealt > MAX_INTEGER:
                what = Sentence(
                    "the commander damage {player} has taken from {commander}",
                    player=Id(p.id),
                    commander=Id(action.source),
                )
                check_integer(dealt, "amount", what)
            self._set_count(p.commander_damage, action.source, dealt, _A_COUNT, "amount")
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
        self._note(
            "614.1a",
            Sentence(
                "{id}: the damage reduces {player}'s life total to 1 at most",
                id=Id(effect.id),
                player=Id(p.id),
            ),
        )
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
        chooses (the affected player; for a team, its primary player still in the game, 805.2)
        has stated no order (``choose`` ``replacements``) that lists them all (a Mirror that
        enters since opens it again)."""
        if len(found) < 2:
            return None
        chooser = self._chooser(group)
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
                Sentence(
                    "the Lich's Mirrors {ids} would each replace {player}'s loss of the game:"
                    " {player} states which applies with choose (616.1)",
                    ids=Items([Id(i) for i in unstated.ids], ","),
                    player=Id(unstated.player),
                ),
                player=unstated.player,
                choice=unstated.choice,
                ids=unstated.ids,
                options=unstated.options,
            )
        stated = self._stack.replacements[self._chooser(group).id]
        return min(found, key=lambda pair: stated.index(pair[1].id))

    def _use_mirror(self, mirror: Effect, p: Player, rule: str | None) -> None:
        """614.1a, 614.6: Lich's Mirror's event happens instead of ``p``'s loss of the game
        (by ``rule``): the Mirror's cards are shuffled into the library, the Mirror with them
        (its effect ends) and every other permanent its controller owns (:meth:`_owned`: their
        effects end too, before the rest, 608.2c), ``p`` draws seven cards (the library's count
        is no longer known: ``null``) and their life total becomes 20 (119.5, 810.9c: a gain
        or loss of the difference, which triggers as any would, but no longer for the cards
        shuffled away; 119.7: a player who can't gain life stays where they are, and loses at
        the next check, the Mirror gone)."""
        self._note(
            "614.1a",
            Sentence(
                "{id}: {player} would lose the game ({rule}); instead their cards are shuffled"
                " into their library, they draw seven and their life total becomes 20",
                id=Id(mirror.id),
                player=Id(p.id),
                rule=str(rule),
            ),
        )
        self._stop(mirror.id)
        owned = self._owned(mirror.controller)
        if owned:
            self._note(
                "614.1a",
                Sentence(
                    "the permanents {player} owns go into their library with {id}: {ids}",
                    player=Id(mirror.controller),
                    id=Id(mirror.id),
                    ids=Items([Id(i) for i in owned], ","),
                ),
            )
            for effect_id in owned:
                self._stop(effect_id)
        if p.library is not None:
            self._set_attribute(p, "library", None)
        self._set_attribute(p, "drew_from_empty", False)
        self._change_life(p, 20 - p.life.value, "amount")

    def _owned(self, pid: str) -> list[str]:
        """614.1a: "all permanents you own" (Lich's Mirror): the ids of the cards of the
        catalogue still applying that are permanents (110.1; not an instant, Angel's Grace,
        whose effects are a resolved spell's) under ``pid``'s control, in the order they
        entered. The record names no owner, so a card's controller is taken to own it
        (docs/record-format.md); an ``effect`` names no permanent and stays."""
        return [
            effect_id
            for effect_id, group in self._effects.items()
            if group[0].card is not None
            and group[0].card not in INSTANTS
            and group[0].controller == pid
        ]

    def _do_lose_life(self, action: LoseLife) -> None:
        """119.3: an effect causes a player to lose life."""
        amount = action.amount
        if type(amount) is not int or not 0 <= amount <= MAX_INTEGER:
            amount = self._amount(amount, "amount")
        p = self._players[action.player]
        if self._effects:
            self._lose(p, amount)
        elif amount > 0:  # no effect to consult (119.8, 614): the loss itself, as _lose makes it
            self._set_life(p, p.life.value - amount, "amount")

    def _do_gain_life(self, action: GainLife) -> None:
        """119.3: an effect causes a player to gain life."""
        amount = action.amount
        if type(amount) is not int or not 0 <= amount <= MAX_INTEGER:
            amount = self._amount(amount, "amount")
        p = self._players[action.player]
        if self._effects:
            self._gain(p, amount)
        elif amount > 0:  # no effect to consult (119.7, 616.1): the gain itself, as _gain makes it
            self._set_life(p, p.life.value + amount, "amount")

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
                raise RefusedError(
                    rule,
                    Plural(
                        "{player} can't lose life, so can't pay {n} life",
                        "{player} can't lose life, so can't pay {n} life",
                        "n",
                        player=Id(p.id),
                        n=amount,
                    ),
                )
            total, payers, due = pools.get(id(p.life), (p.life, [], 0))
            pools[id(p.life)] = (total, [*payers, p.id], due + amount)
        for total, payers, due in pools.values():
            if total.value < due:
                shared = len(payers) > 1 or self._shares_life(self._players[payers[0]])
                raise RefusedError(
                    "119.4a" if shared else "119.4", _cant_pay(payers, due, total.value, shared)
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
        member the team chooses is affected (by default its primary player, 805.2, if the
        effect sets their total, else the first member it sets from them, leftward)."""
        totals = {pid: self._amount(to, "each", clamp=False) for pid, to in action.each}
        chosen = dict(action.chosen)
        for team_id, pid in chosen.items():
            team = self._teams.get(team_id)
            if team is None or not team.shares_life:
                raise MalformedError(
                    Sentence(
                        "{value} is not a team with a shared life total (810.9d)",
                        value=quote(team_id),
                    ),
                    member="chosen",
                )
            if self._players[pid].team != team_id:
                raise MalformedError(
                    Sentence(
                        "{player} is not on team {value}", player=Id(pid), value=quote(team_id)
                    ),
                    member="chosen",
                )
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
                    m.id for m in self._by_primary(p.team) if m.id in totals
                )
                if pick not in totals:
                    raise MalformedError(
                        Sentence(
                            "team {team} chose {player}, who has no total here (810.9d)",
                            team=quote(p.team),
                            player=Id(pick),
                        ),
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
            raise RefusedError(
                "810.9e",
                Sentence("{player} can't exchange life totals with a teammate", player=Id(a.id)),
            )
        delta = b.life.value - a.life.value
        changes = [(a, delta), (b, -delta)]
        self._check_life_can_change(changes, "exchange")
        for p, change in changes:
            self._change_life(p, change, "players")

    def _check_life_can_change(self, changes: list[tuple[Player, int]], what: str) -> None:
        """119.7, 119.8: an exchange or redistribution that would raise the total of a player
        who can't gain life, or lower that of one who can't lose life, won't happen."""
        exchange = what == "exchange"
        for p, delta in changes:
            if delta > 0 and not self._can_gain(p):
                raise RefusedError(
                    "119.7",
                    Sentence(
                        "{player} can't gain life, so the exchange won't happen", player=Id(p.id)
                    )
                    if exchange
                    else Sentence(
                        "{player} can't gain life, so the redistribution won't happen",
                        player=Id(p.id),
                    ),
                )
            if delta < 0 and not self._can_lose(p):
                raise RefusedError(
                    "119.8",
                    Sentence(
                        "{player} can't lose life, so the exchange won't happen", player=Id(p.id)
                    )
                    if exchange
                    else Sentence(
                        "{player} can't lose life, so the redistribution won't happen",
                        player=Id(p.id),
                    ),
                )

    def _do_redistribute_life(self, action: RedistributeLife) -> None:
        """119.7, 119.8: no player may receive a higher total if they can't gain life, or a
        lower one if they can't lose life; 810.9f: at most one member of each team; 801.10:
        only players within the controller's range of influence."""
        players = [self._players[pid] for pid, _ in action.totals]
        current = sorted(p.life.value for p in players)
        wanted = [total for _, total in action.totals]
        if sorted(wanted) != current:
            raise MalformedError(
                Sentence(
                    "the new totals {wanted} are not the players' current totals {current}",
                    wanted=str(sorted(wanted)),
                    current=str(current),
                ),
                member="totals",
            )
        teams = [p.team for p in players if self._shares_life(p)]
        if len(set(teams)) != len(teams):
            raise RefusedError(
                "810.9f", Sentence("a redistribution may affect one member of each team")
            )
        if action.controller is not None:
            for p in players:
                if not self.is_in_range(action.controller, p.id):
                    raise RefusedError(
                        "801.10",
                        Sentence(
                            "{player} is outside {controller}'s range of influence",
                            player=Id(p.id),
                            controller=Id(action.controller),
                        ),
                    )
        changes = [(p, new - p.life.value) for p, new in zip(players, wanted, strict=True)]
        self._check_life_can_change(changes, "redistribution")
        for p, delta in changes:
            self._change_life(p, delta, "totals")

    def _check_damage_source(self, action: Damage) -> None:
        if action.source is None:
            raise MalformedError(
                Sentence("120.1: damage is dealt by a source; name it"), member="source"
            )


def _replaceable(result: Result) -> bool:
    """614.1a: whether Lich's Mirror can replace this loss of the game (``_REPLACEABLE_LOSSES``;
    an opponent's win only under the limited range of influence option, 104.3h, 801.14)."""
    if result.reason is Reason.OPPONENT_WON:
        return result.rule == "801.14"
    return result.reason in _REPLACEABLE_LOSSES


def _the_step(step: int) -> Sentence:
    """A step of the turn, as a sentence names it: ``the upkeep step``."""
    if step == UPKEEP:
        return Sentence("the upkeep step")
    if step == DRAW:
        return Sentence("the draw step")
    if step == CLEANUP:
        return Sentence("the cleanup step")
    return Sentence("the end step")


def _life(n: int) -> Sentence:
    """An amount of life: ``3 life``."""
    return Plural("{n} life", "{n} life", "n", n=n)


def _cant_pay(payers: list[str], due: int, total: int, shared: bool) -> Sentence:
    """119.4, 119.4a, 810.9b: the payers can't pay ``due`` life with their ``total``: ``ana
    can't pay 5 life with 3 life``, ``ana and bo can't pay 12 life with a team total of 11
    life``."""
    life = _life(due)
    has = (
        Plural("a team total of {n} life", "a team total of {n} life", "n", n=total)
        if shared
        else _life(total)
    )
    if len(payers) == 1:
        return Sentence(
            "{player} can't pay {life} with {total}", player=Id(payers[0]), life=life, total=has
        )
    return Sentence(
        "{players} can't pay {life} with {total}",
        players=Items([Id(pid) for pid in payers]),
        life=life,
        total=has,
    )

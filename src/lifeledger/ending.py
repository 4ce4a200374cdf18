"""Ending the game (104): conceding, winning, losing and drawing, the checks of the
state-based actions (704.5, 704.6) and settling each action's results (104.3f, 704.3)."""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Concede, DrawGame, IntentionalDraw, Loop, Lose, Penalty, Win
from .core import (
    _EVERYTHING,
    _LOST_COMMANDER_DAMAGE,
    _LOST_EMPTY_LIBRARY,
    _LOST_LIFE,
    _LOST_POISON,
    _LOST_TEAM_POISON,
    _MAY_STILL_WIN,
    COMMANDER_DAMAGE_THRESHOLD,
    GameBase,
    _Event,
)
from .effects import Kind
from .outcome import Reason, Result, Status
from .roster import POISON_THRESHOLD, Player, Team
from .sentences import Id, Sentence


class EndingMixin(GameBase):
    """The end of the game (104): stated results, state-based actions (704) and settling them."""

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
                self._note("104.3", Sentence("{player} can't lose the game", player=Id(pid)))

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
                        self._note(
                            "104.3", Sentence("{player} can't lose the game", player=Id(q.id))
                        )
        elif self.can_win_game(pid):
            self._stated().wins.append(pid)
        else:
            self._note("104.2", Sentence("{player} can't win the game", player=Id(pid)))

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
        self._note("727.1", Sentence("the game restarts: game {n} begins", n=self.game_number))
        self._begin(present)
        if controller is not None:
            self._clock.starting, self._clock.rule = controller, "727.1a"

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
                    self._note(
                        "104.3",
                        Sentence(
                            "{player} can't lose the game ({rule} applies)",
                            player=Id(mate.id),
                            rule="809.5b",
                        ),
                    )
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
                    self._note(
                        "104.3",
                        Sentence(
                            "{player} can't lose the game ({rule} applies)",
                            player=Id(p.id),
                            rule=str(result.rule),
                        ),
                    )
                else:
                    losses[p.id] = result
            if not losses:
                return
            # 614.1a: Lich's Mirror may replace some of them (``_settle``); whatever it
            # changed (the Mirror gone, a total of 20) is checked again (704.3).
            self._settle(losses)

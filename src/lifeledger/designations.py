"""Designations (725, 726, 731, 702.131), version 2: the monarch, the initiative, day and
night, the city's blessing; and the groups of actions that form one event (704.3)."""

from __future__ import annotations

from .actions import (
    BecomeMonarch,
    CityBlessing,
    Damage,
    DayNight,
    SetLibrary,
    TakeInitiative,
    Together,
)
from .core import GameBase
from .errors import MalformedError, RefusedError
from .roster import Player
from .sentences import Id, Sentence


class DesignationsMixin(GameBase):
    """The designations: the monarch (725), the initiative (726), day and night (731) and the
    city's blessing (702.131)."""

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
        if old == pid:
            if name == "monarch":
                self._note(rule, Sentence("{player} already has the monarch", player=Id(pid)))
            else:
                self._note("726.5", Sentence("{player} already has the initiative", player=Id(pid)))
            return
        self._set_field(marks, name, pid)
        if old is not None:
            self._note(
                rule,
                Sentence(
                    "{old} ceases to have the monarch; {player} has it", old=Id(old), player=Id(pid)
                )
                if name == "monarch"
                else Sentence(
                    "{old} ceases to have the initiative; {player} has it",
                    old=Id(old),
                    player=Id(pid),
                ),
            )

    def _do_day_night(self, action: DayNight) -> None:
        """731.1: it becomes day or night; once it has been either, the game is always one of
        them; 731.1a: day becomes night and night becomes day."""
        old = self._marks.day_night
        if old is not None and old != action.to:
            self._note(
                "731.1a",
                Sentence("day becomes night") if old == "day" else Sentence("night becomes day"),
            )
        self._set_field(self._marks, "day_night", action.to)

    def _do_city_blessing(self, action: CityBlessing) -> None:
        """702.131a-c: the player gets the city's blessing for the rest of the game; any
        number of players may have it."""
        blessed = self._marks.city_blessing
        if action.player in blessed:
            self._note(
                "702.131c",
                Sentence("{player} already has the city's blessing", player=Id(action.player)),
            )
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
        the creature's ``controller``. 801.7: with the limited range of influence option the
        trigger doesn't trigger unless its event happens entirely within its controller's
        range: a creature whose controller is outside the holder's range (801.2d) doesn't
        pass it on."""
        marks = self._marks
        for name in ("monarch", "initiative"):
            if getattr(marks, name) != p.id:
                continue
            if action.controller is None:
                raise MalformedError(
                    Sentence(
                        "{player} has the monarch: combat damage to them passes it to the"
                        " controller of the creature (725.2, 726.2); name the controller",
                        player=Id(p.id),
                    )
                    if name == "monarch"
                    else Sentence(
                        "{player} has the initiative: combat damage to them passes it to the"
                        " controller of the creature (725.2, 726.2); name the controller",
                        player=Id(p.id),
                    ),
                    member="controller",
                )
            if not self.is_in_range(p.id, action.controller):
                self._note(
                    "801.7",
                    Sentence(
                        "{player}'s monarch trigger doesn't trigger: {other}'s creature is"
                        " outside {player}'s range of influence",
                        player=Id(p.id),
                        other=Id(action.controller),
                    )
                    if name == "monarch"
                    else Sentence(
                        "{player}'s initiative trigger doesn't trigger: {other}'s creature is"
                        " outside {player}'s range of influence",
                        player=Id(p.id),
                        other=Id(action.controller),
                    ),
                )
                continue
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
                self._note(
                    "800.4a",
                    Sentence(
                        "{player} has left the game: their monarch trigger too",
                        player=Id(controller),
                    )
                    if name == "monarch"
                    else Sentence(
                        "{player} has left the game: their initiative trigger too",
                        player=Id(controller),
                    ),
                )
                continue
            if self._players[new].result.is_playing and getattr(self._marks, name) != new:
                setattr(self._marks, name, new)
                self._note(
                    rule,
                    Sentence(
                        "combat damage to {controller}: {player} becomes the monarch",
                        controller=Id(controller),
                        player=Id(new),
                    )
                    if name == "monarch"
                    else Sentence(
                        "combat damage to {controller}: {player} takes the initiative",
                        controller=Id(controller),
                        player=Id(new),
                    ),
                )

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
            self._note(rule, _passed(name, holder, heir))

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
                        exc.rule,
                        Sentence(
                            "action {position} of the group is refused: {message}",
                            position=position,
                            message=exc.message,
                        ),
                    )
            except MalformedError as exc:
                raise exc.at(str(i)) from None


def _passed(name: str, holder: str, heir: str | None) -> Sentence:
    """725.4, 726.4: the note of the monarch (``name``) or the initiative passing as
    ``holder`` leaves the game, to ``heir`` or to no player."""
    if name == "monarch":
        if heir:
            return Sentence(
                "{player} leaves the game: {heir} has the monarch", player=Id(holder), heir=Id(heir)
            )
        return Sentence("{player} leaves the game: no player has the monarch", player=Id(holder))
    if heir:
        return Sentence(
            "{player} leaves the game: {heir} has the initiative", player=Id(holder), heir=Id(heir)
        )
    return Sentence("{player} leaves the game: no player has the initiative", player=Id(holder))

"""The timeline for people: each action, what it changed, and each consequence with its rule.

The actions' sentences (:func:`describe`, and :func:`english`: the usual actions' English
written at once) are :mod:`lifeledger.describing`'s; this module writes the timeline, and every
name that one holds stays importable from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from .actions import Action, Together
from .describing import _DAMAGE_WORDS as _DAMAGE_WORDS
from .describing import _ENGLISH_AT_ONCE as _ENGLISH_AT_ONCE
from .describing import _KIND_WORDS as _KIND_WORDS
from .describing import _OR as _OR
from .describing import _REACH_WORDS as _REACH_WORDS
from .describing import _SEMICOLON as _SEMICOLON
from .describing import _SENTENCES as _SENTENCES
from .describing import _STEP_BEGINS as _STEP_BEGINS
from .describing import _by as _by
from .describing import _choices as _choices
from .describing import _counters as _counters
from .describing import _damage as _damage
from .describing import _describe as _describe
from .describing import _english_amount as _english_amount
from .describing import _english_counters as _english_counters
from .describing import _english_damage as _english_damage
from .describing import _gains as _gains
from .describing import _gets as _gets
from .describing import _joined as _joined
from .describing import _kind as _kind
from .describing import _life_total as _life_total
from .describing import _loses as _loses
from .describing import _loses_counters as _loses_counters
from .describing import _pays as _pays
from .describing import _total as _total
from .describing import describe as describe
from .describing import english as english
from .game import Game, Note
from .language import Language, language
from .outcome import Reason, Result, Status
from .record import Refusal, Step
from .sentences import Id, Items, Sentence

__all__ = ["Timeline", "describe", "escaped"]

#: What a terminal would act on rather than show: control characters (C0, DEL, C1: newlines,
#: ESC sequences), the line and paragraph separators, the bidirectional overrides, embeddings
#: and isolates (which reorder what a line shows), and lone surrogates (no characters at all).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def escaped(text: str) -> str:
    """``text`` with every character a terminal would act on rather than show written as an
    escape (``\\n``, ``\\x1b``, ``\\u202e``), so that a string from a record prints as what it
    is, on one line: no source or id can forge a line of the timeline or colour it."""
    return text if text.isprintable() else _UNSAFE.sub(_escape, text)


#: The steps of a turn, as the timeline's ``step`` line names them.
_STEP_WORDS = {
    "upkeep": Sentence("upkeep"),
    "draw": Sentence("draw"),
    "main": Sentence("main"),
    "end": Sentence("end"),
    "cleanup": Sentence("cleanup"),
}
_DAY_NIGHT_WORDS = {"day": Sentence("day"), "night": Sentence("night")}

#: The names of the timeline's lines of the game itself (version 2).
_TURN = Sentence("turn")
_STEP = Sentence("step")
_MONARCH = Sentence("monarch")
_INITIATIVE = Sentence("initiative")
_DAY_NIGHT = Sentence("day/night")
_CITY_BLESSING = Sentence("city's blessing")
#: What a line of the game shows once it is gone.
_NONE = Sentence("none")


def _game_lines(game: Game) -> dict[str, Any]:
    """Version 2: the timeline's lines of the game itself: the turn and the designations."""
    lines: dict[str, Any] = {}
    if game.turn_number:
        whose = Id(game.active_players[0] if game.active_team is None else game.active_team)
        lines[_TURN] = Sentence("{n} ({whose})", n=game.turn_number, whose=whose)
        step = game.current_step
        lines[_STEP] = None if step is None else _STEP_WORDS.get(step, step)
    if game.monarch is not None:
        lines[_MONARCH] = Id(game.monarch)
    if game.initiative is not None:
        lines[_INITIATIVE] = Id(game.initiative)
    if game.day_or_night is not None:
        lines[_DAY_NIGHT] = _DAY_NIGHT_WORDS.get(game.day_or_night, game.day_or_night)
    if game.city_blessed:
        lines[_CITY_BLESSING] = Items([Id(p) for p in game.city_blessed], ",")
    return lines


_STATUS_WORDS = {
    Status.WON: Sentence("WON"),
    Status.LOST: Sentence("LOST"),
    Status.DREW: Sentence("DREW"),
}
_REASON_WORDS = {
    Reason.LIFE: Sentence("life"),
    Reason.TEAM_LIFE: Sentence("team-life"),
    Reason.POISON: Sentence("poison"),
    Reason.TEAM_POISON: Sentence("team-poison"),
    Reason.EMPTY_LIBRARY: Sentence("empty-library"),
    Reason.COMMANDER_DAMAGE: Sentence("commander-damage"),
    Reason.CONCEDED: Sentence("conceded"),
    Reason.EFFECT: Sentence("effect"),
    Reason.PENALTY: Sentence("penalty"),
    Reason.TEAMMATE: Sentence("teammate"),
    Reason.EMPEROR: Sentence("emperor"),
    Reason.OPPONENT_WON: Sentence("opponent-won"),
    Reason.LAST_STANDING: Sentence("last-standing"),
    Reason.TEAM: Sentence("team"),
    Reason.SIMULTANEOUS_LOSS: Sentence("simultaneous-loss"),
    Reason.LOOP: Sentence("loop"),
    Reason.INTENTIONAL: Sentence("intentional"),
}
_PLAYING = Sentence("playing")


@lru_cache(maxsize=1024)
def _standing(result: Result) -> Sentence:
    if result.status is Status.PLAYING:
        return _PLAYING
    return Sentence(
        "{status} ({reason}, {rule})",
        status=_STATUS_WORDS[result.status],
        reason=""
        if result.reason is None
        else _REASON_WORDS.get(result.reason, result.reason.value),
        rule=str(result.rule),
    )


#: What the timeline shows of a team: its shared life and poison (``None``: not shared).
_TeamValues = tuple[int | None, int | None]
#: ... and of a player: life and poison where not shared (else ``None``), counters, commander
#: damage, library, standing.
_PlayerValues = tuple[int | None, int | None, dict[str, int], dict[str, int], int | None, Result]
_Line = tuple[str, Any, Any]

#: Counter kinds whose line is written as one of the player's other lines ("ana life"): a
#: player with one of them is compared line by line, as a mapping.
_LINE_NAMES = frozenset({"life", "poison", "library", "is"})


# The names of the lines, each a sentence equal to its English text ("ana life"), made once.
@lru_cache(maxsize=4096)
def _team_life(tid: str) -> Sentence:
    return Sentence("team {team} life", team=Id(tid))


@lru_cache(maxsize=4096)
def _team_poison(tid: str) -> Sentence:
    return Sentence("team {team} poison", team=Id(tid))


@lru_cache(maxsize=4096)
def _life_line(pid: str) -> Sentence:
    return Sentence("{player} life", player=Id(pid))


@lru_cache(maxsize=4096)
def _poison_line(pid: str) -> Sentence:
    return Sentence("{player} poison", player=Id(pid))


@lru_cache(maxsize=4096)
def _counter_line(pid: str, kind: str) -> Sentence:
    return Sentence("{player} {kind}", player=Id(pid), kind=_kind(kind))


@lru_cache(maxsize=4096)
def _damage_line(pid: str, commander: str) -> Sentence:
    return Sentence("{player} damage from {commander}", player=Id(pid), commander=Id(commander))


@lru_cache(maxsize=4096)
def _library_line(pid: str) -> Sentence:
    return Sentence("{player} library", player=Id(pid))


@lru_cache(maxsize=4096)
def _standing_line(pid: str) -> Sentence:
    return Sentence("{player} is", player=Id(pid))


def _team_lines(tid: str, values: _TeamValues) -> dict[str, Any]:
    """A team's lines of the timeline: its shared totals (810.9a, 810.10a)."""
    life, poison = values
    lines: dict[str, Any] = {}
    if life is not None:
        lines[_team_life(tid)] = life
    if poison is not None:
        lines[_team_poison(tid)] = poison
    return lines


def _player_lines(pid: str, values: _PlayerValues) -> dict[str, Any]:
    """A player's lines of the timeline: the totals that are theirs alone, counters, commander
    damage, library and standing."""
    life, poison, counters, damage, library, result = values
    lines: dict[str, Any] = {}
    if life is not None:
        lines[_life_line(pid)] = life
    if poison is not None:
        lines[_poison_line(pid)] = poison
    for kind, count in counters.items():
        lines[_counter_line(pid, kind)] = count
    for commander, dealt in damage.items():
        lines[_damage_line(pid, commander)] = dealt
    if library is not None:
        lines[_library_line(pid)] = library
    lines[_standing_line(pid)] = _standing(result)
    return lines


def _compare(out: list[_Line], before: dict[str, Any], after: dict[str, Any]) -> None:
    """The lines of ``after`` that differ from ``before``, in order."""
    for line, value in after.items():
        old = before.get(line)
        if old != value:
            out.append((line, old, value))


_NO_COUNTS: dict[str, int] = {}


class _Facts:
    """What the timeline shows of each team and player, kept between steps and brought up to
    date from what each action touched (:attr:`lifeledger.Game.touched`), never rebuilt and
    compared whole: an action costs the same in a game of any length or size."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.refresh_all()

    def refresh_all(self) -> None:
        game = self.game
        teams = game.teams
        shared_life = {t.id for t in teams if t.life is not None}
        shared_poison = {pid for t in teams if t.poison is not None for pid in t.players}
        self.own_life = {p.id: p.team is None or p.team not in shared_life for p in game.players}
        self.own_poison = {p.id: p.id not in shared_poison for p in game.players}
        # Dicts keep the seating order: the timeline prints teams, then players, in it.
        self.teams: dict[str, _TeamValues] = {t.id: (t.life, t.poison) for t in teams}
        # Kept as lists brought up to date in place: _values, and whether a counter's kind is
        # the name of another line (_LINE_NAMES).
        self.players: dict[str, list[Any]] = {}
        for p in game.players:
            values = self._values(p.id)
            self.players[p.id] = [*values, not _LINE_NAMES.isdisjoint(values[2])]
        self.team_order = {tid: i for i, tid in enumerate(self.teams)}
        self.player_order = {pid: i for i, pid in enumerate(self.players)}

    def _values(self, pid: str) -> _PlayerValues:
        p = self.game._players[pid]  # the engine's own player: read without views, at no cost
        counters, damage = p.counters, p.commander_damage
        return (
            p.life.value if self.own_life[pid] else None,
            p.poison.value if self.own_poison[pid] else None,
            dict(counters) if counters else _NO_COUNTS,
            dict(damage) if damage else _NO_COUNTS,
            p.library,
            p.result,
        )

    def changed(self) -> list[_Line]:
        """``(line, before, after)`` for each line that the last action changed, in order."""
        game = self.game
        players, other = game._touched, game._touched_other  # Game.touched, without copies
        out: list[_Line] = []
        if other:
            touched = game.touched
            if touched.everything:
                return self._everything()
            teams = self.teams
            for tid in sorted(touched.teams, key=self.team_order.__getitem__):
                team = game.team(tid)
                values = (team.life, team.poison)
                if values != teams[tid]:
                    _compare(out, _team_lines(tid, teams[tid]), _team_lines(tid, values))
                    teams[tid] = values
        if len(players) == 1:
            for pid in players:
                self._player_changed(out, pid)
        elif players:
            for pid in sorted(players, key=self.player_order.__getitem__):
                self._player_changed(out, pid)
        return out

    def _player_changed(self, out: list[_Line], pid: str) -> None:
        kept = self.players[pid]
        p = self.game._players[pid]  # the engine's own player (see _values), read field by field
        counters, counters0 = p.counters, kept[2]
        recount = counters != counters0
        if kept[6] or (recount and not _LINE_NAMES.isdisjoint(counters)):
            new = self._values(pid)
            _compare(out, _player_lines(pid, tuple(kept[:6])), _player_lines(pid, new))
            kept[:] = [*new, not _LINE_NAMES.isdisjoint(new[2])]
            return
        # Line by line, in the order of _player_lines, without making the lines that stay.
        was = kept[0]
        if was is not None:  # None: shared (which stays so until a restart, see changed)
            life = p.life.value
            if life != was:
                out.append((_life_line(pid), was, life))
                kept[0] = life
        was = kept[1]
        if was is not None:
            poison = p.poison.value
            if poison != was:
                out.append((_poison_line(pid), was, poison))
                kept[1] = poison
        if recount:
            for kind, count in counters.items():
                was = counters0.get(kind)
                if was != count:
                    out.append((_counter_line(pid, kind), was, count))
            kept[2] = dict(counters)
        damage, damage0 = p.commander_damage, kept[3]
        if damage != damage0:
            for commander, dealt in damage.items():
                was = damage0.get(commander)
                if was != dealt:
                    out.append((_damage_line(pid, commander), was, dealt))
            kept[3] = dict(damage)
        library = p.library
        if library != kept[4]:
            if library is not None:
                out.append((_library_line(pid), kept[4], library))
            kept[4] = library
        result, result0 = p.result, kept[5]
        if result is not result0:
            kept[5] = result
            standing0, standing = _standing(result0), _standing(result)
            if standing != standing0:
                out.append((_standing_line(pid), standing0, standing))

    def _everything(self) -> list[_Line]:
        before = self.lines()
        self.refresh_all()
        out: list[_Line] = []
        _compare(out, before, self.lines())
        return out

    def lines(self) -> dict[str, Any]:
        """Every line the timeline shows, as one mapping (see :class:`Timeline`)."""
        lines: dict[str, Any] = {}
        for tid, team in self.teams.items():
            lines.update(_team_lines(tid, team))
        for pid, values in self.players.items():
            lines.update(_player_lines(pid, tuple(values[:6])))
        return lines


#: How many actions' sentences a timeline keeps (see :meth:`Timeline._plain`).
_SENTENCES_KEPT = 4096


#: The variants and formats, as the header names them.
_VARIANT_WORDS = {
    "two-player": Sentence("two-player"),
    "free-for-all": Sentence("free-for-all"),
    "grand-melee": Sentence("grand-melee"),
    "team-vs-team": Sentence("team-vs-team"),
    "two-headed-giant": Sentence("two-headed-giant"),
    "emperor": Sentence("emperor"),
    "alternating-teams": Sentence("alternating-teams"),
    "archenemy": Sentence("archenemy"),
    "supervillain-rumble": Sentence("supervillain-rumble"),
}
_FORMAT_WORDS = {
    "normal": Sentence("normal"),
    "commander": Sentence("commander"),
    "brawl": Sentence("brawl"),
    "vanguard": Sentence("vanguard"),
    "planechase": Sentence("planechase"),
}


class Timeline:
    """Prints each step of a replay for a person; ``colour`` adds ANSI colours. Its words are
    those of ``language`` (:func:`lifeledger.language.language`; English by default): the
    lines' names, the actions' sentences, the game's notes and refusals (as far as the
    engine's sentences are translated), and numbers as the language writes them."""

    def __init__(
        self,
        game: Game,
        write: Callable[[str], None],
        *,
        colour: bool = False,
        language: Language | None = None,
    ):
        self.game = game
        self.write = write
        self.colour = colour
        self.language = _ENGLISH if language is None else language
        self._english = self.language.code == "en"
        self._facts = _Facts(game)
        self._sentences: dict[int, tuple[Action, str]] = {}
        # A player named "team" could write the same line as a team ("team x life"): such a
        # game is compared whole after each action, as one mapping of lines.
        self._whole = any(p.id == "team" for p in game.players) and bool(game.teams)
        self._before = self._facts.lines() if self._whole else {}
        self._changed = self._whole_changes if self._whole else self._facts.changed
        #: Version 2: the lines of the turn and the designations, compared after each step.
        self._game_lines = _game_lines(game) if game.version >= 2 else None

    def _text(self, value: object) -> str:
        """``value`` in the timeline's language: a sentence translated, a number written as
        the language writes numbers, anything else (an id, a name) as it is."""
        if isinstance(value, Sentence):
            return self.language.text(value)
        if isinstance(value, Items):
            return self.language.text(Sentence("{what}", what=value))
        if isinstance(value, int) and not isinstance(value, bool):
            return self.language.number(value)
        return str(value)

    def _describe(self, action: Action) -> str:
        """The action's sentence in the timeline's language, escaped."""
        if self._english:
            return escaped(english(action))
        return escaped(self._text(describe(action)))

    def _paint(self, text: str, code: str) -> str:
        """``text`` (escaped: it holds strings from the record) in colour ``code``."""
        text = escaped(text)
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def header(self) -> None:
        """The players and their starting totals."""
        game = self.game
        variant, fmt = game.variant.name, game.format.name
        title = Sentence(
            "{variant}, {format}: ",
            variant=_VARIANT_WORDS.get(variant, variant),
            format=_FORMAT_WORDS.get(fmt, fmt),
        )
        players = Items(
            [
                Sentence("{player} ({team}) {life}", player=Id(p.id), team=Id(p.team), life=p.life)
                if p.team
                else Sentence("{player} {life}", player=Id(p.id), life=p.life)
                for p in game.players
            ],
            ",",
        )
        self.write(self._paint(self._text(title), "1") + escaped(self._text(players)))

    def _changes(self) -> list[_Line]:
        if not self._whole:
            return self._facts.changed()
        return self._whole_changes()

    def _whole_changes(self) -> list[_Line]:
        self._facts.refresh_all()
        after = self._facts.lines()
        before, self._before = self._before, after
        out: list[_Line] = []
        _compare(out, before, after)
        return out

    def __call__(self, step: Step) -> None:
        """Print one step."""
        self._show(step.position, step.action, step.refusal, step.notes)

    def _refused(self, refusal: Refusal) -> str:
        said = Sentence("refused: {message} ({rule})", message=refusal.message, rule=refusal.rule)
        return f"      {self._text(said)}"

    def _note(self, note: Note) -> str:
        return f"      {self._text(note.text)} ({note.rule})"

    def _change(self, key: Any, old: Any, value: Any) -> str:
        """One changed line, ``name: before -> after``, in the timeline's language."""
        text = self._text
        if old is None:
            return f"      {text(key)}: {text(value)}"
        return f"      {text(key)}: {text(old)} -> {text(value)}"

    def _show(
        self, position: str, action: Action, refusal: Refusal | None, notes: Iterable[Note]
    ) -> None:
        """Print one step, given as its parts."""
        if not self.colour:
            self._plain(position, action, refusal, notes)
            return
        write, paint = self.write, self._paint
        write(f"{paint(position.rjust(4), '2')}  {self._describe(action)}")
        if isinstance(action, Together):
            self._inner(action, position)
        if refusal is not None:
            write(paint(self._refused(refusal), "33"))
            return
        for key, old, value in self._changes() + self._game_changes():
            colour = "31" if "LOST" in str(value) else "32" if "WON" in str(value) else "36"
            write(paint(self._change(key, old, value), colour))
        for note in notes:
            write(paint(self._note(note), "35"))

    def _plain(
        self, position: str, action: Action, refusal: Refusal | None, notes: Iterable[Note]
    ) -> None:
        """:meth:`_show` without colours (the same lines, made in fewer steps)."""
        write = self.write
        # A replay applies the action of a line seen before again (lifeledger.record's
        # LINE_CACHE): its sentence is kept with it, the action held so that its id stays its.
        kept = self._sentences.get(id(action))
        if kept is None:
            sentence = self._describe(action)
            if len(self._sentences) >= _SENTENCES_KEPT:
                self._sentences.clear()
            self._sentences[id(action)] = (action, sentence)
        else:
            sentence = kept[1]
        # A position is digits and dots: nothing in it to escape.
        write(f"{position.rjust(4)}  {sentence}")
        if isinstance(action, Together):
            self._inner(action, position)
        if refusal is not None:
            write(escaped(self._refused(refusal)))
            return
        game = self.game
        touched = game._touched  # Game.touched, without copies
        if len(touched) == 1 and not game._touched_other and not self._whole:
            changes: list[_Line] = []  # the usual action: one player's lines (see changed)
            for pid in touched:
                self._facts._player_changed(changes, pid)
        else:
            changes = self._changed()
        if self._game_lines is not None:
            changes += self._game_changes()
        if self._english:
            for key, old, value in changes:
                line = f"      {key}: {value}" if old is None else f"      {key}: {old} -> {value}"
                write(line if line.isprintable() else escaped(line))
        else:
            for key, old, value in changes:
                write(escaped(self._change(key, old, value)))
        for note in notes:
            write(escaped(self._note(note)))

    def _game_changes(self) -> list[_Line]:
        """Version 2: the lines of the turn and the designations that the step changed (a line
        gone is shown as ``none``)."""
        before = self._game_lines
        if before is None:
            return []
        after = self._game_lines = _game_lines(self.game)
        out: list[_Line] = []
        _compare(out, before, after)
        out.extend((line, old, _NONE) for line, old in before.items() if line not in after)
        return out

    def _inner(self, group: Together, position: str) -> None:
        for i, action in enumerate(group.actions):
            where = f"{position}.{i}"
            self.write(f"      {self._paint(where, '2')}  {self._describe(action)}")
            if isinstance(action, Together):
                self._inner(action, where)

    def footer(self) -> None:
        """The result."""
        outcome = self.game.outcome()
        if outcome.over:
            said = Sentence("game {n} is over", n=outcome.game)
        else:
            said = Sentence("game {n} goes on", n=outcome.game)
        self.write(self._paint(self._text(said), "1"))


_ENGLISH = language("en")

"""The timeline for people: each action, what it changed, and each consequence with its rule."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from .actions import (
    Action,
    AddCounters,
    Amount,
    BecomeMonarch,
    BeginStep,
    Cast,
    Choose,
    CityBlessing,
    Concede,
    Damage,
    DayNight,
    Draw,
    DrawGame,
    End,
    ExchangeLife,
    GainLife,
    IntentionalDraw,
    LifeOf,
    Loop,
    Lose,
    LoseLife,
    PayLife,
    Penalty,
    RedistributeLife,
    RemoveCounters,
    Repeat,
    Restart,
    SetLibrary,
    SetLife,
    SetLifeEach,
    StartCard,
    StartEffect,
    TakeInitiative,
    Together,
    Turn,
    Upkeep,
    Win,
)
from .effects import Reach
from .game import Game, Note
from .outcome import Result, Status
from .record import Refusal, Step

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


_FRACTIONS = {(1, 2): "half", (1, 3): "a third", (1, 4): "a quarter", (2, 1): "twice"}


def _amount(value: Amount, unit: str) -> str:
    """``3 life``, or ``half of ana's life total (rounded up)`` for an expression."""
    if not isinstance(value, LifeOf):
        return f"{value} {unit}".rstrip()
    fraction = _FRACTIONS.get(value.fraction, "{}/{} of".format(*value.fraction))
    if value.fraction == (1, 1):
        text = f"{value.player}'s life total"
    elif fraction in ("half", "twice"):
        text = f"{fraction} {value.player}'s life total"
    else:
        text = f"{fraction} of {value.player}'s life total"
    text = f"{text} (rounded {value.round})" if value.round else text
    return text if unit in ("life", "") else f"{unit} equal to {text}"


def _counters(value: Amount, kind: str) -> str:
    """``1 poison counter``, ``3 poison counters``, or an expression's ``poison counters equal
    to ...``."""
    if isinstance(value, LifeOf):
        return _amount(value, f"{kind} counters")
    return f"{value} {kind} counter{'' if value == 1 else 's'}"


def _described_amount(verb: str) -> Callable[[Any], str]:
    def sentence(action: Any) -> str:
        amount = action.amount
        if type(amount) is not int:
            return _describe(action)
        by = f"{action.source}: " if action.source else ""
        return f"{by}{action.player} {verb} {amount} life"

    return sentence


def _described_counters(verb: str) -> Callable[[Any], str]:
    def sentence(action: Any) -> str:
        amount = action.amount
        if type(amount) is not int:
            return _describe(action)
        by = f"{action.source}: " if action.source else ""
        return (
            f"{by}{action.player} {verb} {amount} {action.kind} counter{'' if amount == 1 else 's'}"
        )

    return sentence


#: The sentences of the usual actions with whole amounts, made without the general match.
_SENTENCES: dict[type[Action], Callable[[Any], str]] = {
    LoseLife: _described_amount("loses"),
    GainLife: _described_amount("gains"),
    AddCounters: _described_counters("gets"),
    RemoveCounters: _described_counters("loses"),
}


def describe(action: Action) -> str:
    """A sentence for one action, as a person would say it."""
    sentence = _SENTENCES.get(type(action))
    return _describe(action) if sentence is None else sentence(action)


def _describe(action: Action) -> str:
    by = f"{action.source}: " if action.source else ""
    match action:
        case Damage():
            kinds = [k for k in ("combat", "infect", "lifelink") if getattr(action, k)]
            extra = f" ({', '.join(kinds)})" if kinds else ""
            if action.toxic:
                extra += f", toxic {action.toxic}"
            return f"{by}{_amount(action.amount, 'damage')} to {action.to}{extra}"
        case LoseLife():
            return f"{by}{action.player} loses {_amount(action.amount, 'life')}"
        case GainLife():
            return f"{by}{action.player} gains {_amount(action.amount, 'life')}"
        case PayLife():
            paid = ", ".join(f"{p} pays {_amount(a, 'life')}" for p, a in action.payments)
            return f"{by}{paid}"
        case SetLife():
            return f"{by}{action.player}'s life total becomes {_amount(action.to, '')}"
        case SetLifeEach():
            each = ", ".join(f"{p} {_amount(t, '')}" for p, t in action.each)
            return f"{by}life totals become: {each}"
        case ExchangeLife():
            return f"{by}{action.a} and {action.b} exchange life totals"
        case RedistributeLife():
            totals = ", ".join(f"{p} {t}" for p, t in action.totals)
            return f"{by}life totals are redistributed: {totals}"
        case AddCounters():
            return f"{by}{action.player} gets {_counters(action.amount, action.kind)}"
        case RemoveCounters():
            return f"{by}{action.player} loses {_counters(action.amount, action.kind)}"
        case Draw():
            cards = "card" if action.count == 1 else "cards"
            return f"{by}{action.player} draws {action.count} {cards}"
        case Concede():
            return f"{action.player} concedes"
        case Win():
            return f"{by}{action.player} wins the game, says an effect"
        case Lose():
            return f"{by}{', '.join(action.losers)} lose the game, says an effect"
        case DrawGame():
            return f"{by}the game is a draw, says an effect"
        case Loop():
            return f"the game is in a loop of mandatory actions ({', '.join(action.controllers)})"
        case IntentionalDraw():
            return "the players agree to an intentional draw"
        case Penalty():
            return f"a judge gives {action.player} a game loss"
        case Restart():
            return f"{by}the game restarts"
        case StartEffect():
            affects = action.affects
            whom = affects.value if isinstance(affects, Reach) else ", ".join(affects)
            until = " until end of turn" if action.until == "end_of_turn" else ""
            return (
                f"{action.id}: {action.kind.value} ({whom}), controlled by {action.controller}"
                f"{until}"
            )
        case StartCard():
            return f"{action.name} ({action.id}) enters under {action.controller}'s control"
        case End():
            return f"{action.id} stops applying"
        case Upkeep():
            return f"{action.player}'s upkeep begins"
        case Turn():
            return f"{action.player}'s turn begins"
        case BeginStep():
            milled = ", ".join(f"{p} {n} nonland" for p, n in action.nonland_milled)
            return f"the {_STEP_NAMES[action.step]} begins" + (f" ({milled})" if milled else "")
        case Cast():
            spells = "spell" if action.count == 1 else "spells"
            return f"{action.player} casts {action.count} {spells}"
        case BecomeMonarch():
            return f"{by}{action.player} becomes the monarch"
        case TakeInitiative():
            return f"{by}{action.player} takes the initiative"
        case CityBlessing():
            return f"{by}{action.player} gets the city's blessing"
        case DayNight():
            return f"{by}it becomes {action.to}"
        case SetLibrary():
            cards = "card" if action.count == 1 else "cards"
            return f"{by}{action.player}'s library has {action.count} {cards}"
        case Together():
            return f"{by}together, as one event:"
        case Choose():
            parts = []
            if action.order:
                parts.append(f"puts {', '.join(action.order)} on the stack in that order")
            parts += [f"targets {' or '.join(t)} with {i}" for i, t in action.targets]
            return f"{action.player} chooses: {'; '.join(parts) or 'nothing'} (603.3b, 603.3d)"
        case Repeat():
            inner = "; ".join(describe(a) for a in action.actions)
            return f"{by}a shortcut, {action.times:,} times: {inner} (732.2a)"
    return action.do


_STEP_NAMES = {
    "draw": "draw step",
    "main": "precombat main phase",
    "end": "end step",
    "cleanup": "cleanup step",
}


def _game_lines(game: Game) -> dict[str, Any]:
    """Version 2: the timeline's lines of the game itself: the turn and the designations."""
    lines: dict[str, Any] = {}
    if game.turn_number:
        whose = game.active_team if game.active_team is not None else game.active_players[0]
        lines["turn"] = f"{game.turn_number} ({whose})"
        lines["step"] = game.current_step
    for name, value in (
        ("monarch", game.monarch),
        ("initiative", game.initiative),
        ("day/night", game.day_or_night),
    ):
        if value is not None:
            lines[name] = value
    if game.city_blessed:
        lines["city's blessing"] = ", ".join(game.city_blessed)
    return lines


def _standing(result: Result) -> str:
    if result.status is Status.PLAYING:
        return "playing"
    reason = result.reason.value if result.reason else ""
    return f"{result.status.value.upper()} ({reason}, {result.rule})"


#: What the timeline shows of a team: its shared life and poison (``None``: not shared).
_TeamValues = tuple[int | None, int | None]
#: ... and of a player: life and poison where not shared (else ``None``), counters, commander
#: damage, library, standing.
_PlayerValues = tuple[int | None, int | None, dict[str, int], dict[str, int], int | None, Result]
_Line = tuple[str, Any, Any]

#: Counter kinds whose line is written as one of the player's other lines ("ana life"): a
#: player with one of them is compared line by line, as a mapping.
_LINE_NAMES = frozenset({"life", "poison", "library", "is"})


def _team_lines(tid: str, values: _TeamValues) -> dict[str, Any]:
    """A team's lines of the timeline: its shared totals (810.9a, 810.10a)."""
    life, poison = values
    lines: dict[str, Any] = {}
    if life is not None:
        lines[f"team {tid} life"] = life
    if poison is not None:
        lines[f"team {tid} poison"] = poison
    return lines


def _player_lines(pid: str, values: _PlayerValues) -> dict[str, Any]:
    """A player's lines of the timeline: the totals that are theirs alone, counters, commander
    damage, library and standing."""
    life, poison, counters, damage, library, result = values
    lines: dict[str, Any] = {}
    if life is not None:
        lines[f"{pid} life"] = life
    if poison is not None:
        lines[f"{pid} poison"] = poison
    for kind, count in counters.items():
        lines[f"{pid} {kind}"] = count
    for commander, dealt in damage.items():
        lines[f"{pid} damage from {commander}"] = dealt
    if library is not None:
        lines[f"{pid} library"] = library
    lines[f"{pid} is"] = _standing(result)
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
                out.append((f"{pid} life", was, life))
                kept[0] = life
        was = kept[1]
        if was is not None:
            poison = p.poison.value
            if poison != was:
                out.append((f"{pid} poison", was, poison))
                kept[1] = poison
        if recount:
            for kind, count in counters.items():
                was = counters0.get(kind)
                if was != count:
                    out.append((f"{pid} {kind}", was, count))
            kept[2] = dict(counters)
        damage, damage0 = p.commander_damage, kept[3]
        if damage != damage0:
            for commander, dealt in damage.items():
                was = damage0.get(commander)
                if was != dealt:
                    out.append((f"{pid} damage from {commander}", was, dealt))
            kept[3] = dict(damage)
        library = p.library
        if library != kept[4]:
            if library is not None:
                out.append((f"{pid} library", kept[4], library))
            kept[4] = library
        result, result0 = p.result, kept[5]
        if result is not result0:
            kept[5] = result
            standing0, standing = _standing(result0), _standing(result)
            if standing != standing0:
                out.append((f"{pid} is", standing0, standing))

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


class Timeline:
    """Prints each step of a replay for a person; ``colour`` adds ANSI colours."""

    def __init__(self, game: Game, write: Callable[[str], None], *, colour: bool = False):
        self.game = game
        self.write = write
        self.colour = colour
        self._facts = _Facts(game)
        self._sentences: dict[int, tuple[Action, str]] = {}
        # A player named "team" could write the same line as a team ("team x life"): such a
        # game is compared whole after each action, as one mapping of lines.
        self._whole = any(p.id == "team" for p in game.players) and bool(game.teams)
        self._before = self._facts.lines() if self._whole else {}
        self._changed = self._whole_changes if self._whole else self._facts.changed
        #: Version 2: the lines of the turn and the designations, compared after each step.
        self._game_lines = _game_lines(game) if game.version >= 2 else None

    def _paint(self, text: str, code: str) -> str:
        """``text`` (escaped: it holds strings from the record) in colour ``code``."""
        text = escaped(text)
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def header(self) -> None:
        """The players and their starting totals."""
        game = self.game
        self.write(
            self._paint(f"{game.variant.name}, {game.format.name}: ", "1")
            + escaped(
                ", ".join(
                    f"{p.id}{f' ({p.team})' if p.team else ''} {p.life}" for p in game.players
                )
            )
        )

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

    def _show(
        self, position: str, action: Action, refusal: Refusal | None, notes: Iterable[Note]
    ) -> None:
        """Print one step, given as its parts."""
        if not self.colour:
            self._plain(position, action, refusal, notes)
            return
        write, paint = self.write, self._paint
        write(f"{paint(position.rjust(4), '2')}  {escaped(describe(action))}")
        if isinstance(action, Together):
            self._inner(action, position)
        if refusal is not None:
            write(paint(f"      refused: {refusal.message} ({refusal.rule})", "33"))
            return
        for key, old, value in self._changes() + self._game_changes():
            change = f"{old} -> {value}" if old is not None else str(value)
            colour = "31" if "LOST" in str(value) else "32" if "WON" in str(value) else "36"
            write(paint(f"      {key}: {change}", colour))
        for note in notes:
            write(paint(f"      {note.text} ({note.rule})", "35"))

    def _plain(
        self, position: str, action: Action, refusal: Refusal | None, notes: Iterable[Note]
    ) -> None:
        """:meth:`_show` without colours (the same lines, made in fewer steps)."""
        write = self.write
        # A replay applies the action of a line seen before again (lifeledger.record's
        # LINE_CACHE): its sentence is kept with it, the action held so that its id stays its.
        kept = self._sentences.get(id(action))
        if kept is None:
            sentence = escaped(describe(action))
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
            write(escaped(f"      refused: {refusal.message} ({refusal.rule})"))
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
        for key, old, value in changes:
            line = f"      {key}: {value}" if old is None else f"      {key}: {old} -> {value}"
            write(line if line.isprintable() else escaped(line))
        for note in notes:
            write(escaped(f"      {note.text} ({note.rule})"))

    def _game_changes(self) -> list[_Line]:
        """Version 2: the lines of the turn and the designations that the step changed (a line
        gone is shown as ``none``)."""
        before = self._game_lines
        if before is None:
            return []
        after = self._game_lines = _game_lines(self.game)
        out: list[_Line] = []
        _compare(out, before, after)
        out.extend((line, old, "none") for line, old in before.items() if line not in after)
        return out

    def _inner(self, group: Together, position: str) -> None:
        for i, action in enumerate(group.actions):
            where = f"{position}.{i}"
            self.write(f"      {self._paint(where, '2')}  {escaped(describe(action))}")
            if isinstance(action, Together):
                self._inner(action, where)

    def footer(self) -> None:
        """The result."""
        outcome = self.game.outcome()
        if outcome.over:
            self.write(self._paint(f"game {outcome.game} is over", "1"))
        else:
            self.write(self._paint(f"game {outcome.game} goes on", "1"))

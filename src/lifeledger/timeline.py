"""The timeline for people: each action, what it changed, and each consequence with its rule."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .actions import (
    Action,
    AddCounters,
    Amount,
    Concede,
    Damage,
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
    Restart,
    SetLife,
    SetLifeEach,
    StartCard,
    StartEffect,
    Together,
    Upkeep,
    Win,
)
from .effects import Reach
from .game import Game
from .outcome import Result, Status
from .record import Step

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


def describe(action: Action) -> str:
    """A sentence for one action, as a person would say it."""
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
            return f"{action.id}: {action.kind.value} ({whom}), controlled by {action.controller}"
        case StartCard():
            return f"{action.name} ({action.id}) enters under {action.controller}'s control"
        case End():
            return f"{action.id} stops applying"
        case Upkeep():
            return f"{action.player}'s upkeep begins"
        case Together():
            return f"{by}together, as one event:"
    return action.do


def _standing(result: Result) -> str:
    if result.status is Status.PLAYING:
        return "playing"
    reason = result.reason.value if result.reason else ""
    return f"{result.status.value.upper()} ({reason}, {result.rule})"


def _snapshot(game: Game) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for team in game.teams:
        if team.life is not None:
            facts[f"team {team.id} life"] = team.life
        if team.poison is not None:
            facts[f"team {team.id} poison"] = team.poison
    for p in game.players:
        if p.team is None or game.player(p.id).team not in {
            t.id for t in game.teams if t.life is not None
        }:
            facts[f"{p.id} life"] = p.life
        if not any(t.poison is not None and p.id in t.players for t in game.teams):
            facts[f"{p.id} poison"] = p.poison
        for kind, count in p.counters.items():
            facts[f"{p.id} {kind}"] = count
        for commander, damage in p.commander_damage.items():
            facts[f"{p.id} damage from {commander}"] = damage
        if p.library is not None:
            facts[f"{p.id} library"] = p.library
        facts[f"{p.id} is"] = _standing(p.result)
    return facts


class Timeline:
    """Prints each step of a replay for a person; ``colour`` adds ANSI colours."""

    def __init__(self, game: Game, write: Callable[[str], None], *, colour: bool = False):
        self.game = game
        self.write = write
        self.colour = colour
        self._before = _snapshot(game)

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

    def __call__(self, step: Step) -> None:
        """Print one step."""
        self.write(f"{self._paint(step.position.rjust(4), '2')}  {escaped(describe(step.action))}")
        if isinstance(step.action, Together):
            self._inner(step.action, step.position)
        if step.refusal is not None:
            refusal = step.refusal
            self.write(self._paint(f"      refused: {refusal.message} ({refusal.rule})", "33"))
            return
        after = _snapshot(self.game)
        for key, value in after.items():
            old = self._before.get(key)
            if old != value:
                change = f"{old} -> {value}" if old is not None else str(value)
                colour = "31" if "LOST" in str(value) else "32" if "WON" in str(value) else "36"
                self.write(self._paint(f"      {key}: {change}", colour))
        for note in step.notes:
            self.write(self._paint(f"      {note.text} ({note.rule})", "35"))
        self._before = after

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

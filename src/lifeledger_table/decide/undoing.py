"""Undo (docs/table.md, "Undo"): what an undo may take back (the last action in effect, or the
reset or new game that began the game while no action of it is; never a concession, 104.3a),
who made that change, and the step of an undo worked out from the segment before it.

A seat taking back its own change under later ones (issue 25 item 4) is the room above the
deciding of a change: :mod:`.undoing_under`.
"""

from __future__ import annotations

import time
from typing import Any

from lifeledger.sentences import Sentence

from ..store.records import Event
from . import engine, reading
from .entries import Entry, Step, device_of, undoable
from .errors import TableError
from .limits import UNDO_SECONDS
from .state import OPENERS, TableState

__all__ = ["final", "undo_by", "undo_owner", "undo_step", "undo_target", "was_undone"]


def undo_step(table: TableState, event: Event, entry: Entry, live: bool) -> Step:
    """The step of an undo: the current game without its last action in effect, replayed
    from the checkpoint before it (bounded by :data:`.limits.UNDO_SECONDS` for a client's
    request), or, after a reset or a new game, the game it left as it was."""
    entry.target = undo_target(table, event.body, live)
    entry.allowed = _allowed(event.body)
    if table.last is not None and table.last.kind in OPENERS:
        return _undo_opener(table, event, entry)
    if table.tail:
        base, start, tail = table.base, table.base_count, table.tail
    else:
        base, start, tail = reading.segment_before(table, table.count)
    kept = tail[:-1]
    # What it reads of the log is read before the engine works (NeedsLog: no work lost).
    last = kept[-1] if kept else None
    if not kept and start:
        last = reading.in_effect(table, start - 1, start)[0]
    elif not kept:
        last = reading.opener(table, table.number)  # a reset or new game began it: undo may take it
    game = base.copy()
    if live:  # the actions since the checkpoint are worked out again: bounded too
        game.deadline = time.monotonic() + UNDO_SECONDS
    try:
        engine.resume(game, [e.body["action"] for e in kept], start)
    except engine.TooMuchWork as exc:
        raise TableError(
            "too-much-work",
            Sentence(
                "Taking this back means working out the changes since the last "
                "checkpoint again, more than a table may at once ({ms} ms); nothing "
                "changed. Record what undoes it instead.",
                ms=f"{UNDO_SECONDS * 1000:g}",
            ),
        ) from exc
    finally:
        game.deadline = None
    state = engine.state_of(game)
    return Step(event, entry, game, state, table.count - 1, last, (base, start, kept))


def _undo_opener(table: TableState, event: Event, entry: Entry) -> Step:
    """The step of the undo of a reset or a new game: the game it left is the current one
    again, as it was (issue 17 item 3)."""
    assert table.last is not None
    left = table.number - 1
    count = table.last.position or 0
    start = count // table.CHECKPOINT * table.CHECKPOINT
    base = reading.checkpoint_game(table, start, left)
    kept = reading.in_effect(table, start, count, left)
    game = engine.resume(base.copy(), [e.body["action"] for e in kept], start)
    last: Event | None = kept[-1] if kept else None
    if not kept and start:
        last = reading.in_effect(table, start - 1, start, left)[0]
    elif not kept:
        last = reading.opener(table, left)
    entry.game = left
    state = engine.state_of(game)
    return Step(event, entry, game, state, count, last, (base, start, kept), back=True)


def final() -> TableError:
    """104.3a: a concession is final (an undo may not take it back)."""
    return TableError(
        "final", Sentence("A concession is final: it can't be undone."), rule="104.3a"
    )


def undo_target(table: TableState, body: dict[str, Any], live: bool) -> int:
    """The action an undo takes back, or :class:`TableError` saying why it can't. (Whose
    change it is, is the socket's question: web/protocol.py asks the seat that made it.)"""
    target = body.get("target")
    if target is None and not live:
        target = table.last.seq if table.last else 0  # a log from before undo named targets
    if isinstance(target, bool) or not isinstance(target, int):
        raise TableError(
            "malformed",
            Sentence('An undo names the action it takes back: "target" is its sequence number.'),
            member="target",
        )
    last = table.last
    if last is None or target != last.seq:
        if was_undone(table, target):
            raise TableError(
                "already-undone",
                Sentence("Event {seq} has already been undone.", seq=target),
            )
        if last is None:
            raise TableError("nothing-to-undo", Sentence("There is nothing to undo in this game."))
        # A seat's own change under a later one is not taken back alone (issue 17 item 10:
        # docs/table.md, "Undo"): undo takes the table's changes back last first.
        raise TableError(
            "not-last",
            Sentence(
                "Event {seq} is not the last action in effect: {player}'s change (event "
                "{last}) came after it, and undo takes back the last change first.",
                seq=target,
                player=undo_by(table, last),
                last=last.seq,
            ),
        )
    if undoable(last) is None:
        raise final()
    return target


def was_undone(table: TableState, target: int) -> bool:
    """Whether event ``target`` is an action of the current game that was undone: no
    longer in effect (the game has fewer actions in effect than its position, or a later
    action took its position)."""
    if table.replaying is not None or not 0 < target <= table.last_seq:
        return False
    event = reading.event_at(table, target)
    if event is not None and event.kind in OPENERS and event.game is not None:
        # A reset or new game is undone once its game is left, or begun by another.
        if event.game != table.number:
            return event.game > table.number
        opener = reading.opener(table, table.number)
        return opener is None or opener.seq != target
    if event is None or event.kind != "action" or event.game != table.number:
        return False
    if event.position is None or event.position >= table.count:
        return True
    return reading.in_effect(table, event.position, event.position + 1)[0].seq != target


def undo_owner(table: TableState, target: object) -> str | None:
    """The seat whose change an undo of ``target`` would take back, if ``target`` is the
    last action in effect (``None`` otherwise, or for a change no seat sent)."""
    last = table.last
    if type(target) is not int or last is None or target != last.seq:
        return None  # (1.0 and True are no sequence numbers, though equal to 1)
    if undoable(last) is None:
        return None
    return last.seat


def undo_by(table: TableState, event: Event | None = None) -> str:
    """Who made a change (the last action in effect by default), as the history says it:
    "the table" for a table device's, else its seat's name."""
    event = event or table.last
    if event is None:
        return Sentence("nobody")
    if device_of(event.body) == "table":
        return Sentence("the table")
    return table.label(event.seat) if event.seat else Sentence("nobody")


def _allowed(body: object) -> str | None:
    """For an undo of another seat's change: who allowed it (a seat, or ``"host"``)."""
    allowed = body.get("allowed") if isinstance(body, dict) else None
    return allowed if isinstance(allowed, str) else None

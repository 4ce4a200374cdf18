"""What a table's rooms hand one another: a timeline entry (:class:`Entry`), a change decided
(:class:`Decision`), a change worked out and not yet taken in (:class:`Step`), and what the
three read of an event of the log (who sent it, whether an undo may take it back).

The lowest of the table's rooms (docs/design.md, "The table's decisions"): it knows the engine
and the store's records, and nothing of a table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..store.records import Checkpoint, Event
from . import engine
from .rights import concessions

__all__ = ["Decision", "Entry", "Replay", "Segment", "Step", "device_of", "own_targets", "undoable"]


@dataclass(slots=True)
class Entry:
    """One line of the timeline: an event of the log and what it changed."""

    seq: int
    kind: str
    game: int
    seat: str | None
    time: float
    action: dict[str, Any] | None = None
    target: int | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    #: The engine's notes: ``{"rule", "text", "sentence"}`` (:func:`.engine.note_json`; an
    #: entry kept before sentences were has no ``"sentence"``: a phone shows its text).
    notes: list[dict[str, Any]] = field(default_factory=list)
    #: What sent it, when not the seat's own phone: ``"table"``, a table device (issue 17
    #: item 11: a tablet's tap on a panel is the table's, whichever held seat it acts as).
    device: str | None = None
    #: For an undo of another seat's change: who allowed it (that seat, or ``"host"``).
    allowed: str | None = None
    #: For a change of a player's name or colour (``setup``): the player, and each of
    #: ``name`` and ``colour`` that changed as ``{"from": ..., "to": ...}``.
    setup: dict[str, Any] | None = None
    #: Part of a seat's own change taken back under later ones (issue 25 item 4): for an undo of
    #: a later change, the change taken back; for a later change made again, the one it repeats.
    replay: int | None = None
    _text: str | None = None

    def text(self) -> str:
        """The entry as JSON text (made once: an entry never changes once in the timeline)."""
        if self._text is None:
            self._text = json.dumps(self.to_json())
        return self._text

    def to_json(self) -> dict[str, Any]:
        """The entry as sent to a client."""
        return {
            "seq": self.seq,
            "kind": self.kind,
            "game": self.game,
            "seat": self.seat,
            "time": self.time,
            "action": self.action,
            "target": self.target,
            "changes": self.changes,
            "notes": self.notes,
            **({"device": self.device} if self.device is not None else {}),
            **({"allowed": self.allowed} if self.allowed is not None else {}),
            **({"setup": self.setup} if self.setup is not None else {}),
            **({"replay": self.replay} if self.replay is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """A request the table accepted: its event (to be written, with the checkpoint it made,
    if any), the view after it, and the message for every phone as JSON text (to be sent
    once the event is written): a delta, the change itself, not the state."""

    event: Event
    checkpoint: Checkpoint | None
    entry: Entry
    view: dict[str, Any]
    text: str
    #: For one of the changes that take back a seat's own change under later ones (issue 25
    #: item 4): the request's client id, shared by all of them (decided again as one).
    group: str | None = None


#: A stretch of the current game: a checkpoint (never changed: copied to be played on), how
#: many actions in effect it comes after, and the actions in effect after it.
Segment = tuple[engine.Game, int, list[Event]]


@dataclass(slots=True)
class Step:
    """A change worked out in full, not yet taken into the table: :func:`.deciding.adopt` takes
    it in with assignments only, so that a change either happens whole or not at all."""

    event: Event
    entry: Entry
    game: engine.Game
    state: dict[str, Any]
    #: The actions in effect in the current game after it, and the last of them.
    count: int
    last: Event | None
    #: The current game's segment after it (``None``: the event is added to the segment).
    segment: Segment | None = None
    checkpoint: Checkpoint | None = None
    #: For a next game: the outcome of the game that ended.
    outcome: engine.Outcome | None = None
    #: For the undo of a reset or a new game: the game it ended is the current one again.
    back: bool = False
    #: For a change of a player's name or colour: the header and the colours after it.
    setup: tuple[dict[str, Any], dict[str, int]] | None = None
    #: The players and teams whose state it may have changed (``None``: any), and whether the
    #: effects in play may have changed (:func:`.engine.after`).
    players: frozenset[str] | None = None
    teams: frozenset[str] | None = None
    effects_changed: bool = True
    view: dict[str, Any] | None = None
    text: str = ""


@dataclass(slots=True)
class Replay:
    """While a log is replayed from its first event (a log from before checkpoints were kept,
    or one whose checkpoints this build can't read): the current game's actions in effect and
    checkpoints, all of them, and what is derived for the store."""

    effective: list[Event] = field(default_factory=list)
    checkpoints: dict[int, engine.Game] = field(default_factory=dict)
    derived: list[Event] = field(default_factory=list)
    made: list[Checkpoint] = field(default_factory=list)
    #: The games a reset or a new game left (their actions in effect and checkpoints), for
    #: its undo; and the reset or new game that began each game.
    left: list[tuple[list[Event], dict[int, engine.Game]]] = field(default_factory=list)
    openers: dict[int, Event] = field(default_factory=dict)


def device_of(body: object) -> str | None:
    """The device that sent an event, as its body says (``"table"``; ``None``: a phone)."""
    device = body.get("device") if isinstance(body, dict) else None
    return device if device == "table" else None


def undoable(last: Event | None) -> int | None:
    """The sequence number of ``last``, the last action in effect (or the reset or new game
    that began the game, while no action of it is), if an undo may take it back (104.3a: a
    concession is final)."""
    if last is None or (last.kind == "action" and concessions(last.body["action"])):
        return None
    return last.seq


def own_targets(effective: list[Event]) -> dict[str, int]:
    """Each seat's own last change in effect among ``effective`` (the actions since the last
    checkpoint), as a seat's Undo on its own phone names it (issue 25 item 4): its newest
    action sent from its own phone (not the table device's), unless a concession (104.3a)."""
    own: dict[str, int] = {}
    seen: set[str] = set()
    for event in reversed(effective):
        seat = event.seat
        if event.kind != "action" or seat is None or seat in seen or device_of(event.body):
            continue
        seen.add(seat)
        if undoable(event) is not None:
            own[seat] = event.seq
    return own

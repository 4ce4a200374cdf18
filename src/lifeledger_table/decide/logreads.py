"""What a table's decision needs of its log that is not in memory, sans I/O (issue 18 item 4).

A decision never waits on the store: when it needs part of the log it does not hold (an event
an undo names, a checkpoint and the actions after it when an undo crosses a checkpoint, the
game a reset left), it raises :class:`NeedsLog` naming that read (a :class:`LogRead`), having
changed nothing. Whoever decides (the writer, on the event loop) makes the read off the loop
(:meth:`LogRead.fetch`, through the store's interface), gives it to the table
(:meth:`.table.Table.learn`: kept in its :class:`LogReads`) and decides the request again.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

from ..store.records import Checkpoint, Event, Store

__all__ = ["Found", "LogRead", "LogReads", "NeedsLog"]

#: What a read of the log found (entries: their sequence numbers and texts).
Found = Event | Checkpoint | list[Event] | list[tuple[int, str | None]] | None


@dataclass(frozen=True, slots=True)
class LogRead:
    """One read of a table's log: an event by its sequence number (``seq``) or its client
    id, a game's checkpoint after ``count`` actions in effect, the actions in effect at
    positions ``start`` to ``end - 1`` of a game, or the ``count`` timeline entries before
    ``seq`` (a history page)."""

    table: str
    what: Literal["event", "client_id", "checkpoint", "effective", "entries"]
    game: int = 0
    seq: int = 0
    count: int = 0
    start: int = 0
    end: int = 0
    client_id: str = ""

    def fetch(self, store: Store) -> Found:
        """Make the read (I/O: off the event loop)."""
        if self.what == "event":
            return store.event(self.table, self.seq)
        if self.what == "client_id":
            return store.event_by_client_id(self.table, self.client_id)
        if self.what == "checkpoint":
            return store.checkpoint(self.table, self.game, self.count)
        if self.what == "entries":
            return store.entries(self.table, self.seq, self.count)
        return store.effective(self.table, self.game, self.start, self.end)


class NeedsLog(Exception):
    """A decision needs ``read`` of the table's log, which it does not hold: nothing was read
    and nothing changed. Make the read, give it to the table (:meth:`.table.Table.learn`,
    with this), and decide the request again."""

    def __init__(self, read: LogRead, token: LogReads) -> None:
        super().__init__(f"table {read.table} needs {read}")
        self.read = read
        #: The reads kept when it was raised: a read made meanwhile is kept only if the table
        #: keeps the same ones still (it did not change since).
        self.token = token


@dataclass(eq=False, slots=True)
class LogReads:
    """The reads of the log a table was given for its decisions: at most :attr:`KEPT`, the
    newest used kept. All are dropped (a new :class:`LogReads` takes their place) whenever
    the table takes in a change, since what was read may then no longer be what is in effect.

    A read made while changes decided here were being written may or may not hold them:
    :attr:`written` keeps the changes written since these reads began (written while none
    was taken in), which a decision reads beside the reads and the changes not yet written.
    """

    #: The most reads kept (a decision needs at most a few: an undo past a checkpoint, three).
    KEPT = 32
    #: The most written changes kept beside them; past it, all are dropped.
    WRITTEN = 256

    found: OrderedDict[LogRead, Found] = field(default_factory=OrderedDict)
    written: list[tuple[Event, Checkpoint | None]] = field(default_factory=list)
    #: Whether a decision asked for a read with these (:class:`NeedsLog`): one may be under way.
    asked: bool = False

    def get(self, read: LogRead) -> tuple[bool, Found]:
        """``(True, what was found)`` if ``read`` was made, else ``(False, None)``."""
        if read not in self.found:
            return False, None
        self.found.move_to_end(read)
        return True, self.found[read]

    def keep(self, read: LogRead, found: Found) -> None:
        """Keep what ``read`` found (the oldest used leaves past :attr:`KEPT`)."""
        self.found[read] = found
        self.found.move_to_end(read)
        while len(self.found) > self.KEPT:
            self.found.popitem(last=False)

"""Reading a table's log sans I/O: what a decision needs of the log that is not in memory
(an event, a checkpoint, the actions in effect at some positions, the reset or new game that
began a game) comes from what the table was given (:func:`learn`), else :class:`NeedsLog`
names the read and nothing has changed (issue 18 item 4: the caller makes it off the event
loop and decides again). While the log is replayed from its start (:func:`.loading.replay_log`)
it all comes from memory instead.
"""

from __future__ import annotations

import logging

from ..store.records import Checkpoint, DamagedError, Event, newest_at_each_position
from . import engine
from .entries import Segment
from .logreads import Found, LogRead, NeedsLog
from .state import OPENERS, TableState

__all__ = [
    "checkpoint_at",
    "checkpoint_game",
    "earlier",
    "event_at",
    "given",
    "in_effect",
    "learn",
    "opener",
    "segment_before",
    "unwritten",
]

log = logging.getLogger("lifeledger_table")


def given(table: TableState, read: LogRead) -> Found:
    """What ``read`` found, if the table was given it (:func:`learn`); else
    :class:`NeedsLog` (nothing is read here, and nothing has changed yet)."""
    known, found = table.reads.get(read)
    if not known:
        table.reads.asked = True
        raise NeedsLog(read, table.reads)
    return found


def learn(table: TableState, need: NeedsLog, found: Found) -> bool:
    """Take what the read ``need`` named found (made off the event loop), for the request
    to be decided again; ``False`` if the table changed since it was raised (the read is
    then dropped: deciding again asks for it again)."""
    if need.token is not table.reads:
        return False
    table.reads.keep(need.read, found)
    return True


def unwritten(table: TableState) -> list[tuple[Event, Checkpoint | None]]:
    """The changes decided here that a read of the store may not hold, oldest first:
    those written since the reads kept began, and those not written yet."""
    return [*table.reads.written, *((d.event, d.checkpoint) for d in table.pending.values())]


def event_at(table: TableState, seq: int) -> Event | None:
    """Event ``seq`` of the log (decided here, or read: :class:`NeedsLog`)."""
    for event, _ in unwritten(table):
        if event.seq == seq:
            return event
    found = given(table, LogRead(table.id, "event", seq=seq))
    return found if isinstance(found, Event) else None


def checkpoint_at(table: TableState, number: int, count: int) -> Checkpoint | None:
    """Game ``number``'s checkpoint after ``count`` actions in effect (the newest made
    here, or read: :class:`NeedsLog`)."""
    made = None
    for _, checkpoint in unwritten(table):
        if checkpoint is not None and (checkpoint.game, checkpoint.count) == (number, count):
            made = checkpoint
    if made is not None:
        return made
    found = given(table, LogRead(table.id, "checkpoint", game=number, count=count))
    return found if isinstance(found, Checkpoint) else None


def in_effect(table: TableState, start: int, end: int, number: int | None = None) -> list[Event]:
    """The current game's actions in effect at positions ``start`` to ``end - 1`` (or
    game ``number``'s: the game a reset or a new game left, which its undo brings back)."""
    number = table.number if number is None else number
    current = number == table.number
    if current and start >= table.base_count:
        return table.tail[start - table.base_count : end - table.base_count]
    if table.replaying is not None:
        effective = table.replaying.effective if current else table.replaying.left[-1][0]
        return effective[start:end]
    found = given(table, LogRead(table.id, "effective", game=number, start=start, end=end))
    assert isinstance(found, list)
    waiting = [e for e, _ in unwritten(table) if e.kind == "action" and e.game == number]
    tail = newest_at_each_position(
        [e for e in [*found, *waiting] if e.position is not None and start <= e.position < end]
    )
    if [e.position for e in tail] != list(range(start, end)):
        raise DamagedError(table.id, None, f"actions {start} to {end} of game {number}")
    return tail


def opener(table: TableState, number: int) -> Event | None:
    """The reset or new game that began game ``number``, if one did (an undo takes it
    back once no action of the game is in effect): the event its checkpoint at the
    game's start names."""
    if number <= 1:
        return None
    if table.replaying is not None:
        return table.replaying.openers.get(number)
    found = checkpoint_at(table, number, 0)
    if found is None:
        raise DamagedError(table.id, None, f"the start of game {number} is gone")
    event = event_at(table, found.seq)
    return event if event is not None and event.kind in OPENERS else None


def checkpoint_game(table: TableState, count: int, number: int | None = None) -> engine.Game:
    """The current game (or game ``number``) after ``count`` actions in effect (a multiple
    of ``table.CHECKPOINT``), from its checkpoint: never changed (copy it to play on)."""
    number = table.number if number is None else number
    if count == 0:
        return engine.new_game(table.header)
    if table.replaying is not None:
        current = number == table.number
        return (table.replaying.checkpoints if current else table.replaying.left[-1][1])[count]
    found = checkpoint_at(table, number, count)
    if found is None:
        raise DamagedError(table.id, None, f"checkpoint {count} of game {number} is gone")
    try:
        return engine.load_checkpoint(found.data)[0]
    except ValueError as exc:  # another build's (or forged): the game's actions replayed
        log.info("table %s: replaying game %d (%s)", table.id, number, exc)
        actions = [e.body["action"] for e in in_effect(table, 0, count, number)]
        return engine.resume(engine.new_game(table.header), actions, 0)


def segment_before(table: TableState, end: int) -> Segment:
    """The segment of the current game that ends after ``end`` actions in effect (a
    multiple of ``table.CHECKPOINT``, above 0): its checkpoint and its actions, read from
    the log (:class:`NeedsLog`; and the changes not yet written)."""
    start = end - table.CHECKPOINT
    return checkpoint_game(table, start), start, in_effect(table, start, end)


def earlier(table: TableState, client_id: str, look_up: bool) -> int | None:
    """The sequence number a client id got, if the table accepted it lately (or ever,
    with ``look_up``: the log is read, :class:`NeedsLog`)."""
    seq = table.client_ids.get(client_id)
    if seq is None and look_up:
        found = given(table, LogRead(table.id, "client_id", client_id=client_id))
        seq = found.seq if isinstance(found, Event) else None
    return seq

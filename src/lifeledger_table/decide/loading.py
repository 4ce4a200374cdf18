"""Loading a table and its checkpoints: a table is built from its newest checkpoint and the
actions in effect after it (at most ``table.CHECKPOINT`` of them replayed,
however long its log), or, for a log from before checkpoints were kept or whose checkpoints
this build can't read, by replaying its whole log, keeping in the store what that derived. A
log that can't be loaded leaves the table broken, saying why (:meth:`.state.TableState.fail`).

This room reads and writes the store (call it off the event loop): loading, :func:`settle`
(a decision with the reads it needs made here, synchronously) and :func:`submit` (a request
decided and written at once). Deciding itself never does (:mod:`.deciding`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..store.records import DuplicateError, StoreUnavailable, TableRow
from . import deciding, engine, reading, setting, views
from .entries import Entry, Replay
from .errors import unreachable
from .limits import WorkShare
from .logreads import NeedsLog
from .state import CLIENT_IDS_KEPT, OPENERS, READS, SETUP_KEY, TableState
from .tools import Tools, load_tools

__all__ = ["reload", "replay_log", "resume", "settle", "start", "submit"]

T = TypeVar("T")

log = logging.getLogger("lifeledger_table")


def reload(table: TableState) -> None:
    """Build everything in memory from the store (on first use, and after a failed write:
    whatever was decided but not written is forgotten), from the newest checkpoint: at
    most ``table.CHECKPOINT`` actions are replayed. Raises :class:`KeyError` if the store
    has no such table; if the log can't be loaded, ``table.broken`` says why."""
    table.broken = None
    table.reset(None)
    try:
        table.tools = load_tools(table.store, table.id)
    except StoreUnavailable:
        raise  # the store can't be reached now: the table is loaded later, not broken
    except Exception:
        log.exception("table %s: could not read its tools", table.id)
        table.tools = Tools()
    try:
        row = table.store.table(table.id)
    except StoreUnavailable:
        raise
    except Exception as exc:
        table.fail(None, exc)
        return
    if row is None:
        raise KeyError(table.id)
    try:
        start(table, row)
        if not resume(table):
            start(table, row)
            replay_log(table)
        table.committed = table.last_seq
        table.view = table.latest = views.view(table)
    except StoreUnavailable:
        raise
    except Exception as exc:
        table.fail(table.loading_at or table.last_seq + 1, exc)


def start(table: TableState, row: TableRow) -> None:
    """The table as before its first event: ``row``'s setup, seats and match."""
    table.reset(row)
    table.match = engine.Match(row.setup.get("best_of"))
    table.seats = table.store.seats(table.id)
    table.game = engine.new_game(table.header)
    table.base = engine.new_game(table.header)
    table.state = engine.state_of(table.game)


def resume(table: TableState) -> bool:
    """Load the table from its newest checkpoint and the actions in effect after it;
    ``False`` if it can't be (a log from before checkpoints, or a checkpoint another build
    wrote): the log is then replayed from the start."""
    last = table.store.last_event(table.id)
    if last is None:
        return True
    if last.game is None or last.position is None:
        return False
    if not setting.take_setup(table, table.store.checkpoint(table.id, *SETUP_KEY)):
        return False
    if last.kind == "action":
        count = last.position + 1
    elif last.kind in OPENERS:
        count = 0  # its position is the count of the game it ended
    else:
        count = last.position
    base_count = count // table.CHECKPOINT * table.CHECKPOINT
    base, outcomes = engine.new_game(table.header), list[engine.Outcome]()
    if last.game > 1 or base_count:
        found = table.store.checkpoint(table.id, last.game, base_count)
        if found is None:
            return False
        try:
            base, outcomes = engine.load_checkpoint(found.data)
        except ValueError as exc:
            log.info("table %s: replaying its log (%s)", table.id, exc)
            return False
        if len(outcomes) + 1 != last.game:
            return False
    # At a checkpoint, the segment is empty: its last action is read too.
    start = min(base_count, max(count - 1, 0))
    tail = table.store.effective(table.id, last.game, start, count)
    if [e.position for e in tail] != list(range(start, count)):
        return False
    recent = table.store.entries(table.id, last.seq + 1, table.recent.maxlen or 0)
    if any(text is None for _, text in recent):
        return False
    table.outcomes = outcomes
    table.count, table.last = count, (tail[-1] if tail else None)
    if not count:  # a reset or a new game may be undone
        number = last.game
        table.last = settle(table, lambda: reading.opener(table, number), loading=True)
    table.base, table.base_count, table.tail = base, base_count, tail[base_count - start :]
    try:
        actions = [e.body["action"] for e in table.tail]
        table.game = engine.resume(base.copy(), actions, base_count)
    except Exception:
        return False  # replayed from the start, which names the event that fails
    table.state = engine.state_of(table.game)
    table.last_seq = last.seq
    table.recent.extend((seq, text) for seq, text in recent if text is not None)
    # The newest client ids: a change sent again after a restart is known at once.
    ids = table.store.client_ids(table.id, CLIENT_IDS_KEPT)
    table.client_ids = {cid: seq for seq, cid in ids}
    table.ids_from = ids[0][0] if len(ids) == CLIENT_IDS_KEPT else 1
    return True


def replay_log(table: TableState) -> None:
    """Replay the whole log (a log from before checkpoints were kept, or whose checkpoints
    can't be read), and keep in the store what it derived, so that the next load starts
    from a checkpoint."""
    table.replaying = replay = Replay()
    for event in table.store.events(table.id):
        table.loading_at = event.seq
        step = deciding.prepare(table, event, None, live=False)
        deciding.adopt(table, step)
        if event != step.event:
            replay.derived.append(step.event)
        if step.checkpoint is not None:
            replay.made.append(step.checkpoint)
    table.loading_at = 0
    table.replaying = None
    if replay.derived or replay.made:
        try:
            table.store.derive(replay.derived, replay.made)
        except Exception:
            # Only derived facts: the table is loaded; the next load replays again.
            log.exception("table %s: could not keep its checkpoints", table.id)


def settle(table: TableState, work: Callable[[], T], *, loading: bool = False) -> T:
    """``work()`` (a decision), the store read here, synchronously, each time it needs
    part of the log (:class:`NeedsLog`): for :func:`submit`, loading a table (in a thread)
    and tests, never on the event loop. A read that fails refuses it ``storage`` (nothing
    changed); ``loading``: it raises its own error (a store that can't be reached leaves
    the table to be loaded later)."""
    for _ in range(READS):
        try:
            return work()
        except NeedsLog as need:
            try:
                found = need.read.fetch(table.store)
            except Exception as exc:
                if loading:
                    raise
                if not isinstance(exc, StoreUnavailable):
                    log.warning("table %s: could not read its log (%s)", table.id, exc)
                raise unreachable() from exc
            reading.learn(table, need, found)
    return work()


def submit(
    table: TableState,
    kind: str,
    body: dict[str, Any],
    client_id: str,
    seat: str | None,
    *,
    shares: Sequence[WorkShare] = (),
) -> tuple[Entry | None, int]:
    """Decide a request and write it at once (one request, one transaction).

    Returns ``(entry, seq)``; ``entry`` is ``None`` for a retry of a request that was
    accepted before. Raises :class:`TableError` if it is turned down.
    """
    decision = settle(
        table,
        lambda: deciding.decide(table, kind, body, client_id, seat, look_up=True, shares=shares),
    )
    if isinstance(decision, int):
        return None, decision
    try:
        checkpoints = [decision.checkpoint] if decision.checkpoint else []
        if table.store.append([decision.event], checkpoints):
            raise DuplicateError(f"another server wrote event {decision.event.seq} first")
    except BaseException:
        reload(table)
        raise
    deciding.commit(table, decision)
    return decision.entry, decision.event.seq

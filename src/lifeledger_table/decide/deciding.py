"""Deciding a change: the way of every request through the table (docs/design.md, "The
table's decisions"). A request is admitted (:func:`admit`: the table usable, not a retry, its
turn still the one it names, the shares not spent), worked out in full by its kind's step
(:func:`prepare`: an action by the engine, an undo by :mod:`.undoing`, a change of the setup by
:mod:`.setting`, a next game, a reset or a new game here) changing nothing in the table, shown
(:func:`.views.present`), and only then taken in with assignments alone (:func:`adopt`). So a
change either happens whole or not at all; a refusal is remembered for its retry.

Deciding does no I/O (issue 18 item 4): what it needs of the log comes through
:mod:`.reading`, or :class:`NeedsLog` names the read, having changed nothing.
"""

from __future__ import annotations

import gc
import json
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from lifeledger.budget import cpu_time
from lifeledger.sentences import Items, Sentence

from ..store.records import Checkpoint, Event, StoreUnavailable
from . import engine, reading, setting, undoing, views
from .changes import changes
from .entries import Decision, Entry, Step, device_of
from .errors import TableError, engine_failed, unreachable
from .limits import DECISION_SECONDS, WorkShare, check_shortcut
from .logreads import LogReads, NeedsLog
from .state import (
    CLIENT_IDS_KEPT,
    MAX_GAMES,
    OPENERS,
    PROPOSALS_KEPT,
    REFUSALS_KEPT,
    TableState,
)
from .text import check_action_text

__all__ = [
    "admit",
    "adopt",
    "agree",
    "check_turn",
    "choice_needed",
    "commit",
    "decide",
    "decide_one",
    "prepare",
    "refused",
    "spending",
    "take_one",
]

log = logging.getLogger("lifeledger_table")


def decide(
    table: TableState,
    kind: str,
    body: dict[str, Any],
    client_id: str,
    seat: str | None,
    *,
    look_up: bool = False,
    at_turn: int | None = None,
    shares: Sequence[WorkShare] = (),
    at: float | None = None,
) -> Decision | int:
    """Let the engine and the table decide a client's request, and take it into memory.

    Returns the :class:`Decision` (its event is to be written, then passed to :func:`commit`),
    or, for a ``client_id`` seen lately (a retry; with ``look_up``, ever: the store is
    asked), the sequence number it got. Raises
    :class:`TableError` if the request is turned down (nothing changes); a retry of a
    turned-down request gets the same error. If the write then fails, :func:`.loading.reload`.
    ``at_turn``: the request holds only while the game's turn number is this one (two
    phones pressing "Next turn" at once begin one turn, not two: the second is ``stale``).
    ``shares``: a phone's request is turned down ``busy`` while the table's changes, or
    its network's, have taken more than their share of the server (each a
    :class:`.limits.WorkShare`); the time the decision takes counts against each, and
    against the table's own (``table.share``) whoever asks. ``at``: when the change was
    made, if not now (a table shared from a device keeps its changes' times).
    """
    earlier = admit(table, client_id, look_up, at_turn, shares)
    if earlier is not None:
        return earlier
    with spending(table, shares):
        return decide_one(table, kind, body, client_id, seat, at)


def admit(
    table: TableState,
    client_id: str,
    look_up: bool,
    at_turn: int | None,
    shares: Sequence[WorkShare],
) -> int | None:
    """What every request meets before it is decided: a table that can be decided, no
    refusal of the same change kept, its turn still the one it names, the shares not
    spent (raising :class:`TableError`); returns the sequence number of the same change
    accepted before (a retry), else ``None``."""
    table.check()
    if table.reloading:
        raise TableError(
            "storage",
            Sentence("The table is being loaded again; nothing changed. Send it again."),
        )
    refused = table.refusals.get(client_id)
    if refused is not None:
        raise refused
    earlier = reading.earlier(table, client_id, look_up)
    if earlier is not None:
        return earlier
    if at_turn is not None:
        check_turn(table, at_turn)
    for share in shares:
        share.check()
    return None


@contextmanager
def spending(table: TableState, shares: Sequence[WorkShare]) -> Iterator[None]:
    """Charge what deciding within takes to the table's share and to ``shares``: the time
    it held the event loop, which every other table's messages wait for (on a loaded
    machine several times its processor time), and the work it took, which weights a
    long one (issue 26 item 5: limits.charged)."""
    began, worked = time.perf_counter(), cpu_time()
    try:
        yield
    finally:
        work = cpu_time() - worked
        held = max(time.perf_counter() - began, work)
        table.share.spend(held, work)
        for share in shares:
            if share is not table.share:
                share.spend(held, work)


def decide_one(
    table: TableState,
    kind: str,
    body: dict[str, Any],
    client_id: str,
    seat: str | None,
    at: float | None = None,
    *,
    replayed: bool = False,
    group: str | None = None,
) -> Decision:
    """:func:`decide` a new request, the engine bounded by :data:`.limits.DECISION_SECONDS`
    (the log, replayed, is not: each of its actions was decided within it once)."""
    event = Event(
        table=table.id,
        seq=table.last_seq + 1,
        kind=kind,
        body=body,
        client_id=client_id,
        seat=seat,
        time=time.time() if at is None else at,
    )
    game = table.game
    game.time_limit = DECISION_SECONDS
    # No collection of cyclic garbage while deciding: what the engine makes (a note per
    # trigger, thousands of them) lives until the action ends, would be promoted and set
    # off full collections of the whole server's objects, tens of ms each (issue 21).
    # Freed by reference counting at the end, it never reaches the collector.
    collecting = gc.isenabled()
    gc.disable()
    try:
        step = prepare(table, event, seat, live=True, replayed=replayed)
    except TableError as exc:
        if exc.code != "choice-needed":  # sent again, with its id, once the choice is made
            refused(table, client_id, exc)
        raise
    except NeedsLog:  # nothing changed: the request is decided again once it is read
        raise
    except StoreUnavailable as exc:  # a store's error: nothing changed
        raise unreachable() from exc
    except Exception as exc:
        # Not a refusal: the engine failed. The live game may be half changed: rebuild it.
        log.exception("table %s: the engine failed on a %s", table.id, kind)
        if kind == "action":
            table.recover()
        raise engine_failed() from exc
    finally:
        game.time_limit = None
        if collecting:
            gc.enable()
    adopt(table, step)
    assert step.view is not None
    decision = Decision(step.event, step.checkpoint, step.entry, step.view, step.text, group)
    table.pending[event.seq] = decision
    return decision


def refused(table: TableState, client_id: str, exc: TableError) -> None:
    """Remember that the request sent with ``client_id`` was turned down ``exc`` (its retry
    is answered the same), among the newest :data:`.state.REFUSALS_KEPT`."""
    table.refusals[client_id] = exc
    while len(table.refusals) > REFUSALS_KEPT:
        table.refusals.popitem(last=False)


def prepare(
    table: TableState, event: Event, seat: str | None, *, live: bool, replayed: bool = False
) -> Step:
    """Work out what ``event`` does, changing nothing in the table (only the live game, for
    an action the engine accepts: :func:`adopt` then takes it in, or the caller rebuilds
    the game). ``live``: a client's request (checked against its seat; a view and the
    phones' message are made), as opposed to an event of the log being replayed. Raises
    :class:`TableError` if the event may not be added."""
    entry = _entry(table, event)
    position = table.count
    if event.kind == "action":
        step = _action_step(table, event, entry, seat, live=live, replayed=replayed)
    elif event.kind == "undo":
        step = undoing.undo_step(table, event, entry, live)
    elif event.kind == "next_game":
        step = _next_game_step(table, event, entry)
    elif event.kind == "setup":
        # Issue 17 item 2: a player's name or colour, changed at the table (a quick game's
        # "Player 1" becomes Ana). The game is as it was; the setup is the table's.
        step = setting.setup_step(table, event, entry)
    elif event.kind in OPENERS:
        step = _opener_step(table, event, entry)
    else:
        raise TableError(
            "malformed",
            Sentence("Unknown request {kind}.", kind=repr(event.kind)),
            member="type",
        )
    entry.changes = changes(table.state, step.state, step.players, step.teams)
    step.event = _as_stored(event, entry, position, step.count)
    if event.kind in ("action", *OPENERS):
        step.last = step.event
    if live:
        views.present(table, step)
    return step


def _entry(table: TableState, event: Event) -> Entry:
    """The timeline entry of ``event``, the next one of the log with a body (a JSON object),
    before what it changed is known."""
    if event.seq != table.last_seq + 1:
        raise TableError(
            "malformed", Sentence("is out of order (after event {seq})", seq=table.last_seq)
        )
    if not isinstance(event.body, dict):
        raise TableError("malformed", Sentence("has no body (a JSON object)"))
    entry = Entry(
        seq=event.seq, kind=event.kind, game=table.number, seat=event.seat, time=event.time
    )
    entry.device = device_of(event.body)
    replay = event.body.get("replay")
    entry.replay = replay if type(replay) is int else None
    return entry


def _as_stored(event: Event, entry: Entry, position: int, count: int) -> Event:
    """The event as stored: with its game, its position (for an action, the actions in
    effect before it, ``position``; for a reset or a new game, those of the game it left,
    which its undo brings back; else after it, ``count``) and its timeline entry."""
    return Event(
        event.table,
        event.seq,
        event.kind,
        event.body,
        event.client_id,
        event.seat,
        event.time,
        entry.game,
        position if event.kind in ("action", *OPENERS) else count,
        entry.text(),
    )


def _action_step(
    table: TableState, event: Event, entry: Entry, seat: str | None, *, live: bool, replayed: bool
) -> Step:
    """The step of an action: parsed, checked against the seat that sent it (a client's
    request), applied to the live game by the engine, with a checkpoint every
    ``table.CHECKPOINT`` actions in effect."""
    game, position = table.game, table.count
    action = event.body.get("action")
    if not isinstance(action, dict):
        raise TableError("malformed", Sentence("An action is a JSON object."), member="action")
    try:
        parsed = engine.parse(action, position)
    except engine.MalformedError as exc:
        raise TableError("malformed", exc.message, member=exc.member) from exc
    if live:
        check_action_text(action, "action")
        check_shortcut(parsed)
        # A change replayed under an undo (issue 25 item 4) was checked when made.
        if seat is not None and not replayed and table.rights.check(parsed, seat, game=game):
            agree(table, action, seat)
    try:
        entry.notes = engine.apply(game, parsed, position)
    except (
        engine.ChoiceNeeded,
        engine.RefusedError,
        engine.TooMuchWork,
        engine.MalformedError,
    ) as exc:
        if live and engine.state_of(game) != table.state:
            table.recover()  # the engine promises nothing changed: make it so
        raise _refusal(table, exc) from exc
    entry.action = action
    state, players, teams, effects_changed = engine.after(game, table.state)
    step = Step(event, entry, game, state, position + 1, None)
    step.players, step.teams, step.effects_changed = players, teams, effects_changed
    if step.count % table.CHECKPOINT == 0:
        base = game.copy()
        step.segment = (base, step.count, [])
        data = engine.dump_checkpoint(base, table.outcomes)
        step.checkpoint = Checkpoint(table.id, table.number, step.count, event.seq, data)
    return step


def _refusal(
    table: TableState,
    exc: engine.ChoiceNeeded | engine.RefusedError | engine.TooMuchWork | engine.MalformedError,
) -> TableError:
    """How an action the engine turned down is refused: waiting for a choice, refused by a
    rule, too much work (issue 21), or malformed."""
    if isinstance(exc, engine.ChoiceNeeded):
        return choice_needed(table, exc)
    if isinstance(exc, engine.RefusedError):
        return TableError("refused", exc.message, rule=exc.rule)
    if isinstance(exc, engine.TooMuchWork):
        return TableError("too-much-work", _too_much_work(exc))
    return TableError("malformed", exc.message, member=exc.member)


def _next_game_step(table: TableState, event: Event, entry: Entry) -> Step:
    """The step of ``next_game``: after a game that is over (after the game that decides a
    match, the next game begins the next match)."""
    if not table.state.get("over"):
        raise TableError(
            "not-over",
            Sentence("This game isn't over yet: it ends with a win, a loss or a draw."),
        )
    return _begin_next_game(table, event, entry)


def _opener_step(table: TableState, event: Event, entry: Entry) -> Step:
    """The step of a reset or a new game (issue 17 item 3): the game in progress is left
    unfinished and not scored (no result is made up for it: nobody won, lost or drew it); the
    same players begin a fresh game, with the setup's header. Its undo brings the game back
    as it was (:func:`.undoing.undo_step`)."""
    if table.state.get("over"):
        raise TableError(
            "over",
            Sentence("This game is over: Next game starts the next one, and its result counts."),
        )
    if not table.count:
        raise TableError(
            "unchanged",
            Sentence("Nothing has happened in this game yet: it is at its start already."),
        )
    return _begin_next_game(table, event, entry)


def _begin_next_game(table: TableState, event: Event, entry: Entry) -> Step:
    """The step of ``event`` beginning the next game with the setup's players (after the
    current one: decided, or left unfinished), with its checkpoint of a game at its start;
    ``too-many-games`` past :data:`MAX_GAMES`."""
    number = table.number
    if number >= MAX_GAMES:
        raise TableError(
            "too-many-games",
            Sentence(
                "A table plays at most {n} games: open a new table to play on (this one "
                "keeps its games, records and statistics).",
                n=MAX_GAMES,
            ),
        )
    outcome = table.game.outcome()
    game = engine.new_game(table.header)
    entry.game = number + 1
    state = engine.state_of(game)
    base = engine.new_game(table.header)
    step = Step(event, entry, game, state, 0, None, (base, 0, []), outcome=outcome)
    step.checkpoint = Checkpoint(
        table.id,
        number + 1,
        0,
        event.seq,
        engine.dump_checkpoint(base, [*table.outcomes, outcome]),
    )
    return step


def check_turn(table: TableState, at_turn: int) -> None:
    """Raise ``stale`` unless the game's turn number is ``at_turn`` (0 before the first)."""
    turn = table.state.get("turn") or {}
    number = turn.get("number", 0)
    if number != at_turn:
        whose = " & ".join(table.label(p) for p in turn.get("active", []))
        raise TableError(
            "stale",
            Sentence(
                "Turn {number} ({player}'s) has begun since: nothing was sent again.",
                number=number,
                player=whose,
            )
            if number
            else Sentence("No turn has begun since; nothing was sent again."),
            member="at_turn",
        )


def agree(table: TableState, action: dict[str, Any], seat: str) -> None:
    """104.4i: all players in the game agree to an intentional draw. The seat's request
    counts as its player's agreement; the action happens once every other player still in
    the game who holds a seat has sent the same action since the last change (players
    without a seat are at the table with a phone that is: its request speaks for them)."""
    key = json.dumps(action, sort_keys=True)
    if key not in table.proposals and len(table.proposals) >= PROPOSALS_KEPT:
        table.proposals.clear()
    agreed = table.proposals.setdefault(key, set())
    agreed.add(seat)
    playing = {p["id"] for p in table.state.get("players", []) if p["status"] == "playing"}
    waiting = [p for p in table.player_ids() if p in table.seats and p in playing - agreed]
    if waiting:
        raise TableError(
            "awaiting-agreement",
            Sentence(
                "{player} agrees to a draw; it happens once {others} agree too (each sends "
                "the same).",
                player=table.label(seat),
                others=Items(table.label(p) for p in waiting),
            ),
            rule="104.4i",
        )


def choice_needed(table: TableState, exc: engine.ChoiceNeeded) -> TableError:
    """An action that needs a choice a player hasn't made (603.3b, 603.3d, 616.1): turned
    down, naming the player, the cards and the rule, with the choice (``choice``)."""
    who = table.label(exc.player)
    cards = [engine.card_of(table.game, i) for i in exc.ids]
    what: Sentence
    if exc.choice == "targets":
        options: str = ""
        for index, p in enumerate(exc.options):
            label = table.label(p)
            options = (
                label if not index else Sentence("{first} or {second}", first=options, second=label)
            )
        what = Sentence(
            "the target of {card} ({player}'s): when {player} gains life, which opponent "
            "loses that much — {options}",
            card=cards[0],
            player=who,
            options=options,
        )
    elif exc.choice == "replacements" and engine.replaces_losing(table.game, exc.ids):
        mirrors = [
            Sentence(
                "{card} ({player}'s)",
                card=card,
                player=table.label(engine.controller_of(table.game, i) or exc.player),
            )
            for card, i in zip(cards, exc.ids, strict=True)
        ]
        what = Sentence(
            "which of {cards} replaces {player}'s loss of the game",
            cards=Items(mirrors),
            player=who,
        )
    elif exc.choice == "replacements":
        what = Sentence(
            "the order in which {cards} apply to the life {player} gains",
            cards=Items(cards),
            player=who,
        )
    else:
        what = Sentence(
            "the order of {cards} ({player}'s), whose triggered abilities go on the stack at once",
            cards=Items(cards),
            player=who,
        )
    return TableError(
        "choice-needed",
        Sentence(
            "Waiting for {player} to choose {what} ({rule}). Nothing changed: send it again "
            "once {player} has chosen.",
            player=who,
            what=what,
            rule=exc.rule,
        ),
        rule=exc.rule,
        member="do",
        choice=engine.choice_json(exc),
    )


def adopt(table: TableState, step: Step) -> None:
    """Take a worked-out change into the table (assignments only: nothing here fails)."""
    event = step.event
    replay = table.replaying
    if step.segment is None:
        table.tail.append(event)
    else:
        table.base, table.base_count, table.tail = step.segment
    if replay is not None:
        if event.kind == "action":
            replay.effective.append(event)
        elif step.back:
            replay.effective, replay.checkpoints = replay.left.pop()
        elif event.kind == "undo":
            replay.effective.pop()
        elif event.kind == "setup":
            pass  # the game is as it was
        else:
            if event.kind in OPENERS:
                replay.left.append((replay.effective, replay.checkpoints))
                replay.openers[table.number + 1] = event
            replay.effective = []
            replay.checkpoints = {}
        if step.checkpoint is not None and step.checkpoint.game and step.count:
            replay.checkpoints[step.count] = table.base
    if step.outcome is not None:
        table.outcomes.append(step.outcome)
    if step.back:
        table.outcomes.pop()
    if step.setup is not None:
        table.header, table.colours = step.setup
    table.count, table.last = step.count, step.last
    table.game = step.game
    table.state = step.state
    if step.view is not None:
        table.latest = step.view
    assert event.entry is not None
    table.recent.append((event.seq, event.entry))
    table.client_ids[event.client_id] = event.seq
    if len(table.client_ids) > 2 * CLIENT_IDS_KEPT:
        table.client_ids = dict(list(table.client_ids.items())[-CLIENT_IDS_KEPT:])
        table.ids_from = next(iter(table.client_ids.values()))
    table.last_seq = event.seq
    table.proposals.clear()
    if table.reads.asked or table.reads.found:
        table.reads = LogReads()  # what was read may no longer be what is in effect


def take_one(table: TableState, event: Event) -> str:
    """Take in one event another server wrote, the next after the last one here (as
    :meth:`.table.Table.take_in`), and return its message for the phones. Does no I/O: an event that
    needs part of the log not in memory raises :class:`NeedsLog`, having changed nothing
    (read it off the event loop, :func:`.reading.learn` it, and call again)."""
    if table.pending:
        raise TableError("busy", Sentence("Changes decided here are still being written."))
    step = prepare(table, event, None, live=True)
    adopt(table, step)
    assert step.view is not None
    commit(table, Decision(step.event, step.checkpoint, step.entry, step.view, step.text))
    return step.text


def commit(table: TableState, decision: Decision) -> None:
    """Note that the decision's event is in the store: new phones may now be shown it."""
    reads = table.reads
    if reads.asked or reads.found:  # a read under way may have missed it: kept beside
        reads.written.append((decision.event, decision.checkpoint))
        if len(reads.written) > reads.WRITTEN:
            table.reads = LogReads()
    table.committed = decision.event.seq
    table.pending.pop(decision.event.seq, None)
    table.view = decision.view
    table.view_json = None


def _too_much_work(exc: engine.TooMuchWork) -> str:
    """What a phone is told of a change the engine gave up on (issue 21)."""
    if exc.limit == "seconds":
        return Sentence(
            "This change takes the rules engine too long to work out at a table (over {ms} ms); "
            "nothing changed. Record the result it leads to instead (the totals, or a loop's "
            "draw, 732.2a).",
            ms=f"{DECISION_SECONDS * 1000:g}",
        )
    return Sentence("{message}; nothing changed.", message=exc.message)

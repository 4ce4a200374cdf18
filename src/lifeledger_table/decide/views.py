"""What a table shows: its setup for a client (:func:`info`), the view of the game (state,
score, undo, effects, choices, turns, names and colours), each change's message for the phones
(:func:`present`: a delta, the change itself, not the state), a catching-up snapshot and the
history pages, and a game's record.

The score is the engine's (100.6a); a game left unfinished by a reset or a new game is not
scored (issue 17 item 3).
"""

from __future__ import annotations

import json
from typing import Any, cast

from lifeledger.sentences import Sentence

from ..store.records import DamagedError, Event
from . import engine, reading
from .entries import Step, own_targets, undoable
from .errors import TableError
from .logreads import LogRead
from .state import ENTRY_BYTES, PAGE, PAGE_BYTES, VIEW_BYTES, TableState

__all__ = [
    "history_text",
    "info",
    "page",
    "present",
    "record",
    "score",
    "score_of",
    "snapshot_text",
    "view",
    "view_text",
]


def info(table: TableState, spectator: bool) -> dict[str, Any]:
    """The table's setup as a client needs it; a spectator does not learn the table's id
    or code (they would let them take a seat)."""
    out: dict[str, Any] = {
        "header": table.header,
        "best_of": table.match.best_of,
        "labels": table.labels,
        "counted": table.row.setup.get(
            "counted", [p["id"] for p in table.header["players"] if "library" in p]
        ),
        "taken": sorted(table.seats),
        "colours": table.colours,
        "watch": table.row.watch,
        "catalogue": engine.catalogue(),
    }
    if not spectator:
        out["id"] = table.id
        out["code"] = table.row.code
    return out


def view(table: TableState) -> dict[str, Any]:
    """The view of the game as the table has it now (of the last change decided)."""
    game, setup = table.game, (table.header, table.colours)
    effects = engine.effects(game)
    return _view_of(game, table.state, score(table), effects, table.last, table.tail, setup)


def _view_of(
    game: engine.Game,
    state: dict[str, Any],
    score: dict[str, Any],
    effects: list[dict[str, Any]],
    last: Event | None,
    effective: list[Event],
    setup: tuple[dict[str, Any], dict[str, int]],
) -> dict[str, Any]:
    """The view of ``game``: its state, the score, what undo may take back now (``last``,
    the last action in effect) and each seat's own last change among ``effective``, the
    effects and choices, the players' names and colours (``setup``: the header and colours)
    and the turn tracker's turns (version 2: docs/table.md, "Turns")."""
    target = undoable(last)
    view = {
        "state": state,
        "score": score,
        "can_undo": target is not None,
        "undo_target": target,
        "undo_own": own_targets(effective),
        "effects": effects,
        "choices": engine.choices(game),  # a few entries per card in play
        **_setup_view(*setup),
    }
    turns = engine.turns(game)
    if turns is not None:
        view["turns"] = turns
    return view


def view_text(table: TableState) -> str:
    """The view as of the last change written, as JSON text (made once per change, when
    a phone first asks for it)."""
    if table.view_json is None:
        table.view_json = json.dumps(table.view)
    return table.view_json


def page(
    table: TableState, after: int, before: int, limit: int, *, memory: bool = False
) -> tuple[list[str], bool]:
    """The newest ``limit`` written entries with ``after < seq < before``, oldest first,
    at most :data:`PAGE_BYTES` of them (at least one), as JSON texts, and whether older
    ones (still after ``after``) exist. The newest come from memory, older ones from the
    log (:class:`NeedsLog`); with ``memory``, only those in memory (the older ones are
    then said to exist: a client asks for them a page at a time)."""
    end = max(0, min(before - 1, table.committed))
    start = max(after, end - limit, 0)
    if end <= start:
        return [], start > after
    first = table.recent[0][0] if table.recent else end + 1
    if first <= start + 1:
        found = [text for _, text in list(table.recent)[start + 1 - first : end + 1 - first]]
    elif memory:
        held = list(table.recent)[: max(0, end + 1 - first)]
        found = [text for _, text in held]
        start = end - len(found)
    else:
        read = LogRead(table.id, "entries", seq=end + 1, count=end - start)
        rows = cast(list[tuple[int, str | None]], reading.given(table, read))  # (LogRead.fetch)
        if any(text is None for _, text in rows):
            raise DamagedError(table.id, None, "a timeline entry was never derived")
        found = [text for _, text in rows if text is not None]
    size = 0
    for index in range(len(found) - 1, -1, -1):
        size += len(found[index])
        if size > PAGE_BYTES and index < len(found) - 1:
            found = found[index + 1 :]
            break
    return found, end - len(found) > after


def snapshot_text(table: TableState, /, since: int = 0, **head: Any) -> str:
    """:meth:`.table.Table.snapshot` as JSON text, with ``head``'s members first, made from
    the cached texts of the view and the entries (a welcome costs no more than its size)."""
    table.check()
    entries, more = page(table, since, table.committed + 1, PAGE, memory=True)
    first = json.dumps({**head, "seq": table.committed, "since": since, "more": more})
    return f'{first[:-1]}, "entries": [{", ".join(entries)}], {view_text(table)[1:]}'


def history_text(table: TableState, before: int, limit: int = PAGE) -> str:
    """:meth:`.table.Table.history` as JSON text, made from the entries' texts."""
    table.check()
    entries, more = page(table, 0, before, max(0, min(limit, PAGE)))
    joined = ", ".join(entries)
    return f'{{"type": "history", "entries": [{joined}], "more": {json.dumps(more)}}}'


def score(table: TableState) -> dict[str, Any]:
    """Where the match stands, as the engine scores it (100.6a): the current match's
    number, each side's wins, losses and draws in it (this game included once it is
    over), the side that has won it, if one has, and the matches each side has won."""
    return score_of(table, table.outcomes, table.game, table.state)


def score_of(
    table: TableState, outcomes: list[engine.Outcome], game: engine.Game, state: dict[str, Any]
) -> dict[str, Any]:
    sides = table.sides(state)
    ids = [side for side, _ in sides]
    # A game left unfinished by a reset or a new game is not scored (issue 17 item 3).
    score = table.match.score([o for o in outcomes if o.over], game.outcome(), ids)
    return {
        "best_of": table.match.best_of,
        "game": len(outcomes) + 1,
        "match": score.number,
        "finished": score.games,
        "sides": [
            {
                "id": side,
                "kind": kind,
                "wins": score.tallies[side].wins,
                "losses": score.tallies[side].losses,
                "draws": score.tallies[side].draws,
                "matches": score.won[side],
            }
            for side, kind in sides
        ],
        "match_winner": score.winner,
    }


def record(table: TableState, number: int) -> dict[str, Any]:
    """The record (document shape) of game ``number`` of the match: its actions in effect,
    read from the store (only what is written: a change decided but not yet stored may
    still fail). Reads the game's whole log: call it off the event loop."""
    if not 1 <= number <= table.number:
        raise TableError(
            "unknown-game", Sentence("This table has no game {number}.", number=number)
        )
    committed = table.committed
    effective: list[Event] = []
    for event in table.store.game_events(table.id, number):
        if event.seq > committed:
            break
        if event.kind == "action":
            effective.append(event)
        elif event.kind == "undo" and effective and _takes_back(event, effective[-1]):
            effective.pop()
    return {
        "note": f"lifeledger table, game {number}",
        **table.header,
        "actions": [e.body["action"] for e in effective],
    }


def present(table: TableState, step: Step) -> None:
    """The view after a step and its message for the phones: the change (its timeline
    entry), with the score and the effects only when they changed. Raises ``too-large``
    for a change that would make the view or the entry too large to send."""
    prior = table.latest
    outcomes = table.outcomes if step.outcome is None else [*table.outcomes, step.outcome]
    if step.back:
        outcomes = outcomes[:-1]
    decisive = step.event.kind != "action" or any(
        c["what"] in ("status", "over", "game") for c in step.entry.changes
    )
    score = score_of(table, outcomes, step.game, step.state) if decisive else prior["score"]
    effects = engine.effects(step.game) if step.effects_changed else prior["effects"]
    effective = step.segment[2] if step.segment else [*table.tail, step.event]
    setup = step.setup or (table.header, table.colours)
    step.view = _view_of(step.game, step.state, score, effects, step.last, effective, setup)
    target, turns = step.view["undo_target"], step.view.get("turns")
    text = step.entry.text()
    head = json.dumps(
        {
            "type": "event",
            "seq": step.event.seq,
            "can_undo": target is not None,
            "undo_target": target,
            "undo_own": step.view["undo_own"],
        }
    )
    extra = ""
    if score != prior["score"]:
        extra += f', "score": {json.dumps(score)}'
    if effects != prior["effects"]:
        extra += f', "effects": {json.dumps(effects)}'
    if step.view["choices"] != prior.get("choices"):
        extra += f', "choices": {json.dumps(step.view["choices"])}'
    if turns != prior.get("turns"):
        extra += f', "turns": {json.dumps(turns)}'
    for member in ("names", "colours"):  # a player's name or colour changed (issue 17)
        if step.view[member] != prior.get(member):
            extra += f', "{member}": {json.dumps(step.view[member])}'
    if len(text) > ENTRY_BYTES or (
        (extra or step.event.kind != "action" or _grows(step.entry.changes))
        and len(json.dumps(step.view)) > VIEW_BYTES
    ):
        # Every phone is sent every change: a state that only grows (new counter kinds,
        # effects, ...) would end up too large to send (found by an audit).
        if step.event.kind == "action":
            table.recover()
        raise TableError(
            "too-large",
            Sentence("This change would make the table's state too large to send to the phones."),
        )
    step.text = f'{head[:-1]}, "entry": {text}{extra}}}'


def _setup_view(header: dict[str, Any], colours: dict[str, int]) -> dict[str, Any]:
    """The players' names and chosen colours, as the view carries them (a phone that joins,
    or comes back, after a change of either is shown them)."""
    names = {p["id"]: str(p.get("name") or p["id"]) for p in header["players"]}
    return {"names": names, "colours": colours}


def _grows(items: list[dict[str, Any]]) -> bool:
    """Whether a change adds to the state (a counter kind, a commander, a trigger it did not
    have): only such a change can make it too large to send."""
    return any(
        c["what"] in ("counters", "commander_damage", "triggered") and c["from"] == 0 for c in items
    )


def _takes_back(undo: Event, last: Event) -> bool:
    """Whether an undo in a game's log takes back ``last``, the game's last action in effect
    (not the reset or new game that began the game after it: that undo leaves its game
    as it was)."""
    target = undo.body.get("target") if isinstance(undo.body, dict) else None
    return target is None or target == last.seq

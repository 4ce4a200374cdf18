"""A served table's queued changes, foreseen on the phone (issue 27 item 4): what the page's
engine worker calls while the phone has no connection to the server.

A phone that loses the server keeps the changes made meanwhile in a queue, and sends them, in
order, when the connection returns (``static/taps.js``). Meanwhile the page shows what the
rules will make of them: it keeps the table's current game as the server last gave it
(``GET /api/tables/{table}/game``: the engine's :mod:`lifeledger.snapshot` data, as of an
event), and :func:`foresee` applies the queue to that game with the same engine, in order.

The server stays the authority: nothing here is kept, and the page sends every queued change
as it would have. A change the engine refuses here is still sent (another phone's change may
make it right, or wrong, first); the page only says what it expects.
"""

from __future__ import annotations

import json
from typing import Any

from lifeledger import snapshot
from lifeledger.sentences import Sentence

from ..decide import engine
from ..decide.changes import changes
from ..decide.errors import TableError
from ..decide.jsontext import strict_json

__all__ = ["foresee"]

#: Actions the server decides with more than the rules: an intentional draw waits for every
#: player's agreement (104.4i), which the phone alone can't know. Foresight stops before them.
_AGREED = frozenset({"intentional_draw"})


def _parsed(text: str, member: str) -> Any:
    try:
        return strict_json(text)
    except ValueError as exc:
        if member == "game":
            words = Sentence("The game kept for foresight is not JSON: {error}", error=str(exc))
        else:
            words = Sentence("The queue is not JSON: {error}", error=str(exc))
        raise TableError("malformed", words, member=member) from exc


def _game(text: str) -> tuple[int, engine.Game]:
    """The sequence number and the game of ``GET /api/tables/{table}/game``'s answer."""
    data = _parsed(text, "game")
    if (
        not isinstance(data, dict)
        or set(data) != {"seq", "game"}
        or type(data["seq"]) is not int
        or data["seq"] < 0
    ):
        raise TableError(
            "malformed",
            Sentence('The game kept for foresight is {"seq": N, "game": {...}}.'),
            member="game",
        )
    try:
        game = snapshot.from_data(data["game"])
    except ValueError as exc:  # SnapshotError names where and what
        raise TableError(
            "malformed",
            Sentence("The game kept for foresight can't be read: {error}", error=str(exc)),
            member="game",
        ) from exc
    return data["seq"], game


def _queue(text: str) -> list[dict[str, Any]]:
    """The page's queued changes, each a message as it is sent (``type``, ``id``, ...)."""
    queue = _parsed(text, "queue")
    if not isinstance(queue, list):
        raise TableError(
            "malformed", Sentence("The queue is a JSON array of changes."), member="queue"
        )
    for index, msg in enumerate(queue):
        if not isinstance(msg, dict) or not isinstance(msg.get("id"), str):
            raise TableError(
                "malformed",
                Sentence(
                    'Change {n} of the queue is not a change: a JSON object with an "id".',
                    n=index + 1,
                ),
                member=f"queue[{index}]",
            )
    return queue


def _turn_number(state: dict[str, Any]) -> int:
    turn = state.get("turn") or {}
    number = turn.get("number", 0)
    return number if type(number) is int else 0


def foresee(game_text: str, queue_text: str) -> str:
    """What the rules make of the queued changes ``queue_text`` (a JSON array of the page's
    messages, in order), applied to the game of ``game_text`` (``{"seq": N, "game": data}``,
    as ``GET /api/tables/{table}/game`` answers it).

    Returns JSON text: ``{"seq", "results", "stopped", "state", "effects"}``, where
    ``results`` holds one entry per change foreseen, in order: ``{"id", "ok": true, "notes",
    "changes"}`` (applied: the engine's consequences with their rules, and what it changed in
    the state, as a timeline entry has them), ``{"id", "refused": {"error", "message",
    "sentence", "rule", "member"}}`` (the rules refuse it here: it doesn't apply) or ``{"id",
    "choice": {...}}`` (a player must choose first: 603.3b, 603.3d, 616.1; it doesn't apply);
    ``stopped`` is the id of the first change foresight leaves to the server (an undo, a reset,
    any change but an action; an intentional draw; work past the engine's budget), ``null``
    if none; ``state`` is the state after the changes applied (the spec's state, as the table
    shows it), ``effects`` the effects then in play. Bad input: ``{"error": {...}}`` naming
    where and what."""
    try:
        seq, game = _game(game_text)
        queue = _queue(queue_text)
    except TableError as exc:
        return json.dumps({"error": exc.to_json()})
    state = engine.state_of(game)
    results: list[dict[str, Any]] = []
    stopped: str | None = None
    for msg in queue:
        cid = msg["id"]
        action = msg.get("action")
        if (
            msg.get("type") != "action"
            or not isinstance(action, dict)
            or action.get("do") in _AGREED
        ):
            stopped = cid
            break
        at_turn = msg.get("at_turn")
        if type(at_turn) is int and at_turn != _turn_number(state):
            # A turn begun since the change was made: the server turns it down as stale.
            stopped = cid
            break
        before, kept = state, game.copy()
        try:
            notes = engine.apply(game, action, 0)
        except engine.ChoiceNeeded as exc:
            game = kept
            results.append({"id": cid, "choice": engine.choice_json(exc)})
            continue
        except engine.RefusedError as exc:
            game = kept
            refused = TableError("refused", exc.message, rule=exc.rule)
            results.append({"id": cid, "refused": refused.to_json()})
            continue
        except engine.MalformedError as exc:
            game = kept
            malformed = TableError("malformed", exc.message, member=exc.member)
            results.append({"id": cid, "refused": malformed.to_json()})
            continue
        except engine.TooMuchWork:
            game = kept
            stopped = cid
            break
        state = engine.state_of(game)
        results.append({"id": cid, "ok": True, "notes": notes, "changes": changes(before, state)})
    return json.dumps(
        {
            "seq": seq,
            "results": results,
            "stopped": stopped,
            "state": state,
            "effects": engine.effects(game),
        }
    )

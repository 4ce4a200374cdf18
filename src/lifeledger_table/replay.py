"""Watching a record replay: the engine's state after each of its actions, for the table view."""

from __future__ import annotations

import json
from typing import Any

from . import engine
from .table import TableError, changes

__all__ = ["MAX_ACTIONS", "replay_frames"]

MAX_ACTIONS = 5000


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not an amount")

    return json.loads(text, parse_constant=refuse)


def _document(text: str) -> dict[str, Any]:
    """A record's text, in either shape, as a document."""
    try:
        obj = _strict(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        return obj
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        items = [_strict(line) for line in lines]
    except ValueError as exc:
        raise TableError("malformed", f"This is not a game record (JSON): {exc}") from exc
    if not items or not all(isinstance(item, dict) for item in items):
        raise TableError("malformed", "This is not a game record: expected JSON objects.")
    return {**items[0], "actions": items[1:]}


def replay_frames(text: str) -> dict[str, Any]:
    """The header and, for the start and after each action, the engine's state.

    A refused action keeps the state and carries its rule; a malformed record raises
    :class:`TableError` naming the action's position and member, as the engine does.
    """
    document = _document(text)
    actions = document.pop("actions", [])
    document.pop("note", None)
    if not isinstance(actions, list):
        raise TableError("malformed", '"actions" is a list.', member="actions")
    if len(actions) > MAX_ACTIONS:
        raise TableError("malformed", f"A record to watch has at most {MAX_ACTIONS} actions.")
    try:
        engine.check_header(document)
        game = engine.new_game(document)
    except engine.MalformedError as exc:
        raise TableError("malformed", str(exc), member=exc.member) from exc
    state = engine.state_of(game)
    frames: list[dict[str, Any]] = [
        {"position": None, "action": None, "state": state, "effects": engine.effects(game)}
    ]
    for position, action in enumerate(actions):
        before = state
        refused = None
        notes: list[dict[str, str]] = []
        try:
            if not isinstance(action, dict):
                raise engine.MalformedError("an action is a JSON object", position=str(position))
            notes = engine.apply(game, action, position)
        except engine.RefusedError as exc:
            refused = {"rule": exc.rule, "message": exc.message}
        except engine.MalformedError as exc:
            raise TableError(
                "malformed",
                str(exc.at(str(position)) if exc.position is None else exc),
                member=exc.member,
            ) from exc
        state = engine.state_of(game)
        frames.append(
            {
                "position": position,
                "action": action,
                "state": state,
                "changes": changes(before, state),
                "refused": refused,
                "notes": notes,
                "effects": engine.effects(game),
            }
        )
    return {"header": document, "frames": frames}

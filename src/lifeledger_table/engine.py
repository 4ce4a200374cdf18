"""The one place the table app talks to the rules engine (the ``lifeledger`` package).

The app computes no rule of its own: every total, standing and refusal comes from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lifeledger import record, state
from lifeledger.actions import (
    Action,
    Concede,
    DrawGame,
    IntentionalDraw,
    Lose,
    PayLife,
    Penalty,
    Together,
    Win,
)
from lifeledger.effects import CATALOGUE, Kind
from lifeledger.errors import LifeledgerError, MalformedError, RefusedError
from lifeledger.formats import FORMATS
from lifeledger.game import Game
from lifeledger.match import Match
from lifeledger.outcome import Outcome
from lifeledger.variants import VARIANTS

__all__ = [
    "Action",
    "Concede",
    "DrawGame",
    "Game",
    "IntentionalDraw",
    "LifeledgerError",
    "Lose",
    "MalformedError",
    "Match",
    "Outcome",
    "PayLife",
    "Penalty",
    "RefusedError",
    "Together",
    "Win",
    "apply",
    "catalogue",
    "check_header",
    "effects",
    "new_game",
    "parse",
    "replay",
    "resume",
    "state_of",
]


def catalogue() -> dict[str, Any]:
    """What the engine knows, for the setup screen and the play screen's menus."""
    return {
        "variants": [
            {"name": name, "rule": cls.rule, "formats": sorted(cls.formats)}
            for name, cls in VARIANTS.items()
        ],
        "formats": list(FORMATS),
        "cards": list(CATALOGUE),
        "effect_kinds": [kind.value for kind in Kind],
    }


def check_header(header: dict[str, Any]) -> None:
    """Raise :class:`MalformedError` unless ``header`` is a header the engine can play."""
    record.parse_header(header)
    new_game(header)


def new_game(header: dict[str, Any]) -> Game:
    """A game as it begins under ``header`` (keeping no history: the table keeps its log)."""
    return record.parse_header(header).new_game(keep_history=False)


def replay(header: dict[str, Any], actions: Sequence[dict[str, Any]]) -> Game:
    """The game after the engine replays ``actions`` under ``header`` (see :func:`resume`)."""
    return resume(new_game(header), actions, 0)


def resume(game: Game, actions: Sequence[dict[str, Any]], start: int) -> Game:
    """``game`` (a checkpoint: ``start`` actions in) after the engine applies ``actions``.

    The actions are ones the engine accepted before. A refusal inside a group is part of the
    group's history (609.3: the group did what it could), so it is not an error; a refused
    top-level action means the log and the engine disagree, and :class:`RefusedError` says
    which (its position, from 0).
    """
    for position, action in enumerate(actions, start):
        try:
            game.apply(parse(action, position))
        except RefusedError as exc:
            raise RefusedError(exc.rule, f"action {position}: {exc.message}") from None
    return game


def parse(action: object, position: int) -> Action:
    """A record action (a JSON object) as the engine reads it; raises :class:`MalformedError`."""
    return record.parse_action(action, str(position))


def apply(game: Game, action: dict[str, Any] | Action, position: int) -> list[dict[str, str]]:
    """Apply one record action (JSON, or already parsed) to ``game`` and return its
    consequences with their rules; on :class:`MalformedError` or :class:`RefusedError`
    nothing changes."""
    parsed = action if isinstance(action, Action) else parse(action, position)
    game.apply(parsed)
    return [{"rule": note.rule, "text": note.text} for note in game.notes]


def effects(game: Game) -> list[dict[str, Any]]:
    """The continuous effects that apply now (a card's effects share the card's id)."""
    return [
        {"id": effect.id, "kind": effect.kind.value, "controller": effect.controller}
        for effect in game.effects()
    ]


def state_of(game: Game) -> dict[str, Any]:
    """The spec's state JSON of ``game``."""
    return state.state_dict(game, [])

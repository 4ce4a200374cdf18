"""The state of a game as the record spec's JSON ("The state")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .game import Game
from .outcome import Result
from .record import RECORD_VERSION, Refusal

__all__ = ["state_dict"]


def _standing(result: Result) -> dict[str, Any]:
    return {
        "status": result.status.value,
        "reason": None if result.reason is None else result.reason.value,
        "rule": result.rule,
    }


def state_dict(game: Game, refused: Iterable[Refusal] = ()) -> dict[str, Any]:
    """Every player's and team's life, counters and standing, the refusals and the triggers,
    exactly as ``lifeledger replay --json`` prints them."""
    outcome = game.outcome()
    return {
        "record": RECORD_VERSION,
        "game": outcome.game,
        "over": outcome.over,
        "players": [
            {
                "id": p.id,
                "team": p.team,
                "life": p.life,
                "poison": p.poison,
                "counters": dict(p.counters),
                "commander_damage": dict(p.commander_damage),
                "library": p.library,
                **_standing(p.result),
            }
            for p in game.players
        ],
        "teams": [
            {
                "id": t.id,
                "players": list(t.players),
                "life": t.life,
                "poison": t.poison,
                **_standing(t.result),
            }
            for t in game.teams
        ],
        "refused": [{"action": r.position, "rule": r.rule, "message": r.message} for r in refused],
        "triggered": dict(game.triggered),
    }

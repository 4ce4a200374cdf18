"""The state of a game as the record spec's JSON ("The state")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .game import Game
from .outcome import Result
from .record import RECORD_VERSION, Refusal
from .roster import PlayerView, TeamView

__all__ = ["player_state", "state_dict", "team_state"]


def _standing(result: Result) -> dict[str, Any]:
    return {
        "status": result.status.value,
        "reason": None if result.reason is None else result.reason.value,
        "rule": result.rule,
    }


def _player(p: PlayerView) -> dict[str, Any]:
    return {
        "id": p.id,
        "team": p.team,
        "life": p.life,
        "poison": p.poison,
        "counters": dict(p.counters),
        "commander_damage": dict(p.commander_damage),
        "library": p.library,
        **_standing(p.result),
    }


def _team(t: TeamView) -> dict[str, Any]:
    return {
        "id": t.id,
        "players": list(t.players),
        "life": t.life,
        "poison": t.poison,
        **_standing(t.result),
    }


def player_state(game: Game, player_id: str) -> dict[str, Any]:
    """One player's entry in the state's ``players``, exactly as :func:`state_dict` gives it:
    life and poison as the rules read them (810.9a: the team's where shared), counters,
    commander damage, library and standing."""
    return _player(game.player(player_id))


def team_state(game: Game, team_id: str) -> dict[str, Any]:
    """One team's entry in the state's ``teams``, exactly as :func:`state_dict` gives it."""
    return _team(game.team(team_id))


def state_dict(game: Game, refused: Iterable[Refusal] = ()) -> dict[str, Any]:
    """Every player's and team's life, counters and standing, the refusals and the triggers,
    exactly as ``lifeledger replay --json`` prints them."""
    outcome = game.outcome()
    return {
        "record": RECORD_VERSION,
        "game": outcome.game,
        "over": outcome.over,
        "players": [_player(p) for p in game.players],
        "teams": [_team(t) for t in game.teams],
        "refused": [{"action": r.position, "rule": r.rule, "message": r.message} for r in refused],
        "triggered": dict(game.triggered),
    }

"""The state of a game as the record spec's JSON ("The state")."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .game import Game
from .outcome import Result
from .record import Refusal
from .roster import PlayerView, TeamView

__all__ = [
    "designations_state",
    "omens_state",
    "player_state",
    "state_dict",
    "team_state",
    "turn_state",
]


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


def turn_state(game: Game) -> dict[str, Any] | None:
    """Version 2: the state's ``turn``: the turn's number, its active players (805.4a: the
    active team's, in seating order) and team, and its step; ``None`` before the first turn."""
    if not game.turn_number:
        return None
    return {
        "number": game.turn_number,
        "active": list(game.active_players),
        "team": game.active_team,
        "step": game.current_step,
    }


def designations_state(game: Game) -> dict[str, Any]:
    """Version 2: the state's ``designations``: the monarch (725), the initiative (726), day
    or night (731) and the players with the city's blessing (702.131c)."""
    return {
        "monarch": game.monarch,
        "initiative": game.initiative,
        "day_night": game.day_or_night,
        "city_blessing": list(game.city_blessed),
    }


def omens_state(game: Game) -> dict[str, int]:
    """Version 2: the state's ``omens``: the omen counters on each Celestial Convergence in
    the game (122.1), by the card's id, in the order the cards entered; ``{}`` if none."""
    return game.omen_counters


def state_dict(game: Game, refused: Iterable[Refusal] = ()) -> dict[str, Any]:
    """Every player's and team's life, counters and standing, the refusals and the triggers,
    exactly as ``lifeledger replay --json`` prints them; in a version-2 record also the turn,
    the designations and the omen counters (a version-1 record's state has none of them)."""
    outcome = game.outcome()
    state = {
        "record": game.version,
        "game": outcome.game,
        "over": outcome.over,
        "players": [_player(p) for p in game.players],
        "teams": [_team(t) for t in game.teams],
        "refused": [{"action": r.position, "rule": r.rule, "message": r.message} for r in refused],
        "triggered": dict(game.triggered),
    }
    if game.version >= 2:
        state["turn"] = turn_state(game)
        state["designations"] = designations_state(game)
        state["omens"] = omens_state(game)
    return state

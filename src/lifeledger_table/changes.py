"""What an event changed, for the timeline: the difference between two of the engine's states."""

from __future__ import annotations

from typing import Any

__all__ = ["changes"]


def _shared(team: dict[str, Any] | None, member: str) -> bool:
    return team is not None and team.get(member) is not None


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """What differs between two of the engine's states, for the timeline.

    Only a comparison of the engine's own figures: a shared team total is reported once, for
    the team, rather than once per head.
    """
    out: list[dict[str, Any]] = []
    old_teams = {t["id"]: t for t in before.get("teams", [])}
    new_teams = {t["id"]: t for t in after.get("teams", [])}
    for tid, team in new_teams.items():
        old = old_teams.get(tid, {})
        for member in ("life", "poison"):
            if team.get(member) is not None and team.get(member) != old.get(member):
                out.append(
                    {"team": tid, "what": member, "from": old.get(member), "to": team[member]}
                )
    old_players = {p["id"]: p for p in before.get("players", [])}
    for player in after.get("players", []):
        pid = player["id"]
        old = old_players.get(pid, {})
        team = new_teams.get(player.get("team") or "")
        for member in ("life", "poison", "library"):
            if _shared(team, member):
                continue
            if player.get(member) != old.get(member):
                out.append(
                    {"player": pid, "what": member, "from": old.get(member), "to": player[member]}
                )
        for group in ("counters", "commander_damage"):
            new_counts: dict[str, int] = player.get(group) or {}
            old_counts: dict[str, int] = old.get(group) or {}
            for key in sorted(set(new_counts) | set(old_counts)):
                if new_counts.get(key, 0) != old_counts.get(key, 0):
                    out.append(
                        {
                            "player": pid,
                            "what": group,
                            "key": key,
                            "from": old_counts.get(key, 0),
                            "to": new_counts.get(key, 0),
                        }
                    )
        if player.get("status") != old.get("status"):
            out.append(
                {
                    "player": pid,
                    "what": "status",
                    "from": old.get("status"),
                    "to": player.get("status"),
                    "reason": player.get("reason"),
                    "rule": player.get("rule"),
                }
            )
    if after.get("game") != before.get("game"):
        out.append({"what": "game", "from": before.get("game"), "to": after.get("game")})
    if after.get("over") and not before.get("over"):
        out.append({"what": "over", "to": True})
    old_triggers: dict[str, int] = before.get("triggered") or {}
    for key, count in (after.get("triggered") or {}).items():
        if count != old_triggers.get(key, 0):
            out.append(
                {"what": "triggered", "key": key, "from": old_triggers.get(key, 0), "to": count}
            )
    return out

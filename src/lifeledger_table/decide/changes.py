"""What an event changed: the difference between two of the engine's states, and how a phone
applies it to its copy of the state (the event message carries this delta, not the state).

Applying the changes of an event to the state before it gives exactly the state after it
(:func:`apply_changes`, property-tested); the page's ``applyChanges`` follows the same rules.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

__all__ = ["apply_changes", "changes"]

_STANDING = ("status", "reason", "rule")


def _shared(team: dict[str, Any] | None, member: str) -> bool:
    return team is not None and team.get(member) is not None


def _status(side: dict[str, str], old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    if all(old.get(k) == new.get(k) for k in _STANDING):
        return []
    return [
        {
            **side,
            "what": "status",
            "from": old.get("status"),
            "to": new.get("status"),
            "reason": new.get("reason"),
            "rule": new.get("rule"),
        }
    ]


def _counts(pid: str, group: str, old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    new_counts: dict[str, int] = new.get(group) or {}
    old_counts: dict[str, int] = old.get(group) or {}
    if new_counts == old_counts:
        return []
    return [
        {
            "player": pid,
            "what": group,
            "key": key,
            "from": old_counts.get(key, 0),
            "to": new_counts.get(key, 0),
        }
        for key in sorted(set(new_counts) | set(old_counts))
        if new_counts.get(key, 0) != old_counts.get(key, 0)
    ]


def changes(
    before: dict[str, Any],
    after: dict[str, Any],
    players: Iterable[str] | None = None,
    teams: Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """What differs between two of the engine's states, for the timeline and the phones.

    Only a comparison of the engine's own figures: a shared team total is reported once, for
    the team, rather than once per head. ``players`` and ``teams``, when given, are the only
    ones that may differ (what the engine touched): the others are not compared.
    """
    out: list[dict[str, Any]] = []
    old_teams = {t["id"]: t for t in before.get("teams", [])}
    new_teams = {t["id"]: t for t in after.get("teams", [])}
    wanted_teams = None if teams is None else set(teams)
    for tid, team in new_teams.items():
        if wanted_teams is not None and tid not in wanted_teams:
            continue
        old = old_teams.get(tid, {})
        for member in ("life", "poison"):
            if team.get(member) is not None and team.get(member) != old.get(member):
                out.append(
                    {"team": tid, "what": member, "from": old.get(member), "to": team[member]}
                )
        out.extend(_status({"team": tid}, old, team))
    old_players = {p["id"]: p for p in before.get("players", [])}
    wanted = None if players is None else set(players)
    for player in after.get("players", []):
        pid = player["id"]
        if wanted is not None and pid not in wanted:
            continue
        old = old_players.get(pid, {})
        team = new_teams.get(player.get("team") or "")
        for member in ("life", "poison", "library"):
            if _shared(team, member):
                continue
            if player.get(member) != old.get(member):
                out.append(
                    {"player": pid, "what": member, "from": old.get(member), "to": player[member]}
                )
        out.extend(_counts(pid, "counters", old, player))
        out.extend(_counts(pid, "commander_damage", old, player))
        out.extend(_status({"player": pid}, old, player))
    if after.get("game") != before.get("game"):
        out.append({"what": "game", "from": before.get("game"), "to": after.get("game")})
    for member in ("turn", "designations", "omens"):  # version 2: whole members
        if after.get(member) != before.get(member):
            out.append({"what": member, "from": before.get(member), "to": after.get(member)})
    if bool(after.get("over")) != bool(before.get("over")):
        out.append({"what": "over", "from": bool(before.get("over")), "to": bool(after["over"])})
    old_triggers: dict[str, int] = before.get("triggered") or {}
    new_triggers: dict[str, int] = after.get("triggered") or {}
    if old_triggers != new_triggers:
        # A card's trigger count is kept from 0 (the card applies): absent is null, not 0.
        for key in sorted(set(old_triggers) | set(new_triggers)):
            count, was = new_triggers.get(key), old_triggers.get(key)
            if count != was:
                out.append({"what": "triggered", "key": key, "from": was, "to": count})
    return out


def apply_changes(state: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    """The state after an event: ``state`` (left as it is) with the event's changes applied,
    as a phone applies them. A shared team total is also each head's (810.9a); a counter or
    commander damage that becomes 0 leaves its mapping, as does a trigger count that becomes
    ``None`` (its card stopped applying)."""
    out = copy.deepcopy(state)
    players = {p["id"]: p for p in out.get("players", [])}
    teams = {t["id"]: t for t in out.get("teams", [])}
    for item in items:
        what = item["what"]
        if "team" in item:
            team = teams[item["team"]]
            if what == "status":
                team.update(status=item["to"], reason=item["reason"], rule=item["rule"])
            else:
                team[what] = item["to"]
                for head in team["players"]:
                    players[head][what] = item["to"]
        elif "player" in item:
            player = players[item["player"]]
            if what == "status":
                player.update(status=item["to"], reason=item["reason"], rule=item["rule"])
            elif what in ("counters", "commander_damage"):
                _set_count(player[what], item["key"], item["to"])
            else:
                player[what] = item["to"]
        elif what == "triggered":
            triggered = out.setdefault("triggered", {})
            if item["to"] is None:
                triggered.pop(item["key"], None)
            else:
                triggered[item["key"]] = item["to"]
        else:
            out[what] = item["to"]
    return out


def _set_count(counts: dict[str, int], key: str, value: int) -> None:
    if value:
        counts[key] = value
    else:
        counts.pop(key, None)

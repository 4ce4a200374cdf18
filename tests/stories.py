"""A tiny helper for rule stories: play a game record one action at a time, through the record
layer the spec fixes (``lifeledger.record.replay`` and ``lifeledger.state.state_dict``), and look
at the spec's state JSON after each step.

    s = Story(["ana", "bo"])
    assert s.do({"do": "damage", "source": "bolt", "to": "bo", "amount": 3}).life("bo") == 17

Each ``do`` replays the whole record so far, so every step sees exactly what a replay of that
prefix of the record would print.
"""

from __future__ import annotations

import copy
from typing import Any

from lifeledger.errors import MalformedError

__all__ = [
    "State",
    "Story",
    "card",
    "damage",
    "effect",
    "gain",
    "life_of",
    "lose",
    "pay",
    "thg",
    "two_player",
]


class State(dict[str, Any]):
    """The state JSON of the spec, with a few lookups by id."""

    def player(self, pid: str) -> dict[str, Any]:
        return next(p for p in self["players"] if p["id"] == pid)

    def team(self, tid: str) -> dict[str, Any]:
        return next(t for t in self["teams"] if t["id"] == tid)

    def life(self, pid: str) -> int:
        return self.player(pid)["life"]

    def poison(self, pid: str) -> int:
        return self.player(pid)["poison"]

    def lives(self) -> dict[str, int]:
        return {p["id"]: p["life"] for p in self["players"]}

    def statuses(self) -> dict[str, str]:
        return {p["id"]: p["status"] for p in self["players"]}

    def why(self, pid: str) -> tuple[str, str | None, str | None]:
        """(status, reason, rule) of a player."""
        p = self.player(pid)
        return p["status"], p["reason"], p["rule"]

    def refused_rules(self) -> list[tuple[str, str]]:
        """[(position, rule), ...] of the refused actions."""
        return [(r["action"], r["rule"]) for r in self["refused"]]


def _seat(p: str | dict[str, Any]) -> dict[str, Any]:
    """``"ana"`` or ``"ana/north"`` (id/team) or a full header entry."""
    if isinstance(p, dict):
        return dict(p)
    pid, _, team = p.partition("/")
    return {"id": pid, "team": team} if team else {"id": pid}


class Story:
    """A game record being written, one action at a time."""

    def __init__(
        self,
        players: list[str | dict[str, Any]],
        *,
        variant: str | None = None,
        format: str | None = None,
        options: dict[str, Any] | None = None,
        record: int = 1,
    ) -> None:
        self.header: dict[str, Any] = {"record": record, "players": [_seat(p) for p in players]}
        if variant is not None:
            self.header["variant"] = variant
        if format is not None:
            self.header["format"] = format
        if options is not None:
            self.header["options"] = options
        self.actions: list[dict[str, Any]] = []

    def document(self, actions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        doc = copy.deepcopy(self.header)
        doc["actions"] = copy.deepcopy(self.actions if actions is None else actions)
        return doc

    def state(self) -> State:
        """The state after the actions so far (none: the start of the game)."""
        from lifeledger import record, state

        replay = record.replay(self.document())
        return State(state.state_dict(replay.game, replay.refused))

    def do(self, action: dict[str, Any]) -> State:
        """Append one action and return the state after it."""
        self.actions.append(action)
        return self.state()

    def refused_last(self) -> dict[str, Any] | None:
        """The ``refused`` entry of the last action, or None if it was not refused."""
        here = str(len(self.actions) - 1)
        return next((r for r in self.state()["refused"] if r["action"] == here), None)

    def malformed(self, action: dict[str, Any]) -> MalformedError:
        """Replay the record with ``action`` appended, which must be malformed; the action is not
        kept. Returns the error."""
        from lifeledger import record

        try:
            record.replay(self.document([*self.actions, action]))
        except MalformedError as err:
            return err
        raise AssertionError(f"not malformed: {action!r}")


def two_player(**kw: Any) -> Story:
    return Story(["ana", "bo"], variant="two-player", **kw)


def thg(**kw: Any) -> Story:
    """Two-Headed Giant: ana and bo (north) against cy and di (south)."""
    return Story(
        ["ana/north", "bo/north", "cy/south", "di/south"], variant="two-headed-giant", **kw
    )


def v2(players: list[Any], **kw: Any) -> Story:
    """A story in version 2 of the record (docs/record-format.md)."""
    return Story(players, record=2, **kw)


def turn(player: str) -> dict[str, Any]:
    return {"do": "turn", "player": player}


def step(name: str, **members: Any) -> dict[str, Any]:
    return {"do": "step", "step": name, **members}


def effect(eid: str, kind: str, controller: str, **members: Any) -> dict[str, Any]:
    return {"do": "effect", "id": eid, "kind": kind, "controller": controller, **members}


def card(cid: str, name: str, controller: str) -> dict[str, Any]:
    return {"do": "card", "id": cid, "name": name, "controller": controller}


def damage(to: str, amount: Any, source: str = "a-source", **members: Any) -> dict[str, Any]:
    return {"do": "damage", "source": source, "to": to, "amount": amount, **members}


def gain(player: str, amount: Any, **members: Any) -> dict[str, Any]:
    return {"do": "gain_life", "player": player, "amount": amount, **members}


def lose(player: str, amount: Any, **members: Any) -> dict[str, Any]:
    return {"do": "lose_life", "player": player, "amount": amount, **members}


def pay(player: str, amount: Any) -> dict[str, Any]:
    return {"do": "pay_life", "player": player, "amount": amount}


def life_of(
    pid: str, fraction: list[int] | None = None, round: str | None = None
) -> dict[str, Any]:
    expr: dict[str, Any] = {"life_of": pid}
    if fraction is not None:
        expr["fraction"] = fraction
    if round is not None:
        expr["round"] = round
    return expr

"""Rule stories for restarting the game (727, 104.6).

Each test is a short game told through the record layer (``record.replay`` then
``state.state_dict``), checked after every step. Rule numbers are those of the April 17, 2026
rules.
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import record
from lifeledger import state as ll_state

PLAYING = ("playing", None, None)


# --- a tiny story helper (kept inside this file on purpose) -------------------------------------


def header(
    players: list[Any], variant: str | None = None, fmt: str | None = None, **options: Any
) -> dict[str, Any]:
    """A record header; a player is an id or a dict."""
    doc: dict[str, Any] = {
        "record": 1,
        "players": [p if isinstance(p, dict) else {"id": p} for p in players],
    }
    if variant is not None:
        doc["variant"] = variant
    if fmt is not None:
        doc["format"] = fmt
    if options:
        doc["options"] = options
    return doc


def act(do: str, **members: Any) -> dict[str, Any]:
    """One action of the record."""
    return {"do": do, **members}


class State:
    """The spec's state JSON with a few questions on it."""

    def __init__(self, data: dict[str, Any]):
        self.data = data

    @property
    def over(self) -> bool:
        return self.data["over"]

    @property
    def game(self) -> int:
        return self.data["game"]

    def player(self, pid: str) -> dict[str, Any]:
        return next(p for p in self.data["players"] if p["id"] == pid)

    def team(self, tid: str) -> dict[str, Any]:
        return next(t for t in self.data["teams"] if t["id"] == tid)

    def life(self, pid: str) -> int:
        return self.player(pid)["life"]

    def result(self, pid: str) -> tuple[str, str | None, str | None]:
        p = self.player(pid)
        return (p["status"], p["reason"], p["rule"])

    def status(self, pid: str) -> str:
        return self.player(pid)["status"]

    def statuses(self) -> dict[str, str]:
        return {p["id"]: p["status"] for p in self.data["players"]}

    @property
    def refused(self) -> list[tuple[str, str]]:
        return [(r["action"], r["rule"]) for r in self.data["refused"]]


class Story:
    """A game told one action at a time; ``do`` returns the state after that action."""

    def __init__(self, head: dict[str, Any]):
        self.header = head
        self.actions: list[dict[str, Any]] = []
        self.now = self._replay()

    def _replay(self) -> State:
        replay = record.replay({**self.header, "actions": list(self.actions)})
        return State(ll_state.state_dict(replay.game, replay.refused))

    def do(self, do: str, **members: Any) -> State:
        self.actions.append(act(do, **members))
        self.now = self._replay()
        return self.now


def two() -> Story:
    return Story(header(["ana", "bo"], "two-player"))


@pytest.mark.rule("727.1")
def test_727_1_karn_restarts_the_game_and_everyone_starts_over():
    s = two()
    assert s.now.game == 1
    now = s.do("damage", source="ana-creature", to="bo", amount=7)
    assert now.life("bo") == 13
    now = s.do("damage", source="bo-creature", to="ana", amount=4)
    assert now.life("ana") == 16
    now = s.do("restart", controller="ana", source="karn-liberated")
    assert now.game == 2
    assert not now.over
    assert now.life("ana") == 20
    assert now.life("bo") == 20
    assert now.result("ana") == PLAYING  # 727.1: nobody won, lost or drew the old game
    assert now.result("bo") == PLAYING
    assert now.refused == []


@pytest.mark.rule("727.1")
def test_727_1_the_new_game_goes_on_as_a_game():
    s = two()
    s.do("restart", controller="bo")
    now = s.do("damage", source="ana-creature", to="bo", amount=20)
    assert now.game == 2
    assert now.result("bo") == ("lost", "life", "704.5a")
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.over
    now = s.do("restart", controller="ana")
    assert now.refused == [("2", "104.1")]  # the game is over: nothing left to restart
    assert now.game == 2


@pytest.mark.rule("727.1")
def test_727_1_each_restart_counts_one_more_game():
    s = two()
    now = s.do("restart", controller="ana")
    assert now.game == 2
    now = s.do("lose_life", player="ana", amount=3)
    assert now.life("ana") == 17
    now = s.do("restart", controller="bo")
    assert now.game == 3
    assert now.life("ana") == 20


@pytest.mark.rule("727.1")
def test_727_1_poison_counters_and_commander_damage_do_not_carry_over():
    players = [{"id": "ana", "commanders": ["ana-cmdr"]}, {"id": "bo", "commanders": ["bo-cmdr"]}]
    s = Story(header(players, "two-player", "commander"))
    now = s.do("damage", source="ana-cmdr", to="bo", amount=12, combat=True)
    assert now.player("bo")["commander_damage"] == {"ana-cmdr": 12}
    now = s.do("add_counters", player="bo", kind="poison", amount=6)
    now = s.do("add_counters", player="ana", kind="energy", amount=3)
    assert now.player("ana")["counters"] == {"energy": 3}
    now = s.do("restart", controller="ana")
    assert now.game == 2
    for pid in ("ana", "bo"):
        assert now.life(pid) == 40  # Commander's starting life again (903.7)
        assert now.player(pid)["poison"] == 0
        assert now.player(pid)["counters"] == {}
        assert now.player(pid)["commander_damage"] == {}
    now = s.do("damage", source="ana-cmdr", to="bo", amount=12, combat=True)
    assert now.player("bo")["commander_damage"] == {"ana-cmdr": 12}  # counted afresh
    assert now.result("bo") == PLAYING


@pytest.mark.rule("727.1")
def test_727_1_players_who_left_keep_their_result_and_take_no_part():
    s = Story(header(["ana", "bo", "cy", "di"], "free-for-all"))
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    now = s.do("damage", source="ana-creature", to="cy", amount=20)
    assert now.result("cy") == ("lost", "life", "704.5a")
    now = s.do("damage", source="ana-creature", to="di", amount=5)
    now = s.do("restart", controller="di")
    assert now.game == 2
    assert now.result("bo") == ("lost", "conceded", "104.3a")  # the status of the game they left
    assert now.result("cy") == ("lost", "life", "704.5a")
    assert now.result("ana") == PLAYING
    assert now.result("di") == PLAYING
    assert now.life("di") == 20
    now = s.do("gain_life", player="bo", amount=1)
    assert len(now.refused) == 1
    assert now.refused[0][0] == "4"
    assert now.refused[0][1].startswith("800.4")
    now = s.do("concede", player="ana")
    # Di is the last player of game 2; Bo and Cy, who were not in it, keep their losses.
    assert now.result("di") == ("won", "last-standing", "104.2a")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.result("cy") == ("lost", "life", "704.5a")
    assert now.over


@pytest.mark.rule("727.1")
def test_727_1_the_new_game_uses_the_variants_starting_life():
    north = [{"id": "ana", "team": "north"}, {"id": "bo", "team": "north"}]
    south = [{"id": "cy", "team": "south"}, {"id": "di", "team": "south"}]
    s = Story(header(north + south, "two-headed-giant"))
    now = s.do("damage", source="cy-attackers", to="ana", amount=12, combat=True)
    assert now.team("north")["life"] == 18
    now = s.do("damage", source="cy-infect", to="bo", amount=3, infect=True)
    assert now.team("north")["poison"] == 3
    now = s.do("restart", controller="cy")
    assert now.game == 2
    assert now.team("north")["life"] == 30
    assert now.team("north")["poison"] == 0
    assert now.life("ana") == 30
    assert now.team("south")["life"] == 30


@pytest.mark.rule("727.1")
def test_727_1_vanguard_and_archenemy_starting_lives_apply_again():
    s = Story(
        header(
            [{"id": "ana", "life_modifier": -3}, {"id": "bo", "life_modifier": 2}],
            "two-player",
            "vanguard",
        )
    )
    s.do("damage", source="bo-creature", to="ana", amount=10)
    now = s.do("restart", controller="ana")
    assert (now.life("ana"), now.life("bo")) == (17, 22)
    s = Story(header([{"id": "arch", "archenemy": True}, "h1", "h2"], "archenemy"))
    s.do("damage", source="h1-creature", to="arch", amount=10)
    now = s.do("restart", controller="h2")
    assert (now.life("arch"), now.life("h1"), now.life("h2")) == (40, 20, 20)


@pytest.mark.rule("727.1")
def test_727_1_permanents_of_the_old_game_do_not_apply_in_the_new_one():
    # The new game begins with empty battlefields (103): Platinum Angel no longer protects Ana.
    s = two()
    s.do("card", id="angel-1", name="Platinum Angel", controller="ana")
    now = s.do("damage", source="bo-creature", to="ana", amount=20)
    assert now.result("ana") == PLAYING
    now = s.do("restart", controller="bo")
    assert now.life("ana") == 20
    now = s.do("damage", source="bo-creature", to="ana", amount=20)
    assert now.result("ana") == ("lost", "life", "704.5a")
    assert now.result("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("727.7")
def test_727_7_a_restart_with_limited_range_involves_every_player():
    s = Story(header(["ana", "bo", "cy", "di", "ed"], "free-for-all", range_of_influence=1))
    now = s.do("damage", source="ana-creature", to="cy", amount=3)
    now = s.do("damage", source="ana-creature", to="di", amount=4)
    assert (now.life("cy"), now.life("di")) == (17, 16)
    now = s.do("restart", controller="ana")
    assert now.game == 2
    for pid in ("ana", "bo", "cy", "di", "ed"):
        assert now.life(pid) == 20
        assert now.result(pid) == PLAYING


@pytest.mark.rule("104.6")
def test_104_6_restart_inside_a_game_that_a_player_left_in_a_draw():
    s = Story(header(["ana", "bo", "cy", "di", "ed"], "free-for-all", range_of_influence=1))
    now = s.do("draw_game", controller="ana", source="ana-spell")
    assert {p for p, st in now.statuses().items() if st == "drew"} == {"ana", "bo", "ed"}
    now = s.do("restart", controller="cy")
    assert now.game == 2
    assert now.result("cy") == PLAYING
    assert now.result("di") == PLAYING
    for pid in ("ana", "bo", "ed"):
        assert now.status(pid) == "drew"  # they left before the restart
    now = s.do("concede", player="di")
    assert now.result("cy") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("727.1")
def test_727_1_a_teammate_who_left_before_the_restart_does_not_win_the_new_game():
    # 104.2c lets a teammate who lost *that* game win with the team; Bo lost game 1 and takes
    # no part in game 2.
    players = [
        {"id": "ana", "team": "north"},
        {"id": "bo", "team": "north"},
        {"id": "cy", "team": "south"},
        {"id": "di", "team": "south"},
    ]
    s = Story(header(players, "team-vs-team"))
    now = s.do("concede", player="bo")
    assert now.team("north")["status"] == "playing"
    now = s.do("restart", controller="cy")
    assert now.game == 2
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.team("north")["status"] == "playing"
    now = s.do("lose", players=["cy", "di"], source="ana-spell")
    assert now.team("south")["status"] == "lost"
    assert now.result("ana") == ("won", "last-standing", "104.2c")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.over

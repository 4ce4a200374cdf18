"""Rule stories for multiplayer games: leaving (800.4), limited range of influence (801),
Emperor (809), Alternating Teams seating (811.3), and the shape of every variant's header.

Each test is a short game told through the record layer (``record.replay`` then
``state.state_dict``), checked after every step. Rule numbers are those of the April 17, 2026
rules.
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import record
from lifeledger import state as ll_state
from lifeledger.errors import MalformedError

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


def ffa(*ids: str, **options: Any) -> Story:
    return Story(header(list(ids or ("ana", "bo", "cy")), "free-for-all", **options))


def emperor_three_teams() -> Story:
    """Three teams of three, each emperor in the middle of the team (809.2).

    Seats: a-g1 0, a-emp 1, a-g2 2, b-g1 3, b-emp 4, b-g2 5, c-g1 6, c-emp 7, c-g2 8.
    """
    players = []
    for team in ("a", "b", "c"):
        players += [
            {"id": f"{team}-g1", "team": team},
            {"id": f"{team}-emp", "team": team, "emperor": True},
            {"id": f"{team}-g2", "team": team},
        ]
    return Story(header(players, "emperor"))


def emperor_two_teams() -> Story:
    players = []
    for team in ("a", "b"):
        players += [
            {"id": f"{team}-g1", "team": team},
            {"id": f"{team}-emp", "team": team, "emperor": True},
            {"id": f"{team}-g2", "team": team},
        ]
    return Story(header(players, "emperor"))


def without_refused(state: State) -> dict[str, Any]:
    return {k: v for k, v in state.data.items() if k != "refused"}


# --- 800.4 ----------------------------------------------------------------------------------


@pytest.mark.rule("800.4")
def test_800_4_a_multiplayer_game_goes_on_after_a_player_leaves():
    s = ffa()
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.result("ana") == PLAYING
    assert now.result("cy") == PLAYING
    assert not now.over
    now = s.do("damage", source="ana-creature", to="cy", amount=3)
    assert now.life("cy") == 17
    assert now.refused == []


ON_DEPARTED_BO = [
    act("damage", source="ana-creature", to="bo", amount=3),
    act("damage", source="bo-creature", to="ana", amount=3, lifelink=True, controller="bo"),
    act("lose_life", player="bo", amount=2),
    act("gain_life", player="bo", amount=2),
    act("pay_life", player="bo", amount=1),
    act("set_life", player="bo", to=5),
    act("exchange_life", players=["ana", "bo"]),
    act("add_counters", player="bo", kind="poison", amount=1),
    act("remove_counters", player="bo", kind="poison", amount=1),
    act("draw", player="bo", count=1),
    act("concede", player="bo"),
    act("win", player="bo"),
    act("lose", player="bo"),
    act("penalty", player="bo"),
    act("upkeep", player="bo"),
    act("card", id="angel-1", name="Platinum Angel", controller="bo"),
    act("effect", id="fx-1", kind="cant_gain_life", controller="bo", affects="opponents"),
]


@pytest.mark.rule("800.4")
@pytest.mark.parametrize("action", ON_DEPARTED_BO, ids=lambda a: a["do"])
def test_800_4_an_action_on_a_player_who_has_left_is_refused(action: dict[str, Any]):
    s = ffa()
    s.do("damage", source="cy-creature", to="ana", amount=4)
    before = s.do("concede", player="bo")
    assert before.status("bo") == "lost"
    now = s.do(action["do"], **{k: v for k, v in action.items() if k != "do"})
    assert len(now.refused) == 1
    position, rule = now.refused[0]
    assert position == "2"
    assert rule.startswith("800.4")
    assert without_refused(now) == without_refused(before)


@pytest.mark.rule("800.4a")
def test_800_4a_an_effect_stops_when_its_controller_leaves():
    # Abyssal Persecutor: "... your opponents can't lose the game." Ana controls it; when she
    # concedes it leaves the game with her, and Bo, at 0 life, loses at the next check.
    s = ffa()
    s.do("card", id="persecutor-1", name="Abyssal Persecutor", controller="ana")
    now = s.do("damage", source="cy-creature", to="bo", amount=20)
    assert now.life("bo") == 0
    assert now.result("bo") == PLAYING
    now = s.do("damage", source="cy-creature", to="ana", amount=3)
    assert now.result("bo") == PLAYING  # still protected
    now = s.do("concede", player="ana")
    assert now.result("ana") == ("lost", "conceded", "104.3a")
    assert now.result("bo") == ("lost", "life", "704.5a")
    assert now.result("cy") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("800.4a")
def test_800_4a_platinum_angel_stops_when_its_controller_concedes():
    # Platinum Angel: "You can't lose the game and your opponents can't win the game."
    s = ffa()
    s.do("card", id="angel-1", name="Platinum Angel", controller="ana")
    now = s.do("damage", source="bo-creature", to="ana", amount=20)
    assert now.life("ana") == 0
    assert now.result("ana") == PLAYING
    now = s.do("win", player="bo", source="bo-spell")
    assert now.refused == []
    assert now.result("bo") == PLAYING  # Ana's opponents can't win
    assert not now.over
    now = s.do("concede", player="ana")
    assert now.result("ana") == ("lost", "conceded", "104.3a")
    assert now.result("bo") == PLAYING
    assert now.result("cy") == PLAYING
    assert not now.over
    now = s.do("win", player="bo", source="bo-spell")
    assert now.result("bo") == ("won", "effect", "104.2b")
    assert now.result("cy") == ("lost", "opponent-won", "104.2b")
    assert now.result("ana") == ("lost", "conceded", "104.3a")
    assert now.over


@pytest.mark.rule("800.4a")
def test_800_4a_a_continuous_effect_ends_when_its_controller_leaves():
    # Erebos-like: "Your opponents can't gain life." Cy controls it, then concedes.
    s = ffa()
    s.do("effect", id="no-gain", kind="cant_gain_life", controller="cy", affects="opponents")
    now = s.do("gain_life", player="ana", amount=3)
    assert now.life("ana") == 20
    assert now.refused == []
    now = s.do("concede", player="cy")
    assert now.status("cy") == "lost"
    now = s.do("gain_life", player="ana", amount=3)
    assert now.life("ana") == 23


@pytest.mark.rule("800.4d")
def test_800_4d_a_departed_players_triggered_ability_no_longer_triggers():
    s = ffa()
    s.do("effect", id="watcher", kind="on_lose_life", controller="cy", affects="players")
    now = s.do("damage", source="bo-creature", to="ana", amount=1)
    assert now.data["triggered"] == {"watcher": 1}
    now = s.do("concede", player="cy")
    now = s.do("damage", source="bo-creature", to="ana", amount=1)
    assert now.life("ana") == 18
    assert now.data["triggered"] == {"watcher": 1}


# --- 801 ------------------------------------------------------------------------------------


@pytest.mark.rule("801.2a")
def test_801_2a_range_one_is_you_and_the_players_next_to_you():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    now = s.do("win", player="cy", source="cy-spell")
    assert now.status("bo") == "lost"
    assert now.status("di") == "lost"
    assert now.result("ana") == PLAYING
    assert now.result("ed") == PLAYING
    assert now.result("cy") == PLAYING


@pytest.mark.rule("801.2a")
def test_801_2a_range_two_is_two_players_each_way():
    s = ffa("ana", "bo", "cy", "di", "ed", "fay", "gus", range_of_influence=2)
    now = s.do("win", player="ana", source="ana-spell")
    for pid in ("bo", "cy", "fay", "gus"):
        assert now.player(pid)["status"] == "lost"
        assert now.player(pid)["reason"] == "opponent-won"
        assert now.player(pid)["rule"] in ("801.14", "104.3h")
    assert now.result("di") == PLAYING
    assert now.result("ed") == PLAYING
    assert now.result("ana") == PLAYING
    assert not now.over


@pytest.mark.rule("801.2a")
def test_801_2a_different_players_may_have_different_ranges():
    ids = ["ana", "bo", "cy", "di", "ed", "fay", "gus"]
    players: list[Any] = [{"id": "ana", "range": 2}, *ids[1:]]
    s = Story(header(players, "free-for-all", range_of_influence=1))
    now = s.do("win", player="ana", source="ana-spell")
    assert {p for p, st in now.statuses().items() if st == "lost"} == {"bo", "cy", "fay", "gus"}
    now = s.do("win", player="ed", source="ed-spell")  # range 1: di and fay
    assert {p for p, st in now.statuses().items() if st == "lost"} == {
        "bo",
        "cy",
        "di",
        "fay",
        "gus",
    }
    assert now.result("ana") == PLAYING
    assert now.result("ed") == PLAYING
    assert not now.over


@pytest.mark.rule("801.2b")
def test_801_2b_a_player_is_always_within_their_own_range():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    now = s.do("draw_game", controller="cy", source="cy-spell")
    assert now.status("cy") == "drew"
    assert now.status("bo") == "drew"
    assert now.status("di") == "drew"
    assert now.result("ana") == PLAYING
    assert now.result("ed") == PLAYING


@pytest.mark.rule("801.2c")
def test_801_2c_ranges_are_determined_as_each_turn_begins():
    # The rule's example: range 1; Alex is to the left of Rob, Carissa to his right (seating is
    # clockwise, and the next seat clockwise is to the left). If Rob leaves, Carissa enters
    # Alex's range at the start of the next turn.
    s = ffa("carissa", "rob", "alex", "dan", "eve", range_of_influence=1)
    now = s.do("concede", player="rob")
    assert now.result("rob") == ("lost", "conceded", "104.3a")
    now = s.do("win", player="alex", source="alex-spell")
    assert now.status("dan") == "lost"  # in range since the turn began
    assert now.result("carissa") == PLAYING  # not yet in Alex's range
    assert now.result("eve") == PLAYING
    assert not now.over
    now = s.do("upkeep", player="eve")  # a new turn begins
    assert now.result("carissa") == PLAYING
    now = s.do("win", player="alex", source="alex-spell")
    assert now.status("carissa") == "lost"
    assert now.status("eve") == "lost"
    assert now.result("alex") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("801.7")
def test_801_7_a_trigger_needs_its_event_within_its_controllers_range():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    s.do("effect", id="watcher", kind="on_lose_life", controller="ana", affects="players")
    now = s.do("damage", source="di-creature", to="cy", amount=1)
    assert now.life("cy") == 19
    assert now.data["triggered"] == {"watcher": 0}  # Cy is out of Ana's range
    now = s.do("damage", source="di-creature", to="bo", amount=1)
    assert now.data["triggered"] == {"watcher": 1}


@pytest.mark.rule("801.10")
def test_801_10_an_effect_cant_affect_players_outside_its_controllers_range():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    s.do("effect", id="leyline", kind="cant_gain_life", controller="ana", affects="players")
    now = s.do("gain_life", player="cy", amount=2)
    assert now.life("cy") == 22  # out of range: not affected
    now = s.do("gain_life", player="bo", amount=2)
    assert now.life("bo") == 20
    now = s.do("gain_life", player="ana", amount=2)
    assert now.life("ana") == 20


@pytest.mark.rule("801.10")
def test_801_10_platinum_angel_does_not_stop_a_win_out_of_its_range():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    s.do("card", id="angel-1", name="Platinum Angel", controller="ana")
    now = s.do("win", player="cy", source="cy-spell")
    assert now.status("bo") == "lost"  # Cy's opponents in Cy's range lose instead (801.14)
    assert now.status("di") == "lost"
    assert now.result("ana") == PLAYING
    assert now.result("ed") == PLAYING


@pytest.mark.rule("801.14")
def test_801_14_a_win_makes_the_opponents_in_range_lose_instead():
    players = [
        {"id": "ana", "team": "north"},
        {"id": "bo", "team": "north"},
        {"id": "cy", "team": "south"},
        {"id": "di", "team": "south"},
        {"id": "ed", "team": "east"},
        {"id": "fay", "team": "east"},
    ]
    s = Story(header(players, "team-vs-team", range_of_influence=1))
    now = s.do("win", player="bo", source="bo-spell")
    cy = now.player("cy")
    assert (cy["status"], cy["reason"]) == ("lost", "opponent-won")
    assert cy["rule"] in ("801.14", "104.3h")
    assert now.result("ana") == PLAYING  # a teammate in range is not an opponent
    assert now.result("bo") == PLAYING
    assert now.team("south")["status"] == "playing"  # Di is still in the game
    assert not now.over


@pytest.mark.rule("801.15")
def test_801_15_a_draw_effect_ends_the_game_only_for_its_controller_and_range():
    s = ffa("ana", "bo", "cy", "di", "ed", "fay", range_of_influence=1)
    now = s.do("draw_game", controller="di", source="di-spell")
    for pid in ("cy", "di", "ed"):
        p = now.player(pid)
        assert (p["status"], p["reason"]) == ("drew", "effect")
        assert p["rule"] in ("801.15", "104.4e")
    for pid in ("ana", "bo", "fay"):
        assert now.result(pid) == PLAYING
    assert not now.over
    now = s.do("damage", source="ana-creature", to="bo", amount=20)
    assert now.status("bo") == "lost"
    assert not now.over
    now = s.do("damage", source="ana-creature", to="fay", amount=20)
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.status("di") == "drew"
    assert now.over


@pytest.mark.rule("801.16")
def test_801_16_a_loop_is_a_draw_for_its_controllers_and_everyone_in_their_range():
    s = ffa("ana", "bo", "cy", "di", "ed", "fay", "gus", "hal", range_of_influence=1)
    now = s.do("loop", controllers=["bo", "fay"])
    for pid in ("ana", "bo", "cy", "ed", "fay", "gus"):
        p = now.player(pid)
        assert (p["status"], p["reason"]) == ("drew", "loop")
        assert p["rule"] in ("801.16", "104.4f")
    assert now.result("di") == PLAYING
    assert now.result("hal") == PLAYING
    assert not now.over


@pytest.mark.rule("801.17")
def test_801_17_a_restart_involves_every_player_whatever_the_range():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    now = s.do("damage", source="ana-creature", to="cy", amount=5)
    assert now.life("cy") == 15  # Cy is out of Ana's range
    now = s.do("damage", source="bo-creature", to="ana", amount=2)
    now = s.do("restart", controller="ana")
    assert now.game == 2
    for pid in ("ana", "bo", "cy", "di", "ed"):
        assert now.result(pid) == PLAYING
        assert now.life(pid) == 20
    assert not now.over


# --- 809 ------------------------------------------------------------------------------------


@pytest.mark.rule("809.3a")
def test_809_3a_emperors_have_range_two_and_generals_range_one():
    s = emperor_three_teams()
    now = s.do("win", player="a-emp", source="a-emp-spell")
    # range 2 from seat 1: seats 8, 0, 2, 3 -> the opposing generals c-g2 and b-g1
    assert now.status("c-g2") == "lost"
    assert now.status("b-g1") == "lost"
    for pid in ("b-emp", "b-g2", "c-g1", "c-emp", "a-g1", "a-emp", "a-g2"):
        assert now.result(pid) == PLAYING
    now = s.do("win", player="b-g2", source="b-g2-spell")
    # range 1 from seat 5: b-emp (a teammate) and c-g1
    assert now.status("c-g1") == "lost"
    assert now.result("c-emp") == PLAYING
    assert now.team("c")["status"] == "playing"  # its emperor is still in the game
    assert now.result("b-emp") == PLAYING
    now = s.do("win", player="c-emp", source="c-emp-spell")
    # range 2 from seat 7: seats 5, 6, 8, 0 -> b-g2 and a-g1 are the opponents there
    assert now.status("b-g2") == "lost"
    assert now.status("a-g1") == "lost"
    assert now.result("a-g2") == PLAYING
    assert not now.over


@pytest.mark.rule("801.2c")
def test_801_2c_an_emperor_comes_into_a_generals_range_at_the_next_turn():
    s = emperor_two_teams()  # a-g1 a-emp a-g2 b-g1 b-emp b-g2
    now = s.do("concede", player="b-g1")
    assert now.result("b-g1") == ("lost", "conceded", "104.3a")
    assert now.team("b")["status"] == "playing"
    now = s.do("win", player="a-g2", source="a-g2-spell")
    assert now.result("b-emp") == PLAYING  # not yet next to a-g2
    assert not now.over
    now = s.do("upkeep", player="a-emp")
    assert now.result("b-emp") == PLAYING
    now = s.do("win", player="a-g2", source="a-g2-spell")
    b_emp = now.player("b-emp")
    assert (b_emp["status"], b_emp["reason"]) == ("lost", "opponent-won")
    assert now.result("b-g2") == ("lost", "emperor", "809.5b")
    assert now.team("a")["status"] == "won"
    assert now.over


@pytest.mark.rule("809.6a")
@pytest.mark.parametrize(
    ("winner", "losers"),
    [
        ("a-emp", {"c-g2", "c-g3", "b-g1"}),  # range 3 from seat 1: seats 10, 11, 4
        ("a-g2", {"b-g1"}),  # range 2
        ("c-g3", {"a-g1"}),  # range 1, across the end of the seating list
    ],
)
def test_809_6a_three_teams_of_four_use_the_same_minimum_ranges(winner: str, losers: set[str]):
    players = [
        {"id": f"{t}-{r}", "team": t, **({"emperor": True} if r == "emp" else {})}
        for t in "abc"
        for r in ("g1", "emp", "g2", "g3")
    ]
    now = Story(header(players, "emperor")).do("win", player=winner, source="spell")
    assert {p for p, st in now.statuses().items() if st == "lost"} == losers
    assert not now.over


@pytest.mark.rule("809.6a")
def test_809_6a_teams_of_five_give_the_emperor_range_three_and_generals_one_or_two():
    # g1 g2 emp g3 g4 on each team: the emperor needs 3 seats to reach two opposing generals.
    players = [
        {"id": f"{t}-{r}", "team": t, **({"emperor": True} if r == "emp" else {})}
        for t in "ab"
        for r in ("g1", "g2", "emp", "g3", "g4")
    ]
    s = Story(header(players, "emperor"))
    now = s.do("win", player="a-emp", source="spell")
    assert {p for p, st in now.statuses().items() if st == "lost"} == {"b-g4", "b-g1"}
    now = s.do("win", player="a-g3", source="spell")  # range 2 from seat 3: seat 5
    assert {p for p, st in now.statuses().items() if st == "lost"} == {"b-g4", "b-g1"}
    now = s.do("win", player="b-g2", source="spell")  # range 2 from seat 6: seat 4
    assert {p for p, st in now.statuses().items() if st == "lost"} == {"b-g4", "b-g1", "a-g4"}
    assert not now.over


EMPEROR_8 = ["a-g1", "a-emp", "a-g2", "a-g3", "b-g1", "b-emp", "b-g2", "b-g3"]


@pytest.mark.rule("809.6a")
@pytest.mark.parametrize(
    ("winner", "losers"),
    [
        ("a-g1", {"b-g3"}),  # general 1: range 1
        ("a-emp", {"b-g1", "b-g2", "b-g3"}),  # emperor: range 3
        ("a-g2", {"b-g1"}),  # general 2: range 2
        ("a-g3", {"b-g1"}),  # general 3: range 1
        ("b-g1", {"a-g3"}),
        ("b-emp", {"a-g1", "a-g2", "a-g3"}),
        ("b-g2", {"a-g1"}),
        ("b-g3", {"a-g1"}),
    ],
)
def test_809_6a_eight_player_emperor_default_ranges(winner: str, losers: set[str]):
    # The rule's example: Team A general 1, Team A emperor, Team A general 2, Team A general 3,
    # Team B general 1, Team B emperor, Team B general 2, Team B general 3. Each emperor has
    # range 3, each general 2 range 2, each general 1 and general 3 range 1.
    players = [
        {"id": pid, "team": pid[0], **({"emperor": True} if pid.endswith("emp") else {})}
        for pid in EMPEROR_8
    ]
    s = Story(header(players, "emperor"))
    assert all(st == "playing" for st in s.now.statuses().values())
    now = s.do("win", player=winner, source="spell")
    assert {p for p, st in now.statuses().items() if st == "lost"} == losers
    assert not now.over  # no emperor begins within another emperor's range


@pytest.mark.rule("809.5a")
def test_809_5a_a_team_wins_if_its_emperor_wins():
    s = emperor_two_teams()
    now = s.do("damage", source="b-creature", to="a-g2", amount=20)
    assert now.result("a-g2") == ("lost", "life", "704.5a")
    assert now.team("a")["status"] == "playing"  # a general's loss is not the team's
    now = s.do("lose", player="b-emp", source="a-emp-spell")
    assert now.result("b-emp") == ("lost", "effect", "104.3e")
    assert now.result("b-g1") == ("lost", "emperor", "809.5b")
    assert now.team("b")["status"] == "lost"
    assert now.team("a")["status"] == "won"
    assert now.status("a-emp") == "won"
    assert now.status("a-g1") == "won"
    assert now.status("a-g2") == "won"  # 104.2c: even one who had lost
    assert now.over


@pytest.mark.rule("809.5b")
def test_809_5b_a_team_loses_if_its_emperor_loses():
    s = emperor_three_teams()
    now = s.do("concede", player="b-emp")
    assert now.result("b-emp") == ("lost", "conceded", "104.3a")
    assert now.result("b-g1") == ("lost", "emperor", "809.5b")
    assert now.result("b-g2") == ("lost", "emperor", "809.5b")
    assert now.team("b")["status"] == "lost"
    assert not now.over
    now = s.do("damage", source="c-emp-creature", to="a-g1", amount=3)
    assert now.refused == []  # the game goes on for teams a and c
    assert now.life("a-g1") == 17


@pytest.mark.rule("809.5c")
def test_809_5c_a_team_draws_if_its_emperor_draws():
    s = emperor_three_teams()
    # c-g2 (seat 8, range 1) reaches c-emp and a-g1.
    now = s.do("loop", controllers=["c-g2"])
    assert now.status("c-emp") == "drew"
    assert now.status("c-g2") == "drew"
    assert now.result("c-g1") == ("drew", "emperor", "809.5c")
    assert now.status("a-g1") == "drew"
    assert now.team("c")["status"] == "drew"
    assert now.team("a")["status"] == "playing"  # its emperor is still in the game
    assert now.team("b")["status"] == "playing"
    assert not now.over


# --- variants: the shape of the header --------------------------------------------------------


def team_players(*teams: tuple[str, int]) -> list[dict[str, Any]]:
    """Players seated team by team: ("n", 2) gives n1, n2 on team n."""
    return [{"id": f"{t}{i}", "team": t} for t, n in teams for i in range(1, n + 1)]


def alternating(teams: str, size: int) -> list[dict[str, Any]]:
    """811.3 seating: A1, B1, C1, A2, B2, C2, ..."""
    return [{"id": f"{t}{i}", "team": t} for i in range(1, size + 1) for t in teams]


def emperor_teams(n_teams: int) -> list[dict[str, Any]]:
    players: list[dict[str, Any]] = []
    for t in "abcdefgh"[:n_teams]:
        players += [
            {"id": f"{t}-g1", "team": t},
            {"id": f"{t}-emp", "team": t, "emperor": True},
            {"id": f"{t}-g2", "team": t},
        ]
    return players


VALID = {
    "two-player": (header(["ana", "bo"], "two-player"), {"ana": 20, "bo": 20}),
    "free-for-all": (header(["a", "b", "c", "d"], "free-for-all"), dict.fromkeys("abcd", 20)),
    "grand-melee": (header(["a", "b", "c", "d", "e"], "grand-melee"), dict.fromkeys("abcde", 20)),
    "team-vs-team": (
        header(team_players(("n", 2), ("s", 3)), "team-vs-team"),
        dict.fromkeys(["n1", "n2", "s1", "s2", "s3"], 20),
    ),
    "team-vs-team-three-teams-of-one": (
        header(team_players(("n", 1), ("s", 1), ("e", 1)), "team-vs-team"),
        dict.fromkeys(["n1", "s1", "e1"], 20),
    ),
    "two-headed-giant": (
        header(team_players(("n", 2), ("s", 2)), "two-headed-giant"),
        dict.fromkeys(["n1", "n2", "s1", "s2"], 30),
    ),
    "four-headed-giant": (
        header(team_players(("n", 4), ("s", 4)), "two-headed-giant"),
        {**dict.fromkeys([f"n{i}" for i in range(1, 5)], 60), "s1": 60},
    ),
    "emperor": (header(emperor_teams(2), "emperor"), {"a-emp": 20, "b-g1": 20}),
    "alternating-teams": (
        header(alternating("ABC", 2), "alternating-teams"),
        dict.fromkeys(["A1", "B1", "C1", "A2", "B2", "C2"], 20),
    ),
    "archenemy": (
        header([{"id": "arch", "archenemy": True}, "h1", "h2", "h3"], "archenemy"),
        {"arch": 40, "h1": 20, "h2": 20, "h3": 20},
    ),
    "archenemy-commander": (
        header(
            [
                {"id": "arch", "archenemy": True, "commanders": ["arch-c"]},
                {"id": "h1", "commanders": ["h1-c"]},
                {"id": "h2", "commanders": ["h2-c"]},
            ],
            "archenemy",
            "commander",
        ),
        {"arch": 60, "h1": 60, "h2": 60},
    ),
    "supervillain-rumble": (
        header(
            [{"id": p, "archenemy": True} for p in ("a", "b", "c")],
            "supervillain-rumble",
        ),
        dict.fromkeys("abc", 40),
    ),
    "commander-free-for-all": (
        header(["a", "b", "c"], "free-for-all", "commander"),
        dict.fromkeys("abc", 40),
    ),
    "brawl-two-player": (header(["a", "b"], "two-player", "brawl"), dict.fromkeys("ab", 25)),
    "brawl-free-for-all": (header(["a", "b", "c"], "free-for-all", "brawl"), {"a": 30}),
    "vanguard-free-for-all": (
        header(
            [{"id": "a", "life_modifier": -3}, {"id": "b", "life_modifier": 4}, {"id": "c"}],
            "free-for-all",
            "vanguard",
        ),
        {"a": 17, "b": 24, "c": 20},
    ),
    "planechase-two-player": (header(["a", "b"], "two-player", "planechase"), {"a": 20}),
    "house-two-headed-commander": (
        header(team_players(("n", 2), ("s", 2)), "two-headed-giant", "commander", starting_life=50),
        {"n1": 50, "s2": 50},
    ),
    "starting-life-option": (header(["a", "b"], "two-player", starting_life=25), {"a": 25}),
    "omitted-variant-two": (header(["a", "b"]), {"a": 20, "b": 20}),
    "omitted-variant-three": (header(["a", "b", "c"]), {"a": 20, "b": 20, "c": 20}),
    "omitted-variant-teams": (header(team_players(("n", 2), ("s", 1))), {"n1": 20, "s1": 20}),
}


@pytest.mark.rule("800.2")
@pytest.mark.parametrize("name", list(VALID))
def test_800_2_every_variant_shape_is_accepted_with_its_starting_life(name: str):
    head, lives = VALID[name]
    now = Story(head).now
    assert now.game == 1
    assert not now.over
    assert all(st == "playing" for st in now.statuses().values())
    assert {pid: now.life(pid) for pid in lives} == lives


@pytest.mark.rule("810.4")
def test_810_4_shared_team_life_is_shown_on_the_team_and_individual_life_is_not():
    two_headed = Story(header(team_players(("n", 2), ("s", 2)), "two-headed-giant")).now
    assert two_headed.team("n")["life"] == 30
    assert two_headed.team("n")["poison"] == 0
    assert two_headed.team("n")["players"] == ["n1", "n2"]
    tvt = Story(header(team_players(("n", 2), ("s", 2)), "team-vs-team")).now
    assert tvt.team("n")["life"] is None
    assert tvt.team("n")["poison"] is None
    assert tvt.team("s")["players"] == ["s1", "s2"]


@pytest.mark.rule("807.2a")
def test_807_2a_grand_melee_gives_every_player_range_one():
    s = Story(header(["ana", "bo", "cy", "di", "ed"], "grand-melee"))
    now = s.do("win", player="ana", source="ana-spell")
    assert {p for p, st in now.statuses().items() if st == "lost"} == {"bo", "ed"}
    assert not now.over


@pytest.mark.rule("801.2a")
def test_801_2a_a_players_own_range_overrides_the_grand_melee_default():
    s = Story(header([{"id": "ana", "range": 2}, "bo", "cy", "di", "ed"], "grand-melee"))
    now = s.do("win", player="ana", source="ana-spell")
    assert {p for p, st in now.statuses().items() if st == "lost"} == {"bo", "cy", "di", "ed"}
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("801.2a")
def test_801_2a_the_range_option_overrides_the_grand_melee_default():
    s = Story(header(["ana", "bo", "cy", "di", "ed"], "grand-melee", range_of_influence=2))
    now = s.do("win", player="ana", source="ana-spell")
    assert {p for p, st in now.statuses().items() if st == "lost"} == {"bo", "cy", "di", "ed"}
    assert now.result("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("808.1")
def test_808_1_team_vs_team_a_win_ends_the_game_and_the_whole_team_wins():
    players = [
        {"id": "ana", "team": "north"},
        {"id": "bo", "team": "north"},
        {"id": "cy", "team": "south"},
        {"id": "di", "team": "south"},
    ]
    s = Story(header(players, "team-vs-team"))
    now = s.do("damage", source="cy-creature", to="ana", amount=4)
    assert now.team("north")["life"] is None
    now = s.do("win", player="ana", source="ana-spell")
    assert now.result("ana") == ("won", "effect", "104.2b")
    bo = now.player("bo")
    assert (bo["status"], bo["reason"]) == ("won", "team")
    assert now.result("cy") == ("lost", "opponent-won", "104.2b")
    assert now.team("north")["status"] == "won"
    assert now.team("south")["status"] == "lost"
    assert now.over


@pytest.mark.rule("104.2a")
def test_104_2a_a_player_wins_when_every_opponent_has_left_by_a_draw():
    s = ffa("ana", "bo", "cy", "di", range_of_influence=1)
    now = s.do("draw_game", controller="bo", source="bo-spell")
    assert {p for p, st in now.statuses().items() if st == "drew"} == {"ana", "bo", "cy"}
    assert now.result("di") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("811.3")
def test_811_3_alternating_teams_seating_from_the_rules_example():
    s = Story(header(alternating("ABC", 3), "alternating-teams"))
    assert [p["id"] for p in s.now.data["players"]] == [
        "A1",
        "B1",
        "C1",
        "A2",
        "B2",
        "C2",
        "A3",
        "B3",
        "C3",
    ]
    now = s.do("concede", player="A1")
    assert now.team("A")["status"] == "playing"
    now = s.do("lose", players=["A2", "A3"], source="B1-spell")
    assert now.team("A")["status"] == "lost"
    assert not now.over


@pytest.mark.rule("904.5")
def test_904_5_archenemy_against_the_heroes():
    s = Story(header([{"id": "arch", "archenemy": True}, "h1", "h2"], "archenemy"))
    assert s.now.life("arch") == 40
    assert s.now.team("heroes")["players"] == ["h1", "h2"]
    now = s.do("damage", source="arch-scheme", to="h1", amount=20)
    assert now.result("h1") == ("lost", "life", "704.5a")
    assert now.team("heroes")["status"] == "playing"
    now = s.do("damage", source="h2-creature", to="arch", amount=40)
    assert now.result("arch") == ("lost", "life", "704.5a")
    assert now.team("heroes")["status"] == "won"
    assert now.status("h2") == "won"
    assert now.status("h1") == "won"  # 104.2c
    assert now.over


@pytest.mark.rule("904.13b")
def test_904_13b_archenemy_commander_heroes_share_sixty_life():
    players = [
        {"id": "arch", "archenemy": True, "commanders": ["arch-c"]},
        {"id": "h1", "team": "guild", "commanders": ["h1-c"]},
        {"id": "h2", "team": "guild", "commanders": ["h2-c"]},
    ]
    s = Story(header(players, "archenemy", "commander"))
    assert s.now.team("guild")["life"] == 60
    now = s.do("damage", source="arch-scheme", to="h1", amount=10)
    assert now.team("guild")["life"] == 50
    assert now.life("h1") == 50
    assert now.life("h2") == 50
    assert now.life("arch") == 60
    now = s.do("damage", source="h1-creature", to="h2", amount=4, infect=True)
    assert now.player("h2")["poison"] == 4  # 904.13c: poison counters are not shared
    assert now.player("h1")["poison"] == 0


@pytest.mark.rule("904.12b")
def test_904_12b_supervillain_rumble_every_player_is_an_archenemy():
    s = Story(
        header([{"id": p, "archenemy": True} for p in ("a", "b", "c")], "supervillain-rumble")
    )
    assert [s.now.life(p) for p in "abc"] == [40, 40, 40]
    now = s.do("win", player="b", source="b-scheme")
    assert now.result("b") == ("won", "effect", "104.2b")
    assert now.result("a") == ("lost", "opponent-won", "104.2b")
    assert now.over


INVALID = {
    "two-player-with-three": header(["a", "b", "c"], "two-player"),
    "two-player-with-teams": header(team_players(("n", 1), ("s", 1)), "two-player"),
    "free-for-all-with-two": header(["a", "b"], "free-for-all"),
    "free-for-all-with-teams": header(team_players(("n", 2), ("s", 2)), "free-for-all"),
    "grand-melee-with-teams": header(team_players(("n", 2), ("s", 2)), "grand-melee"),
    "team-vs-team-one-team": header(team_players(("n", 3)), "team-vs-team"),
    "team-vs-team-player-without-team": header(
        [*team_players(("n", 2), ("s", 1)), {"id": "x"}], "team-vs-team"
    ),
    "two-headed-unequal": header(team_players(("n", 2), ("s", 3)), "two-headed-giant"),
    "two-headed-teams-of-one": header(team_players(("n", 1), ("s", 1)), "two-headed-giant"),
    "two-headed-three-teams": header(
        team_players(("n", 2), ("s", 2), ("e", 2)), "two-headed-giant"
    ),
    "two-headed-player-without-team": header(
        [*team_players(("n", 2), ("s", 1)), {"id": "x"}], "two-headed-giant"
    ),
    "emperor-teams-of-two": header(
        [
            {"id": "a1", "team": "a", "emperor": True},
            {"id": "a2", "team": "a"},
            {"id": "b1", "team": "b", "emperor": True},
            {"id": "b2", "team": "b"},
        ],
        "emperor",
    ),
    "emperor-team-without-emperor": header(
        [
            {k: v for k, v in p.items() if k != "emperor"} if p["team"] == "b" else p
            for p in emperor_teams(2)
        ],
        "emperor",
    ),
    "emperor-two-emperors-on-a-team": header(
        [{**p, "emperor": True} if p["id"] == "a-g1" else p for p in emperor_teams(2)],
        "emperor",
    ),
    "emperor-one-team": header(emperor_teams(1), "emperor"),
    "alternating-teammates-side-by-side": header(
        team_players(("A", 2), ("B", 2)), "alternating-teams"
    ),
    "alternating-unequal-teams": header(
        [{"id": "A1", "team": "A"}, {"id": "B1", "team": "B"}, {"id": "A2", "team": "A"}],
        "alternating-teams",
    ),
    "alternating-not-equally-spaced": header(
        [
            {"id": "A1", "team": "A"},
            {"id": "B1", "team": "B"},
            {"id": "C1", "team": "C"},
            {"id": "A2", "team": "A"},
            {"id": "C2", "team": "C"},
            {"id": "B2", "team": "B"},
        ],
        "alternating-teams",
    ),
    "archenemy-without-archenemy": header(["a", "b", "c"], "archenemy"),
    "archenemy-two-archenemies": header(
        [{"id": "a", "archenemy": True}, {"id": "b", "archenemy": True}, "c"], "archenemy"
    ),
    "archenemy-heroes-on-two-teams": header(
        [
            {"id": "arch", "archenemy": True},
            {"id": "h1", "team": "x"},
            {"id": "h2", "team": "y"},
        ],
        "archenemy",
    ),
    "supervillain-rumble-with-teams": header(
        [{"id": f"{t}{i}", "team": t, "archenemy": True} for t in "ns" for i in (1, 2)],
        "supervillain-rumble",
    ),
    "duplicate-player-id": header(["ana", "bo", "ana"], "free-for-all"),
    "unknown-variant": header(["a", "b", "c"], "three-headed-giant"),
    "unknown-format": header(["a", "b"], "two-player", "pauper-cube"),
    "undefined-combination": header(
        team_players(("n", 2), ("s", 2)), "two-headed-giant", "commander"
    ),
}


@pytest.mark.rule("800.2")
@pytest.mark.parametrize("name", list(INVALID))
def test_800_2_a_header_of_the_wrong_shape_is_malformed(name: str):
    with pytest.raises(MalformedError) as caught:
        record.replay({**INVALID[name], "actions": []})
    assert caught.value.position is None  # the header, not an action


@pytest.mark.rule("104.2c")
def test_104_2c_a_teammate_who_drew_keeps_the_draw_when_the_team_wins():
    # Three teams, range of influence 1: seats a1 a2 b1 b2 c1 around the table.
    from lifeledger import Game, Seat

    seats = [Seat("a1", team="a"), Seat("a2", team="a"), Seat("b1", team="b")]
    seats += [Seat("b2", team="b"), Seat("c1", team="c")]
    game = Game(seats, range_of_influence=1)
    game.draw_game("c1")  # 801.15: c1 and the players next to them, b2 and a1, draw
    assert [str(game.player(p).result) for p in ("a1", "b2", "c1")] == ["drew (effect, 801.15)"] * 3
    assert game.is_in_game("a2") and game.is_in_game("b1")
    game.concede("b1")  # team b has left: team a is the last standing
    assert str(game.player("a2").result) == "won (last-standing, 104.2c)"
    assert str(game.player("a1").result) == "drew (effect, 801.15)"
    assert game.outcome().over

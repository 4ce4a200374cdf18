"""Rule stories for ending the game (104) and the state-based actions that end it (704).

Each test is a short game told through the record layer, which the spec fixes: a document is
replayed with ``lifeledger.record.replay`` and read back with ``lifeledger.state.state_dict``.
The state is checked after every step. Rule numbers are those of the April 17, 2026 rules.
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


def ffa(*ids: str, **options: Any) -> Story:
    return Story(header(list(ids or ("ana", "bo", "cy")), "free-for-all", **options))


def two_headed(**options: Any) -> Story:
    north = [{"id": "ana", "team": "north"}, {"id": "bo", "team": "north"}]
    south = [{"id": "cy", "team": "south"}, {"id": "di", "team": "south"}]
    return Story(header(north + south, "two-headed-giant", **options))


def emperor_three_teams() -> Story:
    """Three teams of three, each emperor in the middle of the team (809.2)."""
    players = []
    for team in ("a", "b", "c"):
        players += [
            {"id": f"{team}-g1", "team": team},
            {"id": f"{team}-emp", "team": team, "emperor": True},
            {"id": f"{team}-g2", "team": team},
        ]
    return Story(header(players, "emperor"))


# --- 104.1 ----------------------------------------------------------------------------------


@pytest.mark.rule("104.1")
def test_104_1_the_game_ends_immediately_when_a_player_wins():
    s = ffa()
    assert not s.now.over
    now = s.do("win", player="ana", source="ana-felidar-sovereign")
    assert now.over
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.result("bo") == ("lost", "opponent-won", "104.2b")
    assert now.result("cy") == ("lost", "opponent-won", "104.2b")
    now = s.do("damage", source="bo-creature", to="cy", amount=3)
    assert now.refused == [("1", "104.1")]
    assert now.life("cy") == 20
    assert now.result("ana") == ("won", "effect", "104.2b")


@pytest.mark.rule("104.1")
def test_104_1_the_game_ends_immediately_when_it_is_a_draw():
    s = two()
    now = s.do("draw_game", controller="ana", source="divine-intervention")
    assert now.over
    assert now.result("ana") == ("drew", "effect", "104.4c")
    assert now.result("bo") == ("drew", "effect", "104.4c")
    now = s.do("gain_life", player="ana", amount=3)
    assert now.refused == [("1", "104.1")]
    assert now.life("ana") == 20


@pytest.mark.rule("104.1")
def test_104_1_a_win_inside_a_group_ends_the_game_before_state_based_actions_are_checked():
    # The win happens as the group ends, before the state-based actions that would have made
    # Ana lose for having 0 life (spec: together; 104.1, 704.3).
    s = two()
    now = s.do("damage", source="bo-creature", to="ana", amount=17)
    assert now.life("ana") == 3
    now = s.do(
        "together",
        actions=[
            act("damage", source="ana-pain-land", to="ana", amount=3),
            act("win", player="ana", source="ana-spell"),
        ],
    )
    assert now.over
    assert now.life("ana") == 0
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.result("bo") == ("lost", "opponent-won", "104.2b")


# --- 104.2 ----------------------------------------------------------------------------------


@pytest.mark.rule("104.2a")
def test_104_2a_last_player_standing_wins_two_player():
    s = two()
    now = s.do("damage", source="ana-creature", to="bo", amount=7)
    assert now.life("bo") == 13
    assert now.result("ana") == PLAYING
    now = s.do("damage", source="ana-fireball", to="bo", amount=13)
    assert now.result("bo") == ("lost", "life", "704.5a")
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("104.2a")
def test_104_2a_last_player_standing_wins_free_for_all():
    s = ffa()
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert not now.over
    assert now.result("ana") == PLAYING
    now = s.do("damage", source="ana-creature", to="cy", amount=20)
    assert now.result("cy") == ("lost", "life", "704.5a")
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("104.2a")
def test_104_2a_overrides_an_effect_that_says_the_player_cant_win():
    # Abyssal Persecutor: "You can't win the game and your opponents can't lose the game."
    s = two()
    now = s.do("card", id="persecutor-1", name="Abyssal Persecutor", controller="ana")
    assert now.statuses() == {"ana": "playing", "bo": "playing"}
    now = s.do("damage", source="abyssal-persecutor", to="bo", amount=25, combat=True)
    assert now.life("bo") == -5
    assert now.result("bo") == PLAYING  # his opponent's Persecutor says he can't lose
    now = s.do("win", player="ana", source="ana-spell")
    assert now.refused == []  # not refused: it happens and does nothing
    assert now.result("ana") == PLAYING
    assert not now.over
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.result("ana") == ("won", "last-standing", "104.2a")  # overrides the Persecutor
    assert now.over


@pytest.mark.rule("104.2b")
def test_104_2b_an_effect_says_a_player_wins():
    s = two()
    now = s.do("win", player="bo", source="bo-approach-of-the-second-sun")
    assert now.result("bo") == ("won", "effect", "104.2b")
    assert now.result("ana") == ("lost", "opponent-won", "104.2b")
    assert now.over


@pytest.mark.rule("104.2b")
def test_104_2b_a_win_ends_the_game_for_a_player_who_cant_lose():
    s = ffa()
    now = s.do("effect", id="cy-cant-lose", kind="cant_lose_game", controller="cy")
    assert not now.over
    now = s.do("win", player="ana", source="ana-spell")
    assert now.over
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.result("bo") == ("lost", "opponent-won", "104.2b")
    assert now.result("cy") == ("lost", "opponent-won", "104.2b")


@pytest.mark.rule("104.2b")
def test_104_2b_test_of_endurance_wins_at_the_controllers_upkeep_with_50_life():
    s = two()
    s.do("card", id="toe-1", name="Test of Endurance", controller="ana")
    now = s.do("gain_life", player="ana", amount=29)
    assert now.life("ana") == 49
    now = s.do("upkeep", player="ana")
    assert now.result("ana") == PLAYING  # 49 is not 50
    now = s.do("gain_life", player="ana", amount=1)
    assert now.life("ana") == 50
    now = s.do("upkeep", player="bo")
    assert now.result("ana") == PLAYING  # not her upkeep
    now = s.do("upkeep", player="ana")
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.result("bo") == ("lost", "opponent-won", "104.2b")


@pytest.mark.rule("104.2b")
def test_104_2b_laboratory_maniac_wins_instead_of_drawing_from_an_empty_library():
    s = Story(header([{"id": "ana", "library": 1}, "bo"], "two-player"))
    s.do("card", id="maniac-1", name="Laboratory Maniac", controller="ana")
    now = s.do("draw", player="ana", count=1)
    assert now.player("ana")["library"] == 0
    assert now.result("ana") == PLAYING
    now = s.do("draw", player="ana", count=1)
    assert now.result("ana") == ("won", "effect", "104.2b")  # not lost: 704.5b never applies
    assert now.result("bo") == ("lost", "opponent-won", "104.2b")


@pytest.mark.rule("104.2b")
def test_104_2b_laboratory_maniac_wins_in_the_middle_of_drawing_two():
    s = Story(header([{"id": "ana", "library": 1}, "bo"], "two-player"))
    now = s.do("card", id="maniac-1", name="Laboratory Maniac", controller="ana")
    assert now.player("ana")["library"] == 1
    now = s.do("draw", player="ana", count=2)  # the first draw empties it, the second wins
    assert now.player("ana")["library"] == 0
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.result("bo") == ("lost", "opponent-won", "104.2b")


@pytest.mark.rule("104.2b")
def test_104_2b_players_who_already_left_keep_their_own_result_when_someone_wins():
    s = ffa("ana", "bo", "cy", "di")
    now = s.do("concede", player="bo")
    now = s.do("damage", source="ana-creature", to="cy", amount=20)
    assert now.result("cy") == ("lost", "life", "704.5a")
    now = s.do("win", player="ana", source="ana-spell")
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.result("di") == ("lost", "opponent-won", "104.2b")
    assert now.result("bo") == ("lost", "conceded", "104.3a")  # not rewritten
    assert now.result("cy") == ("lost", "life", "704.5a")
    assert now.over


@pytest.mark.rule("104.2b")
def test_104_2b_test_of_endurance_checks_at_the_teams_upkeep_in_two_headed_giant():
    # 805.4, 810.9a: the team takes its turn together, so Bo's upkeep is Ana's upkeep too.
    s = two_headed()
    s.do("card", id="toe-1", name="Test of Endurance", controller="ana")
    now = s.do("gain_life", player="bo", amount=20)
    assert now.team("north")["life"] == 50
    now = s.do("upkeep", player="cy")
    assert not now.over  # the other team's upkeep
    now = s.do("upkeep", player="bo")
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.team("north")["status"] == "won"
    assert now.team("south")["status"] == "lost"
    assert now.over


@pytest.mark.rule("104.2c")
def test_104_2c_last_team_standing_wins_including_teammates_who_already_lost():
    north = [{"id": "ana", "team": "north"}, {"id": "bo", "team": "north"}]
    south = [{"id": "cy", "team": "south"}, {"id": "di", "team": "south"}]
    s = Story(header(north + south, "team-vs-team"))
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.team("north")["status"] == "playing"  # Ana is still in the game
    assert not now.over
    now = s.do("damage", source="ana-creature", to="cy", amount=20)
    assert now.result("cy") == ("lost", "life", "704.5a")
    assert now.team("south")["status"] == "playing"
    now = s.do("lose", player="di", source="ana-spell")
    assert now.result("di") == ("lost", "effect", "104.3e")
    assert now.team("south")["status"] == "lost"
    assert now.team("north")["status"] == "won"
    assert now.result("ana") == ("won", "last-standing", "104.2c")
    bo = now.player("bo")
    assert bo["status"] == "won"  # "even if one or more of those players had previously lost"
    assert bo["rule"] == "104.2c"
    assert bo["reason"] in ("last-standing", "team")
    assert now.over


@pytest.mark.rule("104.2c")
def test_104_2c_the_last_team_wins_even_against_an_angel_that_leaves_with_its_team():
    # Platinum Angel on Ana: "your opponents can't win". Ana concedes, so her team leaves
    # (810.8b) and team south is the only team left: it wins (104.2a, 104.2c).
    s = two_headed()
    s.do("card", id="angel-1", name="Platinum Angel", controller="ana")
    now = s.do("win", player="cy", source="cy-spell")
    assert now.team("south")["status"] == "playing"  # can't win while the Angel is there
    now = s.do("concede", player="ana")
    assert now.team("north")["status"] == "lost"
    assert now.team("south")["status"] == "won"
    assert now.result("cy") == ("won", "last-standing", "104.2c")
    assert now.result("di") == ("won", "last-standing", "104.2c")
    assert now.over


@pytest.mark.rule("104.2d")
def test_104_2d_emperor_team_wins_when_its_emperor_wins():
    # Two teams of three; the emperor of team a is given range 3, which reaches every seat.
    players = [
        {"id": "a-g1", "team": "a"},
        {"id": "a-emp", "team": "a", "emperor": True, "range": 3},
        {"id": "a-g2", "team": "a"},
        {"id": "b-g1", "team": "b"},
        {"id": "b-emp", "team": "b", "emperor": True},
        {"id": "b-g2", "team": "b"},
    ]
    s = Story(header(players, "emperor"))
    now = s.do("concede", player="a-g1")
    assert now.result("a-g1") == ("lost", "conceded", "104.3a")
    assert now.team("a")["status"] == "playing"
    now = s.do("win", player="a-emp", source="a-emp-spell")
    # 801.14: every opponent within range loses instead; team b is gone, so team a wins.
    for pid in ("b-g1", "b-emp", "b-g2"):
        assert now.status(pid) == "lost"
    assert now.team("b")["status"] == "lost"
    assert now.team("a")["status"] == "won"
    for pid in ("a-g1", "a-emp", "a-g2"):
        assert now.status(pid) == "won"
    assert now.over


# --- 104.3 ----------------------------------------------------------------------------------


@pytest.mark.rule("104.3a")
def test_104_3a_a_player_who_concedes_loses_at_once():
    s = two()
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("104.3a")
def test_104_3a_conceding_cannot_be_stopped_by_platinum_angel():
    s = two()
    s.do("card", id="angel-1", name="Platinum Angel", controller="bo")
    now = s.do("damage", source="ana-creature", to="bo", amount=20)
    assert now.result("bo") == PLAYING  # "You can't lose the game"
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.result("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3b")
def test_104_3b_zero_or_less_life_loses_at_the_next_check():
    s = two()
    now = s.do("damage", source="bo-creature", to="ana", amount=19)
    assert now.life("ana") == 1
    assert now.result("ana") == PLAYING
    now = s.do("lose_life", player="ana", amount=4, source="bo-drain")
    assert now.life("ana") == -3
    assert now.result("ana") == ("lost", "life", "704.5a")
    assert now.result("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3c")
def test_104_3c_drawing_more_cards_than_the_library_holds_loses():
    s = Story(header([{"id": "ana", "library": 3}, "bo"], "two-player"))
    now = s.do("draw", player="ana", count=2)
    assert now.player("ana")["library"] == 1
    assert now.result("ana") == PLAYING
    now = s.do("draw", player="ana", count=3)
    assert now.player("ana")["library"] == 0  # she draws the remaining card
    assert now.result("ana") == ("lost", "empty-library", "704.5b")
    assert now.result("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3c")
def test_104_3c_drawing_the_last_card_is_not_a_loss():
    s = Story(header(["ana", {"id": "bo", "library": 2}], "two-player"))
    now = s.do("draw", player="bo", count=2)
    assert now.player("bo")["library"] == 0
    assert now.result("bo") == PLAYING
    now = s.do("draw", player="bo", count=0)
    assert now.result("bo") == PLAYING  # drawing 0 cards does nothing
    now = s.do("draw", player="bo", count=1)
    assert now.result("bo") == ("lost", "empty-library", "704.5b")


@pytest.mark.rule("104.3d")
def test_104_3d_ten_poison_counters_lose():
    s = two()
    now = s.do("add_counters", player="bo", kind="poison", amount=9)
    assert now.player("bo")["poison"] == 9
    assert now.result("bo") == PLAYING
    now = s.do("add_counters", player="bo", kind="poison", amount=1)
    assert now.player("bo")["poison"] == 10
    assert now.life("bo") == 20
    assert now.result("bo") == ("lost", "poison", "704.5c")
    assert now.result("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3e")
def test_104_3e_an_effect_says_a_player_loses():
    s = two()
    now = s.do("lose", player="ana", source="bo-door-to-nothingness")
    assert now.result("ana") == ("lost", "effect", "104.3e")
    assert now.result("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3e")
def test_104_3e_an_effect_says_several_players_lose():
    s = ffa()
    now = s.do("lose", players=["ana", "bo"], source="cy-spell")
    assert now.result("ana") == ("lost", "effect", "104.3e")
    assert now.result("bo") == ("lost", "effect", "104.3e")
    assert now.result("cy") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3e")
def test_104_3e_an_effect_cannot_make_a_player_protected_by_platinum_angel_lose():
    s = two()
    s.do("card", id="angel-1", name="Platinum Angel", controller="ana")
    now = s.do("lose", player="ana", source="bo-spell")
    assert now.refused == []
    assert now.result("ana") == PLAYING
    assert not now.over
    now = s.do("end", id="angel-1")
    assert now.result("ana") == PLAYING  # the loss did not wait for the Angel to leave
    now = s.do("lose", player="ana", source="bo-spell")
    assert now.result("ana") == ("lost", "effect", "104.3e")


@pytest.mark.rule("104.3f")
def test_104_3f_player_who_wins_and_loses_at_once_loses():
    s = two()
    now = s.do(
        "together",
        actions=[act("win", player="ana", source="spell"), act("lose", player="ana", source="x")],
    )
    ana = now.player("ana")
    assert ana["status"] == "lost"
    assert ana["reason"] == "effect"
    assert ana["rule"] in ("104.3e", "104.3f")
    assert now.result("bo") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("104.3f")
def test_104_3f_win_and_lose_at_once_in_free_for_all_only_loses():
    s = ffa()
    now = s.do(
        "together",
        actions=[act("lose", player="ana", source="x"), act("win", player="ana", source="y")],
    )
    assert now.status("ana") == "lost"
    assert now.result("bo") == PLAYING  # her win never happened
    assert now.result("cy") == PLAYING
    assert not now.over


@pytest.mark.rule("104.3f")
def test_104_3f_two_headed_team_that_wins_and_loses_at_once_loses():
    # 810.8a: a head that wins makes the team win, a head that loses makes it lose.
    s = two_headed()
    now = s.do(
        "together",
        actions=[act("win", player="ana", source="x"), act("lose", player="bo", source="y")],
    )
    assert now.team("north")["status"] == "lost"
    assert now.status("ana") == "lost"
    assert now.status("bo") == "lost"
    assert now.team("south")["status"] == "won"
    assert now.status("cy") == "won"
    assert now.over


@pytest.mark.rule("104.3f")
def test_104_3f_two_opponents_who_win_at_once_both_lose_so_the_game_is_a_draw():
    # Each win ends the game for the other player, who loses with opponent-won (spec, 104.2b):
    # each would both win and lose at once, so each loses (104.3f), and all the players
    # remaining have lost simultaneously (104.4a). Two opponents can never both win.
    s = two()
    now = s.do(
        "together",
        actions=[act("win", player="ana", source="x"), act("win", player="bo", source="y")],
    )
    assert now.over
    assert now.status("ana") != "won" or now.status("bo") != "won"
    assert now.result("ana") == ("drew", "simultaneous-loss", "104.4a")
    assert now.result("bo") == ("drew", "simultaneous-loss", "104.4a")


@pytest.mark.rule("104.3f")
def test_104_3f_two_headed_teams_that_win_at_once_do_not_both_win():
    s = two_headed()
    now = s.do(
        "together",
        actions=[act("win", player="ana", source="x"), act("win", player="cy", source="y")],
    )
    assert now.over
    assert not (now.team("north")["status"] == "won" and now.team("south")["status"] == "won")
    assert now.team("north")["status"] == "drew"  # 104.3f, then 104.4d
    assert now.team("south")["status"] == "drew"


@pytest.mark.rule("104.3f")
def test_104_3f_a_player_who_cant_lose_only_wins():
    # With Platinum Angel the loss would not happen, so Ana would not "both win and lose".
    s = two()
    now = s.do("card", id="angel-1", name="Platinum Angel", controller="ana")
    assert now.result("ana") == PLAYING
    now = s.do(
        "together",
        actions=[act("win", player="ana", source="x"), act("lose", player="ana", source="y")],
    )
    assert now.result("ana") == ("won", "effect", "104.2b")
    assert now.result("bo") == ("lost", "opponent-won", "104.2b")


@pytest.mark.rule("104.3g")
def test_104_3g_a_team_loses_when_all_its_players_have_lost():
    players = [
        {"id": "ana", "team": "north"},
        {"id": "bo", "team": "north"},
        {"id": "cy", "team": "south"},
        {"id": "di", "team": "south"},
        {"id": "ed", "team": "east"},
        {"id": "fay", "team": "east"},
    ]
    s = Story(header(players, "team-vs-team"))
    now = s.do("concede", player="ana")
    assert now.result("ana") == ("lost", "conceded", "104.3a")
    assert now.team("north")["status"] == "playing"
    now = s.do("damage", source="cy-creature", to="bo", amount=20)
    assert now.result("bo") == ("lost", "life", "704.5a")
    assert now.team("north")["status"] == "lost"
    assert now.team("south")["status"] == "playing"
    assert now.team("east")["status"] == "playing"
    assert not now.over


@pytest.mark.rule("104.3h")
def test_104_3h_a_win_with_limited_range_makes_opponents_in_range_lose_instead():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    now = s.do("win", player="ana", source="ana-spell")
    assert now.result("ana") == PLAYING  # she does not win
    for pid in ("bo", "ed"):  # her neighbours
        assert now.player(pid)["status"] == "lost"
        assert now.player(pid)["reason"] == "opponent-won"
        assert now.player(pid)["rule"] in ("104.3h", "801.14")
    assert now.result("cy") == PLAYING
    assert now.result("di") == PLAYING
    assert not now.over  # "This may not cause the game to end."


@pytest.mark.rule("104.3h")
def test_104_3h_a_win_that_reaches_every_opponent_leaves_the_winner_standing():
    s = ffa("ana", "bo", "cy", range_of_influence=1)
    now = s.do("win", player="ana", source="ana-spell")
    assert now.status("bo") == "lost"
    assert now.status("cy") == "lost"
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("104.3i")
def test_104_3i_emperor_team_loses_when_its_emperor_loses():
    s = emperor_three_teams()
    now = s.do("damage", source="a-emp-creature", to="b-emp", amount=20)
    assert now.result("b-emp") == ("lost", "life", "704.5a")
    assert now.result("b-g1") == ("lost", "emperor", "809.5b")
    assert now.result("b-g2") == ("lost", "emperor", "809.5b")
    assert now.team("b")["status"] == "lost"
    assert now.team("a")["status"] == "playing"
    assert now.team("c")["status"] == "playing"
    assert not now.over


@pytest.mark.rule("104.3j")
def test_104_3j_21_combat_damage_from_one_commander_loses():
    players = [{"id": "ana", "commanders": ["ana-cmdr"]}, {"id": "bo", "commanders": ["bo-cmdr"]}]
    s = Story(header(players, "two-player", "commander"))
    now = s.do("damage", source="ana-cmdr", to="bo", amount=20, combat=True)
    assert now.life("bo") == 20
    assert now.player("bo")["commander_damage"] == {"ana-cmdr": 20}
    assert now.result("bo") == PLAYING
    now = s.do("damage", source="ana-cmdr", to="bo", amount=1, combat=True)
    assert now.life("bo") == 19
    assert now.result("bo") == ("lost", "commander-damage", "704.6c")


@pytest.mark.rule("104.3k")
def test_104_3k_a_judges_penalty_loses_the_game():
    s = two()
    now = s.do("penalty", player="bo")
    assert now.result("bo") == ("lost", "penalty", "104.3k")
    assert now.result("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("104.3k")
def test_104_3k_a_penalty_on_one_head_makes_the_two_headed_team_lose():
    s = two_headed()
    now = s.do("penalty", player="di")
    assert now.result("di") == ("lost", "penalty", "104.3k")
    assert now.result("cy") == ("lost", "teammate", "810.8a")
    assert now.team("south")["status"] == "lost"
    assert now.team("north")["status"] == "won"


# --- 104.4 ----------------------------------------------------------------------------------


@pytest.mark.rule("104.4a")
def test_104_4a_all_remaining_players_losing_at_once_is_a_draw():
    s = two()
    s.do("damage", source="bo-attackers", to="ana", amount=17, combat=True)
    now = s.do("damage", source="ana-attackers", to="bo", amount=17, combat=True)
    assert (now.life("ana"), now.life("bo")) == (3, 3)
    now = s.do(
        "together",
        actions=[
            act("damage", source="earthquake", to="ana", amount=3),
            act("damage", source="earthquake", to="bo", amount=3),
        ],
    )
    assert now.result("ana") == ("drew", "simultaneous-loss", "104.4a")
    assert now.result("bo") == ("drew", "simultaneous-loss", "104.4a")
    assert now.over


@pytest.mark.rule("104.4a")
def test_104_4a_players_who_left_earlier_keep_their_loss():
    s = ffa()
    now = s.do("concede", player="bo")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    now = s.do(
        "together",
        actions=[
            act("damage", source="earthquake", to="ana", amount=20),
            act("damage", source="earthquake", to="cy", amount=20),
        ],
    )
    assert now.result("ana") == ("drew", "simultaneous-loss", "104.4a")
    assert now.result("cy") == ("drew", "simultaneous-loss", "104.4a")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.over


@pytest.mark.rule("104.4a")
def test_104_4a_no_draw_when_one_of_the_players_cant_lose():
    s = two()
    now = s.do("card", id="angel-1", name="Platinum Angel", controller="ana")
    now = s.do(
        "together",
        actions=[
            act("damage", source="earthquake", to="ana", amount=20),
            act("damage", source="earthquake", to="bo", amount=20),
        ],
    )
    assert (now.life("ana"), now.life("bo")) == (0, 0)
    assert now.result("bo") == ("lost", "life", "704.5a")
    assert now.result("ana") == ("won", "last-standing", "104.2a")
    assert now.over


@pytest.mark.rule("104.4b")
def test_104_4b_a_mandatory_loop_is_a_draw():
    s = ffa()
    now = s.do("concede", player="bo")
    assert not now.over
    now = s.do("loop", controllers=["ana"])
    assert now.result("ana") == ("drew", "loop", "104.4b")
    assert now.result("cy") == ("drew", "loop", "104.4b")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.over


@pytest.mark.rule("104.4b")
def test_104_4b_a_loop_in_two_headed_giant_is_a_draw_for_every_team():
    s = two_headed()
    now = s.do("damage", source="cy-attackers", to="ana", amount=5)
    assert now.team("north")["life"] == 25
    now = s.do("loop", controllers=["bo"])
    assert now.team("north")["status"] == "drew"
    assert now.team("south")["status"] == "drew"
    assert all(p["reason"] == "loop" for p in now.data["players"])
    assert now.over


@pytest.mark.rule("104.4c")
def test_104_4c_an_effect_says_the_game_is_a_draw():
    s = two()
    now = s.do("damage", source="bo-creature", to="ana", amount=5)
    assert now.life("ana") == 15
    now = s.do("draw_game", controller="bo", source="bo-spell")
    assert now.result("ana") == ("drew", "effect", "104.4c")
    assert now.result("bo") == ("drew", "effect", "104.4c")
    assert now.over


@pytest.mark.rule("104.4d")
def test_104_4d_all_remaining_teams_losing_at_once_is_a_draw():
    s = two_headed()
    now = s.do(
        "together",
        actions=[
            act("damage", source="flame-rift", to="ana", amount=30),
            act("damage", source="flame-rift", to="cy", amount=30),
        ],
    )
    assert now.team("north")["life"] == 0
    assert now.team("south")["life"] == 0
    assert now.team("north")["status"] == "drew"
    assert now.team("south")["status"] == "drew"
    for pid in ("ana", "bo", "cy", "di"):
        assert now.player(pid)["status"] == "drew"
        assert now.player(pid)["reason"] == "simultaneous-loss"
        assert now.player(pid)["rule"] in ("104.4a", "104.4d")
    assert now.over


@pytest.mark.rule("104.4e")
def test_104_4e_a_draw_effect_with_limited_range_is_a_draw_only_within_range():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    now = s.do("draw_game", controller="ana", source="ana-spell")
    for pid in ("ana", "bo", "ed"):
        assert now.player(pid)["status"] == "drew"
        assert now.player(pid)["reason"] == "effect"
        assert now.player(pid)["rule"] in ("104.4e", "801.15")
    assert now.result("cy") == PLAYING
    assert now.result("di") == PLAYING
    assert not now.over
    now = s.do("concede", player="cy")
    assert now.result("di") == ("won", "last-standing", "104.2a")
    assert now.status("ana") == "drew"
    assert now.over


@pytest.mark.rule("104.4f")
def test_104_4f_a_loop_with_limited_range_is_a_draw_for_its_controllers_and_their_range():
    s = ffa("ana", "bo", "cy", "di", "ed", "fay", range_of_influence=1)
    now = s.do("loop", controllers=["ana"])
    for pid in ("fay", "ana", "bo"):
        assert now.player(pid)["status"] == "drew"
        assert now.player(pid)["reason"] == "loop"
        assert now.player(pid)["rule"] in ("104.4f", "801.16")
    for pid in ("cy", "di", "ed"):
        assert now.result(pid) == PLAYING
    assert not now.over
    now = s.do("loop", controllers=["di"])
    for pid in ("cy", "di", "ed"):
        assert now.player(pid)["status"] == "drew"
    assert now.over


@pytest.mark.rule("104.4g")
def test_104_4g_a_team_draws_when_all_its_remaining_players_draw():
    players = [
        {"id": "ana", "team": "north"},
        {"id": "bo", "team": "north"},
        {"id": "cy", "team": "south"},
        {"id": "di", "team": "south"},
        {"id": "ed", "team": "east"},
        {"id": "fay", "team": "east"},
    ]
    s = Story(header(players, "team-vs-team", range_of_influence=1))
    now = s.do("draw_game", controller="ana", source="ana-spell")
    for pid in ("fay", "ana", "bo"):
        assert now.status(pid) == "drew"
    assert now.team("north")["status"] == "drew"
    assert now.team("east")["status"] == "playing"  # Ed is still in the game
    assert now.team("south")["status"] == "playing"
    assert now.result("ed") == PLAYING
    assert not now.over


@pytest.mark.rule("104.4h")
def test_104_4h_emperor_team_draws_when_its_emperor_draws():
    s = emperor_three_teams()
    # a-g1 is a general: range 1 (809.3a) reaches c-g2 on the right and a-emp on the left.
    now = s.do("draw_game", controller="a-g1", source="a-g1-spell")
    for pid in ("c-g2", "a-g1", "a-emp"):
        assert now.status(pid) == "drew"
    assert now.result("a-g2") == ("drew", "emperor", "809.5c")  # out of range, but its emperor drew
    assert now.team("a")["status"] == "drew"
    assert now.team("c")["status"] == "playing"
    assert now.result("c-emp") == PLAYING
    assert not now.over


@pytest.mark.rule("104.4i")
def test_104_4i_an_intentional_draw():
    s = ffa()
    s.do("concede", player="bo")
    now = s.do("intentional_draw")
    assert now.result("ana") == ("drew", "intentional", "104.4i")
    assert now.result("cy") == ("drew", "intentional", "104.4i")
    assert now.result("bo") == ("lost", "conceded", "104.3a")
    assert now.over


# --- 104.5, 104.6 ---------------------------------------------------------------------------


@pytest.mark.rule("104.5")
def test_104_5_a_player_who_loses_leaves_the_game():
    s = ffa()
    now = s.do("lose", player="bo", source="ana-spell")
    assert now.result("bo") == ("lost", "effect", "104.3e")
    now = s.do("damage", source="cy-creature", to="bo", amount=3)
    assert len(now.refused) == 1
    assert now.refused[0][0] == "1"
    assert now.refused[0][1].startswith("800.4")
    assert now.life("bo") == 20
    now = s.do("damage", source="cy-creature", to="ana", amount=3)
    assert now.life("ana") == 17
    assert len(now.refused) == 1


@pytest.mark.rule("104.5")
def test_104_5_a_player_for_whom_the_game_is_a_draw_leaves_the_game():
    s = ffa("ana", "bo", "cy", "di", "ed", range_of_influence=1)
    now = s.do("draw_game", controller="ana", source="ana-spell")
    assert now.status("bo") == "drew"
    now = s.do("gain_life", player="bo", amount=2)
    assert [r[0] for r in now.refused] == ["1"]
    assert now.refused[0][1].startswith("800.4")
    assert now.life("bo") == 20


@pytest.mark.rule("104.6")
def test_104_6_restart_starts_a_new_game_for_the_players_still_in_it():
    s = ffa()
    now = s.do("concede", player="bo")
    now = s.do("damage", source="ana-creature", to="cy", amount=6)
    assert now.life("cy") == 14
    now = s.do("restart", controller="ana")
    assert now.game == 2
    assert not now.over
    assert now.result("ana") == PLAYING
    assert now.result("cy") == PLAYING
    assert now.life("cy") == 20
    assert now.result("bo") == ("lost", "conceded", "104.3a")


# --- 704 ------------------------------------------------------------------------------------


@pytest.mark.rule("704.3")
def test_704_3_different_state_based_losses_are_simultaneous():
    s = two()
    now = s.do("add_counters", player="bo", kind="poison", amount=9)
    assert now.result("bo") == PLAYING
    now = s.do(
        "together",
        actions=[
            act("damage", source="bo-creature", to="ana", amount=20),
            act("damage", source="ana-infect-creature", to="bo", amount=1, infect=True),
        ],
    )
    assert now.player("bo")["poison"] == 10
    assert now.life("ana") == 0
    assert now.result("ana") == ("drew", "simultaneous-loss", "104.4a")
    assert now.result("bo") == ("drew", "simultaneous-loss", "104.4a")


@pytest.mark.rule("704.3")
def test_704_3_a_together_group_is_checked_once_after_all_its_actions():
    s = two()
    now = s.do("damage", source="bo-creature", to="ana", amount=15)
    assert now.life("ana") == 5
    now = s.do(
        "together",
        actions=[
            act("damage", source="bo-spell", to="ana", amount=5),
            act("gain_life", player="ana", amount=4, source="ana-lifelink"),
        ],
    )
    assert now.life("ana") == 4
    assert now.result("ana") == PLAYING  # 0 life only in the middle of the resolution (704.4)
    assert not now.over


@pytest.mark.rule("704.3")
def test_704_3_state_based_actions_are_checked_after_each_top_level_action():
    s = two()
    now = s.do("damage", source="bo-creature", to="ana", amount=20)
    assert now.result("ana") == ("lost", "life", "704.5a")
    now = s.do("gain_life", player="ana", amount=4)
    assert now.refused == [("1", "104.1")]
    assert now.life("ana") == 0
    assert now.result("ana") == ("lost", "life", "704.5a")


@pytest.mark.rule("704.5a")
def test_704_5a_zero_or_less_life_loses():
    s = two()
    now = s.do("damage", source="ana-giant", to="bo", amount=7)
    assert now.life("bo") == 13
    assert now.result("bo") == PLAYING
    now = s.do("damage", source="ana-fireball", to="bo", amount=13)
    assert now.life("bo") == 0
    assert now.result("bo") == ("lost", "life", "704.5a")


@pytest.mark.rule("704.5a")
def test_704_5a_applies_again_once_phyrexian_unlife_leaves():
    s = two()
    s.do("card", id="unlife-1", name="Phyrexian Unlife", controller="ana")
    now = s.do("damage", source="bo-creature", to="ana", amount=21)
    assert now.life("ana") == -1
    assert now.result("ana") == PLAYING
    now = s.do("damage", source="bo-creature", to="ana", amount=4)
    assert now.life("ana") == -1  # dealt as though its source had infect
    assert now.player("ana")["poison"] == 4
    assert now.result("ana") == PLAYING
    now = s.do("end", id="unlife-1")
    assert now.result("ana") == ("lost", "life", "704.5a")
    assert now.result("bo") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("704.5b")
def test_704_5b_only_draws_since_the_last_check_count():
    s = Story(header(["ana", {"id": "bo", "library": 0}], "two-player"))
    s.do("card", id="angel-1", name="Platinum Angel", controller="bo")
    now = s.do("draw", player="bo", count=1)
    assert now.result("bo") == PLAYING  # the Angel protects him through this check
    assert now.player("bo")["library"] == 0
    now = s.do("end", id="angel-1")
    assert now.result("bo") == PLAYING  # no attempt since the last check: no loss
    assert not now.over
    now = s.do("draw", player="bo", count=1)
    assert now.result("bo") == ("lost", "empty-library", "704.5b")
    assert now.result("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("704.5b")
def test_704_5b_the_draw_counts_when_the_angel_leaves_before_the_check():
    s = Story(header(["ana", {"id": "bo", "library": 0}], "two-player"))
    now = s.do("card", id="angel-1", name="Platinum Angel", controller="bo")
    assert now.result("bo") == PLAYING
    now = s.do("together", actions=[act("draw", player="bo", count=1), act("end", id="angel-1")])
    assert now.result("bo") == ("lost", "empty-library", "704.5b")


@pytest.mark.rule("704.5c")
def test_704_5c_ten_poison_counters_from_infect_damage_lose():
    s = two()
    now = s.do("damage", source="skithiryx", to="bo", amount=4, infect=True)
    assert now.player("bo")["poison"] == 4
    assert now.life("bo") == 20
    now = s.do("damage", source="skithiryx", to="bo", amount=6, infect=True)
    assert now.player("bo")["poison"] == 10
    assert now.result("bo") == ("lost", "poison", "704.5c")


@pytest.mark.rule("704.5c")
def test_704_5c_is_ignored_in_two_headed_giant():
    s = two_headed()
    now = s.do("damage", source="skithiryx", to="ana", amount=10, infect=True)
    assert now.team("north")["poison"] == 10
    assert now.player("ana")["poison"] == 10  # the team's count, as the rules read it
    assert now.result("ana") == PLAYING
    assert now.team("north")["status"] == "playing"


@pytest.mark.rule("704.6a")
def test_704_6a_a_two_headed_team_with_zero_life_loses():
    s = two_headed()
    now = s.do("damage", source="cy-attackers", to="bo", amount=19, combat=True)
    assert now.team("north")["life"] == 11
    now = s.do("damage", source="di-attackers", to="ana", amount=11, combat=True)
    assert now.team("north")["life"] == 0
    assert now.result("ana") == ("lost", "team-life", "704.6a")
    assert now.result("bo") == ("lost", "team-life", "704.6a")
    assert now.team("north")["status"] == "lost"
    assert now.team("north")["reason"] == "team-life"
    assert now.result("cy") == ("won", "last-standing", "104.2c")
    assert now.over


@pytest.mark.rule("704.6a")
def test_704_6a_transcendence_keeps_the_team_in_the_game():
    # 810.8a example: "You don't lose the game for having 0 or less life."
    s = two_headed()
    s.do("effect", id="transcendence", kind="no_loss_for_life", controller="ana")
    now = s.do("damage", source="cy-attackers", to="bo", amount=31, combat=True)
    assert now.team("north")["life"] == -1
    assert now.team("north")["status"] == "playing"
    now = s.do("end", id="transcendence")
    assert now.team("north")["status"] == "lost"


@pytest.mark.rule("704.6b")
def test_704_6b_a_two_headed_team_with_fifteen_poison_loses():
    s = two_headed()
    now = s.do("damage", source="cy-infect", to="ana", amount=9, infect=True)
    assert now.team("north")["poison"] == 9
    now = s.do("add_counters", player="bo", kind="poison", amount=5)
    assert now.team("north")["poison"] == 14
    assert now.team("north")["status"] == "playing"
    now = s.do("add_counters", player="ana", kind="poison", amount=1)
    assert now.team("north")["poison"] == 15
    assert now.result("ana") == ("lost", "team-poison", "704.6b")
    assert now.result("bo") == ("lost", "team-poison", "704.6b")
    assert now.team("north")["life"] == 30


@pytest.mark.rule("704.6b")
def test_704_6b_three_headed_giant_needs_twenty_poison():
    players = [{"id": f"n{i}", "team": "north"} for i in range(3)]
    players += [{"id": f"s{i}", "team": "south"} for i in range(3)]
    s = Story(header(players, "two-headed-giant"))
    assert s.now.team("north")["life"] == 45  # 810.11
    now = s.do("add_counters", player="n0", kind="poison", amount=15)
    assert now.team("north")["poison"] == 15
    assert now.team("north")["status"] == "playing"
    now = s.do("add_counters", player="n2", kind="poison", amount=5)
    assert now.team("north")["poison"] == 20
    assert now.team("north")["status"] == "lost"
    assert now.result("n1") == ("lost", "team-poison", "704.6b")


@pytest.mark.rule("704.6c")
def test_704_6c_only_combat_damage_from_one_commander_counts():
    players = [{"id": p, "commanders": [f"{p}-cmdr"]} for p in ("ana", "bo", "cy")]
    players[0]["commanders"] = ["ana-partner-1", "ana-partner-2"]
    s = Story(header(players, "free-for-all", "commander"))
    assert s.now.life("bo") == 40
    now = s.do("damage", source="ana-partner-1", to="bo", amount=11, combat=True)
    now = s.do("damage", source="ana-partner-2", to="bo", amount=11, combat=True)
    assert now.player("bo")["commander_damage"] == {"ana-partner-1": 11, "ana-partner-2": 11}
    assert now.result("bo") == PLAYING  # 22 in all, but not 21 from the same commander
    now = s.do("damage", source="ana-partner-1", to="bo", amount=5)
    assert now.life("bo") == 13
    assert now.player("bo")["commander_damage"]["ana-partner-1"] == 11  # not combat damage
    assert now.result("bo") == PLAYING
    now = s.do("damage", source="ana-partner-1", to="bo", amount=10, combat=True)
    assert now.player("bo")["commander_damage"]["ana-partner-1"] == 21
    assert now.life("bo") == 3
    assert now.result("bo") == ("lost", "commander-damage", "704.6c")
    assert not now.over


@pytest.mark.rule("704.6c")
def test_704_6c_does_not_apply_in_brawl():
    # 903.12h: Brawl games do not use 704.6c; the damage is still recorded.
    players = [{"id": "ana", "commanders": ["ana-cmdr"]}, {"id": "bo", "commanders": ["bo-cmdr"]}]
    s = Story(header(players, "two-player", "brawl"))
    assert s.now.life("bo") == 25
    now = s.do("damage", source="ana-cmdr", to="bo", amount=21, combat=True)
    assert now.life("bo") == 4
    assert now.player("bo")["commander_damage"] == {"ana-cmdr": 21}
    assert now.result("bo") == PLAYING


@pytest.mark.rule("704.6c")
def test_704_6c_combat_damage_with_infect_from_a_commander_counts_too():
    players = [{"id": p, "commanders": [f"{p}-cmdr"]} for p in ("ana", "bo", "cy")]
    s = Story(header(players, "free-for-all", "commander"))
    now = s.do("damage", source="ana-cmdr", to="bo", amount=7, combat=True, infect=True)
    assert now.player("bo")["poison"] == 7
    assert now.life("bo") == 40
    assert now.player("bo")["commander_damage"] == {"ana-cmdr": 7}
    now = s.do("damage", source="ana-cmdr", to="bo", amount=14, combat=True)
    assert now.life("bo") == 26
    assert now.player("bo")["commander_damage"] == {"ana-cmdr": 21}
    assert now.result("bo") == ("lost", "commander-damage", "704.6c")

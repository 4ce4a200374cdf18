"""Rule stories closing issue 11: which losses of the game Lich's Mirror replaces (614.1a;
704.5a-c, 704.6a, 104.3e and 801.14 yes; 104.2b, 104.3a and 104.3k no; 810.8a for a team),
Celestial Convergence's omen counters in the state (122.1), the rules of 104, 119 and 810 no
other story named, and the guard that every subrule of 104, 119 and 810 is named by a test.

Each story is a short game told through the record (``docs/record-format.md``). Rule text:
../shared/rules/life-and-game-end.txt and ../shared/rules/comprehensive-rules.txt.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from lifeledger import record
from lifeledger.errors import ChoiceNeeded
from stories import Story, card, damage, effect, gain, lose, step, turn, v2

#: The rules text beside the repository (``../shared``), as the docs cite it.
RULES = Path(__file__).resolve().parents[2] / "shared" / "rules" / "life-and-game-end.txt"
TESTS = Path(__file__).resolve().parent


def mirror(controller: str, cid: str = "mirror") -> dict[str, Any]:
    return card(cid, "Lich's Mirror", controller)


def applying(s: Story) -> set[str]:
    """The ids of the effects (cards) that apply after the story's actions."""
    from lifeledger import record

    return {e.id for e in record.replay(s.document()).game.effects()}


THG = [
    {"id": "ana", "team": "north", "library": 10},
    {"id": "bo", "team": "north", "library": 0},
    {"id": "cy", "team": "south", "library": 10},
    {"id": "di", "team": "south", "library": 10},
]


# --- Lich's Mirror: the losses it replaces (614.1a) -----------------------------------------


@pytest.mark.rule("104.3e")
def test_104_3e_614_1a_lichs_mirror_replaces_an_effects_loss_of_the_game():
    """104.3e: an effect states that Bo loses the game; Bo's Lich's Mirror says "if you would
    lose the game, instead ..." (614.1a): he doesn't lose; his cards go into his library (its
    count unknown), he draws seven and his life total becomes 20. The Mirror went with the
    rest: the next such effect makes him lose."""
    s = v2(["ana", {"id": "bo", "library": 30}])
    s.do(lose("bo", 7))
    s.do(mirror("bo"))
    st = s.do({"do": "lose", "player": "bo", "source": "ana-door-to-nothingness"})
    assert st.why("bo") == ("playing", None, None)
    assert st.life("bo") == 20 and st.player("bo")["library"] is None
    assert applying(s) == set()  # 614.6: shuffled into the library, it applies no more
    st = s.do({"do": "lose", "player": "bo", "source": "ana-door-to-nothingness"})
    assert st.why("bo") == ("lost", "effect", "104.3e")
    assert st.why("ana") == ("won", "last-standing", "104.2a")


@pytest.mark.rule("608.2c")
def test_603_8_614_1a_608_2c_lichs_mirror_shuffles_transcendence_away_before_the_total_is_20():
    """Transcendence: "When you have 20 or more life, you lose the game" (a state trigger,
    603.8; the loss is 104.3e's). Bo gains to 25: it triggers and resolves; Lich's Mirror
    replaces the loss (614.1a): "shuffle ... all permanents you own into your library, then
    ... your life total becomes 20", in that order (608.2c). Transcendence is a permanent Bo
    owns (the record names no owner: its controller owns it), so it is gone before his total
    becomes 20: the loss of 5 (119.5) triggers nothing, nothing triggers at 20, and Bo plays
    on; his next loss of life triggers nothing either."""
    s = v2(["ana", "bo"])
    s.do({"do": "set_life", "player": "bo", "to": 10})
    s.do(card("tr", "Transcendence", "bo"))
    s.do(mirror("bo"))
    st = s.do(gain("bo", 15))
    assert st.why("bo") == ("playing", None, None)
    assert st.life("bo") == 20
    assert st["triggered"]["tr"] == 1  # 20 or more once; the loss of 5 came after it left
    assert applying(s) == set()
    st = s.do(lose("bo", 3))
    assert st.life("bo") == 17 and st["triggered"]["tr"] == 1


@pytest.mark.rule("603.8")
def test_603_8_104_3e_lichs_mirror_replaces_a_state_triggers_loss_only_once():
    """603.8, 104.3e: Bo's "when you have 20 or more life, you lose the game" is an `effect`
    (the record names no permanent for it, so the Mirror's shuffle leaves it). Bo gains to
    25: it triggers and resolves; Lich's Mirror replaces the loss (614.1a) and his total
    becomes 20; with 20 life the state trigger triggers again and resolves, and this time no
    Mirror: he loses (the card's ruling: the Mirror can't help a second time)."""
    s = v2(["ana", "bo"])
    s.do({"do": "set_life", "player": "bo", "to": 10})
    s.do(effect("doom", "lose_at_20_life", "bo"))
    s.do(mirror("bo"))
    st = s.do(gain("bo", 15))
    assert st.why("bo") == ("lost", "effect", "104.3e")
    assert st.life("bo") == 20
    assert st["triggered"]["doom"] == 2


@pytest.mark.rule("704.5c")
def test_704_5c_lichs_mirror_leaves_poison_counters_and_the_next_check_loses():
    """704.5c: ten poison counters; the Mirror replaces that loss but removes no poison
    counter, and it has gone into the library: the next check of state-based actions
    (704.3, at once) finds ten poison counters again, and Bo loses."""
    s = v2(["ana", "bo"])
    s.do(mirror("bo"))
    st = s.do(damage("bo", 10, source="ana-phyrexian", infect=True))
    assert st.why("bo") == ("lost", "poison", "704.5c")
    assert st.life("bo") == 20  # the Mirror's event happened first


@pytest.mark.rule("119.7")
def test_119_7_lichs_mirror_cant_raise_a_total_that_cant_rise():
    """704.5a with "you can't gain life" (119.7): the Mirror replaces the loss, but the life
    total can't become 20 (the ruling: it stays where it is), so the next check loses."""
    s = v2(["ana", "bo"])
    s.do(effect("curse", "cant_gain_life", "ana", affects="opponents"))
    s.do(mirror("bo"))
    st = s.do(damage("bo", 25, source="ana-fireball"))
    assert st.why("bo") == ("lost", "life", "704.5a")
    assert st.life("bo") == -5


@pytest.mark.rule("104.2b")
def test_104_2b_lichs_mirror_doesnt_replace_an_opponents_win():
    """104.2b: an effect says Ana wins the game. The game ends at once (104.1): Bo's loss is
    no event "if you would lose the game" can replace, just as "you can't lose the game"
    doesn't stop an opponent's win (only "your opponents can't win the game" does, 104.2).
    Bo loses; his Mirror isn't used."""
    s = v2(["ana", "bo"])
    s.do(mirror("bo"))
    st = s.do({"do": "win", "player": "ana", "source": "ana-approach"})
    assert st.why("ana") == ("won", "effect", "104.2b")
    assert st.why("bo") == ("lost", "opponent-won", "104.2b")
    assert st.life("bo") == 20 and st["over"]


@pytest.mark.rule("104.3h")
def test_104_3h_801_14_lichs_mirror_replaces_a_loss_from_a_win_under_limited_range():
    """104.3h, 801.14: with the limited range of influence option an effect that says Ana wins
    instead makes her opponents within her range lose the game: an effect's loss, which Bo's
    Mirror replaces (614.1a). Cy, whose loss nothing replaces, loses; Di, out of Ana's range,
    plays on; so does Ana (the game doesn't end)."""
    s = v2(["ana", "bo", "cy", "di", "ed"], variant="free-for-all",
           options={"range_of_influence": 1})  # fmt: skip
    s.do(lose("bo", 5))
    s.do(mirror("bo"))
    st = s.do({"do": "win", "player": "ana", "source": "ana-approach"})
    assert st.why("bo") == ("playing", None, None) and st.life("bo") == 20
    assert st.why("ed") == ("lost", "opponent-won", "801.14")
    assert st.why("cy") == ("playing", None, None)  # two seats away: out of range
    assert st.why("ana") == ("playing", None, None) and not st["over"]


@pytest.mark.rule("104.3f")
def test_104_3f_a_player_whose_loss_the_mirror_replaces_wins():
    """104.3f: a player who would both win and lose at once loses. Ana's loss is replaced by
    her Lich's Mirror (614.1a, 614.6: it never happens), so only the win is left: she wins."""
    s = v2(["ana", "bo"])
    s.do(mirror("ana"))
    st = s.do({"do": "together", "actions": [{"do": "win", "player": "ana"},
                                              {"do": "lose", "player": "ana"}]})  # fmt: skip
    assert st.why("ana") == ("won", "effect", "104.2b")
    assert st.why("bo") == ("lost", "opponent-won", "104.2b")


@pytest.mark.rule("104.3a")
def test_104_3a_a_concession_is_not_replaced_by_lichs_mirror():
    """104.3a: a player who concedes leaves the game at once and loses: no "would lose" event
    is left for the Mirror to replace."""
    s = v2(["ana", "bo"])
    s.do(mirror("bo"))
    st = s.do({"do": "concede", "player": "bo"})
    assert st.why("bo") == ("lost", "conceded", "104.3a")


@pytest.mark.rule("104.3k")
def test_104_3k_a_judges_game_loss_is_not_replaced_by_lichs_mirror():
    """104.3k, 100.6: a judge's game loss is a tournament penalty, given outside the game by
    the tournament's rules: no card's effect applies to it."""
    s = v2(["ana", "bo"])
    s.do(mirror("bo"))
    st = s.do({"do": "penalty", "player": "bo"})
    assert st.why("bo") == ("lost", "penalty", "104.3k")


@pytest.mark.rule("810.8a")
def test_810_8a_lichs_mirror_replaces_the_loss_of_its_controllers_team():
    """810.8a: a player's loss is their team's. Bo draws from his empty library (704.5b): his
    team would lose. Ana controls Lich's Mirror: the team doesn't lose; Ana does what the
    Mirror says (her total, which is the team's, becomes 20: 810.9c) and Bo nothing (the
    card's ruling for Two-Headed Giant)."""
    s = v2(THG, variant="two-headed-giant")
    s.do(mirror("ana"))
    st = s.do({"do": "draw", "player": "bo", "count": 1})
    assert st.why("ana") == ("playing", None, None) and st.why("bo") == ("playing", None, None)
    assert st.team("north")["life"] == 20
    assert st.player("ana")["library"] is None and st.player("bo")["library"] == 0
    st = s.do({"do": "lose", "player": "bo", "source": "cy-spell"})  # no Mirror left
    assert st.team("north")["status"] == "lost"


@pytest.mark.rule("810.8b")
def test_810_8b_a_teammates_concession_is_the_teams_whatever_the_mirror():
    """810.8b: Bo concedes; his team leaves and loses. Ana's Mirror can't replace a concession
    (104.3a), nor the team's loss that follows it."""
    s = v2(THG, variant="two-headed-giant")
    s.do(mirror("ana"))
    st = s.do({"do": "concede", "player": "bo"})
    assert st.team("north")["status"] == "lost"
    assert st.why("ana") == ("lost", "teammate", "810.8a")


@pytest.mark.rule("809.5b")
def test_809_5b_a_generals_lichs_mirror_replaces_their_loss_with_the_emperor():
    """809.5b: a team whose emperor loses, loses. A general who controls Lich's Mirror would
    lose the game: the Mirror replaces it (614.1a; as Platinum Angel stops it, 104.3)."""
    players = []
    for team in ("a", "b"):
        players += [
            {"id": f"{team}-g1", "team": team},
            {"id": f"{team}-emp", "team": team, "emperor": True},
            {"id": f"{team}-g2", "team": team},
        ]
    s = v2(players, variant="emperor")
    s.do(mirror("b-g1"))
    st = s.do(damage("b-emp", 20, source="a-emp-dragon"))
    assert st.why("b-emp") == ("lost", "life", "704.5a")
    assert st.why("b-g2") == ("lost", "emperor", "809.5b")
    assert st.why("b-g1") == ("playing", None, None) and st.life("b-g1") == 20


@pytest.mark.rule("104.3")
def test_104_3_platinum_angel_comes_first_and_the_mirror_stays():
    """104.3: a player who can't lose the game doesn't: no loss, nothing for the Mirror to
    replace; it stays for later."""
    s = v2(["ana", "bo"])
    s.do(card("angel", "Platinum Angel", "bo"))
    s.do(mirror("bo"))
    st = s.do(damage("bo", 25, source="ana-fireball"))
    assert st.why("bo") == ("playing", None, None) and st.life("bo") == -5
    assert applying(s) == {"angel", "mirror"}
    st = s.do({"do": "end", "id": "angel"})
    assert st.why("bo") == ("playing", None, None) and st.life("bo") == 20


# --- Celestial Convergence's omen counters in the state (122.1) -----------------------------


@pytest.mark.rule("122.1")
def test_122_1_the_omen_counters_are_in_the_version_2_state():
    """122.1: Celestial Convergence enters with seven omen counters; each of its controller's
    upkeeps removes one (503.1, 608.2). The version-2 state lists them by card (``omens``);
    a version-1 state has no such member, and a card that leaves takes its counters along."""
    assert "omens" not in Story(["ana", "bo"]).state()
    s = v2(["ana", "bo"])
    assert s.state()["omens"] == {}
    assert s.do(card("cc", "Celestial Convergence", "ana"))["omens"] == {"cc": 7}
    assert s.do(turn("ana"))["omens"] == {"cc": 6}
    assert s.do(turn("bo"))["omens"] == {"cc": 6}  # not bo's upkeep to count down
    s.do(card("cc2", "Celestial Convergence", "bo"))
    assert s.do(turn("ana"))["omens"] == {"cc": 5, "cc2": 7}
    assert s.do({"do": "end", "id": "cc"})["omens"] == {"cc2": 7}
    assert s.do({"do": "restart", "controller": "ana"})["omens"] == {}  # 727.1


@pytest.mark.rule("122.1")
def test_122_1_the_table_sends_the_omen_counters_as_a_change():
    """The table builds each state from the one before (``engine.after``) and sends what
    changed (``changes``): the omen counters are one whole member, as the turn is."""
    from lifeledger import record
    from lifeledger_table.decide import changes, engine

    game = engine.replay({"record": 2, "players": [{"id": "ana"}, {"id": "bo"}]}, [])
    before = engine.state_of(game)
    game.apply(record.parse_action(card("cc", "Celestial Convergence", "ana"), "0"))
    state, players, teams, _ = engine.after(game, before)
    assert state == engine.state_of(game) and state["omens"] == {"cc": 7}
    diff = changes.changes(before, state, players, teams)
    assert {"what": "omens", "from": {}, "to": {"cc": 7}} in diff
    game.apply(record.parse_action(turn("ana"), "1"))
    again, players, teams, _ = engine.after(game, state)
    assert again == engine.state_of(game)
    omens = [c for c in changes.changes(state, again, players, teams) if c["what"] == "omens"]
    assert omens == [{"what": "omens", "from": {"cc": 7}, "to": {"cc": 6}}]


# --- 104, 119 and 810 rules that no story named ---------------------------------------------


@pytest.mark.rule("104.4")
def test_104_4_a_game_is_a_draw_in_each_of_several_ways():
    """104.4: 104.4a (every player left loses at once), 104.4b (a loop of mandatory actions),
    104.4c (an effect says so): each is a draw for everyone in the game."""
    s = v2(["ana", "bo"])
    st = s.do({"do": "together", "actions": [damage("ana", 20, source="x"),
                                              damage("bo", 20, source="x")]})  # fmt: skip
    assert st.why("ana") == ("drew", "simultaneous-loss", "104.4a")
    s = v2(["ana", "bo"])
    s.do(card("bond", "Sanguine Bond", "ana"))
    s.do(card("blood", "Exquisite Blood", "ana"))
    s.do(card("angel", "Platinum Angel", "bo"))
    st = s.do(gain("ana", 1))
    assert st.why("bo") == ("drew", "loop", "104.4b")
    s = v2(["ana", "bo"])
    st = s.do({"do": "draw_game", "source": "spell"})
    assert st.why("ana") == ("drew", "effect", "104.4c") and st["over"]


@pytest.mark.rule("810.8")
def test_810_8_two_headed_giant_uses_the_normal_rules_for_winning_and_losing():
    """810.8: the normal rules of 104, team by team (810.8a): an effect's win (104.2b) is the
    team's; both teams losing at once is a draw (104.4a, 104.4d)."""
    s = v2(THG, variant="two-headed-giant")
    st = s.do({"do": "win", "player": "bo", "source": "bo-felidar"})
    assert st.team("north")["status"] == "won" and st.team("south")["status"] == "lost"
    s = v2(THG, variant="two-headed-giant")
    st = s.do({"do": "together", "actions": [damage("ana", 30, source="x"),
                                              damage("cy", 30, source="x")]})  # fmt: skip
    assert st.why("ana")[0] == "drew" and st.why("di")[2] == "104.4d"


@pytest.mark.rule("805.4")
def test_805_4_the_active_team_takes_the_turn_together():
    """805: shared team turns (Two-Headed Giant, 810.2): the team whose turn it is is the
    active team (805.4a), each of its players draws in its draw step (805.4b), and it has
    no first draw in the first turn of the game (810.6, 103.8b)."""
    s = v2(THG, variant="two-headed-giant")
    st = s.do(turn("cy"))
    assert st["turn"]["active"] == ["cy", "di"] and st["turn"]["team"] == "south"
    st = s.do(step("draw"))
    assert [p["library"] for p in st["players"]] == [10, 0, 10, 10]  # 810.6
    s.do(turn("ana"))
    st = s.do(step("draw"))  # 805.4b: both heads of north draw; bo can't: 704.5b
    assert st.player("ana")["library"] == 9
    assert st.why("bo") == ("lost", "empty-library", "704.5b")
    assert st.team("north")["status"] == "lost"  # 810.8a


@pytest.mark.rule("611.2a")
def test_611_2a_514_2_an_effect_lasts_as_long_as_it_says():
    """611.2a: a continuous effect from a resolving spell lasts as long as it says: "until end
    of turn" ends in the cleanup step (514.2); an effect that says no duration lasts until
    the record ends it."""
    s = v2(["ana", "bo"])
    s.do(turn("ana"))
    s.do(effect("grace", "cant_lose_game", "bo", until="end_of_turn"))
    s.do(effect("angel", "cant_lose_game", "ana"))
    assert applying(s) == {"grace", "angel"}
    s.do(step("cleanup"))
    assert applying(s) == {"angel"}
    s.do(turn("bo"))
    assert applying(s) == {"angel"}


# --- the guard: every subrule of 104, 119 and 810 is named by a test -------------------------

#: A rule number in a test's name (``test_810_10d_...``) or in its marker and docstring.
_IN_NAME = re.compile(r"(?<![0-9])(\d{3})_(\d+)([a-z]?)(?![0-9])")
_IN_TEXT = re.compile(r"(?<![0-9.])(\d{3})\.(\d+)([a-z]?)(?![0-9])")


def _named_by_tests() -> set[str]:
    named: set[str] = set()
    for path in TESTS.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
                continue
            text = " ".join(
                [ast.get_docstring(node) or "", *(ast.unparse(d) for d in node.decorator_list)]
            )
            for pattern, where in ((_IN_NAME, node.name), (_IN_TEXT, text)):
                named.update(f"{a}.{b}{c}" for a, b, c in pattern.findall(where))
    return named


@pytest.mark.rule("104")
def test_every_subrule_of_104_119_and_810_is_named_by_a_test():
    """The issue's "rule-coverage of 104, 119 and 810 complete": every numbered rule of 104,
    119 and 810 in the rules text (104.1 ... 104.6, 119.1a, 810.10d, ...) is named by at
    least one test: in its name (``test_810_10d_...``), its ``rule`` marker or its
    docstring."""
    if not RULES.exists():
        pytest.skip(f"the rules text is not beside the repository: {RULES}")
    text = RULES.read_text(encoding="utf-8")
    rules = re.findall(r"^((?:104|119|810)\.\d+[a-z]?)\.? ", text, re.MULTILINE)
    assert len(rules) > 70  # the text was read
    named = _named_by_tests()
    assert [r for r in rules if r not in named] == []


#: The rules issue 11 names ("tests naming every rule above as stories with the rules' own
#: numbers"); a rule is named by a test naming it or one of its subrules (805 by 805.4).
ISSUE_11_RULES = [
    "805",
    "810.2",
    "810.3",
    "810.6",
    "810.7",
    "810.10d",
    "904",
    "103.8a",
    "103.8b",
    "103.8c",
    "728",
    "801.2c",
    "725",
    "725.4",
    "726",
    "726.4",
    "731",
    "702.131c",
    "119.9",
    "119.10",
    "101.4",
    "603.3b",
    "603.2c",
    "704.3",
    "117.5",
    "616.1",
    "732.2a",
    "732.4",
    "104.4b",
    "104.4f",
    "611.2a",
    "514.2",
    "614.1a",
    "603.8",
    "104.3e",
]


@pytest.mark.rule("104.4b")
def test_every_rule_issue_11_names_is_named_by_a_test():
    """Issue 11's "Done means": each rule it names (turns, designations, the stack, loops,
    Lich's Mirror) is named by a test, in its name, marker or docstring."""
    named = _named_by_tests()
    named |= {n.split(".")[0] for n in named}  # 725.4 names 725
    named |= {n.rstrip("abcdefghijk") for n in named}  # 810.10d names 810.10
    assert [r for r in ISSUE_11_RULES if r not in named] == []


# --- Two Lich's Mirrors: which replaces the loss is the affected player's choice (616.1) -----


def choose_mirrors(player: str, *ids: str) -> dict[str, Any]:
    return {"do": "choose", "player": player, "replacements": list(ids)}


@pytest.mark.rule("616.1")
def test_616_1_the_player_states_which_of_two_lichs_mirrors_replaces_their_loss():
    """Bo controls two Lich's Mirrors; an effect says he loses the game (104.3e). Either would
    replace the loss (614.1a): he chooses one (616.1). Unstated, the engine doesn't guess: the
    action is malformed and names the choice; stated, the one he listed first applies, and
    the other, a permanent he owns too, goes into his library with it: the next loss is his."""
    s = v2(["ana", {"id": "bo", "library": 30}])
    s.do(mirror("bo", "m1"))
    s.do(mirror("bo", "m2"))
    game = record.replay(s.document()).game
    assert [(c.player, c.choice, c.ids) for c in game.open_choices()] == [
        ("bo", "replacements", ("m1", "m2"))
    ]
    loss = {"do": "lose", "player": "bo", "source": "ana-door-to-nothingness"}
    err = s.malformed(loss)
    assert isinstance(err, ChoiceNeeded) and err.rule == "616.1"
    assert (err.player, err.choice, err.options) == ("bo", "replacements", ("m1", "m2"))
    s.do(choose_mirrors("bo", "m2", "m1"))
    st = s.do(loss)
    assert st.why("bo") == ("playing", None, None) and st.life("bo") == 20
    assert applying(s) == set()
    st = s.do(loss)
    assert st.why("bo") == ("lost", "effect", "104.3e")


@pytest.mark.rule("616.1")
def test_616_1_in_two_headed_giant_the_first_seated_head_chooses_for_the_team():
    """810.8a: the team's loss is one event; a Mirror on each head could replace it. The
    first seated head still in the game chooses (616.1): Ana lists Bo's Mirror first, so Bo
    does what it says and Ana's stays. The team's life total becomes 20 (810.9c)."""
    s = v2(THG, variant="two-headed-giant")
    s.do(mirror("ana", "ana-mirror"))
    s.do(mirror("bo", "bo-mirror"))
    hit = {"do": "damage", "to": "bo", "amount": 30, "source": "cy-dragon"}
    err = s.malformed(hit)
    assert isinstance(err, ChoiceNeeded) and err.player == "ana"
    assert set(err.options) == {"ana-mirror", "bo-mirror"}
    s.do(choose_mirrors("ana", "bo-mirror", "ana-mirror"))
    st = s.do(hit)
    assert st.team("north")["status"] == "playing" and st.team("north")["life"] == 20
    assert applying(s) == {"ana-mirror"}
    assert st.player("bo")["library"] is None and st.player("ana")["library"] == 10


@pytest.mark.rule("616.1")
def test_616_1_a_loss_needing_the_choice_changes_nothing():
    """The choice is needed while state-based actions are checked (704.3), after the damage
    was dealt: the action is malformed and nothing of it stays (the damage neither)."""
    from lifeledger.record import parse_action
    from lifeledger.state import state_dict

    s = v2(["ana", "bo"])
    s.do(mirror("bo", "m1"))
    s.do(mirror("bo", "m2"))
    game = record.replay(s.document()).game
    before = state_dict(game, [])
    with pytest.raises(ChoiceNeeded):
        game.apply(parse_action({"do": "damage", "to": "bo", "amount": 25, "source": "x"}))
    assert state_dict(game, []) == before


@pytest.mark.rule("616.1")
def test_616_1_a_statement_on_one_event_leaves_the_order_on_another_standing():
    """Bo orders his Mirrors, and later the Remedy and the doubler on his gains: the second
    statement puts its ids first and keeps the first's after them, so neither choice opens
    again."""
    s = v2(["ana", "bo"])
    s.do(mirror("bo", "m1"))
    s.do(mirror("bo", "m2"))
    s.do(card("rhox", "Rhox Faithmender", "bo"))
    s.do(card("remedy", "Tainted Remedy", "ana"))
    s.do(choose_mirrors("bo", "m2", "m1"))
    s.do(choose_mirrors("bo", "remedy", "rhox"))
    assert record.replay(s.document()).game.open_choices() == ()
    assert s.do(gain("bo", 3)).life("bo") == 17

"""Rule stories closing issue 28, items 1, 2, 3 and 7: exact at the edges.

- 801.7: the monarch's and the initiative's combat-damage triggers (725.2, 726.2) are the hit
  player's, and trigger only on an event entirely within that player's range of influence;
- 614.1a, 608.2c: Lich's Mirror shuffles every permanent its controller owns into their
  library before their life total becomes 20 (the record names no owner: a card's controller
  owns it);
- 103.1b, 904.6: a restart with no controller leaves the archenemy to take the first turn,
  and a hero's first turn is refused by 103.1b, not 727.1a;
- the timeline's words: a ``choose`` of replacement order says the order and cites 616.1, an
  instant is cast (608.2), not entering, and one player "loses" the game.

Each story is a short game told through the record (``docs/record-format.md``). Rule text:
../shared/rules/life-and-game-end.txt and ../shared/rules/comprehensive-rules.txt.
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import record
from lifeledger.actions import Choose, Lose, StartCard
from lifeledger.language import language
from lifeledger.timeline import describe
from stories import Story, card, damage, effect, gain, lose, step, turn, v2

ITALIAN = language("it")


def applying(s: Story) -> set[str]:
    """The ids of the effects (cards) that apply after the story's actions."""
    return {e.id for e in record.replay(s.document()).game.effects()}


def notes(s: Story) -> list[tuple[str, str]]:
    """The notes (rule, English text) of the story's last action."""
    return [(n.rule, str(n.text)) for n in record.replay(s.document()).game.notes]


def ranged(ana: int, cy: int) -> Story:
    """Five players with the limited range of influence option: Cy is two seats from Ana
    (801.2: measured in seats), Ana's range is ``ana`` and Cy's ``cy`` (801.2a)."""
    return v2(
        [{"id": "ana", "range": ana}, "bo", {"id": "cy", "range": cy}, "di", "ed"],
        variant="free-for-all",
        options={"range_of_influence": 1},
    )


def combat(to: str, controller: str, amount: int = 3) -> dict[str, Any]:
    return damage(to, amount, source=f"{controller}-bear", combat=True, controller=controller)


# --- 801.7: the designations' triggers and the range of influence ------------------------


@pytest.mark.rule("801.7")
def test_801_7_725_2_cy_stays_the_monarch_when_ana_is_outside_cys_range():
    """Ana (range 2) attacks Cy, two seats away, and deals combat damage to Cy, the monarch.
    The monarch's trigger is Cy's (725.2: controlled by the monarch, no source), and Cy's
    range is 1: Ana's creature is outside it (801.2d), so the event doesn't happen entirely
    within its controller's range, and the ability doesn't trigger (801.7). Cy stays the
    monarch; the damage itself is dealt (801.2: Ana's range covers it)."""
    s = ranged(ana=2, cy=1)
    s.do({"do": "become_monarch", "player": "cy"})
    s.do(turn("ana"))
    s.do(step("main"))
    st = s.do(combat("cy", "ana"))
    assert st.life("cy") == 17
    assert st["designations"]["monarch"] == "cy"
    assert (
        "801.7",
        "cy's monarch trigger doesn't trigger: ana's creature is outside cy's range of influence",
    ) in notes(s)


@pytest.mark.rule("801.7")
def test_801_7_726_2_cy_keeps_the_initiative_when_ana_is_outside_cys_range():
    """726.2: "whenever one or more creatures a player controls deal combat damage to the
    player who has the initiative, the controller of those creatures takes the initiative":
    Cy's trigger too, and the same range decides it (801.7): Cy keeps the initiative."""
    s = ranged(ana=2, cy=1)
    s.do({"do": "take_initiative", "player": "cy"})
    s.do(turn("ana"))
    s.do(step("main"))
    st = s.do(combat("cy", "ana"))
    assert st["designations"]["initiative"] == "cy"


@pytest.mark.rule("801.2d")
def test_801_2d_725_2_within_the_monarchs_range_the_attacker_becomes_the_monarch():
    """With Cy's range 2, Ana's creature is within it (801.2d): the trigger triggers and
    resolves (725.2, 726.2), and Ana becomes the monarch and takes the initiative: the range
    that decides whether they trigger is the holder's, the trigger's controller (801.7)."""
    s = ranged(ana=2, cy=2)
    s.do({"do": "become_monarch", "player": "cy"})
    s.do({"do": "take_initiative", "player": "cy"})
    s.do(turn("ana"))
    s.do(step("main"))
    st = s.do(combat("cy", "ana"))
    assert st["designations"]["monarch"] == "ana"
    assert st["designations"]["initiative"] == "ana"


@pytest.mark.rule("801.2c")
def test_801_2c_801_7_the_range_that_decides_is_the_one_determined_as_the_turn_began():
    """801.2c: ranges are determined as each turn begins. Bo leaves the game during Ana's
    turn: Cy is one seat from Ana now, but the turn's ranges stand, so Ana's creature is
    still outside Cy's range of 1: Cy stays the monarch. The next turn determines them
    again: Ana, next to Cy, then takes the monarchy with her creature."""
    s = ranged(ana=2, cy=1)
    s.do({"do": "become_monarch", "player": "cy"})
    s.do(turn("ana"))
    s.do({"do": "concede", "player": "bo"})
    s.do(step("main"))
    st = s.do(combat("cy", "ana"))
    assert st["designations"]["monarch"] == "cy"
    s.do(turn("cy"))
    s.do(turn("di"))
    s.do(turn("ed"))
    s.do(turn("ana"))
    s.do(step("main"))
    st = s.do(combat("cy", "ana"))
    assert st["designations"]["monarch"] == "ana"


@pytest.mark.rule("725.2")
def test_725_2_without_limited_range_combat_damage_passes_the_monarch_as_before():
    """Without the limited range of influence option every player is within every range
    (801.2 doesn't apply): Ana's creature makes her the monarch (725.2)."""
    s = v2(["ana", "bo", "cy"], variant="free-for-all")
    s.do({"do": "become_monarch", "player": "cy"})
    s.do(turn("ana"))
    s.do(step("main"))
    assert s.do(combat("cy", "ana"))["designations"]["monarch"] == "ana"


# --- 614.1a, 608.2c: Lich's Mirror shuffles all permanents its controller owns -----------


@pytest.mark.rule("614.1a")
def test_614_1a_608_2c_bos_boon_reflection_goes_with_the_mirror_before_the_total_is_20():
    """Bo controls Boon Reflection ("if you would gain life, you gain twice that much") and
    Lich's Mirror; he falls to -3 life (704.5a). The Mirror replaces the loss (614.1a):
    "shuffle ... all permanents you own into your library, then draw seven cards and your
    life total becomes 20", in that order (608.2c). Boon Reflection is a permanent Bo owns
    (the record names no owner: its controller owns it), so it is gone before his total
    becomes 20: the gain of 23 isn't doubled (20, not 43), nor his next gain (21, not 45)."""
    s = v2(["ana", "bo"])
    s.do(card("boon", "Boon Reflection", "bo"))
    s.do(card("mirror", "Lich's Mirror", "bo"))
    st = s.do(lose("bo", 23))
    assert st.why("bo") == ("playing", None, None)
    assert st.life("bo") == 20
    assert applying(s) == set()
    assert (
        "614.1a",
        "the permanents bo owns go into their library with mirror: boon",
    ) in notes(s)
    assert s.do(gain("bo", 1)).life("bo") == 21


@pytest.mark.rule("614.1a")
def test_614_1a_an_opponents_and_a_teammates_permanents_stay():
    """Two-Headed Giant: Ana's Lich's Mirror replaces her team's loss (810.8a). "All
    permanents you own" are Ana's: Bo's Rhox Faithmender stays and doubles the team's gain
    to 20 (810.9c: Ana's gain of 20 - (-2) = 22 is hers, and Bo's doubler reaches only Bo,
    so it stays 20), and Cy's Exquisite Blood stays too. Ana's own Boon Reflection goes."""
    s = v2(
        [
            {"id": "ana", "team": "north"},
            {"id": "bo", "team": "north"},
            {"id": "cy", "team": "south"},
            {"id": "di", "team": "south"},
        ],
        variant="two-headed-giant",
    )
    s.do(card("rhox", "Rhox Faithmender", "bo"))
    s.do(card("boon", "Boon Reflection", "ana"))
    s.do(card("blood", "Exquisite Blood", "cy"))
    s.do(card("mirror", "Lich's Mirror", "ana"))
    st = s.do(damage("bo", 32, source="cy-dragon"))
    assert st.team("north")["status"] == "playing"
    assert st.team("north")["life"] == 20
    assert applying(s) == {"rhox", "blood"}


@pytest.mark.rule("608.2")
def test_608_2_614_1a_an_instant_and_an_effect_are_no_permanents_the_mirror_shuffles():
    """Angel's Grace is an instant: its effects are a resolved spell's (608.2), not a
    permanent's, and stay when Ana's Mirror (an ``effect`` of its kind that replaces Bo's
    loss too) shuffles Ana's permanents away; an ``effect`` names no permanent and stays."""
    s = v2(["ana", "bo"])
    s.do(card("grace", "Angel's Grace", "ana"))
    s.do(effect("hymn", "cant_gain_life", "ana"))
    s.do(card("boon", "Boon Reflection", "ana"))
    s.do(effect("mirror", "losing_replaced", "ana", affects=["bo"]))
    st = s.do(lose("bo", 20))
    assert st.why("bo") == ("playing", None, None) and st.life("bo") == 20
    assert applying(s) == {"grace", "hymn"}  # the Boon Reflection went, and the Mirror


# --- 103.1b, 904.6: a restart with no controller in Archenemy ----------------------------


@pytest.mark.rule("103.1b")
def test_103_1b_904_6_after_a_restart_with_no_controller_the_archenemy_goes_first():
    """727.1a makes a restart's controller the starting player; a restart with none follows
    rule 103 unchanged: in Archenemy the archenemy takes the first turn (103.1b, 904.6). A
    hero's first turn is refused by 103.1b, which names the archenemy here; 727.1a names no
    one. A restart Hana controls is refused by 727.1a, as before (example 68)."""
    s = v2(
        [{"id": "eve", "archenemy": True}, "hana", "ivo"],
        variant="archenemy",
    )
    s.do(turn("eve"))
    s.do({"do": "restart", "source": "some-effect"})
    s.do(turn("hana"))
    assert s.state().refused_rules() == [("2", "103.1b")]
    st = s.do(turn("eve"))
    assert st["game"] == 2 and st["turn"]["active"] == ["eve"]
    s.do({"do": "restart", "controller": "hana", "source": "karn-liberated"})
    s.do(turn("eve"))
    assert s.state().refused_rules() == [("2", "103.1b"), ("5", "727.1a")]


# --- the timeline's words ----------------------------------------------------------------


@pytest.mark.rule("616.1")
def test_616_1_a_choose_of_replacement_order_says_the_order_and_cites_616_1():
    """A ``choose`` states the order of replacement effects (616.1): the timeline says it,
    and cites the rule of each part it states (603.3b, 603.3d, 616.1)."""
    one = Choose("bo", replacements=("m2", "m1"))
    assert describe(one) == (
        "bo chooses: applies the replacement effects m2, m1 in that order (616.1)"
    )
    assert ITALIAN.text(describe(one)) == (
        "bo sceglie: applica gli effetti di sostituzione m2, m1 in quest'ordine (616.1)"
    )
    first = Choose("bo", replacements=("remedy",))
    assert describe(first) == "bo chooses: applies the replacement effect remedy first (616.1)"
    every = Choose("bo", order=("a", "b"), targets=(("bond", ("cy",)),), replacements=("m",))
    assert describe(every) == (
        "bo chooses: puts a, b on the stack in that order; targets cy with bond;"
        " applies the replacement effect m first (603.3b, 603.3d, 616.1)"
    )
    assert describe(Choose("bo")) == "bo chooses nothing"
    assert ITALIAN.text(describe(Choose("bo"))) == "bo non sceglie niente"


@pytest.mark.rule("608.2")
def test_608_2_angels_grace_is_cast_and_resolves_it_doesnt_enter():
    """Angel's Grace is an instant: a spell that resolves (608.2), which enters no
    battlefield; a permanent's card still enters under its controller's control."""
    grace = StartCard("grace", "Angel's Grace", "bo")
    assert describe(grace) == "bo casts Angel's Grace (grace), which resolves"
    assert ITALIAN.text(describe(grace)) == "bo lancia Angel's Grace (grace), che si risolve"
    mirror = StartCard("mirror", "Lich's Mirror", "bo")
    assert describe(mirror) == "Lich's Mirror (mirror) enters under bo's control"


@pytest.mark.rule("104.3e")
def test_104_3e_one_player_loses_the_game_two_players_lose_it():
    """104.3e: an effect says a player loses the game: the verb agrees with the players."""
    assert describe(Lose(("di",))) == "di loses the game, says an effect"
    assert describe(Lose(("cy", "di"), single=False)) == "cy, di lose the game, says an effect"
    assert ITALIAN.text(describe(Lose(("di",)))) == "di perde la partita, per un effetto"


@pytest.mark.rule("608.2")
def test_608_2_each_opponent_loses_1_life_agrees_with_the_players():
    """Marauding Blight-Priest: "each opponent loses 1 life": the timeline says that one
    opponent "loses" it and several "each lose" it."""
    s = v2(["ana", "bo", "cy"], variant="free-for-all")
    s.do(card("priest", "Marauding Blight-Priest", "bo"))
    s.do(gain("bo", 1))
    assert ("608.2", "priest (bo's, 1) resolves: ana, cy each lose 1 life") in notes(s)

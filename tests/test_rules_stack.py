"""Rule stories for version 2 of the record: the card catalogue's triggered abilities on a stack
(117.5, 119.9, 119.10, 603, 608, 800.4a) and loops decided by the engine (104.4b, 104.4f,
732.2a, 732.4), each a short game told through the record (``docs/record-format.md``).
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import Game, Seat, record
from lifeledger.actions import GainLife
from lifeledger.errors import ChoiceNeeded, MalformedError
from lifeledger.record import parse_action
from lifeledger.state import state_dict
from stories import Story, card, damage, effect, gain, lose, v2


def choose(player: str, **members: Any) -> dict[str, Any]:
    return {"do": "choose", "player": player, **members}


def together(*actions: dict[str, Any]) -> dict[str, Any]:
    return {"do": "together", "actions": list(actions)}


def notes_of(story: Story) -> list[str]:
    game = record.replay(story.document()).game
    return [f"{n.rule} {n.text}" for n in game.notes]


class TestTriggersOnTheStack:
    def test_603_2_and_608_2_sanguine_bond_makes_the_opponent_lose_that_much(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        st = s.do(gain("ana", 4))
        assert st.lives() == {"ana": 24, "bo": 16}
        assert st["triggered"] == {"bond": 1}

    def test_119_9_gaining_0_life_triggers_nothing(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        st = s.do(gain("ana", 0))
        assert st.lives() == {"ana": 20, "bo": 20}
        assert st["triggered"] == {"bond": 0}

    def test_119_10_and_120_3_simultaneous_combat_damage_is_one_life_loss_event(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("blood", "Exquisite Blood", "ana"))
        st = s.do(
            together(
                damage("bo", 2, source="bear", combat=True),
                damage("bo", 3, source="ogre", combat=True),
            )
        )
        assert st["triggered"] == {"blood": 1}  # once per opponent, not per creature
        assert st.lives() == {"ana": 25, "bo": 15}

    def test_603_2c_each_opponent_losing_life_triggers_exquisite_blood_for_each(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("blood", "Exquisite Blood", "ana"))
        st = s.do(together({"do": "lose_life", "player": "bo", "amount": 2},
                           {"do": "lose_life", "player": "cy", "amount": 2}))  # fmt: skip
        assert st["triggered"] == {"blood": 2}
        assert st.life("ana") == 24

    def test_702_15e_each_lifelink_source_is_its_own_life_gain_event(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        st = s.do(
            together(
                damage("bo", 2, source="a", combat=True, lifelink=True, controller="ana"),
                damage("bo", 3, source="b", combat=True, lifelink=True, controller="ana"),
            )
        )
        assert st["triggered"] == {"bond": 2}
        assert st.lives() == {"ana": 25, "bo": 10}

    def test_101_4_apnap_the_active_players_triggers_go_on_the_stack_first(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("a-bond", "Sanguine Bond", "ana"))
        s.do(card("b-bond", "Sanguine Bond", "bo"))
        s.do({"do": "turn", "player": "bo"})
        s.do(together(gain("ana", 2), gain("bo", 3)))
        put = [n for n in notes_of(s) if n.startswith("603.3b")]
        assert put[0].startswith("603.3b b-bond") and put[1].startswith("603.3b a-bond")
        resolved = [n for n in notes_of(s) if n.startswith("608.2")]
        assert resolved[0].startswith("608.2 a-bond")  # the nonactive player's resolves first

    def test_603_3b_the_order_of_a_players_simultaneous_triggers_is_stated(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("priest", "Marauding Blight-Priest", "ana"))
        err = s.malformed(gain("ana", 2))
        assert "603.3b" in str(err) and err.member == "do"
        s.do(choose("ana", order=["bond", "priest"]))
        st = s.do(gain("ana", 2))
        assert st.life("bo") == 17
        resolved = [n for n in notes_of(s) if n.startswith("608.2")]
        assert resolved[0].startswith("608.2 priest")  # put on last, resolves first

    def test_603_3d_a_target_among_several_opponents_is_stated(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        err = s.malformed(gain("ana", 2))
        assert "603.3d" in str(err)
        s.do(choose("ana", targets={"bond": ["cy", "bo"]}))
        st = s.do(gain("ana", 2))
        assert st.lives() == {"ana": 22, "bo": 20, "cy": 18}
        s.do({"do": "concede", "player": "cy"})
        st = s.do(gain("ana", 2))  # the first legal player of the stated preference
        assert st.life("bo") == 18

    def test_704_3_and_117_5_state_based_actions_between_resolutions(self) -> None:
        s = v2(["ana", "bo"])
        s.do({"do": "set_life", "player": "bo", "to": 3})
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        st = s.do(gain("ana", 5))
        assert st.why("bo") == ("lost", "life", "704.5a")
        assert st.life("ana") == 25  # Exquisite Blood's trigger never resolved: the game ended
        assert st["triggered"] == {"bond": 1, "blood": 1}

    def test_800_4a_a_departed_players_triggers_leave_with_them(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("blood", "Exquisite Blood", "bo"))
        s.do({"do": "set_life", "player": "bo", "to": 1})
        st = s.do(together(damage("bo", 1), damage("cy", 4)))
        assert st.player("bo")["status"] == "lost"
        assert st.life("cy") == 16 and "800.4a" in " ".join(notes_of(s))

    def test_version_1_has_no_stack(self) -> None:
        s = Story(["ana", "bo"])
        assert s.malformed(card("bond", "Sanguine Bond", "ana")).member == "name"
        assert s.malformed(choose("ana")).member == "do"


class TestLoops:
    def bond_and_blood(self, *players: Any, **kw: Any) -> Story:
        s = v2(list(players), **kw)
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        return s

    def test_104_3b_the_loop_ends_when_the_opponent_has_0_or_less_life(self) -> None:
        s = self.bond_and_blood("ana", "bo")
        st = s.do(gain("ana", 1))
        assert st.why("bo") == ("lost", "life", "704.5a")
        assert st.life("bo") == 0 and st.life("ana") == 40
        assert st["triggered"] == {"bond": 20, "blood": 20}

    def test_732_2a_huge_totals_are_computed_not_simulated(self) -> None:
        s = self.bond_and_blood("ana", "bo", options={"starting_life": 10**100})
        st = s.do(gain("ana", 7))
        cycles = -(-(10**100) // 7)  # bond resolutions until bo has 0 or less
        assert st.life("bo") == 10**100 - 7 * cycles
        assert st.life("ana") == 10**100 + 7 + 7 * (cycles - 1)
        assert st["triggered"] == {"bond": cycles, "blood": cycles}
        assert st.why("bo") == ("lost", "life", "704.5a")

    def test_104_4b_and_732_4_against_platinum_angel_the_loop_is_a_draw(self) -> None:
        s = self.bond_and_blood("ana", "bo")
        s.do(card("angel", "Platinum Angel", "bo"))
        st = s.do(gain("ana", 1))
        assert st.why("ana") == ("drew", "loop", "104.4b")
        assert st.why("bo") == ("drew", "loop", "104.4b")
        assert st["over"] is True

    def test_104_4b_a_doubled_loop_against_platinum_angel_is_a_draw_too(self) -> None:
        s = self.bond_and_blood("ana", "bo")
        s.do(card("angel", "Platinum Angel", "bo"))
        s.do(card("rhox", "Rhox Faithmender", "ana"))
        st = s.do(gain("ana", 1))
        assert st.statuses() == {"ana": "drew", "bo": "drew"}

    def test_104_4b_you_dont_lose_for_0_or_less_life_is_a_draw(self) -> None:
        s = self.bond_and_blood("ana", "bo")
        s.do(card("unlife", "Phyrexian Unlife", "bo"))
        st = s.do(gain("ana", 1))
        assert st.why("bo") == ("drew", "loop", "104.4b")

    def test_a_doubled_loop_against_an_opponent_who_can_lose_ends(self) -> None:
        s = self.bond_and_blood("ana", "bo")
        s.do(card("rhox", "Rhox Faithmender", "ana"))
        st = s.do(gain("ana", 1))
        assert st.why("bo") == ("lost", "life", "704.5a")

    def test_104_4f_with_limited_range_the_draw_is_for_those_in_range(self) -> None:
        s = v2(
            ["ana", "bo", "cy", "di", "ed"],
            variant="free-for-all",
            options={"range_of_influence": 1},
        )
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        s.do(card("angel", "Platinum Angel", "bo"))
        s.do(choose("ana", targets={"bond": "bo"}))
        st = s.do(gain("ana", 1))
        assert st.statuses() == {
            "ana": "drew", "bo": "drew", "cy": "playing", "di": "playing", "ed": "drew"
        }  # fmt: skip
        assert st.why("ana")[2] == "801.16"

    def test_104_4b_a_growing_stack_against_players_who_cant_lose_is_a_draw(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("priest", "Marauding Blight-Priest", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        s.do(card("a1", "Platinum Angel", "bo"))
        s.do(card("a2", "Platinum Angel", "cy"))
        st = s.do(gain("ana", 1))
        assert st.statuses() == {"ana": "drew", "bo": "drew", "cy": "drew"}

    def test_blight_priest_and_blood_drain_the_table(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("priest", "Marauding Blight-Priest", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        st = s.do(gain("ana", 1))
        assert st.statuses() == {"ana": "won", "bo": "lost", "cy": "lost"}


def test_the_api_and_the_record_agree() -> None:
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")], version=2)
    game.card("bond", "Sanguine Bond", "ana")
    game.choose("ana", targets={"bond": "cy"})
    game.gain_life("ana", 3)
    assert game.life_of("cy") == 17
    again = record.loads(record.dumps(game)).game
    assert [p.life for p in again.players] == [p.life for p in game.players]
    with pytest.raises(MalformedError):
        game.choose("ana", order=["nothing"])


class TestShortcuts:
    def test_732_2a_an_optional_loop_is_a_shortcut_with_a_stated_count(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        st = s.do({"do": "repeat", "times": 3, "actions": [gain("ana", 2)]})
        assert st.lives() == {"ana": 26, "bo": 14}
        assert st["triggered"] == {"bond": 3}

    def test_732_2a_the_shortcut_stops_when_the_game_ends(self) -> None:
        s = v2(["ana", "bo"])
        st = s.do({"do": "repeat", "times": 1000, "actions": [damage("bo", 3)]})
        assert st.why("bo") == ("lost", "life", "704.5a") and st.life("bo") == -1

    def test_732_2a_a_shortcut_with_an_illegal_action_is_refused_whole(self) -> None:
        s = v2(["ana", "bo"])
        s.do(
            {
                "do": "repeat",
                "times": 2,
                "actions": [{"do": "pay_life", "player": "bo", "amount": 15}],
            }
        )
        assert s.refused_last() is not None
        assert s.state().life("bo") == 20

    def test_a_shortcut_is_version_2_and_bounded(self) -> None:
        assert (
            Story(["ana", "bo"])
            .malformed({"do": "repeat", "times": 2, "actions": [gain("ana", 1)]})
            .member
            == "do"
        )
        s = v2(["ana", "bo"])
        assert (
            s.malformed({"do": "repeat", "times": 0, "actions": [gain("ana", 1)]}).member == "times"
        )
        assert s.malformed(
            {"do": "repeat", "times": 2, "actions": [{"do": "turn", "player": "ana"}]}
        )


class TestReplacementOrder:
    def remedy_and_rhox(self) -> Story:
        s = v2(["ana", "bo"])
        s.do(card("rhox", "Rhox Faithmender", "ana"))
        s.do(card("remedy", "Tainted Remedy", "bo"))
        return s

    def test_616_1_version_1_applies_the_remedy_first_as_it_cannot_state_the_order(self) -> None:
        s = Story(["ana", "bo"])
        s.do(effect("rhox", "gain_life_times", "ana", factor=2))
        s.do(effect("remedy", "gain_becomes_loss", "bo", affects="opponents"))
        assert s.do(gain("ana", 3)).life("ana") == 17

    def test_616_1_an_unstated_order_is_malformed_and_names_the_choice(self) -> None:
        s = self.remedy_and_rhox()
        err = s.malformed(gain("ana", 3))
        assert isinstance(err, ChoiceNeeded) and err.member == "do"
        assert (err.player, err.choice, err.rule) == ("ana", "replacements", "616.1")
        assert set(err.options) == {"rhox", "remedy"}
        game = record.replay(s.document()).game
        assert [(c.player, c.choice) for c in game.open_choices()] == [("ana", "replacements")]
        assert s.state().life("ana") == 20  # nothing of it happened

    def test_616_1_a_doubler_that_enters_opens_the_order_again(self) -> None:
        s = self.remedy_and_rhox()
        s.do(choose("ana", replacements=["remedy", "rhox"]))
        s.do(card("boon", "Boon Reflection", "ana"))
        assert isinstance(s.malformed(gain("ana", 3)), ChoiceNeeded)
        s.do(choose("ana", replacements=["rhox", "boon", "remedy"]))
        assert s.do(gain("ana", 3)).life("ana") == 8  # 3, 6, 12: a loss of 12

    def test_616_1_of_two_remedies_the_first_listed_applies(self) -> None:
        s = self.remedy_and_rhox()
        s.do(card("remedy2", "Tainted Remedy", "bo"))
        s.do(choose("ana", replacements=["rhox", "remedy2", "remedy"]))
        assert s.do(gain("ana", 3)).life("ana") == 14
        assert "616.1 remedy2: ana loses 6 life instead of gaining it" in notes_of(s)

    def test_616_1_an_order_listing_an_id_twice_is_malformed(self) -> None:
        s = self.remedy_and_rhox()
        err = s.malformed(choose("ana", replacements=["rhox", "remedy", "rhox"]))
        assert err.member == "replacements" and "twice" in str(err)

    def test_616_1_only_doublers_need_no_order(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("rhox", "Rhox Faithmender", "ana"))
        s.do(card("boon", "Boon Reflection", "ana"))
        assert s.do(gain("ana", 3)).life("ana") == 32

    def test_616_1_a_choice_needed_half_way_through_damage_changes_nothing(self) -> None:
        """Bo is dealt lifelink damage by Ana's creature: Bo's loss triggers Exquisite Blood,
        then Ana's gain needs her order of Rhox Faithmender and Bo's Tainted Remedy. The
        action is malformed, and nothing of it stays: not the loss, not the trigger."""
        s = self.remedy_and_rhox()
        s.do(card("blood", "Exquisite Blood", "ana"))
        game = record.replay(s.document()).game
        before = state_dict(game, [])
        hit = parse_action(damage("bo", 3, source="vampire", lifelink=True, controller="ana"))
        with pytest.raises(ChoiceNeeded):
            game.apply(hit)
        assert state_dict(game, []) == before
        game.apply(parse_action(choose("ana", replacements=["remedy", "rhox"])))
        game.apply(parse_action(lose("bo", 1)))  # no trigger of the failed action is left
        assert state_dict(game, [])["triggered"] == {"blood": 1}
        assert [p.life for p in game.players] == [19, 19]  # Blood's 1 became a loss

    def test_616_1_the_affected_player_states_the_doubler_first(self) -> None:
        s = self.remedy_and_rhox()
        s.do(choose("ana", replacements=["rhox", "remedy"]))
        assert s.do(gain("ana", 3)).life("ana") == 14

    def test_616_1_the_affected_player_states_the_remedy_first(self) -> None:
        s = self.remedy_and_rhox()
        s.do(choose("ana", replacements=["remedy", "rhox"]))
        assert s.do(gain("ana", 3)).life("ana") == 17


class TestReplacementsOfVersion2:
    def test_614_1a_and_120_4d_worship_leaves_1_life(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("worship", "Worship", "bo"))
        st = s.do(damage("bo", 25, source="dragon"))
        assert st.life("bo") == 1 and st.player("bo")["status"] == "playing"
        st = s.do({"do": "lose_life", "player": "bo", "amount": 1})  # not damage: no floor
        assert st.why("bo") == ("lost", "life", "704.5a")

    def test_worship_doesnt_replace_sanguine_bonds_loss_of_life(self) -> None:
        # Sanguine Bond's life loss is no damage: Worship doesn't apply, Bo loses.
        s = v2(["ana", "bo"])
        s.do(card("worship", "Worship", "bo"))
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        assert s.do(gain("ana", 1)).why("bo") == ("lost", "life", "704.5a")

    def test_503_1_near_death_experience_wins_with_exactly_1_life(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("nde", "Near-Death Experience", "ana"))
        s.do({"do": "set_life", "player": "ana", "to": 2})
        s.do({"do": "turn", "player": "ana"})
        assert s.state()["over"] is False
        s.do({"do": "lose_life", "player": "ana", "amount": 1})
        st = s.do({"do": "turn", "player": "bo"})
        assert st["over"] is False  # bo's upkeep: not ana's
        st = s.do({"do": "turn", "player": "ana"})
        assert st.player("ana")["status"] == "won"

    def test_version_1_has_neither(self) -> None:
        s = Story(["ana", "bo"])
        assert s.malformed(card("w", "Worship", "ana")).member == "name"
        assert s.malformed(card("n", "Near-Death Experience", "ana")).member == "name"

    def test_704_7_lichs_mirror_replaces_losing_the_game_once(self) -> None:
        s = v2(["ana", {"id": "bo", "library": 1}])
        s.do({"do": "set_life", "player": "bo", "to": 1})
        s.do(card("mirror", "Lich's Mirror", "bo"))
        st = s.do(together({"do": "draw", "player": "bo", "count": 2},
                           {"do": "lose_life", "player": "bo", "amount": 2}))  # fmt: skip
        assert st.player("bo")["status"] == "playing"  # 704.5a and 704.5b: one replacement
        assert st.life("bo") == 20 and st.player("bo")["library"] is None
        st = s.do({"do": "lose_life", "player": "bo", "amount": 20})
        assert st.why("bo") == ("lost", "life", "704.5a")  # the Mirror went to the library


def test_732_2a_a_cycle_the_engine_cannot_decide_is_malformed_after_bounded_work() -> None:
    """Found by a stress run: two Transcendences, Platinum Angel, Sanguine Bond, Felidar
    Sovereign and Marauding Blight-Priest at 1 life. The abilities resolve on and on without
    repeating in a way the engine can prove a loop of (104.4b needs one), so the engine gives
    up after ``MAX_RESOLUTIONS`` resolutions (it took 100,000 and 6 s before): the record must
    state the loop's result (a shortcut, 732.2a). The action changes nothing."""
    from lifeledger.stack import MAX_RESOLUTIONS
    from lifeledger.state import state_dict

    cards = [
        "Transcendence",
        "Platinum Angel",
        "Sanguine Bond",
        "Transcendence",
        "Felidar Sovereign",
        "Marauding Blight-Priest",
    ]
    game = Game([Seat("p0"), Seat("p1")], version=2, starting_life=1)
    for k, name in enumerate(cards):
        game.card(f"c{k}", name, ("p0", "p1")[k % 2])
    game.choose(
        "p0", order=["c0", "c2", "c4"], targets={c: ["p0", "p1"] for c in ("c0", "c2", "c4")}
    )
    game.choose(
        "p1", order=["c1", "c3", "c5"], targets={c: ["p0", "p1"] for c in ("c1", "c3", "c5")}
    )
    before = state_dict(game)
    with pytest.raises(MalformedError, match=f"resolve more than {MAX_RESOLUTIONS:,} times"):
        game.gain_life("p0", 153363)
    assert state_dict(game) == before


def test_732_2a_a_shortcut_s_iterations_share_one_bound_on_resolutions() -> None:
    """Found by a hostile run: a shortcut (732.2a) of a million life gains under Sanguine Bond
    resolved a million triggered abilities in one action (46 s), since each iteration's stack
    counted its resolutions afresh. The bound is the action's, on the resolutions done: past
    ``MAX_RESOLUTIONS`` of them in all, the shortcut is malformed and nothing of it happens.
    Issue 28 item 4: iterations that change the same amounts each time are settled at once,
    resolving nothing, so the same million gains are the totals they lead to; iterations
    whose changes differ (an exchange of life totals, 701.12c) are played, and bounded."""
    from lifeledger.actions import ExchangeLife
    from lifeledger.stack import MAX_RESOLUTIONS
    from lifeledger.state import state_dict

    game = Game([Seat("ana"), Seat("bo"), Seat("cy")], version=2, starting_life=10**9)
    game.card("bond", "Sanguine Bond", "ana")
    game.choose("ana", targets={"bond": ["bo"]})
    before = state_dict(game)
    with pytest.raises(MalformedError, match=f"resolve more than {MAX_RESOLUTIONS:,} times"):
        game.repeat(MAX_RESOLUTIONS + 1, ExchangeLife("ana", "cy"), GainLife("ana", 1))
    assert state_dict(game) == before
    game.repeat(10**6, GainLife("ana", 1))  # settled at once: applied
    assert game.player("bo").life == 10**9 - 10**6

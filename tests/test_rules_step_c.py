"""Rule stories for Step C of the card catalogue (version 2 of the record): Angel's Grace ("this
turn", 104.3, 104.2, 614.1a, 514.2), Transcendence (a state trigger, 603.8; a life-loss trigger on
the stack, 119.10) and Celestial Convergence (an upkeep countdown, 503.1; the highest life total
wins, 104.2b, or a tie is a draw, 104.4c), each a short game told through the record.
"""

from __future__ import annotations

from typing import Any

from stories import Story, card, damage, effect, gain, step, turn, v2


def lose_life(player: str, amount: int) -> dict[str, Any]:
    return {"do": "lose_life", "player": player, "amount": amount}


def set_life(player: str, to: int) -> dict[str, Any]:
    return {"do": "set_life", "player": player, "to": to}


class TestAngelsGrace:
    def grace(self) -> Story:
        s = v2(["ana", "bo"])
        s.do(turn("ana"))
        s.do(step("main"))
        s.do(card("grace", "Angel's Grace", "bo"))
        return s

    def test_614_1a_until_end_of_turn_damage_leaves_1_life(self) -> None:
        st = self.grace().do(damage("bo", 25, source="dragon"))
        assert st.life("bo") == 1 and st.player("bo")["status"] == "playing"

    def test_104_3_you_cant_lose_the_game_this_turn(self) -> None:
        s = self.grace()
        st = s.do(lose_life("bo", 30))  # a loss of life is no damage: no floor
        assert st.life("bo") == -10 and st.player("bo")["status"] == "playing"

    def test_104_2_your_opponents_cant_win_the_game_this_turn(self) -> None:
        st = self.grace().do({"do": "win", "player": "ana"})
        assert st["over"] is False and st.player("ana")["status"] == "playing"

    def test_514_2_the_grace_ends_in_cleanup_and_704_5a_applies(self) -> None:
        s = self.grace()
        s.do(lose_life("bo", 30))
        st = s.do(step("cleanup"))
        assert st.why("bo") == ("lost", "life", "704.5a")

    def test_514_2_the_next_turn_ends_it_too(self) -> None:
        s = self.grace()
        s.do(lose_life("bo", 30))
        st = s.do(turn("bo"))  # ana's turn ends first: its cleanup (500.1)
        assert st.why("bo") == ("lost", "life", "704.5a")

    def test_810_8a_in_two_headed_giant_it_protects_the_team(self) -> None:
        s = v2(["ana/north", "bo/north", "cy/south", "di/south"], variant="two-headed-giant")
        s.do(turn("ana"))
        s.do(card("grace", "Angel's Grace", "cy"))
        st = s.do(lose_life("di", 40))
        assert st.team("south")["life"] == -10
        assert st.statuses() == dict.fromkeys(["ana", "bo", "cy", "di"], "playing")
        st = s.do(step("cleanup"))
        assert st.why("di")[0] == "lost" and st.player("ana")["status"] == "won"

    def test_version_1_has_no_angels_grace_card(self) -> None:
        s = Story(["ana", "bo"])
        assert s.malformed(card("grace", "Angel's Grace", "bo")).member == "name"


class TestTranscendence:
    def transcendence(self, life: int = 10) -> Story:
        s = v2(["ana", "bo"])
        s.do(set_life("bo", life))
        s.do(card("tr", "Transcendence", "bo"))
        return s

    def test_119_10_gain_2_life_for_each_1_life_lost(self) -> None:
        st = self.transcendence().do(lose_life("bo", 3))
        assert st.life("bo") == 13 and st["triggered"] == {"tr": 1}

    def test_119_10_and_603_2c_simultaneous_damage_is_one_trigger(self) -> None:
        group = {"do": "together", "actions": [damage("bo", 2, source="a"),
                                               damage("bo", 3, source="b")]}  # fmt: skip
        st = self.transcendence().do(group)
        assert st.life("bo") == 15 and st["triggered"] == {"tr": 1}

    def test_119_9_losing_0_life_triggers_nothing(self) -> None:
        st = self.transcendence().do(lose_life("bo", 0))
        assert st["triggered"] == {"tr": 0}

    def test_704_5a_doesnt_apply_at_0_or_less_life(self) -> None:
        st = self.transcendence(3).do(lose_life("bo", 12))  # -9, then +24
        assert st.life("bo") == 15 and st.player("bo")["status"] == "playing"

    def test_603_8_with_20_or_more_life_you_lose_the_game(self) -> None:
        st = self.transcendence(15).do(gain("bo", 5))
        assert st.why("bo") == ("lost", "effect", "104.3e")
        assert st.why("ana") == ("won", "last-standing", "104.2a")

    def test_603_8_the_state_trigger_is_checked_as_it_enters(self) -> None:
        st = self.transcendence(20).state()
        assert st.why("bo") == ("lost", "effect", "104.3e")

    def test_810_9a_in_two_headed_giant_the_team_total_is_read(self) -> None:
        s = v2(["ana/north", "bo/north", "cy/south", "di/south"], variant="two-headed-giant")
        s.do(set_life("ana", 25))  # the team's total: 25
        st = s.do(card("tr", "Transcendence", "ana"))
        assert st.team("north")["status"] == "lost"

    def test_104_4b_with_platinum_angel_the_state_trigger_loops_a_draw(self) -> None:
        s = self.transcendence(15)
        s.do(card("angel", "Platinum Angel", "bo"))
        st = s.do(gain("bo", 5))
        assert st.why("bo") == ("drew", "loop", "104.4b")

    def test_603_8_the_bond_and_blood_loop_ends_when_it_reaches_20(self) -> None:
        # Each cycle: Bo loses 1 (Sanguine Bond), gains 2 (Transcendence): +1 a cycle, so
        # the loop is no draw (104.4b does not apply): the state trigger ends it at 20.
        s = self.transcendence(5)
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        s.do({"do": "choose", "player": "ana", "order": ["bond", "blood"]})
        st = s.do(gain("ana", 1))
        assert st.why("bo") == ("lost", "effect", "104.3e")
        assert st.player("ana")["status"] == "won"

    def test_version_1_has_no_transcendence(self) -> None:
        s = Story(["ana", "bo"])
        assert s.malformed(card("tr", "Transcendence", "bo")).member == "name"
        assert s.malformed(effect("x", "lose_at_20_life", "bo")).member == "kind"


class TestCelestialConvergence:
    def countdown(self, players: list[Any], turns: list[str], **kw: Any) -> Story:
        s = v2(players, **kw)
        s.do(card("cc", "Celestial Convergence", "ana"))
        for pid in turns:
            s.do(turn(pid))
        return s

    def test_503_1_an_omen_counter_a_upkeep_and_104_2b_the_highest_life_wins(self) -> None:
        s = self.countdown(["ana", "bo"], ["ana", "bo"] * 6)
        s.do(step("main"))
        s.do(damage("ana", 3, source="bolt"))
        st = s.do(turn("ana"))  # ana's 7th upkeep: the last counter
        assert st.why("bo") == ("won", "effect", "104.2b")
        assert st.why("ana") == ("lost", "opponent-won", "104.2b")
        assert st["triggered"] == {"cc": 8}  # seven upkeeps and the last counter

    def test_the_countdown_counts_only_its_controllers_upkeeps(self) -> None:
        st = self.countdown(["ana", "bo"], ["ana", "bo"] * 6).state()
        assert st["over"] is False and st["triggered"] == {"cc": 6}

    def test_104_4c_a_tie_for_the_highest_life_total_is_a_draw(self) -> None:
        s = self.countdown(["ana", "bo", "cy"], ["ana", "bo", "cy"] * 6, variant="free-for-all")
        s.do(step("main"))
        s.do(damage("cy", 5, source="bolt"))
        st = s.do(turn("ana"))
        assert st.statuses() == dict.fromkeys(["ana", "bo", "cy"], "drew")
        assert st.why("cy") == ("drew", "effect", "104.4c")

    def test_810_9a_a_team_sharing_its_total_is_one_competitor(self) -> None:
        players = ["ana/north", "bo/north", "cy/south", "di/south"]
        s = self.countdown(players, ["ana", "cy"] * 6, variant="two-headed-giant")
        s.do(step("main"))
        s.do(damage("cy", 1, source="bolt"))
        st = s.do(turn("ana"))
        assert st.team("north")["status"] == "won" and st.team("south")["status"] == "lost"

    def test_801_11_and_801_14_with_limited_range_only_players_in_range_compare(self) -> None:
        players = ["ana", "bo", "cy", "di", "ed"]
        s = self.countdown(players, players * 6, variant="free-for-all",
                           options={"range_of_influence": 1})  # fmt: skip
        s.do(step("main"))
        s.do(gain("cy", 10))  # cy is outside ana's range: not compared
        s.do(damage("bo", 1, source="bolt"))
        s.do(damage("ed", 1, source="bolt"))
        st = s.do(turn("ana"))
        assert st.why("bo") == ("lost", "opponent-won", "801.14")
        assert st.why("ed") == ("lost", "opponent-won", "801.14")
        assert st.player("cy")["status"] == "playing"

    def test_104_2_the_highest_cant_win_against_platinum_angel(self) -> None:
        s = self.countdown(["ana", "bo"], ["ana", "bo"] * 6)
        s.do(card("angel", "Platinum Angel", "bo"))
        s.do(step("main"))
        s.do(damage("bo", 3, source="bolt"))
        st = s.do(turn("ana"))
        assert st["over"] is False

    def test_the_countdown_ends_with_the_card(self) -> None:
        s = self.countdown(["ana", "bo"], ["ana", "bo"] * 6)
        s.do({"do": "end", "id": "cc"})
        st = s.do(turn("ana"))
        assert st["over"] is False

    def test_the_countdown_is_a_cards_and_version_2s(self) -> None:
        s = v2(["ana", "bo"])
        assert s.malformed(effect("x", "omen_countdown", "ana")).member == "kind"
        assert s.malformed(effect("x", "last_omen", "ana")).member == "kind"
        v1 = Story(["ana", "bo"])
        assert v1.malformed(card("cc", "Celestial Convergence", "ana")).member == "name"


def test_the_timeline_names_the_state_trigger_and_the_countdown() -> None:
    from lifeledger import Game, Seat

    game = Game([Seat("ana"), Seat("bo")], version=2)
    game.set_life("bo", 19)
    game.card("tr", "Transcendence", "bo")
    game.card("cc", "Celestial Convergence", "ana")
    game.turn("ana")
    assert [f"{n.rule} {n.text}" for n in game.notes][-2:] == [
        "603.3b cc (ana's) is put on the stack",
        "608.2 cc (ana's) resolves: an omen counter is removed, 6 left",
    ]
    game.gain_life("bo", 1)
    assert [f"{n.rule} {n.text}" for n in game.notes] == [
        "603.8 tr triggers: bo's life is 20",
        "603.3b tr (bo's) is put on the stack",
        "608.2 tr (bo's) resolves: bo loses the game (104.3e)",
    ]

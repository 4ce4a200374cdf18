"""Rule stories for the choices the rules give a player for their triggered abilities (603.3b:
the order of their simultaneous triggers; 603.3d: a target as the ability goes on the stack),
which the record states with ``choose``: an unstated one is malformed and says which choice is
needed (:class:`lifeledger.ChoiceNeeded`), and :meth:`lifeledger.Game.open_choices` says which
a player would be asked for before any action needs them (``docs/record-format.md``).
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from lifeledger import ChoiceNeeded, MalformedError, record
from lifeledger.game import Game
from stories import Story, card, gain, v2


def choose(player: str, **members: Any) -> dict[str, Any]:
    return {"do": "choose", "player": player, **members}


def game_of(story: Story) -> Game:
    return record.replay(story.document()).game


def opened(story: Story) -> list[tuple[str, str, tuple[str, ...], tuple[str, ...], str]]:
    return [(c.player, c.choice, c.ids, c.options, c.rule) for c in game_of(story).open_choices()]


class TestTheTargetIsAsked:
    def test_603_3d_sanguine_bond_with_two_opponents_needs_its_target_stated(self) -> None:
        """Ana's Sanguine Bond, three players: when Ana gains life the ability targets Bo or
        Cy; the record didn't say which, so the gain is malformed (member do), the error says
        who chooses what among whom, and nothing changed."""
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        err = s.malformed(gain("ana", 3))
        assert isinstance(err, ChoiceNeeded)
        assert (err.player, err.choice, err.ids, err.options, err.rule) == (
            "ana",
            "targets",
            ("bond",),
            ("bo", "cy"),
            "603.3d",
        )
        assert err.member == "do" and err.position == "1"
        assert "state which with choose (603.3d); bo, cy are legal targets" in str(err)
        assert s.state().lives() == {"ana": 20, "bo": 20, "cy": 20}

    def test_603_3d_the_target_is_asked_before_any_gain_and_stays_once_stated(self) -> None:
        """open_choices asks Ana for Sanguine Bond's target as soon as it has two legal
        targets; once she states Cy it is no longer asked, and her gain drains Cy."""
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        assert opened(s) == [("ana", "targets", ("bond",), ("bo", "cy"), "603.3d")]
        assert game_of(s).standing_targets() == {"bond": (None, ("bo", "cy"))}
        s.do(choose("ana", targets={"bond": "cy"}))
        assert opened(s) == []
        assert game_of(s).standing_targets() == {"bond": ("cy", ("bo", "cy"))}
        assert s.do(gain("ana", 3)).lives() == {"ana": 23, "bo": 20, "cy": 17}

    def test_603_3d_and_115_1_one_legal_target_asks_nothing(self) -> None:
        """With one opponent the only legal target is chosen: nothing to ask (115.1)."""
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        assert opened(s) == []
        assert game_of(s).standing_targets() == {"bond": ("bo", ("bo",))}

    def test_603_3d_a_stated_target_that_left_the_game_opens_the_choice_again(self) -> None:
        """Ana stated Cy; Cy concedes (800.4a): the stated target is no longer legal, and with
        Bo and Di left the choice is open again."""
        s = v2(["ana", "bo", "cy", "di"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(choose("ana", targets={"bond": "cy"}))
        assert opened(s) == []
        s.do({"do": "concede", "player": "cy"})
        assert opened(s) == [("ana", "targets", ("bond",), ("bo", "di"), "603.3d")]

    def test_603_3d_version_1_and_a_game_over_ask_nothing(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do({"do": "draw_game", "source": "a-card"})
        assert opened(s) == []
        assert game_of(Story(["ana", "bo", "cy"])).open_choices() == ()  # version 1


class TestTheOrderIsAsked:
    def test_603_3b_two_cards_triggering_at_once_need_their_order_stated(self) -> None:
        """Ana's Sanguine Bond and Exquisite Blood: her lifelink damage to Bo makes Bo lose life
        and Ana gain it at once; both trigger, and the order she puts them on the stack is
        hers to choose (603.3b): unstated, the action is malformed and says so."""
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        assert opened(s) == [("ana", "order", ("bond", "blood"), ("bond", "blood"), "603.3b")]
        err = s.malformed(
            {
                "do": "damage",
                "to": "bo",
                "amount": 2,
                "source": "bat",
                "lifelink": True,
                "controller": "ana",
            }
        )
        assert isinstance(err, ChoiceNeeded)
        assert (err.player, err.choice, err.options, err.rule) == (
            "ana",
            "order",
            ("blood", "bond"),
            "603.3b",
        )
        assert "state their order with choose (603.3b)" in str(err)

    def test_603_3b_a_stated_order_listing_them_all_closes_the_choice(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        s.do(choose("ana", order=["bond"]))
        assert [c[1] for c in opened(s)] == ["order"]  # blood is not in it
        s.do(choose("ana", order=["blood", "bond"]))
        assert opened(s) == []

    def test_603_3b_each_player_orders_only_their_own(self) -> None:
        """Ana's Bond and Bo's Blood are two players' abilities: APNAP order (101.4) puts them
        on the stack, nobody chooses; Bo's second card makes Bo's order open."""
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "bo"))
        assert opened(s) == []
        s.do(card("priest", "Marauding Blight-Priest", "bo"))
        assert opened(s) == [("bo", "order", ("blood", "priest"), ("blood", "priest"), "603.3b")]


class TestTheErrorKeepsItsChoice:
    def test_603_3d_the_choice_crosses_pickling_and_positions(self) -> None:
        """A ChoiceNeeded is a MalformedError (every record's behaviour is unchanged) that keeps
        its choice when placed inside a group's position or pickled (a worker's answer)."""
        err = ChoiceNeeded(
            "bond targets an opponent of ana", player="ana", choice="targets",
            ids=("bond",), options=("bo", "cy"),
        )  # fmt: skip
        for copy in (pickle.loads(pickle.dumps(err)), err.at("3").at("7")):
            assert isinstance(copy, ChoiceNeeded) and isinstance(copy, MalformedError)
            assert (copy.player, copy.choice, copy.ids, copy.options, copy.member) == (
                "ana",
                "targets",
                ("bond",),
                ("bo", "cy"),
                "do",
            )
        assert err.at("3").at("7").position == "7.3"

    def test_603_3d_a_choice_needed_inside_a_repeat_names_its_position(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        err = s.malformed({"do": "repeat", "times": 2, "actions": [gain("ana", 1)]})
        assert isinstance(err, ChoiceNeeded) and err.options == ("bo", "cy")

    def test_104_4b_the_loop_against_platinum_angel_is_still_a_draw_once_chosen(self) -> None:
        """The choices stated, Sanguine Bond and Exquisite Blood against Platinum Angel are a
        loop of mandatory actions: the game is a draw (104.4b)."""
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        s.do(card("angel", "Platinum Angel", "bo"))
        s.do(choose("ana", order=["bond", "blood"]))
        st = s.do(gain("ana", 1))
        assert st.why("ana") == ("drew", "loop", "104.4b")


@pytest.mark.parametrize("players", [["ana", "bo", "cy"], ["ana", "bo", "cy", "di"]])
def test_603_3d_the_target_is_asked_of_the_controller_only(players: list[str]) -> None:
    """Bo's Vito, Thorn of the Dusk Rose: the choice is Bo's, among Bo's opponents."""
    s = v2(players)
    s.do(card("vito", "Vito, Thorn of the Dusk Rose", "bo"))
    [(player, choice, ids, options, rule)] = opened(s)
    assert (player, choice, ids, rule) == ("bo", "targets", ("vito",), "603.3d")
    assert options == tuple(p for p in players if p != "bo")


class TestOnlyTheChooserStatesIt:
    """Issue 19 item 1: each choice is one player's (the order of triggered abilities and their
    targets, the controller's: 603.3b, 603.3d, 601.2c, 115.1; the order of replacement effects,
    the affected player's: 616.1), and what anyone else states of it is ignored: it changes
    nothing, so an unstated choice stays unstated (malformed, as always) and a stated one stays
    as stated. The rest of their statement stands."""

    def test_603_3d_a_target_stated_by_another_player_is_ignored(self) -> None:
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(choose("bo", targets={"bond": "cy"}))
        assert s.refused_last() is None
        notes = [(n.rule, n.text) for n in game_of(s).notes]
        assert notes == [
            ("603.3d", "bond is ana's: ana chooses its targets, bo's statement of them is ignored")
        ]
        assert opened(s) == [("ana", "targets", ("bond",), ("bo", "cy"), "603.3d")]
        err = s.malformed(gain("ana", 3))
        assert isinstance(err, ChoiceNeeded)
        assert (err.player, err.choice, err.options) == ("ana", "targets", ("bo", "cy"))

    def test_603_3d_a_later_statement_by_another_player_does_not_override_the_controllers(
        self,
    ) -> None:
        """Ana chose Bo; Cy then states Cy for Ana's Bond: Ana's choice stands, Bo is drained."""
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(choose("ana", targets={"bond": "bo"}))
        s.do(choose("cy", targets={"bond": "cy"}))
        assert game_of(s).standing_targets() == {"bond": ("bo", ("bo", "cy"))}
        assert s.do(gain("ana", 3)).lives() == {"ana": 23, "bo": 17, "cy": 20}

    def test_603_3d_the_rest_of_the_statement_stands(self) -> None:
        """Bo states the targets of Ana's Bond and of his own Vito: his Vito's stand."""
        s = v2(["ana", "bo", "cy"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("vito", "Vito, Thorn of the Dusk Rose", "bo"))
        s.do(choose("bo", targets={"bond": "bo", "vito": "cy"}))
        assert game_of(s).standing_targets() == {
            "bond": (None, ("bo", "cy")),
            "vito": ("cy", ("ana", "cy")),
        }

    def test_603_3b_an_order_stated_by_another_player_is_ignored(self) -> None:
        s = v2(["ana", "bo"])
        s.do(card("bond", "Sanguine Bond", "ana"))
        s.do(card("blood", "Exquisite Blood", "ana"))
        s.do(choose("bo", order=["blood", "bond"]))
        assert [n.rule for n in game_of(s).notes] == ["603.3b", "603.3b"]
        assert opened(s) == [("ana", "order", ("bond", "blood"), ("bond", "blood"), "603.3b")]
        lifelink = {
            "do": "damage", "to": "bo", "amount": 2, "source": "bat", "lifelink": True,
            "controller": "ana",
        }  # fmt: skip
        err = s.malformed(lifelink)
        assert isinstance(err, ChoiceNeeded) and (err.player, err.choice) == ("ana", "order")
        s.do(choose("ana", order=["blood", "bond"]))
        assert s.do(lifelink).refused_rules() == []

    def test_616_1_a_replacement_order_stated_by_another_player_is_ignored(self) -> None:
        """Ana's gain under her Rhox Faithmender and Bo's Tainted Remedy: the order is Ana's
        (the affected player); Bo's statement of it, his Remedy's controller though he is, is
        ignored."""
        s = v2(["ana", "bo"])
        s.do(card("rhox", "Rhox Faithmender", "ana"))
        s.do(card("remedy", "Tainted Remedy", "bo"))
        s.do(choose("bo", replacements=["rhox", "remedy"]))
        assert opened(s) == [
            ("ana", "replacements", ("remedy", "rhox"), ("remedy", "rhox"), "616.1")
        ]
        err = s.malformed(gain("ana", 3))
        assert isinstance(err, ChoiceNeeded) and (err.player, err.choice) == ("ana", "replacements")
        s.do(choose("ana", replacements=["rhox", "remedy"]))
        assert s.do(gain("ana", 3)).lives() == {"ana": 14, "bo": 20}

    def test_616_1_which_lichs_mirror_is_the_first_seated_heads_choice(self) -> None:
        """Two-Headed Giant: Bo's two Mirrors would replace his team's loss (810.8a); the team's
        first seated head in the game, Ana, chooses; Bo's own statement is ignored."""
        s = v2(
            [
                {"id": "ana", "team": "north"},
                {"id": "bo", "team": "north", "library": 30},
                {"id": "cy", "team": "south"},
                {"id": "di", "team": "south"},
            ],
            variant="two-headed-giant",
        )
        s.do(card("m1", "Lich's Mirror", "bo"))
        s.do(card("m2", "Lich's Mirror", "bo"))
        s.do(choose("bo", replacements=["m2", "m1"]))
        assert opened(s) == [("ana", "replacements", ("m1", "m2"), ("m1", "m2"), "616.1")]
        err = s.malformed({"do": "lose", "players": ["bo"], "source": "a-card"})
        assert isinstance(err, ChoiceNeeded) and err.player == "ana"
        s.do(choose("ana", replacements=["m2", "m1"]))
        st = s.do({"do": "lose", "players": ["bo"], "source": "a-card"})
        assert st.statuses() == {
            "ana": "playing",
            "bo": "playing",
            "cy": "playing",
            "di": "playing",
        }
        # m2 applied; m1, a permanent Bo owns too, went into his library with it (614.1a)
        assert [e.id for e in game_of(s).effects()] == []
        assert "m2: bo would lose the game" in " ".join(n.text for n in game_of(s).notes)

"""Rules review: stories that probe tricky interactions against the Comprehensive Rules
(April 17, 2026). Each test states the rule it checks; the first group pins four discrepancies
found in review and since fixed, the rest pins interactions verified right.
"""

from __future__ import annotations

import pytest

from lifeledger import Game, Seat, record
from lifeledger.actions import Damage, GainLife, PayLife
from lifeledger.errors import MalformedError, RefusedError

PLAYING = ("playing", None)


def standing(game: Game, player: str) -> tuple[str, str | None]:
    result = game.outcome().results[player]
    return result.status.value, None if result.reason is None else result.reason.value


def emperor_seats() -> list[Seat]:
    """809.2: two teams of three, each emperor in the middle of the team."""
    return [
        Seat("a0", team="A"),
        Seat("ae", team="A", emperor=True),
        Seat("a2", team="A"),
        Seat("b0", team="B"),
        Seat("be", team="B", emperor=True),
        Seat("b2", team="B"),
    ]


def thg(size: int = 2) -> list[Seat]:
    return [Seat(f"a{i}", team="A") for i in range(size)] + [
        Seat(f"b{i}", team="B") for i in range(size)
    ]


def lifelink(to: str, amount: int, source: str, controller: str) -> Damage:
    return Damage(to, amount, True, False, True, controller, source=source)


# --- discrepancies found in review, fixed ---------------------------------------------------------


@pytest.mark.rule("727.1")
def test_727_1_restart_with_two_players_left_is_a_two_player_brawl_game() -> None:
    # 727.1: "All players in that game when it ended then start a new game following the
    # procedures set forth in rule 103". 800.1: "A multiplayer game is a game that begins with
    # more than two players." 903.12f: "In a two-player Brawl game, each player's starting life
    # total is 25." The new game begins with two players, so it is a two-player Brawl game.
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")], format="brawl")
    assert [p.life for p in game.players] == [30, 30, 30]  # multiplayer Brawl
    game.concede("cy")
    assert standing(game, "cy") == ("lost", "conceded")
    game.restart("ana")
    assert game.game_number == 2
    assert standing(game, "ana") == PLAYING
    assert game.life_of("ana") == 25
    assert game.life_of("bo") == 25


@pytest.mark.rule("809.5b")
def test_809_5b_101_2_general_with_platinum_angel_stays_when_the_emperor_loses() -> None:
    # 809.5b: "A team loses the game if its emperor loses." Platinum Angel: "You can't lose the
    # game". 101.2: "When a rule or effect allows or directs something to happen, and another
    # effect states that it can't happen, the 'can't' effect takes precedence." Unlike 810.8a
    # (Two-Headed Giant), nothing makes the emperor's loss override the general's Angel.
    game = Game(emperor_seats(), variant="emperor")
    game.card("angel", "Platinum Angel", "a0")
    game.lose_life("ae", 20)
    assert standing(game, "ae") == ("lost", "life")
    assert standing(game, "a2") == ("lost", "emperor")
    assert standing(game, "a0") == PLAYING  # can't lose the game
    assert not game.outcome().over


@pytest.mark.rule("120.4")
def test_120_4_phyrexian_unlife_checks_life_before_simultaneous_damage() -> None:
    # Phyrexian Unlife: "As long as you have 0 or less life, all damage is dealt to you as though
    # its source had infect." Two creatures' combat damage is one event (510.2, 120.4; a
    # `together` group is one event): at 3 life, neither damage is dealt as though by infect.
    # Gatherer ruling (2011-06-01): "Phyrexian Unlife won't affect damage that reduces your life
    # total from a positive number to 0 or less ... at 3 life and dealt 5 damage, you'll end up
    # at -2 life."
    game = Game([Seat("ana"), Seat("bo")])
    game.card("unlife", "Phyrexian Unlife", "ana")
    game.lose_life("ana", 17)
    assert game.life_of("ana") == 3
    game.together(
        Damage("ana", 3, True, source="bear-1"),
        Damage("ana", 3, True, source="bear-2"),
    )
    assert game.life_of("ana") == -3
    assert game.player("ana").poison == 0
    assert standing(game, "ana") == PLAYING  # Unlife: no loss for 0 or less life


@pytest.mark.rule("702.15e")
def test_702_15e_614_6_tainted_remedy_turns_one_lifelink_gain_into_one_loss() -> None:
    # 702.15e: one lifelink source dealing damage to two players at once causes one life-gain
    # event (the spec: "one life-gain event per source"). Tainted Remedy replaces that event;
    # 614.6: "If an event is replaced, it never happens. A modified event occurs instead, which
    # may in turn trigger abilities." One loss event: "whenever you lose life" triggers once.
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.card("remedy", "Tainted Remedy", "bo")
    game.effect("on-loss", "on_lose_life", "ana")
    game.together(lifelink("bo", 2, "vampire", "ana"), lifelink("cy", 2, "vampire", "ana"))
    assert game.life_of("ana") == 16  # loses 4 instead of gaining 4
    assert game.triggered["on-loss"] == 1


# --- interactions verified right -----------------------------------------------------------------


@pytest.mark.rule("104.2a")
def test_104_2a_last_standing_overrides_cant_win() -> None:
    # 104.2a: "... This happens immediately and overrides all effects that would preclude that
    # player from winning the game."
    game = Game([Seat("ana"), Seat("bo")])
    game.card("persecutor", "Abyssal Persecutor", "ana")
    game.damage("bo", 25, source="dragon")
    assert standing(game, "bo") == PLAYING  # Persecutor: ana's opponents can't lose
    game.concede("bo")
    assert standing(game, "ana") == ("won", "last-standing")


@pytest.mark.rule("801.2c")
def test_801_2c_range_reaches_a_new_neighbour_only_as_the_next_turn_begins() -> None:
    game = Game([Seat(i) for i in ("alex", "rob", "carissa", "d", "e", "f")], variant="grand-melee")
    game.concede("rob")
    assert not game.is_in_range("alex", "carissa")
    game.upkeep("carissa")
    assert game.is_in_range("alex", "carissa")
    game.win("alex")  # 801.14: opponents within range lose instead
    assert standing(game, "carissa") == ("lost", "opponent-won")
    assert standing(game, "f") == ("lost", "opponent-won")
    assert standing(game, "alex") == PLAYING
    assert standing(game, "d") == PLAYING


@pytest.mark.rule("809.6a")
def test_809_6a_ranges_for_teams_of_four() -> None:
    names = [("a1", False), ("ae", True), ("a2", False), ("a3", False)]
    seats = [Seat(n, team="A", emperor=e) for n, e in names]
    seats += [Seat("b" + n[1:], team="B", emperor=e) for n, e in names]
    game = Game(seats, variant="emperor")
    game.upkeep("ae")
    # emperor 3, general 2 -> 2, generals 1 and 3 -> 1: check by who is within range.
    assert game.is_in_range("ae", "b1") and not game.is_in_range("a2", "b2")
    assert game.is_in_range("a2", "b1") and game.is_in_range("a3", "b1")
    assert not game.is_in_range("a1", "b2") and game.is_in_range("a1", "b3")


@pytest.mark.rule("809.5b")
def test_809_5b_801_2c_emperor_game_after_a_general_leaves() -> None:
    game = Game(emperor_seats(), variant="emperor")
    game.concede("b0")
    assert standing(game, "b0") == ("lost", "conceded")
    assert standing(game, "be") == PLAYING
    game.card("toe", "Test of Endurance", "a2")
    game.gain_life("a2", 30)
    game.upkeep("a2")  # be is now next to a2: 801.14 makes be lose, so team B loses
    assert standing(game, "be") == ("lost", "opponent-won")
    assert standing(game, "b2") == ("lost", "emperor")
    assert standing(game, "a0") == ("won", "last-standing")


@pytest.mark.rule("104.4d")
def test_104_4d_both_emperors_lose_at_once_is_a_draw() -> None:
    game = Game(emperor_seats(), variant="emperor")
    game.together(Damage("ae", 20, source="x"), Damage("be", 20, source="y"))
    assert all(standing(game, p.id) == ("drew", "simultaneous-loss") for p in game.players)
    assert game.outcome().over


@pytest.mark.rule("104.2")
def test_104_2_laboratory_maniac_that_cant_win_does_not_draw_or_lose() -> None:
    game = Game([Seat("ana", library=0), Seat("bo")])
    game.card("maniac", "Laboratory Maniac", "ana")
    game.card("angel", "Platinum Angel", "bo")
    game.draw("ana")  # replaced by a win that can't happen; no draw, so no 704.5b
    assert standing(game, "ana") == PLAYING
    game.end("angel")
    assert standing(game, "ana") == PLAYING
    game.draw("ana")
    assert standing(game, "ana") == ("won", "effect")
    assert standing(game, "bo") == ("lost", "opponent-won")


@pytest.mark.rule("702.15e")
def test_702_15e_lifelink_events_per_source() -> None:
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.card("pridemate", "Ajani's Pridemate", "ana")
    game.together(lifelink("bo", 2, "s1", "ana"), lifelink("cy", 2, "s1", "ana"))
    assert game.life_of("ana") == 24
    assert game.triggered["pridemate"] == 1
    game.together(lifelink("bo", 2, "s1", "ana"), lifelink("bo", 3, "s2", "ana"))
    assert game.life_of("ana") == 29
    assert game.triggered["pridemate"] == 3


@pytest.mark.rule("810.9b")
def test_810_9b_both_heads_pay_at_most_the_team_total() -> None:
    game = Game(thg(), variant="two-headed-giant")
    game.damage("a0", 10, source="x")
    with pytest.raises(RefusedError) as refused:
        game.pay_life_together({"a0": 10, "a1": 11})
    assert refused.value.rule == "119.4a"
    assert game.life_of("a1") == 20
    game.pay_life_together({"a0": 10, "a1": 10})
    assert standing(game, "a0") == ("lost", "team-life")
    assert standing(game, "b1") == ("won", "last-standing")


@pytest.mark.rule("701.12c")
def test_701_12c_tainted_remedy_modifies_a_two_headed_giant_exchange() -> None:
    game = Game(thg(), variant="two-headed-giant")
    game.card("remedy", "Tainted Remedy", "b0")
    game.set_life("a1", 40)  # 119.5, 810.9c: a gain of 10, which Remedy turns into a loss
    assert game.life_of("a0") == 20
    game.exchange_life("a0", "b0")  # a0 would gain 10 (-> loses 10), b0 loses 10
    assert game.life_of("a0") == 10
    assert game.life_of("b1") == 20


@pytest.mark.rule("810.9h")
def test_810_9h_teammates_life_cant_change() -> None:
    game = Game(thg(), variant="two-headed-giant")
    game.damage("b0", 10, source="x")
    game.card("emperion", "Platinum Emperion", "a1")
    with pytest.raises(RefusedError):
        game.exchange_life("a0", "b0")  # 119.8: a0's total would become lower
    with pytest.raises(RefusedError) as refused:
        game.pay_life("a0", 1)
    assert refused.value.rule == "810.9h"
    game.pay_life("a0", 0)  # 119.4b
    game.damage("a0", 5, source="x")
    assert game.life_of("a0") == 30


@pytest.mark.rule("904.13b")
def test_904_13b_archenemy_commander_shared_60() -> None:
    seats = [
        Seat("arch", archenemy=True, commanders=("c-arch",)),
        Seat("h1", commanders=("c1",)),
        Seat("h2", commanders=("c2",)),
    ]
    game = Game(seats, variant="archenemy", format="commander")
    assert [p.life for p in game.players] == [60, 60, 60]
    game.damage("h1", 15, source="c-arch", combat=True)
    assert game.life_of("h2") == 45
    assert game.player("h1").commander_damage == {"c-arch": 15}
    assert game.player("h2").commander_damage == {}
    game.add_counters("h1", "poison", 9)
    assert game.player("h2").poison == 0  # 904.13c: not shared


@pytest.mark.rule("903.10a")
def test_903_10a_infect_combat_damage_from_a_commander_counts() -> None:
    game = Game([Seat("ana", commanders=("ca",)), Seat("bo"), Seat("cy")], format="commander")
    game.card("angel", "Platinum Angel", "bo")  # keeps bo in the game to read the count
    game.damage("bo", 21, source="ca", combat=True, infect=True)
    assert game.player("bo").commander_damage == {"ca": 21}
    assert game.player("bo").poison == 21
    assert game.life_of("bo") == 40
    assert standing(game, "bo") == PLAYING


@pytest.mark.rule("727.1")
def test_727_1_a_player_who_left_keeps_their_result() -> None:
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.damage("ana", 5, source="x")
    game.concede("cy")
    game.restart("bo")
    assert game.life_of("ana") == 20
    game.damage("ana", 20, source="x")
    assert standing(game, "bo") == ("won", "last-standing")
    assert standing(game, "cy") == ("lost", "conceded")


@pytest.mark.rule("801.15")
def test_801_15_104_4g_draw_for_a_range_between_teams() -> None:
    seats = [Seat("a1", team="A"), Seat("a2", team="A"), Seat("b1", team="B"), Seat("b2", team="B")]
    game = Game(seats, variant="team-vs-team", range_of_influence=1)
    game.draw_game("a1")  # a1, a2 (left) and b2 (right, around the table)
    assert standing(game, "a2") == ("drew", "effect")
    assert standing(game, "b2") == ("drew", "effect")
    assert game.outcome().team_results["A"].status.value == "drew"
    assert standing(game, "b1") == ("won", "last-standing")


@pytest.mark.rule("801.16")
def test_801_16_loop_draws_its_controllers_and_their_neighbours() -> None:
    game = Game([Seat(x) for x in "abcdefg"], variant="grand-melee")
    game.loop("a", "c")
    for pid in "gabcd":
        assert standing(game, pid) == ("drew", "loop")
    assert standing(game, "e") == PLAYING
    assert not game.outcome().over


@pytest.mark.rule("810.11")
def test_810_11_three_headed_giant() -> None:
    game = Game(thg(3), variant="two-headed-giant")
    assert game.life_of("a2") == 45
    game.add_counters("a0", "poison", 10)
    game.add_counters("a2", "poison", 9)
    assert standing(game, "a1") == PLAYING
    game.damage("a1", 1, source="x", infect=True)
    assert standing(game, "a1") == ("lost", "team-poison")


# --- found in the second review, fixed ------------------------------------------------------------


@pytest.mark.rule("609.3")
def test_609_3_a_refused_part_of_a_group_changes_nothing_and_the_rest_happens() -> None:
    # 609.3: "If an effect attempts to do something impossible, it does only as much as
    # possible." Bo is dealt 3 damage and Ana would pay 30 life with 20: only the payment fails.
    game = Game([Seat("ana"), Seat("bo")])
    game.together(
        Damage("bo", 3, source="bolt"),
        PayLife((("ana", 30),)),
        GainLife("ana", 2, source="spell"),
    )
    assert (game.life_of("ana"), game.life_of("bo")) == (22, 17)
    assert [(position, e.rule) for position, e in game.refusals] == [("1", "119.4")]
    assert any(n.rule == "119.4" and "refused" in n.text for n in game.notes)
    game.lose_life("bo", 1)
    assert game.refusals == []  # each action says what of it was refused


@pytest.mark.rule("701.12a")
def test_701_12a_an_exchange_that_cant_be_completed_fails_alone_in_its_group() -> None:
    # 701.12a: "if the entire exchange can't be completed, no part of the exchange occurs" -
    # no part of the exchange; the rest of the resolution goes on.
    game = Game([Seat("ana"), Seat("bo")])
    game.lose_life("bo", 15)
    game.effect("leyline", "cant_gain_life", "ana", "players")
    replayed = record.replay(
        {
            **record.format_header(game),
            "actions": [
                {"do": "lose_life", "player": "bo", "amount": 15},
                {"do": "effect", "id": "leyline", "kind": "cant_gain_life",
                 "controller": "ana", "affects": "players"},
                {"do": "together", "actions": [
                    {"do": "exchange_life", "players": ["ana", "bo"]},
                    {"do": "lose_life", "player": "ana", "amount": 1},
                ]},
            ],
        }
    )  # fmt: skip
    assert [(r.position, r.rule) for r in replayed.refused] == [("2.0", "119.7")]
    assert (replayed.game.life_of("ana"), replayed.game.life_of("bo")) == (19, 5)


@pytest.mark.rule("810.9c")
def test_810_9c_setting_one_heads_total_needs_no_choice() -> None:
    # 810.9c: an effect that sets a single player's life total sets it; 810.9d's choice is for
    # an effect that sets the total of each player on a team.
    game = Game(thg(), variant="two-headed-giant")
    game.set_life_each({"a1": 10})
    assert game.life_of("a0") == 10
    game.set_life_each({"a0": 25, "a1": 12})  # 810.9d: a0, first seated, is chosen
    assert game.life_of("a1") == 25
    game.set_life_each({"a0": 25, "a1": 12}, chosen={"A": "a1"})
    assert game.life_of("a0") == 12


@pytest.mark.rule("727.1")
def test_727_1_a_new_game_has_new_cards() -> None:
    game = Game([Seat("ana"), Seat("bo")])
    game.card("angel", "Platinum Angel", "ana")
    game.restart("bo")
    assert game.effects() == ()
    game.card("angel", "Platinum Angel", "bo")  # the id is free again in game 2
    assert {e.controller for e in game.effects()} == {"bo"}  # Platinum Angel: two effects


@pytest.mark.rule("904.13b")
def test_904_13b_810_8c_the_heroes_shared_life_at_zero() -> None:
    # 904.13b: the shared life total works as 810.8 and 810.9 say; 704.6a speaks of Two-Headed
    # Giant only, so the team loses by 810.8c.
    seats = [Seat("arch", archenemy=True), Seat("h1", team="heroes"), Seat("h2", team="heroes")]
    game = Game(seats, variant="archenemy", format="commander")
    game.damage("h1", 60, source="dragon")
    assert standing(game, "h1") == ("lost", "team-life")
    assert game.outcome().results["h1"].rule == "810.8c"
    assert standing(game, "arch") == ("won", "last-standing")


@pytest.mark.rule("120.1")
def test_120_1_damage_has_a_source_and_teams_any_name() -> None:
    game = Game([Seat("ana", team="North Team"), Seat("bo", team="South Team")])
    with pytest.raises(MalformedError) as malformed:
        game.apply(Damage("bo", 3))
    assert malformed.value.member == "source"
    game.damage("bo", 20, source="dragon")
    assert game.outcome().team_results["North Team"].status.value == "won"

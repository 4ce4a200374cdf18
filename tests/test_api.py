"""The Python API: typed methods, read-only views, reprs, and the record's round trip."""

from __future__ import annotations

import io
import json

import pytest

from lifeledger import Game, Kind, LifeOf, MalformedError, Reach, RefusedError, Seat, Status
from lifeledger import actions as a
from lifeledger.record import dumps, format_action, loads, parse_action
from lifeledger.state import state_dict
from lifeledger.timeline import Timeline, describe

FOUR = [Seat("ana"), Seat("bo"), Seat("cy"), Seat("di")]

EVERY_ACTION: list[a.Action] = [
    a.Damage("bo", 3, True, True, True, "ana", 2, source="ana-creature", note="n"),
    a.Damage("bo", LifeOf("bo", (1, 2), "down"), source="bolt"),
    a.LoseLife("bo", 1, source="drain"),
    a.GainLife("ana", LifeOf("ana"), source="spell"),
    a.PayLife((("ana", 2),)),
    a.PayLife((("ana", 1), ("bo", 1)), single=False),
    a.SetLife("cy", LifeOf("cy", (2, 1))),
    a.SetLifeEach((("ana", 10), ("bo", 12)), ()),
    a.ExchangeLife("ana", "bo"),
    a.RedistributeLife((("ana", 20), ("bo", 20)), "cy"),
    a.AddCounters("di", "energy", 2),
    a.RemoveCounters("di", "poison", 1),
    a.Draw("di", 2),
    a.Concede("di"),
    a.Win("ana", source="approach"),
    a.Lose(("bo",), source="effect"),
    a.Lose(("bo", "cy"), single=False),
    a.DrawGame("ana"),
    a.Loop(("ana", "bo")),
    a.IntentionalDraw(),
    a.Penalty("cy"),
    a.Restart("ana"),
    a.StartEffect("leyline", Kind.CANT_GAIN_LIFE, "ana", Reach.PLAYERS),
    a.StartEffect("boon", Kind.GAIN_LIFE_TIMES, "ana", ("ana", "bo"), factor=2),
    a.StartEffect("test", Kind.WIN_AT_UPKEEP, "ana", life_at_least=50),
    a.StartCard("angel", "Platinum Angel", "ana"),
    a.End("angel"),
    a.Upkeep("ana"),
    a.Together((a.Damage("ana", 1, source="x"), a.Together((a.Damage("bo", 1, source="x"),)))),
]


@pytest.mark.parametrize("action", EVERY_ACTION, ids=lambda x: x.do)
def test_every_action_round_trips_through_the_record_format(action: a.Action) -> None:
    as_json = format_action(action)
    assert parse_action(json.loads(json.dumps(as_json)), "0") == action
    assert describe(action)


@pytest.mark.rule("119.1")
def test_typed_methods_tell_a_two_player_story() -> None:
    game = Game([Seat("ana"), Seat("bo")])
    game.damage("bo", 7, source="ana-creature", lifelink=True, controller="ana")
    assert (game.life_of("ana"), game.life_of("bo")) == (27, 13)  # 120.3a, 120.3f
    game.pay_life("bo", 13)  # 119.4: exactly what he has
    assert game.life_of("bo") == 0
    outcome = game.outcome()
    assert outcome.over and outcome.winners == ("ana",)
    assert str(outcome.results["bo"]) == "lost (life, 704.5a)"
    with pytest.raises(RefusedError) as refused:
        game.gain_life("bo", 1)
    assert refused.value.rule == "104.1"


@pytest.mark.rule("119.4")
def test_refused_and_malformed_actions_change_nothing() -> None:
    game = Game(FOUR)
    before = state_dict(game)
    with pytest.raises(RefusedError):
        game.pay_life("ana", 21)
    with pytest.raises(MalformedError) as malformed:
        game.damage("zed", 1, source="x")
    assert malformed.value.member == "to"
    with pytest.raises(MalformedError) as malformed:
        game.apply(a.Damage("ana", 1))  # 120.1: damage is dealt by a source
    assert malformed.value.member == "source"
    with pytest.raises(MalformedError):
        game.lose_life("ana", -1)
    with pytest.raises(MalformedError):
        game.together(a.Damage("ana", 5, source="x"), a.Damage("zed", 1, source="x"))
    assert state_dict(game) == before


def test_views_are_read_only() -> None:
    game = Game(FOUR)
    game.add_counters("ana", "energy", 3)
    view = game.player("ana")
    with pytest.raises(TypeError):
        view.counters["energy"] = 9  # type: ignore[index]
    with pytest.raises(AttributeError):
        view.life = 1  # type: ignore[misc]
    assert game.player("ana").counters == {"energy": 3}


def test_repr_of_a_game_is_a_constructor_call() -> None:
    game = Game(
        [Seat("ana", team="a"), Seat("bo", team="a"), Seat("cy", team="b"), Seat("di", team="b")],
        variant="two-headed-giant",
        starting_life=25,
    )
    rebuilt = eval(repr(game), {"Game": Game, "Seat": Seat})
    assert repr(rebuilt) == repr(game)
    assert rebuilt.life_of("ana") == 25


@pytest.mark.rule("727.1")
def test_a_game_written_out_replays_to_the_same_state() -> None:
    game = Game(FOUR, format="commander")
    game.effect("pridemate", "on_gain_life", "bo")
    game.gain_life("bo", 3)
    game.concede("di")
    game.restart("ana")
    game.damage("cy", 4, source="ana-creature")
    for shape in (False, True):
        replayed = loads(dumps(game, stream=shape))
        assert state_dict(replayed.game) == state_dict(game)
    assert game.outcome().game == 2
    assert game.player("di").result.status is Status.LOST


def test_the_timeline_names_positions_changes_and_rules() -> None:
    game = Game([Seat("ana"), Seat("bo")])
    lines: list[str] = []
    timeline = Timeline(game, lines.append)
    timeline.header()
    from lifeledger.record import steps

    for step in steps(game, [{"do": "pay_life", "player": "ana", "amount": 30}]):
        timeline(step)
    for step in steps(game, [{"do": "damage", "source": "x", "to": "bo", "amount": 20}], start=1):
        timeline(step)
    timeline.footer()
    text = "\n".join(lines)
    assert "refused: ana can't pay 30 life with 20 life (119.4)" in text
    assert "bo life: 20 -> 0" in text
    assert "bo is: playing -> LOST (life, 704.5a)" in text
    assert "ana is: playing -> WON (last-standing, 104.2a)" in text
    assert text.endswith("game 1 is over")
    assert "\x1b[" not in text
    coloured = io.StringIO()
    Timeline(Game([Seat("a"), Seat("b")]), coloured.write, colour=True).header()
    assert "\x1b[" in coloured.getvalue()


def test_a_game_keeps_at_most_30_attributes():
    """CPython 3.11 shares an instance dictionary's keys (and reads attributes fast) up to 30
    keys; a game with more replays about 13% slower (docs/design.md)."""
    for version in (1, 2):
        game = Game([Seat("ana"), Seat("bo")], version=version, range_of_influence=1)
        game.damage("bo", 1, source="x")
        assert len(vars(game)) <= 30
        assert len(vars(game.copy())) <= 30

"""Issue 21, item 1: the work of one action is bounded, and what rolls it back costs what the
game holds, not a copy of it.

A seated phone froze every table with one message: Bo at 10^1000 life, Sanguine Bond,
Exquisite Blood, Boon Reflection and N Ajani's Pridemates, then ``gain_life ana 1``: the gains
double until a total passes 10^1000, every one of them counting N Pridemate triggers (N = 2,500:
34 s and 1.96 GB); and a ``repeat`` of groups deep-copied the whole game once a part (1,000
cards: 36.6 s). The bound in steps (:data:`lifeledger.budget.MAX_STEPS`) is the same on every
machine, so a record replays alike everywhere; a server adds a bound in time
(:attr:`lifeledger.Game.time_limit`). Either way the action is :class:`TooMuchWork` (a
:class:`MalformedError`, member ``do``) and nothing of it happens.
"""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lifeledger import Game, Seat, budget, record
from lifeledger.actions import GainLife, LoseLife, PayLife, Repeat, Together
from lifeledger.budget import MAX_STEPS
from lifeledger.errors import MalformedError, RefusedError, TooMuchWork
from lifeledger.state import state_dict
from test_properties import SETTINGS, Table, an_action, headers, snapshot
from test_properties_stack import STACK_CARDS, stack_action
from test_properties_v2 import v2_headers


def _drain_engine(pridemates: int) -> Game:
    """The attack of item 1: every gain of Ana's doubles (Boon Reflection), drains Bo (Sanguine
    Bond), which Ana gains back (Exquisite Blood), and each gain triggers every Pridemate."""
    game = Game([Seat("ana"), Seat("bo")], version=2)
    game.set_life("bo", 10**1000)
    game.card("bond", "Sanguine Bond", controller="ana")
    game.card("blood", "Exquisite Blood", controller="ana")
    game.card("boon", "Boon Reflection", controller="ana")
    for i in range(pridemates):
        game.card(f"pridemate-{i}", "Ajani's Pridemate", controller="ana")
    return game


def test_732_2a_an_action_past_the_bound_in_steps_is_too_much_work_and_changes_nothing() -> None:
    """With 300 Pridemates the gains pass 10^1000 only after some 1,000,000 trigger counts:
    the action is given up at the bound in steps, the same on every machine (it took 5 s, and
    34 s with 2,500 Pridemates)."""
    game = _drain_engine(300)
    before = state_dict(game)
    with pytest.raises(TooMuchWork, match=f"more than {MAX_STEPS:,} steps") as raised:
        game.gain_life("ana", 1)
    assert raised.value.limit == "steps"
    assert raised.value.member == "do"
    assert isinstance(raised.value, MalformedError)  # a record must state the result instead
    assert state_dict(game) == before
    assert game.notes == []
    assert game.life_of("ana") == 20


def test_732_2a_a_time_limit_gives_up_an_action_and_changes_nothing() -> None:
    """A server deciding a phone's change sets a time limit: the same attack is given up
    within it, and the game is as it was; an ordinary action then goes through."""
    game = _drain_engine(300)
    game.time_limit = 0.01
    before = state_dict(game)
    with pytest.raises(TooMuchWork, match=r"more than 0\.01 s of work") as raised:
        game.gain_life("ana", 1)
    assert raised.value.limit == "seconds"
    assert state_dict(game) == before
    game.end("boon")
    game.end("blood")
    game.lose_life("bo", 1)
    assert game.life_of("bo") == 10**1000 - 1


def test_a_time_limit_is_a_positive_number_of_seconds() -> None:
    game = Game([Seat("ana"), Seat("bo")])
    assert game.time_limit is None
    for bad in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="positive number of seconds"):
            game.time_limit = bad
    game.time_limit = 0.5
    assert game.time_limit == 0.5
    game.time_limit = None
    assert game.time_limit is None


def test_609_3_a_refused_part_rolls_back_without_copying_every_card() -> None:
    """A group's refused part (609.3) restores what the game was before it. With 1,000 cards
    in play, five groups of 200 parts (the accepted variant of item 1) took 36.6 s, since each
    part deep-copied every card; the copy now costs steps in proportion to what it copies, and
    the shortcut stays well inside the bound."""
    game = Game([Seat("ana"), Seat("bo")], version=2)
    for i in range(1000):
        game.card(f"pridemate-{i}", "Ajani's Pridemate", controller="ana")
    game.apply(Repeat(5, (Together(tuple(LoseLife("bo", 0) for _ in range(200))),)))
    assert game.life_of("bo") == 20
    # A refused part among accepted ones: the others happen, the refused one changes nothing.
    game.apply(Together((GainLife("ana", 3), PayLife((("ana", 100),)), LoseLife("bo", 2))))
    assert [position for position, _ in game.refusals] == ["1"]  # 119.4: can't pay 100
    assert (game.life_of("ana"), game.life_of("bo")) == (23, 18)
    assert game.triggered["pridemate-999"] == 1


def test_810_9a_a_part_restored_in_two_headed_giant_keeps_the_team_sharing_one_total() -> None:
    """A restored snapshot keeps a team's one shared life total (810.9a) shared: after a
    refused part (119.4a: the team can't pay 40), a loss of one head is the other's too."""
    game = Game(
        [
            Seat("ana", team="north"),
            Seat("bo", team="north"),
            Seat("cy", team="south"),
            Seat("di", team="south"),
        ],
        variant="two-headed-giant",
    )
    game.apply(Together((PayLife((("ana", 40),)), LoseLife("cy", 1))))
    assert [r[0] for r in game.refusals] == ["0"]
    game.lose_life("ana", 5)
    assert game.life_of("bo") == 25
    assert game.life_of("di") == 29


def _plays_on_a_small_budget(data: st.DataObject, chooser: Any, head: dict[str, Any]) -> int:
    """Apply drawn actions to a game whose every action may take only a drawn handful of
    steps: whatever step the budget runs out at, the action changes nothing."""
    steps = data.draw(st.integers(1, 40), label="steps")
    game = record.replay({**head, "actions": []}).game
    table = Table(head)
    if chooser is stack_action:
        table.cards = STACK_CARDS  # type: ignore[attr-defined]
    given_up = 0
    with mock.patch.object(budget, "MAX_STEPS", steps):
        for index in range(data.draw(st.integers(0, 24))):
            before = snapshot(game)
            obj = chooser(data.draw, table, before)
            try:
                game.apply(record.parse_action(obj, str(index)))
            except TooMuchWork:
                given_up += 1
                assert snapshot(game) == before  # nothing of it happened
                assert game.notes == [] and game.refusals == []
                continue
            except (RefusedError, MalformedError):
                assert snapshot(game) == before
                continue
            table.applied(obj)
    return given_up


@SETTINGS
@given(st.data())
def test_732_2a_an_action_given_up_at_any_step_changes_nothing(data: st.DataObject) -> None:
    """Property: a budget that runs out anywhere (in a handler, a group's part, a shortcut's
    iteration, a trigger's resolution) leaves the game exactly as it was, in every variant and
    both record versions, with the catalogue's triggers on the stack."""
    if data.draw(st.booleans(), label="stack"):
        _plays_on_a_small_budget(data, stack_action, data.draw(v2_headers()))
    else:
        _plays_on_a_small_budget(data, an_action, data.draw(headers()))


def _scenarios() -> list[tuple[str, Game, Any]]:
    """Actions whose work runs through every place the budget is spent: a loop of triggers on
    the stack, a group with a refused part, a shortcut, a turn, Two-Headed Giant."""
    drain = Game([Seat("ana"), Seat("bo"), Seat("cy")], version=2, starting_life=9)
    for card, name in (("bond", "Sanguine Bond"), ("blood", "Exquisite Blood")):
        drain.card(card, name, controller="ana")
    for i in range(3):
        drain.card(f"pridemate-{i}", "Ajani's Pridemate", controller="ana")
    drain.choose("ana", targets={"bond": ["bo", "cy"]})
    group = Game([Seat("ana"), Seat("bo")])
    for i in range(4):
        group.card(f"pridemate-{i}", "Ajani's Pridemate", controller="ana")
    shortcut = Game([Seat("ana"), Seat("bo")], version=2)
    shortcut.card("bond", "Sanguine Bond", controller="ana")
    giant = Game(
        [Seat("ana", team="n"), Seat("bo", team="n"), Seat("cy", team="s"), Seat("di", team="s")],
        variant="two-headed-giant",
        version=2,
    )
    giant.card("angel", "Platinum Angel", controller="ana")
    giant.card("bond", "Sanguine Bond", controller="cy")
    giant.choose("cy", targets={"bond": ["ana"]})
    return [
        ("drain", drain, GainLife("ana", 1)),
        ("group", group, Together((GainLife("ana", 2), PayLife((("bo", 99),)), LoseLife("bo", 3)))),
        ("shortcut", shortcut, Repeat(4, (GainLife("ana", 1), LoseLife("ana", 1)))),
        ("giant", giant, Repeat(3, (GainLife("cy", 25),))),
    ]


@pytest.mark.parametrize("name", ["drain", "group", "shortcut", "giant"])
def test_732_2a_an_action_cut_at_every_step_changes_nothing(name: str) -> None:
    """Every place an action can run out of steps, in turn: each cut leaves the game exactly as
    it was (or, cut where nothing may stop it any more, as the whole action leaves it)."""
    _, game, action = next(s for s in _scenarios() if s[0] == name)
    whole = game.copy()
    whole.apply(action)
    used = MAX_STEPS - whole._budget.left
    assert used > 3
    after, before = state_dict(whole), state_dict(game)
    given_up = 0
    for steps in range(1, used + 1):
        cut = game.copy()
        with mock.patch.object(budget, "MAX_STEPS", steps):
            try:
                cut.apply(action)
            except TooMuchWork:
                given_up += 1
                assert state_dict(cut) == before, steps
                continue
        assert state_dict(cut) == after, steps
    assert given_up >= used // 2


def test_a_copy_keeps_no_bound_in_time() -> None:
    """A server's bound on its users' actions is the live game's: a copy (a checkpoint a
    table stores, the game an undo replays) replays accepted actions whatever the machine."""
    game = Game([Seat("ana"), Seat("bo")])
    game.time_limit = 0.001
    game.deadline = 0.0  # long past
    copy = game.copy()
    assert (copy.time_limit, copy.deadline) == (None, None)
    copy.lose_life("bo", 3)
    assert copy.life_of("bo") == 17

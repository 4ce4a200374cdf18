"""A game as data (``lifeledger.snapshot``, issue 26 item 6): ``from_data(to_data(game))`` holds
every attribute ``game.copy()`` holds (the journal and the budget aside: nothing between two
actions), and goes on exactly as the copy for any further actions: the same state, notes,
refusals, touches, outcome, errors and record. Data of any other shape is refused, naming where
and what, and nothing named by it is built. Random games as in ``tests/test_properties*.py``."""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lifeledger import Game, Seat, record
from lifeledger import state as ll_state
from lifeledger.errors import ChoiceNeeded, LifeledgerError
from lifeledger.sentences import Sentence
from lifeledger.snapshot import (
    SnapshotError,
    from_data,
    outcome_from_data,
    outcome_to_data,
    to_data,
)
from test_properties import SETTINGS, Table, an_action, headers, stated_choice
from test_properties_stack import STACK_CARDS, stack_action
from test_properties_v2 import v2_action, v2_headers

#: What the copy and the loaded game need not share: the journal (emptied as the next action
#: begins) and the budget (new in a copy).
SCRATCH = {"_journal", "_budget"}


def describe(value: Any, seen: dict[int, str], path: str) -> Any:
    """Everything ``value`` holds, as plain values, an object met twice (a shared total, an
    effect in two indexes, a trigger waiting and merged) named by where it was met first."""
    if value is None or type(value) in (bool, int, str, float):
        return value
    if isinstance(value, enum.Enum):
        return (type(value).__name__, value.value)
    if isinstance(value, Sentence):
        args = {k: describe(v, {}, "") for k, v in value.args.items()}
        return ("Sentence", str(value), value.template, value.plural, value.count_by, args)
    if isinstance(value, (str, int)):  # Id, Grouped
        return (type(value).__name__, value)
    if isinstance(value, LifeledgerError):
        return (type(value).__name__, describe(vars(value), {}, ""))
    # A frozen dataclass (a result, a seat, an effect) is a value: who else holds it is no
    # matter, as nothing can change it.
    frozen = dataclasses.is_dataclass(value) and type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]
    mutable = not isinstance(value, (tuple, frozenset)) and not frozen
    if mutable:
        if id(value) in seen:
            return ("same as", seen[id(value)])
        seen[id(value)] = path
    if isinstance(value, dict):
        return {
            repr(describe(k, {}, "")): describe(v, seen, f"{path}[{k!r}]") for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [type(value).__name__] + [
            describe(v, seen, f"{path}[{i}]") for i, v in enumerate(value)
        ]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(describe(v, seen, f"{path}{{}}")) for v in value)
    if isinstance(value, Game):
        names = [n for n in vars(value) if n not in SCRATCH]
    elif hasattr(value, "__dict__"):
        names = list(vars(value))
    else:
        names = [n for cls in type(value).__mro__ for n in getattr(cls, "__slots__", ())]
    return (
        type(value).__name__,
        {n: describe(getattr(value, n), seen, f"{path}.{n}") for n in names},
    )


def whole(game: Game) -> Any:
    return describe(game, {}, "game")


def reload(game: Game) -> Game:
    """``game`` written as data, through JSON text, and read back."""
    return from_data(json.loads(json.dumps(to_data(game))))


def attempt(game: Game, obj: dict[str, Any], position: int) -> tuple[Any, Any]:
    """Apply ``obj``: what the game says of it and is after it, and the error, if any."""
    error: LifeledgerError | None = None
    try:
        game.apply(record.parse_action(obj, str(position)))
    except LifeledgerError as exc:
        error = exc
    outcome = game.outcome()
    return (
        None if error is None else (type(error).__name__, str(error)),
        ll_state.state_dict(game, []),
        [(n.rule, n.text) for n in game.notes],
        [(where, e.rule, e.message) for where, e in game.refusals],
        game.touched,
        (outcome.over, outcome.game, dict(outcome.results), dict(outcome.team_results)),
    ), error


def goes_on_as_its_copy(data: st.DataObject, head: dict[str, Any], chooser: Any) -> None:
    """Play a random game; at a drawn action, write it as data and read it back: the game read
    holds what a copy holds, and the rest of the game's actions (accepted, refused, malformed
    or needing a choice, then the choice) happen alike to both, then they are still alike."""
    game = record.replay({**head, "actions": []}).game
    table = Table(head)
    table.cards = STACK_CARDS  # type: ignore[attr-defined]  # for stack_action
    length = data.draw(st.integers(0, 20))
    at = data.draw(st.integers(0, length))
    others: list[Game] = []
    for index in range(length):
        if index == at:
            loaded, copied = reload(game), game.copy()
            assert whole(loaded) == whole(copied)
            others = [loaded, copied]
        obj = chooser(data.draw, table, ll_state.state_dict(game, []))
        said, error = attempt(game, obj, index)
        assert [attempt(other, obj, index)[0] for other in others] == [said] * len(others)
        if error is None:
            table.applied(obj)
        elif isinstance(error, ChoiceNeeded):
            choice = stated_choice(data.draw, error)
            said, _ = attempt(game, choice, index)
            assert [attempt(other, choice, index)[0] for other in others] == [said] * len(others)
    if not others:
        others = [reload(game), game.copy()]
    loaded, copied = others
    assert whole(loaded) == whole(copied)
    assert whole(reload(loaded)) == whole(copied)
    assert record.dumps(loaded) == record.dumps(copied) == record.dumps(game)


@SETTINGS
@given(st.data())
def test_a_game_read_from_its_data_goes_on_as_its_copy(data: st.DataObject) -> None:
    goes_on_as_its_copy(data, data.draw(headers()), an_action)


@SETTINGS
@given(st.data())
def test_a_version_2_game_read_from_its_data_goes_on_as_its_copy(data: st.DataObject) -> None:
    goes_on_as_its_copy(data, data.draw(v2_headers()), v2_action)


@SETTINGS
@given(st.data())
def test_a_game_with_triggers_read_from_its_data_goes_on_as_its_copy(
    data: st.DataObject,
) -> None:
    """Triggers waiting, on the stack and merged, stated choices, omen counters, Lich's
    Mirrors (603.3b, 603.3d, 616.1)."""
    goes_on_as_its_copy(data, data.draw(v2_headers()), stack_action)


def test_shared_totals_stay_shared_and_outcomes_round_trip() -> None:
    """810.9a: a Two-Headed Giant team's life total is one total its heads share; read back,
    a change to one head's is the other's."""
    game = Game(
        [Seat("ana", team="n"), Seat("bo", team="n"), Seat("cy", team="s"), Seat("di", team="s")],
        variant="two-headed-giant",
    )
    game.damage("bo", 31, source="cy-attackers")
    loaded = reload(game)
    assert loaded._players["ana"].life is loaded._players["bo"].life
    assert loaded.outcome() == game.outcome() and loaded.outcome().over
    outcome = game.outcome()
    again = outcome_from_data(json.loads(json.dumps(outcome_to_data(outcome))))
    assert again.results == dict(outcome.results) and again.over


def a_game_as_data() -> dict[str, Any]:
    game = Game([Seat("ana"), Seat("bo")], version=2)
    game.card("sb", "Sanguine Bond", "ana")
    game.choose("ana", targets={"sb": "bo"})
    game.gain_life("ana", 3)
    return json.loads(json.dumps(to_data(game)))


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda d: d.update(snapshot=2), "snapshot"),
        (lambda d: d.update(snapshot=True), "snapshot"),
        (lambda d: d.pop("over"), "the game"),
        (lambda d: d.update(extra=1), "the game"),
        (lambda d: d["players"][1].update(life="7"), "players[1].life"),
        (lambda d: d["players"][1].update(life=99), "players[1].life"),
        (lambda d: d["players"][0].update(id="cy"), "players[0].id"),
        (lambda d: d["players"][0].update(counters={"rad": -1}), "players[0].counters.rad"),
        (lambda d: d["players"][0].update(result=["gone", None, None]), "players[0].result[0]"),
        (lambda d: d.update(variant="os.system"), "variant"),
        (lambda d: d.update(format={"__reduce__": "os.system"}), "format"),
        (lambda d: d["by_kind"][0].__setitem__(0, "builtins.eval"), "by_kind[0][0]"),
        (
            lambda d: d["stack"].update(
                triggers=[["sb", "ana", "gain_drains_target", 1.5, "a", None]]
            ),
            "stack.triggers[0][3]",
        ),
        (lambda d: d["stack"].update(pending=[0]), "stack.pending[0]"),
        (lambda d: d["notes"][0].__setitem__(1, {"py/object": "os.system"}), "notes[0][1]"),
        (lambda d: d["designations"].update(monarch="nobody"), "designations.monarch"),
        (lambda d: d["touched_other"].append({"module": "os"}), "touched_other[0]"),
        (lambda d: d.update(history=[{"do": "explode"}]), "history"),
        (lambda d: d["seats"][0].update(id="not an id!"), "seats[0]"),
        (lambda d: d["players"][0].update(life=10**1001), "players[0].life"),
    ],
)
def test_data_of_another_shape_is_refused_naming_where(change: Any, where: str) -> None:
    """Nothing the data names is built: an unknown version, member, type, name, enumeration
    value, index or player is a :class:`SnapshotError` (a ``ValueError``) naming the member."""
    data = a_game_as_data()
    assert data["notes"] and data["by_kind"]
    change(data)
    with pytest.raises(SnapshotError) as caught:
        from_data(data)
    assert caught.value.where == where, caught.value
    assert str(caught.value).startswith(f"snapshot, {where}: ")


def test_data_that_is_no_object_is_refused() -> None:
    for value in (None, [], "game", 3, copy):
        with pytest.raises(SnapshotError, match="the game: an object"):
            from_data(value)

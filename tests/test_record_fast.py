"""The record's fast path (the usual actions read with a few comparisons, and a stream's usual
line read without the general line reader) builds exactly what the general parser builds, and
leaves everything else to it: the same action, or the same error naming the same member.

Every test runs twice: with the json module's reader of lines (the default) and with the
``fast`` extra's (msgspec, :func:`lifeledger.record.use_decoder`: issue 19 item 5)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lifeledger import MalformedError, record
from lifeledger import state as ll_state
from lifeledger.bounds import MAX_INTEGER
from test_properties import SETTINGS, Table, an_action, headers, mutated, play


@pytest.fixture(autouse=True, scope="module", params=["json", "msgspec"])
def decoder(request: pytest.FixtureRequest) -> Any:
    """The reader of a stream's lines these tests run with."""
    if request.param == "msgspec":
        import lifeledger_fast

        lifeledger_fast.install()
    yield request.param
    record.use_decoder(None)


def general(value: Any) -> Any:
    """What the general parser makes of ``value``: an action, or the error's text."""
    try:
        return record._parse_action(value, None, None)
    except MalformedError as exc:
        return ("malformed", str(exc))


def fast(value: Any) -> Any:
    try:
        return record.parse_action(value)
    except MalformedError as exc:
        return ("malformed", str(exc))


def line_general(line: str) -> Any:
    try:
        return record._parse_action(record._parse_line(line), None, None)
    except MalformedError as exc:
        return ("malformed", str(exc))


def line_fast(line: str) -> Any:
    try:
        return record._line_action(line)
    except MalformedError as exc:
        return ("malformed", str(exc))


def same(value: Any) -> None:
    assert fast(value) == general(value), value
    line = json.dumps(value) + "\n"
    assert line_fast(line) == line_general(line), line


@SETTINGS
@given(st.data())
def test_the_fast_path_builds_what_the_general_parser_builds(data: st.DataObject):
    head = data.draw(headers())
    played = play(data.draw, head, length=10)
    table = Table(head)
    for state in played.states:
        same(an_action(data.draw, table, state))


@SETTINGS
@given(st.data())
def test_the_fast_path_leaves_every_odd_action_to_the_general_parser(data: st.DataObject):
    head = data.draw(headers())
    table = Table(head)
    state = ll_state.state_dict(record.replay({**head, "actions": []}).game)
    for _ in range(6):
        same(data.draw(mutated(an_action(data.draw, table, state))))


USUAL = [
    {"do": "damage", "source": "bolt", "to": "ana", "amount": 3},
    {"do": "damage", "source": "bo-c", "to": "ana", "amount": 3, "combat": True, "toxic": 2},
    {"do": "damage", "source": "x", "to": "ana", "amount": 3, "lifelink": True, "controller": "bo"},
    {"do": "lose_life", "player": "ana", "amount": 1},
    {"do": "gain_life", "player": "ana", "amount": 1, "source": "healer", "note": "n"},
    {"do": "pay_life", "player": "ana", "amount": 2},
    {"do": "set_life", "player": "ana", "to": -4},
    {"do": "add_counters", "player": "ana", "kind": "energy", "amount": 2},
    {"do": "remove_counters", "player": "ana", "kind": "poison", "amount": 1},
    {"do": "draw", "player": "ana", "count": 2},
    {"do": "concede", "player": "ana"},
    {"do": "win", "player": "ana", "source": "maniac"},
    {"do": "penalty", "player": "ana"},
    {"do": "upkeep", "player": "ana"},
]

ODD = [None, True, False, 0, 1, -1, 2.0, "", "é", "\ud800", [], {}, MAX_INTEGER, MAX_INTEGER + 1]


@pytest.mark.parametrize("action", USUAL, ids=lambda a: a["do"])
def test_each_usual_action_and_each_odd_value_of_its_members(action: dict[str, Any]):
    same(action)
    assert type(fast(action)) is type(general(action))  # a usual action is one
    for name in [*action, "note", "source", "combat", "lifelink", "toxic", "extra"]:
        for odd in ODD:
            same({**action, name: odd})
        without = {k: v for k, v in action.items() if k != name}
        same(without)


@pytest.mark.parametrize(
    "line",
    [
        '{"do": "gain_life", "player": "ana", "amount": 1, "amount": 2}\n',
        '{"do": "gain_life", "player": "ana", "amount": 1, "note": "a: b"}\n',
        '{"do": "gain_life", "player": "ana", "amount": 1}   \n',
        '{"do": "gain_life", "player": "ana", "amount": 1} x\n',
        '{"do": "gain_life", "player": "ana", "amount": 1}{}\n',
        ' {"do": "gain_life", "player": "ana", "amount": 1}\n',
        '{"do": "gain_life", "player": "\\u00e9", "amount": 1}\n',
        '{"do": "gain_life", "player": "\\ud800", "amount": 1}\n',
        '{"do": "gain_life", "player": "ana", "amount": ' + "9" * 1200 + "}\n",
        '{"do": "gain_life", "player": "ana", "amount": NaN}\n',
        '{"do": "gain_life", "player": "ana", "amount": Infinity}\n',
        '{"do": "gain_life", "player": "ana", "amount": 18446744073709551616}\n',
        '{"do": "gain_life", "player": "ana", "amount": -9223372036854775809}\n',
        '{"do": "gain_life", "player": "ana", "amount": 1e400}\n',
        '{"do": "gain_life", "player": "ana", "amount": 1.0}\n',
        '{"do": "gain_life", "player": "\\ud83d\\ude00", "amount": 1}\n',
        '{"do": "gain_life", "player": "ana", "amount": 1}\t\r\n',
        '{"do": "gain_life", "player": "ana", "amount": {"life_of": "bo"}}\n',
        '{"do": "gain_life", "player": "ana", "amount": 1, "x": {"a": 1, "a": 2}}\n',
        '{"do": "gain_life", "player": "ana", "amount": 1',
        "[1, 2]\n",
        '"gain_life"\n',
        "{" * 100_000 + "\n",
    ],
)
def test_odd_lines_read_as_the_general_line_reader_reads_them(line: str):
    assert line_fast(line) == line_general(line)


def test_a_stream_whose_lines_never_repeat_replays_as_its_document():
    """Past :data:`record.LINE_CACHE` distinct lines the replay stops looking lines up; what it
    plays is the same."""
    head = {"record": 1, "players": [{"id": "ana"}, {"id": "bo"}]}
    actions = [
        {"do": "gain_life" if i % 2 else "lose_life", "player": "ana", "amount": 1, "note": f"{i}"}
        for i in range(2 * record.LINE_CACHE + 5)
    ] + [{"do": "lose_life", "player": "bo", "amount": 25}, {"do": "gain_life", "player": "ana"}]
    stream = "".join(json.dumps(x) + "\n" for x in [head, *actions[:-1]])
    replayed = record.loads(stream)
    document = record.replay({**head, "actions": actions[:-1]})
    assert ll_state.state_dict(replayed.game) == ll_state.state_dict(document.game)
    assert ll_state.state_dict(replayed.game)["players"][0]["status"] == "won"
    with pytest.raises(MalformedError) as raised:
        record.loads(stream + json.dumps(actions[-1]) + "\n")
    assert raised.value.position == str(len(actions) - 1)
    assert raised.value.member == "amount"

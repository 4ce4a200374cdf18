"""The ``fast`` extra's typed reader (lifeledger_fast.read: msgspec decoding a usual line into
typed objects) makes exactly the action the general parser makes of a line, or leaves the line
to it: never another action, never another error (issue 19 item 5)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from lifeledger import MalformedError, record

lifeledger_fast = pytest.importorskip("lifeledger_fast")

BASE = [
    {"do": "damage", "source": "bolt", "to": "ana", "amount": 3},
    {"do": "damage", "source": "c", "to": "ana", "amount": 3, "combat": True, "toxic": 2},
    {"do": "damage", "source": "x", "to": "ana", "amount": 3, "lifelink": True, "controller": "b"},
    {"do": "damage", "source": "x", "to": "ana", "amount": 3, "infect": True, "controller": None},
    {"do": "lose_life", "player": "ana", "amount": 1},
    {"do": "gain_life", "player": "ana", "amount": 1, "source": "healer", "note": "n"},
    {"do": "pay_life", "player": "ana", "amount": 2, "source": None},
    {"do": "set_life", "player": "ana", "to": -4},
    {"do": "add_counters", "player": "ana", "kind": "energy", "amount": 2},
    {"do": "remove_counters", "player": "ana", "kind": "poison", "amount": 1},
    {"do": "draw", "player": "ana", "count": 2},
    {"do": "concede", "player": "ana"},
    {"do": "win", "player": "ana", "source": "maniac"},
    {"do": "penalty", "player": "ana"},
    {"do": "upkeep", "player": "ana"},
    {"do": "turn", "player": "ana", "note": "t"},
    {"do": "become_monarch", "player": "ana"},
    {"do": "take_initiative", "player": "ana"},
    {"do": "city_blessing", "player": "ana"},
    {"do": "step", "step": "draw"},
    {"do": "cast", "player": "ana"},
    {"do": "cast", "player": "ana", "count": 2},
    {"do": "day_night", "to": "night"},
]

ODD: list[Any] = [None, True, 0, -1, 2.5, "", "a:b", "é", "\ud800", [], {}, 10**1000, 10**1000 + 1]


def general(line: str) -> Any:
    try:
        return record._parse_action(record._parse_line(line), None, None)
    except MalformedError as exc:
        return ("malformed", str(exc))


def check(line: str) -> None:
    read = lifeledger_fast.read(line)
    if read is not None:
        assert read == general(line), line
        assert type(read) is type(general(line))
    try:
        with_fast = record._line_action(line)
    except MalformedError as exc:
        with_fast = ("malformed", str(exc))
    assert with_fast == general(line), line


@pytest.fixture(autouse=True)
def installed() -> Any:
    lifeledger_fast.install()
    yield
    lifeledger_fast.uninstall()


@pytest.mark.parametrize("action", BASE, ids=lambda a: a["do"])
def test_each_usual_line_and_each_odd_value(action: dict[str, Any]) -> None:
    line = json.dumps(action) + "\n"
    assert lifeledger_fast.read(line) is not None  # a usual line is read so
    check(line)
    check(json.dumps(action, ensure_ascii=False, separators=(",", ":")))
    for name in [*action, "note", "source", "count", "extra"]:
        for odd in ODD:
            check(json.dumps({**action, name: odd}) + "\n")
            check(json.dumps({**action, name: odd}, ensure_ascii=False))
        check(json.dumps({k: v for k, v in action.items() if k != name}))


@pytest.mark.parametrize(
    "line",
    [
        '{"do": "gain_life", "player": "ana", "amount": 1, "amount": 2}',
        '{"do": "gain_life", "player": "ana", "amount": 1, "do": "lose_life"}',
        '{"do": "gain_life", "player": "ana", "amount": 1, "note": "a", "note": "b"}',
        '{"do": "damage", "source": "x", "to": "ana", "amount": 1, "to": "bo"}',
        '{"do": "gain_life", "player": "an\\u0061", "amount": 1}',
        '{"do": "gain_life", "player": "ana", "amount": 1} x',
        '{"do": "gain_life", "player": "ana", "amount": 1.0}',
        '{"do": "gain_life", "player": "ana", "amount": NaN}',
        '{"do": "step", "step": "upkeep"}',
        '{"do": "step", "step": "draw", "nonland_milled": {"ana": 1}}',
        '{"do": "day_night", "to": "dusk"}',
        '{"do": "damage", "source": "x", "to": "ana", "amount": 1, "toxic": 1}',
        '{"do": "damage", "source": "x", "to": "ana", "amount": 1, "lifelink": true}',
        '{"do": "effect", "id": "e", "kind": "cant_gain_life", "controller": "ana"}',
        "[1]",
        "",
    ],
)
def test_odd_lines(line: str) -> None:
    check(line)
    check(line + "\n")

"""The worked examples of version 2 of the record (``examples/NN-name.json``), each replayed and
checked against ``NN-name.expected.json`` as ``../shared/tools/check-records`` checks them: every
fact the expected file lists holds in the state ``lifeledger replay --json`` prints (players
and teams by id), or the record is malformed (``"error": true``, exit status 2).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from lifeledger import cli, record
from lifeledger import state as ll_state
from lifeledger.errors import MalformedError

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
WORKED = sorted(p for p in EXAMPLES.glob("[0-9][0-9]-*.json") if ".expected" not in p.name)
#: A rule number as the Comprehensive Rules write it: 103.8a, 725.4, 702.131c.
RULE = re.compile(r"\b[1-9]\d{2}\.\d+[a-z]?\b")


def mismatches(expected: Any, actual: Any, path: str = "$") -> list[str]:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{path}.{key}: missing")
            else:
                out += mismatches(value, actual[key], f"{path}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        pairs = enumerate(zip(expected, actual, strict=True))
        return [m for i, (e, a) in pairs for m in mismatches(e, a, f"{path}[{i}]")]
    if expected != actual or type(expected) is not type(actual):
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    return []


def test_there_are_at_least_15_worked_examples_of_version_2():
    assert len(WORKED) >= 15
    for path in WORKED:
        assert path.with_name(path.stem + ".expected.json").exists(), path.name


@pytest.mark.parametrize("path", WORKED, ids=[p.stem for p in WORKED])
def test_worked_example(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    assert RULE.search(document["note"]), "each example cites its rules"
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text("utf-8"))
    if expected.get("error"):
        with pytest.raises(MalformedError):
            record.load(path)
        assert cli.main(["replay", "--json", str(path)]) == 2
        return
    assert document["record"] == 2
    replay = record.load(path)
    state = ll_state.state_dict(replay.game, replay.refused)
    actual = dict(state)
    for key in ("players", "teams"):
        actual[key] = {item["id"]: item for item in state[key]}
    assert mismatches(expected, actual) == []
    # The command line prints the same state, and its timeline replays the record too.
    assert cli.main(["replay", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == state
    assert cli.main(["replay", str(path)]) == 0
    assert "game 1" in capsys.readouterr().out or state["game"] > 1

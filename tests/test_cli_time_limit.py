"""Issue 21 item 3: ``lifeledger replay`` gives up a record that takes too long, saying its
limit, and no action works without bound (a ``repeat`` is bounded by what it does: the CLI ran
a record of ``repeat`` 10^6 × 1,000 actions for about an hour, 713 MB after 30 s)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lifeledger.cli import TIMED_OUT, main

#: 1,000 actions an iteration whose changes alternate (Ana gains 1 and the totals are exchanged:
#: Bo's then Ana's total goes up), so no two iterations in a row change the same amounts and
#: the shortcut can't be settled at once (issue 19 item 4): each iteration is played.
BUSY = [
    {"do": "gain_life", "player": "ana", "amount": 1},
    {"do": "exchange_life", "players": ["ana", "bo"]},
    *[{"do": "lose_life", "player": "bo", "amount": 0}] * 998,
]


def record(tmp_path: Path, *actions: object) -> str:
    path = tmp_path / "busy.json"
    players = [{"id": "ana"}, {"id": "bo"}]
    path.write_text(json.dumps({"record": 2, "players": players, "actions": list(actions)}))
    return str(path)


@pytest.mark.parametrize("json_output", [False, True])
def test_732_2a_a_replay_past_its_time_limit_stops_and_says_the_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], json_output: bool
) -> None:
    path = record(tmp_path, {"do": "repeat", "times": 10**6, "actions": BUSY})
    flags = ["--json"] if json_output else []
    assert main(["replay", *flags, "--time-limit", "0.05", path]) == TIMED_OUT
    err = capsys.readouterr().err
    assert "time limit of 0.05 s" in err and "at action 0" in err
    assert "--time-limit SECONDS" in err
    assert err.count("\n") == 1


def test_732_2a_a_shortcut_is_bounded_by_its_work_not_its_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no time limit, the shortcut is malformed after 500,000 steps (its iterations'
    actions each one): exit status 2, member ``do``, and the record must state its result."""
    path = record(tmp_path, {"do": "repeat", "times": 10**6, "actions": BUSY})
    assert main(["replay", "--json", "--time-limit", "0", path]) == 2
    err = capsys.readouterr().err
    assert "action 0, member 'do'" in err and "500,000 steps" in err


@pytest.mark.parametrize("bad", ["-1", "nan"])
def test_a_time_limit_is_0_or_more_seconds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    path = record(tmp_path, {"do": "lose_life", "player": "bo", "amount": 1})
    assert main(["replay", "--time-limit", bad, path]) == 2
    assert "--time-limit" in capsys.readouterr().err


def test_a_record_within_its_time_limit_replays_as_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path, {"do": "repeat", "times": 3, "actions": BUSY[2:4]})
    assert main(["replay", "--json", "--time-limit", "60", path]) == 0
    assert json.loads(capsys.readouterr().out)["players"][1]["life"] == 20

"""Malformed records through the real command line: ``lifeledger replay FILE --json``.

For every kind of malformed record the spec lists, the command exits with status 2 and prints
one line on standard error that names the action's position (0-based; ``3.1`` is the second
action inside the fourth) and the member, never a traceback. Also: ``-`` reads standard input,
a stream (.jsonl) replays, and the document and stream shapes of one game print the same state.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def command() -> list[str]:
    script = ROOT / ".venv" / "bin" / "lifeledger"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "lifeledger"]


def environment() -> dict[str, str]:
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = src + os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else src
    env["NO_COLOR"] = "1"
    return env


def lifeledger(
    cwd: Path, *args: str, input: str | None = None, stdin: IO[bytes] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real command line, run in ``cwd`` with ``args``; standard input is ``input`` (text)
    or the file ``stdin``."""
    return subprocess.run(
        [*command(), *args],
        input=input,
        stdin=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment(),
        timeout=60,
    )


def run(
    cwd: Path, text: str, *, name: str = "game.json", stdin: bool = False
) -> subprocess.CompletedProcess[str]:
    """Write ``text`` to ``cwd/name`` (a name without digits) and replay it, or pipe it."""
    if stdin:
        return lifeledger(cwd, "replay", "-", "--json", input=text)
    (cwd / name).write_text(text, encoding="utf-8")
    return lifeledger(cwd, "replay", name, "--json")


def names_position(line: str, position: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(position)}(?![\w.])", line) is not None


def assert_malformed(
    result: subprocess.CompletedProcess[str],
    position: str | None,
    members: tuple[str, ...] = (),
) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    if position is not None:
        assert names_position(line, position), f"position {position} not named in: {line}"
    if members:
        assert any(m in line for m in members), f"none of {members} named in: {line}"
    return line


def doc(*actions: Any, players: Any = None, **head: Any) -> dict[str, Any]:
    return {
        "record": 1,
        "variant": "two-player",
        "format": "normal",
        "players": players if players is not None else [{"id": "ana"}, {"id": "bo"}],
        **head,
        "actions": list(actions),
    }


GOOD = [
    {"do": "damage", "source": "bolt", "to": "bo", "amount": 3},
    {"do": "gain_life", "player": "ana", "amount": 2},
]


def with_bad(bad: dict[str, Any]) -> dict[str, Any]:
    """A good record whose third action (position 2) is ``bad``."""
    return doc(*GOOD, bad)


def damage(**members: Any) -> dict[str, Any]:
    return {"do": "damage", "source": "bolt", "to": "bo", "amount": 3, **members}


def without(action: dict[str, Any], member: str) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k != member}


NOT_AMOUNTS = {
    "true": True,
    "false": False,
    "float-3.0": 3.0,
    "float-3.5": 3.5,
    "string": "3",
    "nan": math.nan,
    "infinity": math.inf,
    "minus-infinity": -math.inf,
    "null": None,
    "list": [3],
}

AMOUNT_ACTIONS = {
    "damage.amount": ({"do": "damage", "source": "bolt", "to": "bo"}, "amount"),
    "lose_life.amount": ({"do": "lose_life", "player": "bo"}, "amount"),
    "gain_life.amount": ({"do": "gain_life", "player": "ana"}, "amount"),
    "pay_life.amount": ({"do": "pay_life", "player": "ana"}, "amount"),
    "add_counters.amount": ({"do": "add_counters", "player": "bo", "kind": "poison"}, "amount"),
    "draw.count": ({"do": "draw", "player": "bo"}, "count"),
    "set_life.to": ({"do": "set_life", "player": "bo"}, "to"),
}

ACTION_CASES = [
    # missing members
    pytest.param(without(damage(), "amount"), ("amount",), id="missing-amount"),
    pytest.param(without(damage(), "to"), ("to",), id="missing-to"),
    pytest.param({"player": "ana", "amount": 2}, ("do",), id="missing-do"),
    pytest.param({"do": "gain_life", "amount": 2}, ("player",), id="missing-player"),
    pytest.param({"do": "draw", "player": "bo"}, ("count",), id="missing-count"),
    pytest.param({"do": "card", "id": "a1", "controller": "ana"}, ("name",), id="missing-name"),
    pytest.param({"do": "end"}, ("id",), id="missing-end-id"),
    pytest.param({"do": "together"}, ("actions",), id="missing-together-actions"),
    # unknown members ("note" is allowed anywhere, see below)
    pytest.param(damage(colour="red"), ("colour",), id="unknown-member"),
    pytest.param({"do": "concede", "player": "bo", "reason": "tired"}, ("reason",), id="unknown-2"),
    # wrong types
    pytest.param(damage(to=5), ("to",), id="to-not-a-string"),
    pytest.param(damage(combat="yes"), ("combat",), id="combat-not-a-boolean"),
    pytest.param(damage(infect=1), ("infect",), id="infect-not-a-boolean"),
    pytest.param(damage(source=7), ("source",), id="source-not-a-string"),
    pytest.param({"do": "lose", "players": "ana"}, ("players",), id="players-not-a-list"),
    pytest.param({"do": "together", "actions": {}}, ("actions",), id="together-not-a-list"),
    pytest.param({"do": 3, "player": "bo"}, ("do",), id="do-not-a-string"),
    pytest.param(
        {"do": "gain_life", "player": "ana", "amount": {"life_of": "ana", "fraction": "half"}},
        ("fraction",),
        id="fraction-not-a-pair",
    ),
    pytest.param(
        {"do": "gain_life", "player": "ana", "amount": {"life_of": "ana", "round": "sideways"}},
        ("round",),
        id="round-not-up-or-down",
    ),
    pytest.param(
        {"do": "gain_life", "player": "ana", "amount": {"life_of": "ana", "fraction": [1, 0]}},
        ("fraction",),
        id="fraction-over-zero",
    ),
    # unknown players
    pytest.param(damage(to="zed"), ("to",), id="unknown-player-to"),
    pytest.param({"do": "gain_life", "player": "zed", "amount": 1}, ("player",), id="unk-player"),
    pytest.param({"do": "lose", "players": ["ana", "zed"]}, ("players",), id="unknown-in-list"),
    pytest.param(
        damage(lifelink=True, controller="zed"), ("controller",), id="unknown-lifelink-controller"
    ),
    pytest.param({"do": "exchange_life", "players": ["ana", "zed"]}, ("players",), id="unk-exch"),
    pytest.param({"do": "pay_life", "payments": {"zed": 1}}, ("payments",), id="unknown-payer"),
    pytest.param({"do": "set_life", "each": {"ana": 5, "zed": 5}}, ("each",), id="unknown-each"),
    pytest.param(
        {"do": "gain_life", "player": "ana", "amount": {"life_of": "zed"}},
        ("life_of", "amount"),
        id="unknown-life-of",
    ),
    pytest.param(
        {
            "do": "effect",
            "id": "e1",
            "kind": "cant_gain_life",
            "controller": "ana",
            "affects": ["zed"],
        },
        ("affects",),
        id="unknown-affected",
    ),
    pytest.param({"do": "loop", "controllers": ["zed"]}, ("controllers",), id="unknown-loop"),
    # negative amounts
    pytest.param(damage(amount=-3), ("amount",), id="negative-damage"),
    pytest.param({"do": "gain_life", "player": "ana", "amount": -2}, ("amount",), id="neg-gain"),
    pytest.param({"do": "pay_life", "player": "ana", "amount": -1}, ("amount",), id="neg-pay"),
    pytest.param({"do": "draw", "player": "bo", "count": -1}, ("count",), id="negative-draw"),
    pytest.param(
        {"do": "add_counters", "player": "bo", "kind": "poison", "amount": -1},
        ("amount",),
        id="negative-counters",
    ),
    # unknown do, kind, card
    pytest.param({"do": "explode", "player": "bo"}, ("do",), id="unknown-do"),
    pytest.param(
        {"do": "effect", "id": "e1", "kind": "cant_attack", "controller": "ana"},
        ("kind",),
        id="unknown-effect-kind",
    ),
    pytest.param(
        {"do": "add_counters", "player": "bo", "kind": "Poison", "amount": 1},
        ("kind",),
        id="counter-kind-not-lowercase",
    ),
    pytest.param(
        {"do": "add_counters", "player": "bo", "kind": "", "amount": 1}, ("kind",), id="empty-kind"
    ),
    pytest.param(
        {"do": "card", "id": "c1", "name": "Black Lotus", "controller": "ana"},
        ("name",),
        id="unknown-card",
    ),
    # lifelink without controller
    pytest.param(damage(lifelink=True), ("controller",), id="lifelink-without-controller"),
]


@pytest.mark.parametrize(("bad", "members"), ACTION_CASES)
def test_malformed_action_exits_2_naming_position_and_member(
    tmp_path: Path, bad: dict[str, Any], members: tuple[str, ...]
):
    assert_malformed(run(tmp_path, json.dumps(with_bad(bad))), "2", members)


@pytest.mark.parametrize("value", list(NOT_AMOUNTS.values()), ids=list(NOT_AMOUNTS))
@pytest.mark.parametrize("where", list(AMOUNT_ACTIONS))
def test_what_is_not_an_amount_is_malformed(tmp_path: Path, where: str, value: Any):
    base, member = AMOUNT_ACTIONS[where]
    text = json.dumps(with_bad({**base, member: value}))  # NaN and Infinity as bare words
    assert_malformed(run(tmp_path, text), "2", (member,))


def test_nan_written_by_hand_is_malformed(tmp_path: Path):
    text = (
        '{"record": 1, "players": [{"id": "ana"}, {"id": "bo"}], "actions": [\n'
        ' {"do": "damage", "source": "bolt", "to": "bo", "amount": NaN}]}\n'
    )
    assert_malformed(run(tmp_path, text), "0", ("amount",))


def test_malformed_action_inside_a_group_is_named_by_its_inner_position(tmp_path: Path):
    group = {
        "do": "together",
        "actions": [
            {"do": "damage", "source": "quake", "to": "ana", "amount": 1},
            {"do": "damage", "source": "quake", "to": "bo", "amount": 1.5},
        ],
    }
    record = doc(*GOOD, {"do": "lose_life", "player": "bo", "amount": 1}, group)
    line = assert_malformed(run(tmp_path, json.dumps(record)), "3.1", ("amount",))
    assert not names_position(line, "3.0")


def test_a_group_inside_a_group_names_the_whole_path(tmp_path: Path):
    inner = {"do": "together", "actions": [damage(amount=1), damage(amount=-1)]}
    record = doc({"do": "together", "actions": [damage(amount=1), inner]})
    assert_malformed(run(tmp_path, json.dumps(record)), "0.1.1", ("amount",))


def test_duplicate_effect_id_is_malformed(tmp_path: Path):
    record = doc(
        {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "ana"},
        {"do": "effect", "id": "angel", "kind": "cant_gain_life", "controller": "bo"},
    )
    assert_malformed(run(tmp_path, json.dumps(record)), "1", ("id",))


def test_malformed_action_stops_the_replay_before_later_refusals(tmp_path: Path):
    # Example 23 of the shared examples: the first action is fine, the second is not.
    record = doc(
        damage(amount=2), damage(amount=-3), {"do": "pay_life", "player": "bo", "amount": 99}
    )
    assert_malformed(run(tmp_path, json.dumps(record)), "1", ("amount",))


# --- the header ---------------------------------------------------------------------------


def team_doc(variant: str, teams: list[str], fmt: str = "normal", **head: Any) -> dict[str, Any]:
    players = [{"id": f"p{chr(97 + i)}", "team": t} for i, t in enumerate(teams)]
    return doc(players=players, variant=variant, format=fmt, **head)


HEADER_CASES = [
    pytest.param(doc(variant="three-headed-dragon"), ("variant",), id="unknown-variant"),
    pytest.param(doc(format="pauper-cube"), ("format",), id="unknown-format"),
    pytest.param(
        team_doc("two-headed-giant", ["n", "n", "s", "s"], "commander"),
        ("format", "variant", "starting_life"),
        id="undefined-combination",
    ),
    pytest.param(
        team_doc("two-headed-giant", ["n", "n", "s", "s", "s"]),
        ("players", "team", "variant"),
        id="two-headed-unequal-teams",
    ),
    pytest.param(
        team_doc("two-headed-giant", ["n", "s"]),
        ("players", "team", "variant"),
        id="two-headed-teams-of-one",
    ),
    pytest.param(
        team_doc("team-vs-team", ["n", "n", "n"]),
        ("players", "team", "variant"),
        id="team-vs-team-one-team",
    ),
    pytest.param(
        team_doc("alternating-teams", ["a", "a", "b", "b"]),
        ("players", "team", "variant"),
        id="alternating-teammates-side-by-side",
    ),
    pytest.param(
        team_doc("emperor", ["a", "a", "a", "b", "b", "b"]),
        ("players", "emperor", "team", "variant"),
        id="emperor-without-emperors",
    ),
    pytest.param(
        doc(players=[{"id": "a"}, {"id": "b"}, {"id": "c"}], variant="two-player"),
        ("players", "variant"),
        id="two-player-with-three",
    ),
    pytest.param(
        doc(players=[{"id": "a"}, {"id": "b"}], variant="free-for-all"),
        ("players", "variant"),
        id="free-for-all-with-two",
    ),
    pytest.param(
        doc(players=[{"id": "a"}, {"id": "b"}, {"id": "c"}], variant="archenemy"),
        ("players", "archenemy", "variant"),
        id="archenemy-without-archenemy",
    ),
    pytest.param(
        doc(players=[{"id": "ana"}, {"id": "ana"}]), ("players", "id"), id="duplicate-player-id"
    ),
    pytest.param(
        doc(players=[{"id": "ana"}, {"id": "bo b"}]), ("players", "id"), id="id-with-a-space"
    ),
    pytest.param(
        doc(players=[{"id": "ana"}, {"id": "bo", "library": -1}]), ("library",), id="neg-library"
    ),
    pytest.param(
        doc(players=[{"id": "ana"}, {"id": "bo", "deck": 60}]), ("deck",), id="unknown-seat-member"
    ),
    pytest.param(doc(players={"ana": {}}), ("players",), id="players-not-a-list"),
    pytest.param(doc(colour="red"), ("colour",), id="unknown-header-member"),
    pytest.param(doc(options={"starting_life": 3.0}), ("starting_life",), id="float-starting-life"),
    pytest.param(doc(options={"mulligans": 1}), ("mulligans",), id="unknown-option"),
    pytest.param(
        {k: v for k, v in doc().items() if k != "players"}, ("players",), id="missing-players"
    ),
    pytest.param(
        {k: v for k, v in doc().items() if k != "actions"}, ("actions",), id="missing-actions"
    ),
]


@pytest.mark.parametrize(("record", "members"), HEADER_CASES)
def test_malformed_header_exits_2_naming_the_member(
    tmp_path: Path, record: dict[str, Any], members: tuple[str, ...]
):
    assert_malformed(run(tmp_path, json.dumps(record)), None, members)


def test_house_variant_with_starting_life_is_accepted(tmp_path: Path):
    record = team_doc(
        "two-headed-giant", ["n", "n", "s", "s"], "commander", options={"starting_life": 50}
    )
    result = run(tmp_path, json.dumps(record))
    assert result.returncode == 0, result.stderr
    teams = {t["id"]: t for t in json.loads(result.stdout)["teams"]}
    assert teams["n"]["life"] == 50


# --- not JSON at all ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["{not json", "", "[1, 2, 3]", '"a string"', '{"record": 1, "players": [', "\x00\x01"],
    ids=["broken", "empty", "array", "string", "truncated", "binary"],
)
def test_not_a_json_record_exits_2_with_one_line(tmp_path: Path, text: str):
    assert_malformed(run(tmp_path, text), None)


def test_not_utf8_exits_2(tmp_path: Path):
    (tmp_path / "game.json").write_bytes(b'{"record": 1, "players": [{"id": "\xff\xfe"}]}')
    for name in ("game.json", "-"):  # standard input is read as strictly as a file
        with (tmp_path / "game.json").open("rb") as given:
            result = lifeledger(tmp_path, "replay", name, "--json", stdin=given)
        assert_malformed(result, None)


def test_a_stream_line_that_is_not_json_is_named_by_its_position(tmp_path: Path):
    head = {k: v for k, v in doc().items() if k != "actions"}
    lines = [json.dumps(head), *(json.dumps(a) for a in GOOD), '{"do": "damage", oops}']
    assert_malformed(run(tmp_path, "\n".join(lines) + "\n", name="game.jsonl"), "2")


def test_a_malformed_stream_action_is_named_by_its_position(tmp_path: Path):
    head = {k: v for k, v in doc().items() if k != "actions"}
    lines = [json.dumps(head), json.dumps(GOOD[0]), json.dumps(damage(amount=True))]
    assert_malformed(run(tmp_path, "\n".join(lines) + "\n", name="game.jsonl"), "1", ("amount",))


def test_a_malformed_action_inside_a_stream_group_names_the_whole_path(tmp_path: Path):
    head = {k: v for k, v in doc().items() if k != "actions"}
    group = {"do": "together", "actions": [damage(amount=1), damage(amount=-1)]}
    choice = {"do": "set_life", "each": {"ana": 3}, "chosen": {"north": "ana"}}  # no such team
    for bad, member in ((group, "amount"), ({"do": "together", "actions": [choice]}, "chosen")):
        lines = [json.dumps(head), json.dumps(GOOD[0]), json.dumps(bad)]
        text = "\n".join(lines) + "\n"
        assert_malformed(
            run(tmp_path, text, name="game.jsonl"), "1.1" if bad is group else "1.0", (member,)
        )


# --- note is allowed anywhere ---------------------------------------------------------------


def test_note_is_allowed_anywhere(tmp_path: Path):
    record = {
        "note": "a whole game",
        "record": 1,
        "variant": "two-player",
        "format": "normal",
        "options": {"starting_life": None, "range_of_influence": None, "note": "defaults"},
        "players": [{"id": "ana", "note": "on the left"}, {"id": "bo", "note": "on the right"}],
        "actions": [
            damage(note="a bolt"),
            {
                "do": "together",
                "note": "Earthquake",
                "actions": [
                    {"do": "damage", "source": "quake", "to": "ana", "amount": 1, "note": "one"},
                    {"do": "damage", "source": "quake", "to": "bo", "amount": 1, "note": "two"},
                ],
            },
            {"do": "gain_life", "player": "ana", "amount": {"life_of": "bo", "note": "x"}},
        ],
    }
    result = run(tmp_path, json.dumps(record))
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    lives = {p["id"]: p["life"] for p in state["players"]}
    assert lives == {"ana": 35, "bo": 16}


# --- standard input, streams, and the two shapes -------------------------------------------


GAME = doc(
    damage(amount=7),
    {"do": "card", "id": "pridemate", "name": "Ajani's Pridemate", "controller": "ana"},
    {"do": "gain_life", "player": "ana", "amount": 3},
    {"do": "pay_life", "player": "bo", "amount": 50},
    {
        "do": "together",
        "actions": [
            {"do": "damage", "source": "quake", "to": "ana", "amount": 2},
            {"do": "damage", "source": "quake", "to": "bo", "amount": 2},
        ],
    },
)


def stream_text(record: dict[str, Any]) -> str:
    head = {k: v for k, v in record.items() if k != "actions"}
    return "".join(json.dumps(x) + "\n" for x in [head, *record["actions"]])


def test_the_example_game_replays(tmp_path: Path):
    result = run(tmp_path, json.dumps(GAME))
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    lives = {p["id"]: p["life"] for p in state["players"]}
    assert lives == {"ana": 21, "bo": 11}
    assert [(r["action"], r["rule"]) for r in state["refused"]] == [("3", "119.4")]
    assert state["triggered"] == {"pridemate": 1}


def test_amounts_are_integers_of_any_size(tmp_path: Path):
    record = doc({"do": "gain_life", "player": "ana", "amount": 10**30}, damage(amount=10**40))
    result = run(tmp_path, json.dumps(record))
    assert result.returncode == 0, result.stderr
    lives = {p["id"]: p["life"] for p in json.loads(result.stdout)["players"]}
    assert lives == {"ana": 20 + 10**30, "bo": 20 - 10**40}


def test_dash_reads_standard_input(tmp_path: Path):
    from_file = run(tmp_path, json.dumps(GAME))
    from_stdin = run(tmp_path, json.dumps(GAME), stdin=True)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert json.loads(from_stdin.stdout) == json.loads(from_file.stdout)


def test_dash_reads_a_stream_from_standard_input(tmp_path: Path):
    from_file = run(tmp_path, json.dumps(GAME))
    from_stdin = run(tmp_path, stream_text(GAME), stdin=True)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert json.loads(from_stdin.stdout) == json.loads(from_file.stdout)


def test_malformed_standard_input_exits_2(tmp_path: Path):
    assert_malformed(run(tmp_path, json.dumps(with_bad(damage(amount=-1))), stdin=True), "2")


def test_a_stream_replays_like_its_document(tmp_path: Path):
    document = run(tmp_path, json.dumps(GAME), name="game.json")
    stream = run(tmp_path, stream_text(GAME), name="game.jsonl")
    assert document.returncode == 0, document.stderr
    assert stream.returncode == 0, stream.stderr
    assert json.loads(stream.stdout) == json.loads(document.stdout)


def test_a_pretty_printed_document_is_not_mistaken_for_a_stream(tmp_path: Path):
    compact = run(tmp_path, json.dumps(GAME), name="game.json")
    pretty = run(tmp_path, json.dumps(GAME, indent=2), name="pretty.json")
    assert pretty.returncode == 0, pretty.stderr
    assert json.loads(pretty.stdout) == json.loads(compact.stdout)


def test_a_stream_with_blank_lines_and_no_actions(tmp_path: Path):
    head = {k: v for k, v in GAME.items() if k != "actions"}
    result = run(tmp_path, "\n" + json.dumps(head) + "\n\n", name="game.jsonl")
    assert result.returncode == 0, result.stderr
    assert {p["life"] for p in json.loads(result.stdout)["players"]} == {20}


def test_a_missing_file_is_an_error_without_traceback(tmp_path: Path):
    result = lifeledger(tmp_path, "replay", "nothing.json", "--json")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr


def test_groups_nested_too_deep_and_json_nested_too_deep_exit_2(tmp_path: Path) -> None:
    group: dict[str, Any] = {"do": "lose_life", "player": "ana", "amount": 1}
    for _ in range(400):
        group = {"do": "together", "actions": [group]}
    assert_malformed(run(tmp_path, json.dumps(doc(group))), "0", ("actions",))
    assert_malformed(run(tmp_path, "[" * 100_000 + "]" * 100_000), None)


def test_amounts_up_to_the_bound_replay_and_longer_ones_are_malformed(tmp_path: Path) -> None:
    """The record bounds every integer by 10^1000 (the spec's Actions; issue 7 item 5): an
    amount that brings a total to 10^1000 replays; one longer than CPython's limit on
    converting text to int is malformed, naming its member."""
    action = {"do": "gain_life", "player": "ana", "amount": 1}
    at_the_bound = json.dumps(doc(action)).replace('"amount": 1', f'"amount": {10**1000 - 20}')
    done = run(tmp_path, at_the_bound)
    assert done.returncode == 0, done.stderr
    assert f'"life": {10**1000},' in done.stdout
    beyond = json.dumps(doc(action)).replace('"amount": 1', f'"amount": {"9" * 5000}')
    line = assert_malformed(run(tmp_path, beyond), "0", ("amount",))
    assert "10^1000" in line

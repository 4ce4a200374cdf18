"""The record reader and the command line against hostile records (issue 7, items 5 and 15).

Every integer of a record is bounded by 10^1000 (the record spec, Actions), and a digit run
longer than that is refused before it is converted; nothing escapes as a ``ValueError`` with
the interpreter's default limit on converting integers to text. Every string is Unicode text,
printed with its control characters escaped; duplicate keys are malformed; a byte-order mark
is skipped; a file and standard input tell a document from a stream alike; an error names
where it is and quotes at most about 60 characters of any value.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lifeledger import Game, Kind, LifeOf, MalformedError, Seat
from lifeledger import actions as a
from lifeledger.bounds import MAX_INTEGER
from lifeledger.cli import main
from lifeledger.effects import Effect
from lifeledger.record import dumps, load, loads, parse_action, parse_header
from lifeledger.timeline import Timeline, escaped
from test_cli_malformed import assert_malformed, doc, environment, lifeledger, run

#: An integer of 5,001 digits: beyond the bound, and beyond CPython's default limit of 4,300
#: digits on converting integers to text and back.
HUGE = 10**5000
HUGE_TEXT = "1" + "0" * 5000
PLAYERS = [{"id": "ana"}, {"id": "bo"}]


def header(**members: Any) -> dict[str, Any]:
    return {"record": 1, "players": PLAYERS, **members}


def stream(*actions: Any, head: dict[str, Any] | None = None) -> str:
    return "".join(json.dumps(x) + "\n" for x in [head or header(), *actions])


def with_number(record: dict[str, Any], text: str) -> str:
    """``record`` as JSON, its placeholder 777 written as the number ``text``."""
    written = json.dumps(record)
    assert written.count("777") == 1
    return written.replace("777", text)


def malformed(text: str) -> MalformedError:
    with pytest.raises(MalformedError) as caught:
        loads(text)
    return caught.value


# --- item 5: every integer of a record within 10^1000 --------------------------------------

INTEGER_MEMBERS = [
    pytest.param(doc({"do": "gain_life", "player": "ana", "amount": 777}), "amount", id="amount"),
    pytest.param(
        doc({"do": "damage", "source": "x", "to": "bo", "amount": 777}), "amount", id="dmg"
    ),
    pytest.param(doc({"do": "set_life", "player": "ana", "to": 777}), "to", id="to"),
    pytest.param(doc({"do": "set_life", "each": {"ana": 777}}), "each", id="each"),
    pytest.param(doc({"do": "pay_life", "payments": {"ana": 777}}), "payments", id="payments"),
    pytest.param(
        doc({"do": "redistribute_life", "totals": {"ana": 777, "bo": 20}}), "totals", id="totals"
    ),
    pytest.param(doc({"do": "draw", "player": "ana", "count": 777}), "count", id="count"),
    pytest.param(
        doc({"do": "add_counters", "player": "ana", "kind": "poison", "amount": 777}),
        "amount",
        id="counters",
    ),
    pytest.param(
        doc(
            {"do": "gain_life", "player": "ana", "amount": {"life_of": "bo", "fraction": [777, 1]}}
        ),
        "amount.fraction",
        id="numerator",
    ),
    pytest.param(
        doc(
            {
                "do": "set_life",
                "player": "ana",
                "to": {"life_of": "bo", "fraction": [1, 777], "round": "up"},
            }
        ),
        "to.fraction",
        id="denominator",
    ),
    pytest.param(
        doc(
            {
                "do": "effect",
                "id": "e",
                "kind": "gain_life_times",
                "controller": "ana",
                "factor": 777,
            }
        ),
        "factor",
        id="factor",
    ),
    pytest.param(
        doc(
            {
                "do": "effect",
                "id": "e",
                "kind": "win_at_upkeep",
                "controller": "ana",
                "life_at_least": 777,
            }
        ),
        "life_at_least",
        id="life_at_least",
    ),
    pytest.param(
        doc({"do": "damage", "source": "x", "to": "bo", "amount": 1, "combat": True, "toxic": 777}),
        "toxic",
        id="toxic",
    ),
    pytest.param(doc(players=[{"id": "ana", "library": 777}, {"id": "bo"}]), "library", id="lib"),
    pytest.param(
        doc(players=[{"id": "ana", "life_modifier": 777}, {"id": "bo"}], format="vanguard"),
        "life_modifier",
        id="life_modifier",
    ),
    pytest.param(doc(players=[{"id": "ana", "range": 777}, {"id": "bo"}]), "range", id="range"),
    pytest.param(doc(options={"starting_life": 777}), "starting_life", id="starting_life"),
    pytest.param(doc(options={"range_of_influence": 777}), "range_of_influence", id="influence"),
]


@pytest.mark.parametrize(("record", "member"), INTEGER_MEMBERS)
@pytest.mark.parametrize("sign", ["", "-"], ids=["positive", "negative"])
@pytest.mark.parametrize(
    "digits", [str(MAX_INTEGER + 1), "9" * 1001, HUGE_TEXT], ids=["just-over", "1001", "5001"]
)
def test_an_integer_beyond_the_bound_is_malformed_naming_its_member(
    record: dict[str, Any], member: str, sign: str, digits: str
) -> None:
    """Issue 7 item 5: every integer of a record (amounts, counts, ``to``, ``each``,
    ``payments``, ``totals``, both terms of a fraction, ``factor``, ``life_at_least``,
    ``toxic`` and the header's integers) lies within 10^1000; beyond it the record is malformed,
    naming the member, never a ``ValueError`` (negative amounts, starting_life and fractions
    used to escape as one with CPython's default limit of 4,300 digits)."""
    error = malformed(with_number(record, sign + digits))
    assert error.member is not None and error.member.endswith(member), str(error)
    assert "10^1000" in error.message
    assert len(str(error)) < 200


@pytest.mark.parametrize(("record", "member"), INTEGER_MEMBERS)
def test_the_bound_itself_is_no_error_of_the_reader(record: dict[str, Any], member: str) -> None:
    """Issue 7 item 5: 10^1000 itself is within the bound; whatever the game then says of it,
    the reader does not refuse it as out of bounds."""
    try:
        loads(with_number(record, str(MAX_INTEGER)))
    except MalformedError as error:  # a result beyond the bound, a too large starting life...
        assert "integer is beyond" not in error.message, str(error)


def test_nothing_is_replayed_past_an_integer_beyond_the_bound() -> None:
    """Issue 7 item 5: the record is malformed at that action; the actions before it were
    applied, none after it (the stream replays them one by one)."""
    text = stream(
        {"do": "lose_life", "player": "bo", "amount": 1},
        {"do": "lose_life", "player": "bo", "amount": 777},
        {"do": "lose_life", "player": "bo", "amount": 1},
    ).replace("777", HUGE_TEXT)
    error = malformed(text)
    assert (error.position, error.member) == ("1", "amount")


def test_a_record_version_beyond_the_bound_is_malformed() -> None:
    """Issue 7 item 5: ``record`` is an integer of the header too."""
    text = json.dumps(doc()).replace('"record": 1', f'"record": {HUGE_TEXT}')
    assert malformed(text).member == "record"


def test_a_long_digit_run_is_refused_before_it_is_converted(tmp_path: Path) -> None:
    """Issue 7 item 5: a digit run longer than the bound allows is never handed to ``int``
    (quadratic in its length, and unbounded once a program lifts the interpreter's limit): ten
    million digits are refused at once, with the interpreter's limit lifted."""
    digits = "9" * 10_000_000
    (tmp_path / "long.json").write_text(
        with_number(doc({"do": "gain_life", "player": "ana", "amount": 777}), digits)
    )
    (tmp_path / "bare.json").write_text(digits)
    script = (
        "import sys, time\n"
        "sys.set_int_max_str_digits(0)\n"
        "from lifeledger import record, MalformedError\n"
        "for name in sys.argv[1:]:\n"
        "    start = time.perf_counter()\n"
        "    try:\n"
        "        record.load(name)\n"
        "    except MalformedError as error:\n"
        "        print(error.member, round(time.perf_counter() - start, 3))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "long.json", "bare.json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[0::2] == ["amount", "None"], done.stdout
    assert all(float(seconds) < 5 for seconds in lines[1::2]), done.stdout


def test_the_command_line_lifts_no_limit_on_integer_text(tmp_path: Path) -> None:
    """Issue 7 item 5: within the bound no integer needs more than CPython's default limit of
    4,300 digits, so the command line no longer lifts it (which let a record make a replay
    take quadratic time)."""
    (tmp_path / "game.json").write_text(json.dumps(doc()))
    before = sys.get_int_max_str_digits()
    try:
        assert main(["replay", str(tmp_path / "game.json"), "--json"]) == 0
        assert sys.get_int_max_str_digits() == before
    finally:
        sys.set_int_max_str_digits(before)


# --- item 5: the Python API's own validation --------------------------------------------------

API_INTEGERS = [
    pytest.param(lambda n: LifeOf("ana", (n, 1)), "fraction", id="LifeOf-numerator"),
    pytest.param(lambda n: LifeOf("ana", (-n, 1)), "fraction", id="LifeOf-negative-numerator"),
    pytest.param(lambda n: LifeOf("ana", (1, n), "up"), "fraction", id="LifeOf-denominator"),
    pytest.param(lambda n: LifeOf("ana", (1, -n), "up"), "fraction", id="LifeOf-negative-denom"),
    pytest.param(lambda n: Seat("ana", library=n), "library", id="Seat-library"),
    pytest.param(lambda n: Seat("ana", library=-n), "library", id="Seat-negative-library"),
    pytest.param(lambda n: Seat("ana", life_modifier=n), "life_modifier", id="Seat-modifier"),
    pytest.param(lambda n: Seat("ana", range=n), "range", id="Seat-range"),
    pytest.param(lambda n: Seat("ana", range=-n), "range", id="Seat-negative-range"),
    pytest.param(
        lambda n: a.StartEffect("e", Kind.GAIN_LIFE_TIMES, "ana", factor=n), "factor", id="factor"
    ),
    pytest.param(
        lambda n: a.StartEffect("e", Kind.GAIN_LIFE_TIMES, "ana", factor=-n), "factor", id="-fac"
    ),
    pytest.param(
        lambda n: a.StartEffect("e", Kind.WIN_AT_UPKEEP, "ana", life_at_least=n),
        "life_at_least",
        id="life_at_least",
    ),
    pytest.param(
        lambda n: a.StartEffect("e", Kind.WIN_AT_UPKEEP, "ana", life_at_least=-n),
        "life_at_least",
        id="negative-life_at_least",
    ),
    pytest.param(
        lambda n: Effect("e", Kind.GAIN_LIFE_TIMES, "ana", factor=n), "factor", id="Effect-factor"
    ),
    pytest.param(
        lambda n: Effect("e", Kind.WIN_AT_UPKEEP, "ana", life_at_least=n),
        "life_at_least",
        id="Effect-life_at_least",
    ),
    pytest.param(lambda n: a.Damage("bo", 1, True, toxic=n), "toxic", id="toxic"),
    pytest.param(lambda n: a.Damage("bo", 1, True, toxic=-n), "toxic", id="negative-toxic"),
]


@pytest.mark.parametrize(("build", "member"), API_INTEGERS)
def test_the_api_bounds_every_integer_it_validates(build: Any, member: str) -> None:
    """Issue 7 item 5: the values the API checks itself (a ``LifeOf``'s fraction, a seat's
    integers, an effect's ``factor`` and ``life_at_least``, ``toxic``) are bounded too, so
    that nothing later fails turning them into text (the timeline's ``describe``,
    ``record.dumps``) with a ``ValueError``."""
    with pytest.raises(MalformedError) as caught:
        build(HUGE)
    assert caught.value.member == member
    assert len(str(caught.value)) < 200


def test_toxic_below_zero_is_malformed_through_the_api() -> None:
    """Issue 7 item 5 (a sibling): the record refuses a negative ``toxic``; so does the API."""
    with pytest.raises(MalformedError) as caught:
        a.Damage("bo", 1, True, toxic=-1)
    assert caught.value.member == "toxic"


def test_a_game_at_the_bound_writes_its_record_and_replays() -> None:
    """Issue 7 item 5: ``dumps`` and the timeline turn every integer into text; within the
    bound none meets the interpreter's limit."""
    game = Game([Seat("ana", library=MAX_INTEGER), Seat("bo")])
    game.gain_life("ana", MAX_INTEGER - 20)
    game.apply(a.StartEffect("t", Kind.WIN_AT_UPKEEP, "bo", life_at_least=MAX_INTEGER))
    replayed = loads(dumps(game)).game
    assert replayed.life_of("ana") == MAX_INTEGER
    lines: list[str] = []
    Timeline(replayed, lines.append).header()
    assert str(MAX_INTEGER) in lines[0]


# --- item 15: strings are Unicode text, printed escaped ----------------------------------------


def replay_cli(
    tmp_path: Path, text: str, *args: str, name: str = "game.json", stdin: bool = False
) -> subprocess.CompletedProcess[str]:
    """The real command line (the timeline unless ``--json`` is given)."""
    if stdin:
        return lifeledger(tmp_path, "replay", "-", *args, input=text)
    (tmp_path / name).write_text(text, encoding="utf-8")
    return lifeledger(tmp_path, "replay", name, *args)


SURROGATES = [
    pytest.param(
        '{"do": "damage", "source": "\\ud800", "to": "bo", "amount": 1}', "source", id="src"
    ),
    pytest.param(
        '{"do": "lose_life", "player": "bo", "amount": 1, "note": "a\\udfffb"}', "note", id="note"
    ),
    pytest.param('{"do": "pay_life", "payments": {"\\ud800": 1}}', "payments", id="key"),
    pytest.param(
        '{"do": "effect", "id": "\\udc00", "kind": "cant_gain_life", "controller": "bo"}',
        "id",
        id="effect-id",
    ),
]


@pytest.mark.parametrize(("action", "member"), SURROGATES)
@pytest.mark.parametrize("json_out", [False, True], ids=["timeline", "json"])
def test_a_lone_surrogate_is_malformed_naming_its_member(
    tmp_path: Path, action: str, member: str, json_out: bool
) -> None:
    """Issue 7 item 15: ``"source": "\\ud800"`` crashed the timeline (exit 1, a traceback):
    a string that is not Unicode text (a lone surrogate can't be written as UTF-8) is
    malformed, naming its member; exit 2."""
    text = '{"record": 1, "players": [{"id": "ana"}, {"id": "bo"}], "actions": [' + action + "]}"
    done = replay_cli(tmp_path, text, *(["--json"] if json_out else []))
    assert_malformed(done, "0", (member,))


def test_a_lone_surrogate_in_the_header_is_malformed(tmp_path: Path) -> None:
    """Issue 7 item 15: the header's strings too (a team, a name)."""
    for seat in ('{"id": "bo", "team": "\\ud800"}', '{"id": "bo", "name": "x\\ud800"}'):
        text = '{"record": 1, "players": [{"id": "ana"}, ' + seat + '], "actions": []}'
        assert_malformed(replay_cli(tmp_path, text), None, ("players[1]",))
    with pytest.raises(MalformedError):
        Seat("ana", name="\ud800")  # and the API's seats


FORGERIES = [
    "x\n   1  ana concedes",
    "x\r   1  ana concedes",
    "\x1b[2J\x1b[31mred",
    "x\u2028y",
    "x\x85y",
    "\u202eevil",
]


@pytest.mark.parametrize(
    "source", FORGERIES, ids=["newline", "return", "esc", "u2028", "nel", "rlo"]
)
def test_strings_from_a_record_print_with_control_characters_escaped(
    tmp_path: Path, source: str
) -> None:
    """Issue 7 item 15: the timeline printed control characters raw, so a ``source`` could
    forge timeline lines (a newline) or rewrite the screen (ESC sequences). Every string from
    a record prints escaped: one action is one line, and no escape sequence reaches the
    terminal."""
    record = doc(
        {"do": "damage", "source": source, "to": "bo", "amount": 1},
        {
            "do": "together",
            "source": source,
            "actions": [{"do": "lose_life", "player": "bo", "amount": 1, "source": source}],
        },
        players=[{"id": "ana", "team": source}, {"id": "bo", "team": "south"}],
        variant="team-vs-team",
    )
    done = replay_cli(tmp_path, json.dumps(record))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines if line.lstrip().startswith(("0", "1"))] == [
        "0",
        "1",
        "1.0",
    ]
    assert escaped(source) in lines[0] and escaped(source) in lines[1]
    for char in "\r\x1b\x85\u2028\u202e":
        assert char not in done.stdout


def test_escaped_keeps_printable_text_and_joiners() -> None:
    """Issue 7 item 15: only what a terminal acts on is escaped; a zero-width joiner (in
    "🧙‍♂️ Gandalf") or a Persian zero-width non-joiner is part of a name."""
    assert escaped("🧙\u200d♂️ Gandalf") == "🧙\u200d♂️ Gandalf"
    assert escaped("می\u200cخواهم") == "می\u200cخواهم"
    assert escaped("a\nb\x1b[0m\t\ud800") == "a\\nb\\x1b[0m\\t\\ud800"


def test_an_error_line_is_one_line(tmp_path: Path) -> None:
    """Issue 7 item 15 (a sibling): the command line's error line is escaped as well, so a
    file name (or any text an error quotes) can't forge a second line."""
    done = lifeledger(tmp_path, "replay", "no\nsuch.json")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "no\\nsuch.json" in done.stderr


# --- item 15: a document and a stream, told apart alike everywhere ---------------------------


def test_a_one_line_header_without_actions_is_malformed_from_a_file_and_from_standard_input(
    tmp_path: Path,
) -> None:
    """Issue 7 item 15: a one-line document without ``actions`` exited 2 from a file but 0
    from standard input. The shape is decided by the content: a single object without
    ``actions`` is a document missing them, from a ``.json`` file or from standard input alike,
    and the message says where a stream's header alone belongs."""
    text = json.dumps(header()) + "\n"
    for given in (run(tmp_path, text), run(tmp_path, text, stdin=True)):
        line = assert_malformed(given, None, ("actions",))
        assert ".jsonl" in line
    with pytest.raises(MalformedError) as caught:
        loads(text)
    assert caught.value.member == "actions"


def test_a_header_alone_is_a_stream_in_a_jsonl_file(tmp_path: Path) -> None:
    """Issue 7 item 15: a ``.jsonl`` file is a stream whatever it holds: its header alone is
    a game with no actions yet."""
    done = run(tmp_path, json.dumps(header()) + "\n", name="game.jsonl")
    assert done.returncode == 0, done.stderr
    (tmp_path / "game.jsonl").write_text(json.dumps(header()) + "\n")
    assert load(tmp_path / "game.jsonl").game.life_of("ana") == 20
    # What dumps writes for a game without actions, read back as the stream it is.
    text = dumps(Game([Seat("ana"), Seat("bo")]), stream=True)
    assert loads(text, stream=True).game.life_of("ana") == 20
    with pytest.raises(MalformedError):
        loads(text)


def test_a_stream_is_a_stream_from_any_file_and_from_standard_input(tmp_path: Path) -> None:
    """Issue 7 item 15: a header followed by action lines is a stream by its content, from a
    ``.json`` file, a ``.jsonl`` file or standard input alike."""
    text = stream({"do": "lose_life", "player": "bo", "amount": 3})
    results = [
        run(tmp_path, text, name="game.json"),
        run(tmp_path, text, name="game.jsonl"),
        run(tmp_path, text, stdin=True),
    ]
    for done in results:
        assert done.returncode == 0, done.stderr
    assert len({r.stdout for r in results}) == 1
    (tmp_path / "game.json").write_text(text)
    assert load(tmp_path / "game.json").game.life_of("bo") == 17


def test_loads_splits_lines_where_a_file_does() -> None:
    """Issue 7 item 15 (a sibling): ``loads`` split a stream's lines at U+2028 and U+0085,
    which a JSON string may hold as they are, so a record that replays from a file was not
    JSON from ``loads``."""
    line = {"do": "lose_life", "player": "bo", "amount": 3, "note": "a\u2028b\x85c"}
    text = json.dumps(header()) + "\n" + json.dumps(line, ensure_ascii=False) + "\n"
    assert "\u2028" in text
    assert loads(text).game.life_of("bo") == 17


# --- item 15: duplicate keys --------------------------------------------------------------------

DUPLICATES = [
    pytest.param(
        '{"do": "lose_life", "do": "win", "player": "bo", "amount": 1}', "0", "do", id="do"
    ),
    pytest.param(
        '{"do": "lose_life", "player": "bo", "amount": 1, "amount": 2}', "0", "amount", id="amount"
    ),
    pytest.param(
        '{"do": "gain_life", "player": "ana", "amount": {"life_of": "ana", "life_of": "bo"}}',
        "0",
        "amount.life_of",
        id="nested",
    ),
    pytest.param(
        '{"do": "pay_life", "payments": {"ana": 1, "ana": 2}}', "0", "payments.ana", id="map"
    ),
    pytest.param(
        '{"do": "together", "actions": [{"do": "lose_life", "player": "bo", "player": "ana", '
        '"amount": 1}]}',
        "0.0",
        "player",
        id="in-group",
    ),
    pytest.param(
        '{"do": "lose_life", "note": "a: b", "player": "bo", "amount": 1, "amount": 2}',
        "0",
        "amount",
        id="colon-in-a-string",
    ),
]


@pytest.mark.parametrize(("action", "position", "member"), DUPLICATES)
@pytest.mark.parametrize("shape", ["document", "stream"])
def test_a_duplicate_key_is_malformed_naming_the_key_and_where_it_is(
    action: str, position: str, member: str, shape: str
) -> None:
    """Issue 7 item 15: duplicate keys silently kept the last (``"do": "lose_life", "do":
    "win"`` was a win). A key that appears twice in any object of a record is malformed,
    naming the key and where it is."""
    head = '{"record": 1, "players": [{"id": "ana"}, {"id": "bo"}]'
    if shape == "document":
        text = head + ', "actions": [' + action + "]}"
    else:
        text = head + "}\n" + action + "\n"
    error = malformed(text)
    assert (error.position, error.member) == (position, member), str(error)
    assert "more than once" in error.message


@pytest.mark.parametrize(
    ("record", "member"),
    [
        (
            '{"record": 1, "record": 1, "players": [{"id": "a"}, {"id": "b"}], "actions": []}',
            "record",
        ),
        (
            '{"record": 1, "players": [{"id": "a", "id": "c"}, {"id": "b"}], "actions": []}',
            "players[0].id",
        ),
        (
            '{"record": 1, "players": [{"id": "a"}, {"id": "b"}], "options": {"starting_life": 5, '
            '"starting_life": 9}, "actions": []}',
            "options.starting_life",
        ),
        (
            '{"record": 1, "players": [{"id": "a"}, {"id": "b"}], "actions": [], "actions": []}',
            "actions",
        ),
    ],
    ids=["header", "seat", "options", "actions"],
)
def test_a_duplicate_key_in_the_header_is_malformed(record: str, member: str) -> None:
    """Issue 7 item 15: in the header too, and from the command line's timeline as well."""
    error = malformed(record)
    assert (error.position, error.member) == (None, member), str(error)


def test_a_duplicate_key_stops_the_timeline_too(tmp_path: Path) -> None:
    """Issue 7 item 15: the timeline reads the record as ``--json`` does."""
    text = stream({"do": "lose_life", "player": "bo", "amount": 1})
    text += '{"do": "lose_life", "do": "win", "player": "bo", "amount": 1}\n'
    assert_malformed(replay_cli(tmp_path, text, name="game.jsonl"), "1", ("do",))


def test_colons_in_strings_and_repeated_lines_replay_as_before() -> None:
    """Issue 7 item 15: the check for duplicate keys neither refuses a string holding colons
    nor changes how a repeated line is replayed from the line cache."""
    line = {"do": "lose_life", "player": "bo", "amount": 1, "source": "Urza: Lord", "note": "1:2"}
    text = stream(*[line] * 5, {"do": "gain_life", "player": "bo", "amount": {"life_of": "ana"}})
    assert loads(text).game.life_of("bo") == 35
    repeated = stream(*[line] * 3).splitlines(keepends=True)
    repeated.append(repeated[-1].replace('"amount": 1', '"amount": 1, "amount": 9'))
    error = malformed("".join(repeated))
    assert (error.position, error.member) == ("3", "amount")


# --- item 15: a byte-order mark ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["game.json", "game.jsonl", "-"])
def test_a_byte_order_mark_is_skipped(tmp_path: Path, name: str) -> None:
    """Issue 7 item 15: a UTF-8 byte-order mark at the start (some editors write one) was
    refused as "not JSON"; it is skipped, for files and standard input."""
    record = doc({"do": "lose_life", "player": "bo", "amount": 3})
    text = stream(*record["actions"]) if name.endswith("l") else json.dumps(record)
    data = b"\xef\xbb\xbf" + text.encode("utf-8")
    (tmp_path / "in.bin").write_bytes(data)
    if name != "-":
        (tmp_path / name).write_bytes(data)
    with (tmp_path / "in.bin").open("rb") as given:
        done = lifeledger(tmp_path, "replay", name, "--json", stdin=given)
    assert done.returncode == 0, done.stderr
    assert {p["id"]: p["life"] for p in json.loads(done.stdout)["players"]} == {"ana": 20, "bo": 17}
    assert loads("\ufeff" + text).game.life_of("bo") == 17
    if name != "-":
        assert load(tmp_path / name).game.life_of("bo") == 17


# --- item 15: what an error names and quotes ---------------------------------------------------


@pytest.mark.parametrize("shape", ["document", "group", "stream"])
@pytest.mark.parametrize(
    ("value", "kind"), [([1], "a list"), ("lose", "the string 'lose'"), (3, "an integer")]
)
def test_a_non_object_action_names_where_it_is_and_what_it_is(
    shape: str, value: Any, kind: str
) -> None:
    """Issue 7 item 15: a non-object action's error named no member: it names its position,
    the member it sits in (``actions``, in a document or a group; a stream's line has none),
    and what it is instead."""
    good = {"do": "lose_life", "player": "bo", "amount": 1}
    if shape == "document":
        text, position, member = json.dumps(doc(good, value)), "1", "actions"
    elif shape == "group":
        text = json.dumps(doc(good, {"do": "together", "actions": [good, value]}))
        position, member = "1.1", "actions"
    else:
        text, position, member = stream(good, value), "1", None
    error = malformed(text)
    assert (error.position, error.member) == (position, member), str(error)
    assert error.message == f"an action is a JSON object, not {kind}"


LONG = "a" * 100_000


@pytest.mark.parametrize(
    "action",
    [
        {"do": LONG},
        {"do": "lose_life", "player": "bo", "amount": LONG},
        {"do": "lose_life", "player": "bo", "amount": 1, LONG: 1},
        {"do": "effect", "id": "e", "kind": LONG, "controller": "bo"},
        {"do": "effect", "id": "e", "kind": "cant_gain_life", "controller": "bo", "affects": LONG},
        {"do": "lose", "players": LONG},
        {"do": "lose_life", "player": "bo", "amount": int("9" * 1000)},
    ],
    ids=["do", "amount", "member", "kind", "affects", "players", "integer"],
)
def test_an_error_quotes_at_most_about_60_characters_of_a_value(
    tmp_path: Path, action: dict[str, Any]
) -> None:
    """Issue 7 item 15: an error line quoted the whole offending value (100 KB); it quotes at
    most about 60 characters of it, with an ellipsis and its length."""
    if action.get("amount") == int("9" * 1000):
        action["amount"] = -action["amount"]  # within the bound, and below 0
    done = run(tmp_path, json.dumps(doc(action)))
    line = assert_malformed(done, "0")
    assert len(line) < 250, line[:300]
    assert "…" in line
    assert "100,000 characters" in line or "1,000 digits" in line


def test_header_errors_quote_at_most_about_60_characters(tmp_path: Path) -> None:
    """Issue 7 item 15: the header's errors too (an id, a variant, a format)."""
    for record in (
        doc(players=[{"id": "ana"}, {"id": LONG + " "}]),
        doc(variant=LONG),
        doc(format=LONG),
        doc(**{LONG: 1}),
    ):
        line = assert_malformed(run(tmp_path, json.dumps(record)), None)
        assert "a" * 61 not in line and "characters)" in line, line[:300]


def test_parse_header_and_parse_action_quote_briefly_through_the_api() -> None:
    """Issue 7 item 15: the same messages through the Python API."""
    with pytest.raises(MalformedError) as caught:
        parse_action({"do": "gain_life", "player": "ana", "amount": LONG})
    assert len(str(caught.value)) < 200
    with pytest.raises(MalformedError) as caught:
        parse_header({"record": 1, "players": PLAYERS, "variant": 1, LONG: 2})
    assert len(str(caught.value)) < 200


def test_the_timeline_says_one_counter_and_one_card():
    """Issue 7 item 16's sibling on the command line: "1 poison counter", not "counters";
    "draws 1 card"."""
    from lifeledger.actions import AddCounters, Draw, RemoveCounters
    from lifeledger.timeline import describe

    assert describe(AddCounters("bo", "poison", 1)) == "bo gets 1 poison counter"
    assert describe(AddCounters("bo", "poison", 3)) == "bo gets 3 poison counters"
    assert describe(RemoveCounters("bo", "energy", 1)) == "bo loses 1 energy counter"
    assert describe(Draw("bo", 1)) == "bo draws 1 card"
    assert describe(Draw("bo", 2)) == "bo draws 2 cards"

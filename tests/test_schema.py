"""The record's JSON Schema (issue 28, item 9; docs/conformance.md): ``lifeledger schema`` prints
the package's ``schema/record.schema.json`` (draft 2020-12, versions 1 and 2), which
``tools/schema.py`` writes from the engine's own lists. Every worked example of ``examples/`` and
of the shared examples that replays validates; every one malformed by its shape doesn't; those
malformed by the rules (a choice unstated, a count the record owes) have a valid shape.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from lifeledger import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import schema as schema_tool

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (ROOT / "examples", ROOT.parent / "shared" / "examples")


def records() -> list[Path]:
    """Every record with an expected state beside it, as ``check-records`` finds them."""
    found = []
    for folder in FOLDERS:
        for path in sorted(folder.glob("*.json*")):
            if path.name.endswith(".expected.json") or path.suffix not in (".json", ".jsonl"):
                continue
            if path.with_name(path.name.split(".")[0] + ".expected.json").exists():
                found.append(path)
    return found


RECORDS = records()
#: The examples malformed by their shape, and what the schema says of each.
BY_SHAPE = {
    "19-version-1-has-no-turns": "a version-2 action in a record of version 1",
    "38-version-1-has-no-sanguine-bond": "a version-2 card in a record of version 1",
    "47-version-1-has-no-angels-grace": "a version-2 card in a record of version 1",
    "52-version-1-has-no-transcendence": "a version-2 effect kind in a record of version 1",
    "57-celestial-convergence-is-a-cards": "a kind only a card makes, as an effect",
    "23-malformed-negative-damage": "a negative amount",
}
#: Malformed by the rules or the game: their shape is a record's.
BY_RULES = {
    "18-rad-counters-need-a-count": "728.1: the nonland cards milled, owed by the record",
    "31-an-unstated-order-is-malformed": "603.3b: an order of triggers unstated",
    "66-an-unstated-order-of-replacement-effects-is-malformed": "616.1: unstated",
}
#: Malformed in its JSON text, which a parser collapses before any schema sees it.
BY_TEXT = {"76-a-repeated-member-is-malformed": "the member amount twice"}


def strict_json(text: str) -> Any:
    """JSON as the record reads it: a member twice is an error (docs/record-format.md)."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("a member appears twice in one object")
        return dict(items)

    return json.loads(text, object_pairs_hook=pairs)


def documents(path: Path) -> Any:
    """The record as one document: a stream's lines become its header and ``actions``."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix == ".jsonl":
        header, *actions = [strict_json(line) for line in text.splitlines() if line.strip()]
        return {**header, "actions": actions}
    return strict_json(text)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(cli.schema_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_package_schema_is_what_tools_schema_writes() -> None:
    assert cli.schema_text() == schema_tool.text(), "run python tools/schema.py"


def test_lifeledger_schema_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["schema"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert printed == json.loads(cli.schema_text())


def test_the_examples_are_found_in_both_folders() -> None:
    assert {p.parent for p in RECORDS} == set(FOLDERS)
    names = {p.name.split(".")[0] for p in RECORDS}
    assert set(BY_SHAPE) | set(BY_RULES) | set(BY_TEXT) <= names


@pytest.mark.parametrize("path", RECORDS, ids=[p.name.split(".")[0] for p in RECORDS])
def test_an_example_validates_unless_malformed_by_its_shape(
    path: Path, validator: jsonschema.Draft202012Validator
) -> None:
    name = path.name.split(".")[0]
    expected = json.loads(path.with_name(name + ".expected.json").read_text("utf-8"))
    if name in BY_TEXT:
        assert expected.get("error")
        with pytest.raises(ValueError):
            documents(path)
        return
    errors = list(validator.iter_errors(documents(path)))
    if name in BY_SHAPE:
        assert expected.get("error")
        assert errors, f"{name}: {BY_SHAPE[name]} validates"
        return
    assert not expected.get("error") or name in BY_RULES, f"{name}: classify its error"
    assert errors == [], [f"{e.json_path}: {e.message[:200]}" for e in errors]


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (lambda r: r.update(record=3), "$.record"),
        (lambda r: r["players"][0].update(id="a b"), "$.players[0].id"),
        (lambda r: r["actions"].append({"do": "gain_life", "player": "ana"}), "$.actions[1]"),
        (lambda r: r["actions"].append({"do": "gain", "player": "ana"}), "$.actions[1].do"),
        (lambda r: r["actions"][0].update(amount=True), "$.actions[0].amount"),
        # 2.5, not 2.0: JSON Schema's integer is any number with no fractional part (2020-12
        # core, 4.2.1), so 2.0 validates, and a reader must refuse it itself (conformance.md).
        (lambda r: r["actions"][0].update(amount=2.5), "$.actions[0].amount"),
        (lambda r: r["actions"][0].update(colour="red"), "$.actions[0]"),
        (
            lambda r: r["actions"].append({"do": "step", "step": "upkeep"}),
            "$.actions[1].step",
        ),
        (
            lambda r: r["actions"].append(
                {"do": "together", "actions": [{"do": "turn", "player": "bo"}]}
            ),
            "$.actions[1].actions[0]",
        ),
        (
            lambda r: r["actions"].append(
                {"do": "set_life", "player": "ana", "to": 3, "each": {"bo": 3}}
            ),
            "$.actions[1]",
        ),
    ],
)
def test_a_record_of_the_wrong_shape_fails_naming_where(
    change: Any, where: str, validator: jsonschema.Draft202012Validator
) -> None:
    document: dict[str, Any] = {
        "record": 2,
        "players": [{"id": "ana"}, {"id": "bo"}],
        "actions": [{"do": "gain_life", "player": "ana", "amount": 1}],
    }
    assert list(validator.iter_errors(document)) == []
    change(document)
    errors = list(validator.iter_errors(document))
    assert errors and any(e.json_path.startswith(where) for e in errors), [
        e.json_path for e in errors
    ]


def test_a_version_1_record_validates_as_version_1_and_2(
    validator: jsonschema.Draft202012Validator,
) -> None:
    # Every version-1 record replays unchanged as version 2 (docs/record-format.md).
    for path in RECORDS:
        document = documents(path) if path.name.split(".")[0] not in BY_TEXT else None
        if document is None or document.get("record") != 1:
            continue
        if list(validator.iter_errors(document)):
            continue  # malformed by its shape in version 1 (19, 38, ...)
        assert list(validator.iter_errors({**document, "record": 2})) == [], path.name

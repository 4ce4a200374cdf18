"""The reader of what clients send (``decide.jsontext.strict_json``) made once, not on every
message (issue 29 item 1): the same values and the same refusals, in the same words, as
``json.loads`` given the same checks, for text and for bytes in each encoding JSON allows."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from lifeledger.recordjson import json_error
from lifeledger.sentences import english
from lifeledger_table.decide.jsontext import (
    MAX_DEPTH,
    NotJson,
    _integer,
    _object,
    _refuse_constant,
    _too_deep,
    _too_deep_words,
    strict_json,
)

TEXTS = [
    '{"type":"action","id":"c1","action":{"do":"lose_life","player":"ana","amount":1}}',
    '{"type": "hello", "token": "t", "since": 0}',
    '[1, 2.5, -3e4, true, false, null, "\\u00e9\\ud83d\\ude00", {"a": [{}]}]',
    '"Zoë"',
    "\ufeff{}",
    '{"a": 1, "a": 2}',
    "[NaN]",
    "[-Infinity]",
    "[" + "9" * 1003 + "]",
    "[" * 70 + "]" * 70,
    "[" * 100_000,
    '{"a": }',
    "",
    "  ",
    '{"a": "\\ud800"}',
]


def reference(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``strict_json`` as it was: ``json.loads`` with the checks, a decoder made each call."""
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_int=_integer, object_pairs_hook=_object
        )
    except RecursionError:
        raise NotJson(_too_deep_words(max_depth)) from None
    except NotJson:
        raise
    except ValueError as exc:
        raise NotJson(json_error(exc)) from None
    if isinstance(value, (dict, list)) and _too_deep(value, max_depth):
        raise NotJson(_too_deep_words(max_depth))
    return value


def outcome(read: Callable[[str | bytes], Any], text: str | bytes) -> tuple[str, Any]:
    try:
        return "value", read(text)
    except NotJson as exc:
        return "refused", english(exc.words)


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("encoding", [None, "utf-8", "utf-8-sig", "utf-16", "utf-32-le"])
def test_the_reader_made_once_reads_and_refuses_as_json_loads(
    text: str, encoding: str | None
) -> None:
    given: str | bytes = text if encoding is None else text.encode(encoding, "surrogatepass")
    assert outcome(strict_json, given) == outcome(reference, given)


def test_the_refusals_are_the_documented_ones() -> None:
    assert strict_json('{"a": [1, {"b": null}]}') == {"a": [1, {"b": None}]}
    with pytest.raises(NotJson, match="appears twice"):
        strict_json('{"a": 1, "a": 2}')
    with pytest.raises(NotJson, match="NaN is not JSON"):
        strict_json("[NaN]")
    with pytest.raises(NotJson, match="integers are at most 10\\^1000"):
        strict_json("[" + "9" * 1003 + "]")
    with pytest.raises(NotJson, match="nested more than 64 deep"):
        strict_json("[" * 70 + "]" * 70)
    with pytest.raises(NotJson, match="nested more than 3 deep"):
        strict_json("[[[[]]]]", max_depth=3)

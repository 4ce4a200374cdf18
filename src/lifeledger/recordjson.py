"""The game record's JSON: parsed within the record's bounds (no integer beyond 10^1000, no
duplicate member), and the members of its objects read and checked."""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable, Container, Iterable, Mapping
from typing import Any

from .actions import Amount, LifeOf
from .bounds import MAX_DIGITS, MAX_INTEGER, check_integer
from .errors import MalformedError, quote
from .seats import check_text
from .sentences import Grouped, Plural, Sentence

#: The latest version of the game record (every version in :data:`RECORD_VERSIONS` is read).
RECORD_VERSION = 2
Json = Any


class _LongNumber:
    """A JSON integer whose text is longer than any integer within the record's bound
    (:data:`lifeledger.bounds.MAX_DIGITS` digits): it is never converted to ``int`` (CPython
    does that in time quadratic in the length), and the member that holds it is malformed."""

    __slots__ = ("digits", "negative")

    def __init__(self, digits: int, negative: bool):
        self.digits = digits
        self.negative = negative

    def error(self, member: str | None) -> MalformedError:
        return MalformedError(
            Plural(
                "an integer is beyond {bound} (it has {n} digit); the record bounds every"
                " integer by 10^1000",
                "an integer is beyond {bound} (it has {n} digits); the record bounds every"
                " integer by 10^1000",
                "n",
                bound="-10^1000" if self.negative else "10^1000",
                n=Grouped(self.digits),
            ),
            member=member,
        )


def _json_integer(text: str) -> int | _LongNumber:
    """A JSON integer, converted only if its text is short enough to lie within the bound."""
    if len(text) <= MAX_DIGITS + 1:  # a sign and 1,001 digits
        return int(text)
    negative = text.startswith("-")
    return _LongNumber(len(text) - negative, negative)


class _Duplicates(dict[str, Any]):
    """A JSON object in which ``key`` appears more than once (json keeps the last): whoever
    reads it as an object names the key as malformed."""

    __slots__ = ("key",)
    key: str


def _json_object(pairs: list[tuple[str, Json]]) -> dict[str, Json]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    duplicates = _Duplicates(obj)
    duplicates.key = key
    return duplicates


#: The record's JSON reader: integers longer than the bound are never converted, and an object
#: with a duplicate key is marked (see :func:`_object`).
_DECODER = json.JSONDecoder(parse_int=_json_integer, object_pairs_hook=_json_object)

#: A byte-order mark, which some editors write at the start of a UTF-8 file.
_BOM = "\ufeff"


def parse_json(text: str | bytes, position: str | None = None) -> Json:
    """Parse a record's JSON (a UTF-8 byte-order mark at the start is skipped). ``NaN`` and
    ``Infinity`` parse as floats, an integer longer than the record's bound as a marker that is
    not converted, and an object with a duplicate key as a marked object: no member of a record
    accepts any of them, so the member that holds one is named as malformed."""
    try:
        if isinstance(text, bytes):
            return json.loads(text, parse_int=_json_integer, object_pairs_hook=_json_object)
        return _DECODER.decode(text[1:] if text.startswith(_BOM) else text)
    except (ValueError, RecursionError) as exc:
        raise MalformedError(
            Sentence("not JSON: {error}", error=json_error(exc)), position=position
        ) from None


#: What the json module's parser says (its messages' beginnings, in CPython's C scanner and
#: its Python fallback), in words a catalogue translates: its English never stands in a
#: sentence of another language.
_JSON_ERRORS: tuple[tuple[str, Sentence], ...] = (
    ("Expecting value", Sentence("a value is expected")),
    (
        "Expecting property name enclosed in double quotes",
        Sentence("a member's name in double quotes is expected"),
    ),
    ("Expecting ':' delimiter", Sentence("a colon (:) is expected")),
    ("Expecting ',' delimiter", Sentence("a comma (,) is expected")),
    ("Extra data", Sentence("more text follows the JSON value")),
    ("Unterminated string", Sentence("a string is not closed")),
    ("Invalid control character", Sentence("a control character stands inside a string")),
    ("Invalid \\uXXXX escape", Sentence("a \\u escape is not four hexadecimal digits")),
    ("Invalid \\escape", Sentence("a backslash escape is not one of JSON's")),
    ("Illegal trailing comma", Sentence("a comma stands before the end of an array or object")),
)


def json_error(exc: BaseException) -> Sentence:
    """What is wrong with text the json module refused, as a translatable sentence with where
    it is (line and column): never the parser's own English."""
    if isinstance(exc, RecursionError):
        return Sentence("arrays and objects are nested too deep")
    if isinstance(exc, UnicodeDecodeError):
        return Sentence("the text is not UTF-8")
    if isinstance(exc, json.JSONDecodeError):
        what = next(
            (words for start, words in _JSON_ERRORS if exc.msg.startswith(start)),
            Sentence("the text is not in JSON's grammar"),
        )
        return Sentence(
            "{what} (line {line}, column {column})",
            what=what,
            line=Grouped(exc.lineno),
            column=Grouped(exc.colno),
        )
    return Sentence("the text is not in JSON's grammar")


# typeshed types the context as a scanner; the json module passes a JSONDecoder, as here.
_SCAN: Callable[[str, int], tuple[Json, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]
)


def _parse_line(line: str, position: str | None = None) -> Json:
    """One line of a stream. A short line (most are) is parsed by the json module's own
    scanner, without the wrapper that ``json.loads`` puts around it (half the cost of a short
    line) and without hooks: it can hold no integer longer than the bound, and it holds no
    duplicate key when it has as many colons as its objects have keys (every key is followed
    by one). Any other line is left to :func:`parse_json`, which also says what is wrong."""
    if len(line) > MAX_DIGITS:
        return parse_json(line, position)
    try:
        value, end = _SCAN(line, 0)
    except (StopIteration, ValueError, RecursionError):
        return parse_json(line, position)
    if end != len(line) and not line[end:].isspace():
        return parse_json(line, position)
    if type(value) is dict:
        colons = line.count(":")
        if colons != len(value) and colons != _keys(value):
            return parse_json(line, position)  # a colon in a string, or a duplicate key
    return value


def _keys(value: Json) -> int:
    """How many keys the objects in ``value`` have, nested ones included."""
    count, pending = 0, [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            count += len(item)
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
    return count


# -- reading members ----------------------------------------------------------------------


def _object(value: Json, member: str | None = None) -> dict[str, Json]:
    if type(value) is dict:
        return value
    if type(value) is _Duplicates:
        key = value.key
        raise MalformedError(
            Sentence("the key {key} appears more than once in this object", key=quote(key)),
            member=key if member is None else f"{member}.{key}",
        )
    raise MalformedError(
        Sentence("expected a JSON object, got {kind}", kind=_kind(value)), member=member
    )


def _kind(value: Json) -> str:
    """What ``value`` is, as an error message names it: JSON's ``null``, ``true`` and
    ``false`` as they are, anything else in words (a :class:`Sentence`)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return Sentence("an integer")
    if isinstance(value, _LongNumber):
        return Plural(
            "an integer of {n} digit", "an integer of {n} digits", "n", n=Grouped(value.digits)
        )
    if isinstance(value, float):
        return Sentence("the number {value}", value=repr(value))
    if isinstance(value, str):
        return Sentence("the string {text}", text=quote(value))
    return Sentence("a list") if isinstance(value, list) else Sentence("an object")


def _check_members(
    obj: Mapping[str, Json], required: Iterable[str], allowed: Container[str], prefix: str = ""
) -> None:
    """Unknown members (``note`` is allowed anywhere) and missing ones are malformed."""
    for name in obj:
        if name not in allowed and name != "note":
            raise MalformedError(Sentence("unknown member"), member=prefix + name)
    for name in required:
        if name not in obj:
            raise MalformedError(Sentence("missing member"), member=prefix + name)
    if "note" in obj:
        note = obj["note"]
        if type(note) is not str:
            raise MalformedError(
                Sentence("a note is a string, not {kind}", kind=_kind(note)), member=prefix + "note"
            )
        if not note.isascii():
            check_text(note, prefix + "note")


def _string(value: Json, member: str) -> str:
    if type(value) is not str:
        raise MalformedError(
            Sentence("expected a string, got {kind}", kind=_kind(value)), member=member
        )
    if not value.isascii():
        check_text(value, member)
    return value


def _optional_string(obj: Mapping[str, Json], name: str, prefix: str = "") -> str | None:
    value = obj.get(name)
    return None if value is None else _string(value, prefix + name)


_MIN_INTEGER = -MAX_INTEGER


def _integer(value: Json, member: str, minimum: int | None = 0) -> int:
    if type(value) is not int:  # JSON integers only: not true, 3.0, NaN or Infinity
        if type(value) is _LongNumber:
            raise value.error(member)
        raise MalformedError(
            Sentence("expected an integer, got {kind}", kind=_kind(value)), member=member
        )
    if not _MIN_INTEGER <= value <= MAX_INTEGER:
        check_integer(value, member)
    if minimum is not None and value < minimum:
        raise MalformedError(
            Sentence(
                "expected an integer of {minimum} or more, got {value}",
                minimum=minimum,
                value=quote(value),
            ),
            member=member,
        )
    return value


def _boolean(obj: Mapping[str, Json], name: str, prefix: str = "") -> bool:
    value = obj.get(name, False)
    if not isinstance(value, bool):
        raise MalformedError(
            Sentence("expected true or false, got {kind}", kind=_kind(value)),
            member=prefix + name,
        )
    return value


def _string_list(value: Json, member: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise MalformedError(
            Sentence("expected a list, got {kind}", kind=_kind(value)), member=member
        )
    return tuple(_string(item, member) for item in value)


def _amount(value: Json, member: str, minimum: int | None = 0) -> Amount:
    """An amount: an integer, or ``{"life_of": p, "fraction": [n, d], "round": "up"}``."""
    if isinstance(value, dict):
        value = _object(value, member)
        _check_members(value, ("life_of",), ("life_of", "fraction", "round"), member + ".")
        fraction = value.get("fraction", [1, 1])
        if not (isinstance(fraction, list) and len(fraction) == 2):
            raise MalformedError(Sentence("a fraction is [numerator, denominator]"), member=member)
        numerator = _integer(fraction[0], member + ".fraction")
        denominator = _integer(fraction[1], member + ".fraction", 1)
        rounding = _optional_string(value, "round", member + ".")
        try:
            return LifeOf(_string(value["life_of"], member), (numerator, denominator), rounding)
        except MalformedError as exc:
            raise MalformedError(exc.message, member=f"{member}.{exc.member}") from None
    return _integer(value, member, minimum)


def _mapping(value: Json, member: str, *, empty: bool = False) -> dict[str, Json]:
    """An object whose keys are ids (of players, or of teams for ``chosen``)."""
    obj = _object(value, member)
    if not obj and not empty:
        raise MalformedError(Sentence("names no player"), member=member)
    for key in obj:
        if not key.isascii():
            check_text(key, member)
    return obj

"""The one reader of JSON text that clients send (request bodies, socket messages, records).

Everything a client sends is read here, so every layer behind it can rely on four things: no
``NaN`` or ``Infinity`` (they are not JSON), no integer past 10^1000 (refused before it is
converted, which takes time quadratic in its length), no object with a member named twice (a
repeated ``"do"`` would otherwise silently keep the last), and no value nested deeper than
:data:`MAX_DEPTH` (deeper values would reach Python's recursion limit in whatever walks them
next: the engine's parser, the text checks, the JSON writer).
"""

from __future__ import annotations

import json
from typing import Any

from lifeledger.bounds import MAX_DIGITS
from lifeledger.recordjson import json_error
from lifeledger.sentences import Grouped, Sentence, english

__all__ = ["MAX_DEPTH", "NotJson", "strict_json"]

#: The deepest nesting of arrays and objects a client may send. A game record nests a few
#: levels (a document, its actions, a group, an amount's fraction); 64 leaves room for groups
#: of groups and stays far below Python's recursion limit.
MAX_DEPTH = 64


class NotJson(ValueError):
    """Text that is not JSON as a client may send it: its English is the exception's text,
    and :attr:`words` says it in any language (never the json module's own English)."""

    def __init__(self, words: Sentence):
        super().__init__(english(words))
        self.words = words


def _refuse_constant(name: str) -> Any:
    raise NotJson(Sentence("{name} is not JSON", name=name))


def _integer(digits: str) -> int:
    # Checked before the conversion, whose time grows with the square of the length: every
    # integer of a game lies within 10^1000 (lifeledger.bounds), 1,001 digits and a sign.
    if len(digits) > MAX_DIGITS + 1:
        raise NotJson(
            Sentence(
                "an integer has {n} digits; integers are at most 10^1000",
                n=Grouped(len(digits.lstrip("-"))),
            )
        )
    return int(digits)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise NotJson(
                    Sentence("the member {name} appears twice in one object", name=repr(key[:40]))
                )
            seen.add(key)
    return obj


def _too_deep(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects deeper than ``limit`` (iteratively)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item if isinstance(v, (dict, list)))
    return False


def _too_deep_words(max_depth: int) -> Sentence:
    return Sentence("arrays and objects are nested more than {n} deep", n=max_depth)


#: The reader with the checks above, made once: ``json.loads`` given them makes a decoder (and
#: its scanner) on every call, which cost more than reading a phone's message (issue 29 item 1).
_DECODER = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_int=_integer, object_pairs_hook=_object
)


def _loads(text: str | bytes) -> Any:
    """``json.loads(text, ...)`` with the checks above, through :data:`_DECODER`: the same
    text (bytes in UTF-8, -16 or -32), the same value, the same errors."""
    if isinstance(text, str):
        if text.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    else:
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    return _DECODER.decode(text)


def strict_json(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value of ``text``. Raises ValueError (with a sentence saying why) for text that
    is not JSON, ``NaN`` and ``Infinity``, a member repeated in one object, and nesting deeper
    than ``max_depth``: a :class:`NotJson`, whose ``words`` say why in any language."""
    try:
        value = _loads(text)
    except RecursionError:
        # The C scanner counts its own recursion and stops cleanly, far below a crash.
        raise NotJson(_too_deep_words(max_depth)) from None
    except NotJson:
        raise
    except ValueError as exc:  # the json module's own errors, and bytes that are not UTF-8
        raise NotJson(json_error(exc)) from None
    # A value can only be too deep if the text opens that many arrays and objects.
    if isinstance(value, (dict, list)):
        if isinstance(text, bytes):
            opened = text.count(b"[") + text.count(b"{")
        else:
            opened = text.count("[") + text.count("{")
        if opened > max_depth and _too_deep(value, max_depth):
            raise NotJson(_too_deep_words(max_depth))
    return value

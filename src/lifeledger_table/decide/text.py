"""Text a phone sends, to be shown on every other phone: what may be in it (no markup, no
control characters that could forge text) and how an error quotes it."""

from __future__ import annotations

import unicodedata

from lifeledger.sentences import Sentence

from .errors import TableError

__all__ = ["TEXT_FORMAT", "check_action_text", "check_text", "quoted", "unshowable", "what_of"]

#: The things a phone names, as a message names them (in the reader's language); a member
#: of the setup form (``starting_life``) is named as it is.
_WHATS = {
    "text": Sentence("text"),
    "player's name": Sentence("player's name"),
    "team's name": Sentence("team's name"),
    "commander's name": Sentence("commander's name"),
}


def what_of(what: str) -> str:
    """``what`` (a thing a phone names, ``"player's name"``) as a message names it."""
    return _WHATS.get(what, what)


#: The format characters that text needs: the zero-width non-joiner and joiner (Persian
#: "می‌خواهم", emoji sequences such as "🧙‍♂️") and the tags of emoji flags (🏴 + tags).
#: (Variation selectors are marks, not format characters: always allowed.) Every other control
#: or format character is refused: bidi overrides, embeddings, isolates and marks can make text
#: read as something else.
TEXT_FORMAT = frozenset("\u200c\u200d") | frozenset(map(chr, range(0xE0020, 0xE0080)))


def unshowable(text: str) -> str | None:
    """The first character of ``text`` that is not text to show (a control character, a bidi
    override, ...), as ``U+202E RIGHT-TO-LEFT OVERRIDE``; ``None`` if there is none."""
    if text.isprintable():  # no character of a category C (the common case, at C speed)
        return None
    for c in text:
        if unicodedata.category(c).startswith("C") and c not in TEXT_FORMAT:
            name = unicodedata.name(c, "")
            return f"U+{ord(c):04X}" + (f" {name}" if name else "")
    return None


def quoted(text: str, limit: int = 40) -> str:
    """``text`` in quotes as typed (shortened), for an error message: never escaped."""
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def check_text(text: str, member: str, what: str) -> None:
    """``text`` (the ``what`` a client sent, in ``member``) is text to show: no control
    characters, no markup (``<`` or ``>``); raises :class:`TableError` saying which."""
    bad = unshowable(text)
    if bad is not None:
        raise TableError(
            "malformed",
            Sentence(
                "The {what} contains a control character ({character}).",
                what=what_of(what),
                character=bad,
            ),
            member=member,
        )
    if "<" in text or ">" in text:
        raise TableError(
            "malformed",
            Sentence(
                "The {what} {text} contains markup (< or >).", what=what_of(what), text=quoted(text)
            ),
            member=member,
        )


def check_action_text(value: object, member: str) -> None:
    """Every string in an action is text to show: no markup, no control characters.
    (Walked without recursion: the depth of a value is the sender's choice.)"""
    todo: list[tuple[object, str]] = [(value, member)]
    while todo:
        item, where = todo.pop()
        if isinstance(item, str):
            check_text(item, where, "text")
        elif isinstance(item, dict):
            for key, inner in item.items():
                todo.append((key, where))
                todo.append((inner, f"{where}.{key}"))
        elif isinstance(item, list):
            todo.extend((inner, f"{where}[{index}]") for index, inner in enumerate(item))

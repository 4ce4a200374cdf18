"""The languages the engine's sentences are written in, from the standard library's gettext.

The catalogues are ``locale/<language>/LC_MESSAGES/lifeledger.mo`` beside this module (compiled
from the ``.po`` files by ``make catalogues``). English is the message ids themselves.
:func:`language` picks one by its code, or as the environment asks (``LANGUAGE``, ``LC_ALL``,
``LC_MESSAGES``, ``LANG``, as gettext reads them); :meth:`Language.text` writes a sentence
(:class:`lifeledger.sentences.Sentence`) in it, and any other string as it is.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .sentences import AND, Sentence

__all__ = ["DOMAIN", "LANGUAGES", "LOCALE_DIR", "Language", "language"]

DOMAIN = "lifeledger"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

#: The complete languages, each in its own name (a language is added by its catalogue and a
#: line here: docs/table.md, Languages).
LANGUAGES = {"en": "English", "it": "Italiano"}

#: How each language writes a number: the separator of groups of three digits, and the fewest
#: digits a number has before it is grouped (CLDR's minimum grouping digits: Italian writes
#: 1000 but 10.000). English keeps the engine's plain digits.
_NUMBERS = {"it": (".", 5)}


@dataclass(frozen=True)
class Language:
    """One language: its ``code`` and its catalogue."""

    code: str
    catalogue: gettext.NullTranslations

    def number(self, value: int) -> str:
        """``value`` written for this language."""
        digits = str(int(value))  # a Grouped number's own digits
        group = _NUMBERS.get(self.code)
        body = digits.lstrip("-")
        if group is None or len(body) < group[1]:
            return digits
        head = len(body) % 3 or 3
        parts = [body[:head]] + [body[i : i + 3] for i in range(head, len(body), 3)]
        return digits[: len(digits) - len(body)] + group[0].join(parts)

    def join(self, words: list[str], sep: str) -> str:
        """Words of a list, joined as this language joins them."""
        if sep != "and":
            return ", ".join(words)
        template = self.catalogue.gettext(AND)
        out = words[0] if words else ""
        for word in words[1:]:
            out = template.replace("{first}", out, 1).replace("{second}", word, 1)
        return out

    def text(self, sentence: str) -> str:
        """``sentence`` in this language: a :class:`Sentence` translated, any other string
        (a card's name, a message from before sentences were kept) as it is."""
        if not isinstance(sentence, Sentence) or self.code == "en":
            return str(sentence)
        c = self.catalogue
        return sentence.render(c.gettext, c.ngettext, self.number, self.join)

    def gettext(self, message: str) -> str:
        """A message id (not a sentence: words with no arguments) in this language."""
        return self.catalogue.gettext(message)


@lru_cache(maxsize=16)
def language(code: str | None = None) -> Language:
    """The language ``code`` (``"it"``, ``"it_IT"``, ``"it-IT"``), or the one the environment
    asks for when ``code`` is ``None``; English where there is no catalogue for it."""
    wanted = None if code is None else [code.replace("-", "_")]
    found = gettext.find(DOMAIN, str(LOCALE_DIR), languages=wanted)
    if found is None:
        return Language("en", gettext.NullTranslations())
    with open(found, "rb") as fp:
        catalogue = gettext.GNUTranslations(fp)
    return Language(Path(found).parents[1].name, catalogue)

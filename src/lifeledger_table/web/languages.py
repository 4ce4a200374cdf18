"""The page's catalogues: ``GET /i18n/<lang>.json``, one language's translations of the page's
words, the server's messages and the engine's sentences, from the compiled catalogues (the
``.mo`` files ``make catalogues`` writes; docs/table.md, Languages).

``{"lang": "it", "plural": "<gettext's plural expression>", "messages": {msgid: text,
singular msgid: [forms], "<context>\\u0004<msgid>": text}}``. A message without a translation
is left out: the page shows its English (the msgid). Each catalogue is built once per process
(the files don't change under a running server) and sent with an ETag (:mod:`.pages`). What is
kept is one catalogue per language the app speaks, whatever a request names: a name the app
doesn't speak is the default language's catalogue, never a new entry (issue 26 item 1: a cache
keyed by any name let made-up names push the real catalogues out, each then built again, some
115 kB, on the event loop).
"""

from __future__ import annotations

import gettext
import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

from babel.messages.mofile import read_mo

from lifeledger.language import LANGUAGES, LOCALE_DIR

__all__ = ["DEFAULT", "catalogue_body", "known", "language_catalogue", "words"]

#: The language of a request naming none the app speaks.
DEFAULT = "en"

#: Where the server's and the page's catalogues are (the engine's are lifeledger's own).
TABLE_LOCALE = Path(__file__).resolve().parents[1] / "locale"
DOMAINS = ((LOCALE_DIR, "lifeledger"), (TABLE_LOCALE, "lifeledger_table"), (TABLE_LOCALE, "page"))

_PLURAL = re.compile(r"plural\s*=\s*([^;]+)")


def language_catalogue(lang: str) -> bytes:
    """The catalogue of ``lang``, or of :data:`DEFAULT` for a language the app doesn't speak,
    as the JSON text the page reads: built once per language (the same bytes each time)."""
    return catalogue_body(known(lang))


@cache
def catalogue_body(lang: str) -> bytes:
    """``lang``'s catalogue (one of :data:`~lifeledger.language.LANGUAGES`: :func:`known`)."""
    if lang not in LANGUAGES:
        raise ValueError(f"no catalogue of {lang!r}: ask language_catalogue, which maps it")
    messages: dict[str, str | list[str]] = {}
    plural = "(n != 1)"
    for locale, domain in DOMAINS:
        path = locale / lang / "LC_MESSAGES" / f"{domain}.mo"
        if not path.exists():
            continue
        with path.open("rb") as fp:
            catalog = read_mo(fp)
        found = _PLURAL.search(catalog.plural_forms)
        if found:
            plural = found.group(1).strip()
        for m in catalog:
            if not m.id:
                continue
            msgid = m.id if isinstance(m.id, str) else m.id[0]
            key = msgid if m.context is None else f"{m.context}\x04{msgid}"
            if isinstance(m.string, tuple | list):
                if all(m.string):
                    messages[key] = list(m.string)
            elif m.string:
                messages[key] = m.string
    return json.dumps(
        {"lang": lang, "plural": plural, "messages": messages}, ensure_ascii=False, sort_keys=True
    ).encode()


def known(lang: str) -> str:
    """``lang`` if the app speaks it, else English (so that what is kept per language stays
    bounded whatever a request names)."""
    return lang if lang in LANGUAGES else DEFAULT


def words(lang: str) -> Callable[[str], str]:
    """The server's own words (its message ids, no arguments) in ``lang``; English for a
    language the app doesn't speak (kept once per language it speaks, whatever ``lang``)."""
    return _words(known(lang))


@cache
def _words(lang: str) -> Callable[[str], str]:
    found = gettext.translation(
        "lifeledger_table", str(TABLE_LOCALE), languages=[lang], fallback=True
    )
    return found.gettext

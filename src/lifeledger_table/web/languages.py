"""The page's catalogues: ``GET /i18n/<lang>.json``, one language's translations of the page's
words, the server's messages and the engine's sentences, from the compiled catalogues (the
``.mo`` files ``make catalogues`` writes; docs/table.md, Languages).

``{"lang": "it", "plural": "<gettext's plural expression>", "messages": {msgid: text,
singular msgid: [forms], "<context>\\u0004<msgid>": text}}``. A message without a translation
is left out: the page shows its English (the msgid). Each catalogue is built once per process
(the files don't change under a running server) and sent with an ETag.
"""

from __future__ import annotations

import gettext
import hashlib
import json
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from aiohttp import web
from babel.messages.mofile import read_mo

from lifeledger.language import LANGUAGES, LOCALE_DIR
from lifeledger.sentences import Sentence

from .requests import error_response

__all__ = ["catalogue", "known", "language_catalogue", "words"]

#: Where the server's and the page's catalogues are (the engine's are lifeledger's own).
TABLE_LOCALE = Path(__file__).resolve().parents[1] / "locale"
DOMAINS = ((LOCALE_DIR, "lifeledger"), (TABLE_LOCALE, "lifeledger_table"), (TABLE_LOCALE, "page"))

_PLURAL = re.compile(r"plural\s*=\s*([^;]+)")


@lru_cache(maxsize=len(LANGUAGES))
def language_catalogue(lang: str) -> tuple[bytes, str] | None:
    """``lang``'s catalogue as the JSON text the page reads, and its ETag; ``None`` for a
    language the app doesn't speak."""
    if lang not in LANGUAGES:
        return None
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
    body = json.dumps(
        {"lang": lang, "plural": plural, "messages": messages}, ensure_ascii=False, sort_keys=True
    ).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def known(lang: str) -> str:
    """``lang`` if the app speaks it, else English (so that what is kept per language stays
    bounded whatever a request names)."""
    return lang if lang in LANGUAGES else "en"


@lru_cache(maxsize=len(LANGUAGES))
def words(lang: str) -> Callable[[str], str]:
    """The server's own words (its message ids, no arguments) in ``lang`` (one :func:`known`);
    English for a language the app doesn't speak."""
    lang = known(lang)
    found = gettext.translation(
        "lifeledger_table", str(TABLE_LOCALE), languages=[lang], fallback=True
    )
    return found.gettext


async def catalogue(request: web.Request) -> web.StreamResponse:
    """GET /i18n/{lang}.json: the language's catalogue (304 when the page has it already)."""
    found = language_catalogue(request.match_info["lang"])
    if found is None:
        return error_response(
            404, "unknown-language", Sentence("The app doesn't speak that language.")
        )
    body, etag = found
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=body, content_type="application/json", headers=headers)

"""What the HTTP handlers and the WebSocket share in answering a request: reading its body,
checking its origin, finding the table its path names (404, 503), quoting a client's value in
an error, and the API's error answers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide.errors import TableUnavailable, with_sentence
from ..decide.jsontext import NotJson, strict_json
from ..decide.table import Table
from ..live.hub import HUB_KEY

__all__ = [
    "SHOWN",
    "error_json",
    "error_response",
    "error_text",
    "found_or_404",
    "quoted",
    "read_body",
    "read_text",
    "same_origin",
    "storage_error",
    "table_or_404",
    "unavailable",
    "watched_or_404",
]

#: The most characters of a client's value an error message quotes.
SHOWN = 60


def error_response(status: int, code: str, message: str, **extra: Any) -> web.Response:
    """An error as the API answers it: ``{"error": code, "message": ...}`` with ``status`` (and
    the message's ``"sentence"`` when it is one)."""
    return web.json_response(error_json(code, message, **extra), status=status)


def error_json(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """An error's JSON: ``{"error": code, "message": ..., "sentence": ...}``."""
    return with_sentence({"error": code, "message": message, **extra})


def error_text(code: str, message: str, **extra: Any) -> str:
    """:func:`error_json` as text (the body of a raised HTTP error)."""
    return json.dumps(error_json(code, message, **extra))


async def read_text(request: web.Request) -> str:
    """The request's body as text, read within ``limits.body_seconds`` (a client that sends
    it slowly is answered 408 and cut off)."""
    try:
        async with asyncio.timeout(request.app[HUB_KEY].limits.body_seconds):
            return await request.text()
    except TimeoutError as exc:
        raise web.HTTPRequestTimeout(
            text=error_text("timeout", Sentence("The request was sent too slowly.")),
            content_type="application/json",
            headers={"Connection": "close"},
        ) from exc
    except UnicodeDecodeError as exc:
        raise web.HTTPBadRequest(
            text=error_text("malformed", Sentence("The body is not UTF-8 text.")),
            content_type="application/json",
        ) from exc


async def read_body(request: web.Request) -> Any:
    """The request's JSON body, read by the one strict reader (:mod:`.jsontext`)."""
    text = await read_text(request)
    try:
        return strict_json(text)
    except NotJson as exc:
        raise web.HTTPBadRequest(
            text=error_text(
                "malformed", Sentence("The body is not JSON: {error}", error=exc.words)
            ),
            content_type="application/json",
        ) from exc


def same_origin(request: web.Request) -> bool:
    """Whether the request's ``Origin``, if it names one, is this server (by host and port;
    the scheme aside, since a proxy may end TLS in front of the app)."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    scheme, sep, rest = origin.partition("://")
    return bool(sep) and scheme in ("http", "https") and rest.lower() == request.host.lower()


def storage_error() -> web.Response:
    """503 ``storage``: the store failed, nothing changed."""
    return error_response(
        503, "storage", Sentence("The table's storage failed; nothing changed. Try again.")
    )


def unavailable(exc: TableUnavailable) -> web.HTTPServiceUnavailable:
    """A table that can't be loaded: 503, naming the table and the event (issue 7 item 1)."""
    return web.HTTPServiceUnavailable(
        text=json.dumps(exc.to_json()), content_type="application/json"
    )


async def found_or_404(lookup: Awaitable[Table | None]) -> Table:
    """The table ``lookup`` finds: 404 if there is none, 503 if it can't be loaded."""
    try:
        table = await lookup
    except TableUnavailable as exc:
        raise unavailable(exc) from exc
    if table is None:
        raise web.HTTPNotFound(
            text=error_text("unknown-table", Sentence("There is no such table.")),
            content_type="application/json",
        )
    return table


async def table_or_404(request: web.Request) -> Table:
    """The table named by the path's ``{table}`` (its id)."""
    return await found_or_404(request.app[HUB_KEY].table(request.match_info["table"]))


async def watched_or_404(request: web.Request) -> Table:
    """The table named by the path's ``{watch}`` (its spectator id)."""
    return await found_or_404(request.app[HUB_KEY].by_watch(request.match_info["watch"]))


def quoted(value: Any) -> str:
    """A value a client sent, as an error message quotes it: at most :data:`SHOWN`
    characters (a body may be a megabyte: an error never sends it back)."""
    try:
        text = repr(value[: 2 * SHOWN] if isinstance(value, str) else value)
    except ValueError:  # an integer of more digits than Python writes out
        text = Sentence("an {kind} too long to show", kind=type(value).__name__)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"

"""What every HTTP answer goes through: the client's address (behind trusted proxies), security
headers, JSON error answers, and the refusal of cross-site POSTs."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable

from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide.limits import Limits, Throttle
from .addresses import PROXIES_KEY
from .requests import error_json, same_origin

__all__ = [
    "ERRORS_KEY",
    "PROXIES_KEY",
    "SECURITY_HEADERS",
    "SERVER_NAME",
    "ErrorPacer",
    "add_headers",
    "client_address",
    "errors",
    "json_error",
    "posts",
    "reason_text",
    "slow_errors",
    "slug",
]

log = logging.getLogger("lifeledger_table")

#: What every response carries: a strict policy for the pages, no sniffing, no referrer (the
#: table id is in the URL). 'wasm-unsafe-eval' lets the engine worker compile Pyodide's
#: WebAssembly (device tables: docs/table.md), and nothing else: no eval of script text.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; "
        "script-src 'self' 'wasm-unsafe-eval'; "
        "connect-src 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
#: The ``Server`` header: a plain name, not the versions of Python and aiohttp.
SERVER_NAME = "lifeledger"


@web.middleware
async def client_address(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Behind a trusted reverse proxy, the handlers (and every per-address limit) see the
    client's address, from ``X-Forwarded-For`` (:mod:`.addresses` says which), as
    ``request.remote``; and the scheme the client used, from ``X-Forwarded-Proto`` (the QR
    code's link). From any other peer both headers are ignored. A malformed header from a
    trusted proxy leaves the proxy's address (and is logged, the first time)."""
    proxies = request.app[PROXIES_KEY]
    peer = request.remote
    if peer is None or not proxies.trusts(peer):
        return await handler(request)
    try:
        who = proxies.client(peer, request.headers.getall("X-Forwarded-For", []))
    except ValueError as exc:
        if not proxies.warned:
            proxies.warned = True
            log.warning(
                "a malformed X-Forwarded-For from the trusted proxy %s (%s): its own address "
                "is used (further ones are not logged)",
                peer,
                exc,
            )
        who = peer
    scheme = request.headers.get("X-Forwarded-Proto", "").strip().lower()
    if scheme in ("http", "https"):
        return await handler(request.clone(remote=who, scheme=scheme))
    return await handler(request.clone(remote=who))


async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Security headers on every response the app sends: pages, API answers, errors and
    WebSocket upgrades (an ``on_response_prepare`` hook sees them all)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers["Server"] = SERVER_NAME
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")


#: HTTP's reason phrases an error answer says, as sentences (others are said as they are).
_REASONS = {
    "Bad Request": Sentence("Bad Request."),
    "Not Found": Sentence("Not Found."),
    "Method Not Allowed": Sentence("Method Not Allowed."),
    "Request Entity Too Large": Sentence("Request Entity Too Large."),
    "Request Header Fields Too Large": Sentence("Request Header Fields Too Large."),
    "Request-URI Too Long": Sentence("Request-URI Too Long."),
    "Internal Server Error": Sentence("Internal Server Error."),
    "Service Unavailable": Sentence("Service Unavailable."),
}


def reason_text(reason: str) -> str:
    """An HTTP reason phrase as an error's message (``"Not Found."``)."""
    return _REASONS.get(reason, f"{reason}.")


def slug(reason: str) -> str:
    """An error code from an HTTP reason phrase: ``"Not Found"`` -> ``"not-found"``."""
    return "-".join(reason.lower().replace("'", "").split()) or "error"


def json_error(status: int, code: str, message: str) -> web.Response:
    """An error answer: always JSON, ``{"error": code, "message": ..., "sentence": ...}``."""
    return web.json_response(error_json(code, message), status=status)


@web.middleware
async def errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Every error answer is JSON: aiohttp's own (404, 405, 413, ...) are rewritten, and an
    unexpected exception is logged and answered 500 (never a traceback page)."""
    try:
        return await handler(request)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        if exc.content_type == "application/json" and exc.text:
            body = exc.text
        else:
            body = json.dumps(error_json(slug(exc.reason), reason_text(exc.reason)))
        kept = {
            name: value
            for name, value in exc.headers.items()
            if name.lower() not in ("content-type", "content-length")
        }
        return web.Response(
            status=exc.status, text=body, content_type="application/json", headers=kept
        )
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("unexpected error answering %s %s", request.method, request.path)
        return json_error(500, "internal", Sentence("The server could not answer this request."))


@web.middleware
async def posts(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Cross-site requests are refused: a POST must come from this server's own origin, when
    it names one, and say ``Content-Type: application/json`` (which a form, or a ``text/plain``
    fetch from another site, cannot send without the browser asking this server first)."""
    if request.method == "POST":
        if not same_origin(request):
            return json_error(
                403, "cross-origin", Sentence("Requests from other sites are refused.")
            )
        if request.content_type != "application/json":
            return json_error(
                415, "unsupported-media-type", Sentence("Requests are sent as application/json.")
            )
    return await handler(request)


class ErrorPacer:
    """How fast each address may be told no: ``limits.errors_per_address`` error answers in
    ``limits.errors_window`` seconds at once, then each waits ``limits.error_delay`` seconds.
    Waiting costs the server a sleeping request (bounded by the connection caps), while a
    client that asks again as soon as it is answered (guessing codes, table ids, flooding with
    malformed requests) is slowed to one request per delay per connection."""

    def __init__(self, limits: Limits) -> None:
        self.budget = Throttle(limits.errors_per_address, limits.errors_window)
        self.delay = limits.error_delay

    def delay_for(self, who: str) -> float:
        """Seconds the error answer to ``who`` waits (counting this one): the delay, give or
        take half of it, so that answers held back together are not all sent at once."""
        if self.budget.allow(who):
            return 0.0
        return self.delay * (0.5 + random.random())  # spreading, not secrecy


ERRORS_KEY = web.AppKey("errors", ErrorPacer)


@web.middleware
async def slow_errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Error answers to an address that gets many are sent late (:class:`ErrorPacer`)."""
    response = await handler(request)
    if 400 <= response.status < 500 and not response.prepared:
        delay = request.app[ERRORS_KEY].delay_for(request.remote or "?")
        if delay:
            await asyncio.sleep(delay)
    return response

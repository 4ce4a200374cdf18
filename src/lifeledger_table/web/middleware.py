"""What every HTTP answer goes through: the client's address (behind trusted proxies), security
headers, JSON error answers, and the refusal of cross-site POSTs (but for the one endpoint
another site's page may call: "Share this table" from the app as static files)."""

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
from .requests import error_json, quoted, same_origin

__all__ = [
    "CROSS_SITE",
    "ERRORS_KEY",
    "PROXIES_KEY",
    "SECURITY_HEADERS",
    "SERVER_NAME",
    "ErrorPacer",
    "add_headers",
    "client_address",
    "cross_site_origin",
    "errors",
    "json_error",
    "posts",
    "preflight",
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

#: The one path another site's page may POST to (CORS), and only with ``Content-Type:
#: application/json``: ``POST /api/tables/shared``, "Share this table" from the app written as
#: static files (``lifeledger app``: GitHub Pages, a NAS), which has no server of its own and
#: sends its device table to the server whose address the player types. It is safe across
#: sites: the app sets no cookie and this server reads none (credentials are never allowed:
#: no ``Access-Control-Allow-Credentials``), so a request from another site can do nothing
#: that the same request sent by any program could not; it only creates a new table from what
#: its body carries (deciding every change again), answering that table's ids to the sender
#: alone; it changes no existing table (sharing the same device table again finds the table
#: shared the first time); and its limits are those of any opening (per address, the fair
#: share). Every other POST, and every WebSocket, stays same-origin.
CROSS_SITE = "/api/tables/shared"
#: How long a browser may keep a preflight's answer (seconds).
PREFLIGHT_SECONDS = 600


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
    if request.path == CROSS_SITE:
        # Every answer, errors too (400 naming the change, 429, 503): the page reads why.
        response.headers["Vary"] = "Origin"
        origin = cross_site_origin(request)
        if origin is not None:
            response.headers["Access-Control-Allow-Origin"] = origin


def cross_site_origin(request: web.Request) -> str | None:
    """The ``Origin`` another site's page calls :data:`CROSS_SITE` from, echoed in
    ``Access-Control-Allow-Origin`` (an ``http`` or ``https`` origin, with no path; ``null``,
    a file's or a sandbox's, is not one), else ``None``."""
    if request.path != CROSS_SITE:
        return None
    origin = request.headers.get("Origin", "")
    scheme, sep, rest = origin.partition("://")
    if not sep or scheme not in ("http", "https") or not rest or "/" in rest:
        return None
    return origin


async def preflight(request: web.Request) -> web.Response:
    """OPTIONS :data:`CROSS_SITE`: the browser asks whether another site's page may POST JSON
    here. Yes (204) for a POST whose only header asked for is ``Content-Type``; with no
    credentials (never allowed). A page served from the public internet that calls a server on
    a private network (a LAN) is allowed too when the browser asks
    (``Access-Control-Request-Private-Network``). Anything else: 403, naming what was asked."""
    origin = cross_site_origin(request)
    if origin is None:
        return json_error(
            403,
            "cross-origin",
            Sentence("Only pages of a web site (http or https) may share a table here."),
        )
    method = request.headers.get("Access-Control-Request-Method", "")
    if method != "POST":
        return json_error(
            403,
            "cross-origin",
            Sentence(
                "Only POST is allowed here from other sites, not {method}.", method=quoted(method)
            ),
        )
    asked = request.headers.get("Access-Control-Request-Headers", "")
    others = sorted(
        {name.strip().lower() for name in asked.split(",") if name.strip()} - {"content-type"}
    )
    if others:
        return json_error(
            403,
            "cross-origin",
            Sentence(
                "Only the Content-Type header is allowed here from other sites, not {headers}.",
                headers=quoted(", ".join(others)),
            ),
        )
    headers = {
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": "Content-Type",
        "Access-Control-Max-Age": str(PREFLIGHT_SECONDS),
    }
    if request.headers.get("Access-Control-Request-Private-Network", "").lower() == "true":
        headers["Access-Control-Allow-Private-Network"] = "true"
    return web.Response(status=204, headers=headers)


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
    it names one (but for :data:`CROSS_SITE`), and say ``Content-Type: application/json``
    (which a form, or a ``text/plain`` fetch from another site, cannot send without the browser
    asking this server first: :func:`preflight`)."""
    if request.method == "POST":
        if request.path != CROSS_SITE and not same_origin(request):
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

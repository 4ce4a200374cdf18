"""The table web app assembled: its routes, error answers, security headers, slow-client and
connection limits, garbage-collection pacing, and ``run`` for ``lifeledger serve``.

Where things are decided: :mod:`.routes` (HTTP), :mod:`.protocol` (the WebSocket), :mod:`.table`
(what a change does, by the rules engine), :mod:`.hub` (ordering, writing and fan-out),
:mod:`.store` (the log), :mod:`.limits` (what one client may send).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import resource
import signal
import ssl
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from . import protocol, routes
from .hub import HUB_KEY, Hub
from .limits import CodeGuard, Limits, SocketGate
from .routes import same_origin
from .store import SQLiteStore, Store, StoreError

__all__ = ["ConnectionGuard", "GuardedHandler", "Limits", "create_app", "run", "serve"]

log = logging.getLogger("lifeledger_table")

GC_KEY = web.AppKey("gc", asyncio.Task[None])

#: What every response carries: a strict policy for the pages, no sniffing, no referrer (the
#: table id is in the URL).
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
#: The ``Server`` header: a plain name, not the versions of Python and aiohttp.
SERVER_NAME = "lifeledger"


async def add_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Security headers on every response the app sends: pages, API answers, errors and
    WebSocket upgrades (an ``on_response_prepare`` hook sees them all)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    response.headers["Server"] = SERVER_NAME
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")


def _slug(reason: str) -> str:
    return "-".join(reason.lower().replace("'", "").split()) or "error"


def json_error(status: int, code: str, message: str) -> web.Response:
    """An error answer: always JSON, ``{"error": code, "message": sentence}``."""
    return web.json_response({"error": code, "message": message}, status=status)


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
            body = json.dumps({"error": _slug(exc.reason), "message": f"{exc.reason}."})
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
        return json_error(500, "internal", "The server could not answer this request.")


@web.middleware
async def posts(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Cross-site requests are refused: a POST must come from this server's own origin, when
    it names one, and say ``Content-Type: application/json`` (which a form, or a ``text/plain``
    fetch from another site, cannot send without the browser asking this server first)."""
    if request.method == "POST":
        if not same_origin(request):
            return json_error(403, "cross-origin", "Requests from other sites are refused.")
        if request.content_type != "application/json":
            return json_error(
                415, "unsupported-media-type", "Requests are sent as application/json."
            )
    return await handler(request)


async def keep_gc_short(freeze_every: float = 5.0, collect_every: float = 600.0) -> None:
    """Keep the cyclic garbage collector's pauses short while phones wait for changes.

    A full collection walks every object the app holds (tables, timelines, sockets), which at
    a thousand phones takes long enough to show in the latency of a change. Objects that have
    lived for a few seconds are moved out of the collector's sight (``gc.freeze``); every ten
    minutes they are given back and collected once, so cycles among them are not kept forever.
    """
    since_collect = 0.0
    while True:
        await asyncio.sleep(freeze_every)
        since_collect += freeze_every
        if since_collect >= collect_every:
            since_collect = 0.0
            gc.unfreeze()
            gc.collect()
        gc.freeze()


def create_app(store: Store, limits: Limits | None = None) -> web.Application:
    """The aiohttp application serving tables kept in ``store``.

    Slow clients: aiohttp has no timeout of its own for a request's headers, but its keep-alive
    timer runs from the moment a connection opens (and again after each answer) and closes the
    connection if no whole request has arrived by then; set to ``header_seconds``, it is the
    header timeout. A body is read within ``body_seconds`` (:func:`.routes.read_text`), and a
    body nobody reads is drained for at most ``linger_seconds`` before the connection closes.
    """
    limits = limits or Limits()
    app = web.Application(
        client_max_size=limits.body_bytes,
        middlewares=[errors, posts],
        handler_args={
            "keepalive_timeout": limits.header_seconds,
            "lingering_time": limits.linger_seconds,
        },
    )
    app[HUB_KEY] = Hub(store, limits)
    app[routes.CODES_KEY] = CodeGuard(limits)
    app[protocol.GATE_KEY] = SocketGate(limits)
    routes.add_routes(app.router)
    protocol.add_routes(app.router)
    app.on_response_prepare.append(add_headers)

    async def close_sockets(app: web.Application) -> None:
        for conns in list(app[HUB_KEY].conns.values()):
            for conn in list(conns):
                await conn.ws.close()

    async def close_store(app: web.Application) -> None:
        store.close()

    async def start_gc_keeper(app: web.Application) -> None:
        app[GC_KEY] = asyncio.get_running_loop().create_task(keep_gc_short())

    async def stop_gc_keeper(app: web.Application) -> None:
        app[GC_KEY].cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await app[GC_KEY]
        gc.unfreeze()

    app.on_startup.append(start_gc_keeper)
    app.on_cleanup.append(stop_gc_keeper)
    app.on_shutdown.append(close_sockets)
    app.on_cleanup.append(close_store)
    return app


#: The answer to a connection over the caps, written before it is closed.
_REFUSAL_BODY = json.dumps(
    {"error": "busy", "message": "Too many connections; try again in a moment."}
).encode()
_REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Content-Type: application/json\r\n"
    b"Content-Length: " + str(len(_REFUSAL_BODY)).encode() + b"\r\n"
    b"Retry-After: 5\r\n"
    b"Connection: close\r\n"
    + "".join(f"{k}: {v}\r\n" for k, v in SECURITY_HEADERS.items()).encode()
    + f"Server: {SERVER_NAME}\r\n\r\n".encode()
    + _REFUSAL_BODY
)


def descriptor_budget(limits: Limits) -> int:
    """The connections the server may hold open: ``limits.connections``, lowered to leave
    ``spare_descriptors`` of the process's descriptor limit for the store, files and the
    sockets it accepts only to refuse."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.connections
    return max(1, min(limits.connections, soft - limits.spare_descriptors))


class GuardedHandler(RequestHandler):
    """aiohttp's connection handler, with two changes:

    - a request it can't even parse (a bad request line, an oversized header, TLS on the plain
      port) is answered as the app answers errors: JSON, the security headers, a plain
      ``Server``, and no log line with a traceback for each (garbage would fill the log);
    - an answer must be taken by the client within ``write_seconds`` (a client that stops
      reading would otherwise hold its connection, and a handler, for ever).

    Same layout as its base (no new slots), so :class:`ConnectionGuard` can give a new
    connection this class (a subclass of it, with the app's ``write_seconds``).
    """

    __slots__ = ()
    write_seconds: float = 120.0

    async def finish_response(
        self, request: web.BaseRequest, resp: web.StreamResponse, start_time: float | None
    ) -> tuple[web.StreamResponse, bool]:
        """Send the answer, within ``write_seconds``; a client too slow to take it is cut off."""
        try:
            async with asyncio.timeout(self.write_seconds):
                return await super().finish_response(request, resp, start_time)
        except TimeoutError:
            self.log_debug("cut off a client too slow to take its answer")
            if self.transport is not None:
                self.transport.abort()  # not close(): that would wait to send what is queued
            self.force_close()
            return resp, True

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        """The error answer, as JSON."""
        if status >= 500:
            self.log_exception("Error handling request from %s", request.remote, exc_info=exc)
        else:
            self.log_debug("Bad request from %s: %s", request.remote, exc)
        if request.writer.output_size > 0:
            raise ConnectionError("The answer was sent already; it can't be an error now.")
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = "Error"
        body = json.dumps({"error": _slug(reason), "message": f"{reason}."})
        response = web.Response(
            status=status,
            text=body,
            content_type="application/json",
            headers={**SECURITY_HEADERS, "Server": SERVER_NAME},
        )
        response.force_close()
        return response


class ConnectionGuard:
    """Caps the connections a server holds: in all and per client address. A connection over
    a cap is answered 503 at once and closed, so its descriptor is free again at once and
    clients already connected, or arriving from elsewhere, are served.

    It sits where aiohttp's server counts connections (its ``connection_made`` and
    ``connection_lost``, called by every connection's protocol), and gives each connection
    it lets in the :class:`GuardedHandler` handler.
    """

    def __init__(
        self, server: web.Server, total: int, per_address: int, write_seconds: float = 120.0
    ) -> None:
        self.handler_class = type(
            "GuardedHandler", (GuardedHandler,), {"__slots__": (), "write_seconds": write_seconds}
        )
        self.total = total
        self.per_address = per_address
        self.open: dict[str, int] = {}
        self.count = 0
        self.refused = 0
        self.who: dict[RequestHandler, str] = {}
        self._made = server.connection_made
        self._lost = server.connection_lost
        setattr(server, "connection_made", self.connection_made)  # noqa: B010
        setattr(server, "connection_lost", self.connection_lost)  # noqa: B010

    def connection_made(self, handler: RequestHandler, transport: asyncio.Transport) -> None:
        """A new connection: counted in, or answered 503 and closed."""
        peer = transport.get_extra_info("peername")
        who = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if self.count >= self.total or self.open.get(who, 0) >= self.per_address:
            self.refused += 1
            transport.write(_REFUSAL)
            handler.force_close()
            return
        handler.__class__ = self.handler_class
        self.who[handler] = who
        self.count += 1
        self.open[who] = self.open.get(who, 0) + 1
        self._made(handler, transport)

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        """A connection ended: counted out."""
        who = self.who.pop(handler, None)
        if who is not None:
            self.count -= 1
            left = self.open.get(who, 0) - 1
            if left > 0:
                self.open[who] = left
            else:
                self.open.pop(who, None)
        self._lost(handler, exc)


async def serve(
    app: web.Application,
    host: str,
    port: int,
    *,
    ssl_context: ssl.SSLContext | None = None,
) -> tuple[web.AppRunner, ConnectionGuard]:
    """Start serving ``app`` (made by :func:`create_app`) on ``host:port`` with its limits on
    connections; returns the runner (``await runner.cleanup()`` stops it) and the guard."""
    limits = app[HUB_KEY].limits
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    assert runner.server is not None
    guard = ConnectionGuard(
        runner.server,
        descriptor_budget(limits),
        limits.connections_per_address,
        limits.write_seconds,
    )
    await web.TCPSite(runner, host, port, ssl_context=ssl_context).start()
    return runner, guard


def _raise_descriptor_limit() -> None:
    """Use the descriptors the system allows (the soft limit is often 1,024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def run(host: str, port: int, db: str, *, cert: str | None = None, key: str | None = None) -> None:
    """Serve the table app on ``host:port`` with its tables in the SQLite file ``db``;
    blocks until interrupted. With ``cert`` and ``key`` (PEM files) it serves HTTPS, which
    phones need to keep their screens awake (the Wake Lock API wants a secure page)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    context = None
    if cert is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
    _raise_descriptor_limit()
    try:  # a store that can't be opened, read or written stops the server at once, saying why
        store = SQLiteStore(db)
    except StoreError as exc:
        raise SystemExit(f"lifeledger serve: {exc}") from None

    async def main() -> None:
        app = create_app(store)
        runner, _guard = await serve(app, host, port, ssl_context=context)
        scheme = "https" if context else "http"
        print(
            f"lifeledger table: {scheme}://{host}:{port}/  (tables in {db}; Ctrl-C stops)",
            flush=True,
        )
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
        asyncio.run(main())

"""The server's connections: caps in all and per client address (a trusted proxy's connections,
which carry many clients, are capped only in all), JSON answers to requests aiohttp can't
parse, a deadline for clients to take their answers, and :func:`serve`."""

from __future__ import annotations

import asyncio
import contextlib
import random
import resource
import ssl
from http import HTTPStatus

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from lifeledger.sentences import Sentence

from ..decide.limits import Limits
from ..live.hub import HUB_KEY
from .addresses import TrustedProxies
from .middleware import PROXIES_KEY, SECURITY_HEADERS, SERVER_NAME, reason_text, slug
from .requests import error_text

__all__ = ["ConnectionGuard", "GuardedHandler", "raise_descriptor_limit", "serve"]


#: The answer to a connection over the caps, written before it is closed.
_REFUSAL_BODY = error_text(
    "busy", Sentence("Too many connections; try again in a moment.")
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
        body = error_text(slug(reason), reason_text(reason))
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

    A trusted reverse proxy (``trusted``) is not capped per address: its connections carry
    many clients, each of them capped by the app's per-address limits instead.

    It sits where aiohttp's server counts connections (its ``connection_made`` and
    ``connection_lost``, called by every connection's protocol), and gives each connection
    it lets in the :class:`GuardedHandler` handler.
    """

    def __init__(
        self,
        server: web.Server,
        total: int,
        per_address: int,
        write_seconds: float = 120.0,
        trusted: TrustedProxies | None = None,
    ) -> None:
        self.handler_class = type(
            "GuardedHandler", (GuardedHandler,), {"__slots__": (), "write_seconds": write_seconds}
        )
        self.total = total
        self.per_address = per_address
        self.trusted = trusted or TrustedProxies()
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
        if self.count >= self.total or (
            self.open.get(who, 0) >= self.per_address and not self.trusted.trusts(who)
        ):
            self.refused += 1
            transport.write(_REFUSAL)
            # Closed once the handler has started (closing it now would end the connection
            # before its task runs, which then fails on a handler already taken apart).
            asyncio.get_running_loop().call_soon(handler.force_close)
            return
        handler.__class__ = self.handler_class
        # The header deadline, spread from half to one and a half of the setting: connections
        # opened together (as by a slow-client attack) are not all cut off, and reopened, at once.
        handler._keepalive_timeout *= 0.5 + random.random()
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
    reuse_port: bool = False,
) -> tuple[web.AppRunner, ConnectionGuard]:
    """Start serving ``app`` (made by :func:`create_app`) on ``host:port`` with its limits on
    connections; returns the runner (``await runner.cleanup()`` stops it) and the guard.
    ``reuse_port``: several processes listen on the port (``SO_REUSEPORT``: the system spreads
    the connections over them)."""
    limits = app[HUB_KEY].limits
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    assert runner.server is not None
    guard = ConnectionGuard(
        runner.server,
        descriptor_budget(limits),
        limits.connections_per_address,
        limits.write_seconds,
        app[PROXIES_KEY],
    )
    await web.TCPSite(
        runner, host, port, ssl_context=ssl_context, reuse_port=reuse_port or None
    ).start()
    return runner, guard


def raise_descriptor_limit() -> None:
    """Use the descriptors the system allows (the soft limit is often 1,024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

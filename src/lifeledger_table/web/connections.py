"""The server's connections: caps in all and per client address (a trusted proxy's connections,
which carry many clients, are capped only in all), JSON answers to requests aiohttp can't
parse, a deadline for clients to take their answers, errors accepting connections and
refusals logged once per condition, and :func:`serve` (the public listener) and
:func:`serve_internal` (the one the other processes on the store link to: the same caps)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import resource
import socket
import ssl
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from lifeledger.sentences import Sentence

from ..decide.limits import Limits
from ..live.hub import HUB_KEY
from .addresses import TrustedProxies
from .middleware import PROXIES_KEY, SECURITY_HEADERS, SERVER_NAME, reason_text, slug
from .requests import error_text

__all__ = [
    "QUIET",
    "AcceptErrors",
    "ConnectionGuard",
    "GatedSite",
    "GuardedHandler",
    "InternalUnavailable",
    "Tally",
    "quiet_accept_errors",
    "raise_descriptor_limit",
    "serve",
    "serve_internal",
]

log = logging.getLogger("lifeledger_table")


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


def descriptor_budget(limits: Limits, listeners: int = 1) -> int:
    """The connections one of the server's ``listeners`` may hold open: ``limits
    .connections``, lowered to leave ``spare_descriptors`` of the process's descriptor limit
    for the store, files and the sockets it accepts only to refuse, and to share the rest
    between the listeners (the public one and the internal one: a flood of either never
    takes the other's, nor the store's)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.connections
    return max(1, min(limits.connections, (soft - limits.spare_descriptors) // listeners))


class Tally:
    """The connections a listener holds open, in all and per client address, and the
    refusals of connections over its caps, logged once per :data:`QUIET` seconds with how
    many there were (never a line per connection)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.count = 0
        self.open: dict[str, int] = {}
        self.clock = clock
        self.unsaid = 0
        self.said_at: float | None = None

    def refused(self, who: str) -> None:
        """A connection from ``who`` was refused (over a cap): logged now if none was in the
        last :data:`QUIET` seconds, else counted into the next line."""
        self.unsaid += 1
        now = self.clock()
        if self.said_at is not None and now - self.said_at < QUIET:
            return
        log.warning(
            "refused %d connection(s) over the caps (%d open; the last from %s); the next "
            "such line comes %d s from now at the soonest",
            self.unsaid,
            self.count,
            who,
            QUIET,
        )
        self.unsaid, self.said_at = 0, now


#: Seconds between two log lines of one condition (connections refused over the caps, an
#: error accepting connections): a flood is said once, with its count, not once per
#: connection (issue 26 item 3: 736,145 ``accept()`` tracebacks in 65 s).
QUIET = 60

#: The event loop's messages for errors accepting a connection (asyncio's).
_ACCEPT_ERRORS = ("socket.accept() out of system resource", "Error on transport creation")


class AcceptErrors:
    """The event loop's exception handler for errors accepting connections (descriptors used
    up, memory short): one line per condition (the message and error number) every
    :data:`QUIET` seconds, with how many were seen since, and no traceback; every other
    error goes to the handler that was there before (or the loop's default)."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.before = loop.get_exception_handler()
        self.clock = clock
        self.seen: dict[tuple[str, int | None], tuple[float, int]] = {}

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message", ""))
        if not message.startswith(_ACCEPT_ERRORS):
            if self.before is not None:
                self.before(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        exc = context.get("exception")
        number = exc.errno if isinstance(exc, OSError) else None
        key = (message, number)
        now = self.clock()
        said_at, unsaid = self.seen.get(key, (None, 0))
        if said_at is not None and now - said_at < QUIET:
            self.seen[key] = (said_at, unsaid + 1)
            return
        self.seen[key] = (now, 0)
        more = f" ({unsaid} more since the last such line)" if unsaid else ""
        log.error(
            "%s: %s%s; the next such line comes %d s from now at the soonest",
            message,
            exc if exc is not None else "no detail",
            more,
            QUIET,
        )


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """Errors accepting connections are logged once per condition (:class:`AcceptErrors`)."""
    if not isinstance(loop.get_exception_handler(), AcceptErrors):
        loop.set_exception_handler(AcceptErrors(loop))


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
        tally: Tally | None = None,
    ) -> None:
        self.handler_class = type(
            "GuardedHandler", (GuardedHandler,), {"__slots__": (), "write_seconds": write_seconds}
        )
        self.total = total
        self.per_address = per_address
        self.trusted = trusted or TrustedProxies()
        #: Its connections open, and refusals (logged once a minute).
        self.tally = tally or Tally()
        #: Set while there is room for a connection under the cap in all (a
        #: :class:`GatedSite` accepts only then).
        self.room = asyncio.Event()
        self.room.set()
        self.refused = 0
        self.who: dict[RequestHandler, str] = {}
        self._made = server.connection_made
        self._lost = server.connection_lost
        setattr(server, "connection_made", self.connection_made)  # noqa: B010
        setattr(server, "connection_lost", self.connection_lost)  # noqa: B010

    @property
    def count(self) -> int:
        """The connections open."""
        return self.tally.count

    @property
    def open(self) -> dict[str, int]:
        """The connections open, by client address."""
        return self.tally.open

    def connection_made(self, handler: RequestHandler, transport: asyncio.Transport) -> None:
        """A new connection: counted in, or answered 503 and closed."""
        peer = transport.get_extra_info("peername")
        who = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if self.count >= self.total or (
            self.open.get(who, 0) >= self.per_address and not self.trusted.trusts(who)
        ):
            self.refused += 1
            self.tally.refused(who)
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
        self.tally.count += 1
        self.tally.open[who] = self.tally.open.get(who, 0) + 1
        if self.tally.count >= self.total:
            self.room.clear()
        self._made(handler, transport)

    def connection_lost(self, handler: RequestHandler, exc: BaseException | None = None) -> None:
        """A connection ended: counted out."""
        who = self.who.pop(handler, None)
        if who is not None:
            self.tally.count -= 1
            if self.tally.count < self.total:
                self.room.set()
            left = self.tally.open.get(who, 0) - 1
            if left > 0:
                self.tally.open[who] = left
            else:
                self.tally.open.pop(who, None)
        self._lost(handler, exc)


class _Listening(asyncio.AbstractServer):
    """A :class:`GatedSite`'s listening sockets and their accepting tasks."""

    def __init__(self, sockets: list[socket.socket], tasks: list[asyncio.Task[None]]) -> None:
        self._sockets = sockets
        self._tasks = tasks
        self._loop = asyncio.get_running_loop()

    def get_loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    async def start_serving(self) -> None:
        """It serves from the start."""

    async def serve_forever(self) -> None:
        await asyncio.gather(*self._tasks)

    @property
    def sockets(self) -> tuple[socket.socket, ...]:
        return tuple(self._sockets)

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for sock in self._sockets:
            sock.close()
        self._sockets = []

    def is_serving(self) -> bool:
        return bool(self._sockets)

    async def wait_closed(self) -> None:
        await asyncio.gather(*self._tasks, return_exceptions=True)


class GatedSite(web.BaseSite):
    """A TCP site that accepts a connection only while its guard has room under the cap in
    all (issue 26 item 3): past it, new connections wait in the system's backlog (then
    their SYNs are dropped, and retried by the client), costing the event loop nothing,
    rather than being accepted only to be refused, by the thousand a second, as a flood of
    held connections reconnecting would have it. Connections over the cap per address are
    still accepted and refused (503) by the guard, whose ``connection_made`` sees them."""

    __slots__ = ("guard", "host", "port")

    def __init__(
        self, runner: web.BaseRunner, host: str, port: int, guard: ConnectionGuard
    ) -> None:
        super().__init__(runner)
        self.host = host
        self.port = port
        self.guard = guard

    @property
    def name(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        await super().start()
        loop = asyncio.get_running_loop()
        found = await loop.getaddrinfo(
            self.host, self.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        sockets: list[socket.socket] = []
        try:
            for family, kind, proto, _name, address in found:
                sock = socket.socket(family, kind, proto)
                sockets.append(sock)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
                sock.listen(self._backlog)
                sock.setblocking(False)
        except OSError:
            for sock in sockets:
                sock.close()
            raise
        tasks = [loop.create_task(self._accept(sock)) for sock in sockets]
        self._server = _Listening(sockets, tasks)

    async def _accept(self, sock: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        server = self._runner.server
        assert server is not None
        while True:
            await self.guard.room.wait()
            try:
                conn, _peer = await loop.sock_accept(sock)
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                continue
            except OSError as exc:  # descriptors or memory short: said once, tried again
                handler = loop.get_exception_handler()
                context = {"message": _ACCEPT_ERRORS[0], "exception": exc}
                if handler is not None:
                    handler(loop, context)
                await asyncio.sleep(1.0)
                continue
            try:
                await loop.connect_accepted_socket(server, conn)
            except OSError:
                conn.close()


async def _listen(
    runner: web.AppRunner,
    host: str,
    port: int,
    limits: Limits,
    listeners: Callable[[], int],
    trusted: TrustedProxies | None = None,
    ssl_context: ssl.SSLContext | None = None,
    reuse_port: bool = False,
    gated: bool = False,
) -> ConnectionGuard:
    await runner.setup()  # (the app's start-up: the internal listener, if any, opens)
    assert runner.server is not None
    guard = ConnectionGuard(
        runner.server,
        descriptor_budget(limits, listeners()),
        limits.connections_per_address,
        limits.write_seconds,
        trusted,
    )
    quiet_accept_errors(asyncio.get_running_loop())
    if gated:
        await GatedSite(runner, host, port, guard).start()
    else:
        await web.TCPSite(
            runner, host, port, ssl_context=ssl_context, reuse_port=reuse_port or None
        ).start()
    return guard


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
    hub = app[HUB_KEY]
    runner = web.AppRunner(app, access_log=None)

    def listeners() -> int:  # this one, and the internal one if the app opened it
        return 2 if hub.owners.runner is not None else 1

    guard = await _listen(
        runner, host, port, hub.limits, listeners, app[PROXIES_KEY], ssl_context, reuse_port
    )
    return runner, guard


async def serve_internal(
    inside: web.Application, host: str, port: int, limits: Limits
) -> web.AppRunner:
    """Start the internal listener (``inside``: the other processes' links) on ``host:port``
    with the public listener's caps (issue 26 item 3): connections in all (each listener its
    own, the descriptors shared between them: a flood of one never takes the other's) and
    per address (no address is trusted as a proxy here), the header timeout
    (``limits.header_seconds``, from the moment a connection opens), the lingering and
    answer deadlines, requests it can't parse answered without a traceback, refusals over
    the caps and errors accepting connections logged once per condition. Past its cap in
    all it accepts nothing until a connection ends (:class:`GatedSite`). Returns its
    runner."""
    runner = web.AppRunner(
        inside,
        access_log=None,
        handle_signals=False,
        keepalive_timeout=limits.header_seconds,
        lingering_time=limits.linger_seconds,
    )
    try:
        await _listen(runner, host, port, limits, lambda: 2, gated=True)
    except OSError as exc:
        await runner.cleanup()
        raise InternalUnavailable(exc.errno, exc.strerror or str(exc)) from exc
    return runner


class InternalUnavailable(OSError):
    """The internal listener can't listen where it is told (not the public one: the line
    saying so names ``--internal``, not ``--port``)."""


def raise_descriptor_limit() -> None:
    """Use the descriptors the system allows (the soft limit is often 1,024)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))

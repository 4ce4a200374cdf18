"""The table web app assembled: its routes and middleware, slow-client timeouts, idle tables
leaving memory, and ``run`` for ``lifeledger serve``.

The top layer (the layers: :mod:`lifeledger_table`). Where things are decided:
:mod:`.web.routes` (HTTP), :mod:`.web.protocol` (the WebSocket), :mod:`.decide.table` (what a
change does, by the rules engine), :mod:`.live.hub` (ordering, writing and fan-out),
:mod:`.store` (the log), :mod:`.decide.limits` (what one client may send),
:mod:`.web.middleware` (what every HTTP answer goes through), :mod:`.web.addresses` (who the
client is, behind a reverse proxy), :mod:`.web.lan` (the LAN address phones open),
:mod:`.web.connections` (connection caps and :func:`serve`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import errno
import functools
import logging
import multiprocessing
import multiprocessing.process
import os
import signal
import socket
import ssl
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web

from .decide.limits import Limits
from .live.hub import HUB_KEY
from .parts import Parts, assemble
from .store.opening import is_postgresql, open_store, where
from .store.records import Feed, Store, StoreError
from .web import pages, pictures, protocol, routes
from .web.addresses import TrustedProxies
from .web.answers import close_drawing, fair_share
from .web.connections import (
    InternalUnavailable,
    raise_descriptor_limit,
    serve,
    serve_internal,
)
from .web.lan import (
    LAN_KEY,
    LOCAL_ONLY,
    is_loopback_host,
    lan_address,
    listens_everywhere,
    phone_url,
    terminal_qr,
)
from .web.middleware import (
    PROXIES_KEY,
    add_headers,
    client_address,
    errors,
    posts,
    slow_errors,
)

__all__ = ["Limits", "create_app", "run", "serve"]

log = logging.getLogger("lifeledger_table")

SWEEP_KEY = web.AppKey("sweep", list[asyncio.Task[None]])


async def _share_seats(parts: Parts, feed: Feed) -> None:
    """With other servers on the store: seat takeovers are asked and answered across them, and
    every ``limits.sweep`` seconds they hear which seats sockets here hold. Notices are sent
    in order, one at a time, off the event loop."""
    loop = asyncio.get_running_loop()
    sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="notices")
    hub, takeovers = parts.hub, parts.takeovers

    def notify(kind: str, table_id: str, detail: str) -> None:
        try:
            feed.notify(kind, table_id, detail)
        except Exception as exc:  # a notice lost: the others ask (or expire) instead
            log.warning("could not tell the other servers (%s)", exc)

    def send(kind: str, table_id: str, detail: str) -> None:
        loop.run_in_executor(sender, notify, kind, table_id, detail)

    takeovers.share(send)
    parts.share_notices()
    try:
        while True:
            takeovers.announce(hub)
            await asyncio.sleep(hub.limits.sweep)
    finally:
        sender.shutdown(wait=False)


def create_app(
    store: Store,
    limits: Limits | None = None,
    *,
    trusted_proxies: Iterable[str] = (),
    lan_address: str | None = None,
    internal: tuple[str, int] = ("127.0.0.1", 0),
) -> web.Application:
    """The aiohttp application serving tables kept in ``store``.

    ``trusted_proxies`` (addresses or CIDR networks; none by default): the reverse proxies
    whose ``X-Forwarded-For`` names the client (:mod:`.addresses`); connections from them are
    not capped per address either. Raises :class:`ValueError` for one that is not an address.

    ``lan_address``: the machine's LAN address, for a server listening on every interface:
    the links and QR code of a table opened from the machine itself (``localhost``) use it,
    so that phones on the same network can open them (:mod:`.lan`).

    ``internal``: the address and port (0: any free one) where the other processes on the
    same store reach this one, to send it the changes of the tables it decides
    (:mod:`.live.owners`); the loopback by default, for processes on one machine. It has the
    public listener's caps (:func:`.web.connections.serve_internal`), and is not opened at
    all on a store no other process shares (not a :class:`.Feed`: an SQLite file), where
    nothing can follow this process.

    Slow clients: aiohttp has no timeout of its own for a request's headers, but its keep-alive
    timer runs from the moment a connection opens (and again after each answer) and closes the
    connection if no whole request has arrived by then; set to ``header_seconds``, it is the
    header timeout. A body is read within ``body_seconds`` (:func:`.web.requests.read_text`), and a
    body nobody reads is drained for at most ``linger_seconds`` before the connection closes.
    """
    limits = limits or Limits()
    proxies = TrustedProxies(trusted_proxies)
    app = web.Application(
        client_max_size=limits.body_bytes,
        middlewares=[client_address, slow_errors, errors, posts, fair_share],
        handler_args={
            "keepalive_timeout": limits.header_seconds,
            "lingering_time": limits.linger_seconds,
        },
    )
    app[PROXIES_KEY] = proxies
    if lan_address is not None:
        app[LAN_KEY] = lan_address
    parts = assemble(store, limits)  # every part made and wired, in one place
    parts.install(app)
    hub = parts.hub
    routes.add_routes(app.router)
    protocol.add_routes(app.router)
    pictures.add_routes(app.router)
    app.on_response_prepare.append(add_headers)

    async def close_sockets(app: web.Application) -> None:
        for conns in list(app[HUB_KEY].conns.values()):
            for conn in list(conns):
                await conn.ws.close()

    async def stop_owners(app: web.Application) -> None:
        await app[HUB_KEY].owners.stop()  # the leases given up: the others take the tables

    async def close_store(app: web.Application) -> None:
        app[HUB_KEY].replaying.close()
        app[HUB_KEY].writer.reads.shutdown(wait=False, cancel_futures=True)
        app[HUB_KEY].writer.writes.close()  # a write under way ends before the store closes
        store.close()

    async def start_sweep(app: web.Application) -> None:
        loop = asyncio.get_running_loop()
        listen: Callable[[web.Application], Awaitable[web.AppRunner]] | None = None
        if isinstance(store, Feed):  # other processes can follow this one: they link to it
            host, port = internal
            listen = functools.partial(serve_internal, host=host, port=port, limits=limits)
        more = functools.partial(_internal_routes, parts)
        await hub.owners.start(listen, more=more)
        app[SWEEP_KEY] = [loop.create_task(hub.sweep())]
        if isinstance(store, Feed):  # several servers share the store: follow the others
            app[SWEEP_KEY] += [
                loop.create_task(store.listen(hub.follower.notified)),
                loop.create_task(_share_seats(parts, store)),
            ]

    async def stop_sweep(app: web.Application) -> None:
        for task in app[SWEEP_KEY]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app.on_startup.append(start_sweep)
    app.on_startup.append(pages.warm)  # every page, file and catalogue built once, off the loop
    app.on_cleanup.append(stop_sweep)
    app.on_shutdown.append(close_sockets)
    app.on_shutdown.append(stop_owners)
    app.on_cleanup.append(close_store)
    app.on_cleanup.append(close_drawing)
    return app


def _internal_routes(parts: Parts, inside: web.Application) -> None:
    """The internal listener's routes beyond the links: another process passing on a poll
    of a takeover request asked through this one (shown that process's key). Its error
    answers (a request not shown a key) are paced per address as the public
    listener's are, with the same budgets (``pacer``: issue 26 item 3, an unauthenticated
    flood), and are JSON."""
    parts.install_inside(inside)
    inside[routes.INTERNAL_KEY] = True
    inside.middlewares.append(slow_errors)
    inside.middlewares.append(errors)

    async def takeover_status(request: web.Request) -> web.Response:
        await parts.hub.owners.authentic(request)
        return await routes.takeover_status(request)

    inside.router.add_get("/api/tables/{table}/takeovers/{request}", takeover_status)


def phones_line(scheme: str, port: int, lan: str | None) -> str:
    """What ``lifeledger serve --host 0.0.0.0`` says phones on the same Wi-Fi open."""
    if lan is None:
        return (
            "Phones on the same Wi-Fi: no LAN address found; open this machine's address "
            f"on the network, port {port}."
        )
    return f"Phones on the same Wi-Fi open {phone_url(scheme, lan, port)}"


#: What to do when the address or port can't be listened on.
_USE_HOST = "use 127.0.0.1 (this machine only), 0.0.0.0 (every interface) or one of its addresses"


def _tls(cert: str, key: str | None) -> ssl.SSLContext:
    """The TLS context of ``--cert`` and ``--key``; exits with one line if they can't be
    read or are not a certificate and its key."""
    for option, path in (("--cert", cert), ("--key", key)):
        if path is not None and not os.path.isfile(path):
            what = "not a file" if os.path.exists(path) else "no such file"
            raise SystemExit(
                f"lifeledger serve: {option} {path}: {what}: make a certificate for this "
                "machine's address (e.g. mkcert 192.168.1.23) and pass its .pem files with "
                "--cert and --key, or leave both out to serve plain HTTP"
            )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(cert, key)
    except ssl.SSLError as exc:
        raise SystemExit(
            f"lifeledger serve: --cert {cert} --key {key}: not a certificate and its private "
            f"key in PEM ({exc.reason or exc}): pass the two .pem files mkcert made"
        ) from None
    except OSError as exc:
        raise SystemExit(
            f"lifeledger serve: --cert {cert} --key {key}: can't read them ({exc.strerror})"
        ) from None
    return context


def _listen_problem(host: str, port: int, exc: OSError) -> str:
    """The line saying why ``host:port`` can't be listened on, and what to do."""
    if isinstance(exc, socket.gaierror):
        return f"lifeledger serve: --host {host}: unknown host: {_USE_HOST}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"lifeledger serve: port {port} on {host} is in use (another lifeledger serve, or "
            "another program): stop it, or choose another port with --port"
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"lifeledger serve: --host {host} is not an address of this machine: {_USE_HOST}"
    if exc.errno == errno.EACCES:
        return (
            f"lifeledger serve: port {port} needs administrator rights (ports below 1024): "
            "choose one from 1024 up with --port (e.g. --port 8000)"
        )
    return f"lifeledger serve: can't listen on {host} port {port}: {exc.strerror or exc}"


def _can_listen(host: str, port: object) -> None:
    """Exit with one line if the server can't listen on ``host:port``: a port out of range
    (0 lets the system pick one), a host that doesn't resolve or is not this machine's, a
    port in use. Each address the host resolves to is bound for a moment, as the server
    binds it (address reuse on)."""
    if not isinstance(port, int) or isinstance(port, bool) or not 0 <= port <= 65535:
        raise SystemExit(
            f"lifeledger serve: --port {port}: a port is 1 to 65535 (e.g. --port 8000)"
        )
    try:
        _bind_for_a_moment(host, port)
    except OSError as exc:
        raise SystemExit(_listen_problem(host, port, exc)) from None


def run(
    host: str,
    port: int,
    db: str,
    *,
    cert: str | None = None,
    key: str | None = None,
    trusted_proxies: Iterable[str] = (),
    pool_size: int | None = None,
    workers: int = 1,
    internal: str | None = None,
) -> None:
    """Serve the table app on ``host:port`` with its tables in ``db`` (an SQLite file, or a
    PostgreSQL URL); blocks until interrupted. With ``cert`` and ``key`` (PEM files) it serves
    HTTPS, which phones need to keep their screens awake (the Wake Lock API wants a secure
    page). ``trusted_proxies``: see :func:`create_app`; ``pool_size``: a PostgreSQL store's
    connections (each process also holds one more, to hear the others). On every interface
    (``--host 0.0.0.0``) it prints the address phones on the same Wi-Fi open and a QR code of
    it, and tables opened from this machine link to it (:mod:`.lan`); on the loopback only, it
    says phones can't open it and how to let them in.

    ``workers``: that many processes serve the one port (``SO_REUSEPORT``), on a PostgreSQL
    store; this process watches them, starts another when one dies, and stops them all when
    it is stopped (SIGTERM, SIGINT). ``internal``: ``HOST`` or ``HOST:PORT`` where the other
    processes on the store reach this one (:func:`create_app`; default the loopback, any
    port)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    trusted_proxies = list(trusted_proxies)
    try:
        TrustedProxies(trusted_proxies)
    except ValueError as exc:
        raise SystemExit(f"lifeledger serve: --trusted-proxy: {exc}") from None
    # Everything that can stop the server is checked before the store is opened (issue 21
    # item 9): one line each, naming the fix, and exit status 1; never a traceback.
    if not 1 <= workers <= MAX_WORKERS:
        raise SystemExit(
            f"lifeledger serve: --workers {workers}: from 1 to {MAX_WORKERS} (one per core)"
        )
    if workers > 1 and not is_postgresql(db):
        raise SystemExit(
            f"lifeledger serve: --workers {workers} needs a PostgreSQL --db "
            "(postgresql://user@host/dbname): an SQLite file is for one process"
        )
    if workers > 1 and port == 0:
        raise SystemExit("lifeledger serve: --workers needs a --port (the workers share it)")
    inside = _internal(internal)
    if internal is not None:
        _can_listen_inside(internal, inside, db, workers)
    context = _tls(cert, key) if cert is not None else None
    _can_listen(host, port)
    raise_descriptor_limit()
    try:  # a store that can't be opened, read or written stops the server at once, saying why
        store = open_store(db, pool_size=pool_size)
    except StoreError as exc:
        raise SystemExit(f"lifeledger serve: {exc}") from None

    everywhere = listens_everywhere(host)
    lan = lan_address() if everywhere else None
    scheme = "https" if context else "http"

    def announce(more: str = "") -> None:
        print(
            f"lifeledger table: {scheme}://{host}:{port}/  (tables in {where(db)}{more}; "
            "Ctrl-C stops)",
            flush=True,
        )
        if everywhere:
            print(phones_line(scheme, port, lan), flush=True)
            if lan is not None:  # a QR code to scan off the screen
                print(terminal_qr(phone_url(scheme, lan, port)), flush=True)
        elif is_loopback_host(host):
            print(LOCAL_ONLY, flush=True)

    async def main(store: Store, alone: bool) -> None:
        app = create_app(store, trusted_proxies=trusted_proxies, lan_address=lan, internal=inside)
        try:
            runner, _guard = await serve(app, host, port, ssl_context=context, reuse_port=not alone)
        except InternalUnavailable as exc:  # taken since it was checked
            raise _usage(
                f"lifeledger serve: --internal {internal or ':'.join(map(str, inside))}: "
                f"can't listen there ({exc.strerror or exc}): choose another port"
            ) from None
        except OSError as exc:  # taken since it was checked
            raise SystemExit(_listen_problem(host, port, exc)) from None
        if alone:
            announce()
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    if workers == 1:
        with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
            asyncio.run(main(store, alone=True))
        return
    store.close()  # each worker opens its own

    def worker(n: int) -> None:
        nonlocal inside
        if inside[1]:  # a port given: the workers' are that and the next ones
            inside = (inside[0], inside[1] + n)
        try:
            mine = open_store(db, pool_size=pool_size)
        except StoreError as exc:
            raise SystemExit(f"lifeledger serve: {exc}") from None
        with contextlib.suppress(KeyboardInterrupt, asyncio.CancelledError):
            asyncio.run(main(mine, alone=False))

    supervise(workers, worker, lambda: announce(f"; {workers} worker processes"))


#: The most worker processes ``--workers`` starts.
MAX_WORKERS = 64


def _usage(line: str) -> SystemExit:
    """A usage error: ``line`` on standard error, exit status 2 (as the command line's)."""
    print(line, file=sys.stderr, flush=True)
    return SystemExit(2)


def _internal(given: str | None) -> tuple[str, int]:
    """``--internal HOST[:PORT]`` as an address and port (default: the loopback, any port).
    It is where the other processes connect: a wildcard (0.0.0.0, ::) names no machine. A
    malformed one, or a port out of range, is one line naming ``--internal`` (exit status 2)."""
    if given is None:
        return "127.0.0.1", 0
    if given.startswith("["):  # [IPv6]:PORT
        host, _, rest = given[1:].partition("]")
        port = rest.removeprefix(":")
    elif given.count(":") == 1:
        host, port = given.split(":")
    else:  # a name, IPv4 or IPv6 address alone
        host, port = given, ""
    if host in ("", "0.0.0.0", "::") or not (port == "" or port.isdigit()):
        raise _usage(
            f"lifeledger serve: --internal {given}: the address of this machine the other "
            "processes reach it at, HOST or HOST:PORT (e.g. 10.0.0.11 or 10.0.0.11:9001)"
        )
    number = int(port or 0)
    if not 0 <= number <= 65535:
        raise _usage(
            f"lifeledger serve: --internal {given}: a port is 1 to 65535 "
            "(e.g. --internal 10.0.0.11:9001), or leave it out for any free one"
        )
    return host, number


def _can_listen_inside(given: str, inside: tuple[str, int], db: str, workers: int) -> None:
    """Exit with one line naming ``--internal`` (status 2) if the internal listener can't
    be opened where ``--internal`` says (issue 26 item 8), before the store is opened: an
    SQLite ``db`` (one process: nothing links to it), a host that doesn't resolve or is not
    this machine's, a port in use (each worker's: the port and the next ones)."""
    if not is_postgresql(db):
        raise _usage(
            f"lifeledger serve: --internal {given}: only with a PostgreSQL --db, where other "
            "processes link to this one (an SQLite file is served by one process: leave "
            "--internal out)"
        )
    host, first = inside
    ports = [first + n for n in range(workers)] if first else [0]
    if ports[-1] > 65535:
        raise _usage(
            f"lifeledger serve: --internal {given}: {workers} workers take ports {first} to "
            f"{ports[-1]}, past 65535: choose a lower port"
        )
    for port in ports:
        try:
            _bind_for_a_moment(host, port)
        except socket.gaierror:
            raise _usage(
                f"lifeledger serve: --internal {given}: unknown host: name an address of "
                "this machine the other processes reach (e.g. 10.0.0.11 or 127.0.0.1)"
            ) from None
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                why = f"port {port} is in use (another program): choose another port"
            elif exc.errno == errno.EADDRNOTAVAIL:
                why = f"{host} is not an address of this machine: name one of its addresses"
            elif exc.errno == errno.EACCES:
                why = f"port {port} needs administrator rights: choose one from 1024 up"
            else:
                why = f"can't listen on {host} port {port} ({exc.strerror or exc})"
            raise _usage(f"lifeledger serve: --internal {given}: {why}") from None


def _bind_for_a_moment(host: str, port: int) -> None:
    """Bind each address ``host`` resolves to, on ``port``, as a server binds it (address
    reuse on), and let it go; raises :class:`OSError` (a :class:`socket.gaierror` for a
    host that doesn't resolve) if one can't be."""
    found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    for family, kind, proto, _name, address in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            probe.bind(address)


def _die_with(parent: int) -> None:
    """This worker ends when ``parent`` does, even killed with SIGKILL (Linux: the parent's
    death sends SIGTERM; elsewhere, a thread watches for it)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl")
    except (OSError, AttributeError, TypeError):

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=watch, name="watch-parent", daemon=True).start()
    if os.getppid() != parent:  # died before the request was made
        os._exit(1)


#: ``prctl``'s option: the signal this process gets when its parent dies.
PR_SET_PDEATHSIG = 1


def _worker(parent: int, serve_one: Callable[[int], None], n: int) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _die_with(parent)
    serve_one(n)


def supervise(workers: int, serve_one: Callable[[int], None], started: Callable[[], None]) -> None:
    """Run ``serve_one(n)`` in ``workers`` processes (forked; ``n`` from 0), each started
    again when it dies (at most once a second), until this process gets SIGTERM or SIGINT:
    then each is sent SIGTERM (its sockets close, its leases are given up) and, after 15 s,
    SIGKILL."""
    forks = multiprocessing.get_context("fork")
    parent = os.getpid()
    stopping = threading.Event()

    def stop(signum: int, frame: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    running: list[multiprocessing.process.BaseProcess] = []
    began: list[float] = []

    def spawn(n: int) -> None:
        proc = forks.Process(target=_worker, args=(parent, serve_one, n), name=f"worker {n + 1}")
        proc.start()
        if n < len(running):
            running[n], began[n] = proc, time.monotonic()
        else:
            running.append(proc)
            began.append(time.monotonic())

    for n in range(workers):
        spawn(n)
    started()
    while not stopping.wait(0.2):
        for n, proc in enumerate(running):
            if proc.is_alive() or time.monotonic() - began[n] < 1.0:
                continue
            log.warning(
                "worker %d (process %s) stopped (exit status %s); starting another",
                n + 1,
                proc.pid,
                proc.exitcode,
            )
            spawn(n)
    for proc in running:
        if proc.is_alive() and proc.pid is not None:
            os.kill(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for proc in running:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
            proc.join()

"""The table web app assembled: its routes, security headers, garbage-collection pacing, and
``run`` for ``lifeledger serve``.

Where things are decided: :mod:`.routes` (HTTP), :mod:`.protocol` (the WebSocket), :mod:`.table`
(what a change does, by the rules engine), :mod:`.hub` (ordering, writing and fan-out),
:mod:`.store` (the log), :mod:`.limits` (what one client may send).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import ssl
from collections.abc import Awaitable, Callable

from aiohttp import web

from . import protocol, routes
from .hub import HUB_KEY, Hub
from .limits import Limits
from .store import SQLiteStore, Store

__all__ = ["Limits", "create_app", "run"]

GC_KEY = web.AppKey("gc", asyncio.Task[None])


@web.middleware
async def headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Security headers on every response (the table id is in the URL: no referrer)."""
    response = await handler(request)
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; frame-ancestors 'none'",
    )
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    if request.path.startswith("/api/"):
        response.headers.setdefault("Cache-Control", "no-store")
    return response


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
    """The aiohttp application serving tables kept in ``store``."""
    limits = limits or Limits()
    app = web.Application(client_max_size=limits.body_bytes, middlewares=[headers])
    app[HUB_KEY] = Hub(store, limits)
    routes.add_routes(app.router)
    protocol.add_routes(app.router)

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


def run(host: str, port: int, db: str, *, cert: str | None = None, key: str | None = None) -> None:
    """Serve the table app on ``host:port`` with its tables in the SQLite file ``db``;
    blocks until interrupted. With ``cert`` and ``key`` (PEM files) it serves HTTPS, which
    phones need to keep their screens awake (the Wake Lock API wants a secure page)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    context = None
    if cert is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
    app = create_app(SQLiteStore(db))
    scheme = "https" if context else "http"
    print(
        f"lifeledger table: {scheme}://{host}:{port}/  (tables in {db}; Ctrl-C stops)", flush=True
    )
    web.run_app(app, host=host, port=port, ssl_context=context, print=None, access_log=None)

"""The table web app: HTTP API, WebSocket live updates, static pages.

One process, one event loop: every change to a table is decided, written to the store and
broadcast without yielding to the loop in between, so all phones see all changes in one order.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import io
import json
import logging
import re
import secrets
import ssl
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import segno
from aiohttp import WSMsgType, web

from . import engine
from .replay import replay_frames
from .setup import build_setup
from .store import DuplicateError, SQLiteStore, Store, TableRow, hash_token
from .table import Decision, Table, TableError

__all__ = ["Limits", "create_app", "run"]

log = logging.getLogger("lifeledger_table")

STATIC = Path(str(resources.files("lifeledger_table"))) / "static"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
_CLIENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")


@dataclass(frozen=True, slots=True)
class Limits:
    """The app's limits on what one client may send."""

    #: Largest WebSocket message, in bytes.
    message_bytes: int = 16 * 1024
    #: Largest HTTP request body (a record to replay), in bytes.
    body_bytes: int = 1024 * 1024
    #: Messages per second a socket may send, on average ...
    rate: float = 20.0
    #: ... and in one burst.
    burst: float = 40.0
    #: Messages turned away for flooding before the socket is closed.
    flood_close: int = 200
    #: Failed short-code lookups per client address in ``code_window`` seconds.
    code_failures: int = 30
    code_window: float = 600.0
    #: Tables opened, and records replayed, per client address in ``work_window`` seconds.
    tables_opened: int = 60
    replays: int = 60
    work_window: float = 600.0
    #: Messages queued for a slow client before it is dropped (it resumes on reconnect).
    queue: int = 2000


class Throttle:
    """How often each client address did something lately: ``allow`` is true while an
    address stays under ``limit`` times in ``window`` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.times: dict[str, list[float]] = {}

    def allow(self, who: str) -> bool:
        """Whether ``who`` may do it once more now (counting this time, if so)."""
        if not self.blocked(who):
            self.count(who)
            return True
        return False

    def blocked(self, who: str) -> bool:
        """Whether ``who`` has reached the limit (counting nothing)."""
        now = time.monotonic()
        if len(self.times) > 10_000:  # forget the addresses that have gone quiet
            self.times = {k: v for k, v in self.times.items() if v and now - v[-1] < self.window}
        recent = [t for t in self.times.get(who, ()) if now - t < self.window]
        if recent:
            self.times[who] = recent
        else:
            self.times.pop(who, None)
        return len(recent) >= self.limit

    def count(self, who: str) -> None:
        """Count one more time for ``who``."""
        self.times.setdefault(who, []).append(time.monotonic())


class Bucket:
    """A token bucket: ``take`` is true while the socket keeps under its rate."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


@dataclass(eq=False)
class Conn:
    """One open WebSocket: who is on it, and its outgoing queue (kept in order)."""

    ws: web.WebSocketResponse
    table: Table
    spectator: bool
    limits: Limits
    seat: str | None = None
    hello: bool = False
    dropped: int = 0
    bucket: Bucket = field(init=False)
    queue: asyncio.Queue[str | None] = field(init=False)

    def __post_init__(self) -> None:
        self.bucket = Bucket(self.limits.rate, self.limits.burst)
        self.queue = asyncio.Queue()

    def send(self, text: str) -> None:
        """Queue a message; a client too slow to keep up is disconnected (it will resume)."""
        if self.queue.qsize() >= self.limits.queue:
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(text)

    def close(self) -> None:
        """Close the connection once what is queued before it has been sent."""
        self.queue.put_nowait(None)

    def send_json(self, obj: dict[str, Any]) -> None:
        """Queue a JSON message."""
        self.send(json.dumps(obj))

    async def writer(self) -> None:
        """Send the queued messages in order until the connection ends."""
        while True:
            text = await self.queue.get()
            if text is None or self.ws.closed:
                await self.ws.close()
                return
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return


class Hub:
    """The tables in memory and the sockets open on each."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.tables: dict[str, Table] = {}
        self.conns: dict[str, set[Conn]] = {}
        self.wrong_codes = Throttle(limits.code_failures, limits.code_window)
        self.openings = Throttle(limits.tables_opened, limits.work_window)
        self.replays = Throttle(limits.replays, limits.work_window)
        #: Decided changes waiting to be written, with the socket that sent each.
        self.batch: list[tuple[Decision, Conn]] = []
        #: Retries of changes decided but not yet written: acknowledged once they are.
        self.retries: list[tuple[Table, Conn, str, int]] = []
        self.writer: asyncio.Task[None] | None = None

    def table(self, table_id: str) -> Table | None:
        """The table with this id, loaded from the store on first use."""
        if table_id in self.tables:
            return self.tables[table_id]
        if self.store.table(table_id) is None:
            return None
        table = Table(self.store, table_id)
        self.tables[table_id] = table
        return table

    def by_watch(self, watch: str) -> Table | None:
        """The table whose spectator id is ``watch``."""
        row = self.store.table_by_watch(watch)
        return None if row is None else self.table(row.id)

    def submit(self, decision: Decision, conn: Conn) -> None:
        """Queue a decided change for writing; it is acknowledged and broadcast once written.

        Changes decided while a write is under way go into the next one (group commit), so
        the store syncs once per batch rather than once per change, and the event loop never
        waits for the disk.
        """
        self.batch.append((decision, conn))
        if self.writer is None or self.writer.done():
            self.writer = asyncio.get_running_loop().create_task(self._write())

    def retry(self, table: Table, conn: Conn, cid: str, seq: int) -> None:
        """Acknowledge a retry of a change that was decided before, once it is written."""
        if seq <= table.committed:
            conn.send_json({"type": "ack", "id": cid, "seq": seq})
        else:
            self.retries.append((table, conn, cid, seq))

    async def _write(self) -> None:
        while self.batch:
            batch, self.batch = self.batch, []
            try:
                await asyncio.to_thread(self.store.append, [d.event for d, _ in batch])
            except Exception:
                log.exception("could not store %d events", len(batch))
                self._fail(batch + self.batch)
                self.batch = []
                continue
            for decision, conn in batch:
                table = self.tables[decision.event.table]
                table.commit(decision)
                conn.send_json(
                    {"type": "ack", "id": decision.event.client_id, "seq": decision.event.seq}
                )
                self.broadcast(table, decision.message)
            waiting, self.retries = self.retries, []
            for table, conn, cid, seq in waiting:
                self.retry(table, conn, cid, seq)

    def _fail(self, failed: list[tuple[Decision, Conn]]) -> None:
        """A write failed: forget every change not written, and say so to who sent it."""
        for decision, conn in failed:
            conn.send_json(
                _err(
                    decision.event.client_id,
                    "storage",
                    "The change could not be saved; nothing changed.",
                )
            )
        for table_id in {d.event.table for d, _ in failed}:
            self.tables[table_id].reload()
        waiting, self.retries = self.retries, []
        for table, conn, cid, seq in waiting:
            if seq > table.last_seq:
                conn.send_json(
                    _err(cid, "storage", "The change could not be saved; nothing changed.")
                )
            else:
                self.retry(table, conn, cid, seq)

    def broadcast(self, table: Table, message: dict[str, Any]) -> None:
        """Queue one message for every socket on the table (serialized once)."""
        text = json.dumps(message)
        for conn in self.conns.get(table.id, ()):
            if conn.hello:
                conn.send(text)


STORE_KEY = web.AppKey("store", Store)
HUB_KEY = web.AppKey("hub", Hub)
LIMITS_KEY = web.AppKey("limits", Limits)
GC_KEY = web.AppKey("gc", asyncio.Task[None])


def _error(status: int, code: str, message: str, **extra: Any) -> web.Response:
    return web.json_response({"error": code, "message": message, **extra}, status=status)


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


async def _body(request: web.Request) -> Any:
    try:
        return _strict_json(await request.text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise web.HTTPBadRequest(
            text=json.dumps({"error": "malformed", "message": f"The body is not JSON: {exc}"}),
            content_type="application/json",
        ) from exc


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _norm_code(code: str) -> str:
    return re.sub(r"[\s-]", "", code).upper()


# -- HTTP handlers ---------------------------------------------------------------------------


async def catalogue(request: web.Request) -> web.Response:
    """GET /api/catalogue: the variants, formats, cards and effect kinds the engine knows."""
    return web.json_response(engine.catalogue())


async def create_table(request: web.Request) -> web.Response:
    """POST /api/tables: open a table from the setup form."""
    store = request.app[STORE_KEY]
    if not request.app[HUB_KEY].openings.allow(request.remote or "?"):
        return _error(429, "throttled", "Too many tables opened from here; wait a few minutes.")
    try:
        setup = build_setup(await _body(request))
    except TableError as exc:
        return web.json_response(exc.to_json(), status=400)
    for _ in range(10):
        row = TableRow(
            id=secrets.token_urlsafe(24),
            watch=secrets.token_urlsafe(24),
            code=_new_code(),
            setup=setup,
            created=time.time(),
        )
        try:
            await asyncio.to_thread(store.create_table, row)  # a sync to disk: off the loop
            break
        except DuplicateError:
            continue
    else:
        return _error(503, "busy", "Could not find a free table code; try again.")
    return web.json_response(
        {"id": row.id, "watch": row.watch, "code": row.code, "header": setup["header"]},
        status=201,
    )


async def lookup_code(request: web.Request) -> web.Response:
    """GET /api/code/{code}: the table a short code opens. Failed lookups are rate-limited."""
    hub = request.app[HUB_KEY]
    who = request.remote or "?"
    if hub.wrong_codes.blocked(who):
        return _error(429, "throttled", "Too many wrong codes; wait a few minutes.")
    row = hub.store.table_by_code(_norm_code(request.match_info["code"]))
    if row is None:
        hub.wrong_codes.count(who)
        return _error(404, "unknown-table", "No table has this code.")
    return web.json_response({"id": row.id})


def _table_or_404(request: web.Request) -> Table:
    table = request.app[HUB_KEY].table(request.match_info["table"])
    if table is None:
        raise web.HTTPNotFound(
            text=json.dumps({"error": "unknown-table", "message": "There is no such table."}),
            content_type="application/json",
        )
    return table


def _watched_or_404(request: web.Request) -> Table:
    table = request.app[HUB_KEY].by_watch(request.match_info["watch"])
    if table is None:
        raise web.HTTPNotFound(
            text=json.dumps({"error": "unknown-table", "message": "There is no such table."}),
            content_type="application/json",
        )
    return table


async def table_info(request: web.Request) -> web.Response:
    """GET /api/tables/{table}: setup, state, timeline and score."""
    table = _table_or_404(request)
    return web.json_response({"table": table.info(spectator=False), **table.snapshot()})


async def watch_info(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}: the same, for a spectator (without the table's id or code)."""
    table = _watched_or_404(request)
    return web.json_response({"table": table.info(spectator=True), **table.snapshot()})


async def take_seat(request: web.Request) -> web.Response:
    """POST /api/tables/{table}/seats/{seat}: a token for the seat, if it is free or taken over
    (``{"takeover": true}``: the previous holder's token stops working)."""
    hub = request.app[HUB_KEY]
    table = _table_or_404(request)
    seat = request.match_info["seat"]
    if seat not in table.player_ids():
        return _error(404, "unknown-seat", "This table has no such seat.")
    body = await _body(request) if request.can_read_body else {}
    if not isinstance(body, dict) or not isinstance(body.get("takeover", False), bool):
        return _error(400, "malformed", 'The body is {"takeover": true} or {}.')
    if seat in table.seats and not body.get("takeover", False):
        return _error(409, "seat-taken", "This seat is taken. Take it over?")
    token = secrets.token_urlsafe(32)
    digest = hash_token(token)
    # Claimed in memory first, so that two phones asking at once can't both get the seat;
    # written to the store (off the loop) before anyone is told.
    previous = table.seats.get(seat)
    table.seats[seat] = digest
    try:
        await asyncio.to_thread(hub.store.set_seat, table.id, seat, digest)
    except BaseException:
        if table.seats.get(seat) == digest:
            if previous is None:
                del table.seats[seat]
            else:
                table.seats[seat] = previous
        raise
    for conn in hub.conns.get(table.id, ()):
        if conn.seat == seat:
            conn.seat = None
            conn.send_json({"type": "seat_lost", "seat": seat})
    hub.broadcast(table, {"type": "seats", "taken": sorted(table.seats)})
    return web.json_response({"seat": seat, "token": token})


async def qr_code(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/qr.svg?for=play|watch: a QR code of the table's link."""
    table = _table_or_404(request)
    which = request.query.get("for", "play")
    if which not in ("play", "watch"):
        return _error(400, "malformed", "for is play or watch.")
    path = f"/t/{table.id}" if which == "play" else f"/w/{table.row.watch}"
    url = f"{request.scheme}://{request.host}{path}"
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, dark="#111", light="#fff")
    return web.Response(body=out.getvalue(), content_type="image/svg+xml")


def _record_response(table: Table, number_text: str) -> web.Response:
    if not number_text.isdigit():
        return _error(404, "unknown-game", "No such game.")
    day, n = time.strftime("%Y-%m-%d", time.localtime(table.row.created)), number_text
    try:
        document = table.record(int(number_text))
    except TableError as exc:
        return web.json_response(exc.to_json(), status=404)
    return web.Response(
        text=json.dumps(document, indent=1),
        content_type="application/json",
        headers={
            # Not the table's code: a spectator downloads records too, and the code opens seats.
            "Content-Disposition": f'attachment; filename="lifeledger-{day}-game-{n}.json"'
        },
    )


async def table_record(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/games/{n}/record: game n as a game record (document)."""
    return _record_response(_table_or_404(request), request.match_info["n"])


async def watch_record(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}/games/{n}/record: the same, for a spectator."""
    return _record_response(_watched_or_404(request), request.match_info["n"])


async def replay_record(request: web.Request) -> web.Response:
    """POST /api/replay: a record (document or stream) -> the state after each action.

    The replay runs in a worker thread, so that the tables being played go on meanwhile."""
    if not request.app[HUB_KEY].replays.allow(request.remote or "?"):
        return _error(429, "throttled", "Too many records replayed from here; wait a few minutes.")
    try:
        text = await request.text()
    except UnicodeDecodeError:
        return _error(400, "malformed", "A record is UTF-8 text.")
    try:
        frames = await asyncio.to_thread(replay_frames, text)
    except TableError as exc:
        return web.json_response(exc.to_json(), status=400)
    return web.json_response(frames)


def _page(name: str) -> Callable[[web.Request], Awaitable[web.FileResponse]]:
    async def handler(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / name)

    handler.__doc__ = f"The page {name}."
    return handler


# -- WebSocket -------------------------------------------------------------------------------


async def table_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/t/{table}: a player's (or not yet seated visitor's) live connection."""
    return await _socket(request, _table_or_404(request), spectator=False)


async def watch_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/w/{watch}: a spectator's live connection (read-only)."""
    return await _socket(request, _watched_or_404(request), spectator=True)


async def _socket(request: web.Request, table: Table, spectator: bool) -> web.StreamResponse:
    hub = request.app[HUB_KEY]
    limits = request.app[LIMITS_KEY]
    ws = web.WebSocketResponse(max_msg_size=limits.message_bytes, heartbeat=30)
    await ws.prepare(request)
    conn = Conn(ws=ws, table=table, spectator=spectator, limits=limits)
    hub.conns.setdefault(table.id, set()).add(conn)
    writer = asyncio.create_task(conn.writer())
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
            if msg.type != WSMsgType.TEXT:
                conn.send_json(_err(None, "malformed", "Messages are JSON text."))
                continue
            if not conn.bucket.take():
                conn.dropped += 1
                if conn.dropped >= limits.flood_close:
                    conn.send_json(_err(None, "throttled", "Too many messages: disconnected."))
                    conn.close()
                    break
                conn.send_json(
                    _err(_peek_id(msg.data), "throttled", "Too many messages; slow down.")
                )
                continue
            _handle(hub, conn, msg.data)
    finally:
        hub.conns.get(table.id, set()).discard(conn)
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)
    if ws.close_code == 1009:
        log.info("closed a socket that sent an oversized message")
    return ws


def _err(cid: str | None, code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "id": cid, "error": code, "message": message, **extra}


def _peek_id(data: str) -> str | None:
    try:
        obj = json.loads(data)
    except ValueError:
        return None
    cid = obj.get("id") if isinstance(obj, dict) else None
    return cid if isinstance(cid, str) else None


def _handle(hub: Hub, conn: Conn, data: str) -> None:
    """One message from a client. Runs to the end without yielding: decide, persist, broadcast."""
    try:
        msg = _strict_json(data)
    except ValueError as exc:
        conn.send_json(_err(None, "malformed", f"Not JSON: {exc}"))
        return
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        conn.send_json(_err(None, "malformed", 'A message is a JSON object with a "type".'))
        return
    kind = msg["type"]
    table = conn.table
    if kind == "hello":
        _hello(conn, msg)
        return
    if kind == "ping":
        conn.send_json({"type": "pong"})
        return
    if kind not in ("action", "undo", "next_game"):
        conn.send_json(_err(None, "malformed", f"Unknown message type {kind!r}."))
        return
    cid = msg.get("id")
    if not isinstance(cid, str) or not _CLIENT_ID.match(cid):
        conn.send_json(
            _err(None, "malformed", 'Every change carries an "id": 1-64 letters, digits, _ or -.')
        )
        return
    if not conn.hello:
        conn.send_json(_err(cid, "hello-first", "Say hello first."))
        return
    if conn.spectator:
        conn.send_json(_err(cid, "spectator", "Spectators can watch but not act."))
        return
    if conn.seat is None:
        conn.send_json(_err(cid, "no-seat", "Take a seat to act."))
        return
    extra = sorted(
        set(msg) - {"type", "id", "action"} | ({"action"} if kind != "action" else set())
    )
    if any(member in msg for member in extra):
        bad = next(member for member in extra if member in msg)
        conn.send_json(_err(cid, "malformed", f"Unknown message member {bad!r} for {kind!r}."))
        return
    body: dict[str, Any] = {"action": msg.get("action")} if kind == "action" else {}
    try:
        decision = table.decide(kind, body, cid, conn.seat)
    except TableError as exc:
        conn.send_json({"type": "error", "id": cid, **exc.to_json()})
        return
    if isinstance(decision, int):
        hub.retry(table, conn, cid, decision)
    else:
        hub.submit(decision, conn)


def _hello(conn: Conn, msg: dict[str, Any]) -> None:
    table = conn.table
    since = msg.get("since", 0)
    token = msg.get("token")
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        conn.send_json(_err(None, "malformed", '"since" is the last sequence number seen.'))
        return
    if since > table.last_seq:
        since = 0
    conn.seat = None
    if token is not None:
        if conn.spectator:
            conn.send_json(_err(None, "spectator", "Spectators can watch but not act."))
        elif not isinstance(token, str) or not _TOKEN.match(token):
            conn.send_json(_err(None, "malformed", '"token" is a seat token.'))
            return
        else:
            digest = hash_token(token)
            conn.seat = next((s for s, d in table.seats.items() if d == digest), None)
            if conn.seat is None:
                conn.send_json(_err(None, "bad-token", "This seat token no longer holds a seat."))
    conn.hello = True
    conn.send_json(
        {
            "type": "welcome",
            "seat": conn.seat,
            "spectator": conn.spectator,
            "taken": sorted(table.seats),
            **table.snapshot(since),
        }
    )


# -- the app ---------------------------------------------------------------------------------


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
    app[STORE_KEY] = store
    app[HUB_KEY] = Hub(store, limits)
    app[LIMITS_KEY] = limits
    app.router.add_get("/", _page("index.html"))
    app.router.add_get("/t/{table}", _page("table.html"))
    app.router.add_get("/w/{watch}", _page("table.html"))
    app.router.add_get("/replay", _page("table.html"))
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/api/catalogue", catalogue)
    app.router.add_post("/api/tables", create_table)
    app.router.add_get("/api/code/{code}", lookup_code)
    app.router.add_get("/api/tables/{table}", table_info)
    app.router.add_post("/api/tables/{table}/seats/{seat}", take_seat)
    app.router.add_get("/api/tables/{table}/qr.svg", qr_code)
    app.router.add_get("/api/tables/{table}/games/{n}/record", table_record)
    app.router.add_get("/api/watch/{watch}", watch_info)
    app.router.add_get("/api/watch/{watch}/games/{n}/record", watch_record)
    app.router.add_post("/api/replay", replay_record)
    app.router.add_get("/ws/t/{table}", table_socket)
    app.router.add_get("/ws/w/{watch}", watch_socket)

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
    sys.set_int_max_str_digits(0)  # life totals are unbounded: show them whatever their length
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

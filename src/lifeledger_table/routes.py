"""The HTTP API and the pages: opening tables, codes, seats, records, QR codes and replays."""

from __future__ import annotations

import asyncio
import io
import json
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

import segno
from aiohttp import web

from . import engine
from .hub import HUB_KEY
from .jsontext import strict_json
from .replay import replay_frames
from .setup import build_setup
from .store import DuplicateError, TableRow, hash_token
from .table import Table, TableError

__all__ = ["STATIC", "add_routes", "table_or_404", "watched_or_404"]

STATIC = Path(str(resources.files("lifeledger_table"))) / "static"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def _error(status: int, code: str, message: str, **extra: Any) -> web.Response:
    return web.json_response({"error": code, "message": message, **extra}, status=status)


async def _body(request: web.Request) -> Any:
    try:
        return strict_json(await request.text())
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
    store = request.app[HUB_KEY].store
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


def table_or_404(request: web.Request) -> Table:
    table = request.app[HUB_KEY].table(request.match_info["table"])
    if table is None:
        raise web.HTTPNotFound(
            text=json.dumps({"error": "unknown-table", "message": "There is no such table."}),
            content_type="application/json",
        )
    return table


def watched_or_404(request: web.Request) -> Table:
    table = request.app[HUB_KEY].by_watch(request.match_info["watch"])
    if table is None:
        raise web.HTTPNotFound(
            text=json.dumps({"error": "unknown-table", "message": "There is no such table."}),
            content_type="application/json",
        )
    return table


async def table_info(request: web.Request) -> web.Response:
    """GET /api/tables/{table}: setup, state, timeline and score."""
    table = table_or_404(request)
    return web.json_response({"table": table.info(spectator=False), **table.snapshot()})


async def watch_info(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}: the same, for a spectator (without the table's id or code)."""
    table = watched_or_404(request)
    return web.json_response({"table": table.info(spectator=True), **table.snapshot()})


async def take_seat(request: web.Request) -> web.Response:
    """POST /api/tables/{table}/seats/{seat}: a token for the seat, if it is free or taken over
    (``{"takeover": true}``: the previous holder's token stops working)."""
    hub = request.app[HUB_KEY]
    table = table_or_404(request)
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
    table = table_or_404(request)
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
    return _record_response(table_or_404(request), request.match_info["n"])


async def watch_record(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}/games/{n}/record: the same, for a spectator."""
    return _record_response(watched_or_404(request), request.match_info["n"])


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


def add_routes(router: web.UrlDispatcher) -> None:
    """The pages, the static files and the HTTP API."""
    router.add_get("/", _page("index.html"))
    router.add_get("/t/{table}", _page("table.html"))
    router.add_get("/w/{watch}", _page("table.html"))
    router.add_get("/replay", _page("table.html"))
    router.add_static("/static/", STATIC)
    router.add_get("/api/catalogue", catalogue)
    router.add_post("/api/tables", create_table)
    router.add_get("/api/code/{code}", lookup_code)
    router.add_get("/api/tables/{table}", table_info)
    router.add_post("/api/tables/{table}/seats/{seat}", take_seat)
    router.add_get("/api/tables/{table}/qr.svg", qr_code)
    router.add_get("/api/tables/{table}/games/{n}/record", table_record)
    router.add_get("/api/watch/{watch}", watch_info)
    router.add_get("/api/watch/{watch}/games/{n}/record", watch_record)
    router.add_post("/api/replay", replay_record)

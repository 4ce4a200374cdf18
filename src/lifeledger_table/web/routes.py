"""The HTTP API: opening tables, codes, seats, records, QR codes and replays (the pages are
:mod:`.pages`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from dataclasses import replace
from typing import Any

import aiohttp
from aiohttp import web

from lifeledger import snapshot
from lifeledger.sentences import Sentence

from ..decide import engine
from ..decide.errors import TableError
from ..decide.limits import CodeGuard
from ..decide.setup import build_setup
from ..decide.table import PAGE, Table
from ..live.hub import HUB_KEY
from ..live.seats import SeatTaken, StorageFailure, grant_seat, grant_seats
from ..live.sharing import keep_shared
from ..live.takeover import TAKEOVERS_KEY, Takeover, is_host, origin_of
from ..store.records import DuplicateError, TableRow, hash_token
from ..workers.sharing import decide_shared
from .answers import answer
from .engine import add_engine
from .lan import link_origin
from .middleware import preflight
from .pages import add_pages
from .requests import (
    SHOWN,
    error_response,
    quoted,
    read_body,
    read_text,
    storage_error,
    table_or_404,
    watched_or_404,
)

__all__ = ["CODES_KEY", "add_routes"]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: New tables get 10-character codes (49.5 bits; docs/table.md, Limits, has the arithmetic);
#: tables opened before keep their 8-character codes.
CODE_LENGTH = 10
_CODE = re.compile(f"[{CODE_ALPHABET}]{{8,12}}")
_GAME_NUMBER = re.compile(r"[0-9]{1,9}")
#: How long the asking phone's poll of a takeover request waits for an answer.
POLL_SECONDS = 25.0

CODES_KEY = web.AppKey("codes", CodeGuard)

log = logging.getLogger("lifeledger_table")


def _new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _norm_code(code: str) -> str:
    return re.sub(r"[\s-]", "", code).upper()


# -- HTTP handlers ---------------------------------------------------------------------------


async def catalogue(request: web.Request) -> web.Response:
    """GET /api/catalogue: the variants, formats, cards and effect kinds the engine knows."""
    return web.json_response(engine.catalogue())


def _openings_refused(request: web.Request) -> web.Response | None:
    """429 when this address has opened too many tables lately (a new one, or a shared one)."""
    if request.app[HUB_KEY].openings.allow(request.remote or "?"):
        return None
    return error_response(
        429, "throttled", Sentence("Too many tables opened from here; wait a few minutes.")
    )


def _opened(request: web.Request, row: TableRow, **more: Any) -> web.Response:
    """201: the table opened, its ids, code, header and links."""
    return web.json_response(
        {
            "id": row.id,
            "watch": row.watch,
            "code": row.code,
            **more,
            "header": row.setup["header"],
            "links": _links(request, row.id, row.watch),
        },
        status=201,
    )


def _no_free_code() -> web.Response:
    return error_response(503, "busy", Sentence("Could not find a free table code; try again."))


async def create_table(request: web.Request) -> web.Response:
    """POST /api/tables: open a table from the setup form."""
    store = request.app[HUB_KEY].store
    refused = _openings_refused(request)
    if refused is not None:
        return refused
    try:
        setup = build_setup(await read_body(request))
    except TableError as exc:
        return web.json_response(exc.to_json(), status=400)
    # The phone that opens the table is its host: it may take over any seat (item 12). Only
    # the token's digest is kept, with the setup.
    host = secrets.token_urlsafe(32)
    setup = {**setup, "host": hash_token(host)}
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
            return _opened(request, row, host=host)
        except DuplicateError:
            continue
        except Exception:
            log.exception("could not store a new table")
            return storage_error()
    return _no_free_code()


async def share_table(request: web.Request) -> web.Response:
    """POST /api/tables/shared: a table brought from a device (live/sharing.py): its form, log
    and tools, every change decided again here before anything is kept; the device keeps its
    host and seat tokens. Answers the table's id, code and links (201), the same table for the
    same device table shared again (a retry), or 400 naming the member or change at fault."""
    store = request.app[HUB_KEY].store
    refused = _openings_refused(request)
    if refused is not None:
        return refused
    body = await read_body(request)
    try:
        # Deciding a long log is pure computation: in a worker process, so the tables being
        # played go on (in a thread it would hold the interpreter's lock).
        shared = await request.app[HUB_KEY].replaying.work(
            decide_shared,
            body,
            busy=Sentence("Other tables are being shared; try again shortly."),
            broken=Sentence("This table took too long to check here; download its record instead."),
        )
    except TableError as exc:
        return web.json_response(exc.to_json(), status=503 if exc.code == "busy" else 400)
    for _ in range(10):
        shared = replace(shared, row=replace(shared.row, code=_new_code()))
        try:
            return _opened(request, await asyncio.to_thread(keep_shared, store, shared))
        except DuplicateError:
            if await asyncio.to_thread(store.table_by_watch, shared.row.watch) is not None:
                return error_response(
                    409, "taken", Sentence("This table was shared by another device.")
                )
            continue  # the code was taken: another one
        except Exception:
            log.exception("could not store a shared table")
            return storage_error()
    return _no_free_code()


def _links(request: web.Request, table_id: str, watch: str) -> dict[str, str]:
    """A table's links, as a phone on the network opens them (:func:`.lan.link_origin`)."""
    origin = link_origin(request)
    return {"play": f"{origin}/t/{table_id}", "watch": f"{origin}/w/{watch}"}


async def lookup_code(request: web.Request) -> web.Response:
    """GET /api/code/{code}: the table a short code opens.

    Wrong codes are budgeted per address, per network and for everyone; over a budget a
    lookup waits its turn in one slow lane rather than being refused, so the right code typed
    behind a busy shared address still gets in (docs/table.md, Limits)."""
    hub = request.app[HUB_KEY]
    guard = request.app[CODES_KEY]
    who = request.remote or "?"
    wait = guard.wait(who)
    if wait is None:
        return error_response(
            429,
            "throttled",
            Sentence("Too many wrong codes; wait a minute, or open the table's link."),
        )
    if wait > 0:
        await asyncio.sleep(wait)
    code = _norm_code(request.match_info["code"])
    try:
        # Off the event loop: a store that can't be reached holds no other request.
        found = _CODE.fullmatch(code)
        row = await asyncio.to_thread(hub.store.table_by_code, code) if found else None
    except Exception:
        log.exception("could not look up a table code")
        return storage_error()
    if row is None:
        guard.failed(who)
        return error_response(404, "unknown-table", Sentence("No table has this code."))
    return web.json_response({"id": row.id})


async def table_info(request: web.Request) -> web.Response:
    """GET /api/tables/{table}: setup, state, timeline and score."""
    table = await table_or_404(request)
    links = _links(request, table.id, table.row.watch)

    def build() -> bytes:
        info = table.info(spectator=False)
        return table.snapshot_text(table=info, links=links).encode()

    # Built once per change of the table (and of its seats, and per origin of its links).
    key = ("table", table.committed, tuple(sorted(table.seats)), links["play"])
    return await answer(request, table, key, build)


#: Why a table's game isn't given while a change is being decided (asked again shortly).
_DECIDING = Sentence("The table is deciding a change; ask again in a moment.")


async def table_game(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/game: ``{"seq": N, "game": data}``, the current game as of the
    table's event N, as the engine's own data (:mod:`lifeledger.snapshot`): what a phone
    foresees its queued changes with while it has no connection (issue 27 item 4,
    ``device/foresee.py``). The table's game keeps no history (the table keeps its log), so
    the data stays small however long the game. Built once per change of the table; while a
    decided change waits to be written, 503 ``busy`` (``Retry-After``)."""
    table = await table_or_404(request)

    def build() -> bytes:
        table.check()
        if not table.idle():  # the live game is ahead of the last event written
            raise TableError("busy", _DECIDING)
        data = {"seq": table.committed, "game": snapshot.to_data(table.game)}
        return json.dumps(data, separators=(",", ":")).encode()  # ASCII: any string is sent

    try:
        return await answer(request, table, ("game", table.committed), build)
    except TableError as exc:
        status = 503 if exc.code in ("busy", "table-unavailable") else 400
        headers = {"Retry-After": "1"} if exc.code == "busy" else None
        return web.json_response(exc.to_json(), status=status, headers=headers)


async def watch_info(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}: the same, for a spectator (without the table's id or code)."""
    table = await watched_or_404(request)

    def build() -> bytes:
        return table.snapshot_text(table=table.info(spectator=True)).encode()

    return await answer(
        request, table, ("watch", table.committed, tuple(sorted(table.seats))), build
    )


async def _history_response(request: web.Request, table: Table) -> web.Response:
    try:
        before = int(request.query.get("before", str(table.committed + 1)))
        limit = int(request.query.get("limit", str(PAGE)))
    except ValueError:
        before = limit = -1
    if before < 0 or not 1 <= limit <= PAGE:
        return error_response(
            400,
            "malformed",
            Sentence("before is a sequence number, limit 1 to {n}.", n=PAGE),
        )
    # The socket's history message keeps its pages under the same key (answers.history_text).
    key = ("history", table.committed, min(before, table.committed + 1), limit)
    return await answer(request, table, key, lambda: table.history_text(before, limit).encode())


async def table_history(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/history?before=SEQ&limit=N: older timeline entries, a page."""
    return await _history_response(request, await table_or_404(request))


async def watch_history(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}/history?before=SEQ&limit=N: the same, for a spectator."""
    return await _history_response(request, await watched_or_404(request))


async def take_seat(request: web.Request) -> web.Response:
    """POST /api/tables/{table}/seats/{seat}: a token for a free seat (``{}``), or a takeover
    of a taken one (``{"takeover": true}``, with ``"host": HOST_TOKEN`` from the host).

    A takeover is granted at once for the host, or when no socket has held the seat for
    ``seat_idle_seconds``; otherwise it is a request (202) put to the sockets holding the seat
    and the host's, polled at ``GET /api/tables/{table}/takeovers/{request}``. A seat a table
    device holds is in use like any other (issue 21 item 2): anyone with the link could
    otherwise take a player's seat from the device and concede for them. ``"device"``
    (``"phone"`` or ``"table"``) is accepted and changes nothing."""
    hub = request.app[HUB_KEY]
    takeovers = request.app[TAKEOVERS_KEY]
    table = await table_or_404(request)
    seat = request.match_info["seat"]
    if seat not in table.player_ids():
        return error_response(404, "unknown-seat", Sentence("This table has no such seat."))
    body = await read_body(request)
    if (
        not isinstance(body, dict)
        or set(body) - {"takeover", "host", "device"}
        or not isinstance(body.get("takeover", False), bool)
        or not isinstance(body.get("host", ""), str)
        or body.get("device", "phone") not in ("table", "phone")
    ):
        return error_response(
            400,
            "malformed",
            Sentence(
                'The body is {}, or {"takeover": true} (and "host"); "device": "table" from a '
                "table device."
            ),
        )
    if seat in table.seats:
        connected = takeovers.held_lately(hub, table, seat)
        if not body.get("takeover", False):
            on_device = {"device": True} if takeovers.on_device(hub, table, seat) else {}
            return error_response(
                409,
                "seat-taken",
                Sentence("This seat is taken. Take it over?"),
                connected=connected,
                **on_device,
            )
        if not takeovers.throttle.allow(request.remote or "?"):
            return error_response(
                429, "throttled", Sentence("Too many takeovers from here; wait a few minutes.")
            )
        if connected and not is_host(table, body.get("host")):
            asked = takeovers.ask(hub, table, seat)
            if asked is None:
                return error_response(
                    429, "busy", Sentence("Too many takeovers are waiting at this table.")
                )
            expires = round(asked.expires - asked.created)
            return web.json_response({"request": asked.id, "expires": expires}, status=202)
    try:
        token = await grant_seat(hub, takeovers, table, seat)
    except StorageFailure:
        return storage_error()
    except SeatTaken:
        return error_response(
            409, "seat-taken", Sentence("This seat was just taken. Take it over?")
        )
    return web.json_response({"seat": seat, "token": token})


async def take_seats(request: web.Request) -> web.Response:
    """POST /api/tables/{table}/seats: several seats for one device, in one request:
    ``{"seats": [S, ...], "device": "table" | "phone", "takeover": bool, "host": HOST}``
    (only ``seats`` is needed; ``device`` is ``"table"`` unless said). Every listed seat that
    is free is given; a taken one is skipped, unless it is given at once as
    ``POST .../seats/{seat}`` would give it: with ``"takeover": true``, from the host (any
    seat) or for a seat no socket has held lately (a table device's included). Nobody is
    asked. Answers ``{"tokens": {S: TOKEN}, "skipped":
    {S: "taken" | "storage"}}``; a body that is not right is answered 400 naming the member,
    and changes nothing."""
    hub = request.app[HUB_KEY]
    takeovers = request.app[TAKEOVERS_KEY]
    table = await table_or_404(request)
    body = await read_body(request)
    problem = _seats_body_problem(table, body)
    if problem is not None:
        member, code, message = problem
        return error_response(400, code, message, member=member)
    seats: list[str] = body["seats"]
    host = is_host(table, body.get("host"))
    takeover = bool(body.get("takeover", False))
    wanted: dict[str, str | None] = {}
    skipped: dict[str, str] = {}
    for seat in seats:  # decided and claimed with no await between: no other request in between
        held = table.seats.get(seat)
        if held is None or (takeover and (host or not takeovers.held_lately(hub, table, seat))):
            wanted[seat] = held
        else:
            skipped[seat] = "taken"
    # Taking taken seats is a takeover (one for the request), budgeted as one.
    if any(held is not None for held in wanted.values()) and not takeovers.throttle.allow(
        request.remote or "?"
    ):
        return error_response(
            429, "throttled", Sentence("Too many takeovers from here; wait a few minutes.")
        )
    tokens, failed = await grant_seats(hub, takeovers, table, wanted)
    if failed and not tokens and all(why == "storage" for why in failed.values()):
        return storage_error()
    skipped.update(failed)
    return web.json_response(
        {"tokens": tokens, "skipped": {s: skipped[s] for s in seats if s in skipped}}
    )


def _seats_body_problem(table: Table, body: Any) -> tuple[str, str, str] | None:
    """What is wrong with a ``POST .../seats`` body: (member, error code, message)."""
    if not isinstance(body, dict):
        return "seats", "malformed", 'The body is {"seats": [SEAT, ...], "device": "table"}.'
    extra = sorted(set(body) - {"seats", "device", "takeover", "host"})
    if extra:
        return (
            extra[0][:SHOWN],
            "malformed",
            Sentence("Unknown member {member}.", member=quoted(extra[0])),
        )
    seats = body.get("seats")
    if not isinstance(seats, list) or not seats:
        return (
            "seats",
            "malformed",
            Sentence('"seats" is a list of the seats wanted (at least one).'),
        )
    players = table.player_ids()
    seen: set[str] = set()
    for n, seat in enumerate(seats):
        where = f'"seats"[{n}]'
        if not isinstance(seat, str):
            return (
                "seats",
                "malformed",
                Sentence(
                    "{where} is not a seat id (text): {seat}.", where=where, seat=quoted(seat)
                ),
            )
        if seat not in players:
            return (
                "seats",
                "unknown-seat",
                Sentence("{where}: this table has no seat {seat}.", where=where, seat=quoted(seat)),
            )
        if seat in seen:
            return (
                "seats",
                "malformed",
                Sentence(
                    "{where}: the seat {seat} is listed twice.", where=where, seat=quoted(seat)
                ),
            )
        seen.add(seat)
    if body.get("device", "table") not in ("table", "phone"):
        return (
            "device",
            "malformed",
            Sentence('"device" is "table" (one device for the table) or "phone".'),
        )
    if not isinstance(body.get("takeover", False), bool):
        return "takeover", "malformed", Sentence('"takeover" is true or false.')
    if not isinstance(body.get("host", ""), str):
        return "host", "malformed", Sentence('"host" is the table\'s host token.')
    return None


#: Set on the internal listener's app (:func:`..server.create_app`): its polls of takeover
#: requests are answered here, never passed on again.
INTERNAL_KEY = web.AppKey("internal", bool)


async def takeover_status(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/takeovers/{request}: how a takeover request stands (a long
    poll: waits up to 25 s for an answer). ``allowed`` carries the seat's token, once."""
    hub = request.app[HUB_KEY]
    takeovers = request.app[TAKEOVERS_KEY]
    table = await table_or_404(request)
    rid = request.match_info["request"]
    asked: Takeover | None = takeovers.requests.get(rid)
    origin = origin_of(rid)
    if (
        (asked is None or asked.origin is not None)
        and origin is not None
        and origin != hub.owners.address
        and not request.app.get(INTERNAL_KEY, False)
    ):
        # Asked through another process on the store, which decides it: the poll goes there.
        try:
            status, found = await hub.owners.ask(origin, request.path)
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError):
            status, found = 404, None
        if status == 200 and isinstance(found, dict):
            return web.json_response(found)
        asked = None
    if asked is None or asked.table != table.id:
        return error_response(
            404, "unknown-request", Sentence("There is no such takeover request.")
        )
    if asked.state() == "pending":
        wait = min(POLL_SECONDS, max(0.0, asked.expires - time.monotonic()))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                await asked.done.wait()
    return web.json_response(takeovers.answer(asked))


async def qr_code(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/qr.svg?for=play|watch: a QR code of the table's link (with the
    machine's LAN address when the opener used the loopback: :func:`.lan.link_origin`)."""
    table = await table_or_404(request)
    which = request.query.get("for", "play")
    if which not in ("play", "watch"):
        return error_response(400, "malformed", Sentence("for is play or watch."))
    if len(request.host) > 261:  # a host name (253) and a port: a longer Host is made up
        return error_response(400, "malformed", Sentence("The Host header is too long for a link."))
    url = _links(request, table.id, table.row.watch)[which]
    # Drawn once per link (pure Python, some 8 ms: in a worker process, workers/drawing.py).
    return await answer(
        request, table, ("qr", url), content_type="image/svg+xml", draw=lambda d: d.qr(url)
    )


#: How much of a record is written at a time: between two writes the event loop serves others.
_RECORD_CHUNK = 64 * 1024


async def _record_response(
    request: web.Request, table: Table, number_text: str
) -> web.StreamResponse:
    if not _GAME_NUMBER.fullmatch(number_text):  # not str.isdigit: it takes "²"
        return error_response(404, "unknown-game", Sentence("No such game."))
    if not request.app[HUB_KEY].downloads.allow(request.remote or "?"):
        return error_response(
            429, "throttled", Sentence("Too many records downloaded from here; wait a minute.")
        )
    day, n = time.strftime("%Y-%m-%d", time.localtime(table.row.created)), number_text
    try:
        document = await asyncio.to_thread(table.record, int(number_text))
    except TableError as exc:
        return web.json_response(exc.to_json(), status=404)
    response = web.StreamResponse(
        headers={
            # Not the table's code: a spectator downloads records too, and the code opens seats.
            "Content-Disposition": f'attachment; filename="lifeledger-{day}-game-{n}.json"'
        }
    )
    response.content_type = "application/json"
    await response.prepare(request)
    # Written a piece at a time (a long game's record is megabytes: made in one piece, it
    # held the event loop for most of a second, and every table with it).
    pieces: list[str] = []
    size = 0
    for piece in json.JSONEncoder(indent=1).iterencode(document):
        pieces.append(piece)
        size += len(piece)
        if size >= _RECORD_CHUNK:
            await response.write("".join(pieces).encode())
            pieces, size = [], 0
    await response.write("".join(pieces).encode())
    await response.write_eof()
    return response


async def table_record(request: web.Request) -> web.StreamResponse:
    """GET /api/tables/{table}/games/{n}/record: game n as a game record (document)."""
    return await _record_response(request, await table_or_404(request), request.match_info["n"])


async def watch_record(request: web.Request) -> web.StreamResponse:
    """GET /api/watch/{watch}/games/{n}/record: the same, for a spectator."""
    return await _record_response(request, await watched_or_404(request), request.match_info["n"])


async def replay_record(request: web.Request) -> web.Response:
    """POST /api/replay: a record (document or stream) -> the state after each action.

    The replay runs in a worker process, so that the tables being played go on meanwhile."""
    if not request.app[HUB_KEY].replays.allow(request.remote or "?"):
        return error_response(
            429, "throttled", Sentence("Too many records replayed from here; wait a few minutes.")
        )
    text = await read_text(request)
    try:
        # A few at a time, in a worker process, bounded in size (issue 7 item 7).
        body = await request.app[HUB_KEY].replaying.run(text)
    except TableError as exc:
        status = {"too-large": 413, "busy": 503}.get(exc.code, 400)
        return web.json_response(exc.to_json(), status=status)
    return web.Response(body=body, content_type="application/json")


def add_routes(router: web.UrlDispatcher) -> None:
    """The pages, the static files and the HTTP API."""
    add_pages(router)
    add_engine(router)
    router.add_get("/api/catalogue", catalogue)
    router.add_post("/api/tables", create_table)
    router.add_post("/api/tables/shared", share_table)
    router.add_route("OPTIONS", "/api/tables/shared", preflight)  # from the static app
    router.add_get("/api/code/{code}", lookup_code)
    router.add_get("/api/tables/{table}", table_info)
    router.add_get("/api/tables/{table}/history", table_history)
    router.add_get("/api/tables/{table}/game", table_game)
    router.add_post("/api/tables/{table}/seats", take_seats)
    router.add_post("/api/tables/{table}/seats/{seat}", take_seat)
    router.add_get("/api/tables/{table}/takeovers/{request}", takeover_status)
    router.add_get("/api/tables/{table}/qr.svg", qr_code)
    router.add_get("/api/tables/{table}/games/{n}/record", table_record)
    router.add_get("/api/watch/{watch}", watch_info)
    router.add_get("/api/watch/{watch}/history", watch_history)
    router.add_get("/api/watch/{watch}/games/{n}/record", watch_record)
    router.add_post("/api/replay", replay_record)

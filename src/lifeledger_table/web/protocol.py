"""The WebSocket protocol: what a phone may send on its live connection, and the answers.

A message is decided to the end without yielding to the event loop (decide, then queue for the
hub's writer), so all phones see all changes of a table in one order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable

from aiohttp import WSCloseCode, WSMsgType, web

from lifeledger.sentences import Sentence

from ..decide.jsontext import NotJson, strict_json
from ..decide.limits import SocketGate
from ..decide.messages import CHANGES
from ..decide.setup import MAX_PLAYERS
from ..decide.table import Table
from ..live.hub import HUB_KEY
from ..live.sockets import Conn, error_message
from ..live.takeover import TAKEOVERS_KEY
from ..live.undoasks import UNDO_ASKS_KEY
from .requests import error_text, same_origin, table_or_404, watched_or_404
from .socket import Handler, changes, hello, history, ping, takeover, tools, undo
from .socket.hello import DEVICES, seats_full, seats_of

__all__ = ["GATE_KEY", "KINDS", "add_routes", "table_socket", "watch_socket"]

#: Sockets and messages per client address and per table (issue 7 item 8).
GATE_KEY = web.AppKey("sockets", SocketGate)

log = logging.getLogger("lifeledger_table")


async def table_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/t/{table}: a player's (or not yet seated visitor's) live connection."""
    return await _open(request, table_or_404, spectator=False)


async def watch_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/w/{watch}: a spectator's live connection (read-only)."""
    return await _open(request, watched_or_404, spectator=True)


async def _open(
    request: web.Request, find: Callable[[web.Request], Awaitable[Table]], *, spectator: bool
) -> web.StreamResponse:
    try:
        table = await find(request)
    except web.HTTPServiceUnavailable as exc:
        return await _unavailable(request, exc)
    return await _socket(request, table, spectator=spectator)


async def _unavailable(request: web.Request, exc: web.HTTPServiceUnavailable) -> web.StreamResponse:
    """A table that can't be loaded: the socket opens, says why (naming the table and the
    event, as the HTTP answer does) and closes."""
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    await ws.send_json({"type": "error", "id": None, **json.loads(exc.text or "{}")})
    await ws.close()
    return ws


async def _socket(request: web.Request, table: Table, spectator: bool) -> web.StreamResponse:
    hub = request.app[HUB_KEY]
    limits = hub.limits
    kind = request.query.get("device", "phone")
    if kind not in DEVICES:  # a page's mistake, not a player's: refused as a bad request
        raise web.HTTPBadRequest(
            text=error_text(
                "malformed",
                Sentence('"device" is "table" (one device for the table) or "phone".'),
                member="device",
            ),
            content_type="application/json",
        )
    if not same_origin(request):
        # Another site's page may not open a socket with this browser's seat (item 12).
        raise web.HTTPForbidden(
            text=error_text("cross-origin", Sentence("Other sites can't connect.")),
            content_type="application/json",
        )
    gate = request.app[GATE_KEY]
    who = request.remote or "?"
    # No permessage-deflate, though browsers ask for it (issue 29 item 1): a change's event
    # (about 400 bytes) would be compressed once for each phone, in each phone's own zlib
    # state, and cost more than its deciding (400 phones asking: 1.30 ms of CPU a change
    # against 1.05 without, benchmarks/table.py --compress 15); the same bytes go to every
    # phone instead. A welcome is at most a page (PAGE_BYTES).
    ws = web.WebSocketResponse(max_msg_size=limits.message_bytes, heartbeat=30, compress=False)
    # A socket that opens with its seats' tokens (``?token=A&token=B``: a table device holds
    # several) is a player's: it never counts among the spectators and visitors, so that they
    # can't fill a table (item 8), and counts once for each seat it holds.
    tokens = request.query.getall("token", [])[:MAX_PLAYERS]
    named = [] if spectator else seats_of(table, tokens)
    # A table device's socket opens for the seats that have room: one seat at its cap (its
    # own sockets not yet seen closed, after a flaky network) doesn't keep out the others.
    placed = [s for s in named if gate.has_room(table.id, s)] or named
    full = [s for s in named if s not in placed]
    refusal = gate.admit(who, table.id, placed)
    if refusal is not None:
        # Said on the socket, with "try again later" (1013): a browser shows a page neither
        # the status of a refused upgrade nor its body.
        await ws.prepare(request)
        await ws.send_json(error_message(None, "too-many-sockets", refusal))
        await ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"too many sockets")
        return ws
    takeovers = request.app[TAKEOVERS_KEY]
    counted = list(placed)  # the seats the socket limits count it for, while it holds them

    def uncount(seat: str) -> None:
        if seat in counted:
            counted.remove(seat)
            gate.leave_seat(table.id, seat)

    def recount(seats: list[str]) -> list[str]:
        for seat in [s for s in counted if s not in seats]:
            uncount(seat)
        full = []
        for seat in seats:
            if seat in counted:
                continue
            if gate.join_seat(table.id, seat):
                counted.append(seat)
            else:
                full.append(seat)
        return full

    conn = Conn(
        ws=ws,
        table=table,
        spectator=spectator,
        limits=limits,
        device=kind == "table",
        address=who,
        uncount=uncount,
        recount=recount,
    )
    try:
        await ws.prepare(request)
    except BaseException:
        gate.leave(who, table.id, placed)
        raise
    hub.conns.setdefault(table.id, set()).add(conn)
    writer = asyncio.create_task(conn.writer())
    if full:
        conn.send_json(seats_full(hub, table, full, "token"))
    # A socket that never says hello is closed (it holds a descriptor and a place).
    no_hello = asyncio.get_running_loop().call_later(
        limits.hello_seconds, lambda: None if conn.hello else conn.close()
    )
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
            # Every frame, text or not, spends from the budgets (item 8).
            text = msg.data if msg.type == WSMsgType.TEXT else ""
            if not conn.bucket.take():
                conn.dropped += 1
                if conn.dropped >= limits.flood_close:
                    conn.send_json(
                        error_message(
                            None, "throttled", Sentence("Too many messages: disconnected.")
                        )
                    )
                    conn.close()
                    break
                conn.send_json(
                    error_message(
                        _peek_id(text), "throttled", Sentence("Too many messages; slow down.")
                    )
                )
                continue
            # The budgets the address's sockets share, and the table's seated sockets (item 8):
            # a visitor with the link can't spend the players' budget.
            if not gate.take(who, table.id if conn.seats else None):
                conn.dropped += 1
                if conn.dropped >= limits.flood_close:
                    conn.close()
                    break
                conn.send_json(
                    error_message(
                        _peek_id(text),
                        "throttled",
                        Sentence("Too many messages from here or at this table; slow down."),
                    )
                )
                continue
            if msg.type != WSMsgType.TEXT:
                conn.send_json(
                    error_message(None, "malformed", Sentence("Messages are JSON text."))
                )
                continue
            if hub.owners.copies.behind_on(table) and _kind_of(msg.data) in _READS_TABLE:
                # Its copy here takes in what its owner decided first (in slices, the other
                # tables going on: issue 26 item 2); this socket's next messages wait.
                await hub.owners.copies.caught_up(table)
            try:
                _handle(request.app, conn, msg.data)
            except Exception:
                log.exception("unexpected error handling a message")
                conn.send_json(
                    error_message(
                        _peek_id(text), "internal", Sentence("The server could not handle this.")
                    )
                )
    finally:
        no_hello.cancel()
        gate.leave(who, table.id, counted, watcher=not placed)
        conns = hub.conns.get(table.id)
        if conns is not None:
            conns.discard(conn)
            if not conns:  # no empty set kept for every table ever connected to
                del hub.conns[table.id]
        for held in conn.seats:
            takeovers.release(table.id, held, conn.device)
        takeovers.hosts.discard(conn)
        request.app[UNDO_ASKS_KEY].forget(conn)
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)
    if ws.close_code == 1009:
        log.info("closed a socket that sent an oversized message")
    return ws


#: A change's id as it stands in a message that can't be read (too deep, a huge integer...),
#: so that the error still answers the change that caused it.
_ID_IN_TEXT = re.compile(r'"id"\s*:\s*"([A-Za-z0-9_-]{1,64})"')


def _peek_id(data: str) -> str | None:
    try:
        obj = strict_json(data)
    except ValueError:
        found = _ID_IN_TEXT.search(data[:4096])
        return found.group(1) if found else None
    cid = obj.get("id") if isinstance(obj, dict) else None
    return cid if isinstance(cid, str) else None


#: The messages that read the copy here of a table another process decides: it is brought up
#: to date before (:meth:`.Copies.caught_up`). Not a ping, nor a change sent on to the owner.
_READS_TABLE = ("hello", "history", "undo")


def _kind_of(data: str) -> object:
    """A message's ``"type"`` (``None`` for a message that is not a JSON object)."""
    try:
        msg = strict_json(data)
    except ValueError:
        return None
    return msg.get("type") if isinstance(msg, dict) else None


#: The handler of each kind of message (its ``"type"``), each in a module named for it.
KINDS: dict[str, Handler] = {
    "hello": hello.handle,
    "takeover_answer": takeover.handle,
    "ping": ping.handle,
    "history": history.handle,
    "undo_answer": undo.answer,
    "tool": tools.handle,
    **{kind: changes.handle for kind in CHANGES},
    "undo": undo.handle,
}


def _handle(app: web.Application, conn: Conn, data: str) -> None:
    """One message from a client: read, then handled by its kind's handler (:data:`KINDS`).
    Runs to the end without yielding: decide, persist, broadcast."""
    try:
        msg = strict_json(data)
    except NotJson as exc:
        conn.send_json(
            error_message(
                _peek_id(data), "malformed", Sentence("Not JSON: {error}", error=exc.words)
            )
        )
        return
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        conn.send_json(
            error_message(None, "malformed", Sentence('A message is a JSON object with a "type".'))
        )
        return
    kind = msg["type"]
    handler = KINDS.get(kind)
    if handler is None:
        conn.send_json(
            error_message(
                None, "malformed", Sentence("Unknown message type {kind}.", kind=repr(kind))
            )
        )
        return
    handler(app, conn, msg)


def add_routes(router: web.UrlDispatcher) -> None:
    """The live connections: a player's and a spectator's."""
    router.add_get("/ws/t/{table}", table_socket)
    router.add_get("/ws/w/{watch}", watch_socket)

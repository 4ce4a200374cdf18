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
from typing import Any

from aiohttp import WSMsgType, web

from .hub import HUB_KEY, Conn, Hub, error_message
from .jsontext import strict_json
from .routes import table_or_404, watched_or_404
from .store import hash_token
from .table import Table, TableError

__all__ = ["add_routes", "table_socket", "watch_socket"]

log = logging.getLogger("lifeledger_table")

_CLIENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")


async def table_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/t/{table}: a player's (or not yet seated visitor's) live connection."""
    return await _socket(request, table_or_404(request), spectator=False)


async def watch_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/w/{watch}: a spectator's live connection (read-only)."""
    return await _socket(request, watched_or_404(request), spectator=True)


async def _socket(request: web.Request, table: Table, spectator: bool) -> web.StreamResponse:
    hub = request.app[HUB_KEY]
    limits = hub.limits
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
                conn.send_json(error_message(None, "malformed", "Messages are JSON text."))
                continue
            if not conn.bucket.take():
                conn.dropped += 1
                if conn.dropped >= limits.flood_close:
                    conn.send_json(
                        error_message(None, "throttled", "Too many messages: disconnected.")
                    )
                    conn.close()
                    break
                conn.send_json(
                    error_message(_peek_id(msg.data), "throttled", "Too many messages; slow down.")
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
        msg = strict_json(data)
    except ValueError as exc:
        conn.send_json(error_message(None, "malformed", f"Not JSON: {exc}"))
        return
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        conn.send_json(
            error_message(None, "malformed", 'A message is a JSON object with a "type".')
        )
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
        conn.send_json(error_message(None, "malformed", f"Unknown message type {kind!r}."))
        return
    cid = msg.get("id")
    if not isinstance(cid, str) or not _CLIENT_ID.match(cid):
        conn.send_json(
            error_message(
                None, "malformed", 'Every change carries an "id": 1-64 letters, digits, _ or -.'
            )
        )
        return
    if not conn.hello:
        conn.send_json(error_message(cid, "hello-first", "Say hello first."))
        return
    if conn.spectator:
        conn.send_json(error_message(cid, "spectator", "Spectators can watch but not act."))
        return
    if conn.seat is None:
        conn.send_json(error_message(cid, "no-seat", "Take a seat to act."))
        return
    extra = sorted(
        set(msg) - {"type", "id", "action"} | ({"action"} if kind != "action" else set())
    )
    if any(member in msg for member in extra):
        bad = next(member for member in extra if member in msg)
        conn.send_json(
            error_message(cid, "malformed", f"Unknown message member {bad!r} for {kind!r}.")
        )
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
        conn.send_json(
            error_message(None, "malformed", '"since" is the last sequence number seen.')
        )
        return
    if since > table.last_seq:
        since = 0
    conn.seat = None
    if token is not None:
        if conn.spectator:
            conn.send_json(error_message(None, "spectator", "Spectators can watch but not act."))
        elif not isinstance(token, str) or not _TOKEN.match(token):
            conn.send_json(error_message(None, "malformed", '"token" is a seat token.'))
            return
        else:
            digest = hash_token(token)
            conn.seat = next((s for s, d in table.seats.items() if d == digest), None)
            if conn.seat is None:
                conn.send_json(
                    error_message(None, "bad-token", "This seat token no longer holds a seat.")
                )
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


def add_routes(router: web.UrlDispatcher) -> None:
    """The live connections: a player's and a spectator's."""
    router.add_get("/ws/t/{table}", table_socket)
    router.add_get("/ws/w/{watch}", watch_socket)

"""``{"type": "ping"}``: answered ``pong`` (a page checks its socket is alive)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from ...live.sockets import Conn

__all__ = ["handle"]


def handle(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """Answer ``{"type": "pong"}``."""
    conn.send_json({"type": "pong"})

"""``{"type": "tool", "id": ID, "tool": ..., "op": ...}``: dice, coin, first player, planar
die, clocks, round timer (docs/table.md): checked as every change first (:func:`.changes.checked`),
then decided, written and sent by :mod:`...live.toolmessages` (by the table's owner)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from ...live.hub import HUB_KEY
from ...live.sockets import Conn
from ...live.toolmessages import TOOLS_KEY, tool_message
from . import changes

__all__ = ["handle"]


def handle(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """A seated phone's tool message."""
    cid = changes.checked(conn, msg)
    if cid is None:
        return
    hub = app[HUB_KEY]
    tool_message(hub, app[TOOLS_KEY], hub.owners, conn, cid, msg)

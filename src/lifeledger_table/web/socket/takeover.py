"""``{"type": "takeover_answer", "request": RID, "allow": bool}``: the seat's holder or the
host allows (or not) another phone to take the seat over (issue 7 item 12: :mod:`...live.takeover`);
the first answer decides, and an allowed one gives the seat (its token waits for the asker's
poll). A request put on another server is answered there (:mod:`..notices`)."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ...decide.table import Table
from ...live.hub import HUB_KEY, Hub
from ...live.seats import SeatTaken, StorageFailure, grant_seat
from ...live.sockets import Conn, error_message
from ...live.takeover import TAKEOVERS_KEY, Takeover, Takeovers

__all__ = ["GRANTS", "decide", "handle"]

#: Seat grants under way for allowed takeovers (kept so that they are not collected).
GRANTS: set[asyncio.Task[None]] = set()


def handle(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """``{"type": "takeover_answer", "request": RID, "allow": bool}`` from the seat's holder or
    the host: the first answer decides."""
    rid, allow = msg.get("request"), msg.get("allow")
    if (
        not isinstance(rid, str)
        or not isinstance(allow, bool)
        or set(msg)
        - {
            "type",
            "request",
            "allow",
        }
    ):
        conn.send_json(
            error_message(
                None,
                "malformed",
                Sentence(
                    'A takeover answer is {"type": "takeover_answer", "request": ID, '
                    '"allow": bool}.'
                ),
            )
        )
        return
    hub, takeovers = app[HUB_KEY], app[TAKEOVERS_KEY]
    asked = takeovers.requests.get(rid)
    if asked is None or not conn.hello or not takeovers.may_answer(conn, asked):
        conn.send_json(
            error_message(
                None, "unknown-request", Sentence("There is no such takeover request to answer.")
            )
        )
        return
    if asked.status != "pending" or asked.state() != "pending":
        conn.send_json(
            error_message(
                None, "answered", Sentence("This takeover request was answered or has expired.")
            )
        )
        return
    if asked.origin is not None:  # put on another server: that one decides
        takeovers.relay_answer(asked, allow)
        return
    decide(hub, takeovers, conn.table, asked, allow)


def decide(hub: Hub, takeovers: Takeovers, table: Table, asked: Takeover, allow: bool) -> None:
    """The first answer to a takeover request put here decides it."""
    if not allow:
        takeovers.finish(hub, table, asked, "refused")
        return
    asked.status = "granting"
    task = asyncio.get_running_loop().create_task(_allow(hub, takeovers, table, asked))
    GRANTS.add(task)
    task.add_done_callback(GRANTS.discard)


async def _allow(hub: Hub, takeovers: Takeovers, table: Table, asked: Takeover) -> None:
    """Give the seat to the asker (its token waits for the asker's poll)."""
    told = takeovers.askees(hub, table, asked)
    try:
        asked.token = await grant_seat(hub, takeovers, table, asked.seat)
    except StorageFailure:
        asked.status = "pending"  # nothing changed: it may be answered again
        return
    except SeatTaken:  # another server gave the seat to someone else meanwhile
        takeovers.finish(hub, table, asked, "refused")
        return
    takeovers.finish(hub, table, asked, "allowed", told)

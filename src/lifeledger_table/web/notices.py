"""The notices about seats and undo questions from the other servers sharing the store
(issue 10): seat takeovers asked, answered and closed there (:mod:`..live.takeover`), the
seats their sockets hold, and the undo questions' (:mod:`..live.undoasks`). The composition
root subscribes :func:`relayed` to them (:meth:`..parts.Parts.share_notices`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ..live.hub import Hub
from ..live.takeover import Takeovers
from ..live.undoasks import NOTICES as UNDO_NOTICES
from ..live.undoasks import UndoAsks
from .socket.takeover import GRANTS, decide

__all__ = ["relayed"]


def relayed(
    hub: Hub, takeovers: Takeovers, undo_asks: UndoAsks, kind: str, table_id: str, detail: str
) -> None:
    """A notice about seats from another server sharing the store (issue 10): ``holding``
    (its sockets hold these seats), ``ask`` (a takeover request put there: put it to the
    phones here that may answer), ``answer`` (a phone there answered a request put here: the
    first answer decides), ``closed`` (a request put there ended); ``lost``: notices may have
    been missed. The undo questions' notices (``undo_ask``, ``undo_answer``, ``undo_closed``)
    go to :meth:`.undoasks.UndoAsks.relayed`."""
    if kind == "lost":
        takeovers.unsure()
        return
    try:
        info = json.loads(detail)
    except ValueError:
        return
    if not isinstance(info, dict) or info.get("from") == takeovers.me:
        return
    if kind == "holding" and isinstance(info.get("seats"), list):
        devices = info.get("devices")
        takeovers.heard_holding(
            table_id,
            [s for s in info["seats"] if isinstance(s, str)],
            [s for s in devices if isinstance(s, str)] if isinstance(devices, list) else [],
        )
        return
    if kind in UNDO_NOTICES:
        undo_asks.relayed(hub, kind, table_id, info)
        return
    rid = info.get("request")
    task = asyncio.get_running_loop().create_task(
        _relayed(hub, takeovers, kind, table_id, rid, info)
    )
    GRANTS.add(task)
    task.add_done_callback(GRANTS.discard)


async def _relayed(
    hub: Hub, takeovers: Takeovers, kind: str, table_id: str, rid: Any, info: dict[str, Any]
) -> None:
    asked = takeovers.requests.get(rid) if isinstance(rid, str) else None
    if kind == "ask" and isinstance(rid, str) and isinstance(info.get("seat"), str):
        table = hub.tables.get(table_id)  # only a table with phones here has anyone to ask
        if table is not None and isinstance(info.get("seconds"), (int, float)):
            takeovers.mirror(hub, table, info["from"], rid, info["seat"], info["seconds"])
    elif kind == "answer" and asked is not None and info.get("to") == takeovers.me:
        if asked.origin is None and asked.status == "pending" and asked.state() == "pending":
            table = await hub.table(table_id)
            if table is not None and isinstance(info.get("allow"), bool):
                decide(hub, takeovers, table, asked, info["allow"])
    elif kind == "closed" and asked is not None and asked.origin == info.get("from"):
        table = hub.tables.get(table_id)
        if table is not None and isinstance(info.get("status"), str):
            takeovers.finish(hub, table, asked, info["status"])

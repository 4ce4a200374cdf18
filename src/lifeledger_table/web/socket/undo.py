"""``{"type": "undo", "id": ID, "target": SEQ}``: a change that takes back the table's last
one (issue 7 item 2). A seat's Undo takes back its own change; another seat's is asked of that
seat's device or the host (issue 17 item 10: :mod:`...live.undoasks`). A device's seats are all
its own. (The owner of a table another process decides checks again, when it decides it:
:mod:`...live.owners`.) ``{"type": "undo_answer", "request": RID, "allow": bool}``: allowing (or
not) another seat's undo of this seat's change."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ...live.hub import HUB_KEY
from ...live.sockets import Conn, error_message
from ...live.undoasks import UNDO_ASKS_KEY
from . import changes

__all__ = ["answer", "handle"]


def handle(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """An undo: checked as every change, its target a sequence number; put as a question
    when it takes back another seat's change, else sent as every change."""
    cid = changes.checked(conn, msg)
    if cid is None:
        return
    found = changes.body_of(conn, msg, cid)
    if found is None:
        return
    acting, body = found
    if type(body.get("target")) is not int:
        # Refused at once, before anyone is asked (issue 26 item 9): 1.0 and true are no
        # sequence numbers, though Python counts them equal to 1.
        conn.send_json(
            error_message(
                cid,
                "malformed",
                Sentence(
                    'An undo names the action it takes back: "target" is its sequence number.'
                ),
                member="target",
            )
        )
        return
    owner = conn.table.undo_owner(body.get("target"))
    if owner is not None and not conn.holds(owner):
        app[UNDO_ASKS_KEY].ask(app[HUB_KEY], conn, cid, acting, body["target"], owner, body)
        return
    changes.send(app, conn, msg, body, cid, acting)


def answer(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """An answer to an undo question put to this socket: the first decides."""
    if set(msg) - {"type", "request", "allow"}:
        conn.send_json(
            error_message(
                None,
                "malformed",
                Sentence(
                    'An undo answer is {"type": "undo_answer", "request": ID, "allow": bool}.'
                ),
            )
        )
        return
    app[UNDO_ASKS_KEY].answer(app[HUB_KEY], conn, msg.get("request"), msg.get("allow"))

"""``{"type": "history", "before": SEQ, "limit": N}``: a page of older timeline entries (a
page kept since the table last changed costs nothing; one built is charged to the socket's
address, as an HTTP request would be: :mod:`..answers`)."""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ...decide.errors import TableError
from ...decide.messages import history_request
from ...live.hub import HUB_KEY
from ...live.sockets import Conn, error_message
from ...store.records import Store
from ..answers import ANSWERS_KEY, Answers, history_text

__all__ = ["PAGES", "handle"]

#: History pages being read (kept so that they are not collected).
PAGES: set[asyncio.Task[None]] = set()


def handle(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """``{"type": "history", "before": SEQ, "limit": N}``: a page of older timeline entries."""
    try:
        before, limit = history_request(msg)
    except TableError as exc:
        conn.send_json({"type": "error", "id": None, **exc.to_json()})
        return
    if not conn.pages.take():
        conn.send_json(
            error_message(
                None, "throttled", Sentence("Too many history pages asked for; slow down.")
            )
        )
        return
    # A page kept since the table last changed costs nothing; one built is charged to the
    # socket's address, and past its share, as an HTTP request would be, refused.
    answers = app[ANSWERS_KEY]
    refused = answers.refusal(conn.address)
    if refused is not None:
        conn.send_json(error_message(None, "throttled", refused))
        return
    task = asyncio.get_running_loop().create_task(
        _send_history(answers, app[HUB_KEY].store, conn, before, limit)
    )
    PAGES.add(task)
    task.add_done_callback(PAGES.discard)


async def _send_history(
    answers: Answers, store: Store, conn: Conn, before: int, limit: int
) -> None:
    """Send the socket its page (built, or kept; an older one read from the store in a
    thread), or why not."""
    try:
        conn.send(await history_text(answers, store, conn.table, before, limit, conn.address))
    except TableError as exc:
        conn.send_json({"type": "error", "id": None, **exc.to_json()})

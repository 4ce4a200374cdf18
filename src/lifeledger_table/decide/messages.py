"""The shapes of what a phone sends about a table, wherever the table is decided: a server's
socket (:mod:`..web.protocol`), a device table (:mod:`..device.host`) and a table shared from a
device (:mod:`..live.sharing`) check them alike."""

from __future__ import annotations

import json
import re
from typing import Any

from lifeledger.sentences import Sentence

from .errors import TableError
from .state import PAGE

__all__ = ["CHANGES", "CLIENT_ID", "MAX_TURN_NUMBER", "TOKEN", "acknowledged", "history_request"]

#: A change's id, chosen by the phone: unique within the table, sent again with a retry.
CLIENT_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: A seat's (or a host's) token.
TOKEN = re.compile(r"^[A-Za-z0-9_-]{20,100}$")
#: The largest turn number an action's ``at_turn`` may name.
MAX_TURN_NUMBER = 10**9
#: The changes of a table a phone sends, and the members each may carry besides ``type``,
#: ``id`` and ``as``: ``at_turn`` (the action holds only at that turn), an undo's ``target``
#: and ``confirm`` (take it back anyway: issue 25 item 4), a player's name or colour.
CHANGES: dict[str, frozenset[str]] = {
    "action": frozenset({"action", "at_turn"}),
    "undo": frozenset({"target", "confirm"}),
    "next_game": frozenset(),
    "reset": frozenset(),
    "new_game": frozenset(),
    "setup": frozenset({"player", "name", "colour"}),
}


def history_request(msg: dict[str, Any]) -> tuple[int, int]:
    """``{"type": "history", "before": SEQ, "limit": N}``, checked: ``(before, limit)``."""
    before, limit = msg.get("before"), msg.get("limit", PAGE)
    if (
        isinstance(before, bool)
        or not isinstance(before, int)
        or isinstance(limit, bool)
        or not isinstance(limit, int)
        or not 1 <= limit <= PAGE
        or set(msg) - {"type", "before", "limit"}
    ):
        raise TableError(
            "malformed",
            Sentence(
                'A history request is {"type": "history", "before": SEQ, "limit": N} '
                "(N from 1 to {n}).",
                n=PAGE,
            ),
        )
    return before, limit


def acknowledged(text: str, client_id: str) -> str:
    """A message (a JSON object's text, as made once for every phone) as the phone that sent
    change ``client_id`` is sent it: with ``"id"``, which acknowledges the change."""
    return f'{text[:-1]}, "id": {json.dumps(client_id)}}}'

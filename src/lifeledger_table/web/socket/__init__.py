"""The socket's messages, one module a kind (issue 29 item 3): :data:`..protocol.KINDS` names
the handler of each ``"type"``, and each handler's way reads top to bottom in its module.

- :mod:`.hello`: ``hello`` (the seats a socket holds, the welcome, the host's questions);
- :mod:`.ping`: ``ping``;
- :mod:`.history`: ``history`` (a page of older entries);
- :mod:`.takeover`: ``takeover_answer`` (allowing another phone to take this seat);
- :mod:`.undo`: ``undo`` (a change that takes one back, or a question to its seat) and
  ``undo_answer``;
- :mod:`.changes`: every other change (a life total, a game's end...), and the checks every
  change passes;
- :mod:`.tools`: ``tool`` (dice, coin, clocks).

A handler is given the app (whose parts it takes under their keys: :mod:`..parts`), the socket
and the message, a JSON object with a string ``"type"``; it runs to the end without yielding
to the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiohttp import web

from ...live.sockets import Conn

__all__ = ["Handler"]

#: A kind's handler: the app, the socket, the message.
Handler = Callable[[web.Application, Conn, dict[str, Any]], None]

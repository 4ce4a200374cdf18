"""The links between the processes on one store (issue 18 item 2, :mod:`.owners`): one
WebSocket from a process following a table to the process that owns it, on the owner's internal
listener, carrying messages in order (:class:`Link`); a phone of the following process as the
owner's writer answers it (:class:`RemoteConn`); an event as it goes on a link."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
from aiohttp import web

from ..store.records import Event
from .sockets import Sender

__all__ = [
    "CONNECT",
    "HEARTBEAT",
    "LINK_PATH",
    "Link",
    "RemoteConn",
    "Request",
    "event_of",
    "event_row",
]

#: How long (seconds) opening a link may take (a busy owner is slow, not dead).
CONNECT = 10.0
#: The internal listener's path for links.
LINK_PATH = "/link"
#: Seconds between pings on a link: an owner that does not answer in half of it (paused,
#: its machine gone) is given up.
HEARTBEAT = 5.0

#: A change waiting for its table's owner: the socket, the message's kind, body, id, acting
#: seat and ``at_turn``.
Request = tuple[Sender, str, dict[str, Any], str, str | None, int | None]


def event_row(event: Event) -> list[Any]:
    """An event as sent on a link (its table is the message's)."""
    return [
        event.seq,
        event.kind,
        event.body,
        event.client_id,
        event.seat,
        event.time,
        event.game,
        event.position,
        event.entry,
    ]


def event_of(table_id: str, row: list[Any]) -> Event:
    """The event :func:`event_row` sent."""
    seq, kind, body, cid, seat, at, game, position, entry = row
    return Event(table_id, seq, kind, body, cid, seat, at, game, position, entry)


class Link:
    """One WebSocket between two processes. Messages are queued and sent in order, those
    queued together in one frame (a JSON array)."""

    def __init__(self, ws: web.WebSocketResponse | aiohttp.ClientWebSocketResponse) -> None:
        self.ws = ws
        self.out: list[dict[str, Any]] = []
        self.ready = asyncio.Event()
        self.closed = False
        self.pump = asyncio.get_running_loop().create_task(self._pump())

    def put(self, message: dict[str, Any]) -> None:
        """Queue a message (nothing, once the link is closed)."""
        if not self.closed:
            self.out.append(message)
            self.ready.set()

    async def _pump(self) -> None:
        while not self.closed:
            await self.ready.wait()
            self.ready.clear()
            batch, self.out = self.out, []
            if not batch:
                continue
            try:
                await self.ws.send_str(json.dumps(batch))
            except (ConnectionError, RuntimeError):
                break
        self.closed = True

    async def messages(self) -> AsyncIterator[dict[str, Any]]:
        """The messages received, in order, until the link closes."""
        try:
            async for frame in self.ws:
                if frame.type != aiohttp.WSMsgType.TEXT:
                    break
                for message in json.loads(frame.data):
                    yield message
        finally:
            self.closed = True
            self.pump.cancel()
            with contextlib.suppress(Exception):
                await self.ws.close()


class RemoteConn:
    """A phone on another process, as the owner's writer answers it: what it is sent goes
    back on the link, to that process's socket ``key``."""

    def __init__(
        self, link: Link, key: int, table_id: str, address: str, holds: tuple[str, ...] = ()
    ) -> None:
        self.link = link
        self.key = key
        self.table_id = table_id
        self.address = address
        #: The seats that socket holds (as its process said): an undo of another seat's
        #: change is asked of that seat (:meth:`Owners._undo_check`).
        self.holds = holds

    def send(self, text: str, cid: str | None = None) -> None:
        self.link.put(
            {"t": "send", "table": self.table_id, "conn": self.key, "text": text, "cid": cid}
        )

    def send_json(self, obj: dict[str, Any]) -> None:
        cid = obj.get("id")
        self.send(json.dumps(obj), cid if isinstance(cid, str) else None)

    def close(self) -> None:
        self.link.put({"t": "close", "table": self.table_id, "conn": self.key})

"""One open WebSocket of a phone: who is on it, and its outgoing queue, sent in order."""

from __future__ import annotations

import asyncio
import json
import logging
import types
from collections.abc import Callable, Coroutine, Generator
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from ..decide.errors import with_sentence
from ..decide.limits import Bucket, Limits
from ..decide.table import Table

__all__ = ["EAGER_BYTES", "Conn", "Sender", "eagerly", "error_message"]

log = logging.getLogger("lifeledger_table")

#: A message this small (a change's event) with nothing queued before it is written to its
#: socket at once (:meth:`Conn.send_now`); a larger one waits in the queue for the writer.
EAGER_BYTES = 4096


def error_message(cid: str | None, code: str, message: str, **extra: Any) -> dict[str, Any]:
    """An error as sent on a socket, answering the change ``cid`` (``None``: no change), with
    its message's ``"sentence"`` when it is one (each phone renders it in its language)."""
    return with_sentence({"type": "error", "id": cid, "error": code, "message": message, **extra})


class Sender(Protocol):
    """Who sent a change, as the writer answers it: a socket here (:class:`Conn`), or a
    phone on another process (:class:`.owners.RemoteConn`)."""

    address: str

    def send(self, text: str) -> None: ...

    def send_json(self, obj: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


@dataclass(eq=False)
class Conn:
    """One open WebSocket: who is on it, and its outgoing queue (kept in order)."""

    ws: web.WebSocketResponse
    table: Table
    spectator: bool
    limits: Limits
    #: The seats it holds, in seating order (a personal phone's: one; a table device's: the
    #: seats of everyone playing on it).
    seats: list[str] = field(default_factory=list)
    #: Whether it is a table device's (one phone or tablet in the middle of the table, for
    #: the players without their own): a personal phone asking for a seat only a device
    #: holds gets it at once.
    device: bool = False
    #: The client's address (the budgets shared by an address's sockets).
    address: str = "?"
    #: Called with a seat it stops holding (the socket limits count it out of that seat).
    uncount: Callable[[str], None] | None = None
    #: Called with the seats a hello's tokens hold: counts the socket in for each it was not
    #: counted for (out of those it no longer holds), and returns the seats that already have
    #: as many sockets as a seat may (the socket does not hold them).
    recount: Callable[[list[str]], list[str]] | None = None
    hello: bool = False
    #: Whether its last hello carried the table's host token.
    host: bool = False
    dropped: int = 0
    #: The characters (= bytes: the JSON is ASCII) queued and not yet sent.
    queued: int = 0
    #: Set once the connection is to close: nothing more is queued.
    closing: bool = False
    #: Whether its writer runs (:meth:`writer`): until then what is sent is only queued.
    writing: bool = False
    #: Whether its writer is sending what was queued (a message sent now would pass it).
    busy: bool = False
    #: A message sent at once whose sending waits (the client is slow to take what it is
    #: sent): the writer waits for it before the next.
    inflight: asyncio.Future[None] | None = None
    #: Set once a send failed (the connection is gone): nothing more is sent.
    failed: bool = False
    bucket: Bucket = field(init=False)
    #: History pages asked for (each is up to ``table.PAGE_BYTES``: a budget of its own).
    pages: Bucket = field(init=False)
    queue: asyncio.Queue[str | None] = field(init=False)

    def __post_init__(self) -> None:
        self.bucket = Bucket(self.limits.rate, self.limits.burst)
        self.pages = Bucket(self.limits.pages_rate, self.limits.pages_burst)
        self.queue = asyncio.Queue()

    @property
    def seat(self) -> str | None:
        """The first seat it holds (what a single-seat page reads), or ``None``."""
        return self.seats[0] if self.seats else None

    def holds(self, seat: str) -> bool:
        """Whether it holds ``seat``."""
        return seat in self.seats

    def lose(self, seat: str) -> None:
        """The seat was given to another phone: ``seat_lost`` (it keeps its other seats)."""
        self.seats.remove(seat)
        self.send_json({"type": "seat_lost", "seat": seat})
        if self.uncount is not None:
            self.uncount(seat)

    def send(self, text: str) -> None:
        """Queue a message; a client too slow to keep up (more than ``limits.queue_bytes``
        or ``limits.queue`` messages waiting) is disconnected: it resumes when it reconnects."""
        if self.closing:
            return
        if (
            self.queued + len(text) > self.limits.queue_bytes
            or self.queue.qsize() >= self.limits.queue
        ):
            log.info("disconnected a client too slow to take what it is sent")
            self.close()
            return
        self.queued += len(text)
        self.queue.put_nowait(text)

    def send_now(self, text: str) -> None:
        """Send a message at once if it is small and nothing waits before it (a change's
        event, sent to every phone of its table), else queue it (:meth:`send`). Written to
        the socket in this turn of the event loop (issue 29: a task woken for each message of
        each socket cost more than the sending itself); if the client is slow to take it,
        the rest of its sending waits in a task, and the messages after it in the queue."""
        if (
            len(text) > EAGER_BYTES
            or self.closing
            or not self.writing
            or self.busy
            or self.failed
            or self.inflight is not None
            or not self.queue.empty()
            or self.ws.closed
        ):
            self.send(text)
            return
        try:
            self.inflight = eagerly(self.ws.send_str(text))
        except (ConnectionError, RuntimeError):
            self.failed = True
            self.queue.put_nowait("")  # the writer ends, as after a failed send
            return
        if self.inflight is not None:
            self.inflight.add_done_callback(self._sent)

    def _sent(self, sending: asyncio.Future[None]) -> None:
        """A message sent at once is taken (or its connection failed)."""
        if self.inflight is sending:
            self.inflight = None
        if sending.cancelled() or sending.exception() is not None:
            self.failed = True

    def close(self) -> None:
        """Close the connection once what is queued before it has been sent."""
        if not self.closing:
            self.closing = True
            self.queue.put_nowait(None)

    def send_json(self, obj: dict[str, Any]) -> None:
        """Queue a JSON message."""
        self.send(json.dumps(obj))

    async def writer(self) -> None:
        """Send the queued messages in order until the connection ends (from now on, a
        message with nothing queued before it may be sent at once: :meth:`send_now`)."""
        self.writing = True
        while True:
            text = await self.queue.get()
            self.busy = True
            try:
                if self.inflight is not None:
                    await asyncio.wait([self.inflight])
                if self.failed:
                    return
                if text is None or self.ws.closed:
                    await self.ws.close()
                    return
                try:
                    await self.ws.send_str(text)
                except (ConnectionError, RuntimeError):
                    self.failed = True
                    return
            finally:
                self.busy = False
                if text is not None:
                    self.queued -= len(text)


def eagerly(coro: Coroutine[Any, Any, None]) -> asyncio.Future[None] | None:
    """Run ``coro`` at once up to its first wait, as Python 3.12's eager tasks start:
    ``None`` if it ended there (a WebSocket's message written to its transport), else the task
    that runs the rest of it. What it raises before its first wait is raised here."""
    try:
        waiting = coro.send(None)
    except StopIteration:
        return None
    return asyncio.ensure_future(_rest(coro, waiting))


@types.coroutine
def _rest(coro: Coroutine[Any, Any, None], waiting: Any) -> Generator[Any, None, None]:
    """The rest of a coroutine :func:`eagerly` started, which waits for ``waiting``."""
    yield waiting
    yield from coro

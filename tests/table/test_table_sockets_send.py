"""A change's message is written to each socket at once, in order with what is queued there
(issue 29 item 1: a task woken for each message of each socket cost more than the sending)."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from lifeledger_table.decide.limits import Limits
from lifeledger_table.live.sockets import EAGER_BYTES, Conn


class Client:
    """A WebSocket as :class:`Conn` uses it: what was written to it, and, while ``slow`` is
    an unfinished future, a client slow to take what it is sent (a write waits for it)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed = False
        self.slow: asyncio.Future[None] | None = None

    async def send_str(self, text: str) -> None:
        if self.slow is not None and not self.slow.done():
            await self.slow
        self.sent.append(text)

    async def close(self) -> None:
        self.closed = True


async def until(check: Any) -> None:
    for _ in range(200):
        if check():
            return
        await asyncio.sleep(0)
    raise AssertionError("not in 200 turns of the event loop")


def conn_on(client: Client, limits: Limits | None = None) -> Conn:
    return Conn(
        ws=cast(Any, client), table=cast(Any, None), spectator=False, limits=limits or Limits()
    )


@pytest.mark.asyncio
async def test_a_change_is_written_at_once_after_what_is_queued_before_it() -> None:
    """issue 29 item 1: with nothing waiting, a change's message is written in the same turn
    of the event loop; behind a queued message (a welcome), it waits its turn."""
    client = Client()
    conn = conn_on(client)
    writer = asyncio.create_task(conn.writer())
    await asyncio.sleep(0)
    conn.send_now('{"type": "event", "seq": 1}')
    assert client.sent == ['{"type": "event", "seq": 1}']  # no turn of the loop between
    conn.send('{"type": "welcome"}')
    conn.send_now('{"type": "event", "seq": 2}')
    assert len(client.sent) == 1
    await until(lambda: len(client.sent) == 3)
    assert client.sent[1:] == ['{"type": "welcome"}', '{"type": "event", "seq": 2}']
    big = "x" * (EAGER_BYTES + 1)  # a large message is queued, counted against the cap
    conn.send_now(big)
    assert conn.queued == len(big)
    await until(lambda: len(client.sent) == 4)
    assert conn.queued == 0
    conn.close()
    await writer
    assert client.closed


@pytest.mark.asyncio
async def test_behind_a_slow_client_the_changes_queue_in_order_within_the_cap() -> None:
    """issue 29 item 1 and issue 7 item 6: a write the client is slow to take waits in a
    task; the changes after it are queued in order, counted against the socket's byte cap,
    and past it the client is disconnected."""
    client = Client()
    conn = conn_on(client, Limits(queue_bytes=100))
    writer = asyncio.create_task(conn.writer())
    await asyncio.sleep(0)
    client.slow = asyncio.get_running_loop().create_future()
    conn.send_now("a" * 10)
    assert conn.inflight is not None and client.sent == []
    conn.send_now("b" * 10)
    conn.send_now("c" * 10)
    assert conn.queued == 20
    client.slow.set_result(None)
    await until(lambda: len(client.sent) == 3)
    assert client.sent == ["a" * 10, "b" * 10, "c" * 10]
    assert conn.queued == 0 and conn.inflight is None
    client.slow = asyncio.get_running_loop().create_future()
    for _ in range(12):
        conn.send_now("d" * 10)
    assert conn.closing and conn.queued <= 100
    client.slow.set_result(None)
    await writer
    assert client.closed


def test_a_socket_whose_writer_has_not_started_only_queues() -> None:
    """issue 29 item 1: before its writer runs (the socket being opened), a change's message
    is queued, as any other."""
    conn = conn_on(Client())
    conn.send_now('{"type": "event", "seq": 1}')
    assert conn.queue.qsize() == 1 and conn.queued == len('{"type": "event", "seq": 1}')

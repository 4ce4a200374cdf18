"""Several `lifeledger serve` processes on one PostgreSQL database (issue 10), as a
deployment runs them: real processes, a real PostgreSQL server the tests start, phones spread
over the processes. They behave as one server: every change reaches every phone, sequence
numbers have no gaps, a seat is never held twice, and a process killed with SIGKILL loses
nothing it acknowledged (its phones resume on another process)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from browser_helpers import server
from table_helpers import Phone, log_replayed, play_randomly

from lifeledger_table.store.opening import open_store

FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")]}
pytestmark = pytest.mark.asyncio


@pytest.fixture
def processes(pg_url: str) -> Iterator[list[tuple[str, Any]]]:
    """Three server processes on one fresh PostgreSQL database."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(server(pg_url)) for _ in range(3)]  # type: ignore[arg-type]


async def post(session: aiohttp.ClientSession, url: str, body: Any) -> tuple[int, Any]:
    async with session.post(url, json=body) as res:
        return res.status, await res.json()


async def connect(
    session: aiohttp.ClientSession, base: str, table: str, token: str | None, since: int = 0
) -> Phone:
    """A phone's socket to one process, after its hello (resuming after ``since``)."""
    query = f"?token={token}" if token else ""
    p = Phone(await session.ws_connect(f"{base.replace('http', 'ws')}/ws/t/{table}{query}"))
    await p.hello(token, since)
    return p


def log_state(pg_url: str, table: str, header: dict[str, Any]) -> tuple[list[Any], Any]:
    """The table's stored log, and the state of its current game replayed from it."""
    store = open_store(pg_url)
    try:
        events = store.events(table)
    finally:
        store.close()
    return events, log_replayed(events, header)


async def test_phones_on_three_processes_play_as_at_one_server(
    processes: list[tuple[str, Any]], pg_url: str
) -> None:
    """Random changes and undos from phones on three processes at once, and a seat taken
    over through another process than its phone's: the log has no gaps, every acknowledged
    change is in it once, the phone that lost its seat is told, and every phone ends with
    the log's state."""
    bases = [url for url, _ in processes]
    async with aiohttp.ClientSession() as session:
        _, table = await post(session, f"{bases[0]}/api/tables", FOUR)
        tid, ids = table["id"], [p["id"] for p in table["header"]["players"]]
        phones: list[tuple[str, Phone]] = []
        for n, who in enumerate(ids):
            base = bases[n % 3]
            _, seated = await post(session, f"{base}/api/tables/{tid}/seats/{who}", {})
            phones.append((who, await connect(session, base, tid, seated["token"])))
        watchers = [await connect(session, base, tid, None) for base in bases]
        rng = random.Random(10)
        acked: dict[str, int] = {}

        await asyncio.gather(*(play_randomly(p, who, rng, acked, 30) for who, p in phones))
        # Ana's seat, taken over with the host's token through a process Ana's phone isn't on.
        status, _ = await post(
            session,
            f"{bases[1]}/api/tables/{tid}/seats/{ids[0]}",
            {"takeover": True, "host": table["host"]},
        )
        assert status == 200
        ana = phones[0][1]
        assert (await ana.until("seat_lost"))["seat"] == ids[0]
        cid = await ana.send("action", {"do": "lose_life", "player": ids[0], "amount": 1})
        assert (await ana.reply(cid))["error"] == "no-seat"
        # Bo's seat (his phone is on the second process), asked for through the third: his
        # phone is asked, and his answer there decides the request put here.
        status, asked = await post(
            session, f"{bases[2]}/api/tables/{tid}/seats/{ids[1]}", {"takeover": True}
        )
        assert status == 202
        bo = phones[1][1]
        assert (await bo.until("takeover_request"))["request"] == asked["request"]
        await bo.ws.send_json(
            {"type": "takeover_answer", "request": asked["request"], "allow": False}
        )
        async with session.get(f"{bases[2]}/api/tables/{tid}/takeovers/{asked['request']}") as r:
            assert (await r.json())["status"] == "refused"
        events, state = log_state(pg_url, tid, table["header"])
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        assert {e.client_id: e.seq for e in events if e.client_id in acked} == acked
        for p in [p for _, p in phones] + watchers:
            while p.seq < len(events):
                await p.recv()
            assert p.view["state"] == state


async def test_a_process_killed_under_load_loses_nothing_it_acknowledged(
    processes: list[tuple[str, Any]], pg_url: str
) -> None:
    """SIGKILL to one process while its phones send changes: every change it acknowledged
    is in the log; its phones reconnect to another process, resume from their last sequence
    number and send again what got no answer (the same ids: applied once)."""
    (first, victim), (second, _), _third = processes
    async with aiohttp.ClientSession() as session:
        _, table = await post(session, f"{first}/api/tables", FOUR)
        tid, ids = table["id"], [p["id"] for p in table["header"]["players"]]
        tokens = {}
        for who in ids:
            _, seated = await post(session, f"{second}/api/tables/{tid}/seats/{who}", {})
            tokens[who] = seated["token"]
        acked: dict[str, int] = {}
        sent: dict[str, list[str]] = {who: [] for who in ids}
        resumed: list[str] = []

        async def play(who: str, base: str) -> None:
            p = await connect(session, base, tid, tokens[who])
            for n in range(40):
                cid = f"{who}-{n}"
                sent[who].append(cid)
                action = {"do": "gain_life" if n % 2 else "lose_life", "player": who, "amount": 1}
                while True:
                    try:
                        await p.send("action", action, cid=cid)
                        reply = await p.reply(cid)
                        if reply.get("error") != "throttled":
                            break
                        await asyncio.sleep(0.2)  # a table takes 30 changes a second
                    except (TimeoutError, aiohttp.ClientError, ConnectionError, TypeError):
                        # The process died: resume on another one, and send the change again.
                        p = await connect(session, second, tid, tokens[who], since=p.seq)
                        resumed.append(who)
                assert reply["type"] == "ack", reply
                acked[cid] = reply["seq"]

        async def kill_soon() -> None:
            await asyncio.sleep(0.3)
            os.kill(victim.pid, signal.SIGKILL)

        await asyncio.gather(
            play(ids[0], first), play(ids[1], first), play(ids[2], second), kill_soon()
        )
        assert victim.poll() is not None and resumed  # killed while phones were on it
        events, _ = log_state(pg_url, tid, table["header"])
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        written = [e.client_id for e in events]
        assert len(written) == len(set(written))  # nothing applied twice
        assert {e.client_id: e.seq for e in events} == acked  # and nothing acknowledged lost
        assert json.dumps(sorted(acked)) == json.dumps(
            sorted(c for cs in sent.values() for c in cs)
        )

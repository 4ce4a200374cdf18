"""Benchmark of the table app: change-to-receipt latency on the other phones of a table.

N simulated phones on loopback, in tables of 4; each phone sends a change (a life gain or loss
of 1, alternating, so no game ends) about once a second. For each change, the time from its
sending to its arrival on each of the other three phones of the table is measured. The same
load runs against a bare aiohttp WebSocket server that relays each message to the other
sockets of its group (the floor: the same stack, with no rules, no store, no state).

The servers run as separate processes; the phones share this one. Everything is bounded: at
most 1,000 phones, a few seconds per level, and the script stops by itself.

    python benchmarks/table.py                 # 100, 400 and 1,000 phones
    python benchmarks/table.py --phones 100    # one level
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

MAX_PHONES = 1000
TABLE_SIZE = 4


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def raise_fd_limit() -> None:
    """Allow enough open sockets for the phones (and their server ends)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


# -- the floor: a bare relay server of the same stack ---------------------------------------


def echo_app() -> web.Application:
    """An aiohttp WebSocket server that relays each message to the other sockets of a group."""
    groups: dict[str, set[web.WebSocketResponse]] = {}

    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        group = groups.setdefault(request.match_info["group"], set())
        group.add(ws)
        try:
            async for msg in ws:
                if msg.type == aiohttp.WSMsgType.TEXT:
                    for other in group:
                        if other is not ws and not other.closed:
                            await other.send_str(msg.data)
        finally:
            group.discard(ws)
        return ws

    app = web.Application()
    app.router.add_get("/echo/{group}", handler)
    return app


def serve_echo(port: int) -> None:
    """Run the relay server (in its own process)."""
    web.run_app(echo_app(), host="127.0.0.1", port=port, print=None, access_log=None)


# -- servers as processes ---------------------------------------------------------------------


async def start(cmd: list[str], url: str) -> subprocess.Popen[bytes]:
    """Start a server process and wait (bounded) until it answers."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    async with aiohttp.ClientSession() as session:
        for _ in range(400):
            try:
                async with session.get(url) as res:
                    if res.status < 500:
                        return proc
            except aiohttp.ClientError:
                pass
            if proc.poll() is not None:
                raise RuntimeError(f"server exited: {cmd}")
            await asyncio.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server process."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# -- phones -----------------------------------------------------------------------------------


@dataclass
class Run:
    """One level's measurements."""

    latencies: list[float] = field(default_factory=list)
    sent: int = 0
    errors: int = 0
    measuring: bool = False


Socket = aiohttp.ClientWebSocketResponse
Connect = Callable[[aiohttp.ClientSession, int], Awaitable[tuple[Socket, str]]]
Message = Callable[[int, str, float], str]
#: For a phone's seat: from a message it receives, the send time of another phone's change.
Received = Callable[[str], Callable[[dict[str, Any]], float | None]]


async def reader(ws: Socket, run: Run, received: Callable[[dict[str, Any]], float | None]) -> None:
    """Read one phone's messages and note the latency of the changes of other phones."""
    async for msg in ws:
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        data = json.loads(msg.data)
        if data.get("type") == "error":
            run.errors += 1
        sent_at = received(data)
        if sent_at is not None and run.measuring:
            run.latencies.append(time.perf_counter() - sent_at)


async def sender(ws: Socket, seat: str, run: Run, message: Message) -> None:
    """Send a change about once a second (the first at a random moment of the first second)."""
    await asyncio.sleep(random.random())
    n = 0
    next_at = time.perf_counter()
    while True:
        n += 1
        await ws.send_str(message(n, seat, time.perf_counter()))
        if run.measuring:
            run.sent += 1
        next_at += 1.0
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def level(
    phones: int,
    connect: Connect,
    message: Message,
    received: Received,
    warmup: float,
    measure: float,
) -> Run:
    """Connect ``phones`` phones, let them send for ``warmup`` seconds, then measure for
    ``measure`` seconds."""
    run = Run()
    # The phones of a table share an address, as at a real table behind one Wi-Fi: 48 phones
    # (12 tables) an address, under the app's limits per address (docs/table.md, Limits).
    async with contextlib.AsyncExitStack() as stack:
        sessions = [
            await stack.enter_async_context(
                aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0, local_addr=(f"127.0.1.{1 + k}", 0))
                )
            )
            for k in range((phones + 47) // 48)
        ]
        gate = asyncio.Semaphore(50)

        async def one(i: int) -> tuple[Socket, str]:
            async with gate:
                return await connect(sessions[i // 48], i)

        sockets = await asyncio.wait_for(
            asyncio.gather(*(one(i) for i in range(phones))), timeout=120
        )
        tasks = []
        for ws, seat in sockets:
            tasks.append(asyncio.create_task(reader(ws, run, received(seat))))
            tasks.append(asyncio.create_task(sender(ws, seat, run, message)))
        await asyncio.sleep(warmup)
        run.measuring = True
        await asyncio.sleep(measure)
        run.measuring = False
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(ws.close() for ws, _ in sockets), return_exceptions=True)
    return run


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank), in milliseconds."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k] * 1000


async def bench_table(phones: int, warmup: float, measure: float) -> Run:
    """The table app, as a real process on a fresh SQLite database."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = await start(
            [
                sys.executable,
                "-m",
                "lifeledger_table",
                "--port",
                str(port),
                "--db",
                os.path.join(tmp, "bench.db"),
            ],
            base + "/api/catalogue",
        )
        try:
            seats: list[tuple[str, str, str]] = []
            for i in range(phones // TABLE_SIZE):
                # The app lets one address open 60 tables in 10 minutes: the tables are opened
                # from as many loopback addresses as that takes (127.0.0.2, 127.0.0.3, ...).
                local = (f"127.0.0.{2 + i // 50}", 0)
                async with aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(local_addr=local)
                ) as session:
                    form = {
                        "players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")],
                        "best_of": None,
                    }
                    async with session.post(base + "/api/tables", json=form) as res:
                        table = await res.json()
                    for p in ("ana", "bo", "cy", "di"):
                        url = f"{base}/api/tables/{table['id']}/seats/{p}"
                        async with session.post(url, json={}) as res:
                            seats.append((table["id"], p, (await res.json())["token"]))

            async def connect(session: aiohttp.ClientSession, i: int) -> tuple[Socket, str]:
                table_id, seat, token = seats[i]
                ws = await session.ws_connect(
                    f"{base}/ws/t/{table_id}?token={token}", max_msg_size=0
                )
                await ws.send_json({"type": "hello", "token": token, "since": 0})
                return ws, seat

            def message(n: int, seat: str, now: float) -> str:
                action = {
                    "do": "gain_life" if n % 2 else "lose_life",
                    "player": seat,
                    "amount": 1,
                    "note": f"{now!r}",
                }
                return json.dumps({"type": "action", "id": f"{seat}-{n}", "action": action})

            def received(seat: str) -> Callable[[dict[str, Any]], float | None]:
                def on(data: dict[str, Any]) -> float | None:
                    if data.get("type") != "event" or data["entry"]["seat"] == seat:
                        return None
                    return float(data["entry"]["action"]["note"])

                return on

            return await level(phones, connect, message, received, warmup, measure)
        finally:
            stop(proc)


async def bench_echo(phones: int, warmup: float, measure: float) -> Run:
    """The floor: the bare relay server, same load, same measurement."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = await start([sys.executable, __file__, "--serve-echo", str(port)], base + "/echo/probe")
    try:

        async def connect(session: aiohttp.ClientSession, i: int) -> tuple[Socket, str]:
            ws = await session.ws_connect(f"{base}/echo/{i // TABLE_SIZE}", max_msg_size=0)
            return ws, f"p{i}"

        def message(n: int, seat: str, now: float) -> str:
            action = {"do": "lose_life", "player": seat, "amount": 1, "note": f"{now!r}"}
            return json.dumps({"type": "action", "id": f"{seat}-{n}", "action": action})

        def received(seat: str) -> Callable[[dict[str, Any]], float | None]:
            def on(data: dict[str, Any]) -> float | None:
                return float(data["action"]["note"])

            return on

        return await level(phones, connect, message, received, warmup, measure)
    finally:
        stop(proc)


async def main(levels: list[int], warmup: float, measure: float) -> None:
    """Run every level against both servers and print a table of figures."""
    raise_fd_limit()
    rows = []
    for phones in levels:
        for name, bench in (("echo floor", bench_echo), ("table app", bench_table)):
            run = await bench(phones, warmup, measure)
            rows.append(
                (
                    phones,
                    name,
                    run.sent,
                    len(run.latencies),
                    percentile(run.latencies, 50),
                    percentile(run.latencies, 99),
                    run.errors,
                    statistics.fmean(run.latencies) * 1000 if run.latencies else float("nan"),
                )
            )
            print(
                f"{phones:>5} phones  {name:<10}  sent {run.sent:>6}"
                f"  received {len(run.latencies):>6}"
                f"  p50 {rows[-1][4]:7.2f} ms  p99 {rows[-1][5]:7.2f} ms  errors {run.errors}",
                flush=True,
            )
    print()
    print("| phones | server | changes sent | receipts | p50 ms | p99 ms | p99 / floor p99 |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    floors = {r[0]: r[5] for r in rows if r[1] == "echo floor"}
    for phones, name, sent, got, p50, p99, _errors, _mean in rows:
        ratio = p99 / floors[phones] if floors.get(phones) else float("nan")
        print(f"| {phones} | {name} | {sent} | {got} | {p50:.2f} | {p99:.2f} | {ratio:.2f} |")


def cli() -> None:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, action="append", help="phones (repeatable)")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before measuring")
    parser.add_argument("--measure", type=float, default=10.0, help="seconds measured per level")
    parser.add_argument("--serve-echo", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo:
        serve_echo(args.serve_echo)
        return
    levels = args.phones or [100, 400, 1000]
    if any(not TABLE_SIZE <= n <= MAX_PHONES for n in levels):
        parser.error(f"phones are between {TABLE_SIZE} and {MAX_PHONES}")
    warmup = min(max(args.warmup, 1.0), 30.0)
    measure = min(max(args.measure, 1.0), 60.0)
    asyncio.run(main(levels, warmup, measure))


if __name__ == "__main__":
    cli()

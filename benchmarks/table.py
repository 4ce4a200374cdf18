"""Benchmark of the table app: change-to-receipt latency on the other phones of a table, and the
server's CPU per change, next to a bare relay (the floor).

N simulated phones on loopback, in tables of 4; each phone sends a change (a life gain or loss
of 1, alternating, so no game ends) about once a second. For each change sent in the measuring
window, the time from its sending to its arrival on each of the other three phones of the table
is measured. The same load runs against a bare aiohttp WebSocket server that relays each
message to the other sockets of its group (the floor: the same stack, with no rules, no store,
no state).

Every receipt counts: one that arrives after the window is late (its real latency is counted),
and the script waits for all of them up to ``--drain`` seconds; those that never arrive are
reported as lost. A change is recognised by its sequence number (the sender's ``ack``, the
others' ``event``), so the messages measured are exactly what a phone receives. Each level runs
``--runs`` times, a fresh server each time (floor and app alternating), and the figures are
min / median / max over the runs, with the server's CPU per change (``/proc/PID/stat``, over
the window and the drain, divided by the changes sent), the mean size of an event message and
the machine's 1-minute load average at the end of each run (the machine may be shared: read
the figures with it).

The servers run as separate processes; the phones share this one. Everything is bounded: at
most 1,000 phones, at most a minute a window, and the script stops by itself. The long-game,
undo, load and first-connect scenarios are in ``benchmarks/long.py``; memory in
``benchmarks/memory.py``.

    python benchmarks/table.py                          # 100, 400 and 1,000 phones, 3 runs each
    python benchmarks/table.py --phones 100 --runs 5    # one level
    python benchmarks/table.py --phones 400 --profile /tmp/prof/table   # where the CPU goes
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    Figures,
    Fleet,
    Server,
    free_port,
    load_text,
    median,
    open_tables,
    percentile,
    raise_fd_limit,
    spread,
    start,
    stop,
    verdict,
)

__all__ = ["free_port", "percentile", "raise_fd_limit", "start", "stop"]  # hostile.py's

MAX_PHONES = 1000
TABLE_SIZE = 4
#: The goals of issue 9: the server's CPU per change at most this many times the floor's, and
#: an event message for a four-player change under this many bytes.
CPU_GOAL = 2.0
BYTES_GOAL = 400


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


def echo_server() -> Server:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    return Server([sys.executable, __file__, "--serve-echo", str(port)], base, base + "/echo/x")


# -- one run ------------------------------------------------------------------------------------


async def run_echo(phones: int, args: Any) -> Figures:
    """The floor: the bare relay server, same load, same measurement."""
    server = await echo_server().start()
    fleet = Fleet(server.base, mode="echo")
    try:
        await fleet.connect_echo(phones)
        fleet.start_sending()
        await asyncio.sleep(args.warmup)
        return await fleet.measure(args.measure, args.drain, server)
    finally:
        await fleet.close()
        server.stop()


async def run_table(phones: int, args: Any) -> Figures:
    """The table app, as a real process (default limits) on a fresh SQLite database."""
    with tempfile.TemporaryDirectory() as tmp:
        profile = None
        if args.profile:
            profile = f"{args.profile}.{phones}.{len(os.listdir(os.path.dirname(args.profile)))}"
        gc_file = os.path.join(tmp, "gc.json") if args.gc else None
        server = Server.table_app(os.path.join(tmp, "bench.db"), profile=profile, gc_file=gc_file)
        await server.start()
        fleet = Fleet(server.base)
        try:
            tables = await open_tables(server.base, phones // TABLE_SIZE)
            await fleet.connect_tables(tables)
            fleet.start_sending()
            await asyncio.sleep(args.warmup)
            if gc_file:
                await server.gc_stats()  # from here on
            figures = await fleet.measure(args.measure, args.drain, server)
            if gc_file:
                stats = await server.gc_stats()
                print(
                    f"      GC in the window: longest pause {stats['max_since'] * 1000:.1f} ms"
                    f" ({stats['max_since_cpu'] * 1000:.1f} ms CPU, generation"
                    f" {stats['max_gen_since']}); {stats['counts'][2]} full collections since"
                    f" the start; {stats['tracked']:,} objects tracked",
                    flush=True,
                )
            return figures
        finally:
            await fleet.close()
            server.stop()


def summary(rows: dict[tuple[int, str], list[Figures]]) -> None:
    """The table of figures, min / median / max over the runs, and the goals."""
    print()
    print(
        "| phones | server | runs | p50 ms | p99 ms | worst ms | late / lost receipts"
        " | CPU ms per change | CPU / floor | event B | server / phones CPU % | load (1 min) |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    goals = []
    for (phones, name), runs in rows.items():
        floor = rows.get((phones, "echo floor"), [])
        ratio = median(r.cpu_per_change_ms for r in runs) / median(
            r.cpu_per_change_ms for r in floor
        )
        late = sum(r.late for r in runs)
        lost = sum(r.lost for r in runs)
        expected = sum(r.expected for r in runs)
        event_b = median(r.event_bytes for r in runs)
        print(
            f"| {phones} | {name} | {len(runs)} | {spread([r.p50 for r in runs], 2)} |"
            f" {spread([r.p99 for r in runs], 2)} | {max(r.worst for r in runs):.1f} |"
            f" {late} / {lost} of {expected} | {spread((r.cpu_per_change_ms for r in runs), 3)} |"
            f" {ratio:.2f} | {event_b:.0f} | {median(r.server_busy for r in runs):.0f} /"
            f" {median(r.client_busy for r in runs):.0f} | {spread([r.load for r in runs], 2)} |"
        )
        if name == "table app":
            goals.append(
                f"{phones:>5} phones: server CPU per change {ratio:.2f}x the floor's"
                f" (goal <= {CPU_GOAL:g}x): {verdict(ratio <= CPU_GOAL)};"
                f" event message {event_b:.0f} B (goal < {BYTES_GOAL} B):"
                f" {verdict(event_b < BYTES_GOAL)}"
            )
    print()
    print("Goals (issue 9), medians over the runs:")
    for line in goals:
        print("  " + line)


async def main(args: Any) -> None:
    """Run every level against both servers, ``args.runs`` times, and print the figures."""
    raise_fd_limit()
    print(f"load before: {load_text()}  (cores: {os.cpu_count()})", flush=True)
    rows: dict[tuple[int, str], list[Figures]] = {}
    for phones in args.phones:
        for run in range(args.runs):
            for name, bench in (("echo floor", run_echo), ("table app", run_table)):
                figures = await bench(phones, args)
                rows.setdefault((phones, name), []).append(figures)
                print(f"{phones:>5} phones  {name:<10} run {run + 1}  {figures.line()}", flush=True)
    summary(rows)
    print(f"load after: {load_text()}")
    if args.profile:
        profiles(args.profile)


def profiles(prefix: str) -> None:
    """The table app's event loop, profiled over every run (all of each run: connecting,
    warming up, measuring): where its time goes."""
    import glob
    import pstats

    files = sorted(glob.glob(prefix + ".*"))
    if not files:
        return
    stats = pstats.Stats(files[0])
    for more in files[1:]:
        stats.add(more)
    print(f"\nThe table app's event loop under cProfile ({len(files)} runs; cProfile slows it):")
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)


def cli() -> None:
    """Parse the command line and run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phones", type=int, action="append", help="phones (repeatable)")
    parser.add_argument("--runs", type=int, default=3, help="runs per level (1-10)")
    parser.add_argument("--warmup", type=float, default=4.0, help="seconds before measuring")
    parser.add_argument("--measure", type=float, default=10.0, help="seconds measured per run")
    parser.add_argument(
        "--drain", type=float, default=30.0, help="seconds to wait for late receipts"
    )
    parser.add_argument(
        "--profile",
        metavar="PREFIX",
        help="profile the table app (cProfile, in the wrapper) to PREFIX.* and print the top",
    )
    parser.add_argument(
        "--gc", action="store_true", help="time the table app's GC pauses (through the wrapper)"
    )
    parser.add_argument("--serve-echo", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo:
        serve_echo(args.serve_echo)
        return
    args.phones = args.phones or [100, 400, 1000]
    if any(not TABLE_SIZE <= n <= MAX_PHONES for n in args.phones):
        parser.error(f"phones are between {TABLE_SIZE} and {MAX_PHONES}")
    args.runs = min(max(args.runs, 1), 10)
    args.warmup = min(max(args.warmup, 1.0), 30.0)
    args.measure = min(max(args.measure, 1.0), 60.0)
    args.drain = min(max(args.drain, 1.0), 120.0)
    if args.profile:
        args.profile = os.path.abspath(args.profile)
        os.makedirs(os.path.dirname(args.profile), exist_ok=True)
    asyncio.run(main(args))


if __name__ == "__main__":
    cli()

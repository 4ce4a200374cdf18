"""Benchmark of the table app: change-to-receipt latency on the other phones of a table, and the
server's CPU per change, next to a bare relay (the floor).

N simulated phones on loopback, in tables of 4; each phone sends a change (a life gain or loss
of 1, alternating, so no game ends) about once a second (``--rate``: more often, to find where
a server saturates). For each change sent in the measuring
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

The table app runs on SQLite (``--store sqlite``, the default) or on PostgreSQL (``--store
postgresql``: a throwaway server this script starts with ``tests/table/pg_cluster.py``, fsync on,
a fresh database each run), as one process or, on PostgreSQL, several (``--processes 2``: two
``python -m lifeledger_table`` on the one database, each table's phones split over them, two on
each; the tables' owners (issue 18 item 2) spread over them in turn, so that half the changes
are forwarded to the owner on the other process, and every decided event goes back). The app's
CPU is then the sum of its processes'; the database server's CPU (every PostgreSQL process) is
given apart, with the writes one process lost to the other's (duplicate keys in PostgreSQL's
log: each is decided again, and the phones of its tables there are sent a welcome anew, a
*resync*; entries a phone first sees in such a welcome count as its receipts). Throughput is
the changes acknowledged per second in the window (for the floor: relayed); with several
processes, the goals of issue 18 item 3 are printed (two processes against one, PostgreSQL's
p99 against SQLite's).

The servers run as separate processes; the phones share this one. Everything is bounded: at
most 1,000 phones, at most a minute a window, and the script stops by itself. The long-game,
undo, load and first-connect scenarios are in ``benchmarks/long.py``; memory in
``benchmarks/memory.py``.

    python benchmarks/table.py                          # 100, 400 and 1,000 phones, 3 runs each
    python benchmarks/table.py --phones 100 --runs 5    # one level
    python benchmarks/table.py --phones 400 --profile /tmp/prof/table   # where the CPU goes
    python benchmarks/table.py --store sqlite --store postgresql --processes 1 --processes 2
    python benchmarks/table.py --store postgresql --processes 2 --phones 400 --rate 5
    python benchmarks/table.py --phones 400 --compress 15   # phones asking, as browsers do,
                                                           # for permessage-deflate
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import importlib
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    Figures,
    Fleet,
    PostgresServer,
    Server,
    Servers,
    free_port,
    load_text,
    median,
    open_tables,
    percentile,
    phones_per_address,
    raise_fd_limit,
    session,
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
#: The app lets a table take 30 changes a second (``Limits.table_rate``): 4 phones at 7 each.
MAX_RATE = 7.0
#: The goals of issue 18 item 3: two processes acknowledge at least this many times the
#: changes a second of one, at a p99 under this many milliseconds.
SCALE_GOAL = 1.8
P99_GOAL = 50.0
#: The goals of issue 29 item 1: at 4 changes a phone a second, a p99 under ``P99_GOAL`` on
#: one process; two processes together spend at most this many times one's CPU on a change.
BUSY_RATE = 4.0
TWO_CPU_GOAL = 1.1
#: The suffix of a setup's name run from ``--base`` (the app as it was).
BASE = " (base)"
TESTS = Path(__file__).resolve().parent.parent / "tests" / "table"


@dataclass(frozen=True)
class Setup:
    """How the table app runs: its store and how many processes serve the tables."""

    store: str  # "sqlite" or "postgresql"
    processes: int = 1
    #: Another source tree's ``src`` (``--base``): the app as it was, measured beside this one.
    src: str | None = None

    @property
    def name(self) -> str:
        if self.store == "sqlite":
            name = "table app"  # the name of the figures before PostgreSQL
        else:
            name = "PostgreSQL" if self.processes == 1 else f"PostgreSQL x{self.processes}"
        return name + BASE if self.src else name


class Postgres:
    """The throwaway PostgreSQL server of a whole benchmark (``tests/table/pg_cluster.py``): a
    fresh database for each run."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        sys.path.insert(0, str(TESTS))
        pg_cluster = importlib.import_module("pg_cluster")  # the tests' (not a package)
        self.cluster: Any = stack.enter_context(pg_cluster.cluster())
        self.server = PostgresServer(self.cluster.data, self.cluster.log)
        self.made = 0

    def database(self) -> str:
        self.made += 1
        url: str = self.cluster.create_database(f"bench_{self.made}")
        return url


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


async def run_echo(phones: int, rate: float, args: Any) -> Figures:
    """The floor: the bare relay server, same load, same measurement."""
    server = await echo_server().start()
    fleet = Fleet(
        server.base,
        mode="echo",
        rate=rate,
        per_address=phones_per_address(rate),
        compress=args.compress,
    )
    try:
        await fleet.connect_echo(phones)
        fleet.start_sending()
        await asyncio.sleep(args.warmup)
        return await fleet.measure(args.measure, args.drain, server)
    finally:
        await fleet.close()
        server.stop()


async def run_table(
    phones: int, rate: float, args: Any, setup: Setup, pg: Postgres | None
) -> Figures:
    """The table app, as real processes (default limits) on a fresh SQLite database, or a
    fresh PostgreSQL database shared by ``setup.processes`` processes (profiled or probed:
    the first one)."""
    with tempfile.TemporaryDirectory() as tmp:
        profile = None
        if args.profile:
            runs = len(glob.glob(glob.escape(args.profile) + ".*"))
            which = "base." if setup.src else ""
            profile = f"{args.profile}.{which}{phones}.{runs}"
        gc_file = os.path.join(tmp, "gc.json") if args.gc else None
        if setup.store == "postgresql":
            assert pg is not None
            db = pg.database()
        else:
            db = os.path.join(tmp, "bench.db")
        logs = [os.path.join(tmp, f"server{k}.log") for k in range(setup.processes)]
        group = Servers(
            [
                Server.table_app(db, profile=profile, gc_file=gc_file, log=logs[0], src=setup.src),
                *(Server.table_app(db, log=log, src=setup.src) for log in logs[1:]),
            ]
        )
        server = group.servers[0]
        await group.start()
        fleet = Fleet(
            server.base, rate=rate, per_address=phones_per_address(rate), compress=args.compress
        )
        try:
            tables = await open_tables(server.base, phones // TABLE_SIZE)
            if len(group.bases) > 1:
                await own_tables(tables, group.bases)
            await fleet.connect_tables(tables, bases=group.bases)
            fleet.start_sending()
            await asyncio.sleep(args.warmup)
            if gc_file:
                await server.gc_stats()  # from here on
            database = pg.server if pg is not None and setup.store == "postgresql" else None
            figures = await fleet.measure(args.measure, args.drain, group, database=database)
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
            group.stop()
            said(logs)


async def own_tables(tables: list[Any], bases: list[str]) -> None:
    """Each table is read first through one process, in turn (the k-th through process k mod
    N), which loads it and so claims its lease (issue 18 item 2): the tables' owners are
    spread over the processes, as a port shared by workers spreads the first requests."""
    async with session("127.0.3.1") as http:
        for k, table in enumerate(tables):
            async with http.get(f"{bases[k % len(bases)]}/api/tables/{table.id}") as res:
                assert res.status == 200, await res.text()


def said(logs: list[str]) -> None:
    """What the app's processes logged, past their first line (warnings, errors), if any."""
    for k, log in enumerate(logs):
        with contextlib.suppress(OSError):
            lines = Path(log).read_text(errors="replace").splitlines()[1:]
            if lines:
                print(f"      process {k + 1} logged {len(lines)} lines, e.g.:", flush=True)
                for line in lines[:3]:
                    print(f"        {line[:200]}", flush=True)


Level = tuple[int, float, str]  # phones, changes a second per phone, server


def summary(rows: dict[Level, list[Figures]]) -> None:
    """The table of figures, min / median / max over the runs, and the goals."""
    print()
    print(
        "| phones | server | runs | p50 ms | p99 ms | worst ms | late / lost receipts"
        " | CPU ms per change | CPU / floor | event B | server / phones CPU % | load (1 min)"
        " | acked / s | DB CPU ms per change | conflicts / resyncs |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    goals = []
    for (phones, rate, name), runs in rows.items():
        floor = rows.get((phones, rate, "echo floor"), [])
        floor_cpu = median(r.cpu_per_change_ms for r in floor)
        ratio = median(r.cpu_per_change_ms for r in runs) / floor_cpu if floor_cpu else float("nan")
        late = sum(r.late for r in runs)
        lost = sum(r.lost for r in runs)
        expected = sum(r.expected for r in runs)
        event_b = median(r.event_bytes for r in runs)
        level = f"{phones}" if rate == 1 else f"{phones} at {rate:g}/s"
        database = "-"
        if any(r.db_cpu == r.db_cpu for r in runs):
            database = spread((r.db_cpu_per_change_ms for r in runs), 3)
        conflicts = "-"
        if name.startswith("PostgreSQL"):
            conflicts = f"{sum(r.conflicts for r in runs)} / {sum(r.resyncs for r in runs)}"
        print(
            f"| {level} | {name} | {len(runs)} | {spread([r.p50 for r in runs], 2)} |"
            f" {spread([r.p99 for r in runs], 2)} | {max(r.worst for r in runs):.1f} |"
            f" {late} / {lost} of {expected} | {spread((r.cpu_per_change_ms for r in runs), 3)} |"
            f" {ratio:.2f} | {event_b:.0f} | {median(r.server_busy for r in runs):.0f} /"
            f" {median(r.client_busy for r in runs):.0f} | {spread([r.load for r in runs], 2)} |"
            f" {spread((r.throughput for r in runs), 0)} | {database} | {conflicts} |"
        )
        if name != "echo floor":
            goals.append(
                f"{level:>5} phones, {name}: server CPU per change {ratio:.2f}x the floor's"
                f" (goal <= {CPU_GOAL:g}x): {verdict(ratio <= CPU_GOAL)};"
                f" event message {event_b:.0f} B (goal < {BYTES_GOAL} B):"
                f" {verdict(event_b < BYTES_GOAL)}"
            )
    print()
    print("Goals (issue 9), medians over the runs:")
    for line in goals:
        print("  " + line)
    scaling(rows)
    busy(rows)


def scaling(rows: dict[Level, list[Figures]]) -> None:
    """Issue 18 item 3's goals, medians over the runs: two processes on PostgreSQL acknowledge
    at least 1.8 times the changes a second of one at a p99 under 50 ms, and PostgreSQL's p99
    is within twice SQLite's."""
    lines = []
    for (phones, rate, name), runs in rows.items():
        level = f"{phones}" if rate == 1 else f"{phones} at {rate:g}/s"
        one = rows.get((phones, rate, beside(name, "PostgreSQL")))
        if name.startswith("PostgreSQL x") and one:
            ratio = median(r.throughput for r in runs) / median(r.throughput for r in one)
            p99 = median(r.p99 for r in runs)
            lines.append(
                f"{level:>5} phones, {name} / PostgreSQL: {ratio:.2f}x the changes acknowledged"
                f" a second (goal >= {SCALE_GOAL:g}x), p99 {p99:.1f} ms (goal < {P99_GOAL:g} ms):"
                f" {verdict(ratio >= SCALE_GOAL and p99 < P99_GOAL)}; conflicts"
                f" {sum(r.conflicts for r in runs)} (one process: {sum(r.conflicts for r in one)})"
            )
        sqlite = rows.get((phones, rate, beside(name, "table app")))
        if name.startswith("PostgreSQL") and sqlite:
            ratio = median(r.p99 for r in runs) / median(r.p99 for r in sqlite)
            lines.append(
                f"{level:>5} phones, {name}: p99 {ratio:.2f}x SQLite's (goal <= 2x):"
                f" {verdict(ratio <= 2)}"
            )
    if lines:
        print()
        print("Goals (issue 18 item 3), medians over the runs:")
        for line in lines:
            print("  " + line)


def beside(name: str, other: str) -> str:
    """The name of setup ``other`` run from the same source tree as setup ``name``."""
    return other + BASE if name.endswith(BASE) else other


def busy(rows: dict[Level, list[Figures]]) -> None:
    """Issue 29 item 1's goals, medians over the runs: at 4 changes a phone a second, one
    process's p99 under 50 ms (SQLite and PostgreSQL); two processes together spend at most
    1.1 times one's CPU on a change (at every rate measured); and, with ``--base``, each
    figure against the app as it was."""
    lines = []
    for (phones, rate, name), runs in rows.items():
        level = f"{phones}" if rate == 1 else f"{phones} at {rate:g}/s"
        cpu = median(r.cpu_per_change_ms for r in runs)
        one = rows.get((phones, rate, beside(name, "PostgreSQL")))
        if rate == BUSY_RATE and (name.startswith("table app") or name.startswith("PostgreSQL ")):
            p99 = median(r.p99 for r in runs)
            lines.append(
                f"{level:>5} phones, {name}: p99 {p99:.1f} ms (goal < {P99_GOAL:g} ms on one"
                f" process): {verdict(p99 < P99_GOAL)}"
            )
        if name.startswith("PostgreSQL x") and one:
            ratio = cpu / median(r.cpu_per_change_ms for r in one)
            lines.append(
                f"{level:>5} phones, {name}: CPU per change {cpu:.3f} ms, {ratio:.2f}x one"
                f" process's (goal <= {TWO_CPU_GOAL:g}x): {verdict(ratio <= TWO_CPU_GOAL)}"
            )
        base = rows.get((phones, rate, name + BASE))
        if base:
            was = median(r.cpu_per_change_ms for r in base)
            lines.append(
                f"{level:>5} phones, {name}: CPU per change {cpu:.3f} ms against {was:.3f} ms"
                f" as it was ({cpu / was:.2f}x); p99 {median(r.p99 for r in runs):.1f} ms"
                f" against {median(r.p99 for r in base):.1f} ms"
            )
    if lines:
        print()
        print("Goals (issue 29 item 1), medians over the runs:")
        for line in lines:
            print("  " + line)


async def main(args: Any) -> None:
    """Run every level against the floor and every setup of the app, ``args.runs`` times
    (alternating), and print the figures."""
    raise_fd_limit()
    print(f"load before: {load_text()}  (cores: {os.cpu_count()})", flush=True)
    rows: dict[Level, list[Figures]] = {}
    with contextlib.ExitStack() as stack:
        pg = None
        if any(s.store == "postgresql" for s in args.setups):
            pg = Postgres(stack)
            print(f"PostgreSQL: {pg.cluster.bindir.parent.name}, fsync on", flush=True)
        for rate in args.rate:
            for phones in args.phones:
                for run in range(args.runs):
                    figures = await run_echo(phones, rate, args)
                    record(rows, (phones, rate, "echo floor"), run, figures)
                    for setup in args.setups:
                        figures = await run_table(phones, rate, args, setup, pg)
                        record(rows, (phones, rate, setup.name), run, figures)
    summary(rows)
    print(f"load after: {load_text()}")
    if args.profile:
        profiles(args.profile)


def record(rows: dict[Level, list[Figures]], level: Level, run: int, figures: Figures) -> None:
    rows.setdefault(level, []).append(figures)
    phones, rate, name = level
    print(f"{phones:>5} phones {rate:g}/s  {name:<13} run {run + 1}  {figures.line()}", flush=True)


def profiles(prefix: str) -> None:
    """The table app's threads, profiled over every run (all of each run: connecting, warming
    up, measuring): where the time of its event loop goes, then that of its other threads
    (the writer's, in ``asyncio.to_thread``'s pool; the log reads'), each kind of thread
    apart. The runs of ``--base`` are left out."""
    import pstats

    files = [f for f in sorted(glob.glob(glob.escape(prefix) + ".*")) if ".base." not in f]
    threads: dict[str, list[str]] = {}
    for path in files:
        _, _, thread = path.partition("@")
        kind = thread.split("~")[0].rstrip("0123456789").rstrip("_-") if thread else ""
        threads.setdefault(kind, []).append(path)
    for kind, paths in sorted(threads.items()):
        stats = pstats.Stats(paths[0])
        for more in paths[1:]:
            stats.add(more)
        what = f"threads {kind}*" if kind else "event loop"
        print(
            f"\nThe table app's {what} under cProfile, in CPU seconds ({len(paths)} profiles;"
            f" cProfile slows it; {stats.total_tt:.2f} s in all):"  # type: ignore[attr-defined]
        )
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40 if not kind else 20)


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
        help="profile the table app's threads (cProfile, in the wrapper: the event loop and"
        " the writer's and other threads apart) to PREFIX.* and print the top of each",
    )
    parser.add_argument(
        "--base",
        metavar="SRC",
        help="also run the app from another source tree's src directory (the app as it was,"
        " say a git worktree of an earlier commit), each run beside this one's",
    )
    parser.add_argument(
        "--gc", action="store_true", help="time the table app's GC pauses (through the wrapper)"
    )
    parser.add_argument(
        "--store",
        action="append",
        choices=("sqlite", "postgresql"),
        help="the app's store (repeatable; default sqlite)",
    )
    parser.add_argument(
        "--processes",
        type=int,
        action="append",
        choices=(1, 2, 3, 4),
        help="app processes on one PostgreSQL database (repeatable; default 1)",
    )
    parser.add_argument(
        "--rate",
        type=float,
        action="append",
        help=f"changes a second per phone (repeatable; default 1, at most {MAX_RATE:g})",
    )
    parser.add_argument(
        "--compress",
        type=int,
        default=0,
        choices=(0, 9, 10, 11, 12, 13, 14, 15),
        help="each phone asks for permessage-deflate with this window, as a browser does (15),"
        " floor and app alike; 0 (the default) for none",
    )
    parser.add_argument("--serve-echo", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_echo:
        serve_echo(args.serve_echo)
        return
    args.phones = args.phones or [100, 400, 1000]
    if any(not TABLE_SIZE <= n <= MAX_PHONES for n in args.phones):
        parser.error(f"phones are between {TABLE_SIZE} and {MAX_PHONES}")
    args.rate = args.rate or [1.0]
    if any(not 0.1 <= r <= MAX_RATE for r in args.rate):
        parser.error(f"a rate is between 0.1 and {MAX_RATE:g} changes a second per phone")
    args.setups = [
        Setup(store, n)
        for store in dict.fromkeys(args.store or ["sqlite"])
        for n in dict.fromkeys(args.processes or [1])
        if store == "postgresql" or n == 1  # several processes share a PostgreSQL database
    ]
    if args.base:
        if not (Path(args.base) / "lifeledger_table" / "__init__.py").is_file():
            parser.error(f"--base {args.base}: no lifeledger_table package in it")
        src = os.path.abspath(args.base)
        args.setups = [x for s in args.setups for x in (s, Setup(s.store, s.processes, src))]
    if not args.setups:
        parser.error("several processes need --store postgresql")
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

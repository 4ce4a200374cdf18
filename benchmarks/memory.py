"""Benchmark of the table app's memory: does one server process stay the same size, and its
garbage collections as short, from 100,000 to 1,000,000 events played? (issue 9)

Four-player tables of ``--per-table`` events each are played through one real server process
(``lifeledger_table.server.run``, through ``harness.py serve``: relaxed per-client limits, so
that one socket can pipeline a table's changes, and a probe timing every garbage collection
with ``gc.callbacks``), ``--parallel`` tables at a time; once a table's game is played its
socket closes and the table goes idle (its log stays in the store). At each mark the script
reports the server's resident memory (``VmRSS`` of ``/proc/PID/status``), the longest GC pause
since the last mark and in all (with its generation), and the time one full collection of every
object takes then (``gc.unfreeze(); gc.collect()``, timed in the server, the frozen set restored
after: what a full collection would cost without ``gc.freeze``), next to the machine's load.

    python benchmarks/memory.py                       # 100k, 250k, 500k, 1M events (many minutes)
    python benchmarks/memory.py --quick               # 20k, 50k, 100k
    python benchmarks/memory.py --marks 10000,30000   # any marks
    python benchmarks/memory.py --idle 10             # tables idle 10 s leave memory

A table here is played in seconds, not in an hour: with the server's default ``Limits.idle``
(minutes) every table of a run may still be in memory at its end. ``--idle`` compresses that
time as the games are compressed (``Limits.idle``, ``busy`` and ``sweep`` through the wrapper).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (
    Server,
    grow_all,
    load,
    load_text,
    open_tables,
    raise_fd_limit,
    verdict,
)

#: "Flat" (issue 9): the last mark's resident memory within this factor of the first's, and
#: its longest GC pause (since the mark before) within this factor too.
RSS_FLAT = 1.25
GC_FLAT = 2.0


async def main(args: Any) -> None:
    raise_fd_limit()
    print(f"load before: {load_text()}  (cores: {os.cpu_count()})", flush=True)
    with contextlib.ExitStack() as stack:
        work = args.workdir or stack.enter_context(tempfile.TemporaryDirectory())
        os.makedirs(work, exist_ok=True)
        db = os.path.join(work, "memory.db")
        for stale in (db, db + "-wal", db + "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.remove(stale)
        gc_file = os.path.join(work, "gc.json")
        limits = None
        if args.idle is not None:
            # Games here last seconds, not an hour: the idle time is compressed with them.
            limits = {"idle": args.idle, "busy": min(30.0, args.idle / 2), "sweep": 1.0}
            print(f"tables leave memory after {args.idle:g} s idle ({limits})", flush=True)
        server = Server.table_app(
            db,
            relaxed=True,
            gc_file=gc_file,
            trace=args.trace,
            limits=limits,
            log=os.path.join(work, "server.log"),
        )
        await server.start()
        rows: list[dict[str, Any]] = []
        last: dict[str, Any] = {}
        try:
            await asyncio.sleep(1.0)
            base = await server.gc_stats(full=True)
            print(
                f"started: RSS {server.rss():.1f} MiB; a full collection of every object"
                f" {base['full'] * 1000:.1f} ms ({base['full_cpu'] * 1000:.1f} ms CPU) for"
                f" {base['tracked']:,} objects: the floor of this aiohttp process here",
                flush=True,
            )
            played, tables, started = 0, 0, time.perf_counter()
            for mark in args.marks:
                segment = time.perf_counter()
                jobs: list[int] = []
                while played + sum(jobs) < mark:
                    jobs.append(min(args.per_table, mark - played - sum(jobs)))
                refs = await open_tables(server.base, len(jobs), 20 + tables // 12_500)
                await grow_all(server.base, list(zip(refs, jobs, strict=True)), args.parallel)
                played, tables = mark, tables + len(jobs)
                seconds = time.perf_counter() - segment
                await asyncio.sleep(args.settle)
                rss = server.rss()
                natural = await server.gc_stats()
                last = full = await server.gc_stats(full=True)
                row = {
                    "events": played,
                    "tables": tables,
                    "rss": rss,
                    "rss_after_full": server.rss(),
                    "pause": natural["max_since"] * 1000,
                    "pause_cpu": natural["max_since_cpu"] * 1000,
                    "gen": natural["max_gen_since"],
                    "freed": natural["max_collected_since"],
                    "gen2": natural["counts"][2],
                    "frozen": natural["frozen"],
                    "full": full["full"] * 1000,
                    "full_cpu": full["full_cpu"] * 1000,
                    "full_freed": full["full_collected"],
                    "objects": full["tracked"],
                    "rate": sum(jobs) / seconds,
                    "elapsed": time.perf_counter() - started,
                    "load": load(),
                }
                rows.append(row)
                print(
                    f"{played:>9,} events on {tables} tables: RSS {rss:8.1f} MiB"
                    f" ({row['rss_after_full']:.1f} after a full GC); longest GC pause since the"
                    f" last mark {row['pause']:.1f} ms, {row['pause_cpu']:.1f} ms CPU (gen"
                    f" {row['gen']}, freed {row['freed']:,}; {row['gen2']} full ones so far);"
                    f" a full collection {row['full']:.1f} ms, {row['full_cpu']:.1f} ms CPU"
                    f" ({row['objects']:,} objects, {row['frozen']:,} of them frozen before,"
                    f" {row['full_freed']:,} freed); {row['rate']:.0f} events/s;"
                    f" load {load_text()}",
                    flush=True,
                )
        finally:
            server.stop()
    print()
    print(
        f"{args.per_table:,} events a table, {args.parallel} tables played at a time through one"
        " server process; its figures at each mark (pauses: wall ms / CPU ms of the thread)"
    )
    print()
    print(
        "| events played | tables | RSS MiB | longest GC pause since the last mark ms (gen)"
        " | full collection of every object ms | tracked objects | events/s | elapsed s"
        " | load (1 min) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['events']:,} | {r['tables']} | {r['rss']:.1f}"
            f" | {r['pause']:.1f} / {r['pause_cpu']:.1f} (gen {r['gen']})"
            f" | {r['full']:.1f} / {r['full_cpu']:.1f} | {r['objects']:,} | {r['rate']:.0f}"
            f" | {r['elapsed']:.0f} | {r['load']:.2f} |"
        )
    if len(rows) >= 2:
        first, end = rows[0], rows[-1]
        rss = end["rss"] / first["rss"]
        pause = max(r["pause_cpu"] for r in rows[1:]) / max(first["pause_cpu"], 1e-9)
        full = end["full_cpu"] / max(first["full_cpu"], 1e-9)
        print()
        print(
            f"from {first['events']:,} to {end['events']:,} events: RSS {rss:.2f}x"
            f" (flat: <= {RSS_FLAT}x): {verdict(rss <= RSS_FLAT)}; longest GC pause (CPU)"
            f" {pause:.2f}x (<= {GC_FLAT:g}x): {verdict(pause <= GC_FLAT)}; a full collection"
            f" (CPU) {full:.2f}x (<= {GC_FLAT:g}x): {verdict(full <= GC_FLAT)}"
        )
    if args.trace and last.get("top"):
        print(f"\ntracemalloc at the last mark: {last['traced_mb']:.1f} MiB traced; the largest:")
        print("\n".join(last["top"]))
    print(f"load after: {load_text()}")


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--marks", help="events played at each mark, e.g. 100000,250000")
    parser.add_argument("--quick", action="store_true", help="marks 20k, 50k, 100k")
    parser.add_argument("--per-table", type=int, default=2500, help="events a table plays")
    parser.add_argument("--parallel", type=int, default=4, help="tables played at a time")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds idle before a mark")
    parser.add_argument("--workdir", help="keep the database and the server's log here")
    parser.add_argument(
        "--trace", action="store_true", help="tracemalloc in the server: who holds the memory"
    )
    parser.add_argument(
        "--idle",
        type=float,
        help="seconds before an idle table leaves memory (Limits.idle; default: the server's)",
    )
    args = parser.parse_args()
    if args.marks:
        marks = [int(x) for x in args.marks.split(",")]
    elif args.quick:
        marks = [20_000, 50_000, 100_000]
    else:
        marks = [100_000, 250_000, 500_000, 1_000_000]
    if any(not 1 <= m <= 5_000_000 for m in marks):
        parser.error("marks are from 1 to 5,000,000 events")
    args.marks = sorted(set(marks))
    args.per_table = min(max(args.per_table, 1), 100_000)
    args.parallel = min(max(args.parallel, 1), 64)
    args.settle = min(max(args.settle, 0.0), 600.0)
    asyncio.run(main(args))


if __name__ == "__main__":
    cli()

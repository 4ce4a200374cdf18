"""Replay speed and memory against the floor of merely parsing the same lines.

Run by hand: ``.venv/bin/python benchmarks/replay.py [--sizes 100000 1000000] [--runs 5]``.

For each size it writes two streams (four-player Commander: mixed damage, commander damage,
life gain, life loss, payments and counters):

- ``game``: the stream as a game writes it, where lines repeat (a replay parses a line it has
  seen before only once: ``record.LINE_CACHE``);
- ``unique``: the same actions, each with a ``note`` of its own (``"action 0"``, ``"action
  1"``, ...), so that no line repeats (the worst case for the line cache; checked: every line
  of it is distinct).

Then, ``--runs`` times, each in a fresh process so that one measurement can't warm or bloat
another, and taking turns so that the machine's load falls on all of them alike:

- ``parse``: ``json.loads`` on every line, nothing else (the floor);
- ``json``: ``lifeledger replay --json`` of the file (its ``main``, writing to /dev/null);
- ``fast``: ``lifeledger replay --json --fast``, the same with the ``fast`` extra's reader
  (msgspec; skipped where it isn't installed);
- ``text``: ``lifeledger replay`` (the text timeline) of the file, likewise;
- ``apply``: the engine's own work alone: every action of the file read first (not timed),
  then only ``Game.apply`` of each, timed (the part of ``json`` and ``fast`` that no reader
  of lines can make cheaper);

and once more ``--json`` under ``tracemalloc``, for the peak of Python allocations (the peak
resident set size is taken from the runs without it: tracemalloc's own tables grow with the
number of allocations it has seen).

It prints, for each stream, the min/median/max of each time and of the ratios json/parse (goal:
at most 2), fast/parse (goal: at most 1.2), apply/parse and text/json (goal: at most 2), each
ratio taken run by run, both in wall time and in the process's CPU time (less sensitive to
other work on the machine), with the load average (``os.getloadavg``) before and after; and the
peak memory of each size (goal: the same for every size, since a stream replays in memory that
does not grow with its length).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

PLAYERS = ["ana", "bo", "cy", "di"]
HEADER = {
    "record": 1,
    "variant": "free-for-all",
    "format": "commander",
    "players": [{"id": p, "commanders": [f"{p}-commander"]} for p in PLAYERS],
}


def generate(path: Path, size: int, seed: int = 2026, unique: bool = False) -> None:
    """A long game in which nobody dies: totals are steered between 10 and 80 life.

    With ``unique``, every action carries a ``note`` of its own, so that no line repeats and
    the replay's cache of lines seen before never hits (the worst case)."""
    rng = random.Random(seed)
    life = dict.fromkeys(PLAYERS, 40)
    poison = dict.fromkeys(PLAYERS, 0)
    commander = {(a, b): 0 for a in PLAYERS for b in PLAYERS}
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps(HEADER) + "\n")
        for index in range(size):
            p = rng.choice(PLAYERS)
            other = rng.choice([q for q in PLAYERS if q != p])
            roll = rng.random()
            amount = rng.randint(1, 6)
            if life[p] < 20 or (roll < 0.25 and life[p] < 70):
                action = {"do": "gain_life", "player": p, "amount": amount, "source": "healer"}
                life[p] += amount
            elif roll < 0.55:
                source = f"{other}-commander"
                if commander[(other, p)] + amount < 21 and rng.random() < 0.2:
                    commander[(other, p)] += amount
                else:
                    source = f"{other}-creature"
                action = {"do": "damage", "source": source, "to": p, "amount": amount}
                action["combat"] = True
                life[p] -= amount
            elif roll < 0.7:
                action = {"do": "lose_life", "player": p, "amount": amount}
                life[p] -= amount
            elif roll < 0.8:
                action = {"do": "pay_life", "player": p, "amount": min(amount, 2)}
                life[p] -= min(amount, 2)
            elif roll < 0.9 or poison[p] >= 7:
                kind = "poison" if poison[p] < 7 else "energy"
                action = {"do": "add_counters", "player": p, "kind": kind, "amount": 1}
                if kind == "poison":
                    poison[p] += 1
            else:
                action = {"do": "remove_counters", "player": p, "kind": "poison", "amount": 1}
                poison[p] = max(0, poison[p] - 1)
            if unique:
                action["note"] = f"action {index}"  # the loop's own index: no line repeats
            out.write(json.dumps(action) + "\n")


def distinct_lines(path: Path) -> int:
    """How many distinct action lines the stream has."""
    with path.open(encoding="utf-8") as lines:
        next(lines)
        return len(set(lines))


CHILD = r"""
import contextlib, json, os, sys, time, tracemalloc
mode, path = sys.argv[1], sys.argv[2]
if mode == "parse":
    wall, cpu = time.perf_counter(), time.process_time()
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            json.loads(line)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"wall": wall, "cpu": cpu}))
elif mode == "apply":
    from lifeledger import record
    with open(path, encoding="utf-8") as lines:
        game = record.parse_header(json.loads(next(lines)), stream=True).new_game(
            keep_history=False
        )
        actions = [record.parse_action(json.loads(line)) for line in lines]
    apply = game.apply
    wall, cpu = time.perf_counter(), time.process_time()
    for action in actions:
        apply(action)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(json.dumps({"wall": wall, "cpu": cpu}))
else:
    from lifeledger import cli
    if mode == "memory":
        tracemalloc.start()
    args = ["replay", path] if mode == "text" else ["replay", "--json", path]
    if mode == "fast":
        args.insert(1, "--fast")
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        wall, cpu = time.perf_counter(), time.process_time()
        status = cli.main(args)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert status == 0, status
    peak = tracemalloc.get_traced_memory()[1] if mode == "memory" else None
    # The peak resident set of this program (VmHWM): getrusage's ru_maxrss would start from
    # the parent's, which it keeps across exec.
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    print(json.dumps({"wall": wall, "cpu": cpu, "peak": peak, "rss_kib": rss}))
"""


#: Whether the ``fast`` extra is installed (then measured too).
FAST = importlib.util.find_spec("msgspec") is not None


def run(mode: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def spread(values: list[float], digits: int = 2) -> str:
    """min/median/max."""
    middle = statistics.median(values)
    return "/".join(f"{v:.{digits}f}" for v in (min(values), middle, max(values)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--runs", type=int, default=5, help="runs of each measurement")
    parser.add_argument("--streams", nargs="+", default=["game", "unique"])
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus; min/median/max of runs")
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            for stream in args.streams:
                path = Path(folder) / f"{stream}-{size}.jsonl"
                generate(path, size, unique=stream == "unique")
                distinct = distinct_lines(path)
                if stream == "unique":
                    assert distinct == size, (distinct, size)
                load_before = os.getloadavg()
                times: dict[str, list[dict[str, float]]] = {
                    "parse": [],
                    "json": [],
                    "text": [],
                    "apply": [],
                }
                if FAST:
                    times["fast"] = []
                for _ in range(args.runs):
                    for mode, results in times.items():
                        results.append(run(mode, path))
                load_after = os.getloadavg()
                memory = run("memory", path)
                print(
                    f"{size:,} actions, {stream} ({distinct:,} distinct lines); "
                    f"load {load_before[0]:.2f} -> {load_after[0]:.2f}"
                )
                for clock in ("wall", "cpu"):
                    parse = [r[clock] for r in times["parse"]]
                    replay = [r[clock] for r in times["json"]]
                    text = [r[clock] for r in times["text"]]
                    json_ratio = [r / p for r, p in zip(replay, parse, strict=True)]
                    text_ratio = [t / r for t, r in zip(text, replay, strict=True)]
                    applied = [r[clock] for r in times["apply"]]
                    apply_ratio = [a / p for a, p in zip(applied, parse, strict=True)]
                    fast = ""
                    if FAST:
                        quick = [r[clock] for r in times["fast"]]
                        fast_ratio = [q / p for q, p in zip(quick, parse, strict=True)]
                        fast = f"  fast {spread(quick, 3)} (fast/parse {spread(fast_ratio)})"
                    print(
                        f"  {clock:>4} s: parse {spread(parse, 3)}  json {spread(replay, 3)}"
                        f"  text {spread(text, 3)}{fast}  |  json/parse {spread(json_ratio)}"
                        f"  text/json {spread(text_ratio)}"
                    )
                    print(
                        f"  {'':>4}   apply {spread(applied, 3)} (apply/parse"
                        f" {spread(apply_ratio)}: the engine's own work per action)"
                    )
                # Resident memory from the runs without tracemalloc (whose own tables grow).
                rss = max(r["rss_kib"] for r in times["json"])
                print(
                    f"  memory (--json): peak {memory['peak'] / 1024:,.0f} KiB of Python "
                    f"allocations (tracemalloc), {rss:,.0f} KiB resident at most",
                    flush=True,
                )


if __name__ == "__main__":
    main()

"""Benchmark of a shortcut's cost against its count (issue 19 item 4): a ``repeat`` (732.2a) of
1,000,000 life gains under Ajani's Pridemate, settled at once (``Game._do_repeat``), against the
same shortcut played iteration by iteration for a small count (the engine's switch
``Game._settle_shortcuts`` off), and a shortcut that ends the game part-way (damage until a
player at 2,000,000 life dies: the iterations before it settled, the crossing one played).

Each case runs ``--runs`` times: CPU time (``time.process_time``) and wall time of the
``repeat`` alone, then once more under ``tracemalloc`` for its peak memory; figures are
min / median / max over the runs, with the machine's 1-minute load average before and after
(the machine may be shared: read the figures with it). Goal: the 1,000,000 shortcut under
0.1 s of CPU, its peak memory the same as a shortcut of 1,000's (PASS / MISS).

    python benchmarks/shortcut.py              # 7 runs
    python benchmarks/shortcut.py --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from lifeledger import Game, Seat
from lifeledger.actions import Damage, GainLife


def pridemate_gains(times: int, settle: bool = True) -> Callable[[], Game]:
    """A game with Ajani's Pridemate, and the shortcut of ``times`` gains of 1 life to run."""
    game = Game([Seat("ana"), Seat("bo")], version=2)
    game.card("pridemate", "Ajani's Pridemate", "ana")

    def run() -> Game:
        was = Game._settle_shortcuts
        Game._settle_shortcuts = settle
        try:
            game.repeat(times, GainLife("ana", 1))
        finally:
            Game._settle_shortcuts = was
        assert game.triggered["pridemate"] == times
        return game

    return run


def damage_until_dead() -> Callable[[], Game]:
    """Bo at 2,000,000 takes 3 lifelink damage an iteration of 1,000,000: dies at 666,667."""
    game = Game([Seat("ana"), Seat("bo")], version=2, starting_life=2_000_000)
    game.card("pridemate", "Ajani's Pridemate", "ana")

    def run() -> Game:
        game.repeat(10**6, Damage("bo", 3, source="bat", lifelink=True, controller="ana"))
        assert game.is_over() and game.triggered["pridemate"] == 666_667
        return game

    return run


def measure(make: Callable[[], Callable[[], Game]], runs: int) -> dict[str, list[float]]:
    """CPU and wall seconds of ``runs`` fresh runs, then one run's peak memory (bytes)."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(runs):
        run = make()
        began_cpu, began_wall = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - began_cpu)
        wall.append(time.perf_counter() - began_wall)
    run = make()
    tracemalloc.start()
    try:
        run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return {"cpu": cpu, "wall": wall, "peak": [float(peak)]}


def spread(values: list[float], scale: float, unit: str) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{low * scale:.3f} / {mid * scale:.3f} / {high * scale:.3f} {unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each case (default 7)")
    parser.add_argument(
        "--iterated", type=int, default=10_000, help="the count played iteration by iteration"
    )
    args = parser.parse_args()
    small = args.iterated
    cases: list[tuple[str, Callable[[], Callable[[], Game]], int]] = [
        ("1,000,000 gains, settled", lambda: pridemate_gains(10**6), 10**6),
        ("1,000 gains, settled", lambda: pridemate_gains(1_000), 1_000),
        (f"{small:,} gains, iterated", lambda: pridemate_gains(small, settle=False), small),
        ("damage until dead (666,667), settled", damage_until_dead, 666_667),
    ]
    load_before = os.getloadavg()[0]
    print(f"load average (1 min) before: {load_before:.2f}, {os.cpu_count()} CPUs")
    print(f"{'case':40} {'CPU min/median/max':>26} {'wall min/median/max':>26} {'peak':>10}")
    figures: dict[str, dict[str, list[float]]] = {}
    for name, make, _count in cases:
        got = figures[name] = measure(make, args.runs)
        print(
            f"{name:40} {spread(got['cpu'], 1000, 'ms'):>26} "
            f"{spread(got['wall'], 1000, 'ms'):>26} {got['peak'][0] / 1024:>7.0f} kB"
        )
    load_after = os.getloadavg()[0]
    print(f"load average (1 min) after: {load_after:.2f}")
    iterated = figures[f"{small:,} gains, iterated"]
    per_iteration = statistics.median(iterated["cpu"]) / small
    print(
        f"iterating: {per_iteration * 1e6:.1f} µs of CPU an iteration, so 1,000,000 would take "
        f"about {per_iteration * 1e6:.1f} s; peak {iterated['peak'][0] / 1024:.0f} kB for {small:,}"
    )
    settled = figures["1,000,000 gains, settled"]
    fast = statistics.median(settled["cpu"]) < 0.1
    flat = settled["peak"][0] <= 2 * figures["1,000 gains, settled"]["peak"][0] + 16_384
    print(f"goal: 1,000,000 under 0.1 s of CPU (median): {'PASS' if fast else 'MISS'}")
    print(f"goal: peak memory flat (10^6 vs 10^3): {'PASS' if flat else 'MISS'}")
    return 0 if fast and flat else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Replay speed and memory against the floor of merely parsing the same lines.

Run by hand: ``.venv/bin/python benchmarks/replay.py [--sizes 100000 1000000]``.

For each size it writes a stream (four-player Commander: mixed damage, commander damage, life
gain, life loss, payments and counters), then, each in a fresh process so that one measurement
can't warm or bloat another:

- ``parse``: ``json.loads`` on every line, nothing else (the floor);
- ``replay``: ``lifeledger.record.load`` of the same file, as ``lifeledger replay --json`` does;
- ``memory``: the replay again under ``tracemalloc``, for the peak of Python allocations, and
  the process's peak resident set size.

It prints the replay/parse time ratio (goal: at most 2) and the peak memory of each size (goal:
the same for every size, since a stream replays in memory that does not grow with its length).

Each size is measured twice: ``game``, the stream as a game writes it, where lines repeat (the
replay parses a line it has seen before only once: ``record.LINE_CACHE``), and ``distinct``, the
same actions each with a ``note`` of its own, so that no line repeats (the worst case).
"""

from __future__ import annotations

import argparse
import json
import random
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


def generate(path: Path, size: int, seed: int = 2026, distinct: bool = False) -> None:
    """A long game in which nobody dies: totals are steered between 10 and 80 life.

    With ``distinct``, every action carries a ``note`` of its own, so that no line repeats
    and the replay's cache of lines seen before never hits (the worst case)."""
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
            n = rng.randint(1, 6)
            if life[p] < 20 or (roll < 0.25 and life[p] < 70):
                action = {"do": "gain_life", "player": p, "amount": n, "source": "healer"}
                life[p] += n
            elif roll < 0.55:
                source = f"{other}-commander"
                if commander[(other, p)] + n < 21 and rng.random() < 0.2:
                    commander[(other, p)] += n
                else:
                    source = f"{other}-creature"
                action = {"do": "damage", "source": source, "to": p, "amount": n, "combat": True}
                life[p] -= n
            elif roll < 0.7:
                action = {"do": "lose_life", "player": p, "amount": n}
                life[p] -= n
            elif roll < 0.8:
                action = {"do": "pay_life", "player": p, "amount": min(n, 2)}
                life[p] -= min(n, 2)
            elif roll < 0.9 or poison[p] >= 7:
                kind = "poison" if poison[p] < 7 else "energy"
                action = {"do": "add_counters", "player": p, "kind": kind, "amount": 1}
                if kind == "poison":
                    poison[p] += 1
            else:
                action = {"do": "remove_counters", "player": p, "kind": "poison", "amount": 1}
                poison[p] = max(0, poison[p] - 1)
            if distinct:
                action["note"] = f"action {index}"  # unique: no line repeats
            out.write(json.dumps(action) + "\n")


CHILD = r"""
import json, resource, sys, time, tracemalloc
mode, path = sys.argv[1], sys.argv[2]
if mode == "parse":
    start = time.perf_counter()
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            json.loads(line)
    elapsed = time.perf_counter() - start
    print(json.dumps({"seconds": elapsed}))
else:
    from lifeledger import record
    from lifeledger.state import state_dict
    if mode == "memory":
        tracemalloc.start()
    start = time.perf_counter()
    result = record.load(path, keep_history=False)
    elapsed = time.perf_counter() - start
    state = state_dict(result.game, result.refused)
    peak = tracemalloc.get_traced_memory()[1] if mode == "memory" else None
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": elapsed, "peak": peak, "rss_kib": rss,
                      "over": state["over"], "refused": len(state["refused"])}))
"""


def run(mode: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    print(
        f"{'actions':>9} {'lines':>8} {'parse s':>8} {'replay s':>9} {'ratio':>6} "
        f"{'peak KiB':>9} {'rss KiB':>8}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for size in args.sizes:
            for distinct in (False, True):
                path = Path(folder) / f"game-{size}-{distinct}.jsonl"
                generate(path, size, distinct=distinct)
                parse = min(run("parse", path)["seconds"] for _ in range(args.repeat))
                replays = [run("replay", path) for _ in range(args.repeat)]
                replay = min(r["seconds"] for r in replays)
                assert not replays[0]["over"] and not replays[0]["refused"], replays[0]
                memory = run("memory", path)
                print(
                    f"{size:>9} {'distinct' if distinct else 'game':>8} {parse:>8.3f} "
                    f"{replay:>9.3f} {replay / parse:>6.2f} "
                    f"{memory['peak'] / 1024:>9.0f} {memory['rss_kib']:>8.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

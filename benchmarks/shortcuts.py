"""Benchmark of shortcuts of any length (issue 28 item 4): ``repeat`` (732.2a) of 10^12
iterations whose triggered abilities don't depend on each other's results, settled in closed
form (``Game._do_repeat``), against the same shortcuts of 10^3 iterations (memory must not grow
with the count) and a small count played iteration by iteration (the engine's switch
``Game._settle_shortcuts`` off: what 10^12 would cost without the closed form).

The cases (two players; the cards are Ana's):

- Sanguine Bond and Ajani's Pridemate, Ana gains 1 (the issue's: malformed before, "resolve
  more than 20,000 times");
- the same with Boon Reflection (each gain doubled) and Marauding Blight-Priest;
- Exquisite Blood's opponent: Bo's Exquisite Blood, Ana's Pridemate, Ana loses 1 and gains 2;
- a game that ends part-way: Bo at 10^11 under Sanguine Bond, Ana gains 3 (Bo dies at
  iteration 33,333,333,334: the iterations before it settled, that one played, 704.5a);
- poison counters and a library: Ana draws a card and Bo gets a poison counter, Ana at
  10^12 cards in library (Bo loses at the 10th, 704.5c);
- a shortcut of 10^1000 iterations that changes nothing (the bound of ``times``).

Each case runs ``--runs`` times on a fresh game: CPU time (``time.process_time``) and wall
time of the ``repeat`` alone, then once more under ``tracemalloc`` for its peak memory;
figures are min / median / max over the runs, with the machine's 1-minute load average before
and after (the machine may be shared: read the figures with it). Goal: every 10^12 shortcut
under 0.1 s of CPU (median), its peak memory within twice the 10^3 shortcut's (PASS / MISS).

    python benchmarks/shortcuts.py              # 7 runs
    python benchmarks/shortcuts.py --runs 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from lifeledger import Game, Seat
from lifeledger.actions import Action, AddCounters, Draw, GainLife, LoseLife
from lifeledger.bounds import MAX_INTEGER
from shortcut import measure  # the same measuring as the 10^6 cases

TRILLION = 10**12

#: A case: its name, and a function of the count that makes a fresh game and its shortcut.
Case = tuple[str, Callable[[int], Callable[[], Game]]]


def shortcut(
    cards: list[tuple[str, str]],
    actions: list[Action],
    life: int = 10**13,
    library: int | None = None,
    check: Callable[[Game, int], bool] = lambda game, times: True,
) -> Callable[[int], Callable[[], Game]]:
    """A game of Ana and Bo at ``life`` with ``cards`` (name, controller), and the shortcut of
    ``actions`` to run ``times`` times; ``check`` says whether the game after it is right."""

    def make(times: int) -> Callable[[], Game]:
        game = Game([Seat("ana", library=library), Seat("bo")], version=2, starting_life=life)
        for n, (name, controller) in enumerate(cards):
            game.card(f"c{n}", name, controller)
        for pid in ("ana", "bo"):
            mine = [f"c{n}" for n, (_, c) in enumerate(cards) if c == pid]
            if len(mine) > 1:
                game.choose(pid, order=mine)

        def run() -> Game:
            game.repeat(times, *actions)
            assert check(game, times), game.notes[-1].text
            return game

        return run

    return make


def _gains_drain(game: Game, times: int) -> bool:
    return game.life_of("bo") == 10**13 - times and game.triggered["c0"] == times


def _dies(game: Game, times: int) -> bool:
    dies = 10**11 // 3 + 1  # the iteration that takes Bo from 10^11 to 0 or less
    return game.is_over() == (times >= dies) and game.triggered["c1"] == min(times, dies)


CASES: list[Case] = [
    (
        "Bond + Pridemate, gain 1",
        shortcut(
            [("Ajani's Pridemate", "ana"), ("Sanguine Bond", "ana")],
            [GainLife("ana", 1)],
            check=_gains_drain,
        ),
    ),
    (
        "+ Boon Reflection + Blight-Priest",
        shortcut(
            [
                ("Ajani's Pridemate", "ana"),
                ("Sanguine Bond", "ana"),
                ("Boon Reflection", "ana"),
                ("Marauding Blight-Priest", "ana"),
            ],
            [GainLife("ana", 1)],
            check=lambda game, times: game.life_of("bo") == 10**13 - 3 * times,
        ),
    ),
    (
        "Exquisite Blood (bo), lose 1 gain 2",
        shortcut(
            [("Ajani's Pridemate", "ana"), ("Exquisite Blood", "bo")],
            [LoseLife("ana", 1), GainLife("ana", 2)],
            check=lambda game, times: game.life_of("bo") == 10**13 + times,
        ),
    ),
    (
        "Bond, bo dies part-way (704.5a)",
        shortcut(
            [("Ajani's Pridemate", "ana"), ("Sanguine Bond", "ana")],
            [GainLife("ana", 3)],
            life=10**11,
            check=_dies,
        ),
    ),
    (
        "draw + poison (704.5c at the 10th)",
        shortcut(
            [],
            [Draw("ana", 1), AddCounters("bo", "poison", 1)],
            library=TRILLION,
            check=lambda game, times: game.player("bo").poison == min(times, 10),
        ),
    ),
]


def spread(values: list[float], scale: float, unit: str) -> str:
    low, mid, high = min(values), statistics.median(values), max(values)
    return f"{low * scale:.2f} / {mid * scale:.2f} / {high * scale:.2f} {unit}"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each case (default 7)")
    parser.add_argument(
        "--iterated", type=int, default=2_000, help="the count played iteration by iteration"
    )
    args = parser.parse_args()
    load_before = os.getloadavg()
    print(
        "load average (1/5/15 min) before: "
        + " ".join(f"{x:.2f}" for x in load_before)
        + f", {os.cpu_count()} CPUs"
    )
    print(f"{'case':38} {'CPU min/median/max':>24} {'wall min/median/max':>24} {'peak':>8}")
    ok = True
    medians: list[float] = []
    for name, make in [*CASES, ("10^1000 iterations of a gain of 0", _nothing)]:
        big = MAX_INTEGER if make is _nothing else TRILLION
        got = measure(lambda make=make, big=big: make(big), args.runs)  # type: ignore[misc]
        small = measure(lambda make=make: make(1_000), 1)  # type: ignore[misc]
        fast = statistics.median(got["cpu"]) < 0.1
        flat = got["peak"][0] <= 2 * small["peak"][0] + 16_384
        ok = ok and fast and flat
        medians.append(statistics.median(got["cpu"]))
        print(
            f"{name:38} {spread(got['cpu'], 1000, 'ms'):>24} "
            f"{spread(got['wall'], 1000, 'ms'):>24} {got['peak'][0] / 1024:>5.0f} kB"
            f"  (10^3: {small['peak'][0] / 1024:.0f} kB){'' if fast and flat else '  MISS'}"
        )
    iterated = measure(lambda: _iterated(args.iterated), 1)
    per = statistics.median(iterated["cpu"]) / args.iterated
    load_after = os.getloadavg()
    print("load average (1/5/15 min) after: " + " ".join(f"{x:.2f}" for x in load_after))
    print(
        f"iterating (Bond + Pridemate, {args.iterated:,} iterations): {per * 1e6:.1f} µs of CPU"
        f" an iteration, so 10^12 would take about {per * TRILLION / 86400 / 365:,.0f} years"
        " (and be malformed past 20,000 resolutions)"
    )
    print(
        f"all 10^12 cases: CPU medians {min(medians) * 1000:.2f} / "
        f"{statistics.median(medians) * 1000:.2f} / {max(medians) * 1000:.2f} ms (min/median/max)"
    )
    verdict = "PASS" if ok else "MISS"
    print(f"goal: every case under 0.1 s of CPU (median), peak memory flat: {verdict}")
    return 0 if ok else 1


def _nothing(times: int) -> Callable[[], Game]:
    return shortcut(
        [("Ajani's Pridemate", "ana")],
        [GainLife("ana", 0)],
        check=lambda game, _times: game.life_of("ana") == 10**13,
    )(times)


def _iterated(times: int) -> Callable[[], Game]:
    """The first case, ``times`` iterations played one by one (no closed form)."""
    played = CASES[0][1](times)

    def run() -> Game:
        was = Game._settle_shortcuts
        Game._settle_shortcuts = False
        try:
            return played()
        finally:
            Game._settle_shortcuts = was

    return run


if __name__ == "__main__":
    raise SystemExit(main())

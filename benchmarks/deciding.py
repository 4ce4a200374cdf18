"""A change decided by the table, in-process, against the engine's own apply (issue 29 item 1).

Run by hand: ``.venv/bin/python benchmarks/deciding.py [--changes 3000] [--runs 5]``.

The server's CPU per change (``benchmarks/table.py``) is the sum of receiving a phone's
message, deciding it, writing it and sending it to the table's phones. This measures the
deciding alone, with no socket and no write waited for, in the process's own thread CPU time
(``time.thread_time``: what other work on the machine takes is not counted):

- ``apply``: the engine's own work, the floor: :func:`lifeledger_table.decide.engine.apply` of
  each action (the record action read and applied, its consequences noted) on a game of the
  same setup;
- ``decide``: what the server's writer does with the same actions: :meth:`Table.decide_all`
  (admitting the request, charging the table's share, the engine, the timeline entry, the
  phones' message) and :meth:`Table.commit`, on a table in a SQLite file (which deciding never
  reads: it does no I/O).

Four players (Commander, 40 life), gains and losses of 1 that never end the game, each request
with an id of its own (as phones send them), after 200 changes not measured. ``--runs`` times,
taking turns, each in a fresh table and game; it prints min/median/max of the µs per change of
each, and of the ratio decide/apply taken run by run, with the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from lifeledger_table.decide import engine
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.decide.table import Table
from lifeledger_table.store.records import TableRow
from lifeledger_table.store.sqlite import SQLiteStore
from spread import summary

FORM = {
    "format": "commander",
    "players": [{"name": n, "commanders": [f"{n}'s commander"]} for n in ("Ana", "Bo", "Cy", "Di")],
}
WARM = 200


def actions(players: list[str], first: int, n: int) -> list[dict[str, Any]]:
    """``n`` gains and losses of 1, taking turns among ``players``: no one's total moves more
    than 1 from where it was."""
    out = []
    for i in range(first, first + n):
        kind = "gain_life" if i % 2 else "lose_life"
        out.append({"do": kind, "player": players[(i // 2) % len(players)], "amount": 1})
    return out


def decide(folder: Path, n: int) -> float:
    """µs of thread CPU per change: decided and committed by a table."""
    store = SQLiteStore(str(folder / "t.db"))
    try:
        store.create_table(TableRow("t", "wt", "Ct", build_setup(FORM), 0.0))
        table = Table(store, "t")
        players = table.player_ids()

        def play(first: int, count: int) -> None:
            for i, action in enumerate(actions(players, first, count), first):
                decided = table.decide_all("action", {"action": action}, f"c{i}", None)
                assert not isinstance(decided, int)
                for decision in decided:
                    table.commit(decision)

        play(0, WARM)
        began = time.thread_time()
        play(WARM, n)
        return (time.thread_time() - began) / n * 1e6
    finally:
        store.close()


def apply(n: int) -> float:
    """µs of thread CPU per change: the engine's apply alone."""
    game = engine.new_game(build_setup(FORM)["header"])
    players = [p.id for p in game.players]
    for position, action in enumerate(actions(players, 0, WARM)):
        engine.apply(game, action, position)
    timed = actions(players, WARM, n)
    began = time.thread_time()
    for position, action in enumerate(timed, WARM):
        engine.apply(game, action, position)
    return (time.thread_time() - began) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--changes", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    applied, decided = [], []
    for _ in range(args.runs):
        applied.append(apply(args.changes))
        with tempfile.TemporaryDirectory() as tmp:
            decided.append(decide(Path(tmp), args.changes))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print(f"{args.changes} changes a run, {args.runs} runs, thread CPU per change:")
    print(f"  apply (the engine)   {summary(applied, 'µs', 1)}")
    print(f"  decide (the table)   {summary(decided, 'µs', 1)}")
    ratios = [d / a for d, a in zip(decided, applied, strict=True)]
    print(f"  decide / apply       {summary(ratios, 'x', 2)}")


if __name__ == "__main__":
    main()

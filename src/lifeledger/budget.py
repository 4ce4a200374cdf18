"""How much work one action may do: a bound in steps, the same on every machine (so a record
replays alike everywhere), and bounds in time that an application may add: on each action, in
processor time (a table server deciding a phone's change), or on everything until an instant
(the command line's ``--time-limit`` on a whole replay).

A step is the unit the engine's costly loops are counted in: an effect looked at, a note
written, an ability resolved, a part of a group, an iteration of a shortcut played out, a
copy made to roll back. One action may take :data:`MAX_STEPS`; past it, or past the time
bound, it raises :class:`~lifeledger.errors.TooMuchWork` and nothing of it happens.
"""

from __future__ import annotations

import time

from .errors import TooMuchWork
from .sentences import Grouped, Sentence

__all__ = ["HELD", "MAX_STEPS", "Budget", "cpu_time"]

#: The processor time of the thread doing the work, in seconds: what a time limit counts,
#: whatever else the machine does. Where threads have no clock of their own (Pyodide, in the
#: browser's engine worker: one thread), the process's.
cpu_time = getattr(time, "thread_time", time.process_time)

#: The steps one action may take (``docs/record-format.md``, "How much work one action may
#: do"): a second or two of work on a small machine.
MAX_STEPS = 500_000
#: How many steps pass between two looks at the clock (a look costs less than a step) ...
CLOCK_EVERY = 256
#: ... and how many actions, for ``until`` (a replay's actions are mostly cheaper than that).
ACTIONS_EVERY = 256
#: ``next_look`` once an action makes no more looks (:meth:`Budget.hold`).
HELD = -(1 << 62)


class Budget:
    """The work left to the action being applied: ``left`` steps; where ``seconds`` is set,
    until ``cpu_deadline`` (:func:`time.thread_time`: the processor time of the thread doing
    the work, which other work on the machine doesn't use up); and where ``until`` is set,
    until that instant (:func:`time.monotonic`). The engine subtracts what it spends from
    ``left`` and calls :meth:`look` once ``left`` falls below ``next_look``."""

    __slots__ = ("countdown", "cpu_deadline", "left", "next_look", "seconds", "until")

    def __init__(self) -> None:
        #: The processor time one action may take, in seconds (``None``: no bound).
        self.seconds: float | None = None
        #: The instant (:func:`time.monotonic`) no action may work past (``None``: none).
        self.until: float | None = None
        self.cpu_deadline: float | None = None
        self.left = MAX_STEPS
        self.next_look = MAX_STEPS - CLOCK_EVERY
        self.countdown = 0

    def start(self) -> None:
        """A new action begins: the whole budget is its (none if ``until`` has passed: looked
        at every :data:`ACTIONS_EVERY` actions, and every :data:`CLOCK_EVERY` steps)."""
        self.left = steps = MAX_STEPS
        self.next_look = steps - CLOCK_EVERY if steps > CLOCK_EVERY else 0
        seconds = self.seconds
        if seconds is not None:
            self.cpu_deadline = cpu_time() + seconds
        elif self.cpu_deadline is not None:  # no time bound: usually none before either
            self.cpu_deadline = None
        if self.until is not None:
            self.countdown -= 1
            if self.countdown <= 0:
                self.countdown = ACTIONS_EVERY
                self.look()

    def hold(self) -> None:
        """No more looks in this action: what is left of it can't be stopped half-way."""
        self.next_look = HELD

    def look(self) -> None:
        """Raise :class:`TooMuchWork` if the action has spent its steps or its time."""
        if self.left < 0:
            raise TooMuchWork(
                Sentence(
                    "the action takes more than {n} steps of work (the bound of one action):"
                    " record the result it leads to (a shortcut's totals, or loop, 732.2a)",
                    n=Grouped(MAX_STEPS),
                ),
                limit="steps",
            )
        if self.cpu_deadline is not None and cpu_time() > self.cpu_deadline:
            raise TooMuchWork(
                Sentence(
                    "the action takes more than {seconds} s of work (the time bound set for"
                    " this game): nothing of it happens",
                    seconds=f"{self.seconds:g}",
                ),
                limit="seconds",
            )
        if self.until is not None and time.monotonic() > self.until:
            raise TooMuchWork(
                Sentence(
                    "the time set for this game's work ran out during this action: nothing of"
                    " it happens"
                ),
                limit="deadline",
            )
        left = self.left
        self.next_look = left - CLOCK_EVERY if left > CLOCK_EVERY else 0

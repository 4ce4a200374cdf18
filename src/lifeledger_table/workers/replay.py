"""Watching a record replay: the engine's state after each of its actions, for the table view.

A replay's answer is bounded: at most :data:`MAX_PLAYERS` players and :data:`MAX_ACTIONS`
actions, and at most :data:`MAX_BYTES` of JSON, counted as it is made (each frame is turned
into text once, as soon as it is computed, and only that text is kept). :class:`Replays` runs
a few replays at a time, each in a worker process, so that the tables being played go on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import json
import multiprocessing
import os
import resource
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from lifeledger.sentences import Sentence

from ..decide import engine
from ..decide.changes import changes
from ..decide.errors import TableError, with_sentence
from ..decide.jsontext import NotJson, strict_json
from ..decide.setup import MAX_PLAYERS

__all__ = ["MAX_ACTIONS", "MAX_BYTES", "MAX_PLAYERS", "Replays", "replay_frames", "replay_json"]

MAX_ACTIONS = 5000
T = TypeVar("T")

#: The largest answer a replay gives, in bytes.
MAX_BYTES = 8 * 1024 * 1024
#: How long a replay may take in a worker before it is given up (``"too-long"``).
MAX_SECONDS = 10.0
#: The memory a replay's worker may take (its address space), and the processor time: past
#: either the worker stops (the replay is answered ``busy``), whatever the record does; the
#: deadline above is the engine's own (lifeledger.budget), this is the operating system's.
WORKER_MEMORY = 1024 * 1024 * 1024
WORKER_SECONDS = int(MAX_SECONDS) + 5
#: How often (seconds) a worker looks whether the server that started it is still there.
WATCH_PARENT = 0.5


def limit_worker(parent: int, memory: int = WORKER_MEMORY, seconds: int = WORKER_SECONDS) -> None:
    """Bound the process calling this (a replay's worker, as it starts): at most ``memory``
    bytes of address space and ``seconds`` of processor time, and an end as soon as the
    process ``parent`` (the server) is gone, even killed with SIGKILL: a worker never outlives
    its server (issue 18 item 5: orphaned workers ran on for 26 minutes at 3.5 GB each)."""
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_PARENT)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _strict(text: str) -> Any:
    return strict_json(text)  # no NaN, no repeated members, bounded nesting


def _document(text: str) -> dict[str, Any]:
    """A record's text, in either shape, as a document."""
    try:
        obj = _strict(text)
    except (ValueError, RecursionError):
        obj = None
    if isinstance(obj, dict):
        return obj
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        items = [_strict(line) for line in lines]
    except NotJson as exc:
        raise TableError(
            "malformed", Sentence("This is not a game record (JSON): {error}", error=exc.words)
        ) from exc
    if not items or not all(isinstance(item, dict) for item in items):
        raise TableError("malformed", Sentence("This is not a game record: expected JSON objects."))
    return {**items[0], "actions": items[1:]}


def replay_json(text: str, max_bytes: int = MAX_BYTES, seconds: float = MAX_SECONDS) -> bytearray:
    """The replay of a record as JSON (UTF-8): ``{"header": ..., "frames": [...]}``, the
    header and, for the start and after each action, the engine's state.

    A refused action keeps the state and carries its rule; a malformed record raises
    :class:`TableError` naming the action's position and member, as the engine does; so does
    a record with too many players or actions, and one whose answer would pass ``max_bytes``
    (``"too-large"``, found as the answer is made, before it gets any bigger).
    """
    document = _document(text)
    actions = document.pop("actions", [])
    document.pop("note", None)
    if not isinstance(actions, list):
        raise TableError("malformed", Sentence('"actions" is a list.'), member="actions")
    if len(actions) > MAX_ACTIONS:
        raise TableError(
            "malformed",
            Sentence("A record to watch has at most {n} actions.", n=MAX_ACTIONS),
        )
    players = document.get("players")
    if isinstance(players, list) and len(players) > MAX_PLAYERS:
        raise TableError(
            "malformed",
            Sentence("A record to watch has at most {n} players.", n=MAX_PLAYERS),
            member="players",
        )
    try:
        engine.check_header(document)
        game = engine.new_game(document)
    except engine.MalformedError as exc:
        raise TableError("malformed", engine.said(exc), member=exc.member) from exc
    out = bytearray()

    def add(text: str) -> None:
        out.extend(text.encode())
        if len(out) > max_bytes:
            raise TableError(
                "too-large",
                Sentence(
                    "This record's replay is larger than {n} MB; split it into shorter records "
                    "to watch it.",
                    n=max_bytes // (1024 * 1024),
                ),
            )

    state = engine.state_of(game)
    add(f'{{"header": {json.dumps(document)}, "frames": [')
    first = {"position": None, "action": None, "state": state, "effects": engine.effects(game)}
    add(json.dumps(first))
    # Each action is bounded (lifeledger.budget), but a record of thousands of costly actions
    # would hold a worker for hours: the whole replay has a deadline, which the engine keeps
    # inside an action too (a shortcut's iterations, a stack of triggers).
    game.deadline = time.monotonic() + seconds
    for position, action in enumerate(actions):
        before = state
        refused = None
        notes: list[dict[str, Any]] = []
        try:
            if not isinstance(action, dict):
                raise engine.MalformedError("an action is a JSON object", position=str(position))
            notes = engine.apply(game, action, position)
        except engine.RefusedError as exc:
            refused = with_sentence({"rule": exc.rule, "message": exc.message})
        except engine.TooMuchWork as exc:
            if exc.limit != "deadline":
                raise TableError(
                    "malformed", engine.said(exc.at(str(position))), member="do"
                ) from exc
            raise TableError(
                "too-long",
                Sentence(
                    "This record takes more than {seconds} s to replay here (at action "
                    "{position}); replay it with `lifeledger replay`.",
                    seconds=f"{seconds:g}",
                    position=position,
                ),
            ) from exc
        except engine.MalformedError as exc:
            raise TableError(
                "malformed",
                engine.said(exc.at(str(position)) if exc.position is None else exc),
                member=exc.member,
            ) from exc
        state = engine.state_of(game)
        frame = {
            "position": position,
            "action": action,
            "state": state,
            "changes": changes(before, state),
            "refused": refused,
            "notes": notes,
            "effects": engine.effects(game),
        }
        add(", " + json.dumps(frame))
    add("]}")
    return out


def replay_frames(text: str) -> dict[str, Any]:
    """The replay of a record (see :func:`replay_json`) as a JSON object."""
    result: dict[str, Any] = json.loads(replay_json(text))
    return result


class Replays:
    """At most ``at_once`` replays at a time, each in a worker process: a replay is pure
    computation, which in a thread of the server's process would hold the interpreter's lock
    and slow every table; in a process of its own it runs beside them (on another core, where
    there is one). A replay that finds every worker busy waits up to ``wait`` seconds, then is
    answered ``busy``. ``executor`` replaces the pool of processes (a test's threads)."""

    def __init__(
        self,
        at_once: int = 2,
        wait: float = 2.0,
        max_bytes: int = MAX_BYTES,
        executor: concurrent.futures.Executor | None = None,
    ) -> None:
        self.at_once = at_once
        self.slots = threading.BoundedSemaphore(at_once)
        self.wait = wait
        self.max_bytes = max_bytes
        self.executor = executor

    def _pool(self) -> concurrent.futures.Executor:
        if self.executor is None:  # made on first use: most servers never replay a record
            # One replay per worker: its processor time is bounded from its start, and the
            # memory a record took goes back with it.
            self.executor = concurrent.futures.ProcessPoolExecutor(
                self.at_once,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=limit_worker,
                initargs=(os.getpid(),),
                max_tasks_per_child=1,
            )
        return self.executor

    async def run(self, text: str) -> bytearray:
        """The replay of ``text`` (see :func:`replay_json`); raises :class:`TableError`."""
        try:
            return await self.work(
                replay_json,
                text,
                self.max_bytes,
                busy=Sentence("Other records are being replayed; try again shortly."),
                broken=Sentence("The replay could not be finished; try again."),
            )
        except MemoryError as exc:
            raise TableError(
                "too-large",
                Sentence(
                    "This record takes more memory to replay than a replay may take here; "
                    "replay it with `lifeledger replay`."
                ),
            ) from exc

    async def work(self, call: Callable[..., T], *args: Any, busy: Sentence, broken: Sentence) -> T:
        """``call(*args)`` in a worker process, in one of the slots replays take (a table shared
        from a device is decided the same way): ``busy`` (refused ``busy``) when every slot
        stays taken, ``broken`` when the worker dies (killed, out of time or memory)."""
        deadline = time.monotonic() + self.wait
        while not self.slots.acquire(blocking=False):
            if time.monotonic() >= deadline:
                raise TableError("busy", busy)
            await asyncio.sleep(0.05)
        try:
            future = self._pool().submit(call, *args)
        except BaseException:
            self.slots.release()
            raise
        # The slot is given back when the work is done, even if the client has gone.
        future.add_done_callback(lambda _: self.slots.release())
        try:
            return await asyncio.wrap_future(future)
        except concurrent.futures.process.BrokenProcessPool as exc:
            self.executor = None  # a worker died (killed, out of time): a new pool next time
            raise TableError("busy", broken) from exc

    def close(self) -> None:
        """Stop the workers (the server is stopping)."""
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None

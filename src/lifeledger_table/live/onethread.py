"""A thread of its own for the event loop's calls of one kind (the writer's writes), one at a
time, in the order they were made.

A pool's thread (``loop.run_in_executor``) costs more on each call than the call's own work at
a few hundred writes a second (issue 29 item 1): a work item, a future of the pool's with its
condition and the pool's semaphore, a second future on the event loop chained to it. Here a
call is a queue's item and its answer one callback on the loop (measured on the 2-core server:
about 28 us of processor time a round trip against 47 us). The thread starts at the first call
and ends once it has been idle for :data:`IDLE_SECONDS` (the next call starts it again), or at
:meth:`OneThread.close`.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["IDLE_SECONDS", "OneThread"]

#: How long the thread waits for a call before it ends (a server with nothing to write holds
#: no thread; a test's writer never closed leaves none behind for long).
IDLE_SECONDS = 30.0

T = TypeVar("T")

#: A call: the event loop to answer on, its future there, the function and its arguments.
_Call = tuple[asyncio.AbstractEventLoop, "asyncio.Future[Any]", Callable[..., Any], tuple[Any, ...]]


class OneThread:
    """Runs the calls given to :meth:`call` in one thread, in order, one at a time."""

    def __init__(self, name: str, idle: float = IDLE_SECONDS) -> None:
        self.name = name
        self.idle = idle
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        #: Guards starting and ending the thread (a call given as it ends is never left).
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def call(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Run ``fn(*args)`` in the thread, after the calls given before; its result (or what
        it raised) is the returned future's, set on the running event loop. Cancelling the
        future does not stop the call (as with a pool's thread)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            if self._closed:
                raise RuntimeError(f"{self.name}: closed, takes no more calls")
            self._calls.put((loop, future, fn, args))
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
                self._thread.start()
        return future

    def close(self, wait: float = 5.0) -> None:
        """Take no more calls; the thread ends after those given (waited for up to ``wait``
        seconds: a write under way is finished before its store is closed)."""
        with self._lock:
            self._closed = True
            thread = self._thread
            if thread is not None:
                self._calls.put(None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(wait)

    def _serve(self) -> None:
        while True:
            try:
                item = self._calls.get(timeout=self.idle)
            except queue.Empty:
                with self._lock:
                    if self._calls.empty():
                        self._thread = None
                        return
                continue
            if item is None:
                return
            loop, future, fn, args = item
            try:
                result, error = fn(*args), None
            except BaseException as exc:  # given to the caller, as a pool's thread does
                result, error = None, exc
            # A closed event loop refuses it (RuntimeError): nobody waits for the answer.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, future, result, error)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """On the event loop: a call's answer, unless its future was cancelled meanwhile."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)

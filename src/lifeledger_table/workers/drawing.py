"""QR codes drawn in a worker process (issue 18 item 1).

segno is pure Python: a code takes some 8 ms, and in a thread it would hold the interpreter's
lock meanwhile, so every table would wait as long as on the event loop. A worker process
(made on first use; this module imports nothing of the app, so it starts in a fraction of a
second) draws them, one at a time; at most :data:`WAITING` wait their turn, more are refused
``busy``. A worker ends as soon as the server that started it is gone, and is replaced after
:data:`TASKS_PER_WORKER` codes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import io
import multiprocessing
import os
import threading
import time

import segno

__all__ = ["TASKS_PER_WORKER", "WAITING", "Drawing", "DrawingBusy", "qr_svg"]

#: QR codes waiting for the worker at most.
WAITING = 8
#: QR codes a worker draws before it is replaced (what it took goes back with it).
TASKS_PER_WORKER = 1000


class DrawingBusy(Exception):
    """Too many pictures wait to be drawn, or the worker failed: try again shortly."""


def qr_svg(url: str) -> tuple[bytes, float]:
    """A QR code of ``url`` as SVG, and the seconds it took to draw."""
    start = time.perf_counter()
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, dark="#111", light="#fff")
    return out.getvalue(), time.perf_counter() - start


def _watch_parent(parent: int) -> None:
    """A worker's start: it ends as soon as the server ``parent`` is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


class Drawing:
    """The worker process that draws QR codes, made on first use."""

    def __init__(self, executor: concurrent.futures.Executor | None = None) -> None:
        self.executor = executor
        self.waiting = 0

    def _pool(self) -> concurrent.futures.Executor:
        if self.executor is None:
            self.executor = concurrent.futures.ProcessPoolExecutor(
                1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_parent,
                initargs=(os.getpid(),),
                max_tasks_per_child=TASKS_PER_WORKER,
            )
        return self.executor

    async def qr(self, url: str) -> tuple[bytes, float]:
        """A QR code of ``url`` (see :func:`qr_svg`); raises :class:`DrawingBusy`."""
        if self.waiting >= WAITING:
            raise DrawingBusy
        self.waiting += 1
        try:
            return await asyncio.wrap_future(self._pool().submit(qr_svg, url))
        except concurrent.futures.process.BrokenProcessPool as exc:
            self.executor = None  # the worker died: a new one next time
            raise DrawingBusy from exc
        finally:
            self.waiting -= 1

    def close(self) -> None:
        """Stop the worker (the server is stopping)."""
        if self.executor is not None:
            self.executor.shutdown(wait=False, cancel_futures=True)
            self.executor = None

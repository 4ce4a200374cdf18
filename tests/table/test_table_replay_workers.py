"""Issue 18 item 5 (and issue 21 item 3's family): a replay's worker never outlives its
server, and is bounded in memory and processor time by the operating system, whatever the
record does (after their servers were killed with SIGKILL, four orphaned workers ran on for
26 minutes at 3.5 GB each, and another grew to 19.6 GB)."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lifeledger_table.workers.replay import limit_worker

#: A server stand-in: starts the replay workers, replays a record that keeps a worker busy,
#: prints the workers' process ids, and waits to be killed.
SERVER = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from lifeledger_table.workers.replay import Replays

    busy = [{"do": "lose_life", "player": "p1", "amount": 0}] * 1000
    record = json.dumps({"record": 2, "players": [{"id": "p0"}, {"id": "p1"}],
                         "actions": [{"do": "repeat", "times": 400, "actions": busy}] * 4000})

    async def main():
        replays = Replays(at_once=2)
        tasks = [asyncio.ensure_future(replays.run(record)) for _ in range(2)]
        for _ in range(200):
            await asyncio.sleep(0.05)
            pids = list(replays.executor._processes)
            if len(pids) == 2:
                break
        print(json.dumps(pids), flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status")
    return not status.exists() or "State:\tZ" not in status.read_text()


def test_replay_workers_die_with_a_server_killed_with_sigkill(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True, cwd=tmp_path
    )
    try:
        assert server.stdout is not None
        workers = json.loads(server.stdout.readline())
        assert len(workers) == 2 and all(alive(pid) for pid in workers)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(alive(pid) for pid in workers)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def _grow_past(limit: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    limit_worker(os.getppid(), memory=limit, seconds=60)
    try:
        hoard = [bytearray(64 * 1024 * 1024) for _ in range(limit // (64 * 1024 * 1024) + 2)]
        out.put(f"grew to {len(hoard) * 64} MB")
    except MemoryError:
        out.put("MemoryError")


def _spin(out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    limit_worker(os.getppid(), seconds=1)
    out.put("started")
    while True:
        pass


@pytest.mark.parametrize("limit_mb", [512])
def test_a_replay_worker_s_memory_is_bounded(limit_mb: int) -> None:
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    worker = context.Process(target=_grow_past, args=(limit_mb * 1024 * 1024, out))
    worker.start()
    try:
        assert out.get(timeout=60) == "MemoryError"
    finally:
        worker.join(30)


def test_a_replay_worker_s_processor_time_is_bounded() -> None:
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    worker = context.Process(target=_spin, args=(out,))
    worker.start()
    assert out.get(timeout=60) == "started"
    worker.join(30)
    assert worker.exitcode is not None and worker.exitcode < 0  # ended by a signal (SIGXCPU)

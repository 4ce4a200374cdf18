"""The internal listener (issue 26 items 3 and 8): it had no limits (20,000 held
half-requests used up the server's descriptors, and the log grew by an ``accept()``
traceback each), it listened even for a single SQLite server, and ``--internal`` start-up
errors were tracebacks or named ``--port`` and ``--host``, after the store was opened. Now it
has the public listener's caps and header timeout, logs a flood once per condition, is not
opened where no other process can follow, and ``--internal`` is checked before the store is
opened: one line naming it, exit status 2, no database file made."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from table_helpers import SharedStore

from lifeledger_table.decide.limits import Limits
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import create_app, serve
from lifeledger_table.web import connections
from lifeledger_table.web.connections import (
    QUIET,
    AcceptErrors,
    InternalUnavailable,
    Tally,
    serve_internal,
)

Client = TestClient[Any, Any]
#: A PostgreSQL URL that is never reached: ``--internal`` is refused before the store opens.
NOWHERE = "postgresql://nobody@127.0.0.1:1/none"


# -- item 3: no listener where nothing can follow; the public listener's caps ----------------


@pytest.mark.asyncio
async def test_a_single_sqlite_server_opens_no_internal_listener(client: Client) -> None:
    """Rule (issue 26 item 3): no internal listener where no other process can follow (a
    store no other process shares: an SQLite file)."""
    owners = client.app[HUB_KEY].owners
    assert owners.runner is None and owners.address == ""
    assert owners.secret  # the leases and their renewal work as before


def _half_request(host: str, port: int) -> socket.socket:
    sock = socket.create_connection((host, port), timeout=10)
    sock.sendall(b"GET /link HTTP/1.1\r\nHost: x\r\nX-Slow: ")
    return sock


@pytest.mark.asyncio
async def test_the_internal_listener_has_the_public_listeners_caps(
    aiohttp_client: Callable[..., Any], db: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Rule (issue 26 item 3): the internal listener has the public one's caps: connections
    per address (over it: 503 at once, closed), in all (counted with the public listener's:
    the same descriptors), and the header timeout (a half-request is cut off); the
    refusals are logged once, not once each."""
    limits = Limits(connections_per_address=3, header_seconds=0.5)
    client: Client = await aiohttp_client(create_app(SharedStore(db, []), limits))
    owners = client.app[HUB_KEY].owners
    host, port = owners.address.rsplit(":", 1)
    loop = asyncio.get_running_loop()
    held = [await loop.run_in_executor(None, _half_request, host, int(port)) for _ in range(3)]
    await asyncio.sleep(0.1)
    with caplog.at_level(logging.WARNING, logger="lifeledger_table"):
        refused = []
        for _ in range(5):
            sock = await loop.run_in_executor(None, _half_request, host, int(port))
            answer = await loop.run_in_executor(None, sock.recv, 4096)
            refused.append(answer)
            sock.close()
    assert all(a.startswith(b"HTTP/1.1 503") for a in refused)
    lines = [r for r in caplog.records if "over the caps" in r.getMessage()]
    assert len(lines) == 1  # one line for the five (the next, a minute later at the soonest)

    # The header timeout (0.5 s, spread to at most 0.75 s): the half-requests are cut off.
    def cut_off(sock: socket.socket) -> float:
        start = time.monotonic()
        sock.settimeout(10)
        with contextlib.suppress(OSError):
            sock.recv(4096)
        sock.close()
        return time.monotonic() - start

    waited = [await loop.run_in_executor(None, cut_off, s) for s in held]
    assert max(waited) < 5
    await asyncio.sleep(0.2)
    sock = await loop.run_in_executor(None, _half_request, host, int(port))
    sock.settimeout(0.3)
    with pytest.raises(TimeoutError):  # counted out: a new one is let in (and waits)
        sock.recv(4096)
    sock.close()


@pytest.mark.asyncio
async def test_a_flood_of_the_internal_listener_never_takes_the_public_ones(db: str) -> None:
    """Rule (issue 26 item 3): each listener has its caps, the descriptors shared between
    them: the internal listener full (at its cap in all), phones still connect to the
    public one (20,000 held half-requests used to keep new phones out); and past that cap
    the internal listener accepts nothing (no connection accepted only to be refused: they
    wait in the system's backlog) until one of its connections ends."""
    limits = Limits(connections=3, connections_per_address=8, header_seconds=30.0)
    runner, guard = await serve(create_app(SharedStore(db, []), limits), "127.0.0.1", 0)
    try:
        owners = runner.app[HUB_KEY].owners
        assert owners.runner is not None
        (site,) = owners.runner.sites
        assert isinstance(site, connections.GatedSite)
        inside = site.guard
        host, port = owners.address.rsplit(":", 1)
        public = runner.addresses[0][1]
        loop = asyncio.get_running_loop()
        held = [await loop.run_in_executor(None, _half_request, host, int(port)) for _ in range(3)]
        await asyncio.sleep(0.2)
        assert inside.count == 3 and not inside.room.is_set()
        waiting = await loop.run_in_executor(None, _half_request, host, int(port))
        waiting.sendall(b"x\r\n\r\n")  # a whole request now (not shown the secret)
        waiting.settimeout(0.5)
        with pytest.raises(TimeoutError):  # not accepted: no answer, not even a 503
            await loop.run_in_executor(None, waiting.recv, 4096)
        assert inside.count == 3 and inside.refused == 0
        url = f"http://127.0.0.1:{public}/api/catalogue"
        async with aiohttp.ClientSession() as http, http.get(url) as res:
            assert res.status == 200
        assert guard.refused == 0
        held[0].close()  # a connection ends: the one waiting is accepted, and answered
        waiting.settimeout(10)
        answer = await loop.run_in_executor(None, waiting.recv, 4096)
        assert answer.startswith(b"HTTP/1.1 403") and inside.refused == 0
        for s in [waiting, *held[1:]]:
            s.close()
    finally:
        await runner.cleanup()


def test_the_descriptors_are_shared_between_the_listeners(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule (issue 26 item 3): under a low descriptor limit, the two listeners' caps in all
    together leave the spare descriptors free (a flood of both never uses them up)."""
    monkeypatch.setattr(connections.resource, "getrlimit", lambda _which: (1024, 4096))
    limits = Limits(spare_descriptors=64)
    assert connections.descriptor_budget(limits) == 960
    assert connections.descriptor_budget(limits, 2) == 480


@pytest.mark.asyncio
async def test_unauthenticated_requests_to_the_internal_listener_are_paced(
    aiohttp_client: Callable[..., Any], db: str
) -> None:
    """Rule (issue 26 item 3): the internal listener's error answers (a request not shown
    the store's secret) are paced per address as the public listener's are: past the
    address's budget each waits the error delay (an unauthenticated flood alone was 3.05x
    another table's p99), and each is JSON."""
    limits = Limits(errors_per_address=2, error_delay=0.4)
    client: Client = await aiohttp_client(create_app(SharedStore(db, []), limits))
    address = client.app[HUB_KEY].owners.address
    took = []
    async with aiohttp.ClientSession() as http:
        for _ in range(4):
            start = time.monotonic()
            async with http.get(f"http://{address}/link") as res:
                assert res.status == 403
                assert (await res.json())["error"] == "forbidden"
            took.append(time.monotonic() - start)
    assert max(took[:2]) < 0.19 and min(took[2:]) >= 0.19  # the delay, give or take half


def test_accept_errors_are_logged_once_per_condition(caplog: pytest.LogCaptureFixture) -> None:
    """Rule (issue 26 item 3): errors accepting connections (descriptors used up) are one
    log line per condition a minute, with their count, and no traceback; other errors go
    to the handler that was there before."""
    loop = asyncio.new_event_loop()
    passed: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: passed.append(context))
    now = [100.0]
    handler = AcceptErrors(loop, clock=lambda: now[0])
    full = OSError(errno.EMFILE, "Too many open files")
    short = OSError(errno.ENOBUFS, "No buffer space available")
    try:
        with caplog.at_level(logging.ERROR, logger="lifeledger_table"):
            for _ in range(10_000):
                handler(
                    loop, {"message": "socket.accept() out of system resource", "exception": full}
                )
            handler(loop, {"message": "socket.accept() out of system resource", "exception": short})
            now[0] += QUIET
            handler(loop, {"message": "socket.accept() out of system resource", "exception": full})
            handler(loop, {"message": "Task exception was never retrieved"})
    finally:
        loop.close()
    lines = [r for r in caplog.records if "socket.accept()" in r.getMessage()]
    assert len(lines) == 3  # EMFILE, ENOBUFS, and EMFILE again a minute later
    assert "9999 more" in lines[2].getMessage()
    assert all(r.exc_info is None for r in lines)
    assert passed == [{"message": "Task exception was never retrieved"}]


def test_refusals_over_the_caps_are_logged_once_a_minute(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Rule (issue 26 item 3): one log line per condition, not per connection."""
    now = [0.0]
    tally = Tally(clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="lifeledger_table"):
        for _ in range(1000):
            tally.refused("203.0.113.9")
        now[0] += QUIET
        tally.refused("203.0.113.9")
    lines = [r.getMessage() for r in caplog.records if "over the caps" in r.getMessage()]
    assert len(lines) == 2 and lines[1].startswith("refused 1000 connection(s)")


@pytest.mark.asyncio
async def test_an_internal_port_taken_is_the_internal_listeners_error() -> None:
    """Rule (issue 26 item 8): a port taken since it was checked is said as
    ``--internal``'s (:class:`InternalUnavailable`), not the public port's."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(InternalUnavailable):
            await serve_internal(web.Application(), "127.0.0.1", port, Limits())


# -- item 8: --internal checked before the store is opened ---------------------------------------


def start(tmp_path: Path, db: str | None, *args: str) -> tuple[int, str, bool]:
    """Run ``python -m lifeledger_table`` with ``args``: its exit status, its stderr, and
    whether a database file was made."""
    path = tmp_path / "tables.db"
    proc = subprocess.run(
        [sys.executable, "-m", "lifeledger_table", "--db", db or str(path), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.returncode, proc.stderr, path.exists()


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("lifeledger serve: --internal "), stderr
    return lines[0]


@pytest.mark.parametrize("given", ["1.2.3.4:99999", "127.0.0.1:65536", "0.0.0.0:9001", "x:y"])
def test_a_malformed_internal_address_is_one_line(tmp_path: Path, given: str) -> None:
    """Rule (issue 26 item 8): one line naming ``--internal``, exit status 2, no database
    file (``1.2.3.4:99999`` printed a 44-line traceback)."""
    status, stderr, made = start(tmp_path, None, "--port", "0", "--internal", given)
    line = one_line(stderr)
    assert status == 2 and not made
    assert f"--internal {given}" in line


def test_an_internal_address_with_an_sqlite_store_is_one_line(tmp_path: Path) -> None:
    """Rule (issue 26 items 3 and 8): an SQLite file is served by one process, which opens
    no internal listener: ``--internal`` with one is a usage error, before the file is made."""
    status, stderr, made = start(tmp_path, None, "--port", "0", "--internal", "127.0.0.1:9001")
    line = one_line(stderr)
    assert status == 2 and not made
    assert "PostgreSQL" in line


def test_an_internal_port_in_use_is_one_line_naming_internal(tmp_path: Path) -> None:
    """Rule (issue 26 item 8): an internal port in use is ``--internal``'s error (it was
    reported as ``--port``'s), found before the store is opened."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        given = f"127.0.0.1:{port}"
        status, stderr, _ = start(tmp_path, NOWHERE, "--port", "0", "--internal", given)
    line = one_line(stderr)
    assert status == 2
    assert f"--internal {given}" in line and "in use" in line and "--port" not in line


@pytest.mark.parametrize(
    ("given", "said"),
    [("192.0.2.1:9001", "not an address of this machine"), ("no-such.invalid", "unknown host")],
)
def test_a_foreign_internal_address_is_one_line_naming_internal(
    tmp_path: Path, given: str, said: str
) -> None:
    """Rule (issue 26 item 8): an address not of this machine (TEST-NET-1), or a host that
    doesn't resolve, is ``--internal``'s error (it was reported as ``--host``'s)."""
    status, stderr, _ = start(tmp_path, NOWHERE, "--port", "0", "--internal", given)
    line = one_line(stderr)
    assert status == 2
    assert f"--internal {given}" in line and said in line and "--host" not in line


def test_a_free_internal_address_passes_the_check(tmp_path: Path) -> None:
    """The check refuses only what can't be listened on: a free loopback port goes on to
    open the store (here one that can't be reached: its own error, not ``--internal``'s)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    given = f"127.0.0.1:{port}"
    status, stderr, _ = start(tmp_path, NOWHERE, "--port", "0", "--internal", given)
    assert "--internal" not in stderr and "Traceback" not in stderr and status != 0

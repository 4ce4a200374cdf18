"""The documented first command lets phones in (issue 17, item 1): ``make run`` listens on every
interface (``make run HOST=127.0.0.1`` keeps it to this machine), and the terminal shows the
address phones open with a QR code of it; a server only this machine can reach says so, and how
to let the phones in."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import segno

from lifeledger_table.web.lan import LOCAL_ONLY, lan_address, phone_url, terminal_qr

ROOT = Path(__file__).resolve().parents[2]


def run_command(*assignments: str, env: dict[str, str] | None = None) -> str:
    """The command ``make run`` runs (``make -n``: printed, not run), with ``assignments``
    (``HOST=127.0.0.1``) on make's command line and ``env`` in its environment."""
    out = subprocess.run(
        ["make", "-n", "run", *assignments],
        cwd=ROOT,
        env={**{k: v for k, v in os.environ.items() if k not in ("HOST", "PORT")}, **(env or {})},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return next(line for line in out.splitlines() if "lifeledger serve" in line)


def test_make_run_listens_on_the_lan_and_host_keeps_it_local() -> None:
    assert "serve --host 0.0.0.0 --port 8000" in run_command()
    assert "serve --host 127.0.0.1 --port 8000" in run_command("HOST=127.0.0.1")
    assert "--port 8123" in run_command("PORT=8123")


def test_a_host_in_the_environment_changes_nothing() -> None:
    """Some shells export HOST as the machine's name (which Debian resolves to 127.0.1.1, where
    no phone reaches): only make's own command line sets where ``make run`` listens."""
    assert "serve --host 0.0.0.0 --port 8000" in run_command(env={"HOST": "myhost", "PORT": "1"})


def modules(drawn: str) -> list[list[bool]]:
    """The dark modules of a QR code drawn by :func:`terminal_qr` (two rows a line; a block
    character is a light module)."""
    top = {" ": True, "▄": True, "▀": False, "█": False}
    bottom = {" ": True, "▀": True, "▄": False, "█": False}
    rows: list[list[bool]] = []
    for line in drawn.splitlines():
        rows.append([top[c] for c in line])
        rows.append([bottom[c] for c in line])
    return rows


def test_the_terminal_qr_code_is_the_phone_address() -> None:
    url = phone_url("http", "192.168.1.23", 8000)
    code = segno.make(url, error="m")
    drawn = modules(terminal_qr(url))
    border = (len(drawn[0]) - code.symbol_size(border=0)[0]) // 2
    inner = [row[border:-border] for row in drawn[border : border + len(code.matrix)]]
    assert inner == [[bool(m) for m in row] for row in code.matrix]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def serving(host: str, tmp_path: Path) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """``lifeledger serve`` on a free port, once it has said where it listens (its first
    line, read here). A port found free may be taken by another test before the server binds
    it: the server then exits at once (nothing printed), and another port is tried."""
    for _ in range(5):
        port = free_port()
        serve = ["--host", host, "--port", str(port), "--db", str(tmp_path / "t.db")]
        proc = subprocess.Popen(
            [sys.executable, "-m", "lifeledger_table", *serve],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout is not None
        if proc.stdout.readline():  # where it listens
            break
        proc.wait(timeout=10)
    else:
        raise AssertionError("lifeledger serve found no free port in five tries")
    try:
        yield port, proc
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def test_serving_on_the_lan_prints_a_qr_code_of_the_phones_address(tmp_path: Path) -> None:
    found = lan_address()
    with serving("0.0.0.0", tmp_path) as (port, proc):
        assert proc.stdout is not None
        proc.stdout.readline()  # the address phones open
        if found is None:
            return
        code = terminal_qr(phone_url("http", found, port)).splitlines()
        assert [proc.stdout.readline().rstrip("\n") for _ in code] == code


def test_serving_on_this_machine_only_says_phones_cant_join_and_how_to_fix_it(
    tmp_path: Path,
) -> None:
    with serving("127.0.0.1", tmp_path) as (_, proc):
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == LOCAL_ONLY
    assert "make run" in LOCAL_ONLY and "--host 0.0.0.0" in LOCAL_ONLY

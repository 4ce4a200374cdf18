"""``lifeledger serve`` refusing to start (issue 21 item 9): a port in use, a missing
``--cert`` file, an unknown host, a port above 65535 printed a traceback. Each is one line on
stderr naming the fix, with a nonzero exit status, and is found before the store is opened
(no database file is made)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest


def serve(tmp_path: Path, *args: str) -> tuple[int, str, bool]:
    """Run ``python -m lifeledger_table`` with ``args``: its exit status, its stderr, and
    whether it made the database file."""
    db = tmp_path / "tables.db"
    proc = subprocess.run(
        [sys.executable, "-m", "lifeledger_table", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc.returncode, proc.stderr, db.exists()


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("lifeledger serve: "), stderr
    return lines[0]


def test_a_port_in_use_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, stderr, made = serve(tmp_path, "--host", "127.0.0.1", "--port", str(port))
    line = one_line(stderr)
    assert status != 0 and not made
    assert f"port {port}" in line and "in use" in line and "--port" in line


def test_a_missing_cert_file_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "cert.pem"
    args = ("--port", "8000", "--cert", str(missing), "--key", str(tmp_path / "key.pem"))
    status, stderr, made = serve(tmp_path, *args)
    line = one_line(stderr)
    assert status != 0 and not made
    assert f"--cert {missing}" in line and "no such file" in line and "mkcert" in line


def test_a_cert_that_is_not_a_certificate_is_one_line(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert.write_text("not a certificate\n")
    key.write_text("not a key\n")
    status, stderr, made = serve(tmp_path, "--cert", str(cert), "--key", str(key))
    line = one_line(stderr)
    assert status != 0 and not made
    assert "--cert" in line and "--key" in line and "PEM" in line


def test_an_unknown_host_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    status, stderr, made = serve(tmp_path, "--host", "no-such-host.invalid", "--port", "8000")
    line = one_line(stderr)
    assert status != 0 and not made
    assert "--host no-such-host.invalid" in line and "0.0.0.0" in line


def test_a_host_not_of_this_machine_is_one_line(tmp_path: Path) -> None:
    status, stderr, made = serve(tmp_path, "--host", "192.0.2.1", "--port", "8000")
    line = one_line(stderr)  # TEST-NET-1: never an address of this machine
    assert status != 0 and not made
    assert "--host 192.0.2.1" in line and "0.0.0.0" in line


@pytest.mark.parametrize("port", ["65536", "70000", "-1"])
def test_a_port_out_of_range_is_one_line_naming_the_fix(tmp_path: Path, port: str) -> None:
    status, stderr, made = serve(tmp_path, "--port", port)
    line = one_line(stderr)
    assert status != 0 and not made
    assert f"--port {port}" in line and "1 to 65535" in line


def test_a_cert_that_is_a_directory_is_one_line(tmp_path: Path) -> None:
    status, stderr, made = serve(tmp_path, "--cert", str(tmp_path), "--key", str(tmp_path))
    line = one_line(stderr)
    assert status != 0 and not made
    assert f"--cert {tmp_path}: not a file" in line

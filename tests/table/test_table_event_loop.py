"""The server's event loop (issue 29 item 1): ``lifeledger serve`` runs on uvloop when it can be
imported, on asyncio's own loop with ``LIFELEDGER_LOOP=asyncio``, and says which at start; a
value it does not know, or uvloop asked for and missing, is one line naming the variable, before
the store is opened."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from lifeledger_table import server
from lifeledger_table.server import LOOP_VARIABLE, event_loop, run_loop

uvloop: Any
try:
    import uvloop
except ImportError:  # the table extra installs it; the tests of asyncio's loop still run
    uvloop = None

needs_uvloop = pytest.mark.skipif(uvloop is None, reason="uvloop is not installed")


@needs_uvloop
@pytest.mark.parametrize("value", [None, "", "auto", "uvloop", " UVLOOP "])
def test_uvloop_is_the_loop_when_importable_unless_turned_off(value: str | None) -> None:
    assert uvloop is not None
    chosen = event_loop({} if value is None else {LOOP_VARIABLE: value})
    assert chosen.name == f"uvloop {uvloop.__version__}"
    assert chosen.factory is uvloop.new_event_loop


def test_asyncio_s_loop_when_asked() -> None:
    chosen = event_loop({LOOP_VARIABLE: "asyncio"})
    assert chosen.name == "asyncio" and chosen.factory is None


def test_without_uvloop_auto_falls_back_and_uvloop_asked_for_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # importing it raises ImportError
    assert event_loop({}).name == "asyncio"
    with pytest.raises(SystemExit) as stopped:
        event_loop({LOOP_VARIABLE: "uvloop"})
    line = str(stopped.value)
    assert line.startswith("lifeledger serve: LIFELEDGER_LOOP=uvloop: uvloop can't be imported")
    assert "unset the variable" in line


def test_an_unknown_loop_is_one_line_naming_the_variable_and_no_store_is_made(
    tmp_path: Path,
) -> None:
    db = tmp_path / "tables.db"
    proc = subprocess.run(
        [sys.executable, "-m", "lifeledger_table", "--port", "0", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, LOOP_VARIABLE: "tokio"},
    )
    assert proc.returncode != 0 and not db.exists()
    assert proc.stderr.strip().splitlines() == [
        "lifeledger serve: LIFELEDGER_LOOP='tokio': the event loop is uvloop, asyncio or auto"
        " (uvloop when installed)"
    ]


@pytest.mark.parametrize("kind", ["asyncio", pytest.param("uvloop", marks=needs_uvloop)])
def test_run_loop_runs_on_the_loop_chosen(kind: str) -> None:
    seen: list[str] = []

    async def main() -> None:
        seen.append(type(asyncio.get_running_loop()).__module__)

    run_loop(main(), event_loop({LOOP_VARIABLE: kind}))
    assert seen[0].split(".")[0] == kind


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def one_change(base: str) -> list[dict[str, Any]]:
    """Open a table of two, take both seats, and send one change from the first: the event
    each phone receives (the sender's acknowledges its change: it carries its id)."""
    async with aiohttp.ClientSession() as http:
        form = {"players": [{"name": "Ana"}, {"name": "Bo"}], "best_of": None}
        async with http.post(base + "/api/tables", json=form) as res:
            assert res.status == 201
            table = (await res.json())["id"]
        tokens = []
        for seat in ("ana", "bo"):
            async with http.post(f"{base}/api/tables/{table}/seats/{seat}", json={}) as res:
                tokens.append((await res.json())["token"])
        sockets = []
        for token in tokens:
            ws = await http.ws_connect(f"{base}/ws/t/{table}?token={token}")
            await ws.send_json({"type": "hello", "token": token, "since": 0})
            while (await ws.receive_json(timeout=10))["type"] != "welcome":
                pass
            sockets.append(ws)
        action = {"do": "lose_life", "player": "ana", "amount": 1}
        await sockets[0].send_json({"type": "action", "id": "c1", "action": action})
        got = []
        for ws in sockets:
            while True:
                message = await ws.receive_json(timeout=10)
                if message["type"] == "event":
                    got.append(message)
                    break
        for ws in sockets:
            await ws.close()
        return got


@pytest.mark.parametrize("kind", ["asyncio", pytest.param("uvloop", marks=needs_uvloop)])
def test_the_server_says_its_loop_and_serves_a_change_on_it(tmp_path: Path, kind: str) -> None:
    """Rule 119.3 (a player loses life): one change sent on one phone is acknowledged to it and
    reaches the other phone, on either loop."""
    port = free_port()
    db = tmp_path / "t.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "lifeledger_table", "--port", str(port), "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, LOOP_VARIABLE: kind, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stderr is not None and proc.stdout is not None
        said = proc.stderr.readline().strip()
        assert said == f"event loop: {event_loop({LOOP_VARIABLE: kind}).name}"
        assert said.split()[2] == kind
        assert proc.stdout.readline().startswith("lifeledger table: ")  # listening
        ack, event = asyncio.run(asyncio.wait_for(one_change(f"http://127.0.0.1:{port}"), 60))
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert ack["id"] == "c1" and "id" not in event
    assert ack == {**event, "id": "c1"}  # the same event, the sender's acknowledged
    assert '"lose_life"' in json.dumps(event)


def test_the_variable_is_documented() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "table.md").read_text()
    assert f"`{LOOP_VARIABLE}`" in docs and server.LOOP_VARIABLE == "LIFELEDGER_LOOP"

"""Kill the server process hard in the middle of a game, start it again on the same database:
nothing that was acknowledged is missing."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

pytestmark = pytest.mark.asyncio


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``python -m lifeledger_table`` as a real process."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lifeledger_table",
                "--port",
                str(self.port),
                "--db",
                str(self.db),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        async with aiohttp.ClientSession() as session:
            for _ in range(600):
                try:
                    async with session.get(self.url + "/api/catalogue") as res:
                        if res.status == 200:
                            return
                except aiohttp.ClientError:
                    pass
                assert self.proc.poll() is None, "the server exited"
                await asyncio.sleep(0.05)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "restart.db")
    yield server
    if server.proc is not None and server.proc.poll() is None:
        server.kill()


async def test_nothing_acknowledged_is_lost_when_the_server_is_killed(server: Server) -> None:
    await server.start()
    async with aiohttp.ClientSession() as session:
        form = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], "best_of": None}
        async with session.post(server.url + "/api/tables", json=form) as res:
            table: dict[str, Any] = await res.json()
        async with session.post(f"{server.url}/api/tables/{table['id']}/seats/ana", json={}) as res:
            token = (await res.json())["token"]
        ws = await session.ws_connect(f"{server.url}/ws/t/{table['id']}")
        await ws.send_json({"type": "hello", "token": token, "since": 0})
        acked: dict[str, int] = {}
        for i in range(40):
            await ws.send_json(
                {
                    "type": "action",
                    "id": f"a{i}",
                    "action": {"do": "gain_life", "player": "ana", "amount": 1},
                }
            )
        # Changes in flight when the server dies may or may not be kept; acknowledged ones must.
        while len(acked) < 25:
            msg = await ws.receive_json(timeout=15)
            if msg["type"] == "ack" or (msg["type"] == "event" and "id" in msg):
                acked[msg["id"]] = msg["seq"]
        server.kill()
        await ws.close()

    await server.start()
    async with aiohttp.ClientSession() as session:
        async with session.get(f"{server.url}/api/tables/{table['id']}") as res:
            data = await res.json()
        kept = {e["seq"] for e in data["entries"]}
        assert set(acked.values()) <= kept
        ana = next(p for p in data["state"]["players"] if p["id"] == "ana")
        assert ana["life"] == 20 + data["seq"] <= 20 + 40
        assert data["seq"] >= len(acked)
        # The seat survived the restart, and a retry of an acknowledged change is not applied again.
        ws = await session.ws_connect(f"{server.url}/ws/t/{table['id']}")
        await ws.send_json({"type": "hello", "token": token, "since": 0})
        welcome = await ws.receive_json(timeout=15)
        assert welcome["seat"] == "ana"
        await ws.send_json(
            {
                "type": "action",
                "id": "a0",
                "action": {"do": "gain_life", "player": "ana", "amount": 1},
            }
        )
        reply = await ws.receive_json(timeout=15)
        assert reply == {"type": "ack", "id": "a0", "seq": acked["a0"]}
        await ws.close()

"""Phones on the same Wi-Fi (issue 8): ``lifeledger serve --host 0.0.0.0`` prints the address a
phone opens (the machine's LAN address), and a table opened from the machine itself (``localhost``)
gets links and a QR code with that address."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import segno
from aiohttp.test_utils import TestClient
from table_helpers import TWO, open_table

from lifeledger_table.server import create_app, phones_line
from lifeledger_table.store.sqlite import SQLiteStore
from lifeledger_table.web.lan import is_loopback_host, lan_address, listens_everywhere, phone_url

Client = TestClient[Any, Any]
LAN = "192.168.1.23"


class FakeUdp:
    """A UDP socket that records what is done with it: ``connect`` picks a route only."""

    def __init__(self, address: str | None, log: list[str]) -> None:
        self.address = address
        self.log = log

    def __enter__(self) -> FakeUdp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.log.append("close")

    def connect(self, where: tuple[str, int]) -> None:
        self.log.append(f"connect {where[0]}")
        if self.address is None:
            raise OSError("Network is unreachable")

    def getsockname(self) -> tuple[str, int]:
        assert self.address is not None
        return (self.address, 50000)

    def send(self, data: bytes) -> int:  # pragma: no cover - must not be called
        raise AssertionError("no packet may be sent")

    sendto = send


def udp(address: str | None, log: list[str]) -> Callable[[int, int], Any]:
    def make(family: int, kind: int) -> FakeUdp:
        assert (family, kind) == (socket.AF_INET, socket.SOCK_DGRAM)
        return FakeUdp(address, log)

    return make


def test_the_lan_address_is_the_route_to_a_private_network_with_no_packet_sent() -> None:
    log: list[str] = []
    assert lan_address(udp(LAN, log), lambda name: []) == LAN
    assert log == ["connect 10.255.255.255", "close"]


def test_without_a_route_the_lan_address_is_one_the_host_name_resolves_to() -> None:
    """No route (a laptop whose Wi-Fi has no default gateway): the host name's addresses,
    skipping the loopback Debian gives it (127.0.1.1) and link-local ones."""
    log: list[str] = []
    found = lan_address(udp(None, log), lambda name: ["127.0.1.1", "169.254.3.4", "10.0.0.7"])
    assert found == "10.0.0.7"
    assert log.count("close") == 3  # every probe tried, each socket closed
    assert lan_address(udp("127.0.0.1", []), lambda name: ["127.0.1.1"]) is None


def test_the_lan_address_found_here_is_one_a_phone_could_open() -> None:
    found = lan_address()
    if found is not None:
        assert not is_loopback_host(found) and not found.startswith("169.254.")


def test_what_counts_as_every_interface_and_as_the_loopback() -> None:
    assert listens_everywhere("0.0.0.0") and listens_everywhere("::")
    assert not listens_everywhere("127.0.0.1") and not listens_everywhere("192.168.1.23")
    for name in ("localhost", "LOCALHOST.", "app.localhost", "127.0.0.1", "127.1.2.3", "::1"):
        assert is_loopback_host(name), name
    for name in ("192.168.1.23", "table.example", "::2", "localhost.example"):
        assert not is_loopback_host(name), name
    assert phone_url("http", LAN, 8000) == "http://192.168.1.23:8000/"
    assert phone_url("https", LAN, 443) == "https://192.168.1.23/"
    assert phone_url("http", "fd00::5", 8000) == "http://[fd00::5]:8000/"
    assert "8000" in phones_line("http", 8000, None)


async def lan_client(
    aiohttp_client: Callable[..., Any], tmp_path: Path, name: str = "t.db", **options: Any
) -> Client:
    app = create_app(SQLiteStore(str(tmp_path / name)), **options)
    client: Client = await aiohttp_client(app)
    return client


def qr_of(url: str) -> bytes:
    """The QR code the server draws for ``url``."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, dark="#111", light="#fff")
    return out.getvalue()


@pytest.mark.asyncio
@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1:8000", "[::1]:8000"])
async def test_a_table_opened_on_the_serving_machine_links_to_its_lan_address(
    aiohttp_client: Callable[..., Any], tmp_path: Path, host: str
) -> None:
    client = await lan_client(aiohttp_client, tmp_path, lan_address=LAN)
    res = await client.post("/api/tables", json=TWO, headers={"Host": host})
    assert res.status == 201
    table = await res.json()
    play = f"http://{LAN}:8000/t/{table['id']}"
    assert table["links"] == {"play": play, "watch": f"http://{LAN}:8000/w/{table['watch']}"}
    res = await client.get(f"/api/tables/{table['id']}/qr.svg", headers={"Host": host})
    assert await res.read() == qr_of(play)
    info = await (await client.get(f"/api/tables/{table['id']}", headers={"Host": host})).json()
    assert info["links"]["play"] == play


@pytest.mark.asyncio
async def test_a_table_opened_by_its_network_address_keeps_that_address(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """The opener used an address phones can open (or a name): it is kept. A server not
    listening on every interface (no LAN address given) always keeps the address used."""
    client = await lan_client(aiohttp_client, tmp_path, lan_address=LAN)
    for host in ("10.0.0.9:8000", "table.example"):
        res = await client.post("/api/tables", json=TWO, headers={"Host": host})
        links = (await res.json())["links"]
        assert links["play"].startswith(f"http://{host}/t/")
    plain = await lan_client(aiohttp_client, tmp_path, "plain.db")
    table = await open_table(plain)
    assert table["links"]["play"] == f"http://{plain.host}:{plain.port}/t/{table['id']}"


@pytest.mark.asyncio
async def test_through_a_trusted_proxy_the_links_keep_the_forwarded_host(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """Behind a trusted proxy (here the test client's own address) the proxy's ``Host`` and
    ``X-Forwarded-Proto`` make the links, as before: never the LAN address."""
    client = await lan_client(
        aiohttp_client, tmp_path, lan_address=LAN, trusted_proxies=["127.0.0.1", "::1"]
    )
    headers = {"Host": "localhost:8443", "X-Forwarded-Proto": "https"}
    table = await (await client.post("/api/tables", json=TWO, headers=headers)).json()
    assert table["links"]["play"] == f"https://localhost:8443/t/{table['id']}"


def test_serve_on_every_interface_prints_the_lan_address_its_links_use(tmp_path: Path) -> None:
    """A real ``lifeledger serve --host 0.0.0.0``: it prints the address phones open, and a
    table opened from this machine (127.0.0.1) links to that address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serve = ["lifeledger_table", "--host", "0.0.0.0", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", *serve, "--db", str(tmp_path / "t.db")],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert f"http://0.0.0.0:{port}/" in first
        phones = proc.stdout.readline()
        found = lan_address()
        if found is None:
            assert "no LAN address found" in phones
            return
        assert phones.strip() == f"Phones on the same Wi-Fi open http://{found}:{port}/"
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/tables",
            data=b'{"players": [{"name": "Ana"}, {"name": "Bo"}]}',
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as res:  # listening once it printed
            table = json.load(res)
        assert table["links"]["play"] == f"http://{found}:{port}/t/{table['id']}"
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


#: Host headers that are not a host name or address and a port: made into a link as they are,
#: each pointed somewhere else (evil.example, a path on another host, a query...).
BAD_HOSTS = [
    "127.0.0.1:8000@evil.example",
    "[::1]:8000@evil.example",
    "localhost@evil.example",
    "localhost:8000/evil",
    "localhost:8000?x=evil.example",
    "evil.example#localhost",
    "[::1]evil.example",
    "localhost:8000 evil.example",
    "localhost:8000\\@evil.example",
    "localhost:99999",
    "localhost:",
    "a" * 300,
]


@pytest.mark.asyncio
@pytest.mark.parametrize("lan", [LAN, None])
async def test_a_host_header_that_is_not_a_host_never_makes_a_link_elsewhere(
    aiohttp_client: Callable[..., Any], tmp_path: Path, lan: str | None
) -> None:
    """``Host: 127.0.0.1:8000@evil.example`` once made ``http://192.168.1.23:8000@evil.
    example/t/...`` (a link to evil.example, shown as the LAN's): a Host that is not a host
    name or address with a port makes the links of the address the connection was made to
    (the LAN address for the loopback, on a server listening everywhere); a name is kept."""
    client = await lan_client(aiohttp_client, tmp_path, lan_address=lan)
    own = f"http://{lan or client.host}:{client.port}"
    for host in BAD_HOSTS:
        res = await client.post("/api/tables", json=TWO, headers={"Host": host})
        assert res.status == 201, host
        table = await res.json()
        assert table["links"] == {
            "play": f"{own}/t/{table['id']}",
            "watch": f"{own}/w/{table['watch']}",
        }, host
        info = await client.get(f"/api/tables/{table['id']}", headers={"Host": host})
        assert (await info.json())["links"]["play"] == f"{own}/t/{table['id']}", host
        qr = await client.get(f"/api/tables/{table['id']}/qr.svg", headers={"Host": host})
        if len(host) > 261:
            assert qr.status == 400
        else:
            assert await qr.read() == qr_of(f"{own}/t/{table['id']}"), host
    for host in ("table.example:8000", "[fd00::5]:8000", "my_box.lan."):
        res = await client.post("/api/tables", json=TWO, headers={"Host": host})
        assert (await res.json())["links"]["play"].startswith(f"http://{host}/t/"), host

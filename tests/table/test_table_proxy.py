"""Client addresses behind reverse proxies (issue 10, ``--trusted-proxy``): from a trusted proxy
the client is the right-most address of ``X-Forwarded-For`` that is not a trusted proxy, and
every per-address limit counts that client; from anyone else the header is ignored."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient
from table_helpers import TWO, Phone, open_table

from lifeledger import cli
from lifeledger_table.server import Limits, create_app, serve
from lifeledger_table.store.sqlite import SQLiteStore
from lifeledger_table.web.addresses import TrustedProxies, parse_address

Client = TestClient[Any, Any]
#: The test client connects from here: a trusted proxy when a test trusts it.
PROXY = ["127.0.0.1"]


async def remote_of(request: web.Request) -> web.Response:
    """What the handlers see as the client's address and scheme."""
    return web.json_response({"remote": request.remote, "scheme": request.scheme})


async def app_client(
    aiohttp_client: Callable[..., Any],
    tmp_path: Path,
    trusted: list[str],
    limits: Limits | None = None,
    **server: Any,
) -> Client:
    """A test client of an app trusting ``trusted``, with ``GET /test/remote`` added."""
    app = create_app(SQLiteStore(str(tmp_path / "t.db")), limits, trusted_proxies=trusted)
    app.router.add_get("/test/remote", remote_of)
    client: Client = await aiohttp_client(app, server_kwargs=server)
    return client


async def seen(client: Client, *forwarded: str, **headers: str) -> str:
    """The client address the app sees for a request with these ``X-Forwarded-For`` headers."""
    pairs = [("X-Forwarded-For", value) for value in forwarded] + list(headers.items())
    res = await client.get("/test/remote", headers=pairs)
    assert res.status == 200
    remote: str = (await res.json())["remote"]
    return remote


async def opened(client: Client, forwarded: str) -> int:
    """The status of opening a table for the client ``forwarded`` names."""
    res = await client.post("/api/tables", json=TWO, headers={"X-Forwarded-For": forwarded})
    return res.status


# -- which address is the client's -----------------------------------------------------------


@pytest.mark.asyncio
async def test_a_forged_header_from_an_untrusted_peer_is_ignored(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """The peer (127.0.0.1) is no trusted proxy: whatever it says in X-Forwarded-For, it is
    the client, and its per-address budget is spent whatever address it claims."""
    client = await app_client(aiohttp_client, tmp_path, ["10.0.0.0/8"], Limits(tables_opened=2))
    assert await seen(client, "203.0.113.7") == "127.0.0.1"
    assert await seen(client, "10.0.0.1") == "127.0.0.1"
    res = await client.get("/test/remote", headers={"X-Forwarded-Proto": "https"})
    assert (await res.json())["scheme"] == "http"
    assert [await opened(client, f"203.0.113.{i}") for i in range(3)] == [201, 201, 429]


@pytest.mark.asyncio
async def test_no_proxy_is_trusted_by_default(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    client = await app_client(aiohttp_client, tmp_path, [])
    assert await seen(client, "203.0.113.7") == "127.0.0.1"


@pytest.mark.asyncio
async def test_the_client_is_the_right_most_untrusted_address_through_two_proxies(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """Client 203.0.113.7 -> proxy 10.1.2.3 -> proxy 127.0.0.1 -> the app. Whatever the
    client wrote itself (left of its address) is never taken, nor the proxies."""
    client = await app_client(aiohttp_client, tmp_path, [*PROXY, "10.0.0.0/8"])
    assert await seen(client, "203.0.113.7, 10.1.2.3") == "203.0.113.7"
    assert await seen(client, "6.6.6.6, 10.9.9.9, 203.0.113.7, 10.1.2.3") == "203.0.113.7"
    # Several header lines are one list, in order.
    assert await seen(client, "6.6.6.6", "203.0.113.7", "10.1.2.3") == "203.0.113.7"
    # Every address a trusted proxy: the left-most (each hop to its right vouches for it).
    assert await seen(client, "10.0.0.9, 10.1.2.3") == "10.0.0.9"
    # No header from a trusted proxy (its own health checks): the proxy.
    assert await seen(client) == "127.0.0.1"
    assert await seen(client, " , ") == "127.0.0.1"
    # The scheme the client used, from the trusted proxy (the QR code's link says https).
    res = await client.get(
        "/test/remote", headers={"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https"}
    )
    assert await res.json() == {"remote": "203.0.113.7", "scheme": "https"}


@pytest.mark.asyncio
async def test_a_malformed_header_from_a_trusted_proxy_leaves_the_proxys_address(
    aiohttp_client: Callable[..., Any], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Never a 500: the proxy's own address, and one line in the log, however many come."""
    client = await app_client(aiohttp_client, tmp_path, PROXY)
    with caplog.at_level(logging.WARNING, logger="lifeledger_table"):
        assert await seen(client, "203.0.113.7, not-an-address") == "127.0.0.1"
        assert await seen(client, "203.0.113.7:x") == "127.0.0.1"
        assert await seen(client, "[2001:db8::1") == "127.0.0.1"
    warnings = [r for r in caplog.records if "X-Forwarded-For" in r.getMessage()]
    assert len(warnings) == 1 and "127.0.0.1" in warnings[0].getMessage()
    # Garbage left of the client is what the client sent: never read, so no harm.
    assert await seen(client, "not-an-address, 203.0.113.7") == "203.0.113.7"
    # A port, as some proxies add, is no part of the address.
    assert await seen(client, "203.0.113.7:51234") == "203.0.113.7"


@pytest.mark.asyncio
async def test_ipv6_addresses_through_a_proxy(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """IPv6 clients and proxies, written as proxies write them; an IPv4-mapped address is the
    IPv4 address (one client, one budget)."""
    client = await app_client(aiohttp_client, tmp_path, [*PROXY, "fd00::/8"])
    assert await seen(client, "2001:db8::1, fd00::5") == "2001:db8::1"
    assert await seen(client, "2001:DB8:0:0::2") == "2001:db8::2"
    assert await seen(client, "[2001:db8::3]:443, [fd00::5]") == "2001:db8::3"
    assert await seen(client, "::ffff:203.0.113.9") == "203.0.113.9"


@pytest.mark.asyncio
async def test_a_proxy_connected_over_ipv6_is_trusted(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """The app listening on ::1, the proxy connecting from ::1."""
    client = await app_client(aiohttp_client, tmp_path, ["::1"], host="::1")
    assert await seen(client, "2001:db8::7") == "2001:db8::7"
    (tmp_path / "b").mkdir()
    untrusting = await app_client(aiohttp_client, tmp_path / "b", ["127.0.0.1"], host="::1")
    assert await seen(untrusting, "2001:db8::7") == "::1"


def test_addresses_are_read_as_proxies_write_them() -> None:
    assert str(parse_address(" 192.0.2.1 ")) == "192.0.2.1"
    assert str(parse_address("192.0.2.1:8080")) == "192.0.2.1"
    assert str(parse_address("[2001:db8::1]")) == "2001:db8::1"
    assert str(parse_address("[::ffff:192.0.2.1]:80")) == "192.0.2.1"
    for bad in ("unknown", "192.0.2.1:", "192.0.2.1:http", "[2001:db8::1]x", "2001:db8::1]"):
        with pytest.raises(ValueError):
            parse_address(bad)
    proxies = TrustedProxies(["10.0.0.0/8", "192.0.2.1", "fd00::/8"])
    assert proxies.trusts("10.255.0.1") and proxies.trusts("::ffff:10.0.0.1")
    assert proxies.trusts("192.0.2.1") and not proxies.trusts("192.0.2.2")
    assert proxies.trusts("fd00::1") and not proxies.trusts("fe00::1")
    assert not proxies.trusts("not-an-address") and not TrustedProxies().trusts("10.0.0.1")


def test_a_trusted_proxy_that_is_not_an_address_is_refused(tmp_path: Path) -> None:
    for bad in ("localhost", "10.0.0.1/8", "10.0.0.0/33"):
        with pytest.raises(ValueError, match="trusted proxy"):
            TrustedProxies([bad])
    with pytest.raises(SystemExit, match="--trusted-proxy"):
        cli.main(["serve", "--db", str(tmp_path / "t.db"), "--trusted-proxy", "proxy.lan"])


# -- the per-address limits count each client, not the proxy -----------------------------------


@pytest.mark.asyncio
async def test_per_address_limits_count_each_forwarded_client(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """Two tables per address: each client behind the proxy has its own two (before, the
    proxy's one address had two for everyone)."""
    client = await app_client(aiohttp_client, tmp_path, PROXY, Limits(tables_opened=2))
    one, two = "203.0.113.1", "203.0.113.2"
    assert [await opened(client, one) for _ in range(3)] == [201, 201, 429]
    assert [await opened(client, two) for _ in range(3)] == [201, 201, 429]
    # A client can't get a fresh budget by writing another address left of its own.
    assert await opened(client, f"198.51.100.1, {one}") == 429


@pytest.mark.asyncio
async def test_socket_limits_count_each_forwarded_client(
    aiohttp_client: Callable[..., Any], tmp_path: Path
) -> None:
    """WebSocket upgrades go through the same middleware: the socket route counts sockets
    per forwarded client."""
    client = await app_client(aiohttp_client, tmp_path, PROXY, Limits(sockets_per_address=1))
    table = await open_table(client)
    path = f"/ws/w/{table['watch']}"

    async def connect(who: str) -> Any:
        return await client.ws_connect(path, headers={"X-Forwarded-For": who})

    first = Phone(await connect("203.0.113.1"))
    assert (await first.hello())["type"] == "welcome"
    refused = await connect("203.0.113.1")
    msg = await refused.receive(timeout=10)
    assert msg.type == WSMsgType.TEXT and json.loads(msg.data)["error"] == "too-many-sockets"
    other = Phone(await connect("203.0.113.2"))
    assert (await other.hello())["type"] == "welcome"


# -- connections: a trusted proxy is capped only in all ---------------------------------------


def _connect(source: str, port: int) -> socket.socket:
    s = socket.socket()
    s.settimeout(5)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    return s


def _refused(sock: socket.socket) -> bool:
    """Whether the server answered ``sock`` 503 and closed it (within a second)."""
    sock.settimeout(1.0)
    got = b""
    deadline = time.monotonic() + 1.0
    try:
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return got.startswith(b"HTTP/1.1 503")


@pytest.mark.asyncio
async def test_a_trusted_proxys_connections_are_not_capped_per_address(tmp_path: Path) -> None:
    """One connection per address, five in all: the proxy (127.0.0.1) may hold more than one
    (it carries many clients), another address may not, and the total still holds."""
    limits = Limits(connections=5, connections_per_address=1, header_seconds=30)
    app = create_app(SQLiteStore(str(tmp_path / "t.db")), limits, trusted_proxies=PROXY)
    runner, guard = await serve(app, "127.0.0.1", 0)
    held: list[socket.socket] = []
    try:
        port = runner.addresses[0][1]
        for _ in range(3):
            held.append(await asyncio.to_thread(_connect, "127.0.0.1", port))
        held.append(await asyncio.to_thread(_connect, "127.0.0.2", port))
        await asyncio.sleep(0.1)
        assert guard.count == 4 and guard.refused == 0
        second = await asyncio.to_thread(_connect, "127.0.0.2", port)
        assert await asyncio.to_thread(_refused, second)
        second.close()
        held.append(await asyncio.to_thread(_connect, "127.0.0.1", port))
        await asyncio.sleep(0.1)
        over = await asyncio.to_thread(_connect, "127.0.0.1", port)
        assert await asyncio.to_thread(_refused, over)  # the total: 5
        over.close()
        assert guard.count == 5 and guard.refused == 2
    finally:
        for s in held:
            s.close()
        await runner.cleanup()

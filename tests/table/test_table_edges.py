"""The table app's edges against a hostile client (issue 7 items 8, 9, 10, 12 and 13): many
sockets from one client, slow clients, code guessing, seat takeovers, cross-site requests,
deep nesting and error answers."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestClient
from table_helpers import JSON, TWO, Phone, ask_takeover, open_table, phone, seat

from lifeledger_table.decide.jsontext import MAX_DEPTH, strict_json
from lifeledger_table.decide.limits import CodeGuard, Throttle, network_of
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.server import Limits, create_app, serve
from lifeledger_table.store.records import TableRow
from lifeledger_table.store.sqlite import SQLiteStore
from lifeledger_table.web import routes
from lifeledger_table.web.protocol import GATE_KEY

Client = TestClient[Any, Any]


async def two_phones(client: Client) -> tuple[dict[str, Any], Phone, Phone]:
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    bo = await phone(client, table["id"], await seat(client, table["id"], "bo"))
    return table, ana, bo


async def closed_socket(ws: Any) -> Any:
    """Read until the socket closes; the messages it got, and its close message."""
    got = []
    while True:
        msg = await ws.receive(timeout=10)
        if msg.type != WSMsgType.TEXT:
            return got, msg
        got.append(json.loads(msg.data))


# -- item 8: one client, many sockets --------------------------------------------------------


@pytest.mark.parametrize("limits", [Limits(sockets_per_address=3)])
@pytest.mark.asyncio
async def test_sockets_per_address_are_limited(client: Client) -> None:
    """issue 7 item 8: one address may not open sockets without limit."""
    table = await open_table(client)
    kept = [await client.ws_connect(f"/ws/t/{table['id']}") for _ in range(3)]
    extra = await client.ws_connect(f"/ws/t/{table['id']}")
    got, _msg = await closed_socket(extra)
    assert got[0]["error"] == "too-many-sockets" and "address" in got[0]["message"]
    assert extra.close_code == 1013  # try again later
    await kept[0].close()
    await asyncio.sleep(0.05)
    again = Phone(await client.ws_connect(f"/ws/t/{table['id']}"))
    assert (await again.hello())["type"] == "welcome"


@pytest.mark.parametrize("limits", [Limits(watchers_per_table=2)])
@pytest.mark.asyncio
async def test_sockets_per_table_are_limited(client: Client) -> None:
    """issue 7 item 8: one table may not hold sockets without limit; other tables are open."""
    table = await open_table(client)
    other = await open_table(client)
    kept = [await client.ws_connect(f"/ws/t/{table['id']}") for _ in range(2)]
    got, _ = await closed_socket(await client.ws_connect(f"/ws/w/{table['watch']}"))
    assert got[0]["error"] == "too-many-sockets" and "table" in got[0]["message"]
    elsewhere = Phone(await client.ws_connect(f"/ws/t/{other['id']}"))
    assert (await elsewhere.hello())["type"] == "welcome"
    assert len(kept) == 2


@pytest.mark.parametrize("limits", [Limits(watchers_per_table=3, sockets_per_seat=2)])
@pytest.mark.asyncio
async def test_spectators_cannot_keep_the_players_out(client: Client) -> None:
    """issue 7 item 8 (found by an audit): spectators and visitors filling a table's sockets
    locked the seated players out. A player's socket names its seat's token as it opens and is
    counted apart; a seat has a few sockets of its own, and no more."""
    table = await open_table(client)
    token = await seat(client, table["id"], "ana")
    watchers = [await phone(client, table["watch"], watch=True) for _ in range(3)]
    got, _ = await closed_socket(await client.ws_connect(f"/ws/w/{table['watch']}"))
    assert got[0]["error"] == "too-many-sockets"
    ana = await phone(client, table["id"], token)
    assert (await ana.act({"do": "lose_life", "player": "ana", "amount": 1}))["type"] == "ack"
    await phone(client, table["id"], token)
    got, _ = await closed_socket(await client.ws_connect(f"/ws/t/{table['id']}?token={token}"))
    assert got[0]["error"] == "too-many-sockets" and "seat" in got[0]["message"]
    forged = await client.ws_connect(f"/ws/t/{table['id']}?token={'x' * 43}")
    got, _ = await closed_socket(forged)  # a token that holds no seat is a visitor's
    assert got[0]["error"] == "too-many-sockets"
    assert len(watchers) == 3


@pytest.mark.asyncio
async def test_binary_frames_spend_the_budgets_too(client: Client) -> None:
    """issue 7 item 8 (found by an audit): binary frames were answered before any budget was
    checked and never closed a flooding socket."""
    table = await open_table(client)
    ws = await client.ws_connect(f"/ws/t/{table['id']}")
    for _ in range(400):
        await ws.send_bytes(b"x" * 100)
    got, msg = await closed_socket(ws)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED)
    assert any(g.get("error") == "throttled" for g in got)


@pytest.mark.parametrize(
    "limits", [Limits(rate=1000, burst=1000, address_rate=0.001, address_burst=8)]
)
@pytest.mark.asyncio
async def test_the_sockets_of_one_address_share_one_message_budget(client: Client) -> None:
    """issue 7 item 8: many sockets don't multiply what one client may send."""
    _table, ana, bo = await two_phones(client)  # two hellos: 6 messages left
    replies = []
    for p in (ana, bo, ana, bo, ana, bo, ana, bo):
        replies.append(await p.act({"do": "lose_life", "player": "bo", "amount": 1}))
    kinds = [r.get("error") or r["type"] for r in replies]
    assert kinds.count("ack") == 6 and kinds.count("throttled") == 2
    assert "from here" in replies[-1]["message"]


@pytest.mark.parametrize("limits", [Limits(rate=1000, burst=1000, table_rate=0.001, table_burst=5)])
@pytest.mark.asyncio
async def test_the_sockets_of_one_table_share_one_message_budget(client: Client) -> None:
    """issue 7 item 8: a table's sockets together are bounded; another table is not touched."""
    _table, ana, _bo = await two_phones(client)
    kinds = []
    for _ in range(7):  # the hellos were sent before the sockets held seats
        reply = await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
        kinds.append(reply.get("error") or reply["type"])
    assert kinds == ["ack"] * 5 + ["throttled"] * 2
    # A visitor with the link (no seat) does not spend the players' budget, nor get past it.
    visitor = await phone(client, _table["id"])
    assert (await visitor.act({"do": "lose_life", "player": "bo", "amount": 1}))["error"] == (
        "no-seat"
    )
    _other, cy, _ = await two_phones(client)
    assert (await cy.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"


@pytest.mark.parametrize("limits", [Limits(hello_seconds=0.3)])
@pytest.mark.asyncio
async def test_a_socket_that_never_says_hello_is_closed(client: Client) -> None:
    """issue 7 item 8/9: an idle socket holds no place for long."""
    table = await open_table(client)
    ws = await client.ws_connect(f"/ws/t/{table['id']}")
    start = time.monotonic()
    _, msg = await closed_socket(ws)
    assert msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSED, WSMsgType.CLOSING)
    assert time.monotonic() - start < 3


# -- item 9: slow clients ---------------------------------------------------------------------


def _raw(client: Client) -> socket.socket:
    sock = socket.create_connection((client.server.host, client.server.port), timeout=10)
    return sock


def _wait_closed(sock: socket.socket, within: float) -> tuple[float, bytes]:
    """Seconds until the server closes ``sock`` (reading what it says), at most ``within``."""
    start = time.monotonic()
    sock.settimeout(within)
    got = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            got += chunk
    except (TimeoutError, ConnectionResetError):
        pass
    return time.monotonic() - start, got


@pytest.mark.parametrize("limits", [Limits(header_seconds=1.0)])
@pytest.mark.asyncio
async def test_half_a_request_is_cut_off_within_seconds(client: Client) -> None:
    """issue 7 item 9: a client that sends half its headers and waits is cut off (before: it
    held its connection for 75-85 s, and 1,100 of them locked everyone out)."""
    sock = await asyncio.to_thread(_raw, client)
    sock.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\n")
    waited, got = await asyncio.to_thread(_wait_closed, sock, 8.0)
    sock.close()
    assert waited < 3.0 and got == b""
    silent = await asyncio.to_thread(_raw, client)  # connects and sends nothing at all
    waited, _ = await asyncio.to_thread(_wait_closed, silent, 8.0)
    silent.close()
    assert waited < 3.0


@pytest.mark.parametrize("limits", [Limits(header_seconds=1.0)])
@pytest.mark.asyncio
async def test_headers_sent_a_byte_at_a_time_are_cut_off(client: Client) -> None:
    """issue 7 item 9: trickling bytes does not keep a request alive (the deadline is for the
    whole header, not between bytes)."""
    sock = await asyncio.to_thread(_raw, client)
    request = b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
    start = time.monotonic()
    sent = 0
    with pytest.raises(OSError):
        for byte in request:
            await asyncio.to_thread(sock.sendall, bytes([byte]))
            sent += 1
            await asyncio.sleep(0.05)
            if time.monotonic() - start > 6:
                break
    sock.close()
    assert time.monotonic() - start < 4.0 and sent < len(request)


@pytest.mark.parametrize("limits", [Limits(body_seconds=1.0, linger_seconds=0.5)])
@pytest.mark.asyncio
async def test_a_body_sent_slowly_is_answered_408(client: Client) -> None:
    """issue 7 item 9: a body that never finishes is cut off too."""
    sock = await asyncio.to_thread(_raw, client)
    sock.sendall(
        b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Content-Length: 1000\r\n\r\n{"players": ['
    )
    waited, got = await asyncio.to_thread(_wait_closed, sock, 8.0)
    sock.close()
    assert waited < 4.0
    assert got.startswith(b"HTTP/1.1 408") and b'"error": "timeout"' in got


@pytest.mark.asyncio
async def test_connections_are_capped_per_address_and_in_all(tmp_path: Path) -> None:
    """issue 7 item 9: a client can't take every descriptor; over a cap a connection is
    answered 503 at once and closed, and a slot freed is usable again."""
    limits = Limits(connections=4, connections_per_address=2, header_seconds=30)
    app = create_app(SQLiteStore(str(tmp_path / "t.db")), limits)
    runner, guard = await serve(app, "127.0.0.1", 0)
    try:
        host, port = runner.addresses[0][:2]

        def connect(source: str) -> socket.socket:
            s = socket.socket()
            s.settimeout(5)
            s.bind((source, 0))
            s.connect((host, port))
            return s

        held = [await asyncio.to_thread(connect, "127.0.0.1") for _ in range(2)]
        await asyncio.sleep(0.1)
        third = await asyncio.to_thread(connect, "127.0.0.1")
        _, got = await asyncio.to_thread(_wait_closed, third, 5.0)
        assert got.startswith(b"HTTP/1.1 503") and b'"busy"' in got
        assert b"Server: lifeledger\r\n" in got
        third.close()
        # Other addresses still get in, up to the total.
        others = [await asyncio.to_thread(connect, f"127.0.0.{i}") for i in (2, 3)]
        await asyncio.sleep(0.1)
        over = await asyncio.to_thread(connect, "127.0.0.4")
        _, got = await asyncio.to_thread(_wait_closed, over, 5.0)
        assert got.startswith(b"HTTP/1.1 503")
        over.close()
        assert guard.count == 4 and guard.refused == 2
        for s in held + others:
            s.close()
        await asyncio.sleep(0.2)
        assert guard.count == 0 and guard.open == {}
        fresh = await asyncio.to_thread(connect, "127.0.0.1")
        fresh.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        _, got = await asyncio.to_thread(_wait_closed, fresh, 5.0)
        fresh.close()
        assert got.startswith(b"HTTP/1.1 200")
    finally:
        await runner.cleanup()


# -- item 10: throttles -----------------------------------------------------------------------


def test_a_throttle_forgets_quiet_keys_in_constant_time_and_stays_bounded() -> None:
    """issue 7 item 10: pruning scanned every tracked address on every request once 10,000
    were tracked (lookups went from 25 ms to 290-700 ms), and the maps grew without limit."""
    now = [0.0]
    throttle = Throttle(30, 600.0, max_keys=50_000, clock=lambda: now[0])
    for i in range(20_000):
        throttle.count(f"10.0.{i // 256}.{i % 256}")
    start = time.perf_counter()
    for i in range(20_000):  # each call would scan 20,000 keys if pruning were a scan
        throttle.blocked(f"10.1.{i // 256}.{i % 256}")
        throttle.count("192.0.2.1")
    assert time.perf_counter() - start < 1.0
    now[0] = 601.0
    throttle.count("192.0.2.2")
    assert len(throttle) == 1  # the quiet keys are forgotten
    small = Throttle(3, 600.0, max_keys=100, clock=lambda: now[0])
    for i in range(1000):
        small.count(str(i))
    assert len(small) == 100


def test_a_throttle_gives_its_budget_back_over_its_window() -> None:
    """issue 7 item 10: a budget is a number of times per window, given back steadily."""
    now = [0.0]
    throttle = Throttle(3, 60.0, clock=lambda: now[0])
    assert [throttle.allow("a") for _ in range(4)] == [True, True, True, False]
    assert throttle.allow("b")
    now[0] = 20.0  # a third of the window: one time back
    assert throttle.allow("a") and not throttle.allow("a")


def test_wrong_codes_are_budgeted_per_address_per_network_and_for_everyone() -> None:
    """issue 7 item 10: before, only per address (100 loopback addresses sent 3,000 wrong codes
    unthrottled); now many addresses share their network's budget and everyone's."""
    guard = CodeGuard(
        Limits(code_failures=5, code_network_failures=8, code_global_failures=20, code_lane_wait=0)
    )
    assert network_of("203.0.113.7") == "203.0.113.0/24"
    assert network_of("2001:db8:1:2::5") == "2001:db8:1::/48"
    assert network_of("::ffff:203.0.113.9") == "203.0.113.0/24"
    for _ in range(5):
        assert guard.wait("203.0.113.1") == 0.0
        guard.failed("203.0.113.1")
    assert guard.wait("203.0.113.1") is not None  # over: the lane (first turn is free) ...
    assert guard.wait("203.0.113.1") is None  # ... then refused
    for _ in range(3):
        assert guard.wait("203.0.113.2") == 0.0
        guard.failed("203.0.113.2")
    guard.lane.next_free = time.monotonic() + 100  # lane full
    assert guard.wait("203.0.113.3") is None  # the network's budget is spent
    for i in range(12):
        assert guard.wait(f"198.51.{i}.1") == 0.0
        guard.failed(f"198.51.{i}.1")
    assert guard.wait("192.0.2.1") is None  # everyone's budget is spent


@pytest.mark.parametrize(
    "limits", [Limits(code_failures=3, code_lane_rate=5.0, code_lane_wait=0.5)]
)
@pytest.mark.asyncio
async def test_the_right_code_gets_in_behind_a_throttled_address(client: Client) -> None:
    """issue 7 item 10: after 30 wrong codes the right code was refused too; now a lookup over
    budget waits for the slow lane, and wrong codes beyond it are refused."""
    table = await open_table(client)
    for _ in range(3):
        assert (await client.get("/api/code/WRONGWRONG")).status == 404
    res = await client.get(f"/api/code/{table['code']}")
    assert res.status == 200 and (await res.json()) == {"id": table["id"]}
    answers = await asyncio.gather(*(client.get("/api/code/WRONGWRONG") for _ in range(12)))
    statuses = sorted(r.status for r in answers)
    assert 429 in statuses and statuses.count(404) <= 5  # the lane: 5 a second, 0.5 s of wait
    refused = next(r for r in answers if r.status == 429)
    assert (await refused.json())["error"] == "throttled"


@pytest.mark.asyncio
async def test_codes_are_ten_characters_and_old_eight_character_codes_still_open(
    client: Client, db: str
) -> None:
    """issue 7 item 10: new codes are longer (31^10); a table opened before keeps its code."""
    table = await open_table(client)
    assert len(table["code"]) == 10 and set(table["code"]) <= set(routes.CODE_ALPHABET)
    store = client.app[HUB_KEY].store
    store.create_table(
        TableRow(id="t" * 32, watch="w" * 32, code="ABCD2345", setup=dict(_setup()), created=0)
    )
    assert (await (await client.get("/api/code/abcd-2345")).json()) == {"id": "t" * 32}
    assert (await client.get("/api/code/" + "A" * 13)).status == 404


def _setup() -> dict[str, Any]:
    from lifeledger_table.decide.setup import build_setup

    return build_setup(TWO)


# -- item 12: seats, takeovers and other sites -------------------------------------------------


@pytest.mark.asyncio
async def test_cross_site_posts_and_sockets_are_refused(client: Client) -> None:
    """issue 7 item 12: a text/plain POST (which any site may send) opened tables and took
    seats, and the WebSocket did not check Origin."""
    body = json.dumps(TWO)
    res = await client.post("/api/tables", data=body, headers={"Content-Type": "text/plain"})
    assert res.status == 415 and (await res.json())["error"] == "unsupported-media-type"
    res = await client.post("/api/tables", json=TWO, headers={"Origin": "https://evil.example"})
    assert res.status == 403 and (await res.json())["error"] == "cross-origin"
    table = await open_table(client)
    url = f"/api/tables/{table['id']}/seats/ana"
    res = await client.post(url, data="{}", headers={"Content-Type": "text/plain"})
    assert res.status == 415
    res = await client.post(url, json={}, headers={"Origin": "null"})
    assert res.status == 403
    own = f"http://{client.server.host}:{client.server.port}"
    res = await client.post(url, json={}, headers={"Origin": own})
    assert res.status == 200
    res = await client.get(f"/ws/t/{table['id']}", headers={"Origin": "https://evil.example"})
    assert res.status == 403
    ws = await client.ws_connect(f"/ws/t/{table['id']}", headers={"Origin": own})
    assert (await Phone(ws).hello())["type"] == "welcome"


@pytest.mark.asyncio
async def test_a_taken_seat_says_whether_its_phone_is_connected(client: Client) -> None:
    """issue 7 item 12: 409 says whether taking it over will need the holder's approval."""
    table = await open_table(client)
    token = await seat(client, table["id"], "ana")
    url = f"/api/tables/{table['id']}/seats/ana"
    res = await client.post(url, json={})
    assert res.status == 409 and (await res.json())["connected"] is False
    await phone(client, table["id"], token)
    res = await client.post(url, json={})
    assert res.status == 409 and (await res.json())["connected"] is True


@pytest.mark.asyncio
async def test_the_host_takes_over_at_once_and_its_hello_says_host(client: Client) -> None:
    """issue 7 item 12: the phone that opened the table may take over any seat."""
    table, ana, _bo = await two_phones(client)
    host = Phone(await client.ws_connect(f"/ws/t/{table['id']}"))
    await host.ws.send_json({"type": "hello", "token": None, "since": 0, "host": table["host"]})
    assert (await host.until("welcome"))["host"] is True
    visitor = Phone(await client.ws_connect(f"/ws/t/{table['id']}"))
    assert (await visitor.hello())["host"] is False
    res = await client.post(
        f"/api/tables/{table['id']}/seats/ana", json={"takeover": True, "host": "x" * 43}
    )
    assert res.status == 202  # a wrong host token is no host token
    new = await seat(client, table["id"], "ana", takeover=True, host=table["host"])
    assert (await ana.until("seat_lost"))["seat"] == "ana"
    again = await phone(client, table["id"], new)
    assert (await again.act({"do": "concede", "player": "ana"}))["type"] == "ack"


@pytest.mark.asyncio
async def test_taking_over_a_connected_seat_needs_its_phones_approval(client: Client) -> None:
    """issue 7 item 12: anyone with the link took over any seat, unthrottled, and could then
    concede for it. Now the seat's phone (or the host's) is asked first."""
    table, ana, _bo = await two_phones(client)
    asked = await ask_takeover(client, table["id"], "ana")
    assert asked["expires"] == 60
    question = await ana.until("takeover_request")
    assert question == {"type": "takeover_request", "request": asked["request"], "seat": "ana"}
    poll_url = f"/api/tables/{table['id']}/takeovers/{asked['request']}"
    poll = asyncio.ensure_future(client.get(poll_url))  # a long poll: waits for the answer
    await asyncio.sleep(0.1)
    assert not poll.done()
    await ana.ws.send_json({"type": "takeover_answer", "request": asked["request"], "allow": True})
    answer = await (await poll).json()
    assert answer["status"] == "allowed" and answer["token"]
    assert (await ana.until("seat_lost"))["seat"] == "ana"
    again = await (await client.get(poll_url)).json()
    assert again["status"] == "allowed" and "token" not in again  # the token is given once
    new = await phone(client, table["id"], answer["token"])
    assert (await new.act({"do": "lose_life", "player": "ana", "amount": 1}))["type"] == "ack"


@pytest.mark.asyncio
async def test_a_refused_takeover_changes_nothing(client: Client) -> None:
    """issue 7 item 12: the holder says no; the asker hears "refused"; the seat stays."""
    table, ana, bo = await two_phones(client)
    host = Phone(await client.ws_connect(f"/ws/t/{table['id']}"))
    await host.ws.send_json({"type": "hello", "token": None, "since": 0, "host": table["host"]})
    await host.until("welcome")
    asked = await ask_takeover(client, table["id"], "ana")
    assert (await host.until("takeover_request"))["request"] == asked["request"]
    # Bo neither holds the seat nor is the host: his answer counts for nothing.
    await bo.ws.send_json({"type": "takeover_answer", "request": asked["request"], "allow": True})
    assert (await bo.until("error"))["error"] == "unknown-request"
    await host.ws.send_json(
        {"type": "takeover_answer", "request": asked["request"], "allow": False}
    )
    res = await client.get(f"/api/tables/{table['id']}/takeovers/{asked['request']}")
    assert (await res.json())["status"] == "refused"
    assert (await ana.until("takeover_closed"))["status"] == "refused"
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"


@pytest.mark.parametrize("limits", [Limits(seat_idle_seconds=0.3, takeover_seconds=0.3)])
@pytest.mark.asyncio
async def test_a_seat_whose_phone_is_gone_is_taken_freely_and_requests_expire(
    client: Client,
) -> None:
    """issue 7 item 12: a seat no phone has held lately is taken over at once; an unanswered
    request expires."""
    table, ana, bo = await two_phones(client)
    asked = await ask_takeover(client, table["id"], "bo")
    res = await client.get(f"/api/tables/{table['id']}/takeovers/{asked['request']}")
    assert (await res.json())["status"] == "expired"
    await ana.ws.close()
    res = await client.post(f"/api/tables/{table['id']}/seats/ana", json={"takeover": True})
    assert res.status == 202  # held a moment ago
    await asyncio.sleep(0.4)
    assert await seat(client, table["id"], "ana", takeover=True)
    missing = await client.get(f"/api/tables/{table['id']}/takeovers/nope")
    assert missing.status == 404 and bo is not None


@pytest.mark.parametrize("limits", [Limits(takeovers=2)])
@pytest.mark.asyncio
async def test_takeovers_are_throttled_per_address(client: Client) -> None:
    """issue 7 item 12: takeovers were unthrottled."""
    table, _ana, _bo = await two_phones(client)
    url = f"/api/tables/{table['id']}/seats/ana"
    assert (await client.post(url, json={"takeover": True})).status == 202
    assert (await client.post(url, json={"takeover": True})).status == 202
    res = await client.post(url, json={"takeover": True})
    assert res.status == 429 and (await res.json())["error"] == "throttled"


# -- item 13: deep nesting, odd numbers, storage errors, error answers --------------------------


def test_the_strict_reader_bounds_nesting_refuses_repeats_and_constants() -> None:
    """issue 7 item 13: one reader for everything clients send; no RecursionError escapes."""
    for deep in ("[" * 100_000, "[" * 5000 + "]" * 5000, '{"a":' * 3000 + "1" + "}" * 3000):
        with pytest.raises(ValueError, match="nested"):
            strict_json(deep)
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert strict_json(ok) == strict_json(ok)
    with pytest.raises(ValueError, match="nested"):
        strict_json("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    with pytest.raises(ValueError, match="'do' appears twice"):
        strict_json('{"do": "lose_life", "do": "win"}')
    with pytest.raises(ValueError, match="NaN"):
        strict_json('{"amount": NaN}')
    assert strict_json('{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}


@pytest.mark.asyncio
async def test_deeply_nested_bodies_are_malformed_not_500(client: Client) -> None:
    """issue 7 item 13: "["*5000 answered 500 on POST /api/tables, /api/replay and /seats."""
    table = await open_table(client)
    for url in ("/api/tables", "/api/replay", f"/api/tables/{table['id']}/seats/ana"):
        res = await client.post(url, data="[" * 5000, headers=JSON)
        assert res.status == 400, url
        assert (await res.json())["error"] == "malformed"
    res = await client.post("/api/tables", data='{"players": [], "players": []}', headers=JSON)
    assert res.status == 400 and "'players' appears twice" in (await res.json())["message"]


@pytest.mark.asyncio
async def test_a_deeply_nested_action_is_malformed_and_the_socket_stays(client: Client) -> None:
    """issue 7 item 13: a 990-deep action dropped the WebSocket with a traceback."""
    table, ana, _bo = await two_phones(client)
    for depth in (990, 5000):
        action = '{"do": "together", "actions": ' + "[" * depth + "]" * depth + "}"
        await ana.ws.send_str(f'{{"type": "action", "id": "deep{depth}", "action": {action}}}')
        reply = await ana.until("error")
        assert reply["error"] == "malformed" and "nested" in reply["message"]
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert data["seq"] == 1


@pytest.mark.parametrize("limits", [Limits(rate=0.001, burst=2)])
@pytest.mark.asyncio
async def test_a_throttled_deep_message_does_not_drop_the_socket(client: Client) -> None:
    """issue 7 item 13 (a sibling): the throttled answer read the message's id with a plain
    json.loads, and a deep message raised RecursionError out of the socket's loop."""
    table = await open_table(client)
    ws = await client.ws_connect(f"/ws/t/{table['id']}")
    p = Phone(ws)
    await p.hello()
    await ws.send_str("[" * 5000 + "]" * 5000)
    await p.until("error")  # the last token: malformed
    await ws.send_str("[" * 5000 + "]" * 5000)
    assert (await p.until("error"))["error"] == "throttled"
    assert not ws.closed


@pytest.mark.asyncio
async def test_odd_game_numbers_are_404(client: Client) -> None:
    """issue 7 item 13: /games/²/record answered 500 (str.isdigit takes "²")."""
    table = await open_table(client)
    for n in ("²", "1²", "١", "99999999999999999999999", "-1", "0"):
        res = await client.get(f"/api/tables/{table['id']}/games/{n}/record")
        assert res.status == 404, n
        assert (await res.json())["error"] == "unknown-game"


class FailingStore(SQLiteStore):
    """A store whose writes of tables and seats fail, as a full or read-only disk does."""

    fail = False

    def create_table(self, row: TableRow) -> None:
        if self.fail:
            raise sqlite3.OperationalError("attempt to write a readonly database")
        super().create_table(row)

    def set_seat(
        self, table_id: str, seat: str, token_hash: str, previous: str | None = None
    ) -> bool:
        if self.fail:
            raise sqlite3.OperationalError("disk I/O error")
        return super().set_seat(table_id, seat, token_hash, previous)


@pytest.mark.asyncio
async def test_storage_errors_opening_a_table_or_taking_a_seat_are_503(
    aiohttp_client: Any, db: str
) -> None:
    """issue 7 item 13: they answered 500."""
    store = FailingStore(db)
    client = await aiohttp_client(create_app(store))
    table = await open_table(client)
    store.fail = True
    res = await client.post("/api/tables", json=TWO)
    assert res.status == 503 and (await res.json())["error"] == "storage"
    res = await client.post(f"/api/tables/{table['id']}/seats/ana", json={})
    assert res.status == 503 and (await res.json())["error"] == "storage"
    store.fail = False
    assert await seat(client, table["id"], "ana")


@pytest.mark.asyncio
async def test_every_error_is_json_with_the_security_headers_and_a_plain_server(
    aiohttp_client: Any, db: str
) -> None:
    """issue 7 item 13: 404/400 answers lacked the security headers, every answer named the
    server's versions, and an unexpected exception gave a text (or traceback) page."""
    app = create_app(SQLiteStore(db))

    async def boom(request: web.Request) -> web.Response:
        raise RuntimeError("secret detail")

    app.router.add_get("/boom", boom)
    client = await aiohttp_client(app)
    answers = {
        404: await client.get("/nowhere"),
        405: await client.put("/api/catalogue"),
        400: await client.post("/api/tables", data="{", headers=JSON),
        500: await client.get("/boom", headers={"Accept": "text/html"}),
    }
    for status, res in answers.items():
        assert res.status == status
        assert res.content_type == "application/json", status
        data = await res.json()
        assert data["error"] and data["message"]
        assert "secret detail" not in json.dumps(data) and "Traceback" not in json.dumps(data)
        assert "script-src 'self'" in res.headers["Content-Security-Policy"], status
        assert res.headers["X-Content-Type-Options"] == "nosniff"
        assert res.headers["Server"] == "lifeledger", status
    assert (await client.get("/")).headers["Server"] == "lifeledger"


@pytest.mark.asyncio
async def test_a_made_up_host_header_does_not_break_the_qr_code(client: Client) -> None:
    """issue 7 item 13 (a sibling): the QR code encodes the Host header; 8 KB of it overflowed
    the QR code and answered 500."""
    table = await open_table(client)
    res = await client.get(f"/api/tables/{table['id']}/qr.svg", headers={"Host": "a" * 8000})
    assert res.status == 400 and (await res.json())["error"] == "malformed"


@pytest.mark.asyncio
async def test_closed_sockets_leave_nothing_behind(client: Client) -> None:
    """issue 7 item 8 (a sibling): every table ever connected to kept an empty set of sockets,
    and the counts per address and per table must drop to nothing too."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    await ana.ws.close()
    for _ in range(100):
        if not client.app[HUB_KEY].conns:
            break
        await asyncio.sleep(0.02)
    assert client.app[HUB_KEY].conns == {}
    gate = client.app[GATE_KEY]
    assert gate.by_address == {} and gate.by_table == {}


@pytest.mark.asyncio
async def test_requests_aiohttp_cannot_parse_are_answered_like_every_error(tmp_path: Path) -> None:
    """issue 7 item 13 (a sibling): a request line or header aiohttp can't parse was answered
    in plain text naming the server's versions, and logged with a traceback each time."""
    app = create_app(SQLiteStore(str(tmp_path / "t.db")))
    runner, _guard = await serve(app, "127.0.0.1", 0)
    try:
        host, port = runner.addresses[0][:2]
        for raw in (
            b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
            b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
            b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n",
        ):

            def send(raw: bytes = raw) -> bytes:
                with socket.create_connection((host, port), timeout=5) as s:
                    s.sendall(raw)
                    return _wait_closed(s, 5.0)[1]

            got = await asyncio.to_thread(send)
            head, _, body = got.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.0 400") or head.startswith(b"HTTP/1.1 400"), got
            assert b"Server: lifeledger\r\n" in head and b"aiohttp" not in head
            assert b"X-Content-Type-Options: nosniff" in head
            assert json.loads(body)["error"] == "bad-request"
    finally:
        await runner.cleanup()


@pytest.mark.asyncio
async def test_a_client_that_stops_reading_is_cut_off(tmp_path: Path) -> None:
    """issue 7 item 9 (a sibling): answers had no write timeout, so a client that sends
    requests and never reads the answers held its connection and a handler for ever."""
    # The requests' cost share out of the way: it would refuse them (test_table_answers.py).
    limits = Limits(write_seconds=1.0, answer_burst=60.0, answer_network_burst=60.0)
    runner, guard = await serve(
        create_app(SQLiteStore(str(tmp_path / "t.db")), limits), "127.0.0.1", 0
    )
    try:
        host, port = runner.addresses[0][:2]
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((host, port))
        request = b"GET /api/catalogue HTTP/1.1\r\nHost: x\r\n\r\n"
        await asyncio.to_thread(sock.sendall, request * 5000)  # 8 MB of answers, never read
        await asyncio.sleep(0.5)
        assert guard.count == 1  # answering, blocked on a client that doesn't read
        for _ in range(50):
            if guard.count == 0:
                break
            await asyncio.sleep(0.1)
        assert guard.count == 0
        sock.close()
    finally:
        await runner.cleanup()


@pytest.mark.parametrize("limits", [Limits(errors_per_address=3, error_delay=1.2)])
@pytest.mark.asyncio
async def test_an_address_asking_in_a_loop_is_answered_slowly(client: Client) -> None:
    """issue 7 item 10's sibling: a client that asks again as soon as it is told no (wrong
    codes from many addresses took another table's p99 from 5 to 58 ms) gets its error answers
    late once it has had its budget of them, while right answers are never slowed."""
    table = await open_table(client, TWO)
    for _ in range(3):
        started = time.perf_counter()
        assert (await client.get("/api/tables/no-such-table")).status == 404
        assert time.perf_counter() - started < 0.5
    started = time.perf_counter()
    assert (await client.get("/api/code/ABCDEFGHJK")).status == 404
    assert time.perf_counter() - started >= 0.6
    started = time.perf_counter()
    assert (await client.get(f"/api/code/{table['code']}")).status == 200
    assert time.perf_counter() - started < 0.5


@pytest.mark.asyncio
async def test_a_refused_connection_leaves_no_failed_task(tmp_path: Path) -> None:
    """issue 7 item 9 (found by an audit): each connection refused over a cap left a failed
    task behind ("Task exception was never retrieved ... AssertionError" in the log)."""
    import gc

    failures: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: failures.append(context))
    limits = Limits(connections=4, connections_per_address=1, header_seconds=30)
    app = create_app(SQLiteStore(str(tmp_path / "t.db")), limits)
    runner, guard = await serve(app, "127.0.0.1", 0)
    try:
        host, port = runner.addresses[0][:2]
        held = await asyncio.to_thread(socket.create_connection, (host, port), 5)
        await asyncio.sleep(0.1)
        for _ in range(5):
            extra = await asyncio.to_thread(socket.create_connection, (host, port), 5)
            _, got = await asyncio.to_thread(_wait_closed, extra, 5.0)
            assert got.startswith(b"HTTP/1.1 503")
            extra.close()
        await asyncio.sleep(0.2)
        gc.collect()
        await asyncio.sleep(0.1)
        assert guard.refused == 5
        assert failures == []
        held.close()
    finally:
        loop.set_exception_handler(None)
        await runner.cleanup()


@pytest.mark.asyncio
async def test_an_unreadable_change_is_answered_with_its_id(client: Client) -> None:
    """issue 7 items 5 and 13 (found by an audit): a change with an integer of 5,000 digits,
    or nested too deep, was answered with "id": null (and Python's advice on
    sys.set_int_max_str_digits); its error now names the change and says what is wrong."""
    _table, ana, _bo = await two_phones(client)
    huge = '{"type": "action", "id": "big-1", "action": {"do": "gain_life", "player": "ana", '
    await ana.ws.send_str(huge + '"amount": ' + "9" * 5000 + "}}")
    answer = await ana.until("error")
    assert answer["id"] == "big-1" and answer["error"] == "malformed"
    assert "10^1000" in answer["message"] and "sys." not in answer["message"]
    deep = '{"type": "action", "id": "deep-1", "action": ' + "[" * 100 + "]" * 100 + "}"
    await ana.ws.send_str(deep)
    answer = await ana.until("error")
    assert answer["id"] == "deep-1" and answer["error"] == "malformed"


@pytest.mark.parametrize("limits", [Limits(downloads=2)])
@pytest.mark.asyncio
async def test_record_downloads_are_budgeted_and_written_a_piece_at_a_time(
    client: Client,
) -> None:
    """issue 7 item 6's sibling (found by an audit): a long game's record was made in one
    piece on the event loop (54 MB in 0.8 s, open to spectators, unthrottled); it is written a
    piece at a time, and each address may download a budget of records."""
    table, ana, _bo = await two_phones(client)
    for n in range(3):
        await ana.act({"do": "lose_life", "player": "bo", "amount": 1, "note": f"{n}" * 9000})
    res = await client.get(f"/api/watch/{table['watch']}/games/1/record")
    assert res.status == 200 and res.headers.get("Transfer-Encoding") == "chunked"
    record = await res.json()
    assert [a["amount"] for a in record["actions"]] == [1, 1, 1]
    assert table["code"] not in json.dumps(record)
    assert (await client.get(f"/api/tables/{table['id']}/games/1/record")).status == 200
    res = await client.get(f"/api/tables/{table['id']}/games/1/record")
    assert res.status == 429

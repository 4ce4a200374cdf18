"""Benchmark: does one hostile client slow down the other tables? (issue 7, items 5-10)

A victim load of ordinary tables (4 seated phones each, a life change per phone per second)
runs against a real ``lifeledger serve`` process while one attacker at a time does the worst
of what issue 7 found, then all of them at once:

- ``integers`` (item 5): a seated phone doubles a life total over and over (``set_life`` to
  ``life_of`` times 10^1000) and sends 1,001-digit amounts; ``/api/replay`` gets a record with a
  300,000-digit amount;
- ``hello`` (item 6): one socket repeats ``hello`` on a table of 20,000 events, as fast as it can;
- ``replay`` (item 7): three clients post a 300-player, 4,800-action record to ``/api/replay``
  over and over;
- ``sockets`` (item 8): one address opens 50 seated sockets sending 19 messages a second each;
- ``slow`` (item 9): 1,100 connections that send half a request and then nothing;
- ``codes`` (item 10): 100 loopback addresses guess table codes as fast as they can;
- ``engine`` (issue 21 item 1): a seated phone of a table holding Sanguine Bond, Exquisite
  Blood, Boon Reflection and 2,500 Ajani's Pridemates, Bo at 10^1000 life, sends
  ``gain_life ana 1`` over and over (it froze every table 34 s a change), and the accepted
  variant, a ``repeat`` of 5 groups of 200 ``lose_life 0`` (36.6 s with 1,000 cards);
- ``engine-heavy`` (issue 26 item 5): that table's phone sends 20 changes a second, every
  other one the costly ``gain_life``, the others an accepted group of 100 ``lose_life 0``
  (some ms of work each); a line after its row says what the table itself got: changes the
  engine decided a second, and the share turned away ``busy`` (slowed, never shut out);
- issue 18 item 1, one client (4 requests under way at once from one address) and, ``...100``,
  one client on 100 loopback addresses of one network (127.0.4.1-100, a request under way from
  each), repeating as fast as they are answered: ``pages``/``pages100``, history pages of the
  20,000-event table, each one not asked for before (``pages`` adds 8 spectator sockets
  asking for such pages over the socket); ``get``/``get100``, ``GET /api/tables/{id}`` of the
  long table; ``qr``/``qr100``, its QR codes, every other one for a made-up ``Host`` (a link
  not drawn before); ``spectator``/``spectator100``, ``GET /api/watch/{watch}`` and its
  history;
- issue 26 item 1, ``catalogues``/``catalogues100`` and ``manifest``/``manifest100``: one client
  (4 requests under way) and 100 addresses asking for ``/i18n/<lang>.json`` and
  ``/manifest.webmanifest?lang=`` as fast as they are answered, the language a made-up one
  two times in three, else ``it`` or ``en`` (made-up names used to evict the real catalogues,
  each then built again on the event loop);
- issue 26 item 3, with ``--store postgresql`` (a single SQLite server has no internal
  listener: these are skipped there): ``internal``, 20,000 connections to the internal listener
  from 100 addresses that send half a request and then nothing (reopened when cut off or
  refused); ``internal-flood``, 4 unauthenticated clients on 4 addresses asking ``GET /link``
  of it as fast as they are refused;
- ``all``: every attacker above at once.

Each scenario runs ``--runs`` times, alternating with a quiet run (the baseline, measured in
the same process, so the ratio compares like with like). Every change's receipt on the three
other phones of its table is counted: a receipt that arrives late is late (its real latency),
and one that never arrives within ``--grace`` seconds after the run is reported as lost. The
machine's load average is printed with every run.

    .venv/bin/python benchmarks/hostile.py                  # every scenario, 3 runs each
    .venv/bin/python benchmarks/hostile.py --scenario hello --runs 5
    .venv/bin/python benchmarks/hostile.py --store postgresql --scenario internal
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).parent))
from table import Postgres, free_port, percentile, raise_fd_limit, start, stop

VICTIM_TABLES = 5
#: POSTs are JSON (the app refuses other content types: issue 7 item 12).
JSON = {"Content-Type": "application/json"}
LONG_TABLE_EVENTS = 20_000
#: The Pridemates on the ``engine`` attacker's table.
PRIDEMATES = 2_500
Attack = Callable[["Server", asyncio.Event], Awaitable[None]]


@dataclass
class Server:
    """The app under test: its base URL, and tables prepared for the attackers."""

    base: str
    long_table: str = ""
    long_watch: str = ""
    attacker_table: str = ""
    attacker_token: str = ""
    engine_table: str = ""
    engine_token: str = ""
    #: The internal listener (``host:port``; empty: none, a single SQLite server).
    internal: str = ""


@dataclass
class Victim:
    """The ordinary tables' measurements in one run."""

    sent: dict[str, float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)
    expected: int = 0
    errors: int = 0


def session(address: str) -> aiohttp.ClientSession:
    """A client session whose connections come from ``address`` (a loopback address)."""
    connector = aiohttp.TCPConnector(local_addr=(address, 0), limit=0)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60))


async def open_table(base: str, address: str, players: list[str]) -> tuple[str, list[str]]:
    """Open a table from ``address`` and take every seat; its id and the seat tokens."""
    async with session(address) as http:
        form = {"players": [{"name": p} for p in players], "best_of": None}
        async with http.post(base + "/api/tables", json=form) as res:
            table = await res.json()
            assert res.status == 201, table
        tokens = []
        for p in players:
            url = f"{base}/api/tables/{table['id']}/seats/{p.lower()}"
            async with http.post(url, json={}) as res:
                tokens.append((await res.json())["token"])
    return table["id"], tokens


async def prepare(base: str, db: str) -> Server:
    """The tables the attackers use, made through the API (the long one's events are written
    to the store directly while the server is stopped: see ``grow``)."""
    server = Server(base)
    server.long_table, _ = await open_table(base, "127.0.9.1", ["Ana", "Bo"])
    url = f"{base}/api/tables/{server.long_table}"
    async with session("127.0.9.1") as http, http.get(url) as res:
        server.long_watch = (await res.json())["table"]["watch"]
    server.attacker_table, tokens = await open_table(base, "127.0.9.2", ["Ana", "Bo"])
    server.attacker_token = tokens[0]
    server.engine_table, tokens = await open_table(base, "127.0.9.3", ["Ana", "Bo"])
    server.engine_token = tokens[0]
    return server


def grow(db: str, table_id: str, events: int) -> None:
    """Append ``events`` life changes to a table's log, through the store's own interface."""
    from lifeledger_table.store.opening import open_store
    from lifeledger_table.store.records import Event

    store = open_store(db)
    try:
        start_seq = len(store.events(table_id))
        batch = []
        for n in range(start_seq + 1, start_seq + events + 1):
            action = {"do": "gain_life" if n % 2 else "lose_life", "player": "ana", "amount": 1}
            batch.append(
                Event(table_id, n, "action", {"action": action}, f"grow-{n}", "ana", time.time())
            )
            if len(batch) == 1000:
                store.append(batch)
                batch = []
        if batch:
            store.append(batch)
    finally:
        store.close()


def grow_engine(db: str, table_id: str) -> None:
    """The ``engine`` attacker's table: Bo at 10^1000 life, Sanguine Bond, Exquisite Blood,
    Boon Reflection and :data:`PRIDEMATES` Pridemates, all Ana's (written to its log)."""
    from lifeledger_table.store.opening import open_store
    from lifeledger_table.store.records import Event

    cards = ["Sanguine Bond", "Exquisite Blood", "Boon Reflection"]
    cards += ["Ajani's Pridemate"] * PRIDEMATES
    actions: list[dict[str, Any]] = [{"do": "set_life", "player": "bo", "to": 10**1000}]
    actions += [
        {"do": "card", "id": f"card-{i}", "name": name, "controller": "ana"}
        for i, name in enumerate(cards)
    ]
    store = open_store(db)
    try:
        start_seq = len(store.events(table_id))
        store.append(
            [
                Event(
                    table_id,
                    start_seq + k + 1,
                    "action",
                    {"action": action},
                    f"engine-{k}",
                    "ana",
                    time.time(),
                )
                for k, action in enumerate(actions)
            ]
        )
    finally:
        store.close()


# -- the victim --------------------------------------------------------------------------------


async def victim_run(base: str, tables: list[tuple[str, list[str]]], seconds: float, grace: float):
    """Four phones per table, a change each per second for ``seconds``; then wait up to
    ``grace`` seconds for the receipts still due."""
    victim = Victim()
    run = random.getrandbits(48)
    seats = ["ana", "bo", "cy", "di"]
    stop_sending = asyncio.Event()
    async with session("127.0.8.1") as http:
        sockets = []
        for table_id, tokens in tables:
            for seat, token in zip(seats, tokens, strict=True):
                url = f"{base}/ws/t/{table_id}?token={token}"
                ws = await http.ws_connect(url, max_msg_size=0)
                await ws.send_json({"type": "hello", "token": token, "since": 0})
                sockets.append((ws, seat, table_id))

        async def read(ws: aiohttp.ClientWebSocketResponse, seat: str) -> None:
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return
                data = json.loads(msg.data)
                if data.get("type") == "error" and data.get("error") != "throttled":
                    victim.errors += 1
                entry = data.get("entry") if data.get("type") == "event" else None
                if entry and entry.get("seat") != seat and entry.get("action"):
                    sent_at = victim.sent.get(str(entry["action"].get("note")))
                    if sent_at is not None:
                        victim.latencies.append(time.perf_counter() - sent_at)

        async def send(ws: aiohttp.ClientWebSocketResponse, seat: str, table_id: str) -> None:
            await asyncio.sleep(random.random())
            n = 0
            while not stop_sending.is_set():
                n += 1
                key = f"{table_id[:6]}-{seat}-{n}-{random.random()}"
                action = {"do": "gain_life" if n % 2 else "lose_life", "player": seat}
                action |= {"amount": 1, "note": key}
                victim.sent[key] = time.perf_counter()
                victim.expected += 3
                cid = f"v{run}-{n}-{seat}"  # unique in every run: a repeated id is a retry
                await ws.send_json({"type": "action", "id": cid, "action": action})
                await asyncio.sleep(1.0)

        readers = [asyncio.create_task(read(ws, seat)) for ws, seat, _ in sockets]
        senders = [asyncio.create_task(send(*s)) for s in sockets]
        await asyncio.sleep(seconds)
        stop_sending.set()
        await asyncio.gather(*senders, return_exceptions=True)
        deadline = time.perf_counter() + grace
        while len(victim.latencies) < victim.expected and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)
        await asyncio.gather(*(ws.close() for ws, _, _ in sockets), return_exceptions=True)
    return victim


# -- the attackers -----------------------------------------------------------------------------


async def until(done: asyncio.Event, step: Callable[[], Awaitable[Any]]) -> None:
    """Repeat ``step`` until ``done``; a failed step (refused, closed) is just tried again."""
    while not done.is_set():
        try:
            await step()
        except (TimeoutError, aiohttp.ClientError, OSError):
            await asyncio.sleep(0.05)


async def attack_integers(server: Server, done: asyncio.Event) -> None:
    """Item 5: huge integers, through a seat and through /api/replay."""
    doubling = {"do": "set_life", "player": "ana", "to": {"life_of": "ana", "fraction": [2, 1]}}
    times = {"do": "set_life", "player": "bo", "to": {"life_of": "ana", "fraction": [10**999, 1]}}
    huge = '{"do": "gain_life", "player": "ana", "amount": ' + "9" * 1001 + "}"
    record = (
        '{"record": 1, "players": [{"id": "a"}, {"id": "b"}], "actions": [{"do": "gain_life",'
        ' "player": "a", "amount": ' + "7" * 300_000 + "}]}"
    )
    async with session("127.0.7.1") as http:
        url = f"{server.base}/ws/t/{server.attacker_table}?token={server.attacker_token}"
        ws = await http.ws_connect(url)
        await ws.send_json({"type": "hello", "token": server.attacker_token, "since": 0})
        n, tag = 0, random.getrandbits(40)

        async def step() -> None:
            nonlocal n
            n += 1
            for action in (doubling, times):
                cid = f"i{tag}-{n}-{len(str(action))}"
                await ws.send_json({"type": "action", "id": cid, "action": action})
            await ws.send_str(f'{{"type": "action", "id": "h{tag}-{n}", "action": {huge}}}')
            async with http.post(f"{server.base}/api/replay", data=record, headers=JSON) as res:
                await res.read()
            await asyncio.sleep(0.05)

        drain = asyncio.create_task(_drain(ws))
        await until(done, step)
        drain.cancel()
        await ws.close()


async def _drain(ws: aiohttp.ClientWebSocketResponse) -> None:
    async for _ in ws:
        pass


async def attack_hello(server: Server, done: asyncio.Event) -> None:
    """Item 6: one socket repeating hello (since 0) on a long table, never reading."""
    async with session("127.0.7.2") as http:
        ws = await http.ws_connect(f"{server.base}/ws/t/{server.long_table}")

        async def step() -> None:
            await ws.send_str('{"type": "hello", "since": 0}')
            await asyncio.sleep(0)

        await until(done, step)
        await ws.close()


def big_record() -> str:
    players = [{"id": f"p{i}"} for i in range(300)]
    actions = [
        {"do": "lose_life", "player": f"p{i % 300}", "amount": 1, "source": "x"}
        for i in range(4800)
    ]
    return json.dumps({"record": 1, "players": players, "actions": actions})


async def attack_replay(server: Server, done: asyncio.Event) -> None:
    """Item 7: three clients posting a large record to /api/replay over and over."""
    text = big_record()

    async def client(k: int) -> None:
        async with session(f"127.0.7.{10 + k}") as http:

            async def step() -> None:
                async with http.post(f"{server.base}/api/replay", data=text, headers=JSON) as res:
                    await res.read()

            await until(done, step)

    await asyncio.gather(*(client(k) for k in range(3)))


async def attack_sockets(server: Server, done: asyncio.Event) -> None:
    """Item 8: 50 seated sockets from one address, 19 messages a second each."""
    tag = random.getrandbits(40)
    async with session("127.0.7.20") as http:
        sockets = []
        for _ in range(50):
            with contextlib.suppress(aiohttp.ClientError):
                url = f"{server.base}/ws/t/{server.attacker_table}?token={server.attacker_token}"
                ws = await http.ws_connect(url)
                await ws.send_json({"type": "hello", "token": server.attacker_token, "since": 0})
                sockets.append(ws)

        async def flood(ws: aiohttp.ClientWebSocketResponse, k: int) -> None:
            drain = asyncio.create_task(_drain(ws))
            n = 0

            async def step() -> None:
                nonlocal n
                n += 1
                action = {"do": "gain_life" if n % 2 else "lose_life", "player": "bo", "amount": 1}
                cid = f"s{tag}-{k}-{n}"
                await ws.send_json({"type": "action", "id": cid, "action": action})
                await asyncio.sleep(1 / 19)

            await until(done, step)
            drain.cancel()

        await asyncio.gather(*(flood(ws, k) for k, ws in enumerate(sockets)))
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


async def attack_slow(server: Server, done: asyncio.Event) -> None:
    """Item 9: 1,100 connections that send half a request, then nothing (reopened when the
    server cuts them)."""
    host, port = server.base.removeprefix("http://").split(":")
    await hold_half_requests(
        host, int(port), done, count=1100, subnet="127.0.6", addresses=200, path="/"
    )


async def hold_half_requests(
    host: str,
    port: int,
    done: asyncio.Event,
    *,
    count: int,
    subnet: str,
    addresses: int,
    path: str,
    again: float = 0.0,
) -> None:
    """``count`` connections from ``addresses`` addresses of ``subnet``, each sending half a
    request for ``path`` and then nothing, opened again when the server cuts it off or
    refuses it (``again`` seconds later), until ``done``."""
    loop = asyncio.get_running_loop()
    request = f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Slow: ".encode()

    async def one(k: int) -> None:
        address = f"{subnet}.{1 + k % addresses}"
        while not done.is_set():
            sock = socket.socket()
            sock.setblocking(False)
            try:
                sock.bind((address, 0))
                await loop.sock_connect(sock, (host, port))
                await loop.sock_sendall(sock, request)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(loop.sock_recv(sock, 1), timeout=120)
            except OSError:
                await asyncio.sleep(0.2)
            finally:
                sock.close()
            if again:
                await asyncio.sleep(again)

    await asyncio.gather(*(one(k) for k in range(count)))


async def attack_codes(server: Server, done: asyncio.Event) -> None:
    """Item 10: 100 addresses guessing codes as fast as they can."""
    alphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

    async def guesser(k: int) -> None:
        async with session(f"127.0.5.{1 + k}") as http:

            async def step() -> None:
                code = "".join(random.choice(alphabet) for _ in range(8))
                async with http.get(f"{server.base}/api/code/{code}") as res:
                    await res.read()

            await until(done, step)

    await asyncio.gather(*(guesser(k) for k in range(100)))


async def attack_engine(server: Server, done: asyncio.Event) -> None:
    """Issue 21 item 1: the costliest change a seated phone can send, over and over (each is
    refused: too much work, then busy), and the accepted shortcut of 1,000 group parts."""
    gain = {"do": "gain_life", "player": "ana", "amount": 1}
    parts = {"do": "together", "actions": [{"do": "lose_life", "player": "bo", "amount": 0}] * 200}
    shortcut = {"do": "repeat", "times": 5, "actions": [parts]}
    async with session("127.0.7.30") as http:
        url = f"{server.base}/ws/t/{server.engine_table}?token={server.engine_token}"
        ws = await http.ws_connect(url, max_msg_size=0)
        await ws.send_json({"type": "hello", "token": server.engine_token, "since": 0})
        drain = asyncio.create_task(_drain(ws))
        n, tag = 0, random.getrandbits(40)

        async def step() -> None:
            nonlocal n
            n += 1
            action = shortcut if n % 4 == 0 else gain
            await ws.send_json({"type": "action", "id": f"e{tag}-{n}", "action": action})
            await asyncio.sleep(0.05)

        await until(done, step)
        drain.cancel()
        await ws.close()


#: The ``engine-heavy`` attacker's changes a second (issue 26 item 5's audit: 20).
HEAVY_RATE = 20
#: Its accepted change: a group of this many ``lose_life 0``, each part looking at every
#: effect of the 2,500 cards (some ms of work, within the engine's time).
HEAVY_PARTS = 100


def tallies_path(server: Server) -> Path:
    """Where the ``engine-heavy`` attacker keeps what its changes got (it runs in a process
    of its own, ended from outside)."""
    return Path(tempfile.gettempdir()) / f"hostile-engine-heavy-{server.engine_table}.json"


async def attack_engine_heavy(server: Server, done: asyncio.Event) -> None:
    """Issue 26 item 5: the ``engine`` table's phone sends :data:`HEAVY_RATE` changes a
    second, every other one the costliest (``gain_life``: refused ``too-much-work`` after the
    engine's 10 ms), the others a group of :data:`HEAVY_PARTS` ``lose_life 0`` (accepted after
    some ms of work), and counts its answers: what the engine decided (acknowledged, or
    ``too-much-work``) and what waited its turn (``busy``), so that the table is seen slowed
    but never shut out (kept in :func:`tallies_path`)."""
    gain = {"do": "gain_life", "player": "ana", "amount": 1}
    parts = [{"do": "lose_life", "player": "bo", "amount": 0}] * HEAVY_PARTS
    group = {"do": "together", "actions": parts}
    tallies: dict[str, float] = {"sent": 0, "seconds": 0.0}
    path = tallies_path(server)
    path.unlink(missing_ok=True)
    began = kept = time.monotonic()

    def keep(now: float) -> None:
        nonlocal kept
        kept = now
        tallies["seconds"] = now - began
        path.write_text(json.dumps(tallies))

    async with session("127.0.7.31") as http:
        url = f"{server.base}/ws/t/{server.engine_table}?token={server.engine_token}"
        ws = await http.ws_connect(url, max_msg_size=0)
        await ws.send_json({"type": "hello", "token": server.engine_token, "since": 0})

        async def read() -> None:
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return
                data = json.loads(msg.data)
                kind, cid = data.get("type"), data.get("id")
                if cid and kind in ("ack", "event", "error"):  # its event, with its id: an ack
                    code = str(data.get("error")) if kind == "error" else "ack"
                    tallies[code] = tallies.get(code, 0) + 1
                    now = time.monotonic()
                    if now - kept >= 0.5:
                        keep(now)

        reader = asyncio.create_task(read())
        n, tag = 0, random.getrandbits(40)

        async def step() -> None:
            nonlocal n
            n += 1
            action = gain if n % 2 else group
            await ws.send_json({"type": "action", "id": f"x{tag}-{n}", "action": action})
            tallies["sent"] = n
            await asyncio.sleep(max(0.0, began + n / HEAVY_RATE - time.monotonic()))

        await until(done, step)
        reader.cancel()
        await ws.close()


def heavy_line(tallies: list[dict[str, float]]) -> str:
    """What the ``engine-heavy`` table's changes got over its attacked runs (min / median /
    max): decided by the engine (acknowledged or ``too-much-work``) a second, and the share
    of those sent turned away ``busy``."""
    tallies = [t for t in tallies if t.get("seconds")]
    if not tallies:
        return "| engine-heavy's own table | (no tallies kept) |"
    decided = [(t.get("ack", 0) + t.get("too-much-work", 0)) / t["seconds"] for t in tallies]
    acks = [t.get("ack", 0) / t["seconds"] for t in tallies]
    busy = [t.get("busy", 0) / max(1, t.get("sent", 0)) * 100 for t in tallies]
    known = {"sent", "seconds", "ack", "too-much-work", "busy"}
    others = sorted({k for t in tallies for k in t} - known)
    return (
        f"| engine-heavy's own table | decided a second {spread(decided)} (accepted"
        f" {spread(acks)}) | busy % of sent {spread(busy)} | other answers: "
        f"{', '.join(others) or 'none'} |"
    )


#: How many requests one attacking address keeps under way at once (issue 18 item 1).
REQUESTS_AT_ONCE = 4
#: The addresses of the 100-address attacks: one client on one network (127.0.4.0/24).
MANY = [f"127.0.4.{1 + k}" for k in range(100)]


async def repeat_gets(
    server: Server,
    done: asyncio.Event,
    addresses: list[str],
    request: Callable[[Server, int], tuple[str, dict[str, str]]],
    at_once: int,
) -> None:
    """Issue 18 item 1: GETs from ``addresses`` as fast as they are answered, ``at_once`` under
    way from each; ``request(server, n)`` gives the n-th one's URL and headers."""
    counter = iter(range(10**12))

    async def loop(http: aiohttp.ClientSession) -> None:
        async def step() -> None:
            url, headers = request(server, next(counter))
            async with http.get(server.base + url, headers=headers) as res:
                await res.read()

        await until(done, step)

    async def client(address: str) -> None:
        async with session(address) as http:
            await asyncio.gather(*(loop(http) for _ in range(at_once)))

    await asyncio.gather(*(client(a) for a in addresses))


def page_request(server: Server, n: int) -> tuple[str, dict[str, str]]:
    """A history page of the long table, somewhere in its 20,000 events (every one a page
    not asked for before: nothing kept helps)."""
    before = random.randint(2, LONG_TABLE_EVENTS)
    return f"/api/tables/{server.long_table}/history?before={before}&limit=64", {}


def get_request(server: Server, n: int) -> tuple[str, dict[str, str]]:
    """The long table itself, again and again."""
    return f"/api/tables/{server.long_table}", {}


def qr_request(server: Server, n: int) -> tuple[str, dict[str, str]]:
    """A QR code of the long table's link, every other one for a host not asked for before
    (a link not made before: nothing kept helps), the others the same."""
    which = "play" if n % 4 < 2 else "watch"
    headers = {"Host": f"h{n}.example.org"} if n % 2 else {}
    return f"/api/tables/{server.long_table}/qr.svg?for={which}", headers


def watch_request(server: Server, n: int) -> tuple[str, dict[str, str]]:
    """The long table as a spectator sees it, and its latest history page."""
    if n % 2:
        return f"/api/watch/{server.long_watch}/history", {}
    return f"/api/watch/{server.long_watch}", {}


def gets(
    request: Callable[[Server, int], tuple[str, dict[str, str]]], many: bool = False
) -> Attack:
    async def attack(server: Server, done: asyncio.Event) -> None:
        if many:
            await repeat_gets(server, done, MANY, request, 1)
        else:
            await repeat_gets(server, done, ["127.0.7.40"], request, REQUESTS_AT_ONCE)

    return attack


async def attack_socket_pages(server: Server, done: asyncio.Event) -> None:
    """Issue 18 item 1: spectator sockets of the long table asking for history pages (each
    one not asked for before), as fast as their budgets let them, never waiting."""
    async with session("127.0.7.41") as http:
        sockets = []
        for _ in range(8):
            with contextlib.suppress(aiohttp.ClientError):
                ws = await http.ws_connect(f"{server.base}/ws/w/{server.long_watch}")
                await ws.send_json({"type": "hello", "since": 0})
                sockets.append(ws)

        async def ask(ws: aiohttp.ClientWebSocketResponse) -> None:
            drain = asyncio.create_task(_drain(ws))

            async def step() -> None:
                before = random.randint(2, LONG_TABLE_EVENTS)
                await ws.send_json({"type": "history", "before": before, "limit": 64})
                await asyncio.sleep(0.01)

            await until(done, step)
            drain.cancel()

        await asyncio.gather(*(ask(ws) for ws in sockets))
        await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)


def catalogue_request(server: Server, n: int) -> tuple[str, dict[str, str]]:
    """Issue 26 item 1: a language's catalogue, two times in three a made-up language (a
    name not asked before), else Italian or English."""
    lang = ("it", "en")[n % 2] if n % 3 == 0 else f"x{n}"
    return f"/i18n/{lang}.json", {}


def manifest_request(server: Server, n: int) -> tuple[str, dict[str, str]]:
    """Issue 26 item 1: the manifest in a language, made up two times in three."""
    lang = ("it", "en")[n % 2] if n % 3 == 0 else f"x{n}"
    return f"/manifest.webmanifest?lang={lang}", {}


#: Issue 26 item 3: the held half-requests on the internal listener, and their addresses.
INTERNAL_HELD = 20_000
INTERNAL_ADDRESSES = 100


async def attack_internal(server: Server, done: asyncio.Event) -> None:
    """Issue 26 item 3: :data:`INTERNAL_HELD` connections to the internal listener, from
    :data:`INTERNAL_ADDRESSES` addresses, that send half a request and then nothing (each
    reopened at once when the server cuts it off or refuses it)."""
    if not server.internal:
        return
    host, port = server.internal.rsplit(":", 1)
    # Refused or cut off: again at once (as a loop would).
    await hold_half_requests(
        host,
        int(port),
        done,
        count=INTERNAL_HELD,
        subnet="127.0.3",
        addresses=INTERNAL_ADDRESSES,
        path="/link",
        again=0.05,
    )


async def attack_internal_flood(server: Server, done: asyncio.Event) -> None:
    """Issue 26 item 3: unauthenticated ``GET /link`` on the internal listener from 4
    addresses, 4 under way from each, as fast as they are refused."""
    if not server.internal:
        return

    async def client(address: str) -> None:
        async with session(address) as http:

            async def step() -> None:
                async with http.get(f"http://{server.internal}/link") as res:
                    await res.read()

            await asyncio.gather(*(until(done, step) for _ in range(REQUESTS_AT_ONCE)))

    await asyncio.gather(*(client(f"127.0.3.{201 + k}") for k in range(4)))


#: The scenarios that attack the internal listener (a PostgreSQL store's only).
INTERNAL = ("internal", "internal-flood")


ATTACKS: dict[str, list[Attack]] = {
    "pages": [gets(page_request), attack_socket_pages],
    "pages100": [gets(page_request, many=True)],
    "get": [gets(get_request)],
    "get100": [gets(get_request, many=True)],
    "qr": [gets(qr_request)],
    "qr100": [gets(qr_request, many=True)],
    "spectator": [gets(watch_request)],
    "spectator100": [gets(watch_request, many=True)],
    "integers": [attack_integers],
    "hello": [attack_hello],
    "replay": [attack_replay],
    "sockets": [attack_sockets],
    "slow": [attack_slow],
    "codes": [attack_codes],
    "engine": [attack_engine],
    "engine-heavy": [attack_engine_heavy],
    "catalogues": [gets(catalogue_request)],
    "catalogues100": [gets(catalogue_request, many=True)],
    "manifest": [gets(manifest_request)],
    "manifest100": [gets(manifest_request, many=True)],
    "internal": [attack_internal],
    "internal-flood": [attack_internal_flood],
}
ATTACKS["all"] = [a for attacks in list(ATTACKS.values()) for a in attacks]  # the names above


# -- running -----------------------------------------------------------------------------------


@dataclass
class Figures:
    p50: float
    p99: float
    worst: float
    lost: int
    expected: int
    load: float


def attacker(names: list[str], server: Server) -> None:
    """The attackers' process: the named attacks until it is terminated. Apart from the
    victim's phones, so that the attackers' own work never delays their readings."""
    raise_fd_limit()

    async def attack_all() -> None:
        done = asyncio.Event()
        await asyncio.gather(*(attack(server, done) for name in names for attack in ATTACKS[name]))

    asyncio.run(attack_all())


async def measure(
    server: Server, victims: list[tuple[str, list[str]]], attack: str | None, args: Any
) -> Figures:
    process = None
    if attack is not None:
        names = [n for n in ATTACKS if n != "all"] if attack == "all" else [attack]
        process = multiprocessing.get_context("spawn").Process(
            target=attacker, args=(names, server), daemon=True
        )
        process.start()
        await asyncio.sleep(3.0)  # let the attack get going
    try:
        victim = await victim_run(server.base, victims, args.seconds, args.grace)
        load = os.getloadavg()[0]
    finally:
        if process is not None:
            process.terminate()
            process.join(10)
            if process.is_alive():
                process.kill()
                process.join()
    lat = victim.latencies
    return Figures(
        percentile(lat, 50),
        percentile(lat, 99),
        max(lat) * 1000 if lat else float("nan"),
        victim.expected - len(lat),
        victim.expected,
        load,
    )


def spread(values: list[float]) -> str:
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


async def main(args: Any) -> None:
    raise_fd_limit()
    with contextlib.ExitStack() as stack:
        if args.store == "postgresql":
            pg = Postgres(stack)
            print(f"PostgreSQL: {pg.cluster.bindir.parent.name}", flush=True)
            await run_all(args, pg.database())
        else:
            with tempfile.TemporaryDirectory() as tmp:
                await run_all(args, os.path.join(tmp, "hostile.db"))


async def run_all(args: Any, db: str) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "lifeledger_table", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--db", db]
    internal = ""
    if args.store == "postgresql":  # the internal listener, where the attacks can find it
        internal = f"127.0.0.1:{free_port()}"
        command += ["--internal", internal]
    proc = await start(command, base + "/api/catalogue")
    try:
        server = await prepare(base, db)
        victims = [
            await open_table(base, f"127.0.8.{10 + k}", ["Ana", "Bo", "Cy", "Di"])
            for k in range(VICTIM_TABLES)
        ]
    finally:
        stop(proc)
    server.internal = internal
    grow(db, server.long_table, LONG_TABLE_EVENTS)
    grow_engine(db, server.engine_table)
    proc = await start(command, base + "/api/catalogue")
    try:
        # The long table loaded before any run (a load of 20,000 events is no attack's).
        url = f"{base}/api/tables/{server.long_table}"
        async with session("127.0.9.1") as http, http.get(url) as res:
            assert res.status == 200, await res.text()
        print(f"victim: {VICTIM_TABLES} tables of 4 phones, a change per phone per second")
        print(
            "| scenario | quiet p99 ms (min/med/max) | attacked p50 ms | attacked p99 ms |"
            " p99 / quiet p99 (min/med/max) | worst ms | lost receipts | load |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for name in args.scenario or list(ATTACKS):
            if name in INTERNAL and not internal:
                print(f"| {name} | (no internal listener on SQLite: --store postgresql) |")
                continue
            quiet: list[Figures] = []
            attacked: list[Figures] = []
            heavy: list[dict[str, float]] = []
            for _ in range(args.runs):
                quiet.append(await measure(server, victims, None, args))
                attacked.append(await measure(server, victims, name, args))
                if name == "engine-heavy" and tallies_path(server).exists():
                    heavy.append(json.loads(tallies_path(server).read_text()))
            ratios = [a.p99 / q.p99 for a, q in zip(attacked, quiet, strict=True)]
            print(
                f"| {name} | {spread([q.p99 for q in quiet])} | "
                f"{spread([a.p50 for a in attacked])} | {spread([a.p99 for a in attacked])} |"
                f" {min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} |"
                f" {max(a.worst for a in attacked):.0f} |"
                f" {sum(a.lost for a in attacked)} of {sum(a.expected for a in attacked)} |"
                f" {spread([a.load for a in attacked + quiet])} |",
                flush=True,
            )
            if name == "engine-heavy":  # slowed, never shut out: what it got meanwhile
                print(heavy_line(heavy), flush=True)
            tallies_path(server).unlink(missing_ok=True)  # kept by "all"'s attacker too
    finally:
        stop(proc)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", action="append", choices=[*ATTACKS, CATCH_UP])
    parser.add_argument("--runs", type=int, default=3, help="runs per scenario (1-10)")
    parser.add_argument("--seconds", type=float, default=8.0, help="victim seconds per run")
    parser.add_argument("--grace", type=float, default=10.0, help="seconds to wait for receipts")
    parser.add_argument(
        "--store",
        choices=("sqlite", "postgresql"),
        default="sqlite",
        help="the server's store (postgresql: a throwaway server, and an internal listener)",
    )
    args = parser.parse_args()
    args.runs = min(max(args.runs, 1), 10)
    args.seconds = min(max(args.seconds, 2.0), 60.0)
    args.grace = min(max(args.grace, 1.0), 60.0)
    if args.scenario and CATCH_UP in args.scenario:  # two processes of its own (issue 26)
        asyncio.run(catch_up_main(args))
        args.scenario = [s for s in args.scenario if s != CATCH_UP]
        if not args.scenario:
            return
    asyncio.run(main(args))


# -- issue 26 item 2: a follower's catch-up (two processes of its own) -----------------------

#: The ``catch-up`` scenario's costly change: a shortcut of 5 groups of this many lose_life 0
#: (accepted: each decided within the engine's time limit, in some milliseconds).
CATCH_UP_PARTS = 120
#: How often (seconds) the attacked table's phone on B sends a message (B falls behind
#: meanwhile: the owner decides the table's changes at its share of a core, 0.1).
CATCH_UP_EVERY = 4.0
#: The scenario's name (it starts processes of its own: not one of :data:`ATTACKS`).
CATCH_UP = "catch-up"


async def attack_catch_up(base_a: str, base_b: str, table: str, tokens: list[str]) -> None:
    """Issue 26 item 2: Bo's phone on process A, the table's owner, plays accepted but costly
    changes as fast as they are answered; Ana's phone on process B, which follows the table,
    sends a message every :data:`CATCH_UP_EVERY` seconds, a ping and a hello in turn (a hello
    reads the table: B takes in what it has fallen behind on; before issue 26, any message
    did, at once, on the event loop)."""
    group = {"do": "together", "actions": [{"do": "lose_life", "player": "bo", "amount": 0}]}
    group["actions"] = group["actions"] * CATCH_UP_PARTS
    costly = {"do": "repeat", "times": 5, "actions": [group]}
    async with session("127.0.7.40") as http:
        bo = await http.ws_connect(f"{base_a}/ws/t/{table}?token={tokens[1]}", max_msg_size=0)
        await bo.send_json({"type": "hello", "token": tokens[1], "since": 0})
        ana = await http.ws_connect(f"{base_b}/ws/t/{table}?token={tokens[0]}", max_msg_size=0)
        await ana.send_json({"type": "hello", "token": tokens[0], "since": 0})
        drain = asyncio.create_task(_drain(ana))
        tag = random.getrandbits(40)

        async def play() -> None:
            n = 0
            async for msg in bo:  # the next change once the last is answered
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return
                data = json.loads(msg.data)
                if data.get("type") != "welcome" and not data.get("id"):
                    continue
                if data.get("error") in ("busy", "throttled"):
                    await asyncio.sleep(0.05)
                n += 1
                await bo.send_json({"type": "action", "id": f"k{tag}-{n}", "action": costly})

        async def read() -> None:
            n = 0
            while True:
                await asyncio.sleep(CATCH_UP_EVERY)
                n += 1
                hello = {"type": "hello", "token": tokens[0], "since": 0}
                await ana.send_json(hello if n % 2 == 0 else {"type": "ping"})

        try:
            await asyncio.gather(play(), read())
        finally:
            drain.cancel()
            await bo.close()
            await ana.close()


def catch_up_attacker(base_a: str, base_b: str, table: str, tokens: list[str]) -> None:
    """The ``catch-up`` attacker's process (apart from the victim's phones)."""
    raise_fd_limit()
    asyncio.run(attack_catch_up(base_a, base_b, table, tokens))


async def catch_up_measure(
    base: str, victims: list[tuple[str, list[str]]], attack: tuple[Any, ...] | None, args: Any
) -> Figures:
    """One run of the victim's phones on ``base``, quiet or with the ``catch-up`` attacker
    (``attack``: its arguments) in a process of its own."""
    process = None
    if attack is not None:
        process = multiprocessing.get_context("spawn").Process(
            target=catch_up_attacker, args=attack, daemon=True
        )
        process.start()
        await asyncio.sleep(3.0)  # let the attack get going (B falls behind)
    try:
        victim = await victim_run(base, victims, args.seconds, args.grace)
        load = os.getloadavg()[0]
    finally:
        if process is not None:
            process.terminate()
            process.join(10)
    lat = victim.latencies
    return Figures(
        percentile(lat, 50),
        percentile(lat, 99),
        max(lat) * 1000 if lat else float("nan"),
        victim.expected - len(lat),
        victim.expected,
        load,
    )


async def catch_up_main(args: Any) -> None:
    """Issue 26 item 2's fairness scenario, ``--scenario catch-up``: two processes, A and B,
    on one PostgreSQL database (a throwaway server: ``tests/table/pg_cluster.py``); the
    victim's tables are owned by B, their phones on B; the attacked table is owned by A and
    followed by B (:func:`attack_catch_up`). Each run measures the victim quiet, then
    attacked, in the same processes."""
    sys.path.insert(0, str(Path(__file__).parent.parent / "tests" / "table"))
    import pg_cluster  # the tests' (not a package)

    import harness

    raise_fd_limit()
    with pg_cluster.cluster() as cluster, tempfile.TemporaryDirectory() as tmp:
        database = cluster.create_database("hostile_catch_up")
        ports = [free_port(), free_port()]
        bases = [f"http://127.0.0.1:{p}" for p in ports]
        logs = [os.path.join(tmp, f"server{k}.log") for k in range(2)]
        procs = []
        try:
            for base, port, log in zip(bases, ports, logs, strict=True):
                command = [sys.executable, "-m", "lifeledger_table", "--host", "127.0.0.1"]
                command += ["--port", str(port), "--db", database]
                procs.append(harness.Server(command, base, base + "/api/catalogue", log))
                await procs[-1].start()
            base_a, base_b = bases
            attacked, tokens = await open_table(base_a, "127.0.9.4", ["Ana", "Bo"])
            victims = [
                await open_table(base_b, f"127.0.8.{10 + k}", ["Ana", "Bo", "Cy", "Di"])
                for k in range(VICTIM_TABLES)
            ]
            print(f"victim: {VICTIM_TABLES} tables of 4 phones on B, a change per phone a second")
            print(f"attacked: a table A owns, B follows ({CATCH_UP_PARTS * 5}-event changes)")
            print(
                "| scenario | quiet p99 ms (min/med/max) | attacked p50 ms | attacked p99 ms |"
                " p99 / quiet p99 (min/med/max) | worst ms | lost receipts | load |"
            )
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            quiet: list[Figures] = []
            under: list[Figures] = []
            for _ in range(args.runs):
                quiet.append(await catch_up_measure(base_b, victims, None, args))
                attack = (base_a, base_b, attacked, tokens)
                under.append(await catch_up_measure(base_b, victims, attack, args))
            ratios = [a.p99 / q.p99 for a, q in zip(under, quiet, strict=True)]
            print(
                f"| {CATCH_UP} | {spread([q.p99 for q in quiet])} | "
                f"{spread([a.p50 for a in under])} | {spread([a.p99 for a in under])} |"
                f" {min(ratios):.2f} / {statistics.median(ratios):.2f} / {max(ratios):.2f} |"
                f" {max(a.worst for a in under):.0f} |"
                f" {sum(a.lost for a in under)} of {sum(a.expected for a in under)} |"
                f" {spread([a.load for a in under + quiet])} |",
                flush=True,
            )
        finally:
            for proc in procs:
                proc.stop()
            for name, log in zip("AB", logs, strict=True):
                with open(log) as said:
                    lines = said.read().splitlines()[2:]
                if lines:
                    print(f"process {name} said:", *lines[-10:], sep="\n  ")


if __name__ == "__main__":
    cli()

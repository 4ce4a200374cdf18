"""A table has one owner (issue 18 item 2): of several processes on one PostgreSQL database,
the one holding a table's lease decides its changes; the others forward their phones'
changes to it and send its decided events to their phones. The leases themselves, forwarding
between two apps in one test (their counters read), a killed owner replaced within seconds
with nothing acknowledged lost, and ``lifeledger serve --workers 2`` on one port."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import psycopg
import pytest
import pytest_asyncio
from aiohttp import web
from aiohttp.test_utils import TestClient
from browser_helpers import free_port, server
from table_helpers import Phone, log_replayed, open_table, phone, seat, until

from lifeledger_table.decide.limits import Limits
from lifeledger_table.live import owners
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.live.owners import TTL
from lifeledger_table.live.takeover import origin_of
from lifeledger_table.server import _internal, create_app
from lifeledger_table.store.postgres import PostgresStore

Client = TestClient[Any, Any]
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")]}
WORKERS = ["--workers", "2"]
FAST = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)


def test_a_lease_is_claimed_renewed_and_taken_once_expired(pg_url: str) -> None:
    one, two = PostgresStore(pg_url, pool_size=1), PostgresStore(pg_url, pool_size=1)
    try:
        first = one.claim("t1", "a", "127.0.0.1:1", 30)
        assert (first.owner, first.address) == ("a", "127.0.0.1:1") and first.left > 29
        held = two.claim("t1", "b", "127.0.0.1:2", 30)  # held by a: b is told where it is
        assert (held.owner, held.address) == ("a", "127.0.0.1:1")
        assert one.claim("t1", "a", "127.0.0.1:1", 30).owner == "a"  # a claim of its own
        assert one.renew("a", 0.2) == {"t1"} and two.renew("b", 30) == set()
        time.sleep(0.4)  # a's lease expires (the database's clock): b takes it
        taken = two.claim("t1", "b", "127.0.0.1:2", 30)
        assert (taken.owner, taken.address) == ("b", "127.0.0.1:2")
        assert one.renew("a", 30) == set()  # a finds it taken: no longer its table
        two.release("b", ["t1"])
        assert one.claim("t1", "a", "127.0.0.1:1", 30).owner == "a"  # released: free at once
    finally:
        one.close()
        two.close()


@pytest_asyncio.fixture
async def apps(aiohttp_client: Callable[..., Any], pg_url: str) -> AsyncIterator[list[Client]]:
    """Two apps on one PostgreSQL database (each its own store, as two processes have)."""
    yield [await aiohttp_client(create_app(PostgresStore(pg_url), FAST)) for _ in range(2)]


async def settle(*phones: Phone, seq: int) -> None:
    for p in phones:
        while p.seq < seq:
            await p.recv()


@pytest.mark.asyncio
async def test_a_change_from_a_phone_on_another_process_is_decided_by_the_owner(
    apps: list[Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table is opened (and so owned) on the first app; phones on both send changes at
    once: every change is acknowledged, each phone sees every event in order (a gap fails
    the phone's check), the second app forwards its phones' changes and decides none, and
    nothing conflicts. The second app's copy, far behind, is loaded again from the store
    rather than taking each event in."""
    monkeypatch.setattr(owners, "BEHIND", 10)
    a, b = apps
    table = await open_table(a, FOUR)
    tid = table["id"]
    phones = []
    for client, who in ((a, "ana"), (b, "bo"), (a, "cy"), (b, "di")):
        phones.append((who, await phone(client, tid, await seat(client, tid, who))))
    watcher = await phone(b, tid)
    owner, other = a.app[HUB_KEY], b.app[HUB_KEY]
    assert tid in owner.owners.mine
    await until(lambda: tid in other.owners.remote)  # followed at the owner
    acked: dict[str, int] = {}

    async def play(who: str, p: Phone) -> None:
        for n in range(25):
            amount = 1 + n % 3
            action = {"do": "lose_life" if n % 2 else "gain_life", "player": who, "amount": amount}
            cid = await p.send("action", action, cid=f"{who}-{n}")
            reply = await p.reply(cid)
            assert reply["type"] == "ack", reply
            acked[cid] = reply["seq"]

    await asyncio.gather(*(play(who, p) for who, p in phones))
    events = owner.store.events(tid)
    assert [e.seq for e in events] == list(range(1, 101))
    assert {e.client_id: e.seq for e in events} == acked
    await settle(watcher, *(p for _, p in phones), seq=100)
    want = log_replayed(events, table["header"])
    assert all(p.view["state"] == want for _, p in phones) and watcher.view["state"] == want
    assert other.owners.forwarded == 50 and owner.owners.forwarded == 0
    assert owner.writer.conflicts == other.writer.conflicts == 0
    while other.owners.copies.refreshing:
        await asyncio.sleep(0.01)
    assert other.tables[tid].last_seq > 80 and len(other.owners.copies.behind.get(tid, [])) < 20
    # The follower's copy took in the owner's events when read (a new phone's welcome).
    late = await phone(b, tid)
    assert late.seq == 100 and late.view["state"] == want
    assert other.tables[tid].last_seq == 100


@pytest.mark.asyncio
async def test_a_change_sent_again_through_the_other_process_applies_once(
    apps: list[Client],
) -> None:
    a, b = apps
    table = await open_table(a, FOUR)
    tid = table["id"]
    token = await seat(a, tid, "ana")
    on_a, on_b = await phone(a, tid, token), await phone(b, tid, token)
    action = {"do": "lose_life", "player": "ana", "amount": 2}
    first = await on_b.reply(await on_b.send("action", action, cid="x1"))
    again = await on_a.reply(await on_a.send("action", action, cid="x1"))
    third = await on_b.reply(await on_b.send("action", action, cid="x1"))
    assert first == again == third == {"type": "ack", "id": "x1", "seq": 1}
    assert len(a.app[HUB_KEY].store.events(tid)) == 1


@contextlib.contextmanager
def processes(pg_url: str, n: int) -> Iterator[list[tuple[str, Any]]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(server(pg_url)) for _ in range(n)]  # type: ignore[arg-type]


async def post(session: aiohttp.ClientSession, url: str, body: Any) -> Any:
    async with session.post(url, json=body) as res:
        assert res.status in (200, 201), await res.text()
        return await res.json()


async def connect(session: aiohttp.ClientSession, base: str, table: str, token: str) -> Phone:
    p = Phone(await session.ws_connect(f"{base.replace('http', 'ws')}/ws/t/{table}?token={token}"))
    await p.hello(token)
    return p


@pytest.mark.asyncio
async def test_a_killed_owner_is_replaced_within_seconds_and_nothing_acknowledged_is_lost(
    pg_url: str,
) -> None:
    """kill -9 of the process owning a table while phones on the other process send changes
    through it: their sockets stay open; the other process takes the table over once its
    lease expires (seconds), decides the changes that got no answer (sent again, by it, with
    the same ids), and the phones, sending again what they never had answered, are
    acknowledged once: every acknowledged change is in the log, none twice, no gap."""
    with processes(pg_url, 2) as ((owner, victim), (survivor, _)):
        async with aiohttp.ClientSession() as session:
            table = await post(session, f"{owner}/api/tables", FOUR)
            tid, ids = table["id"], [p["id"] for p in table["header"]["players"]]
            async with session.get(f"{owner}/api/tables/{tid}") as res:
                assert res.status == 200  # loaded, and so owned, there
            phones = []
            for who in ids:
                seated = await post(session, f"{survivor}/api/tables/{tid}/seats/{who}", {})
                phones.append((who, await connect(session, survivor, tid, seated["token"])))
            acked: dict[str, int] = {}
            killed: list[float] = []
            stalls: list[float] = []

            async def play(who: str, p: Phone) -> None:
                rng = random.Random(who)
                for n in range(40):
                    cid = f"{who}-{n}"
                    lose = "lose_life" if n % 2 else "gain_life"
                    action = {"do": lose, "player": who, "amount": 1}
                    began = time.monotonic()
                    await p.send("action", action, cid=cid)
                    while True:
                        try:
                            reply = await asyncio.wait_for(p.reply(cid), 2)
                        except TimeoutError:
                            await p.send("action", action, cid=cid)  # as the page does
                            continue
                        if reply.get("error") in ("throttled", "busy"):
                            await asyncio.sleep(0.2)
                            await p.send("action", action, cid=cid)
                            continue
                        break
                    assert reply["type"] == "ack", reply
                    acked[cid] = reply["seq"]
                    if killed and began < killed[0] + 0.1:
                        stalls.append(time.monotonic() - killed[0])
                    await asyncio.sleep(rng.random() * 0.05)

            async def kill_soon() -> None:
                await asyncio.sleep(0.5)
                killed.append(time.monotonic())
                os.kill(victim.pid, signal.SIGKILL)

            await asyncio.gather(*(play(who, p) for who, p in phones), kill_soon())
            assert victim.wait(5) is not None
            async with session.get(f"{survivor}/api/tables/{tid}") as res:
                assert res.status == 200
        store = PostgresStore(pg_url, pool_size=1)
        try:
            events = store.events(tid)
        finally:
            store.close()
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        written = [e.client_id for e in events]
        assert len(written) == len(set(written)) == 160  # nothing applied twice
        assert {e.client_id: e.seq for e in events} == acked  # nothing acknowledged lost
        assert stalls and max(stalls) < TTL + 5  # taken over within seconds


def worker_pids(parent: int) -> list[int]:
    with open(f"/proc/{parent}/task/{parent}/children") as f:
        return [int(p) for p in f.read().split()]


def connections_by_process(port: int, pids: list[int]) -> dict[int, int]:
    """How many established TCP connections on ``port`` each process holds."""
    inodes: dict[str, int] = {}
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(path) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                local, state, inode = fields[1], fields[3], fields[9]
                if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
                    inodes[inode] = 0
    held = dict.fromkeys(pids, 0)
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    held[pid] += 1
    return held


@pytest.mark.asyncio
async def test_serve_workers_serves_one_port_with_every_worker(pg_url: str) -> None:
    """``lifeledger serve --workers 2``: two worker processes on one port, both taking
    connections (the system spreads them); phones of one table on both play as on one; a
    worker killed is started again; SIGTERM to the parent stops them all."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    parent = subprocess.Popen(
        [sys.executable, "-m", "lifeledger_table", "--port", str(port), "--db", pg_url, *WORKERS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(base + "/api/catalogue") as res,
            ):
                if res.status == 200 and len(worker_pids(parent.pid)) == 2:
                    break
            assert parent.poll() is None, "the server exited"
            await asyncio.sleep(0.05)
        workers = worker_pids(parent.pid)
        assert len(workers) == 2
        async with aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(force_close=True)
        ) as session:
            table = await post(session, f"{base}/api/tables", FOUR)
            tid, ids = table["id"], [p["id"] for p in table["header"]["players"]]
            tokens = [
                (await post(session, f"{base}/api/tables/{tid}/seats/{who}", {}))["token"]
                for who in ids
            ]
            await asyncio.sleep(1)  # every worker has heard of the seats (NOTIFY)
            # 12 sockets, three for each seat: both workers hold some.
            phones = [await connect(session, base, tid, token) for token in tokens * 3]
            held = connections_by_process(port, workers)
            assert all(n > 0 for n in held.values()), held
            for n, p in enumerate(phones):
                reply = await p.act({"do": "lose_life", "player": ids[n % 4], "amount": 1})
                assert reply["type"] == "ack", reply
            await settle(*phones, seq=len(phones))
            assert len({repr(p.view["state"]) for p in phones}) == 1
        os.kill(workers[0], signal.SIGKILL)
        for _ in range(200):
            now = worker_pids(parent.pid)
            if len(now) == 2 and workers[0] not in now:
                break
            await asyncio.sleep(0.05)
        assert len(now) == 2 and workers[0] not in now  # started again
        parent.send_signal(signal.SIGTERM)
        assert parent.wait(20) == 0
        for pid in now:
            assert (
                not Path(f"/proc/{pid}").exists()
                or "zombie" in Path(f"/proc/{pid}/status").read_text()
            )
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_serve_workers_needs_postgresql(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lifeledger_table", "--workers", "2", "--db", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "--workers 2 needs a PostgreSQL --db" in done.stderr


@pytest.mark.asyncio
async def test_a_takeover_is_polled_through_any_process(apps: list[Client]) -> None:
    """A takeover asked through one process is decided there; the asker's polls may reach
    another process (no proxy keeps it on one): that one passes them to the first (the
    request's id names it), and the seat's token comes back once."""
    a, b = apps
    table = await open_table(a, FOUR)
    tid = table["id"]
    ana = await phone(a, tid, await seat(a, tid, "ana"))
    res = await b.post(f"/api/tables/{tid}/seats/ana", json={"takeover": True})
    assert res.status == 202
    rid = (await res.json())["request"]
    assert origin_of(rid) == b.app[HUB_KEY].owners.address  # names where it was asked
    poll = asyncio.ensure_future(a.get(f"/api/tables/{tid}/takeovers/{rid}"))  # a long poll
    asked = await ana.until("takeover_request")
    assert asked["request"] == rid
    await ana.ws.send_json({"type": "takeover_answer", "request": rid, "allow": True})
    assert (await ana.until("seat_lost"))["seat"] == "ana"
    polled = await poll
    assert polled.status == 200 and (await polled.json())["status"] == "allowed"
    again = await (await a.get(f"/api/tables/{tid}/takeovers/{rid}")).json()
    assert again["status"] == "allowed"
    tokens = [t for t in ((await polled.json()).get("token"), again.get("token")) if t]
    assert len(tokens) == 1  # given once, through whichever process
    new = await phone(a, tid, tokens[0])
    assert (await new.act({"do": "lose_life", "player": "ana", "amount": 1}))["type"] == "ack"
    res = await a.get(f"/api/tables/{tid}/takeovers/nosuch.{'A' * 20}")
    assert res.status == 404
    # An id naming an address no process of the store listens at is never followed there
    # (a's key is shown to the processes the store registered, and nowhere else).
    token = rid.split(".")[0]
    elsewhere = base64.urlsafe_b64encode(b"127.0.0.1:9").decode().rstrip("=")
    assert origin_of(f"{token}.{elsewhere}") == "127.0.0.1:9"
    res = await a.get(f"/api/tables/{tid}/takeovers/{token}.{elsewhere}")
    assert res.status == 404
    assert not await a.app[HUB_KEY].owners.is_process("127.0.0.1:9")


def test_the_internal_address_is_a_host_and_maybe_a_port(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _internal(None) == ("127.0.0.1", 0)
    assert _internal("10.0.0.11") == ("10.0.0.11", 0)
    assert _internal("10.0.0.11:9001") == ("10.0.0.11", 9001)
    assert _internal("[fd00::11]:9001") == ("fd00::11", 9001)
    assert _internal("fd00::11") == ("fd00::11", 0)
    for wrong in ("0.0.0.0", "::", "[::]:9001", "host:port", ":9001", "1.2.3.4:99999"):
        with pytest.raises(SystemExit) as exited:
            _internal(wrong)
        assert exited.value.code == 2  # a usage error (issue 26 item 8): one line, naming it
        assert capsys.readouterr().err.startswith(f"lifeledger serve: --internal {wrong}: ")


@pytest.mark.asyncio
async def test_reading_the_database_gives_no_key_of_the_internal_links(
    apps: list[Client], pg_url: str
) -> None:
    """issue 26 item 9: the store keeps each process's key for the internal links only as a
    digest: no table of the database holds a key, and what it holds (the digest, the secret
    an older lifeledger kept) opens no link; the process's own key does."""
    from aiohttp.test_utils import make_mocked_request

    from lifeledger_table.store.records import key_digest

    owners = [app.app[HUB_KEY].owners for app in apps]
    keys = [o.secret for o in owners]
    assert len(set(keys)) == 2 and all(len(k) >= 40 for k in keys)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()]  # fmt: skip
        everything = " ".join(
            str(row) for t in tables for row in conn.execute(f'SELECT * FROM "{t}"').fetchall()
        )
        held = dict(conn.execute("SELECT owner, digest FROM lifeledger_processes").fetchall())
        assert conn.execute("SELECT count(*) FROM lifeledger_secret").fetchone() == (0,)
    assert not any(key in everything for key in keys)
    assert held == {o.me: key_digest(o.secret) for o in owners}

    def shown(value: str) -> Any:
        return make_mocked_request("GET", "/link", headers={"Authorization": value})

    one, two = owners
    await one.authentic(shown(two.bearer))  # another process's own key: let in
    for forged in (
        f"Bearer {two.me}.{held[two.me]}",  # the digest the database holds
        f"Bearer {two.me}.{one.secret}",  # a key, of another process
        f"Bearer nobody.{two.secret}",
        f"Bearer {two.secret}",
        "",
    ):
        with pytest.raises(web.HTTPForbidden):
            await one.authentic(shown(forged))


@pytest.mark.asyncio
async def test_the_secret_an_older_lifeledger_kept_is_forgotten(pg_url: str) -> None:
    """Migration 4 deletes the shared secret schema version 3 kept in the database."""
    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:  # back to version 3, its secret
        conn.execute("DROP TABLE lifeledger_processes")
        conn.execute("INSERT INTO lifeledger_secret (secret) VALUES ('readable by anyone')")
        conn.execute("UPDATE lifeledger_schema SET version = 3")
    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM lifeledger_secret").fetchone() == (0,)
        assert conn.execute("SELECT version FROM lifeledger_schema").fetchone() == (4,)

"""Several servers, one store (issue 10): phones of one table on different servers behave as
on one. Here two apps share one SQLite file, and each store tells the others of its writes as
PostgreSQL's NOTIFY does (the same hub code follows them); the PostgreSQL runs of these
stories start real server processes."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Container
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient
from table_helpers import (
    Phone,
    SharedStore,
    log_replayed,
    open_table,
    phone,
    play_randomly,
    seat,
)

from lifeledger_table.decide.limits import Limits
from lifeledger_table.decide.table import Table
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.live.takeover import TAKEOVERS_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.records import Event

Client = TestClient[Any, Any]
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")]}
FAST = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)


@pytest_asyncio.fixture
async def servers(aiohttp_client: Callable[..., Any], tmp_path: Path) -> list[Client]:
    peers: list[SharedStore] = []
    path = str(tmp_path / "shared.db")
    return [await aiohttp_client(create_app(SharedStore(path, peers), FAST)) for _ in range(2)]


async def heard_of(heard: Container[tuple[str, str]], seat: tuple[str, str]) -> None:
    """Wait until another server's notice of ``seat`` (table, seat) is in ``heard``: it goes
    through a thread and this server's loop, which on a loaded machine takes a while (no
    fixed time), and fail plainly if it never comes."""
    deadline = asyncio.get_running_loop().time() + 60
    while seat not in heard and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.05)
    assert seat in heard, f"the other server never heard which seats hold {seat}"


async def settle(*phones: Phone, seq: int) -> None:
    """Read every phone's messages until it has seen event ``seq``."""
    for p in phones:
        while p.seq < seq:
            await p.recv()


@pytest.mark.asyncio
async def test_a_change_on_one_server_reaches_the_phones_on_the_other(
    servers: list[Client],
) -> None:
    a, b = servers
    table = await open_table(a, FOUR)
    ana = await phone(a, table["id"], await seat(a, table["id"], "ana"))
    bo = await phone(b, table["id"], await seat(b, table["id"], "bo"))
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 3}))["type"] == "ack"
    await settle(bo, seq=1)
    assert next(p for p in bo.view["state"]["players"] if p["id"] == "bo")["life"] == 17
    assert (await bo.act({"do": "gain_life", "player": "bo", "amount": 1}))["type"] == "ack"
    await settle(ana, bo, seq=2)
    assert ana.view["state"] == bo.view["state"]


@pytest.mark.asyncio
async def test_a_seat_is_never_held_twice_across_servers(servers: list[Client]) -> None:
    a, b = servers
    table = await open_table(a, FOUR)
    url = f"/api/tables/{table['id']}/seats/cy"
    answers = await asyncio.gather(*(c.post(url, json={}) for c in (a, b, a, b)))
    assert sorted(r.status for r in answers) == [200, 409, 409, 409]


@pytest.mark.asyncio
async def test_a_retry_through_the_other_server_applies_once(servers: list[Client]) -> None:
    a, b = servers
    table = await open_table(a, FOUR)
    ana_a = await phone(a, table["id"], token := await seat(a, table["id"], "ana"))
    ana_b = await phone(b, table["id"], token)
    cid = await ana_a.send("action", {"do": "lose_life", "player": "ana", "amount": 2}, cid="x1")
    first = await ana_a.reply(cid)
    await ana_b.send("action", {"do": "lose_life", "player": "ana", "amount": 2}, cid="x1")
    again = await ana_b.reply("x1")
    assert first == again == {"type": "ack", "id": "x1", "seq": 1}


@pytest.mark.asyncio
async def test_phones_on_two_servers_acting_at_once_agree_with_the_log(
    servers: list[Client],
) -> None:
    """Random changes and undos from phones on both servers at once: the servers serialize
    them through the store (a write that another got ahead of is decided again), sequence
    numbers have no gaps, every acknowledged change is in the log once, and every phone ends
    with the log's state replayed."""
    a, b = servers
    table = await open_table(a, FOUR)
    tid = table["id"]
    phones = []
    for client, who in ((a, "ana"), (b, "bo"), (a, "cy"), (b, "di")):
        phones.append((client, who, await phone(client, tid, await seat(client, tid, who))))
    rng = random.Random(9)
    acked: dict[str, int] = {}

    await asyncio.gather(*(play_randomly(p, who, rng, acked) for _, who, p in phones))
    store = a.app[HUB_KEY].store
    events = store.events(tid)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert {e.client_id: e.seq for e in events if e.client_id in acked} == acked
    final = len(events)
    for _, _, p in phones:
        await settle(p, seq=final)
    want = log_replayed(store.events(tid), table["header"])
    for _, _, p in phones:
        assert p.view["state"] == want
    for client in servers:
        assert client.app[HUB_KEY].tables[tid].state == want
    assert sum(c.app[HUB_KEY].writer.conflicts for c in servers) > 0  # the stories did race


@pytest.mark.asyncio
async def test_a_seat_held_on_one_server_is_taken_over_only_if_its_phone_allows(
    servers: list[Client],
) -> None:
    """A takeover asked through one server of a seat whose phone is on another: not given at
    once; the phone there is asked, its answer goes back, and the seat changes hands."""
    a, b = servers
    table = await open_table(a, FOUR)
    tid = table["id"]
    ana = await phone(a, tid, await seat(a, tid, "ana"))
    res = await b.post(f"/api/tables/{tid}/seats/ana", json={"takeover": True})
    assert res.status == 202
    rid = (await res.json())["request"]
    asked = await ana.until("takeover_request")
    assert asked["request"] == rid
    await ana.ws.send_json({"type": "takeover_answer", "request": rid, "allow": True})
    assert (await ana.until("seat_lost"))["seat"] == "ana"
    res = await b.get(f"/api/tables/{tid}/takeovers/{rid}")
    answer = await res.json()
    assert answer["status"] == "allowed" and answer["token"]
    new = await phone(b, tid, answer["token"])
    assert (await new.act({"do": "lose_life", "player": "ana", "amount": 1}))["type"] == "ack"


@pytest.mark.asyncio
async def test_a_seat_nobody_holds_anywhere_is_taken_over_at_once(servers: list[Client]) -> None:
    """Once each server has heard which seats the others hold, a seat held on no socket
    anywhere is taken over without asking (as on one server); one held elsewhere asks."""
    a, b = servers
    table = await open_table(a, FOUR)
    tid = table["id"]
    await seat(a, tid, "bo")  # taken, never held on a socket
    cy = await phone(a, tid, await seat(a, tid, "cy"))
    for client in servers:
        client.app[TAKEOVERS_KEY].unsure_until = 0.0  # past the first minute
    a.app[TAKEOVERS_KEY].announce(a.app[HUB_KEY])
    heard = b.app[TAKEOVERS_KEY].elsewhere
    await heard_of(heard, (tid, "cy"))
    res = await b.post(f"/api/tables/{tid}/seats/bo", json={"takeover": True})
    assert res.status == 200
    res = await b.post(f"/api/tables/{tid}/seats/cy", json={"takeover": True})
    assert res.status == 202
    refused = (await res.json())["request"]
    await cy.until("takeover_request")
    await cy.ws.send_json({"type": "takeover_answer", "request": refused, "allow": False})
    res = await b.get(f"/api/tables/{tid}/takeovers/{refused}")
    assert (await res.json())["status"] == "refused"


@pytest.mark.asyncio
async def test_a_server_far_behind_loads_the_table_instead_of_replaying_every_event(
    servers: list[Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Notices lost for a long while (the other server wrote more than a checkpoint's worth):
    the table is loaded from its checkpoint, not decided event by event on the event loop,
    and its phones here are shown it anew."""
    monkeypatch.setattr(Table, "CHECKPOINT", 3)
    a, b = servers
    table = await open_table(a, FOUR)
    tid = table["id"]
    ana = await phone(a, tid, await seat(a, tid, "ana"))
    bo = await phone(b, tid, await seat(b, tid, "bo"))
    store_b = b.app[HUB_KEY].store
    heard, store_b.listeners = store_b.listeners, []  # b hears nothing for a while
    for _ in range(5):
        assert (await ana.act({"do": "lose_life", "player": "ana", "amount": 1}))["type"] == "ack"
    replays = 0
    real = Table.take_in

    def counted(self: Table, events: list[Event]) -> list[str]:
        nonlocal replays
        replays += len(events)
        return real(self, events)

    monkeypatch.setattr(Table, "take_in", counted)
    store_b.listeners = heard
    b.app[HUB_KEY].follower.notified("lost", "", "")
    welcome = await bo.until("welcome")
    assert welcome["seq"] == 5 and replays == 0
    assert bo.view["state"] == a.app[HUB_KEY].tables[tid].state


@pytest.mark.asyncio
async def test_a_table_device_on_one_server_is_asked_for_a_seat_by_a_phone_on_the_other(
    servers: list[Client],
) -> None:
    """Issue 8: a table device's socket holds several seats on one server; the other server
    hears they are held (issue 21 item 2: a device's seat is in use), so a personal phone
    there asking for one is a request, put to the device, whose one answer gives it; the
    device loses that seat alone. A seat given on one server is never given again on the
    other to a device asking for it."""
    a, b = servers
    table = await open_table(a, FOUR)
    tid = table["id"]
    res = await a.post(f"/api/tables/{tid}/seats", json={"seats": ["ana", "bo", "cy"]})
    tokens = (await res.json())["tokens"]
    query = "&".join(f"token={t}" for t in tokens.values())
    device = Phone(await a.ws_connect(f"/ws/t/{tid}?{query}&device=table"))
    await device.ws.send_json({"type": "hello", "tokens": list(tokens.values()), "since": 0})
    assert (await device.until("welcome"))["seats"] == ["ana", "bo", "cy"]
    for client in servers:
        client.app[TAKEOVERS_KEY].unsure_until = 0.0  # past the first minute
    a.app[TAKEOVERS_KEY].announce(a.app[HUB_KEY])
    await heard_of(b.app[TAKEOVERS_KEY].elsewhere, (tid, "bo"))
    res = await b.post(f"/api/tables/{tid}/seats/bo", json={})
    assert res.status == 409 and (await res.json())["connected"] is True
    res = await b.post(f"/api/tables/{tid}/seats/bo", json={"takeover": True})
    assert res.status == 202, await res.text()
    rid = (await res.json())["request"]
    assert (await device.until("takeover_request"))["seat"] == "bo"
    await device.ws.send_json({"type": "takeover_answer", "request": rid, "allow": True})
    status: dict[str, Any] = {"status": "pending"}
    while status["status"] == "pending":
        status = await (await b.get(f"/api/tables/{tid}/takeovers/{rid}")).json()
    assert status["status"] == "allowed", status
    bo = await phone(b, tid, status["token"])
    assert (await device.until("seat_lost"))["seat"] == "bo"
    await device.ws.send_json(
        {
            "type": "action",
            "id": "d1",
            "as": "cy",
            "action": {"do": "lose_life", "player": "bo", "amount": 1},
        }
    )
    assert (await device.reply("d1"))["type"] == "ack"
    assert (await bo.act({"do": "gain_life", "player": "bo", "amount": 2}))["type"] == "ack"
    # Di's seat, given on b, is skipped for a device asking on a.
    await seat(b, tid, "di")
    res = await a.post(f"/api/tables/{tid}/seats", json={"seats": ["di"]})
    assert (await res.json()) == {"tokens": {}, "skipped": {"di": "taken"}}
    # The same device seats open a socket on b too, and act there.
    other = Phone(await b.ws_connect(f"/ws/t/{tid}?token={tokens['ana']}&token={tokens['cy']}"))
    await other.ws.send_json({"type": "hello", "tokens": [tokens["ana"], tokens["cy"]]})
    assert (await other.until("welcome"))["seats"] == ["ana", "cy"]
    await other.ws.send_json({"type": "next_game", "id": "n1", "as": "ana"})
    assert (await other.reply("n1"))["error"] == "not-over"


@pytest.mark.asyncio
async def test_a_late_seat_read_never_takes_back_seats_given_here_meanwhile(
    servers: list[Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each seat given tells every server, this one too, to read the seats again. A read that
    answers late (made before the seats given after it were written) once replaced the
    seats in memory: a table device lost seats it had just been given. Seat reads and writes
    now take turns per table, and a read with seat work queued after it leaves the news to
    that work."""
    a, _ = servers
    hub = a.app[HUB_KEY]
    table = await open_table(a, FOUR)
    tid = table["id"]
    await hub.table(tid)
    real = SharedStore.seats
    calls: list[int] = []

    def late(self: SharedStore, table_id: str) -> dict[str, str]:
        got = real(self, table_id)
        calls.append(1)
        if len(calls) == 1:
            time.sleep(0.5)  # the first read answers after every later write
        return got

    monkeypatch.setattr(SharedStore, "seats", late)
    res = await a.post(f"/api/tables/{tid}/seats", json={"seats": ["ana", "bo", "cy"]})
    tokens = (await res.json())["tokens"]
    assert sorted(tokens) == ["ana", "bo", "cy"]
    for _ in range(40):
        await asyncio.sleep(0.05)
        assert sorted(hub.tables[tid].seats) == ["ana", "bo", "cy"]
    device = Phone(
        await a.ws_connect(f"/ws/t/{tid}?" + "&".join(f"token={t}" for t in tokens.values()))
    )
    await device.ws.send_json({"type": "hello", "tokens": list(tokens.values()), "since": 0})
    assert (await device.until("welcome"))["seats"] == ["ana", "bo", "cy"]

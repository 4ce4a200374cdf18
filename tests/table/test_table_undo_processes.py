"""Issue 18 item 2: undo questions across the processes sharing one PostgreSQL store. A question
asked on one process (its origin) is put to the phones holding the change's seat, and to the
host's, on every process; an answer there goes back to the origin, whose first answer decides;
the question closes everywhere when it is answered, refused, or the table moves on (whichever
process's phone changed it); a seat held only on another process counts as held."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient
from table_helpers import Phone, open_table, phone, seat, until
from test_table_undo_owner import host_phone

from lifeledger_table.decide.limits import Limits
from lifeledger_table.live.hub import HUB_KEY, Hub
from lifeledger_table.live.takeover import TAKEOVERS_KEY
from lifeledger_table.live.undoasks import UNDO_ASKS_KEY
from lifeledger_table.server import create_app
from lifeledger_table.store.postgres import PostgresStore

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")], "starting_life": 40}
FAST = Limits(rate=1000, burst=1000, table_rate=1000, table_burst=1000)
BO_TAKES_7_FROM_CY = {"do": "lose_life", "player": "cy", "amount": 7}


@pytest_asyncio.fixture
async def apps(aiohttp_client: Callable[..., Any], pg_url: str) -> AsyncIterator[list[Client]]:
    """Two apps on one PostgreSQL database (each its own store, as two processes have). The
    one following the table stops first, the owner once the link is gone (a link closing
    while its owner stops is not what these tests are about)."""
    both = [await aiohttp_client(create_app(PostgresStore(pg_url), FAST)) for _ in range(2)]
    yield both
    for client in sorted(both, key=lambda c: any(hub(c).owners.followers.values())):
        async with asyncio.timeout(15):
            while any(hub(client).owners.followers.values()):
                await asyncio.sleep(0.01)
        await client.close()


def hub(client: Client) -> Hub:
    found: Hub = client.app[HUB_KEY]
    return found


def life(view: dict[str, Any], player: str) -> Any:
    return next(p for p in view["state"]["players"] if p["id"] == player)["life"]


async def state(client: Client, table: str) -> dict[str, Any]:
    data: dict[str, Any] = await (await client.get(f"/api/tables/{table}")).json()
    return data


async def opened(client: Client) -> dict[str, Any]:
    """A table opened through ``client``'s process, which owns it (its lease)."""
    table = await open_table(client, FOUR)
    await state(client, table["id"])  # loaded there, and so claimed
    async with asyncio.timeout(10):
        while table["id"] not in hub(client).owners.mine:
            await asyncio.sleep(0.01)
    return table


async def seated(client: Client, table: str, player: str) -> Phone:
    return await phone(client, table, await seat(client, table, player))


async def collect(p: Phone, *kinds: str) -> dict[str, dict[str, Any]]:
    """The phone's next message of each kind (in any order; ``"undo"``: an undo event)."""
    found: dict[str, dict[str, Any]] = {}
    while set(kinds) - set(found):
        msg = await p.recv()
        kind = msg["type"]
        if kind == "event" and msg["entry"]["kind"] == "undo":
            kind = "undo"
        if kind in kinds and kind not in found:
            found[kind] = msg
    return found


async def answer(p: Phone, question: dict[str, Any], allow: bool) -> None:
    await p.ws.send_json({"type": "undo_answer", "request": question["request"], "allow": allow})


async def until_heard(client: Client, table: str, player: str) -> None:
    """The process has heard that a phone on another one holds the seat (and, only that: its
    doubt since it started is over)."""
    takeovers = client.app[TAKEOVERS_KEY]
    takeovers.unsure_until = 0.0
    async with asyncio.timeout(10):
        while (table, player) not in takeovers.elsewhere:
            await asyncio.sleep(0.01)


async def test_undo_asked_on_one_process_is_allowed_by_the_seats_phone_on_the_other(
    apps: list[Client],
) -> None:
    """Bo (his phone on process 2) takes 7 from Cy; Ana (process 1) asks to undo it: Bo's phone
    is asked, allows, and the undo is applied once, as Ana's, noting Bo allowed it; both
    phones see it, and the question is closed on both."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    ana, bo = await seated(a, tid, "ana"), await seated(b, tid, "bo")
    assert (await bo.act(BO_TAKES_7_FROM_CY))["type"] == "ack"
    cid = await ana.send("undo", target=1)
    asked = await ana.until("undo_asked")
    question = await bo.until("undo_request")
    assert question["request"] == asked["request"] and question["target"] == 1
    assert question["seat"] == "ana" and question["owner"] == "bo" and question["by"] == "Bo"
    assert question["action"] == BO_TAKES_7_FROM_CY and 0 < question["expires"] <= 60
    await answer(bo, question, True)
    seen = await collect(ana, "undo_closed", "undo")
    assert seen["undo_closed"]["status"] == "allowed"
    undo = seen["undo"]
    assert undo["id"] == cid and undo["entry"]["seat"] == "ana"
    assert undo["entry"]["allowed"] == "bo" and life(undo, "cy") == 40
    theirs = await collect(bo, "undo_closed", "undo")
    assert theirs["undo_closed"]["status"] == "allowed" and life(theirs["undo"], "cy") == 40
    assert not a.app[UNDO_ASKS_KEY].asks and not b.app[UNDO_ASKS_KEY].asks
    # An answer after it closed is turned down, and applies nothing again.
    await answer(bo, question, True)
    assert (await bo.until("error"))["error"] == "unknown-request"
    events = hub(a).store.events(tid)
    assert [e.kind for e in events] == ["action", "undo"]


async def test_undo_refused_on_the_other_process_names_who_refused_and_changes_nothing(
    apps: list[Client],
) -> None:
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    ana, bo = await seated(a, tid, "ana"), await seated(b, tid, "bo")
    await bo.act(BO_TAKES_7_FROM_CY)
    await ana.send("undo", target=1)
    question = await bo.until("undo_request")
    await answer(bo, question, False)
    closed = await ana.until("undo_closed")
    assert closed["status"] == "refused" and closed["message"] == "Bo refused."
    assert closed["sentence"] == {"msg": "{player} refused.", "args": {"player": "Bo"}}
    mirrored = await bo.until("undo_closed")
    assert mirrored["request"] == question["request"] and mirrored["status"] == "refused"
    assert mirrored["message"] == "Bo refused." and mirrored["sentence"] == closed["sentence"]
    await answer(bo, question, True)
    assert (await bo.until("error"))["error"] == "unknown-request"
    data = await state(a, tid)
    assert life(data, "cy") == 33 and data["seq"] == 1 and data["undo_target"] == 1


@pytest.mark.parametrize("asker_on_owner", [True, False], ids=["asked-on-owner", "on-follower"])
async def test_undo_question_is_stale_on_both_processes_when_another_phone_changes_the_table(
    apps: list[Client], asker_on_owner: bool
) -> None:
    """Ana asks to undo Bo's change; Cy, her phone on the other process than Ana's, changes
    something meanwhile: the question is over as stale for Ana and for Bo's phone (the process
    that asked learns of Cy's change from the owner, or decides it)."""
    owner, other = apps
    table = await opened(owner)
    tid = table["id"]
    here, there = (owner, other) if asker_on_owner else (other, owner)
    ana = await seated(here, tid, "ana")
    bo, cy = await seated(there, tid, "bo"), await seated(there, tid, "cy")
    assert tid in hub(owner).owners.mine
    await until(lambda: tid in hub(other).owners.remote)  # followed at the owner
    await bo.act(BO_TAKES_7_FROM_CY)
    await ana.send("undo", target=1)
    question = await bo.until("undo_request")
    assert (await cy.act({"do": "gain_life", "player": "cy", "amount": 1}))["type"] == "ack"
    closed = await ana.until("undo_closed")
    assert closed["status"] == "stale" and closed["request"] == question["request"]
    assert "no longer the last change" in closed["message"]
    assert (await bo.until("undo_closed"))["status"] == "stale"
    await answer(bo, question, True)
    assert (await bo.until("error"))["error"] == "unknown-request"
    data = await state(owner, tid)
    assert data["seq"] == 2 and life(data, "cy") == 34


async def test_undo_question_is_answered_by_the_host_on_the_other_process(
    apps: list[Client],
) -> None:
    """Bo's phone is on process 1 with Ana's; the host (holding Cy's seat) is on process 2: it
    is asked too, and its yes decides; Bo's phone sees the question close."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    ana, bo = await seated(a, tid, "ana"), await seated(a, tid, "bo")
    host = await host_phone(b, table, "cy")
    await bo.act(BO_TAKES_7_FROM_CY)
    cid = await ana.send("undo", target=1)
    question = await host.until("undo_request")
    assert (await bo.until("undo_request"))["request"] == question["request"]
    await answer(host, question, True)
    undo = (await collect(ana, "undo"))["undo"]
    assert undo["id"] == cid and undo["entry"]["allowed"] == "host"
    assert (await bo.until("undo_closed"))["status"] == "allowed"
    assert (await host.until("undo_closed"))["status"] == "allowed"
    assert life(await state(a, tid), "cy") == 40


async def test_host_undo_of_a_seat_held_only_on_the_other_process_is_asked_not_decided(
    apps: list[Client],
) -> None:
    """The host (process 1) takes back Bo's change: Bo's phone is on process 2, which said so:
    it is asked there, not decided at once. Di's change, her phone gone and never on the
    other process, is the host's to take back at once."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    host = await host_phone(a, table, "cy")
    di = await seated(a, tid, "di")
    bo = await seated(b, tid, "bo")
    await until_heard(a, tid, "bo")
    await bo.act(BO_TAKES_7_FROM_CY)
    reply = await host.reply(await host.send("undo", target=1))
    assert reply["type"] == "undo_asked"
    question = await bo.until("undo_request")
    assert question["request"] == reply["request"] and question["seat"] == "cy"
    await answer(bo, question, True)
    assert (await collect(host, "undo"))["undo"]["entry"]["allowed"] == "bo"
    await di.act({"do": "lose_life", "player": "di", "amount": 2})
    await di.ws.close()
    await asyncio.sleep(0.05)
    reply = await host.reply(await host.send("undo", target=3))
    assert reply["type"] == "ack"
    data = await state(a, tid)
    assert life(data, "di") == 40 and data["entries"][-1]["allowed"] == "host"


async def test_undo_nobody_to_ask_anywhere_is_refused_at_once(apps: list[Client]) -> None:
    """Di's phone is gone, no host is connected, and no other process holds her seat: Ana's
    undo of Di's change is refused at once, naming why."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    ana, di = await seated(a, tid, "ana"), await seated(a, tid, "di")
    await seated(b, tid, "bo")
    await until_heard(a, tid, "bo")
    await di.act({"do": "lose_life", "player": "di", "amount": 2})
    await di.ws.close()
    await asyncio.sleep(0.05)
    refused = await ana.reply(await ana.send("undo", target=1))
    assert refused["error"] == "not-yours" and "Neither Di's device" in refused["message"]


async def test_undo_notices_made_up_or_for_another_process_change_nothing(
    apps: list[Client],
) -> None:
    """Notices naming a request never asked, another process, or another table are ignored:
    the question waits, and the real answer still decides."""
    a, b = apps
    table = await opened(a)
    tid = table["id"]
    ana, bo = await seated(a, tid, "ana"), await seated(b, tid, "bo")
    await bo.act(BO_TAKES_7_FROM_CY)
    await ana.send("undo", target=1)
    question = await bo.until("undo_request")
    rid = question["request"]
    asks, mirrors = a.app[UNDO_ASKS_KEY], b.app[UNDO_ASKS_KEY]
    me = a.app[TAKEOVERS_KEY].me
    forged = [
        ("undo_answer", tid, {"to": me, "request": "made-up", "allow": True, "answerer": "owner"}),
        ("undo_answer", tid, {"to": "someone", "request": rid, "allow": True, "answerer": "host"}),
        ("undo_answer", "other-table", {"to": me, "request": rid, "allow": True}),
        ("undo_answer", tid, {"to": me, "request": rid, "allow": "yes", "answerer": "owner"}),
        ("undo_closed", tid, {"request": rid, "status": "refused", "message": "no"}),
    ]
    for kind, table_id, detail in forged:
        hub(a).follower.notified(kind, table_id, json.dumps({"from": "intruder", **detail}))
    # The mirror closes only on its origin's word, never on another's.
    hub(b).follower.notified(
        "undo_closed",
        tid,
        json.dumps({"from": "intruder", "request": rid, "status": "refused", "message": "no"}),
    )
    hub(b).follower.notified(
        "undo_ask",
        "no-such-table",
        json.dumps({"from": "x", "request": "r", "seat": "ana", "owner": "bo", "target": 1}),
    )
    assert list(asks.asks) == [rid] and list(mirrors.asks) == [rid]
    assert life(await state(a, tid), "cy") == 33
    await answer(bo, question, True)
    assert (await collect(ana, "undo"))["undo"]["entry"]["allowed"] == "bo"


async def test_host_undo_right_after_a_start_is_not_kept_waiting_by_what_is_not_known_yet(
    apps: list[Client],
) -> None:
    """A process that has just started can't know yet which seats the others' phones hold (it
    hears within a sweep). Di's phone is gone and no other process ever said it held her seat:
    the host's undo of Di's change is taken back at once, not asked for a minute."""
    a, _b = apps
    table = await opened(a)
    tid = table["id"]
    a.app[TAKEOVERS_KEY].unsure()  # as after a start
    host = await host_phone(a, table, "cy")
    di = await seated(a, tid, "di")
    await di.act({"do": "lose_life", "player": "di", "amount": 2})
    await di.ws.close()
    await asyncio.sleep(0.05)
    reply = await host.reply(await host.send("undo", target=1))
    assert reply["type"] == "ack"
    data = await state(a, tid)
    assert life(data, "di") == 40 and data["entries"][-1]["allowed"] == "host"

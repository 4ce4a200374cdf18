"""Table mode, the server's side (issue 8): one shared phone or tablet in the middle of the
table holds the seats of everyone playing on it, on one socket, and acts as each of them
(``"as"``); personal phones at the same table take their seat from it at once."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from aiohttp import WSServerHandshakeError
from aiohttp.test_utils import TestClient
from table_helpers import JSON, Phone, open_table, phone, seat

from lifeledger_table.hub import HUB_KEY
from lifeledger_table.protocol import GATE_KEY
from lifeledger_table.server import Limits
from lifeledger_table.takeover import takeovers_of

pytestmark = pytest.mark.asyncio

Client = TestClient[Any, Any]
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")]}


async def take_seats(client: Client, table: str, body: dict[str, Any]) -> dict[str, Any]:
    """``POST /api/tables/{table}/seats``: the answer (tokens and skipped)."""
    res = await client.post(f"/api/tables/{table}/seats", json=body)
    assert res.status == 200, await res.text()
    data: dict[str, Any] = await res.json()
    return data


class Device(Phone):
    """A table device's socket: several seats, each change sent ``as`` one of them."""

    tokens: list[str]

    async def hello_again(self) -> dict[str, Any]:
        """Say hello again with its tokens; the welcome (errors before it are skipped)."""
        await self.ws.send_json({"type": "hello", "tokens": self.tokens, "since": self.seq})
        return await self.until("welcome")

    async def as_(self, seat: str, kind: str, **members: Any) -> dict[str, Any]:
        """Send a change as ``seat``; its ack or error."""
        self.n += 1
        cid = f"d{id(self)}-{self.n}"
        await self.ws.send_str(json.dumps({"type": kind, "id": cid, "as": seat, **members}))
        return await self.reply(cid)


async def device(client: Client, table: str, tokens: dict[str, str]) -> tuple[Device, Any]:
    """A table device's socket holding ``tokens``' seats (named in its URL and its hello, as
    the page does); returns it and its welcome."""
    query = "&".join(f"token={t}" for t in tokens.values())
    d = Device(await client.ws_connect(f"/ws/t/{table}?{query}&device=table"))
    d.tokens = list(tokens.values())
    await d.ws.send_json(
        {"type": "hello", "tokens": list(tokens.values()), "since": 0, "device": "table"}
    )
    return d, await d.until("welcome")


async def device_of_three(client: Client) -> tuple[dict[str, Any], Device, dict[str, str]]:
    """A four-player table whose device holds Ana's, Bo's and Cy's seats (Di has a phone)."""
    table = await open_table(client, FOUR)
    answer = await take_seats(client, table["id"], {"seats": ["ana", "bo", "cy"]})
    assert set(answer["tokens"]) == {"ana", "bo", "cy"} and answer["skipped"] == {}
    d, welcome = await device(client, table["id"], answer["tokens"])
    assert welcome["seats"] == ["ana", "bo", "cy"] and welcome["device"] == "table"
    assert welcome["seat"] == "ana"  # the first, for pages that know one seat
    return table, d, answer["tokens"]


def life(view: dict[str, Any], player: str) -> Any:
    return next(p for p in view["state"]["players"] if p["id"] == player)["life"]


async def test_a_device_holding_three_of_four_seats_acts_as_each_of_them(client: Client) -> None:
    _table, d, _tokens = await device_of_three(client)
    for n, who in enumerate(["ana", "bo", "cy"], start=1):
        reply = await d.as_(who, "action", action={"do": "lose_life", "player": who, "amount": n})
        assert reply["type"] == "ack", reply
        event = await d.until("event")
        assert event["entry"]["seat"] == who  # the timeline says which seat acted
    assert [life(d.view, p) for p in ("ana", "bo", "cy", "di")] == [19, 18, 17, 20]
    # Undo and the next game are sent as a seat too.
    assert (await d.as_("bo", "undo", target=d.seq))["type"] == "ack"
    event = await d.until("event")
    assert event["entry"]["seat"] == "bo" and life(d.view, "cy") == 20


async def test_104_3a_a_device_concedes_only_for_a_seat_it_holds(client: Client) -> None:
    table, d, _tokens = await device_of_three(client)
    di = await phone(client, table["id"], await seat(client, table["id"], "di"))
    refused = await d.as_("ana", "action", action={"do": "concede", "player": "di"})
    assert refused["error"] == "not-your-seat" and refused["rule"] == "104.3a"
    # Naming Di's seat as the sender doesn't help: the device doesn't hold it.
    refused = await d.as_("di", "action", action={"do": "concede", "player": "di"})
    assert refused["error"] == "not-your-seat" and refused["member"] == "as"
    assert "Di" in refused["message"]
    # Bo concedes for himself from the device; Di's own phone may too.
    assert (await d.as_("bo", "action", action={"do": "concede", "player": "bo"}))["type"] == "ack"
    assert (await di.act({"do": "concede", "player": "di"}))["type"] == "ack"


async def test_a_device_names_which_seat_acts(client: Client) -> None:
    """Holding several seats, a change without ``as`` is refused (which player sends it
    matters: 104.3a); ``as`` naming no seat at all is refused too. A phone with one seat may
    leave it out, or name its seat."""
    table, d, _tokens = await device_of_three(client)
    cid = await d.send("action", {"do": "lose_life", "player": "bo", "amount": 1})
    reply = await d.reply(cid)
    assert reply["error"] == "malformed" and reply["member"] == "as"
    assert (await d.as_("zed", "next_game"))["error"] == "not-your-seat"
    await d.ws.send_json({"type": "undo", "id": "u1", "as": 3, "target": 1})
    assert (await d.reply("u1"))["member"] == "as"
    di = await phone(client, table["id"], await seat(client, table["id"], "di"))
    assert (await di.act({"do": "lose_life", "player": "di", "amount": 1}))["type"] == "ack"
    await di.ws.send_json(
        {"type": "action", "id": "a1", "as": "di", "action": {"do": "concede", "player": "di"}}
    )
    assert (await di.reply("a1"))["type"] == "ack"


async def test_a_personal_phone_takes_a_device_held_seat_at_once_and_the_device_keeps_the_rest(
    client: Client,
) -> None:
    table, d, tokens = await device_of_three(client)
    tid = table["id"]
    res = await client.post(f"/api/tables/{tid}/seats/bo", json={})
    assert res.status == 200, await res.text()  # no takeover question: Bo came with a phone
    bo = await phone(client, tid, (await res.json())["token"])
    assert (await d.until("seat_lost")) == {"type": "seat_lost", "seat": "bo"}
    assert (await d.as_("ana", "action", action={"do": "lose_life", "player": "bo", "amount": 2}))[
        "type"
    ] == "ack"
    assert (await d.as_("bo", "action", action={"do": "concede", "player": "bo"}))[
        "error"
    ] == "not-your-seat"
    assert (await bo.act({"do": "gain_life", "player": "bo", "amount": 1}))["type"] == "ack"
    # The device's welcome after a reconnection says what it still holds.
    await d.ws.send_json({"type": "hello", "tokens": list(tokens.values()), "since": 0})
    assert (await d.until("error"))["error"] == "bad-token"  # Bo's old token
    assert (await d.until("welcome"))["seats"] == ["ana", "cy"]
    # Now Bo's seat is a personal phone's: asking for it is the usual takeover question.
    res = await client.post(f"/api/tables/{tid}/seats/bo", json={"takeover": True})
    assert res.status == 202


async def test_a_device_that_just_reconnects_still_gives_seats_at_once(client: Client) -> None:
    """A device that closed a moment ago (a reload) holds its seats as lately as a phone
    does: a personal phone still gets one at once, and nobody is asked."""
    table, d, _tokens = await device_of_three(client)
    await d.ws.close()
    for _ in range(100):  # the server sees the socket close
        if not client.app[HUB_KEY].conns.get(table["id"]):
            break
        await asyncio.sleep(0.01)
    res = await client.post(f"/api/tables/{table['id']}/seats/cy", json={"takeover": True})
    assert res.status == 200


async def test_a_device_asking_for_a_device_held_seat_is_not_given_it(client: Client) -> None:
    """Only a personal phone takes a seat from a table device at once; a second device asking
    for it is told it is taken, and asking to take it over asks the device holding it."""
    table, d, _tokens = await device_of_three(client)
    url = f"/api/tables/{table['id']}/seats/bo"
    res = await client.post(url, json={"device": "table"})
    assert res.status == 409 and (await res.json())["connected"] is True
    res = await client.post(url, json={"device": "table", "takeover": True})
    assert res.status == 202  # the device holding it is asked, as a phone would be
    question = await d.until("takeover_request")
    assert question["seat"] == "bo"
    answer = await take_seats(client, table["id"], {"seats": ["bo", "di"]})
    assert set(answer["tokens"]) == {"di"} and answer["skipped"] == {"bo": "taken"}
    # A personal phone asking for several seats at once gets the device's.
    answer = await take_seats(client, table["id"], {"seats": ["bo", "cy"], "device": "phone"})
    assert set(answer["tokens"]) == {"bo", "cy"}


async def test_a_seat_a_personal_phone_holds_is_skipped_for_a_device(client: Client) -> None:
    table = await open_table(client, FOUR)
    tid = table["id"]
    di = await phone(client, tid, await seat(client, tid, "di"))
    answer = await take_seats(client, tid, {"seats": ["ana", "di"], "device": "table"})
    assert set(answer["tokens"]) == {"ana"} and answer["skipped"] == {"di": "taken"}
    # Even "takeover" asks nobody here: a seat a phone holds stays the phone's ...
    answer = await take_seats(client, tid, {"seats": ["di"], "takeover": True})
    assert answer == {"tokens": {}, "skipped": {"di": "taken"}}
    # ... but the host's device takes any seat at once, as the host takes one.
    host = {"takeover": True, "host": table["host"]}
    answer = await take_seats(client, tid, {"seats": ["di"], **host})
    assert set(answer["tokens"]) == {"di"}
    assert (await di.until("seat_lost"))["seat"] == "di"


async def test_two_devices_racing_for_the_same_seats_never_both_get_one(client: Client) -> None:
    table = await open_table(client, FOUR)
    url = f"/api/tables/{table['id']}/seats"
    bodies = [{"seats": ["ana", "bo", "cy"]}, {"seats": ["cy", "di", "bo"]}, {"seats": ["di"]}]
    answers = await asyncio.gather(*(client.post(url, json=b) for b in bodies))
    given = [set((await a.json())["tokens"]) for a in answers]
    skipped = [set((await a.json())["skipped"]) for a in answers]
    assert sorted(s for g in given for s in g) == ["ana", "bo", "cy", "di"]  # each seat once
    for body, got, missed in zip(bodies, given, skipped, strict=True):
        assert got | missed == set(body["seats"]) and not got & missed
    held = client.app[HUB_KEY].tables[table["id"]].seats
    assert sorted(held) == ["ana", "bo", "cy", "di"]
    assert client.app[HUB_KEY].store.seats(table["id"]) == held


BAD_BODIES = [
    ([], "seats"),
    ({}, "seats"),
    ({"seats": "ana"}, "seats"),
    ({"seats": []}, "seats"),
    ({"seats": ["ana", 2]}, "seats"),
    ({"seats": ["ana", "zed"]}, "seats"),
    ({"seats": ["ana", "bo", "ana"]}, "seats"),
    ({"seats": ["ana"], "device": "tablet"}, "device"),
    ({"seats": ["ana"], "takeover": "yes"}, "takeover"),
    ({"seats": ["ana"], "host": 5}, "host"),
    ({"seats": ["ana"], "seat": "bo"}, "seat"),
]


@pytest.mark.parametrize("body,member", BAD_BODIES)
async def test_a_bad_seats_body_is_refused_naming_the_member_and_changes_nothing(
    client: Client, body: Any, member: str
) -> None:
    table = await open_table(client, FOUR)
    tid = table["id"]
    await seat(client, tid, "di")
    before = dict(client.app[HUB_KEY].tables[tid].seats)
    res = await client.post(f"/api/tables/{tid}/seats", json=body)
    assert res.status == 400
    answer = await res.json()
    assert answer["member"] == member and answer["message"]
    assert client.app[HUB_KEY].tables[tid].seats == before
    assert client.app[HUB_KEY].store.seats(tid) == before
    res = await client.post(f"/api/tables/{tid}/seats", data="{", headers=JSON)
    assert res.status == 400 and client.app[HUB_KEY].tables[tid].seats == before


async def test_a_hello_with_a_bad_tokens_member_is_refused_naming_it(client: Client) -> None:
    table, _d, tokens = await device_of_three(client)
    ws = await client.ws_connect(f"/ws/t/{table['id']}")
    for hello, member in [
        ({"tokens": "x" * 43}, "tokens"),
        ({"tokens": [1]}, "tokens"),
        ({"tokens": ["x" * 43] * 17}, "tokens"),
        ({"token": 7}, "token"),
        ({"tokens": list(tokens.values()), "device": "tv"}, "device"),
    ]:
        await ws.send_json({"type": "hello", "since": 0, **hello})
        answer = await ws.receive_json(timeout=10)
        assert answer["error"] == "malformed" and answer["member"] == member, answer
    # "token" and "tokens" together: every seat they hold.
    first, *rest = tokens.values()
    await ws.send_json({"type": "hello", "since": 0, "token": first, "tokens": rest})
    welcome = await ws.receive_json(timeout=10)
    assert welcome["seats"] == ["ana", "bo", "cy"] and welcome["device"] == "phone"


async def test_a_socket_url_naming_an_unknown_device_kind_is_refused(client: Client) -> None:
    table = await open_table(client, FOUR)
    with pytest.raises(WSServerHandshakeError) as refused:
        await client.ws_connect(f"/ws/t/{table['id']}?device=tv")
    assert refused.value.status == 400
    res = await client.get(f"/ws/t/{table['id']}?device=tv")
    assert res.status == 400 and (await res.json())["member"] == "device"


@pytest.mark.parametrize("limits", [Limits(sockets_per_seat=2)])
async def test_a_device_socket_counts_once_for_each_seat_it_holds(client: Client) -> None:
    """The cap on sockets per seat counts a table device's socket for every seat it holds:
    two device sockets fill Ana's and Bo's places, and a third socket for either is refused,
    while Cy's seat still takes one."""
    table = await open_table(client, FOUR)
    tokens = (await take_seats(client, table["id"], {"seats": ["ana", "bo", "cy"]}))["tokens"]
    two = {s: tokens[s] for s in ("ana", "bo")}
    await device(client, table["id"], two)
    await device(client, table["id"], two)
    ws = await client.ws_connect(f"/ws/t/{table['id']}?token={tokens['bo']}&token={tokens['cy']}")
    assert (await ws.receive_json(timeout=10))["error"] == "too-many-sockets"
    cy = await phone(client, table["id"], tokens["cy"])
    assert (await cy.act({"do": "lose_life", "player": "ana", "amount": 1}))["type"] == "ack"


@pytest.mark.parametrize("limits", [Limits(sockets_per_seat=1)])
async def test_a_seat_taken_from_a_device_has_room_for_the_new_phones_socket(
    client: Client,
) -> None:
    """The device's socket stops counting for a seat it lost (it stays open for the others):
    the personal phone that took the seat gets its socket, even with one socket a seat."""
    table, d, _tokens = await device_of_three(client)
    res = await client.post(f"/api/tables/{table['id']}/seats/bo", json={})
    bo = await phone(client, table["id"], (await res.json())["token"])
    assert (await bo.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"
    assert (await d.until("seat_lost"))["seat"] == "bo"
    ws = await client.ws_connect(f"/ws/t/{table['id']}?token={_tokens['ana']}")
    assert (await ws.receive_json(timeout=10))["error"] == "too-many-sockets"  # Ana's is full
    await d.ws.close()
    gate = client.app[GATE_KEY]
    bo_place = f"{table['id']}\nbo"
    for _ in range(100):  # every other count goes once the device's socket has closed
        if set(gate.by_table) == {bo_place}:
            break
        await asyncio.sleep(0.01)
    assert set(gate.by_table) == {bo_place}


@pytest.mark.parametrize("limits", [Limits(takeovers=1)])
async def test_taking_seats_from_a_device_is_budgeted_as_takeovers(client: Client) -> None:
    """A seat taken from a device at once is a takeover like any other: with a budget of one
    takeover per address, the second is refused (429) and changes nothing; free seats are
    never budgeted."""
    table, d, _tokens = await device_of_three(client)
    tid = table["id"]
    assert (await client.post(f"/api/tables/{tid}/seats/bo", json={})).status == 200
    assert (await client.post(f"/api/tables/{tid}/seats/cy", json={})).status == 429
    res = await client.post(f"/api/tables/{tid}/seats", json={"seats": ["cy"], "device": "phone"})
    assert res.status == 429
    assert (await take_seats(client, tid, {"seats": ["di"]}))["tokens"].keys() == {"di"}
    welcome = await d.hello_again()
    assert welcome["seats"] == ["ana", "cy"]


async def test_other_servers_hear_which_seats_only_a_device_holds(client: Client) -> None:
    """The notice telling other servers which seats sockets here hold names those only table
    devices hold (a personal phone on another server gets them at once); a server that says
    nothing of devices (an older build) holds every seat it names as a phone would."""
    table, _d, _tokens = await device_of_three(client)
    tid = table["id"]
    await phone(client, tid, await seat(client, tid, "di"))
    hub = client.app[HUB_KEY]
    takeovers = takeovers_of(hub)
    told: list[tuple[str, str, dict[str, Any]]] = []
    takeovers.feed = lambda kind, t, detail: told.append((kind, t, json.loads(detail)))
    takeovers.announce(hub)
    assert [(k, t, d["seats"], d["devices"]) for k, t, d in told] == [
        ("holding", tid, ["ana", "bo", "cy", "di"], ["ana", "bo", "cy"])
    ]
    takeovers.heard_holding("other", ["p1", "p2"], ["p2"])
    takeovers.heard_holding("old", ["p1"])
    assert ("other", "p2") in takeovers.elsewhere_devices
    assert ("other", "p1") in takeovers.elsewhere and ("old", "p1") in takeovers.elsewhere

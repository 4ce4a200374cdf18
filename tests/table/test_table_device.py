"""Table mode, the server's side (issue 8): one shared phone or tablet in the middle of the
table holds the seats of everyone playing on it, on one socket, and acts as each of them
(``"as"``). A seat a device holds is in use (issue 21 item 2): a personal phone asking for it
is answered by the device or the host, as for any held seat."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from aiohttp import WSServerHandshakeError
from aiohttp.test_utils import TestClient
from table_helpers import JSON, Phone, open_table, phone, seat

from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.live.takeover import TAKEOVERS_KEY
from lifeledger_table.server import Limits, create_app
from lifeledger_table.store.sqlite import SQLiteStore
from lifeledger_table.web.protocol import GATE_KEY

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


async def take_from_device(client: Client, d: Device, table: str, seat: str) -> str:
    """A personal phone asks for ``seat``, which the device holds: the device is asked and
    allows it with one answer; the phone's token."""
    asked = await client.post(f"/api/tables/{table}/seats/{seat}", json={"takeover": True})
    assert asked.status == 202, await asked.text()
    rid = (await asked.json())["request"]
    question = await d.until("takeover_request")
    assert question == {"type": "takeover_request", "request": rid, "seat": seat}
    await d.ws.send_json({"type": "takeover_answer", "request": rid, "allow": True})
    res = await client.get(f"/api/tables/{table}/takeovers/{rid}")
    answer = await res.json()
    assert answer["status"] == "allowed", answer
    token: str = answer["token"]
    return token


async def test_anyone_with_the_link_is_refused_a_device_held_seat_and_cannot_concede_it(
    client: Client,
) -> None:
    """Issue 21 item 2: while a table device held Bo's seat, ``POST .../seats/bo`` gave
    anyone a token at once, nobody was asked, and a ``concede`` ended Bo's game for good. A
    seat a device holds is in use: asking is refused (409, the device named), asking to take
    it over is a request put to the device, and nothing is given meanwhile, by either
    endpoint."""
    table, d, tokens = await device_of_three(client)
    tid = table["id"]
    res = await client.post(f"/api/tables/{tid}/seats/bo", json={})
    assert res.status == 409
    assert await res.json() == {
        "error": "seat-taken",
        "message": "This seat is taken. Take it over?",
        "sentence": {"msg": "This seat is taken. Take it over?"},
        "connected": True,
        "device": True,
    }
    for body in ({"device": "phone"}, {"device": "table"}):
        res = await client.post(f"/api/tables/{tid}/seats/bo", json=body)
        assert res.status == 409 and (await res.json())["connected"] is True
    answer = await take_seats(client, tid, {"seats": ["bo", "cy"], "device": "phone"})
    assert answer == {"tokens": {}, "skipped": {"bo": "taken", "cy": "taken"}}
    answer = await take_seats(client, tid, {"seats": ["bo"], "device": "phone", "takeover": True})
    assert answer == {"tokens": {}, "skipped": {"bo": "taken"}}
    res = await client.post(f"/api/tables/{tid}/seats/bo", json={"takeover": True})
    assert res.status == 202 and set(await res.json()) == {"request", "expires"}
    assert (await d.until("takeover_request"))["seat"] == "bo"
    assert client.app[HUB_KEY].tables[tid].seats.keys() == {"ana", "bo", "cy"}
    # The device still holds Bo's seat, and nobody else can concede for Bo (104.3a).
    assert (await d.as_("bo", "action", action={"do": "lose_life", "player": "bo", "amount": 1}))[
        "type"
    ] == "ack"
    welcome = await d.hello_again()
    assert welcome["seats"] == ["ana", "bo", "cy"] and tokens.keys() == {"ana", "bo", "cy"}


async def test_a_device_refusing_keeps_the_seat(client: Client) -> None:
    table, d, _tokens = await device_of_three(client)
    tid = table["id"]
    asked = await client.post(f"/api/tables/{tid}/seats/cy", json={"takeover": True})
    rid = (await asked.json())["request"]
    await d.until("takeover_request")
    await d.ws.send_json({"type": "takeover_answer", "request": rid, "allow": False})
    res = await client.get(f"/api/tables/{tid}/takeovers/{rid}")
    assert (await res.json())["status"] == "refused"
    assert (await d.hello_again())["seats"] == ["ana", "bo", "cy"]


async def test_a_personal_phone_the_device_allows_takes_its_seat_and_the_device_keeps_the_rest(
    client: Client,
) -> None:
    table, d, tokens = await device_of_three(client)
    tid = table["id"]
    bo = await phone(client, tid, await take_from_device(client, d, tid, "bo"))
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
    # Bo's seat is a personal phone's: asking for it is the usual takeover question.
    res = await client.post(f"/api/tables/{tid}/seats/bo", json={"takeover": True})
    assert res.status == 202


async def test_a_device_that_just_reconnects_still_holds_its_seats(client: Client) -> None:
    """A device that closed a moment ago (a reload) holds its seats as lately as a phone
    does: a takeover is a request (the host is asked), and the host takes one at once."""
    table, d, _tokens = await device_of_three(client)
    await d.ws.close()
    for _ in range(100):  # the server sees the socket close
        if not client.app[HUB_KEY].conns.get(table["id"]):
            break
        await asyncio.sleep(0.01)
    url = f"/api/tables/{table['id']}/seats/cy"
    res = await client.post(url, json={})
    assert res.status == 409 and await res.json() == {
        "error": "seat-taken",
        "message": "This seat is taken. Take it over?",
        "sentence": {"msg": "This seat is taken. Take it over?"},
        "connected": True,
    }
    assert (await client.post(url, json={"takeover": True})).status == 202
    res = await client.post(url, json={"takeover": True, "host": table["host"]})
    assert res.status == 200


async def test_a_device_asking_for_a_device_held_seat_is_not_given_it(client: Client) -> None:
    """A second device asking for a device's seat is told it is taken, and asking to take it
    over asks the device holding it."""
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
    bo = await phone(client, table["id"], await take_from_device(client, d, table["id"], "bo"))
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
    """A seat the host takes from a device at once is a takeover like any other: with a
    budget of one takeover per address, the second is refused (429) and changes nothing; free
    seats are never budgeted."""
    table, d, _tokens = await device_of_three(client)
    tid = table["id"]
    host = {"takeover": True, "host": table["host"]}
    assert (await client.post(f"/api/tables/{tid}/seats/bo", json=host)).status == 200
    assert (await client.post(f"/api/tables/{tid}/seats/cy", json=host)).status == 429
    res = await client.post(f"/api/tables/{tid}/seats", json={"seats": ["cy"], **host})
    assert res.status == 429
    assert (await take_seats(client, tid, {"seats": ["di"]}))["tokens"].keys() == {"di"}
    welcome = await d.hello_again()
    assert welcome["seats"] == ["ana", "cy"]


async def test_other_servers_hear_a_device_held_seat_as_held(client: Client) -> None:
    """The notice telling other servers which seats sockets here hold names a table
    device's seats as any others (no more ``devices``: a build that reads it gave those away
    at once); a notice from an older build that names some still holds every seat it names."""
    table, _d, _tokens = await device_of_three(client)
    tid = table["id"]
    await phone(client, tid, await seat(client, tid, "di"))
    hub = client.app[HUB_KEY]
    takeovers = client.app[TAKEOVERS_KEY]
    told: list[tuple[str, str, dict[str, Any]]] = []
    takeovers.feed = lambda kind, t, detail: told.append((kind, t, json.loads(detail)))
    takeovers.announce(hub)
    assert [(k, t, d["seats"], "devices" in d) for k, t, d in told] == [
        ("holding", tid, ["ana", "bo", "cy", "di"], False)
    ]
    takeovers.heard_holding("other", ["p1", "p2"], ["p2"])
    assert ("other", "p1") in takeovers.elsewhere and ("other", "p2") in takeovers.elsewhere


@pytest.mark.parametrize("limits", [Limits(sockets_per_seat=2)])
async def test_a_hello_holds_no_seat_past_its_cap_on_sockets(client: Client) -> None:
    """The cap on sockets per seat held only for the tokens in a socket's URL: a socket
    opened with Bo's token (or none) then said hello with Ana's and Bo's and held Ana's seat
    on a third socket, and so on without end. A hello now counts the socket in for each seat
    it holds: a seat at its cap is refused by name (``too-many-sockets``, member ``tokens``)
    and not held; a hello without tokens counts the socket out of its URL's seats."""
    table = await open_table(client, FOUR)
    tid = table["id"]
    tokens = (await take_seats(client, tid, {"seats": ["ana", "bo", "cy"]}))["tokens"]
    await device(client, tid, {"ana": tokens["ana"]})
    second, _ = await device(client, tid, {"ana": tokens["ana"]})
    both = {"ana": tokens["ana"], "bo": tokens["bo"]}
    third = Device(await client.ws_connect(f"/ws/t/{tid}?token={tokens['bo']}&device=table"))
    third.tokens = list(both.values())
    await third.ws.send_json({"type": "hello", "tokens": third.tokens, "device": "table"})
    refused = await third.until("error")
    assert refused["error"] == "too-many-sockets" and refused["member"] == "tokens"
    assert refused["seats"] == ["ana"] and "Ana" in refused["message"]
    welcome = await third.until("welcome")
    assert welcome["seats"] == ["bo"]
    assert (
        await third.as_("ana", "action", action={"do": "gain_life", "player": "ana", "amount": 1})
    )["error"] == "not-your-seat"
    gate = client.app[GATE_KEY]
    assert gate.by_table[f"{tid}\nana"] == 2 and gate.by_table[f"{tid}\nbo"] == 1
    # A visitor's socket (no token in its URL) is held to the same cap.
    visitor = Device(await client.ws_connect(f"/ws/t/{tid}"))
    await visitor.ws.send_json({"type": "hello", "tokens": [tokens["ana"]], "since": 0})
    assert (await visitor.until("error"))["error"] == "too-many-sockets"
    assert (await visitor.until("welcome"))["seats"] == []
    # The second socket says hello with no token: it counts out of Ana's seat, which has
    # room for the third, now.
    await second.ws.send_json({"type": "hello", "since": 0})
    assert (await second.until("welcome"))["seats"] == []
    assert gate.by_table[f"{tid}\nana"] == 1
    assert (await third.hello_again())["seats"] == ["ana", "bo"]
    assert gate.by_table[f"{tid}\nana"] == 2
    await third.ws.close()
    for _ in range(100):
        if gate.by_table.get(f"{tid}\nbo") is None:
            break
        await asyncio.sleep(0.01)
    assert f"{tid}\nbo" not in gate.by_table and gate.by_table[f"{tid}\nana"] == 1


async def test_a_seats_body_of_a_megabyte_is_refused_naming_the_place_not_echoing_it(
    client: Client,
) -> None:
    """``POST .../seats`` with a seat id of half a megabyte, a huge number, a nested list or
    an unknown member of that size: refused (400) naming ``"seats"[n]`` (or the member), its
    message quoting at most a few dozen characters; nothing changes."""
    table = await open_table(client, FOUR)
    tid = table["id"]
    huge = "x" * 500_000
    for body, member, where in [
        ({"seats": ["ana", huge]}, "seats", '"seats"[1]'),
        ({"seats": ["ana", 10**900]}, "seats", '"seats"[1]'),
        ({"seats": [[[["ana"] * 1000]]]}, "seats", '"seats"[0]'),
        ({"seats": ["ana", "bo", "ana"]}, "seats", '"seats"[2]'),
        ({"seats": ["ana"], huge: 1}, "x" * 60, "Unknown member"),
    ]:
        res = await client.post(f"/api/tables/{tid}/seats", json=body)
        assert res.status == 400, body
        answer = await res.json()
        assert answer["member"] == member and where in answer["message"]
        assert len(await res.read()) < 400
    assert client.app[HUB_KEY].tables[tid].seats == {}


class SlowFirstSeat(SQLiteStore):
    """A store whose first seat write is slow (a disk busy for a moment): a later grant's
    write, run in another worker thread, could overtake it."""

    slow = True

    def set_seat(
        self, table_id: str, seat: str, token_hash: str, previous: str | None = None
    ) -> bool:
        if SlowFirstSeat.slow:
            SlowFirstSeat.slow = False
            time.sleep(0.3)
        return super().set_seat(table_id, seat, token_hash, previous)


async def test_a_device_and_a_phone_racing_for_a_seat_both_get_what_they_were_told(
    aiohttp_client: Any, db: str
) -> None:
    """A device is given Ana's free seat and, while that is being written, a personal phone
    takes it over (at once: only a device has it). The phone's write overtook the device's
    (another worker thread): its compare-and-set failed, the seats were read back before the
    device's write, and the device was answered a token its table no longer knew. Seat
    writes of a table are now made in the order they were decided: the device's token holds
    the seat until the phone's takes it, every answer is true, and the seats in memory are
    the store's."""
    SlowFirstSeat.slow = True
    client = await aiohttp_client(create_app(SlowFirstSeat(db)))
    table = await open_table(client, FOUR)
    tid = table["id"]
    dev = asyncio.ensure_future(client.post(f"/api/tables/{tid}/seats", json={"seats": ["ana"]}))
    await asyncio.sleep(0.05)  # the device's seat is claimed, its write under way
    res = await client.post(f"/api/tables/{tid}/seats/ana", json={"takeover": True})
    dev_answer = await (await dev).json()
    assert set(dev_answer["tokens"]) == {"ana"}
    loaded = client.app[HUB_KEY].tables[tid]
    assert loaded.seats == client.app[HUB_KEY].store.seats(tid)
    if res.status == 200:  # the phone took it after the device got it
        holder = (await res.json())["token"]
    else:
        assert res.status == 409
        holder = dev_answer["tokens"]["ana"]
    ana = await phone(client, tid, holder)
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"


async def test_an_as_of_any_kind_is_refused_naming_it_briefly_and_changes_nothing(
    client: Client,
) -> None:
    """``"as"`` of 15,000 characters, a number, a list, an object, ``true``, ``""`` or a seat
    the device doesn't hold: refused with ``member: "as"`` (``not-your-seat`` for text,
    ``malformed`` otherwise), the message quoting at most a few dozen characters of it (a
    15 kB seat name was sent back whole), and no total changes."""
    table, d, _tokens = await device_of_three(client)
    gain = {"do": "gain_life", "player": "ana", "amount": 1}
    for value, code in [
        ("x" * 15_000, "not-your-seat"),
        (10**300, "malformed"),
        (["ana"], "malformed"),
        ({"seat": "ana"}, "malformed"),
        (True, "malformed"),
        ("", "not-your-seat"),
        ("di", "not-your-seat"),
    ]:
        refused = await d.as_(value, "action", action=gain)  # type: ignore[arg-type]
        assert refused["error"] == code and refused["member"] == "as", value
        assert len(refused["message"]) < 120, value
    data = await (await client.get(f"/api/tables/{table['id']}")).json()
    assert life(data, "ana") == 20 and data["seq"] == 0


@pytest.mark.parametrize("limits", [Limits(sockets_per_seat=2)])
async def test_one_seat_at_its_cap_does_not_keep_a_device_out_of_its_other_seats(
    client: Client,
) -> None:
    """A device reconnecting after a flaky network, while its old sockets still count for
    Ana's seat: its socket was refused whole (``too-many-sockets``), leaving Bo and Cy with
    no way to play. It now opens for the seats with room, says at once which it does not
    hold (Ana's, by name), and plays for the others."""
    table = await open_table(client, FOUR)
    tid = table["id"]
    tokens = (await take_seats(client, tid, {"seats": ["ana", "bo", "cy"]}))["tokens"]
    for _ in range(2):
        await device(client, tid, {"ana": tokens["ana"]})
    query = "&".join(f"token={t}" for t in tokens.values())
    d = Device(await client.ws_connect(f"/ws/t/{tid}?{query}&device=table"))
    d.tokens = list(tokens.values())
    first = await d.recv()
    assert first["error"] == "too-many-sockets" and first["seats"] == ["ana"]
    assert "Ana" in first["message"] and first["member"] == "token"
    welcome = await d.hello_again()
    assert welcome["seats"] == ["bo", "cy"]
    gain = {"do": "gain_life", "player": "bo", "amount": 1}
    assert (await d.as_("bo", "action", action=gain))["type"] == "ack"
    assert (await d.as_("ana", "action", action=gain))["error"] == "not-your-seat"
    gate = client.app[GATE_KEY]
    assert [gate.by_table[f"{tid}\n{s}"] for s in ("ana", "bo", "cy")] == [2, 1, 1]


class SlowAppend(SQLiteStore):
    """A store whose event writes take a moment (``delay`` seconds) once asked to."""

    delay = 0.0

    def append(self, events: Any, checkpoints: Any = ()) -> set[str]:
        time.sleep(SlowAppend.delay)
        return super().append(events, checkpoints)


async def test_a_change_in_flight_when_its_seat_is_lost_is_acknowledged_and_kept(
    aiohttp_client: Any, db: str
) -> None:
    """The device sends Bo's change; while it is being written, Bo's own phone takes the
    seat (the host's takeover, at once; the device gets ``seat_lost``). The change was
    decided while the device held the seat: it is written, acknowledged to the device and
    kept; the device's next change as Bo is refused (``not-your-seat``) and changes nothing;
    the others still go through."""
    client = await aiohttp_client(create_app(SlowAppend(db)))
    table = await open_table(client, FOUR)
    tid = table["id"]
    tokens = (await take_seats(client, tid, {"seats": ["ana", "bo", "cy"]}))["tokens"]
    d, _ = await device(client, tid, tokens)
    SlowAppend.delay = 0.3
    try:
        d.n += 1
        cid = f"inflight-{d.n}"
        gain = {"do": "gain_life", "player": "bo", "amount": 5}
        await d.ws.send_str(json.dumps({"type": "action", "id": cid, "as": "bo", "action": gain}))
        await asyncio.sleep(0.05)  # decided, being written
        host = {"takeover": True, "host": table["host"]}
        res = await client.post(f"/api/tables/{tid}/seats/bo", json=host)
        assert res.status == 200
        seen = []
        while len(seen) < 2:
            msg = await d.recv()
            if msg["type"] == "seat_lost" or msg.get("id") == cid:
                seen.append(msg)
    finally:
        SlowAppend.delay = 0.0
    acked = next(m for m in seen if m.get("id") == cid)
    assert acked["type"] == "event", acked
    assert any(m["type"] == "seat_lost" and m["seat"] == "bo" for m in seen)
    assert (await d.as_("bo", "action", action=gain))["error"] == "not-your-seat"
    assert (await d.as_("cy", "action", action=gain))["type"] == "ack"
    data = await (await client.get(f"/api/tables/{tid}")).json()
    assert life(data, "bo") == 30 and data["seq"] == 2


async def test_a_flood_of_hellos_gets_a_few_welcomes_then_throttled_and_changes_nothing(
    client: Client,
) -> None:
    """Each hello is answered with a welcome of up to a page of the timeline (64 kB): twenty
    hellos a second made a megabyte a second from one small message each. After the first,
    hellos spend the socket's history-page budget (2 a second, 5 at once): the rest are
    answered ``throttled``, and the socket keeps its seats and plays on."""
    _table, d, tokens = await device_of_three(client)
    hello = {"type": "hello", "tokens": list(tokens.values()), "since": 0, "device": "table"}
    for _ in range(20):
        await d.ws.send_json(hello)
    kinds: list[str] = []
    while len(kinds) < 20:
        msg = await d.recv()
        if msg["type"] == "welcome":
            kinds.append("welcome")
        elif msg["type"] == "error":
            assert msg["error"] == "throttled" and "hello" in msg["message"]
            kinds.append("throttled")
    assert 5 <= kinds.count("welcome") <= 7 and kinds.count("throttled") >= 13
    gain = {"do": "gain_life", "player": "cy", "amount": 1}
    assert (await d.as_("cy", "action", action=gain))["type"] == "ack"
    assert (await d.as_("bo", "action", action=gain))["type"] == "ack"


async def test_a_die_rolled_on_the_table_device_is_the_tables_not_a_seats(client: Client) -> None:
    """Everyone rolls on the table device, so its results name no seat ("by": null, shown
    "The table rolled ..."); a personal phone's name its seat."""
    table, d, _tokens = await device_of_three(client)
    di = await phone(client, table["id"], await seat(client, table["id"], "di"))
    await d.ws.send_str(json.dumps({"type": "tool", "id": "roll-1", "tool": "roll", "sides": 6}))
    got = await d.until("tools")
    assert got["tools"]["recent"][-1]["by"] is None
    await di.ws.send_str(json.dumps({"type": "tool", "id": "roll-2", "tool": "roll", "sides": 6}))
    while (got := await di.until("tools"))["tools"]["recent"][-1]["n"] < 2:
        pass  # the device's roll, sent to every phone
    assert got["tools"]["recent"][-1]["by"] == "di"

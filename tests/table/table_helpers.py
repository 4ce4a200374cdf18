"""Helpers for the table app's tests: opening tables, taking seats, phones on WebSocket."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

from aiohttp import ClientWebSocketResponse
from aiohttp.test_utils import TestClient

from lifeledger_table.decide import engine
from lifeledger_table.decide.changes import apply_changes
from lifeledger_table.store.records import Event
from lifeledger_table.store.sqlite import SQLiteStore


async def until(check: Callable[[], bool]) -> None:
    """Wait (at most 15 s: the machine may be loaded) for ``check`` to hold: what another
    process learns (a link to a table's owner) comes a moment after the answer that caused it."""
    deadline = asyncio.get_running_loop().time() + 15
    while not check() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    assert check()


#: The header every POST carries (the server refuses other content types: issue 7 item 12).
JSON = {"Content-Type": "application/json"}

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}
THG = {
    "variant": "two-headed-giant",
    "players": [
        {"name": "Ana", "team": "North"},
        {"name": "Bo", "team": "North"},
        {"name": "Cy", "team": "South"},
        {"name": "Di", "team": "South"},
    ],
}


async def open_table(
    client: TestClient[Any, Any], form: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Open a table and return the server's answer (id, watch, code, host, header)."""
    res = await client.post("/api/tables", json=form or TWO)
    assert res.status == 201, await res.text()
    data: dict[str, Any] = await res.json()
    return data


async def seat(
    client: TestClient[Any, Any],
    table: str,
    player: str,
    takeover: bool = False,
    host: str | None = None,
) -> str:
    """Take a seat (a free one, or one taken over: by the host, with ``host``, or one no phone
    has held lately); returns its token."""
    body: dict[str, Any] = {"takeover": True} if takeover else {}
    if host is not None:
        body["host"] = host
    res = await client.post(f"/api/tables/{table}/seats/{player}", json=body)
    assert res.status == 200, await res.text()
    token: str = (await res.json())["token"]
    return token


async def ask_takeover(client: TestClient[Any, Any], table: str, player: str) -> dict[str, Any]:
    """Ask to take over a seat held by a connected phone: the 202 answer (request, expires)."""
    res = await client.post(f"/api/tables/{table}/seats/{player}", json={"takeover": True})
    assert res.status == 202, await res.text()
    data: dict[str, Any] = await res.json()
    return data


class Phone:
    """A WebSocket client as a phone uses it: hello, then actions with ids."""

    def __init__(self, ws: ClientWebSocketResponse) -> None:
        self.ws = ws
        self.n = 0
        #: The phone's copy of the table (issue 9: an event carries only what changed, and
        #: the phone applies it): the last sequence number, state, score and effects.
        self.seq = 0
        self.view: dict[str, Any] = {}
        #: Messages read (and applied) by :meth:`reply` for its ack, still to be returned.
        self.unread: list[dict[str, Any]] = []

    async def recv(self) -> dict[str, Any]:
        """The next message. An event is applied to the phone's copy of the table as the page
        applies it, and returned with that copy's ``state``, ``score`` and ``effects``."""
        if self.unread:
            return self.unread.pop(0)
        msg: dict[str, Any] = await self.ws.receive_json(timeout=10)
        if msg["type"] == "welcome":
            self.seq = msg["seq"]
            self.view = {k: msg[k] for k in ("state", "score", "effects")}
        elif msg["type"] == "event":
            assert msg["seq"] == self.seq + 1, "an event was missed"
            assert "state" not in msg
            self.seq = msg["seq"]
            self.view["state"] = apply_changes(self.view["state"], msg["entry"]["changes"])
            self.view.update({k: msg[k] for k in ("score", "effects") if k in msg})
            msg = {**self.view, **msg}
        return msg

    async def until(self, kind: str) -> dict[str, Any]:
        """The next message of this type (others are skipped)."""
        while True:
            msg = await self.recv()
            if msg["type"] == kind:
                return msg

    async def hello(self, token: str | None = None, since: int = 0) -> dict[str, Any]:
        """Say hello; returns the welcome."""
        await self.ws.send_json({"type": "hello", "token": token, "since": since})
        return await self.until("welcome")

    async def send(
        self,
        kind: str,
        action: dict[str, Any] | None = None,
        cid: str | None = None,
        target: int | None = None,
    ) -> str:
        """Send a change (an undo names its ``target``); returns its id."""
        self.n += 1
        cid = cid or f"c{id(self)}-{self.n}"
        msg: dict[str, Any] = {"type": kind, "id": cid}
        if action is not None:
            msg["action"] = action
        if target is not None:
            msg["target"] = target
        await self.ws.send_str(json.dumps(msg))
        return cid

    async def reply(self, cid: str) -> dict[str, Any]:
        """The ack or error for change ``cid`` (events before it are skipped). The event of a
        change, sent back to its sender with the change's id, is its ack."""
        while True:
            msg = await self.recv()
            if msg.get("id") != cid:
                continue
            if msg["type"] == "event":
                self.unread.append(msg)  # the sender's event too, for until("event")
                return {"type": "ack", "id": cid, "seq": msg["seq"]}
            # An undo of another seat's change is a question to that seat (issue 17 item 10).
            if msg["type"] in ("ack", "error", "undo_asked"):
                return msg

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        """Send an action and wait for its ack or error."""
        return await self.reply(await self.send("action", action))


async def phone(
    client: TestClient[Any, Any], table: str, token: str | None = None, watch: bool = False
) -> Phone:
    """A connected phone that has said hello."""
    seated = f"?token={token}" if token is not None and not watch else ""
    ws = await client.ws_connect(f"/ws/{'w' if watch else 't'}/{table}{seated}")
    p = Phone(ws)
    await p.hello(token)
    return p


async def play_randomly(
    p: Phone, player: str, rng: random.Random, acked: dict[str, int], changes: int = 25
) -> None:
    """``changes`` random gains and losses of 1 for ``player`` (and now and then an undo of
    the last action in effect) from phone ``p``, one at a time; ``acked`` gets each one the
    server acknowledged (client id -> sequence number)."""
    for _ in range(changes):
        if rng.random() < 0.15 and p.view.get("undo_target"):
            cid = await p.send("undo", target=p.view["undo_target"])
        else:
            kind = rng.choice(["gain_life", "lose_life"])
            cid = await p.send("action", {"do": kind, "player": player, "amount": 1})
        reply = await p.reply(cid)
        if reply["type"] == "ack":
            acked[cid] = reply["seq"]


def log_replayed(events: list[Event], header: dict[str, Any]) -> dict[str, Any]:
    """The state of a table's current game: its log, replayed from the start by the engine."""
    effective: list[Event] = []
    for event in events:
        if event.kind == "action":
            effective.append(event)
        elif event.kind == "undo":
            effective.pop()
        else:
            effective = []
    return engine.state_of(engine.replay(header, [e.body["action"] for e in effective]))


class SharedStore(SQLiteStore):
    """One server's store on a file several servers share: every write is told to the
    others' ``listen``, as PostgreSQL's NOTIFY tells them."""

    def __init__(self, path: str, peers: list[SharedStore]) -> None:
        super().__init__(path)
        self.peers = peers
        peers.append(self)
        self.listeners: list[tuple[asyncio.AbstractEventLoop, Callable[..., None]]] = []

    async def listen(self, notified: Callable[[str, str, str], None]) -> None:
        self.listeners.append((asyncio.get_running_loop(), notified))
        await asyncio.Event().wait()

    def notify(self, kind: str, table: str, detail: str) -> None:
        for peer in self.peers:
            for loop, notified in peer.listeners:
                loop.call_soon_threadsafe(notified, kind, table, detail)

    def append(self, events: Any, checkpoints: Any = ()) -> set[str]:
        refused = super().append(events, checkpoints)
        last = {e.table: e.seq for e in events if e.table not in refused}
        for table, seq in last.items():
            self.notify("event", table, str(seq))
        return refused

    def set_seat(
        self, table_id: str, seat: str, token_hash: str, previous: str | None = None
    ) -> bool:
        given = super().set_seat(table_id, seat, token_hash, previous)
        if given:
            self.notify("seats", table_id, "")
        return given

    def put_tools(self, table_id: str, version: int, data: str) -> bool:
        kept = super().put_tools(table_id, version, data)
        if kept:
            self.notify("tools", table_id, str(version))
        return kept

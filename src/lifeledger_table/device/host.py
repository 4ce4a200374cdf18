"""The tables kept on this device, decided here: what the page's engine worker calls.

A device table is the table a server keeps (:class:`..decide.table.Table`, the same
decisions, the same rules engine), in an in-memory SQLite store that the page rebuilds from the
device's own storage (IndexedDB) when it opens: every call returns, beside the messages for the
page, what the page must write to that storage before it shows them (``save``), so that a
change is kept before it is shown as done.

The page talks to a device table as to a server's socket (``static/device.js``): it sends the
same messages (hello, action, undo, next_game, reset, new_game, setup, tool, history, ping) and
gets the same answers (welcome, event, ack, error, tools, history, pong). One device holds
every seat of its tables: there is nobody to ask and no seat to take over.

Every function here takes and returns JSON text (the worker passes strings across).
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import asdict
from typing import Any

from lifeledger.sentences import Sentence

from ..decide.errors import TableError
from ..decide.jsontext import strict_json
from ..decide.messages import CHANGES, CLIENT_ID, MAX_TURN_NUMBER, acknowledged, history_request
from ..decide.setup import build_setup
from ..decide.table import Decision, Table
from ..decide.tools import decide as decide_tool
from ..decide.tools import parse as parse_tool
from ..store.records import Event, TableRow, hash_token
from ..store.sqlite import SQLiteStore

__all__ = ["PREFIX", "create", "forget", "info", "message", "open_table", "record", "warm"]

#: A device table's id begins with this: the page knows from the id alone where the table lives.
PREFIX = "d-"


class _Device:
    """Every table open on this device, each in an in-memory store of its own (forgotten, it
    leaves nothing behind: opened again, it is read again whole from the page's storage)."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}


#: Made at the first call, not at import: the engine worker keeps Pyodide's memory as it is
#: once this module is imported (its kept start, docs/table.md "Device tables"), and that start
#: holds no table and no open database.
_DEVICE: _Device | None = None


def _device() -> _Device:
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = _Device()
    return _DEVICE


def _now_ms() -> int:
    return int(time.time() * 1000)


def _table(table_id: str) -> Table:
    table = _device().tables.get(table_id)
    if table is None:
        raise TableError("unknown-table", Sentence("This table is not open on this device."))
    return table


def _answer(send: list[str], save: dict[str, Any] | None = None) -> str:
    """A call's answer: the messages for the page (JSON texts, delivered in order) and what to
    keep first. Texts, not objects: the page reads them as it reads a socket's, with every
    integer whole (a total of 10^100 loses no digit)."""
    return json.dumps({"send": send, "save": save or {}})


def _parsed(text: str) -> Any:
    try:
        return strict_json(text)
    except ValueError as exc:
        raise TableError("malformed", Sentence("Not JSON: {error}", error=str(exc))) from exc


def _error(cid: str | None, exc: TableError) -> str:
    return json.dumps({"type": "error", "id": cid, **exc.to_json()})


# -- opening --------------------------------------------------------------------------------------


def create(form: str) -> str:
    """A new device table from the setup form (as ``POST /api/tables`` takes it): its id, host
    token and one token for each seat (the device holds them all), and what to keep."""
    try:
        given = _parsed(form)
        setup = build_setup(given)
    except TableError as exc:
        return json.dumps({"error": exc.to_json()})
    host = secrets.token_urlsafe(32)
    row = TableRow(
        id=PREFIX + secrets.token_urlsafe(18),
        watch=secrets.token_urlsafe(18),
        code="",
        # The form too: a server the table is shared to builds the setup again from it.
        setup={**setup, "host": hash_token(host), "form": given},
        created=time.time(),
    )
    store = SQLiteStore(":memory:")
    store.create_table(row)
    tokens = {p["id"]: secrets.token_urlsafe(24) for p in setup["header"]["players"]}
    seats = {seat: hash_token(token) for seat, token in tokens.items()}
    for seat, digest in seats.items():
        store.set_seat(row.id, seat, digest)
    _device().tables[row.id] = Table(store, row.id)
    return json.dumps(
        {
            "id": row.id,
            "host": host,
            "tokens": tokens,
            "header": setup["header"],
            "save": {"table": asdict(row), "seats": seats, "events": [], "tools": None},
        }
    )


def open_table(kept: str) -> str:
    """Open a table the device kept (``{"table": row, "seats": {...}, "events": [...],
    "tools": [version, text] | null}``, as the calls' ``save`` gave it): built again in memory
    from its log, as a server loads a table. A table open already is left as it is."""
    data = json.loads(kept)
    row = TableRow(**data["table"])
    if row.id in _device().tables:
        return json.dumps({"id": row.id})
    store = SQLiteStore(":memory:")
    store.create_table(row)
    for seat, digest in data.get("seats", {}).items():
        store.set_seat(row.id, seat, digest)
    events = [Event(**e) for e in data.get("events", [])]  # each as _keep wrote it
    if events:
        store.append(events)
    tools = data.get("tools")
    if tools:
        store.put_tools(row.id, int(tools[0]), str(tools[1]))
    _device().tables[row.id] = Table(store, row.id)
    table = _device().tables[row.id]
    if table.broken is not None:
        return json.dumps({"id": row.id, "error": table.broken.to_json()})
    return json.dumps({"id": row.id})


def shared(table_id: str) -> str:
    """What ``POST /api/tables/shared`` takes to continue this table on a server (the page adds
    the device's host and seat tokens): its setup form, its log and its tools."""
    try:
        table = _table(table_id)
    except TableError as exc:
        return json.dumps({"error": exc.to_json()})
    events = table.store.events(table.id)
    kept = table.store.tools(table.id)
    return json.dumps(
        {
            "device": table.id,
            "form": table.row.setup.get("form"),
            "events": [
                {
                    "kind": e.kind,
                    "body": e.body,
                    "client_id": e.client_id,
                    "seat": e.seat,
                    "time": e.time,
                }
                for e in events
            ],
            "tools": None if kept is None else [1, kept[1]],
        }
    )


def forget(table_id: str) -> str:
    """Close a device table (the page deleted it, or will open it again from its storage, which
    another page of the device wrote to): it leaves memory; its storage is the page's."""
    table = _device().tables.pop(table_id, None)
    if table is not None:
        table.store.close()
    return "{}"


def info(table_id: str) -> str:
    """What ``GET /api/tables/{table}`` answers for a served table: setup, state and timeline."""
    try:
        table = _table(table_id)
        return table.snapshot_text(table=table.info(spectator=False), links={})
    except TableError as exc:
        return json.dumps({"error": exc.to_json()})


def record(table_id: str, number: str) -> str:
    """Game ``number`` of the table as a game record (the format of ``docs/record-format.md``),
    as ``GET /api/tables/{table}/games/{n}/record`` answers it."""
    try:
        table = _table(table_id)
        if not number.isascii() or not number.isdigit():
            raise TableError("unknown-game", Sentence("No such game."))
        return json.dumps(table.settle(lambda: table.record(int(number))), indent=1)
    except TableError as exc:
        return json.dumps({"error": exc.to_json()})


# -- the page's messages -----------------------------------------------------------------------


def message(table_id: str, text: str) -> str:
    """One message from the page, as a server's socket takes it; the answer's ``send`` holds
    the messages for the page, in order, and ``save`` what to keep before showing them."""
    try:
        table = _table(table_id)
    except TableError as exc:
        return _answer([_error(None, exc)])
    try:
        msg = _parsed(text)
    except TableError as exc:
        return _answer([_error(None, exc)])
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        error = TableError("malformed", Sentence('A message is a JSON object with a "type".'))
        return _answer([_error(None, error)])
    kind = msg["type"]
    if kind == "ping":
        return _answer(['{"type": "pong"}'])
    if kind == "hello":
        return _answer([_welcome(table, msg.get("since", 0))])
    if kind == "history":
        return _answer([_history(table, msg)])
    if kind == "tool":
        return _tool(table, msg)
    if kind not in CHANGES:
        error = TableError("malformed", Sentence("Unknown message type {kind}.", kind=repr(kind)))
        return _answer([_error(None, error)])
    return _change(table, kind, msg)


def _welcome(table: Table, since: object) -> str:
    if isinstance(since, bool) or not isinstance(since, int) or not 0 <= since <= table.last_seq:
        since = 0
    seats = table.player_ids()
    now = _now_ms()
    return table.snapshot_text(
        since,
        type="welcome",
        seat=seats[0] if seats else None,
        seats=seats,
        device="table",
        spectator=False,
        taken=sorted(table.seats),
        host=True,
        tools=table.tools.view(table, now),
        now=now,
    )


def _history(table: Table, msg: dict[str, Any]) -> str:
    try:
        before, limit = history_request(msg)
    except TableError as exc:
        return _error(None, exc)
    return table.settle(lambda: table.history_text(before, limit))


def _client_id(msg: dict[str, Any]) -> str:
    cid = msg.get("id")
    if not isinstance(cid, str) or not CLIENT_ID.match(cid):
        raise TableError(
            "malformed", Sentence('Every change carries an "id": 1-64 letters, digits, _ or -.')
        )
    return cid


def _acting(table: Table, msg: dict[str, Any]) -> str | None:
    """The seat a change is sent as (the device holds every seat: any of them)."""
    acting = msg.get("as")
    if acting is None and "as" not in msg:
        return None
    if not isinstance(acting, str) or acting not in table.player_ids():
        raise TableError(
            "malformed",
            Sentence(
                '"as" names the seat that acts: one of {seats}.',
                seats=", ".join(table.player_ids()),
            ),
            member="as",
        )
    return acting


def _change(table: Table, kind: str, msg: dict[str, Any]) -> str:
    cid: str | None = None
    try:
        cid = _client_id(msg)
        extra = sorted(set(msg) - {"type", "id", "as"} - CHANGES[kind])
        if extra:
            raise TableError(
                "malformed",
                Sentence(
                    "Unknown message member {member} for {kind}.",
                    member=repr(extra[0]),
                    kind=repr(kind),
                ),
            )
        acting = _acting(table, msg)
        at_turn = msg.get("at_turn")
        if "at_turn" in msg and (type(at_turn) is not int or not 0 <= at_turn <= MAX_TURN_NUMBER):
            raise TableError(
                "malformed",
                Sentence('"at_turn" is a turn number (0 before the first).'),
                member="at_turn",
            )
        body: dict[str, Any] = {k: msg.get(k) for k in CHANGES[kind] - {"at_turn"}}
        body["device"] = "table"
        decisions = table.settle(
            lambda: table.decide_all(kind, body, cid or "", acting, look_up=True, at_turn=at_turn)
        )
    except TableError as exc:
        return _answer([_error(cid, exc)])
    if isinstance(decisions, int):  # sent again: it was kept already
        return _answer([json.dumps({"type": "ack", "id": cid, "seq": decisions})])
    return _keep(table, decisions)


def _keep(table: Table, decisions: list[Decision]) -> str:
    """Write decided changes (one, or a seat's own change taken back under later ones: issue 25
    item 4) to the in-memory store and answer each, with its id, and what the page keeps."""
    checkpoints = [d.checkpoint for d in decisions if d.checkpoint]
    table.store.append([d.event for d in decisions], checkpoints)
    sent = []
    for decision in decisions:
        table.commit(decision)
        text, cid = decision.text, decision.event.client_id
        sent.append(acknowledged(text, cid))
    return _answer(sent, {"events": [json.dumps(asdict(d.event)) for d in decisions]})


def _tool(table: Table, msg: dict[str, Any]) -> str:
    """Dice, coin, first player, planar die, clocks and the round timer, decided here."""
    cid: str | None = None
    try:
        cid = _client_id(msg)
        op = parse_tool(msg)
        if cid not in table.tools.ids:
            # Decided as the table device's (by no one seat), as a server decides it.
            new = decide_tool(table.tools, op, None, table, _now_ms(), cid)
            table.store.put_tools(table.id, new.version, new.dump())
            table.tools = new
            saved: dict[str, Any] = {"tools": [new.version, new.dump()]}
        else:
            saved = {}
    except TableError as exc:
        return _answer([_error(cid, exc)])
    now = _now_ms()
    view = {"type": "tools", "tools": table.tools.view(table, now), "now": now, "id": cid}
    return _answer([json.dumps(view)], saved)


# -- the engine's start --------------------------------------------------------------------------


def warm() -> str:
    """A first table's first moves on a scratch device, dropped after: what the engine worker
    runs once before it keeps its start, so that the kept start has imported every module and
    filled every cache a table's opening and first change need (the device's own tables are
    untouched). Its answer is Bo's life after Ana's change (``"17"``): the worker checks it."""
    global _DEVICE
    kept, _DEVICE = _DEVICE, _Device()
    try:
        made = json.loads(create(json.dumps({"players": [{"name": "Ana"}, {"name": "Bo"}]})))
        table = made["id"]
        message(table, json.dumps({"type": "hello"}))
        change = {"do": "lose_life", "player": "bo", "amount": 3}
        message(table, json.dumps({"type": "action", "id": "warm", "as": "ana", "action": change}))
        state = json.loads(info(table))["state"]
        life = next(p["life"] for p in state["players"] if p["id"] == "bo")
        forget(table)
        return str(life)
    finally:
        _DEVICE = kept

"""The tools' messages (docs/table.md): a phone's tool message checked, decided
(:mod:`lifeledger_table.decide.tools`), written and sent to every phone of the table, one
table's tool changes at a time; and the tools another server changed, read and shown here.

A table's tool messages are decided by its owner (issue 18 item 2, :mod:`.owners`): one whose
table another process decides spends its address's budget here (where the phone's
connection is), then goes to the owner on the link as a change of kind ``"tool"``
(:meth:`.owners.Owners.route`), kept in flight and sent again to the next owner if that one
dies. The owner decides it as its own phones' (:func:`decide_tool`): the table's budget and
its tool changes waiting hold for the whole table, one lock, one write; the new tools go to
its phones and, on the links, to the phones of the processes following the table (the
sender's with its acknowledgement: :meth:`.relaying.Relaying.relay_tools`). A retry of a message
already decided (its client id among those the tools keep) is answered with the tools as
they are, never applied twice. The store's version check stays the fence against an owner
that still writes after losing its lease (and, on one SQLite database shared by several
servers, each deciding, against the others: their notices bring the tools they wrote)."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import weakref
from typing import Any, Protocol

from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide.errors import TableError
from ..decide.limits import Limits, Throttle
from ..decide.table import Table
from ..decide.tools import ToolOp, decide, load_tools, parse
from .fanout import Fanout
from .sockets import Conn, Sender, error_message

__all__ = [
    "TOOLS_KEY",
    "Router",
    "ToolWork",
    "answer_retry",
    "broadcast",
    "decide_tool",
    "now_ms",
    "tool_message",
    "tools_changed",
    "tools_view",
]

log = logging.getLogger("lifeledger_table")

#: How often a change is tried when other servers keep changing the tools meanwhile, and the
#: most seconds of the pause before each retry (random: two servers each with changes queued
#: for one table would otherwise keep meeting, one of them losing every time).
ATTEMPTS = 8
RETRY_PAUSE = 0.02


def now_ms() -> int:
    """The server's time in epoch milliseconds (what the tools' decisions are given as now)."""
    return int(time.time() * 1000)


class ToolWork:
    """The tool messages a table's sockets, and an address's, may send (each is a write of
    its own to the store: ``Limits.tools_*``), the tool changes waiting per table, and those
    under way (one table's at a time): one a server, made by the composition root."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.tables = Throttle(limits.tools_burst, limits.tools_burst / limits.tools_rate)
        self.addresses = Throttle(
            limits.tools_address_burst, limits.tools_address_burst / limits.tools_address_rate
        )
        self.waiting: dict[str, int] = {}
        #: Tool changes under way (kept so that they are not collected).
        self.tasks: set[asyncio.Task[None]] = set()
        #: One lock a table with tool changes under way (gone once no change holds or awaits
        #: it).
        self.locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    def lock(self, table_id: str) -> asyncio.Lock:
        """The lock of the table's tool changes (one at a time)."""
        lock = self.locks.get(table_id)
        if lock is None:
            lock = self.locks[table_id] = asyncio.Lock()
        return lock

    def refusal(self, table: str | None, address: str | None) -> TableError | None:
        """Why a tool message may not be decided now (``None``: it may; it is counted). The
        table's budget is spent where the table is decided, the address's where the phone's
        connection is (``None``: not here)."""
        if table is not None and self.waiting.get(table, 0) >= self.limits.tools_waiting:
            return TableError(
                "busy", Sentence("The table's tools are still saving earlier changes; try again.")
            )
        if (table is not None and self.tables.blocked(table)) or (
            address is not None and self.addresses.blocked(address)
        ):
            return TableError(
                "throttled", Sentence("Too many tool uses at this table or from here; slow down.")
            )
        if table is not None:
            self.tables.count(table)
        if address is not None:
            self.addresses.count(address)
        return None

    def wait(self, table: str, step: int) -> None:
        n = self.waiting.get(table, 0) + step
        if n > 0:
            self.waiting[table] = n
        else:
            self.waiting.pop(table, None)


class Router(Protocol):
    """Which process decides a table's changes, and how one goes there
    (:class:`.owners.Owners`)."""

    def owns(self, table: Table) -> bool: ...

    def route(
        self,
        table: Table,
        conn: Sender,
        kind: str,
        body: dict[str, Any],
        cid: str,
        seat: str | None,
        at_turn: int | None = None,
    ) -> None: ...


def tools_view(table: Table, now: int | None = None) -> dict[str, Any]:
    """The tools as a phone is sent them."""
    return table.tools.view(table, now_ms() if now is None else now)


def broadcast(hub: Fanout, table: Table, sender: Sender | None = None, cid: str = "") -> None:
    """Send every phone of the table its tools (``sender`` gets them with ``"id": cid``: the
    acknowledgement of its tool message), here and on the processes following the table
    (:attr:`.Subscribers.tools_sent`)."""
    now = now_ms()
    text = json.dumps({"type": "tools", "tools": tools_view(table, now), "now": now})
    hub.send_all(table, text, sender, cid)
    for sent in hub.subscribers.tools_sent:
        sent(table, text, sender, cid)


def tool_message(
    hub: Fanout, work: ToolWork, owners: Router, conn: Conn, cid: str, msg: dict[str, Any]
) -> None:
    """A seated phone's tool message (its id checked, the sender seated): checked in full
    here, then decided, written and sent to every phone of the table, one table's tool
    changes at a time; if another process decides the table (or its owner is being found),
    it spends the address's budget here and goes to the owner (:meth:`.Owners.route`)."""
    assert conn.seat is not None
    try:
        parse(msg)
    except TableError as exc:
        conn.send_json({"type": "error", "id": cid, **exc.to_json()})
        return
    table = conn.table
    if cid in table.tools.ids:
        answer_retry(conn, table, cid)
        return
    by = None if conn.device else conn.seat
    if owners.owns(table):
        decide_tool(hub, work, conn, table, msg, cid, by, conn.address)
        return
    refused = work.refusal(None, conn.address)
    if refused is not None:
        conn.send_json({"type": "error", "id": cid, **refused.to_json()})
        return
    owners.route(table, conn, "tool", msg, cid, by)


def decide_tool(
    hub: Fanout,
    work: ToolWork,
    conn: Sender,
    table: Table,
    msg: dict[str, Any],
    cid: str,
    by: str | None,
    address: str | None = None,
) -> None:
    """A tool message of a table decided here (a phone's here, or one another process's
    phone sent to this owner, answered through the link), acting as ``by`` (``None``: the
    table device): its table's budget spent (and ``address``'s, unless spent where the phone
    is), then decided, written and sent to every phone of the table, one table's tool changes
    at a time."""
    try:
        op = parse(msg)
    except TableError as exc:
        conn.send_json({"type": "error", "id": cid, **exc.to_json()})
        return
    if cid in table.tools.ids:
        answer_retry(conn, table, cid)
        return
    refused = work.refusal(table.id, address)
    if refused is not None:
        conn.send_json({"type": "error", "id": cid, **refused.to_json()})
        return
    work.wait(table.id, 1)
    task = asyncio.get_running_loop().create_task(_change(hub, work, conn, table, op, cid, by))
    work.tasks.add(task)
    task.add_done_callback(work.tasks.discard)
    task.add_done_callback(lambda _: work.wait(table.id, -1))


def answer_retry(conn: Sender, table: Table, cid: str) -> None:
    """The tools as they are, to one phone, acknowledging ``cid`` (a retry)."""
    now = now_ms()
    conn.send_json({"type": "tools", "tools": tools_view(table, now), "now": now, "id": cid})


async def _change(
    hub: Fanout, work: ToolWork, conn: Sender, table: Table, op: ToolOp, cid: str, by: str | None
) -> None:
    async with work.lock(table.id):
        await _decide_and_write(hub, conn, table, op, cid, by)


async def _decide_and_write(
    hub: Fanout, conn: Sender, table: Table, op: ToolOp, cid: str, by: str | None
) -> None:
    store = hub.store
    for attempt in range(ATTEMPTS):
        if attempt:
            await asyncio.sleep(RETRY_PAUSE * attempt * (0.5 + secrets.randbelow(1000) / 1000))
        if cid in table.tools.ids:
            answer_retry(conn, table, cid)
            return
        try:
            new = decide(table.tools, op, by, table, now_ms(), cid)
        except TableError as exc:
            conn.send_json({"type": "error", "id": cid, **exc.to_json()})
            return
        try:
            written = await asyncio.to_thread(store.put_tools, table.id, new.version, new.dump())
            if not written:
                # Another server sharing the store changed the tools first: decide again.
                table.tools = await asyncio.to_thread(load_tools, store, table.id)
                continue
        except Exception:
            log.exception("table %s: could not store its tools", table.id)
            conn.send_json(
                error_message(
                    cid, "storage", Sentence("The change could not be saved; nothing changed.")
                )
            )
            return
        table.tools = new
        broadcast(hub, table, conn, cid)
        return
    conn.send_json(
        error_message(
            cid,
            "busy",
            Sentence("The table's tools kept changing on another server; try again."),
        )
    )


async def tools_changed(hub: Fanout, work: ToolWork, table_id: str, version: int | None) -> None:
    """Another server changed a table's tools (its notice says to which version; ``None``:
    notices may have been missed): a table held here reads them and shows its phones. (In
    turn with the tool changes here: the notice of a write here can come before the write's
    own answer, and its tools are sent with the sender's acknowledgement.)"""
    table = hub.tables.get(table_id)
    if table is None or (version is not None and version <= table.tools.version):
        return
    async with work.lock(table_id):
        if version is not None and version <= table.tools.version:
            return
        found = await asyncio.to_thread(load_tools, hub.store, table_id)
        if found.version > table.tools.version and hub.tables.get(table_id) is table:
            table.tools = found
            broadcast(hub, table)


TOOLS_KEY = web.AppKey("tools", ToolWork)
"""The tool changes' budgets and work of the app (made by the composition root)."""

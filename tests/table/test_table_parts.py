"""One place where the server is put together (issue 29 item 3): the composition root makes
each part of a server once, wires each by its constructor and subscribers, and puts them on the
app; a socket message is handled by the module of its kind, chosen from one table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import TWO, open_table, phone, seat

from lifeledger_table.decide.limits import Limits, SocketGate
from lifeledger_table.decide.messages import CHANGES
from lifeledger_table.live.hub import HUB_KEY
from lifeledger_table.live.takeover import TAKEOVERS_KEY
from lifeledger_table.live.toolmessages import TOOLS_KEY
from lifeledger_table.live.undoasks import UNDO_ASKS_KEY
from lifeledger_table.parts import assemble
from lifeledger_table.server import create_app
from lifeledger_table.store.sqlite import SQLiteStore
from lifeledger_table.web import protocol
from lifeledger_table.web.answers import ANSWERS_KEY
from lifeledger_table.web.pictures import MADE_KEY
from lifeledger_table.web.socket import changes, hello, history, ping, takeover, tools, undo

Client = TestClient[Any, Any]


def test_the_root_makes_each_part_once_and_wires_them(tmp_path: Path) -> None:
    """Each part is made by the root and given to what uses it: the hub's writer, owners and
    follower share the hub and one writer, the owners and follower the root's tool budgets;
    the news each part acts on reaches it through the subscribers the hub was given."""
    store = SQLiteStore(str(tmp_path / "tables.db"))
    try:
        parts = assemble(store, Limits())
        hub, owners = parts.hub, parts.hub.owners
        assert hub.store is store and hub.subscribers is parts.subscribers
        assert owners.hub is hub and hub.follower.hub is hub
        assert owners.writer is hub.writer and hub.follower.writer is hub.writer
        assert owners.tools is parts.tools and hub.follower.tools is parts.tools
        assert parts.undo_asks.takeovers is parts.takeovers
        news = parts.subscribers
        assert news.welcome == [hello.welcome]
        assert news.written == [owners.relaying.relay]
        assert news.tools_sent == [owners.relaying.relay_tools]
        assert news.reading == [owners.copies.catch_up]
        assert len(news.changed) == len(news.seats_changed) == len(news.undo_asked) == 1
        assert news.notices == []  # only with other servers on the store (share_notices)
        assert isinstance(parts.gate, SocketGate) and owners.counts.gate is parts.gate
    finally:
        store.close()


def test_two_apps_in_one_process_share_no_part(tmp_path: Path) -> None:
    """No part is kept in a registry (by the hub, or by module): two servers in one process,
    as the tests of several processes run them, each have their own."""
    apps = [create_app(SQLiteStore(str(tmp_path / f"{n}.db")), Limits()) for n in ("one", "two")]
    for key in (HUB_KEY, TAKEOVERS_KEY, UNDO_ASKS_KEY, TOOLS_KEY, ANSWERS_KEY, MADE_KEY):
        first, second = (app[key] for app in apps)
        assert first is not second, key
    assert apps[0][TOOLS_KEY].locks is not apps[1][TOOLS_KEY].locks
    for app in apps:
        app[HUB_KEY].store.close()


def test_every_kind_of_socket_message_has_the_handler_of_its_module() -> None:
    """The table of kinds names each message a phone may send: every change of
    decide.messages.CHANGES (undo's own), the tools, and the others, each in its module."""
    kinds = protocol.KINDS
    assert set(kinds) == set(CHANGES) | {
        "hello",
        "ping",
        "history",
        "takeover_answer",
        "undo_answer",
        "tool",
    }
    assert kinds["undo"] is undo.handle and kinds["undo_answer"] is undo.answer
    assert kinds["hello"] is hello.handle and kinds["ping"] is ping.handle
    assert kinds["history"] is history.handle and kinds["takeover_answer"] is takeover.handle
    assert kinds["tool"] is tools.handle
    assert all(kinds[k] is changes.handle for k in CHANGES if k != "undo")


@pytest.mark.asyncio
async def test_a_kind_not_in_the_table_is_refused_naming_it(client: Client) -> None:
    """A message whose type the table of kinds does not hold is refused ``malformed``,
    naming the type, and changes nothing."""
    table = await open_table(client, TWO)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    await ana.ws.send_str(json.dumps({"type": "__class__", "id": "x1"}))
    refused = await ana.until("error")
    assert refused["error"] == "malformed" and "'__class__'" in refused["message"]
    assert client.app[HUB_KEY].store.events(table["id"]) == []

"""How a server follows the others on the same store (issue 10): another server's write is
taken into the table here and sent to the phones here; a phone whose table changed under it is
shown the table anew."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from .fanout import Fanout
from .toolmessages import ToolWork, tools_changed
from .writer import Writer, take_in_one

__all__ = ["Follower"]

log = logging.getLogger("lifeledger_table")


class Follower:
    """What this server does with the writes of the others."""

    def __init__(
        self, hub: Fanout, writer: Writer, tools: ToolWork, followed: Callable[[str], bool]
    ) -> None:
        self.hub = hub
        self.writer = writer
        #: The tool changes under way here (a notice's tools are read in turn with them).
        self.tools = tools
        #: Whether a table's changes come from its owner, the process holding its lease, on a
        #: link (:meth:`.owners.Owners.followed`), rather than from the store's notices. What
        #: follows seats given by another server, and what is done with the other notices
        #: (seat takeovers and undo questions across servers), are the hub's subscribers'
        #: (:attr:`.Subscribers.seats_changed`, :attr:`.Subscribers.notices`).
        self.followed = followed
        #: Catching up with other servers' writes.
        self.following: set[asyncio.Task[None]] = set()

    def notified(self, kind: str, table_id: str, detail: str) -> None:
        """A notice from a server on the same store (issue 10). ``event``: it wrote events of
        a table (``detail``: the last one's sequence number): a table held here catches up,
        and its phones here are sent the changes; ``tools``: it changed a table's tools
        (``detail``: their version), which a table held here reads and shows (unless followed
        at its owner, which sends them); ``seats``: it gave a seat; ``lost``: notices may
        have been missed: every table held here catches up. Any other kind (seat
        takeovers asked and answered on other servers) goes to the hub's subscribers
        (:attr:`.Subscribers.notices`)."""
        if kind == "lost":
            for held in list(self.hub.tables):
                if not self.followed(held):
                    self._follow(held, "event")
                self._follow(held, "seats")
                if not self.followed(held):
                    self._follow(held, "tools")
        elif kind == "tools":
            if self.followed(table_id):
                return  # its owner sends its tools
            if table_id in self.hub.tables and detail.isdigit():
                self._follow(table_id, kind, int(detail))
        elif kind == "event":
            if self.followed(table_id):
                return  # its owner sends its changes
            table = self.hub.tables.get(table_id)
            if table is not None and detail.isdigit() and int(detail) > table.last_seq:
                self._follow(table_id, kind)
        elif kind == "seats":
            if table_id in self.hub.tables:
                self._follow(table_id, kind)
        else:
            for notices in self.hub.subscribers.notices:
                notices(kind, table_id, detail)

    def _follow(self, table_id: str, kind: str, version: int | None = None) -> None:
        catch_up = (
            tools_changed(self.hub, self.tools, table_id, version)
            if kind == "tools"
            else self._catch_up(table_id, kind)
        )
        task = asyncio.get_running_loop().create_task(catch_up)
        self.following.add(task)
        task.add_done_callback(self.following.discard)

    async def _catch_up(self, table_id: str, kind: str) -> None:
        table = self.hub.tables.get(table_id)
        if table is None:
            return
        if kind == "seats":
            # In turn with this table's seat writes here (each waits for the one before): a
            # read made while a seat given here is being written would not hold it yet, and
            # would take it from its phone. A read with seat work queued after it leaves the
            # news to that work (a write's own notice brings a read after it).
            work = self.hub.seat_work
            before = work.get(table_id)
            mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            work[table_id] = mine
            try:
                if before is not None:
                    await asyncio.shield(before)
                seats = await asyncio.to_thread(self.hub.store.seats, table_id)
            finally:
                mine.set_result(None)
                newest = work.get(table_id) is mine
                if newest:
                    del work[table_id]
            if not newest or self.hub.tables.get(table_id) is not table:
                return
            changed = {
                s for s in set(seats) | set(table.seats) if seats.get(s) != table.seats.get(s)
            }
            table.seats = seats
            if changed:
                for seats_changed in self.hub.subscribers.seats_changed:
                    seats_changed(table, changed)
            return
        if table.reloading:
            return  # being loaded again: it will hold every event written
        last = await asyncio.to_thread(self.hub.store.last_event, table_id)
        if self.followed(table_id):
            return  # followed at its owner meanwhile: the owner's events come from there
        if last is None or last.seq <= table.last_seq or table.pending or table.reloading:
            return  # nothing new, or a write here is under way: it conflicts and redoes
        # Far behind (notices were lost a long while): load the table from its checkpoint
        # rather than deciding every event again on the event loop.
        behind = last.seq - table.last_seq > table.CHECKPOINT
        events = (
            []
            if behind
            else await asyncio.to_thread(self.hub.store.events, table_id, table.last_seq)
        )
        if table.pending or table.reloading or self.hub.tables.get(table_id) is not table:
            return
        if self.followed(table_id):
            return
        shown = table.committed
        if not behind:
            # One event a turn of the event loop, its reads in the writer's threads, its time
            # spent from the table's share (issue 26 item 2); a write here meanwhile conflicts
            # and redoes, a load holds every event.
            for event in events:
                if (
                    table.pending
                    or table.reloading
                    or self.hub.tables.get(table_id) is not table
                    or self.followed(table_id)
                ):
                    return
                if event.seq <= table.last_seq:
                    continue  # taken in meanwhile (another notice's catch-up)
                try:
                    text = await take_in_one(table, event, self.hub.store, self.writer.reads)
                except Exception:
                    log.exception("table %s: could not take in another server's events", table_id)
                    return
                if text is None:
                    return  # not the next one: the newer catch-up takes it in
                self.hub.send_all(table, text)
                await asyncio.sleep(0)  # the other tables' turn
            return
        reloaded = await self.writer.reload(table)  # off the event loop
        if reloaded and self.hub.tables.get(table_id) is table:
            self.hub.resync(table, shown)

"""Where a decided change is written: in order, in batches (group commit: one sync per batch,
off the event loop), and only then acknowledged to its sender and sent to every phone of its
table. A batch another server on the same store got ahead of is decided again (issue 10)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from .errors import TableError
from .sockets import Conn, error_message
from .table import Decision, Table

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["Writer"]

log = logging.getLogger("lifeledger_table")


class Writer:
    """The changes a server decided, on their way to the store and then to the phones."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        #: Decided changes waiting to be written, with the socket that sent each.
        self.batch: list[tuple[Decision, Conn]] = []
        #: Retries of changes decided but not yet written: acknowledged once they are.
        self.retries: list[tuple[Table, Conn, str, int]] = []
        self.task: asyncio.Task[None] | None = None
        #: Writes another server got ahead of (each decided again).
        self.conflicts = 0

    def submit(self, decision: Decision, conn: Conn) -> None:
        """Queue a decided change for writing; it is acknowledged and broadcast once written.

        Changes decided while a write is under way go into the next one (group commit), so
        the store syncs once per batch rather than once per change, and the event loop never
        waits for the disk.
        """
        self.batch.append((decision, conn))
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._write())

    def retry(self, table: Table, conn: Conn, cid: str, seq: int) -> None:
        """Acknowledge a retry of a change that was decided before, once it is written (here,
        or by another server: a change not waiting here to be written is in the store)."""
        if seq not in table.pending:
            conn.send_json({"type": "ack", "id": cid, "seq": seq})
        else:
            self.retries.append((table, conn, cid, seq))

    async def _write(self) -> None:
        while self.batch:
            batch, self.batch = self.batch, []
            try:
                events = [d.event for d, _ in batch]
                made = [d.checkpoint for d, _ in batch if d.checkpoint is not None]
                lost = await asyncio.to_thread(self.hub.store.append, events, made)
            except Exception:
                log.exception("could not store %d events", len(batch))
                self._fail(batch + self.batch)
                self.batch = []
                continue
            for decision, conn in batch:
                if decision.event.table in lost:
                    continue
                table = self.hub.tables[decision.event.table]
                table.commit(decision)
                # Its sender is sent the event with its id: that is the acknowledgement.
                self.hub.send_all(table, decision.text, conn, decision.event.client_id)
            if lost:
                # Another server on the same store wrote to these tables first (issue 10):
                # their changes are decided again, against the log as it now is.
                self._redo(lost, [(d, c) for d, c in batch if d.event.table in lost])
            waiting, self.retries = self.retries, []
            for table, conn, cid, seq in waiting:
                self.retry(table, conn, cid, seq)

    def _redo(self, stale: set[str], lost: list[tuple[Decision, Conn]]) -> None:
        """Tables another server's write got ahead of: each is loaded again (from its newest
        checkpoint: it then holds every event written, by any server), its phones here are
        shown it anew, and its changes that were not written (``lost``, and those of the next
        batch, decided on the same stale table) are decided again, in order, and queued."""
        self.conflicts += 1
        redo = lost + [(d, c) for d, c in self.batch if d.event.table in stale]
        self.batch = [(d, c) for d, c in self.batch if d.event.table not in stale]
        shown: dict[str, int] = {}
        for table_id in stale:
            table = self.hub.tables[table_id]
            shown[table_id] = table.committed
            table.reload()
        again: dict[tuple[str, str], Decision | int | TableError] = {}
        for decision, conn in redo:
            table = self.hub.tables[decision.event.table]
            event = decision.event
            cid = event.client_id
            try:
                result = table.decide(event.kind, event.body, cid, event.seat, look_up=True)
            except TableError as exc:
                again[(table.id, cid)] = exc
                conn.send_json({"type": "error", "id": cid, **exc.to_json()})
                continue
            again[(table.id, cid)] = result
            if isinstance(result, int):
                self.retry(table, conn, cid, result)
            else:
                self.batch.append((result, conn))
        waiting, self.retries = self.retries, []
        for table, conn, cid, seq in waiting:
            if table.id not in stale:
                self.retries.append((table, conn, cid, seq))
                continue
            found = again.get((table.id, cid))
            if isinstance(found, Decision):
                self.retries.append((table, conn, cid, found.event.seq))
            elif isinstance(found, int):
                self.retry(table, conn, cid, found)
            elif isinstance(found, TableError):
                conn.send_json({"type": "error", "id": cid, **found.to_json()})
        for table_id in stale:
            self.hub.follower.resync(self.hub.tables[table_id], shown[table_id])

    def _fail(self, failed: list[tuple[Decision, Conn]]) -> None:
        """A write failed: forget every change not written, and say so to who sent it."""
        for decision, conn in failed:
            conn.send_json(
                error_message(
                    decision.event.client_id,
                    "storage",
                    "The change could not be saved; nothing changed.",
                )
            )
        for table_id in {d.event.table for d, _ in failed}:
            table = self.hub.tables[table_id]
            table.reload()
            if table.broken is not None:
                for conn in self.hub.conns.get(table_id, ()):
                    conn.send_json({"type": "error", "id": None, **table.broken.to_json()})
                    conn.close()
        waiting, self.retries = self.retries, []
        for table, conn, cid, seq in waiting:
            if seq > table.last_seq:
                conn.send_json(
                    error_message(cid, "storage", "The change could not be saved; nothing changed.")
                )
            else:
                self.retry(table, conn, cid, seq)

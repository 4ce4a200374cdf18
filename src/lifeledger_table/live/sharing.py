"""A table brought from a device to this server, kept: what :mod:`..workers.sharing` decided
in a worker process (docs/table.md, "Device tables")."""

from __future__ import annotations

from dataclasses import replace

from ..store.records import DuplicateError, Store, TableRow
from ..workers.sharing import Shared

__all__ = ["keep_shared"]


def keep_shared(store: Store, shared: Shared) -> TableRow:
    """Keep a shared table (blocking: call it off the event loop): the table, its log, its
    seats and its tools, each step one the next try takes up where it stopped. A table shared
    already from the same device table with the same host (a retry after a lost reply, or a
    server stopped half-way) is that table, completed; any other clash raises
    :class:`DuplicateError` (the table's code: try another)."""
    row = shared.row
    try:
        store.create_table(row)
    except DuplicateError:
        found = store.table_by_watch(row.watch)
        if found is None or found.setup.get("host") != row.setup["host"]:
            raise
        row = found
    last = store.last_event(row.id)
    missing = [replace(e, table=row.id) for e in shared.events if last is None or e.seq > last.seq]
    if missing:
        store.append(missing)
    for seat, digest in shared.seats.items():
        if store.seats(row.id).get(seat) is None:
            store.set_seat(row.id, seat, digest)
    if shared.tools is not None and store.tools(row.id) is None:
        store.put_tools(row.id, 1, shared.tools.dump())
    return row

"""Storage for tables: one small interface, :class:`Store`, what it keeps (tables, events,
checkpoints) and how it fails. :mod:`.sqlite` and :mod:`.postgres` implement it.

A table is an append-only log of events with sequence numbers 1, 2, 3, ... Nothing in a log is
ever edited or deleted: an undo is an event of its own. Everything the app shows is derived from
the log by the rules engine, so the store keeps only what cannot be derived: the table's setup,
its seats' tokens and its events.

Every write is committed before the method returns, so a caller that acknowledges after a write
never acknowledges something a crash could lose. Each store implements the same :class:`Store`
protocol and passes the same contract tests (``tests/table/store_contract.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "Checkpoint",
    "DamagedError",
    "DuplicateError",
    "Event",
    "Feed",
    "Lease",
    "Leases",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "TableRow",
    "hash_token",
    "newest_at_each_position",
]


class DuplicateError(Exception):
    """A table id or code that is already taken (or, from :meth:`.table.Table.submit`, an
    event another server wrote first)."""


class StoreError(Exception):
    """A store that can't be used: it can't be opened, is not a table store, is damaged, or
    can't be written to. The message is one line, for the person running the server."""


class StoreUnavailable(StoreError):
    """The store can't be reached now (a database server restarting, a connection lost, a
    deadlock broken): nothing was written, or a write's outcome is unknown, and the same call
    may succeed later. A write of events may always be tried again: a second write of what was
    written is refused by the store's unique keys."""


class DamagedError(StoreError):
    """A stored table (``seq`` is ``None``) or event that can't be read back."""

    def __init__(self, table: str, seq: int | None, reason: str) -> None:
        what = f"table {table}" if seq is None else f"event {seq} of table {table}"
        super().__init__(f"{what} is damaged: {reason}")
        self.table = table
        self.seq = seq


@dataclass(frozen=True, slots=True)
class TableRow:
    """A table's fixed setup: ``setup`` is the JSON the table was opened with."""

    id: str
    watch: str
    code: str
    setup: dict[str, Any]
    created: float


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of a table's log: ``table`` is the table's id, ``seq`` its sequence number.

    ``kind`` is ``"action"`` (``body["action"]`` is a record action), ``"undo"`` or
    ``"next_game"``; ``client_id`` is the id the client chose, unique within the table; ``seat``
    is the player id of the seat that sent it (``None`` for none).

    What the table derived from it is kept beside it, so that a table loads without replaying
    its whole log: ``game`` (the match game it belongs to, from 1) and ``position`` (for an
    action, how many actions of its game were in effect before it; for an undo, after it; 0
    for a next game), and ``entry``, its timeline entry as JSON text. ``None`` in a log
    written before these were kept: the table derives them once, by replaying the log.
    """

    table: str
    seq: int
    kind: str
    body: dict[str, Any]
    client_id: str
    seat: str | None
    time: float
    game: int | None = None
    position: int | None = None
    entry: str | None = None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """A table's state after ``count`` actions in effect of game ``game`` (the last of them
    event ``seq``), as bytes only the table reads: loading a table starts from its newest
    checkpoint instead of the first event. Derived from the log, so it may always be
    replaced or ignored."""

    table: str
    game: int
    count: int
    seq: int
    data: bytes


def key_digest(key: str) -> str:
    """The digest under which a process's key for the internal links is stored."""
    return hashlib.sha256(f"lifeledger link key\0{key}".encode()).hexdigest()


def hash_token(token: str) -> str:
    """The digest under which a seat token is stored (the token itself is never stored)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Store(Protocol):
    """What the table app needs from storage. Every write is durable when the call returns."""

    def create_table(self, row: TableRow) -> None:
        """Store a new table; raises :class:`DuplicateError` if its id, watch id or code exists."""

    def table(self, table_id: str) -> TableRow | None:
        """The table with this id, or ``None``."""

    def table_by_watch(self, watch: str) -> TableRow | None:
        """The table whose spectator id is ``watch``, or ``None``."""

    def table_by_code(self, code: str) -> TableRow | None:
        """The table whose short code is ``code``, or ``None``."""

    def table_ids(self) -> list[str]:
        """Every table's id, oldest first."""

    def set_seat(
        self, table_id: str, seat: str, token_hash: str, previous: str | None = None
    ) -> bool:
        """Give ``seat`` of the table to the holder of the token with this digest, if the
        seat is still held by the digest ``previous`` (``None``: free); returns whether it
        was given (two servers granting one seat at once: one wins)."""

    def seats(self, table_id: str) -> dict[str, str]:
        """The table's taken seats: seat id -> token digest."""

    def append(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint] = ()) -> set[str]:
        """Append events of one or more tables, with ``checkpoints`` (each replacing any of the
        same table, game and count), in one transaction, each table's all or none: a table
        that already has an event with one of its events' ``seq`` or ``client_id`` (another
        server wrote first) gets none of them, nor its checkpoints. Returns those tables."""

    def events(self, table_id: str, after: int = 0) -> list[Event]:
        """The table's events with a sequence number above ``after``, in order."""

    def event(self, table_id: str, seq: int) -> Event | None:
        """The table's event ``seq``, or ``None``."""

    def last_event(self, table_id: str) -> Event | None:
        """The table's newest event, or ``None`` if it has none."""

    def event_by_client_id(self, table_id: str, client_id: str) -> Event | None:
        """The table's event sent with ``client_id``, or ``None``."""

    def game_events(self, table_id: str, game: int) -> list[Event]:
        """The events of match game ``game`` (see :attr:`Event.game`), in order."""

    def effective(self, table_id: str, game: int, start: int, end: int) -> list[Event]:
        """The actions of game ``game`` at positions ``start`` to ``end - 1`` that are in
        effect when the game has ``end`` actions in effect: at each position, the newest
        action (an action undone is followed by the next one at its position)."""

    def entries(self, table_id: str, before: int, limit: int) -> list[tuple[int, str | None]]:
        """The newest ``limit`` timeline entries with a sequence number below ``before``,
        oldest first, as ``(seq, JSON text)`` (``None``: not derived yet)."""

    def client_ids(self, table_id: str, limit: int) -> list[tuple[int, str]]:
        """The client ids of the table's newest ``limit`` events, oldest first, as ``(seq,
        client id)``."""

    def checkpoint(self, table_id: str, game: int, count: int) -> Checkpoint | None:
        """The table's checkpoint at ``count`` actions in effect of game ``game``, if any."""

    def derive(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint]) -> None:
        """Keep what a table derived from events of a log written before it was kept
        (``game``, ``position``, ``entry`` of each event), and ``checkpoints``, at once."""

    def tools(self, table_id: str) -> tuple[int, str] | None:
        """The table's tools (docs/table.md, "Starting and pacing the game") as
        ``(version, JSON text)``, or ``None`` if it never had any."""

    def put_tools(self, table_id: str, version: int, data: str) -> bool:
        """Keep the table's tools as ``version`` if the store holds version ``version - 1``
        (none for version 1); returns whether they were kept (two servers changing a table's
        tools at once: one wins, the other decides again on what the winner wrote)."""

    def close(self) -> None:
        """Release the store's resources."""


@runtime_checkable
class Feed(Protocol):
    """A store that several servers share tells each what the others did (issue 10)."""

    async def listen(self, notified: Callable[[str, str, str], None]) -> None:
        """Call ``notified(kind, table_id, detail)`` for every notice of any server (this one
        included) until cancelled: ``("event", table, last seq written)`` and ``("seats",
        table, "")`` for writes, what :meth:`notify` sends, and ``("lost", "", "")`` when
        notices may have been missed (a dropped connection, now back)."""

    def notify(self, kind: str, table_id: str, detail: str) -> None:
        """Send every server a notice (``detail``: a line of text, at most a few kB)."""


@dataclass(frozen=True, slots=True)
class Lease:
    """Who decides a table (issue 18 item 2): the process ``owner`` (an id it chose at its
    start), reached by the others at ``address`` (``host:port`` of its internal listener),
    for ``left`` more seconds by the store's clock (0 or less: expired, anyone may claim it)."""

    table: str
    owner: str
    address: str
    left: float


@runtime_checkable
class Leases(Protocol):
    """A store that says which process decides each table (issue 18 item 2). Its clock is
    the store's (PostgreSQL's ``now()``): the machines' clocks don't matter."""

    def claim(self, table_id: str, owner: str, address: str, seconds: float) -> Lease:
        """Take the table's lease for ``seconds`` if nobody holds it, it expired, or
        ``owner`` holds it already; returns the lease as it then is (whoever holds it)."""

    def renew(self, owner: str, seconds: float) -> set[str]:
        """Extend every lease ``owner`` holds by ``seconds`` from now; returns their tables
        (a table missing was taken by another process: ``owner`` no longer decides it)."""

    def release(self, owner: str, table_ids: Sequence[str]) -> None:
        """Give up ``owner``'s leases of these tables (another process may claim them now)."""

    def register(self, owner: str, address: str, digest: str) -> None:
        """Say that process ``owner`` is reached at ``address`` and shows the others a key
        whose :func:`key_digest` is ``digest`` (issue 26 item 9: the key itself is never
        stored, so reading the store doesn't give it); a process registered before at the
        same address is gone."""

    def unregister(self, owner: str) -> None:
        """Process ``owner`` stopped: it is no longer shown to the others."""

    def processes(self) -> dict[str, tuple[str, str]]:
        """The processes registered: by id, their address and the digest of their key."""


def newest_at_each_position(actions: Sequence[Event]) -> list[Event]:
    """Of actions in log order, the newest at each position, by position: the actions in
    effect (an undo takes back the last action in effect, so the next action takes its
    position)."""
    newest: dict[int, Event] = {}
    for e in actions:
        assert e.position is not None
        newest[e.position] = e
    return [newest[p] for p in sorted(newest)]

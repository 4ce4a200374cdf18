"""Giving seats (a token for each, written to the store by compare-and-set before anyone is
told) and what follows a seat changing hands, here or on another server on the same store:
what the HTTP API (taking a seat) and the WebSocket (a table device's seats) share."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Mapping

from ..decide.table import Table
from ..store.records import hash_token
from .hub import Hub
from .takeover import Takeovers

__all__ = ["SeatTaken", "StorageFailure", "grant_seat", "grant_seats", "seats_given"]

log = logging.getLogger("lifeledger_table")


class StorageFailure(Exception):
    """The store could not do what was asked (a disk, a database that refuses writes)."""


class SeatTaken(Exception):
    """Another server on the same database gave the seat first (issue 10)."""


async def grant_seat(hub: Hub, takeovers: Takeovers, table: Table, seat: str) -> str:
    """Give ``seat`` to a new token (returned): the previous holder's token stops working and
    its sockets get ``seat_lost``. Raises :class:`StorageFailure` if the store fails (then
    nothing changed), :class:`SeatTaken` if another server gave it first."""
    tokens, failed = await grant_seats(hub, takeovers, table, {seat: table.seats.get(seat)})
    if seat in tokens:
        return tokens[seat]
    if failed.get(seat) == "storage":
        raise StorageFailure(seat)
    raise SeatTaken(seat)


async def grant_seats(
    hub: Hub, takeovers: Takeovers, table: Table, wanted: Mapping[str, str | None]
) -> tuple[dict[str, str], dict[str, str]]:
    """Give each seat of ``wanted`` to a new token, if it is still held by the digest given
    for it (``None``: if it is free). Returns the tokens given and the seats not given, each
    with why: ``taken`` (it changed hands meanwhile, here or on another server) or
    ``storage`` (the store failed: nothing changed for it, nor for the seats after it).

    Every seat is claimed in memory at once, before anything is written, so that two phones
    (or table devices) asking at once never both get a seat; each is then written to the
    store (off the loop) by compare-and-set before anyone is told: another server on the same
    database may have given it meanwhile (issue 10). The previous holders' sockets get
    ``seat_lost``, and every phone of the table one ``seats`` message."""
    failed: dict[str, str] = {}
    claims: list[tuple[str, str, str, str | None]] = []  # seat, token, digest, previous
    for seat, previous in wanted.items():
        if table.seats.get(seat) != previous:
            failed[seat] = "taken"
            continue
        token = secrets.token_urlsafe(32)
        digest = hash_token(token)
        table.seats[seat] = digest
        claims.append((seat, token, digest, previous))

    def unclaim(seat: str, digest: str, previous: str | None) -> None:
        if table.seats.get(seat) == digest:
            if previous is None:
                del table.seats[seat]
            else:
                table.seats[seat] = previous

    def write() -> tuple[list[bool | Exception], dict[str, str] | None]:
        out: list[bool | Exception] = []
        for seat, _token, digest, previous in claims:
            try:
                out.append(hub.store.set_seat(table.id, seat, digest, previous))
            except Exception as exc:  # the seats after it are not written
                out.append(exc)
                break
        if False not in out:
            return out, None
        try:  # another server gave a seat meanwhile: the store says to whom
            return out, hub.store.seats(table.id)
        except Exception:
            log.exception("could not read the seats again")
            return out, None

    if not claims:
        written: list[bool | Exception] = []
        stored: dict[str, str] | None = None
    else:
        # A table's seat writes are made in the order their seats were claimed (each waits
        # for the one before): one made in another worker thread could overtake an earlier
        # one, fail its compare-and-set, and read the seats back without the earlier seat.
        before = hub.seat_work.get(table.id)
        mine: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        hub.seat_work[table.id] = mine
        try:
            if before is not None:
                await asyncio.shield(before)
            written, stored = await asyncio.to_thread(write)
        except BaseException:
            for seat, _token, digest, previous in claims:
                unclaim(seat, digest, previous)
            raise
        finally:
            mine.set_result(None)
            if hub.seat_work.get(table.id) is mine:
                del hub.seat_work[table.id]
    tokens: dict[str, str] = {}
    for n, (seat, token, digest, previous) in enumerate(claims):
        result = written[n] if n < len(written) else None
        if result is True:
            tokens[seat] = token
            continue
        unclaim(seat, digest, previous)
        if isinstance(result, Exception):
            log.error("could not store a seat", exc_info=result)
        if result is not False:
            failed[seat] = "storage"
            continue
        failed[seat] = "taken"
        # Given by another server: the seat is as the store has it (unless it changed hands
        # here since, by a claim whose own write will say).
        if stored is not None and table.seats.get(seat) == previous:
            if seat in stored:
                table.seats[seat] = stored[seat]
            else:
                table.seats.pop(seat, None)
    if tokens:
        seats_given(hub, takeovers, table, set(tokens))
    return tokens, failed


def seats_given(hub: Hub, takeovers: Takeovers, table: Table, seats: set[str]) -> None:
    """Seats changed hands (here, or on another server on the same database): the sockets
    that held them get ``seat_lost`` (one for each seat: a table device's keeps the others it
    holds), requests to take them over are moot, and every phone of the table hears which
    seats are taken."""
    for conn in hub.conns.get(table.id, ()):
        for seat in [s for s in conn.seats if s in seats]:
            conn.lose(seat)
            takeovers.release(table.id, seat, conn.device)
    for seat in sorted(seats):
        takeovers.seat_changed(hub, table, seat)
    hub.broadcast(table, {"type": "seats", "taken": sorted(table.seats)})

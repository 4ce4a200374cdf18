"""A table brought from a device to this server ("Share this table": docs/table.md, "Device
tables"): its setup form, its log and its tools, decided again here change by change, in order,
by this server's own engine, in a worker process (a long log is minutes of pure computation,
which in the server's process would slow every table), before anything is kept
(:func:`..live.sharing.keep_shared` keeps it).

Nothing the device says is taken on trust: every change is decided again (a change the rules
refuse refuses the whole table, naming the change), the setup is built again from its form, and
each change keeps its id, so that a change the device sends again afterwards (its queue after
a lost reply) is acknowledged, never applied twice. The device keeps its seats and host rights:
it names its own tokens, kept here only as digests. Sharing again the same device table (a retry
after a lost reply) finds the table shared the first time: its watch id is derived from the
device table's id.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass

from lifeledger.sentences import Sentence

from ..decide.errors import TableError
from ..decide.messages import CHANGES, CLIENT_ID, TOKEN
from ..decide.setup import MAX_PLAYERS, build_setup
from ..decide.table import Table
from ..decide.tools import Tools
from ..store.records import Event, Store, TableRow, hash_token
from ..store.sqlite import SQLiteStore

__all__ = ["MAX_SHARED_CHANGES", "Shared", "decide_shared", "watch_of"]

#: The most changes a table brought from a device may hold (its log, undos included).
MAX_SHARED_CHANGES = 5000

_DEVICE_ID = re.compile(r"^d-[A-Za-z0-9_-]{8,64}$")
#: The members each kind of change's body holds: what the phone sends, and "device".
_BODIES: dict[str, frozenset[str]] = {
    kind: members - {"at_turn"} | {"device"} for kind, members in CHANGES.items()
}


@dataclass(frozen=True, slots=True)
class Shared:
    """A device's table as this server will keep it: every change decided here."""

    row: TableRow
    seats: dict[str, str]
    events: list[Event]
    tools: Tools | None


def _malformed(message: Sentence, member: str) -> TableError:
    return TableError("malformed", message, member=member)


def watch_of(device_id: str) -> str:
    """The spectators' id of the table shared from device table ``device_id``."""
    return "s" + hashlib.sha256(f"shared:{device_id}".encode()).hexdigest()[:31]


def decide_shared(body: object) -> Shared:
    """Check a share's body and decide its changes on a scratch store (CPU work: call it off
    the event loop). Raises :class:`TableError` naming the member or change at fault. The
    table's code is left for the caller to choose (``row.code`` is empty)."""
    if not isinstance(body, dict):
        raise _malformed(Sentence("A shared table is a JSON object."), "")
    extra = sorted(set(body) - {"device", "form", "host", "tokens", "events", "tools"})
    if extra:
        raise _malformed(Sentence("Unknown member {member}.", member=repr(extra[0])), extra[0])
    device = body.get("device")
    if not isinstance(device, str) or not _DEVICE_ID.match(device):
        raise _malformed(Sentence('"device" is the id of the device\'s table.'), "device")
    host = body.get("host")
    if not isinstance(host, str) or not TOKEN.match(host):
        raise _malformed(Sentence('"host" is the device\'s host token.'), "host")
    setup = build_setup(body.get("form"))
    players = [p["id"] for p in setup["header"]["players"]]
    tokens = body.get("tokens")
    if (
        not isinstance(tokens, dict)
        or len(tokens) > MAX_PLAYERS
        or not all(
            s in players and isinstance(t, str) and TOKEN.match(t) for s, t in tokens.items()
        )
    ):
        raise _malformed(Sentence('"tokens" maps the device\'s seats to their tokens.'), "tokens")
    events = body.get("events")
    if not isinstance(events, list):
        raise _malformed(Sentence('"events" is the table\'s log, a list.'), "events")
    if len(events) > MAX_SHARED_CHANGES:
        raise TableError(
            "too-long",
            Sentence(
                "This table has {n} changes; at most {most} can be shared. Download its record "
                "and open that instead.",
                n=len(events),
                most=MAX_SHARED_CHANGES,
            ),
            member="events",
        )
    row = TableRow(
        id=secrets.token_urlsafe(24),
        watch=watch_of(device),
        code="",
        setup={**setup, "host": hash_token(host), "form": body.get("form")},
        created=time.time(),
    )
    scratch = SQLiteStore(":memory:")
    try:
        scratch.create_table(row)
        table = Table(scratch, row.id)
        kept = [_decided(table, scratch, i, e) for i, e in enumerate(events)]
    finally:
        scratch.close()
    tools = _tools(body.get("tools"))
    seats = {seat: hash_token(token) for seat, token in tokens.items()}
    return Shared(row, seats, kept, tools)


def _decided(table: Table, scratch: Store, index: int, given: object) -> Event:
    """Change ``index`` of the device's log, decided here as it was there."""
    member = f"events[{index}]"
    if not isinstance(given, dict) or set(given) - {"kind", "body", "client_id", "seat", "time"}:
        raise _malformed(
            Sentence("Change {n} of the table is not one it can hold.", n=index + 1), member
        )
    kind, body, cid = given.get("kind"), given.get("body"), given.get("client_id")
    seat, at = given.get("seat"), given.get("time")
    if (
        kind not in _BODIES
        or not isinstance(body, dict)
        or set(body) - _BODIES[kind]
        or not isinstance(cid, str)
        or not CLIENT_ID.match(cid)
        or not (seat is None or (isinstance(seat, str) and seat in table.player_ids()))
        or isinstance(at, bool)
        or not isinstance(at, (int, float))
        or not 0 <= at <= time.time() + 86400
    ):
        raise _malformed(
            Sentence("Change {n} of the table is not one it can hold.", n=index + 1), member
        )
    try:
        decision = table.settle(
            lambda: table.decide(kind, body, cid, seat, look_up=True, at=float(at))
        )
    except TableError as exc:
        raise TableError(
            exc.code,
            Sentence("Change {n} of the table: {why}", n=index + 1, why=exc.message),
            rule=exc.rule,
            member=member,
        ) from exc
    if isinstance(decision, int):
        raise _malformed(Sentence("Change {n} of the table is there twice.", n=index + 1), member)
    checkpoints = [decision.checkpoint] if decision.checkpoint else []
    scratch.append([decision.event], checkpoints)
    table.commit(decision)
    return decision.event


def _tools(given: object) -> Tools | None:
    """The device's dice and clocks, as a store keeps them (``[version, JSON text]``)."""
    if given is None:
        return None
    if (
        not isinstance(given, list)
        or len(given) != 2
        or type(given[0]) is not int
        or not 1 <= given[0] <= 10**9
        or not isinstance(given[1], str)
    ):
        raise _malformed(Sentence('"tools" is [version, text] as the device kept them.'), "tools")
    return Tools.load(given[0], given[1])

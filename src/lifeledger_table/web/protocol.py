"""The WebSocket protocol: what a phone may send on its live connection, and the answers.

A message is decided to the end without yielding to the event loop (decide, then queue for the
hub's writer), so all phones see all changes of a table in one order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from lifeledger.sentences import Sentence

from ..decide.errors import TableError
from ..decide.jsontext import NotJson, strict_json
from ..decide.limits import SocketGate
from ..decide.messages import CHANGES, CLIENT_ID, MAX_TURN_NUMBER, TOKEN, history_request
from ..decide.setup import MAX_PLAYERS
from ..decide.table import Table
from ..live.hub import HUB_KEY, Hub
from ..live.seats import SeatTaken, StorageFailure, grant_seat
from ..live.sockets import Conn, error_message
from ..live.takeover import Takeover, Takeovers, is_host, takeovers_of
from ..live.toolmessages import now_ms, tool_message, tools_view
from ..live.undoasks import NOTICES as UNDO_NOTICES
from ..live.undoasks import undo_asks_of
from ..store.records import hash_token
from .answers import answers_of, history_text
from .requests import error_text, quoted, same_origin, table_or_404, watched_or_404

__all__ = ["GATE_KEY", "add_routes", "table_socket", "watch_socket"]

#: Sockets and messages per client address and per table (issue 7 item 8).
GATE_KEY = web.AppKey("sockets", SocketGate)

log = logging.getLogger("lifeledger_table")

#: What a socket is: a table device's (one phone or tablet for the players without their
#: own) or a personal phone's (the default).
DEVICES = ("table", "phone")


async def table_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/t/{table}: a player's (or not yet seated visitor's) live connection."""
    return await _open(request, table_or_404, spectator=False)


async def watch_socket(request: web.Request) -> web.StreamResponse:
    """GET /ws/w/{watch}: a spectator's live connection (read-only)."""
    return await _open(request, watched_or_404, spectator=True)


async def _open(
    request: web.Request, find: Callable[[web.Request], Awaitable[Table]], *, spectator: bool
) -> web.StreamResponse:
    try:
        table = await find(request)
    except web.HTTPServiceUnavailable as exc:
        return await _unavailable(request, exc)
    return await _socket(request, table, spectator=spectator)


async def _unavailable(request: web.Request, exc: web.HTTPServiceUnavailable) -> web.StreamResponse:
    """A table that can't be loaded: the socket opens, says why (naming the table and the
    event, as the HTTP answer does) and closes."""
    ws = web.WebSocketResponse()
    await ws.prepare(request)
    await ws.send_json({"type": "error", "id": None, **json.loads(exc.text or "{}")})
    await ws.close()
    return ws


async def _socket(request: web.Request, table: Table, spectator: bool) -> web.StreamResponse:
    hub = request.app[HUB_KEY]
    limits = hub.limits
    kind = request.query.get("device", "phone")
    if kind not in DEVICES:  # a page's mistake, not a player's: refused as a bad request
        raise web.HTTPBadRequest(
            text=error_text(
                "malformed",
                Sentence('"device" is "table" (one device for the table) or "phone".'),
                member="device",
            ),
            content_type="application/json",
        )
    if not same_origin(request):
        # Another site's page may not open a socket with this browser's seat (item 12).
        raise web.HTTPForbidden(
            text=error_text("cross-origin", Sentence("Other sites can't connect.")),
            content_type="application/json",
        )
    gate = request.app[GATE_KEY]
    who = request.remote or "?"
    ws = web.WebSocketResponse(max_msg_size=limits.message_bytes, heartbeat=30)
    # A socket that opens with its seats' tokens (``?token=A&token=B``: a table device holds
    # several) is a player's: it never counts among the spectators and visitors, so that they
    # can't fill a table (item 8), and counts once for each seat it holds.
    tokens = request.query.getall("token", [])[:MAX_PLAYERS]
    named = [] if spectator else _seats_of(table, tokens)
    # A table device's socket opens for the seats that have room: one seat at its cap (its
    # own sockets not yet seen closed, after a flaky network) doesn't keep out the others.
    placed = [s for s in named if gate.has_room(table.id, s)] or named
    full = [s for s in named if s not in placed]
    refusal = gate.admit(who, table.id, placed)
    if refusal is not None:
        # Said on the socket, with "try again later" (1013): a browser shows a page neither
        # the status of a refused upgrade nor its body.
        await ws.prepare(request)
        await ws.send_json(error_message(None, "too-many-sockets", refusal))
        await ws.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"too many sockets")
        return ws
    takeovers = takeovers_of(hub)
    conn = Conn(
        ws=ws, table=table, spectator=spectator, limits=limits, device=kind == "table", address=who
    )
    counted = list(placed)  # the seats the socket limits count it for, while it holds them

    def uncount(seat: str) -> None:
        if seat in counted:
            counted.remove(seat)
            gate.leave_seat(table.id, seat)

    def recount(seats: list[str]) -> list[str]:
        for seat in [s for s in counted if s not in seats]:
            uncount(seat)
        full = []
        for seat in seats:
            if seat in counted:
                continue
            if gate.join_seat(table.id, seat):
                counted.append(seat)
            else:
                full.append(seat)
        return full

    conn.uncount = uncount
    conn.recount = recount
    try:
        await ws.prepare(request)
    except BaseException:
        gate.leave(who, table.id, placed)
        raise
    hub.conns.setdefault(table.id, set()).add(conn)
    writer = asyncio.create_task(conn.writer())
    if full:
        conn.send_json(_seats_full(hub, table, full, "token"))
    # A socket that never says hello is closed (it holds a descriptor and a place).
    no_hello = asyncio.get_running_loop().call_later(
        limits.hello_seconds, lambda: None if conn.hello else conn.close()
    )
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
            # Every frame, text or not, spends from the budgets (item 8).
            text = msg.data if msg.type == WSMsgType.TEXT else ""
            if not conn.bucket.take():
                conn.dropped += 1
                if conn.dropped >= limits.flood_close:
                    conn.send_json(
                        error_message(
                            None, "throttled", Sentence("Too many messages: disconnected.")
                        )
                    )
                    conn.close()
                    break
                conn.send_json(
                    error_message(
                        _peek_id(text), "throttled", Sentence("Too many messages; slow down.")
                    )
                )
                continue
            # The budgets the address's sockets share, and the table's seated sockets (item 8):
            # a visitor with the link can't spend the players' budget.
            if not gate.take(who, table.id if conn.seats else None):
                conn.dropped += 1
                if conn.dropped >= limits.flood_close:
                    conn.close()
                    break
                conn.send_json(
                    error_message(
                        _peek_id(text),
                        "throttled",
                        Sentence("Too many messages from here or at this table; slow down."),
                    )
                )
                continue
            if msg.type != WSMsgType.TEXT:
                conn.send_json(
                    error_message(None, "malformed", Sentence("Messages are JSON text."))
                )
                continue
            if hub.owners.behind_on(table) and _kind_of(msg.data) in _READS_TABLE:
                # Its copy here takes in what its owner decided first (in slices, the other
                # tables going on: issue 26 item 2); this socket's next messages wait.
                await hub.owners.caught_up(table)
            try:
                _handle(hub, conn, msg.data)
            except Exception:
                log.exception("unexpected error handling a message")
                conn.send_json(
                    error_message(
                        _peek_id(text), "internal", Sentence("The server could not handle this.")
                    )
                )
    finally:
        no_hello.cancel()
        gate.leave(who, table.id, counted, watcher=not placed)
        conns = hub.conns.get(table.id)
        if conns is not None:
            conns.discard(conn)
            if not conns:  # no empty set kept for every table ever connected to
                del hub.conns[table.id]
        for held in conn.seats:
            takeovers.release(table.id, held, conn.device)
        takeovers.hosts.discard(conn)
        undo_asks_of(hub).forget(conn)
        conn.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(writer, 5)
    if ws.close_code == 1009:
        log.info("closed a socket that sent an oversized message")
    return ws


#: A change's id as it stands in a message that can't be read (too deep, a huge integer...),
#: so that the error still answers the change that caused it.
_ID_IN_TEXT = re.compile(r'"id"\s*:\s*"([A-Za-z0-9_-]{1,64})"')


def _peek_id(data: str) -> str | None:
    try:
        obj = strict_json(data)
    except ValueError:
        found = _ID_IN_TEXT.search(data[:4096])
        return found.group(1) if found else None
    cid = obj.get("id") if isinstance(obj, dict) else None
    return cid if isinstance(cid, str) else None


#: The messages that read the copy here of a table another process decides: it is brought up
#: to date before (:meth:`.Owners.caught_up`). Not a ping, nor a change sent on to the owner.
_READS_TABLE = ("hello", "history", "undo")


def _kind_of(data: str) -> object:
    """A message's ``"type"`` (``None`` for a message that is not a JSON object)."""
    try:
        msg = strict_json(data)
    except ValueError:
        return None
    return msg.get("type") if isinstance(msg, dict) else None


def _handle(hub: Hub, conn: Conn, data: str) -> None:
    """One message from a client. Runs to the end without yielding: decide, persist, broadcast."""
    try:
        msg = strict_json(data)
    except NotJson as exc:
        conn.send_json(
            error_message(
                _peek_id(data), "malformed", Sentence("Not JSON: {error}", error=exc.words)
            )
        )
        return
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        conn.send_json(
            error_message(None, "malformed", Sentence('A message is a JSON object with a "type".'))
        )
        return
    kind = msg["type"]
    table = conn.table
    if kind == "hello":
        # A welcome is up to a page of the timeline: after the first, hellos spend the
        # socket's history-page budget (a hello a message would be a page a message).
        if conn.hello and not conn.pages.take():
            conn.send_json(
                error_message(None, "throttled", Sentence("Too many hellos; slow down."))
            )
            return
        held, device = list(conn.seats), conn.device
        _hello(hub, conn, msg)
        for seat in held:
            if not conn.holds(seat):
                takeovers_of(hub).release(table.id, seat, device)
                if conn.uncount is not None:
                    conn.uncount(seat)
        _host_hello(hub, conn, msg)
        return
    if kind == "takeover_answer":
        _takeover_answer(hub, conn, msg)
        return
    if kind == "ping":
        conn.send_json({"type": "pong"})
        return
    if kind == "history":
        _history(hub, conn, msg)
        return
    if kind == "undo_answer":  # allowing (or not) another seat's undo of this seat's change
        if set(msg) - {"type", "request", "allow"}:
            conn.send_json(
                error_message(
                    None,
                    "malformed",
                    Sentence(
                        'An undo answer is {"type": "undo_answer", "request": ID, "allow": bool}.'
                    ),
                )
            )
            return
        undo_asks_of(hub).answer(hub, conn, msg.get("request"), msg.get("allow"))
        return
    if kind not in CHANGES and kind != "tool":
        conn.send_json(
            error_message(
                None, "malformed", Sentence("Unknown message type {kind}.", kind=repr(kind))
            )
        )
        return
    cid = msg.get("id")
    if not isinstance(cid, str) or not CLIENT_ID.match(cid):
        conn.send_json(
            error_message(
                None,
                "malformed",
                Sentence('Every change carries an "id": 1-64 letters, digits, _ or -.'),
            )
        )
        return
    if not conn.hello:
        conn.send_json(error_message(cid, "hello-first", Sentence("Say hello first.")))
        return
    if conn.spectator:
        conn.send_json(
            error_message(cid, "spectator", Sentence("Spectators can watch but not act."))
        )
        return
    if not conn.seats:
        conn.send_json(error_message(cid, "no-seat", Sentence("Take a seat to act.")))
        return
    if kind == "tool":  # dice, coin, first player, planar die, clocks (live/toolmessages.py)
        tool_message(hub, conn, cid, msg)
        return
    allowed = {"type", "id", "as"} | CHANGES[kind]
    extra = sorted(set(msg) - allowed)
    if extra:
        conn.send_json(
            error_message(
                cid,
                "malformed",
                Sentence(
                    "Unknown message member {member} for {kind}.",
                    member=repr(extra[0]),
                    kind=repr(kind),
                ),
            )
        )
        return
    acting = _acting(conn, msg, cid)
    if acting is None:
        return
    # An undo names the action it takes back (issue 7 item 2): the table checks "target".
    body: dict[str, Any] = {k: msg.get(k) for k in allowed - {"type", "id", "as", "at_turn"}}
    if conn.device:  # the history says what sent it: the table device (issue 17 item 11)
        body["device"] = "table"
    if kind == "undo" and type(body.get("target")) is not int:
        # Refused at once, before anyone is asked (issue 26 item 9): 1.0 and true are no
        # sequence numbers, though Python counts them equal to 1.
        conn.send_json(
            error_message(
                cid,
                "malformed",
                Sentence(
                    'An undo names the action it takes back: "target" is its sequence number.'
                ),
                member="target",
            )
        )
        return
    # A seat's Undo takes back its own change; another seat's is asked of that seat's device
    # or the host (issue 17 item 10: live/undoasks.py). A device's seats are all its own. (The
    # owner of a table another process decides checks again, when it decides: live/owners.py.)
    owner = table.undo_owner(body.get("target")) if kind == "undo" else None
    if owner is not None and not conn.holds(owner):
        undo_asks_of(hub).ask(hub, conn, cid, acting, body["target"], owner, body)
        return
    at_turn = msg.get("at_turn")
    if "at_turn" in msg and (
        type(at_turn) is not int or not 0 <= at_turn <= MAX_TURN_NUMBER  # a bool is no number
    ):
        conn.send_json(
            error_message(
                cid,
                "malformed",
                Sentence('"at_turn" is a turn number (0 before the first).'),
                member="at_turn",
            )
        )
        return
    # Decided here, or by the process that owns the table (live/owners.py), written by its
    # writer; a refusal of a change written long ago is an ack.
    hub.owners.route(table, conn, kind, body, cid, acting, at_turn)
    undo_asks_of(hub).prune(table)  # a question about a change no longer last is over


def _seats_full(hub: Hub, table: Table, full: list[str], member: str) -> dict[str, Any]:
    """The error for seats a socket does not hold: each has as many sockets as it may."""
    names = ", ".join(table.label(s) for s in full)
    return error_message(
        None,
        "too-many-sockets",
        Sentence(
            "At most {n} connections for one seat: this one does not hold {names}'s.",
            n=hub.limits.sockets_per_seat,
            names=names,
        ),
        member=member,
        seats=full,
    )


def _seats_of(table: Table, tokens: list[str]) -> list[str]:
    """The seats ``tokens`` hold, in seating order (a token that is not one, or holds no
    seat, holds nothing)."""
    digests = {hash_token(t) for t in tokens if TOKEN.match(t)}
    return [s for s in table.player_ids() if table.seats.get(s) in digests]


def _acting(conn: Conn, msg: dict[str, Any], cid: str) -> str | None:
    """The seat a change is sent as: its ``"as"``, which the socket must hold (optional when
    it holds one seat). ``None``: the error was sent."""
    acting = msg.get("as")
    if acting is None and "as" not in msg and len(conn.seats) == 1:
        return conn.seats[0]
    if not isinstance(acting, str):
        held = ", ".join(conn.seats)
        conn.send_json(
            error_message(
                cid,
                "malformed",
                Sentence(
                    '"as" names the seat that acts: this connection holds {seats}.', seats=held
                )
                if "as" in msg
                else Sentence(
                    '"as" must name the seat that acts: this connection holds {seats}.', seats=held
                ),
                member="as",
            )
        )
        return None
    if not conn.holds(acting):
        name = conn.table.label(acting) if acting in conn.table.player_ids() else quoted(acting)
        conn.send_json(
            error_message(
                cid,
                "not-your-seat",
                Sentence("This connection doesn't hold {player}'s seat.", player=name),
                member="as",
            )
        )
        return None
    return acting


def _hello(hub: Hub, conn: Conn, msg: dict[str, Any]) -> None:
    """``{"type": "hello", "token": T, "tokens": [T, ...], "since": N, "device": D}``: the
    seats the tokens hold (``token`` and ``tokens`` together), whether the socket is a table
    device's (``"table"``; ``"phone"``: a personal phone; absent: as its URL said), and the
    welcome."""
    table = conn.table
    since = msg.get("since", 0)
    token = msg.get("token")
    tokens = msg.get("tokens", [])
    device = msg.get("device", "table" if conn.device else "phone")
    if isinstance(since, bool) or not isinstance(since, int) or since < 0:
        conn.send_json(
            error_message(None, "malformed", Sentence('"since" is the last sequence number seen.'))
        )
        return
    if device not in DEVICES:
        conn.send_json(
            error_message(
                None,
                "malformed",
                Sentence('"device" is "table" (one device for the table) or "phone".'),
                member="device",
            )
        )
        return
    if since > table.last_seq:
        since = 0
    if tokens is None:
        tokens = []
    if not conn.spectator:
        problem = None
        if token is not None and not (isinstance(token, str) and TOKEN.match(token)):
            problem = ("token", Sentence('"token" is a seat token.'))
        elif not isinstance(tokens, list) or not all(
            isinstance(t, str) and TOKEN.match(t) for t in tokens
        ):
            problem = ("tokens", Sentence('"tokens" is a list of seat tokens.'))
        elif len(tokens) > MAX_PLAYERS:
            problem = (
                "tokens",
                Sentence('"tokens" holds at most {n} (a table\'s seats).', n=MAX_PLAYERS),
            )
        if problem is not None:
            conn.send_json(error_message(None, "malformed", problem[1], member=problem[0]))
            return
    given = ([] if token is None else [token]) + (tokens if isinstance(tokens, list) else [])
    conn.seats = []
    conn.device = device == "table"
    if not given and conn.recount is not None:
        conn.recount([])  # the seats its URL named, if any, are not held: counted out
    if given:
        if conn.spectator:
            conn.send_json(
                error_message(None, "spectator", Sentence("Spectators can watch but not act."))
            )
        else:
            found = _seats_of(table, given)
            # Counted for each seat it holds (the cap on sockets per seat), as when it opens
            # with the tokens in its URL: a seat at its cap is not held by this socket.
            full = [] if conn.recount is None else conn.recount(found)
            conn.seats = [s for s in found if s not in full]
            if full:
                conn.send_json(_seats_full(hub, table, full, "tokens" if tokens else "token"))
            if conn.seats:  # the other servers hear of it (and of who else holds them here)
                mine = set(conn.seats)
                takeovers_of(hub).holding_conns(
                    table.id, [c for c in hub.conns.get(table.id, ()) if mine & set(c.seats)]
                )
            lost = len(set(given)) - len(found)
            if lost:
                conn.send_json(
                    error_message(
                        None,
                        "bad-token",
                        Sentence("This seat token no longer holds a seat.")
                        if lost == 1 and len(given) == 1
                        else Sentence("{n} of these seat tokens no longer hold a seat.", n=lost),
                    )
                )
    welcome(conn, since, host=not conn.spectator and is_host(table, msg.get("host")))


def welcome(conn: Conn, since: int, host: bool | None = None) -> None:
    """Send ``conn`` its table as of the last event written, with the entries after ``since``
    (after a hello, or when another server's write made what it was shown stale). Made from
    cached texts: it costs the size of the welcome (at most the newest PAGE entries), never
    the length of the game."""
    table = conn.table
    if host is None:
        host = conn.host
    try:
        text = table.snapshot_text(
            since,
            type="welcome",
            seat=conn.seat,
            seats=conn.seats,
            device="table" if conn.device else "phone",
            spectator=conn.spectator,
            taken=sorted(table.seats),
            host=host,
            tools=tools_view(table),
            now=now_ms(),
        )
    except TableError as exc:
        conn.send_json({"type": "error", "id": None, **exc.to_json()})
        return
    conn.hello = True
    conn.host = host
    conn.send(text)


def _host_hello(hub: Hub, conn: Conn, msg: dict[str, Any]) -> None:
    """After a welcome: a hello with the table's host token makes the socket the host's; the
    takeover requests it (as host, or as the seat's holder) should answer are put to it."""
    if not conn.hello:
        return
    takeovers = takeovers_of(hub)
    if not conn.spectator and is_host(conn.table, msg.get("host")):
        takeovers.hosts.add(conn)
    else:
        takeovers.hosts.discard(conn)
    for asked in takeovers.waiting(conn.table.id):
        if takeovers.may_answer(conn, asked):
            conn.send_json(asked.message())


#: Seat grants under way for allowed takeovers (kept so that they are not collected).
_GRANTS: set[asyncio.Task[None]] = set()
#: History pages being read (the same).
_PAGES: set[asyncio.Task[None]] = set()


def _takeover_answer(hub: Hub, conn: Conn, msg: dict[str, Any]) -> None:
    """``{"type": "takeover_answer", "request": RID, "allow": bool}`` from the seat's holder or
    the host: the first answer decides."""
    rid, allow = msg.get("request"), msg.get("allow")
    if (
        not isinstance(rid, str)
        or not isinstance(allow, bool)
        or set(msg)
        - {
            "type",
            "request",
            "allow",
        }
    ):
        conn.send_json(
            error_message(
                None,
                "malformed",
                Sentence(
                    'A takeover answer is {"type": "takeover_answer", "request": ID, '
                    '"allow": bool}.'
                ),
            )
        )
        return
    takeovers = takeovers_of(hub)
    asked = takeovers.requests.get(rid)
    if asked is None or not conn.hello or not takeovers.may_answer(conn, asked):
        conn.send_json(
            error_message(
                None, "unknown-request", Sentence("There is no such takeover request to answer.")
            )
        )
        return
    if asked.status != "pending" or asked.state() != "pending":
        conn.send_json(
            error_message(
                None, "answered", Sentence("This takeover request was answered or has expired.")
            )
        )
        return
    if asked.origin is not None:  # put on another server: that one decides
        takeovers.relay_answer(asked, allow)
        return
    _decide(hub, takeovers, conn.table, asked, allow)


def _decide(hub: Hub, takeovers: Takeovers, table: Table, asked: Takeover, allow: bool) -> None:
    """The first answer to a takeover request put here decides it."""
    if not allow:
        takeovers.finish(hub, table, asked, "refused")
        return
    asked.status = "granting"
    task = asyncio.get_running_loop().create_task(_allow(hub, takeovers, table, asked))
    _GRANTS.add(task)
    task.add_done_callback(_GRANTS.discard)


def relayed(hub: Hub, kind: str, table_id: str, detail: str) -> None:
    """A notice about seats from another server sharing the store (issue 10): ``holding``
    (its sockets hold these seats), ``ask`` (a takeover request put there: put it to the
    phones here that may answer), ``answer`` (a phone there answered a request put here: the
    first answer decides), ``closed`` (a request put there ended); ``lost``: notices may have
    been missed. The undo questions' notices (``undo_ask``, ``undo_answer``, ``undo_closed``)
    go to :meth:`.undoasks.UndoAsks.relayed`."""
    takeovers = takeovers_of(hub)
    if kind == "lost":
        takeovers.unsure()
        return
    try:
        info = json.loads(detail)
    except ValueError:
        return
    if not isinstance(info, dict) or info.get("from") == takeovers.me:
        return
    if kind == "holding" and isinstance(info.get("seats"), list):
        devices = info.get("devices")
        takeovers.heard_holding(
            table_id,
            [s for s in info["seats"] if isinstance(s, str)],
            [s for s in devices if isinstance(s, str)] if isinstance(devices, list) else [],
        )
        return
    if kind in UNDO_NOTICES:
        undo_asks_of(hub).relayed(hub, kind, table_id, info)
        return
    rid = info.get("request")
    task = asyncio.get_running_loop().create_task(_relayed(hub, kind, table_id, rid, info))
    _GRANTS.add(task)
    task.add_done_callback(_GRANTS.discard)


async def _relayed(hub: Hub, kind: str, table_id: str, rid: Any, info: dict[str, Any]) -> None:
    takeovers = takeovers_of(hub)
    asked = takeovers.requests.get(rid) if isinstance(rid, str) else None
    if kind == "ask" and isinstance(rid, str) and isinstance(info.get("seat"), str):
        table = hub.tables.get(table_id)  # only a table with phones here has anyone to ask
        if table is not None and isinstance(info.get("seconds"), (int, float)):
            takeovers.mirror(hub, table, info["from"], rid, info["seat"], info["seconds"])
    elif kind == "answer" and asked is not None and info.get("to") == takeovers.me:
        if asked.origin is None and asked.status == "pending" and asked.state() == "pending":
            table = await hub.table(table_id)
            if table is not None and isinstance(info.get("allow"), bool):
                _decide(hub, takeovers, table, asked, info["allow"])
    elif kind == "closed" and asked is not None and asked.origin == info.get("from"):
        table = hub.tables.get(table_id)
        if table is not None and isinstance(info.get("status"), str):
            takeovers.finish(hub, table, asked, info["status"])


async def _allow(hub: Hub, takeovers: Takeovers, table: Table, asked: Takeover) -> None:
    """Give the seat to the asker (its token waits for the asker's poll)."""
    told = takeovers.askees(hub, table, asked)
    try:
        asked.token = await grant_seat(hub, table, asked.seat)
    except StorageFailure:
        asked.status = "pending"  # nothing changed: it may be answered again
        return
    except SeatTaken:  # another server gave the seat to someone else meanwhile
        takeovers.finish(hub, table, asked, "refused")
        return
    takeovers.finish(hub, table, asked, "allowed", told)


def _history(hub: Hub, conn: Conn, msg: dict[str, Any]) -> None:
    """``{"type": "history", "before": SEQ, "limit": N}``: a page of older timeline entries."""
    try:
        before, limit = history_request(msg)
    except TableError as exc:
        conn.send_json({"type": "error", "id": None, **exc.to_json()})
        return
    if not conn.pages.take():
        conn.send_json(
            error_message(
                None, "throttled", Sentence("Too many history pages asked for; slow down.")
            )
        )
        return
    # A page kept since the table last changed costs nothing; one built is charged to the
    # socket's address, and past its share, as an HTTP request would be, refused.
    refused = answers_of(hub).refusal(conn.address)
    if refused is not None:
        conn.send_json(error_message(None, "throttled", refused))
        return
    task = asyncio.get_running_loop().create_task(_send_history(hub, conn, before, limit))
    _PAGES.add(task)
    task.add_done_callback(_PAGES.discard)


async def _send_history(hub: Hub, conn: Conn, before: int, limit: int) -> None:
    """Send the socket its page (built, or kept; an older one read from the store in a
    thread), or why not."""
    try:
        conn.send(await history_text(hub, conn.table, before, limit, conn.address))
    except TableError as exc:
        conn.send_json({"type": "error", "id": None, **exc.to_json()})


def add_routes(router: web.UrlDispatcher) -> None:
    """The live connections: a player's and a spectator's."""
    router.add_get("/ws/t/{table}", table_socket)
    router.add_get("/ws/w/{watch}", watch_socket)

"""A change (``"life"``, ``"undo"``, a game's end...: :data:`...decide.messages.CHANGES`): the
checks every change passes (:func:`checked`: its id, a hello first, a seat), its members and
the seat it acts as (:func:`body_of`), then (:func:`send`) decided here or by the process that
owns the table (:mod:`...live.owners`), written by its writer. An undo has a step of its own
between (:mod:`.undo`); a tool message shares the first checks (:mod:`.tools`)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ...decide.messages import CHANGES, CLIENT_ID, MAX_TURN_NUMBER
from ...live.hub import HUB_KEY
from ...live.sockets import Conn, error_message
from ...live.undoasks import UNDO_ASKS_KEY
from ..requests import quoted

__all__ = ["body_of", "checked", "handle", "send"]


def handle(app: web.Application, conn: Conn, msg: dict[str, Any]) -> None:
    """A change of any kind but an undo (:mod:`.undo`) and a tool message (:mod:`.tools`)."""
    cid = checked(conn, msg)
    if cid is None:
        return
    found = body_of(conn, msg, cid)
    if found is None:
        return
    acting, body = found
    send(app, conn, msg, body, cid, acting)


def checked(conn: Conn, msg: dict[str, Any]) -> str | None:
    """What every change (a tool message too) is checked for first: its id, a hello before
    it, a socket that is not a spectator's and holds a seat. The change's id; ``None``: the
    error was sent."""
    cid = msg.get("id")
    if not isinstance(cid, str) or not CLIENT_ID.match(cid):
        conn.send_json(
            error_message(
                None,
                "malformed",
                Sentence('Every change carries an "id": 1-64 letters, digits, _ or -.'),
            )
        )
        return None
    if not conn.hello:
        conn.send_json(error_message(cid, "hello-first", Sentence("Say hello first.")))
        return None
    if conn.spectator:
        conn.send_json(
            error_message(cid, "spectator", Sentence("Spectators can watch but not act."))
        )
        return None
    if not conn.seats:
        conn.send_json(error_message(cid, "no-seat", Sentence("Take a seat to act.")))
        return None
    return cid


def body_of(conn: Conn, msg: dict[str, Any], cid: str) -> tuple[str, dict[str, Any]] | None:
    """A change's members (none but its kind's), the seat it acts as (its ``"as"``) and its
    body as the table decides it. ``None``: the error was sent."""
    kind = msg["type"]
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
        return None
    acting = _acting(conn, msg, cid)
    if acting is None:
        return None
    # An undo names the action it takes back (issue 7 item 2): the table checks "target".
    body: dict[str, Any] = {k: msg.get(k) for k in allowed - {"type", "id", "as", "at_turn"}}
    if conn.device:  # the history says what sent it: the table device (issue 17 item 11)
        body["device"] = "table"
    return acting, body


def send(
    app: web.Application,
    conn: Conn,
    msg: dict[str, Any],
    body: dict[str, Any],
    cid: str,
    acting: str,
) -> None:
    """The change's ``"at_turn"`` checked, then the change decided here, or by the process
    that owns the table (live/owners.py), written by its writer; a refusal of a change
    written long ago is an ack. The undo questions about a change no longer last are over."""
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
    table = conn.table
    app[HUB_KEY].owners.route(table, conn, msg["type"], body, cid, acting, at_turn)
    app[UNDO_ASKS_KEY].prune(table)  # a question about a change no longer last is over


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

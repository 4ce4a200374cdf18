"""Who hears what happens in the live server: the callbacks each part calls, given to it at
construction.

The composition root (:func:`lifeledger_table.server.assemble`) makes one
:class:`Subscribers`, gives it to the hub (and through it to the writer, the follower and the
owners), and puts in it what the other parts do on each piece of news once those parts are made:
no part assigns another's attributes, and no part looks another up by the hub. Each list is
called in order; most have one subscriber.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..decide.table import Decision, Table
from .sockets import Conn, Sender

__all__ = ["Subscribers"]


@dataclass(eq=False)
class Subscribers:
    """The callbacks the live server's parts call (see the module)."""

    #: A phone is shown its table anew, as of a sequence number (the protocol's welcome).
    welcome: list[Callable[[Conn, int], None]] = field(default_factory=list)
    #: News of a table was sent to its phones here (a change written here or by its owner,
    #: or the table shown anew): the undo questions about a change no longer last are over
    #: (:meth:`.undoasks.UndoAsks.changed`).
    changed: list[Callable[[Table], None]] = field(default_factory=list)
    #: A change decided here was written and sent to the phones here: the processes following
    #: its table are sent it (:meth:`.relaying.Relaying.relay`).
    written: list[Callable[[Table, Decision, Sender], None]] = field(default_factory=list)
    #: A table's tools were sent to its phones here (the JSON text, the sender and its
    #: message's id): the processes following it are sent them
    #: (:meth:`.relaying.Relaying.relay_tools`).
    tools_sent: list[Callable[[Table, str, Sender | None, str], None]] = field(default_factory=list)
    #: A table is about to be read: the copy of one another process decides is brought up to
    #: date first (:meth:`.copies.Copies.catch_up`).
    reading: list[Callable[[Table], None]] = field(default_factory=list)
    #: Seats of a table changed hands on another server (:func:`.seats.seats_given`).
    seats_changed: list[Callable[[Table, set[str]], None]] = field(default_factory=list)
    #: The other servers' notices that are neither events, tools nor seats (seat takeovers and
    #: undo questions across servers): the kind, the table and the detail.
    notices: list[Callable[[str, str, str], None]] = field(default_factory=list)
    #: The owner sent back an undo of another seat's change to be asked here: the socket, the
    #: undo's id, the acting seat, target, that seat and the undo's body
    #: (:meth:`.undoasks.UndoAsks.ask`).
    undo_asked: list[Callable[[Conn, str, str, int, str, dict[str, Any]], None]] = field(
        default_factory=list
    )

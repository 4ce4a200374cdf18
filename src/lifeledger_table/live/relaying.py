"""What a table's owner sends the processes following it (issue 18 item 2, :mod:`.owners`):
each change decided here, once written, with its message for the phones, and the table's new
tools; the process whose phone sent it gets it as that phone's acknowledgement. (The hub's
subscribers call these: :attr:`.Subscribers.written`, :attr:`.Subscribers.tools_sent`.)"""

from __future__ import annotations

from ..decide.messages import acknowledged
from ..decide.table import Decision, Table
from .links import Link, RemoteConn, event_row
from .sockets import Sender

__all__ = ["Relaying"]


class Relaying:
    """The links of the processes following each table decided here, and what they are sent."""

    def __init__(self) -> None:
        #: The links of the processes following each table decided here.
        self.followers: dict[str, set[Link]] = {}

    def relay(self, table: Table, decision: Decision, sender: Sender) -> None:
        """A change decided here was written: the processes following its table are sent
        it (the one whose phone sent it, as its acknowledgement)."""
        links = self.followers.get(table.id)
        target = sender.link if isinstance(sender, RemoteConn) else None
        if not links and target is None:
            return
        event = decision.event
        cid = event.client_id
        for link in links or ():
            mine = link is target
            link.put(
                {
                    "t": "event",
                    "table": table.id,
                    "event": event_row(event),
                    "text": decision.text,
                    "conn": sender.key if mine and isinstance(sender, RemoteConn) else None,
                    "cid": cid if mine else None,
                }
            )
        if target is not None and target not in (links or ()):
            assert isinstance(sender, RemoteConn)
            sender.send(acknowledged(decision.text, cid), cid)

    def relay_tools(self, table: Table, text: str, sender: Sender | None, cid: str) -> None:
        """A table's tools were sent to its phones here (``text``): the processes following
        it are sent them too, with the tools themselves (the one whose phone sent the tool
        message, ``sender``, as its acknowledgement)."""
        links = self.followers.get(table.id) or set()
        target = sender.link if isinstance(sender, RemoteConn) else None
        if not links and target is None:
            return
        data = table.tools.dump()
        for link in links:
            mine = link is target
            link.put(
                {
                    "t": "tools",
                    "table": table.id,
                    "version": table.tools.version,
                    "data": data,
                    "text": text,
                    "conn": sender.key if mine and isinstance(sender, RemoteConn) else None,
                    "cid": cid if mine else None,
                }
            )
        if target is not None and target not in links:
            assert isinstance(sender, RemoteConn)
            sender.send(acknowledged(text, cid), cid)

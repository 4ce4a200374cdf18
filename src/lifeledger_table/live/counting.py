"""A table's sockets, counted on every process serving it (issue 18 item 2, :mod:`.owners`):
the sockets of a table are counted where they are open, and each follower tells the owner its
counts (a ``sockets`` message, on following and whenever they change, one a table per turn of
the event loop); the owner keeps each follower's until its link closes or it unfollows, and
tells each follower the counts of all the others (its own among them), so that every process
admits a socket against the caps per seat and of spectators per table on the table's counts
everywhere (eventually consistent: see :class:`.SocketGate`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from ..decide.limits import SocketGate
from .links import Link

__all__ = ["SocketCounts"]


class SocketCounts:
    """The counts of each table's sockets told over the links: what the followers told the
    owner here, and what is to be told. ``mine``, ``remote`` and ``followers`` are the owners'
    (:class:`.owners.Owners`): the tables decided here, the links to the owners of those
    followed here, and the links of the processes following each table decided here."""

    def __init__(
        self, mine: set[str], remote: dict[str, Link], followers: dict[str, set[Link]]
    ) -> None:
        self.mine = mine
        self.remote = remote
        self.followers = followers
        #: The gate whose counts of each table's sockets are told over the links (``None``:
        #: not counted: :meth:`count`).
        self.gate: SocketGate | None = None
        #: Tables decided here: the counts of their sockets each follower's process told.
        self.reported: dict[str, dict[Link, dict[str, int]]] = {}
        #: Tables whose counts are to be told at the end of this turn of the event loop.
        self.untold: set[str] = set()
        self._telling: asyncio.Handle | None = None

    def count(self, gate: SocketGate) -> None:
        """Tell the other processes serving a table the counts of its sockets in ``gate`` (made
        with :meth:`changed` as its ``changed``), and keep theirs there
        (:attr:`.SocketGate.elsewhere`)."""
        self.gate = gate

    def changed(self, table_id: str) -> None:
        """The counts of a table's sockets changed (here, or as a follower told): told at the
        end of this turn of the event loop, once however many changed."""
        self.untold.add(table_id)
        if self._telling is None:
            self._telling = asyncio.get_running_loop().call_soon(self._tell)

    def _tell(self) -> None:
        """A follower tells the owner its counts; an owner tells each follower the counts of
        all the others, its own among them, and keeps the followers' together."""
        self._telling = None
        tables, self.untold = self.untold, set()
        gate = self.gate
        if gate is None:
            return
        for table_id in tables:
            link = self.remote.get(table_id)
            if link is not None:
                link.put({"t": "sockets", "table": table_id, "counts": gate.counts(table_id)})
                continue
            if table_id not in self.mine:
                continue
            reports = self.reported.get(table_id, {})
            links = self.followers.get(table_id, set())
            for gone in [k for k in reports if k not in links]:
                del reports[gone]
            theirs = _sum(reports.values())
            if theirs:
                gate.elsewhere[table_id] = theirs
            else:
                gate.elsewhere.pop(table_id, None)
                self.reported.pop(table_id, None)
            if not links:
                continue
            everyone = _sum([theirs, gate.counts(table_id)])
            for follower in links:
                others = _sum([everyone], less=reports.get(follower, {}))
                follower.put({"t": "sockets", "table": table_id, "counts": others})

    def forget(self, table_id: str) -> None:
        """Forget the other processes' counts of a table's sockets (its owner changed, or it
        left memory): they are told again where it is followed next."""
        self.reported.pop(table_id, None)
        if self.gate is not None:
            self.gate.elsewhere.pop(table_id, None)

    def from_owner(self, table_id: str, given: Any) -> None:
        """The owner of a table followed here told the counts of its sockets on every other
        process (this one's aside)."""
        if self.gate is None:
            return
        counts = _counts(given)
        if counts:
            self.gate.elsewhere[table_id] = counts
        else:
            self.gate.elsewhere.pop(table_id, None)

    def from_follower(self, table_id: str, link: Link, given: Any) -> None:
        """A process following a table decided here told the counts of its sockets there
        (heard only from a follower of a table decided here)."""
        if table_id in self.mine and link in self.followers.get(table_id, ()):
            self.reported.setdefault(table_id, {})[link] = _counts(given)
            self.changed(table_id)

    def unfollowed(self, table_id: str, link: Link) -> None:
        """A process stopped following a table decided here: its counts go."""
        if self.reported.get(table_id, {}).pop(link, None) is not None:
            self.changed(table_id)

    def link_closed(self, link: Link) -> None:
        """A follower's link closed: its counts of every table go."""
        for table_id, reports in self.reported.items():
            if reports.pop(link, None) is not None:
                self.changed(table_id)


def _counts(given: Any) -> dict[str, int]:
    """Counts of a table's sockets as told on a link (anything else in them left out)."""
    if not isinstance(given, dict):
        return {}
    return {str(k): v for k, v in given.items() if type(v) is int and 0 < v <= 1_000_000}


def _sum(counts: Iterable[dict[str, int]], less: dict[str, int] | None = None) -> dict[str, int]:
    """Counts added together (``less``, taken away), those of nothing left out."""
    total: dict[str, int] = {}
    for one in counts:
        for key, n in one.items():
            total[key] = total.get(key, 0) + n
    for key, n in (less or {}).items():
        left = total.get(key, 0) - n
        if left > 0:
            total[key] = left
        else:
            total.pop(key, None)
    return total

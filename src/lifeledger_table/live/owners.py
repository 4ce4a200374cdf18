"""A table has one owner (issue 18 item 2): of several processes on one store, the one holding
a table's lease decides its changes; the others forward their phones' changes to it.

- **Leases** (:class:`~..store.records.Leases`): a process claims a table when it loads it
  (one statement: of two claiming at once, one gets it), renews all its leases in one
  statement every :data:`RENEW` seconds, and gives them up when the table leaves memory or
  the process stops. A lease not renewed for :data:`TTL` seconds (by the store's clock)
  expires, and another process may claim it. A process whose renewal finds a lease taken (it
  was paused, or cut off from the store) stops deciding that table at once. The store's
  unique ``(table, seq)`` key stays the fence: a stale owner's write is refused, and nothing
  acknowledged is lost.
- **Links** (:mod:`.links`): each process listens on an internal address (recorded in its
  leases). A process with phones on a table another owns opens one WebSocket to the owner
  (:class:`~.links.Link`, authenticated with the opening process's own key, which the owner
  checks against the digest the store keeps of it, in constant time: the store never holds a
  key, so reading it gives none, issue 26 item 9), follows the table there, and sends its
  phones' changes on it, in order. The owner decides each with the same writer as its own
  phones' (:class:`~.links.RemoteConn` answers through the link), and after the write is
  committed sends the decided event, with its message for the phones, to every process
  following the table (:mod:`.relaying`); the sender's phone gets it as its acknowledgement.
  So a change is decided once, whichever process its phone is on.
- **Behind, lazily** (:mod:`.copies`): a follower sends the owner's messages to its phones
  as they come, and keeps the events; its copy of the table takes them in only when something
  reads it (a phone's hello, undo or history page, a page: :meth:`.Copies.caught_up`; never a
  ping), or every :data:`BEHIND` events (loaded again from the store, in a thread), so that
  following costs little. Taking them in never holds the event loop (issue 26 item 2): one
  event a turn of the loop, what it needs of the log read in the writer's threads, and its
  time spent from the table's share of the server (``Table.share``): a table whose events cost
  more than its share waits, its readers with it, while the other tables go on.
- **Undo, checked where decided** (issue 26 item 4): the owner checks whose change a
  forwarded undo takes back when it decides it (in its turn: ``check`` of
  :meth:`.Writer.handle`); another seat's change, of a seat the sending socket does not
  hold, is not applied: the sender's process is told (``undo_ask``) and puts it to that
  seat as a question (:mod:`.undoasks`, its copy holding the change first), whose yes
  comes back as an undo that names who allowed it.
- **Takeover**: when an owner dies its links close; each follower puts the changes sent and
  not answered back first in line, waits for the lease to expire, and claims it (or links
  to whoever did). The new owner loads the table from the store (everything acknowledged is
  there) and decides; a change sent again is acknowledged with its sequence number, never
  applied twice (the client ids the table remembers, and the store's).
- **Limits of a table** are held for the whole table, wherever its phones are: a change
  forwarded on a link spends the table's message budget on the owner
  (:meth:`.SocketGate.take_table`), as its own phones' messages do, and is decided by the
  owner's writer against the table's share of the server (``Table.share``); a refusal goes
  back on the link, to the phone. The sockets of a table are counted where they are open,
  and each follower tells the owner its counts (:mod:`.counting`: a ``sockets`` message, on
  following and whenever they change, one a table per turn of the event loop); the owner
  keeps each follower's until its link closes or it unfollows, and tells each follower the
  counts of all the others (its own among them), so that every process admits a socket
  against the caps per seat and of spectators per table on the table's counts everywhere
  (eventually consistent: see :class:`.SocketGate`). The limits per socket and per client
  address stay with the process the socket is on (they are per connection).
- **Tools** (dice, coin, first player, planar die, clocks, round timer: :mod:`.toolmessages`)
  are decided by the owner too. A follower's phone's tool message spends its address's tool
  budget there, then goes on the link as a ``change`` of kind ``"tool"`` (in flight, sent again
  to the next owner like the others); the owner decides it as its own phones' (the table's
  tool budget, its tool changes waiting, one lock, one write) and sends the new tools, with
  their text for the phones, to every process following the table in a ``tools`` message
  (:meth:`.Relaying.relay_tools`; the sender's phone gets it as its acknowledgement). A follower
  takes the tools from there, not from the store's notices (each phone sees them once); on
  following, it reads them from the store if the owner's (told in ``followed``) are newer.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import secrets
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide.messages import acknowledged
from ..decide.table import Table
from ..decide.tools import Tools
from ..store.records import Leases, key_digest
from .copies import Copies
from .counting import SocketCounts
from .fanout import Fanout
from .links import CONNECT, HEARTBEAT, LINK_PATH, Link, RemoteConn, Request, event_of
from .relaying import Relaying
from .sockets import Conn, Sender, error_message
from .toolmessages import ToolWork, decide_tool, tools_changed
from .writer import STORAGE, Writer

__all__ = ["BEHIND", "RENEW", "TTL", "Owners"]

log = logging.getLogger("lifeledger_table")

#: How long (seconds) a lease lasts without being renewed: an owner that dies is replaced
#: within about this long.
TTL = 5.0
#: How often (seconds) a process renews its leases.
RENEW = 1.0
#: How often (seconds) at most the processes on the store are read again to check a process
#: not known yet (:meth:`Owners.authentic`, :meth:`Owners.is_process`).
KNOWN_EVERY = 0.5
#: The most events a follower keeps for a table before its copy is loaded again from the
#: store (from its newest checkpoint, in a thread: at most ``Table.CHECKPOINT`` actions
#: replayed, a quarter of the events it skips), rather than taking each in.
BEHIND = 400

#: How long (seconds) an undo the owner sent back to be asked waits for the change it names
#: to reach the copy here (it is sent before that change is written).
AWAIT_CHANGE = 10.0

#: The refusal of a change over the table's message budget (as the socket's own budgets say).
THROTTLED = Sentence("Too many messages from here or at this table; slow down.")


class Owners:
    """Which tables this process decides, and the links to the owners of the others."""

    def __init__(self, hub: Fanout, writer: Writer, leases: Leases, tools: ToolWork) -> None:
        self.hub = hub
        self.writer = writer
        self.leases = leases
        #: The tool changes under way here (those of the tables decided here among them).
        self.tools = tools
        #: This process's id in the leases (a new one each start: what it held in memory
        #: is gone).
        self.me = secrets.token_hex(8)
        #: Where the others reach this process (``host:port``), once it listens.
        self.address = ""
        #: This process's key, shown to the others (``Bearer ME.KEY``); the store keeps only
        #: its digest (:func:`~..store.records.key_digest`), by which they check it.
        self.secret = secrets.token_urlsafe(32)
        #: The processes on the store as last read: id -> (address, digest of its key).
        self.known: dict[str, tuple[str, str]] = {}
        #: When :attr:`known` was last read (:func:`time.monotonic`): a process not known
        #: reads it again at most every :data:`KNOWN_EVERY` seconds.
        self.known_at = -KNOWN_EVERY
        #: The tables this process decides.
        self.mine: set[str] = set()
        #: The tables another process decides: the link to it.
        self.remote: dict[str, Link] = {}
        #: The changes of tables whose owner is being found, in order.
        self.waiting: dict[str, list[Request]] = {}
        self.resolving: set[str] = set()
        #: Changes sent to an owner and not yet answered, by table and id (sent again to the
        #: next owner if this one dies).
        self.inflight: dict[str, dict[str, Request]] = {}
        #: Links to owners, by address (opening: a future).
        self.links: dict[str, asyncio.Future[Link | None]] = {}
        #: The links of the processes following each table decided here.
        self.relaying = Relaying()
        self.followers = self.relaying.followers
        self._keys: weakref.WeakKeyDictionary[Conn, int] = weakref.WeakKeyDictionary()
        self._conns: weakref.WeakValueDictionary[int, Conn] = weakref.WeakValueDictionary()
        self._next_key = 0
        self.tasks: set[asyncio.Task[Any]] = set()
        self.session: aiohttp.ClientSession | None = None
        self.runner: web.AppRunner | None = None
        #: Set once the process stops: no table is claimed or followed any more.
        self.stopping = False
        #: The copies here of the tables followed at their owners (:mod:`.copies`).
        self.copies = Copies(hub, writer, self.remote, self.tasks)
        #: A table's sockets counted on every process serving it (:mod:`.counting`).
        self.counts = SocketCounts(self.mine, self.remote, self.followers)
        #: Changes forwarded to owners, and tables taken over from another owner.
        self.forwarded = 0
        self.taken_over = 0

    # -- starting and stopping -----------------------------------------------------------------

    async def start(
        self,
        listen: Callable[[web.Application], Awaitable[web.AppRunner]] | None,
        more: Callable[[web.Application], None] | None = None,
    ) -> None:
        """Renew leases, and listen for links: ``listen(app)`` starts the internal listener
        (its caps are the caller's) and returns its runner; ``None``, no listener (a store no
        other process shares: nothing can follow this one). ``more`` adds routes of its own to
        the internal listener (each request shown the secret: :meth:`authentic`)."""
        if listen is not None:
            app = web.Application()
            app.router.add_get(LINK_PATH, self.accept)
            if more is not None:
                more(app)
            self.runner = await listen(app)
            bound = self.runner.addresses[0]
            where = str(bound[0])
            self.address = f"[{where}]:{bound[1]}" if ":" in where else f"{where}:{bound[1]}"
            await asyncio.to_thread(
                self.leases.register, self.me, self.address, key_digest(self.secret)
            )
        self.session = aiohttp.ClientSession()
        self._spawn(self._keep())

    async def stop(self) -> None:
        """Give up every lease (the others take the tables at once) and close the links."""
        self.stopping = True
        self.copies.stop()
        for task in list(self.tasks):
            task.cancel()
        held = list(self.mine)
        self.mine.clear()
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.leases.release, self.me, held)
        if self.address:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self.leases.unregister, self.me)
        for opening in self.links.values():
            if opening.done() and opening.result() is not None:
                link = opening.result()
                assert link is not None
                await link.ws.close()
        for links in list(self.followers.values()):
            for link in list(links):  # (a link closing leaves its set meanwhile)
                await link.ws.close()
        if self.session is not None:
            await self.session.close()
        if self.runner is not None:
            await self.runner.cleanup()

    def _spawn(self, work: Any) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _keep(self) -> None:
        """Renew this process's leases every :data:`RENEW` seconds; a table whose lease was
        taken is no longer decided here."""
        warned = False
        while True:
            await asyncio.sleep(RENEW)
            if not self.mine:
                continue
            before = set(self.mine)
            try:
                held = await asyncio.to_thread(self.leases.renew, self.me, TTL)
            except Exception as exc:  # the store can't be reached: keep deciding (the fence)
                if not warned:
                    log.warning("could not renew the tables' leases (%s)", exc)
                warned = True
                continue
            warned = False
            for table_id in (before & self.mine) - held:
                self._lost(table_id)

    def _lost(self, table_id: str) -> None:
        """Another process took this table's lease: it decides now; follow it."""
        log.warning("table %s: another process took its lease; following it", table_id)
        self.mine.discard(table_id)
        self.counts.forget(table_id)
        for link in self.followers.pop(table_id, set()):
            link.put({"t": "moved", "table": table_id})
        table = self.hub.tables.get(table_id)
        if table is not None:
            self.copies.seen[table_id] = table.last_seq
            self.settle(table_id)

    # -- whose table -------------------------------------------------------------------------

    def decided(self, table_id: str) -> bool:
        """Whether the table's owner is known (here or on a link)."""
        return table_id in self.mine or table_id in self.remote

    def followed(self, table_id: str) -> bool:
        """Whether the table is followed at its owner, on a link: its changes come from
        there, not from the store's notices."""
        return table_id in self.remote

    def owns(self, table: Table) -> bool:
        """Whether the table's changes are decided here now (not sent to its owner, nor kept
        until it is found): as :meth:`route` decides."""
        return table.id not in self.waiting and (table.id in self.mine or table.broken is not None)

    def busy(self) -> set[str]:
        """Tables that must stay in memory: followed from elsewhere, or with changes on the
        way."""
        return (
            {t for t, links in self.followers.items() if links}
            | set(self.waiting)
            | {t for t, sent in self.inflight.items() if sent}
            | self.resolving
        )

    def settle(self, table_id: str) -> None:
        """Find the table's owner (claiming it if free), unless known or being found (or
        the table's log can't be loaded: nobody decides it)."""
        table = self.hub.tables.get(table_id)
        if self.decided(table_id) or table_id in self.resolving or self.stopping:
            return
        if table is not None and table.broken is not None:
            return
        self.resolving.add(table_id)
        self.waiting.setdefault(table_id, [])
        self._spawn(self._resolve(table_id))

    def route(
        self,
        table: Table,
        conn: Sender,
        kind: str,
        body: dict[str, Any],
        cid: str,
        seat: str | None,
        at_turn: int | None = None,
    ) -> None:
        """A phone's change: decided here if this process owns the table, sent to its owner
        if another does, or kept (in order) until the owner is found. (Kind ``"tool"``: a
        tool message, ``body`` the phone's message and ``seat`` who uses the tool.)"""
        table_id = table.id
        request: Request = (conn, kind, body, cid, seat, at_turn)
        waiting = self.waiting.get(table_id)
        if waiting is not None:
            waiting.append(request)
        elif table_id in self.mine or table.broken is not None:  # (a broken one: refused)
            self._decide(table, request)
        elif table_id in self.remote:
            self._forward(table_id, self.remote[table_id], request)
        else:
            self.waiting[table_id] = [request]
            self.settle(table_id)

    def _decide(self, table: Table, request: Request) -> None:
        """Decide a change of a table owned here: a tool message as the tools are
        (:func:`.decide_tool`), any other by the writer."""
        conn, kind, body, cid, seat, _ = request
        if kind == "tool":
            decide_tool(self.hub, self.tools, conn, table, body, cid, seat)
        elif kind == "undo" and isinstance(conn, RemoteConn) and "allowed" not in body:
            # Whose change it takes back is checked here, in its turn (issue 26 item 4).
            self.writer.handle(table, *request, check=self._undo_check(request))
        else:
            self.writer.handle(table, *request)

    def _undo_check(self, request: Request) -> Callable[[Table], bool]:
        """The owner's check of an undo a phone on another process sent, made when the writer
        decides it: an undo of another seat's change, a seat the socket does not hold, is not
        applied; its process is told to ask that seat (``undo_ask``: :meth:`_undo_ask`)."""
        conn, _, body, cid, seat, _ = request

        def check(table: Table) -> bool:
            owner = table.undo_owner(body.get("target"))
            if owner is None or not isinstance(conn, RemoteConn) or owner in conn.holds:
                return True
            conn.link.put(
                {
                    "t": "undo_ask",
                    "table": table.id,
                    "conn": conn.key,
                    "cid": cid,
                    "seat": seat,
                    "target": body["target"],
                    "owner": owner,
                    "body": body,
                }
            )
            return False

        return check

    def _key(self, conn: Conn) -> int:
        key = self._keys.get(conn)
        if key is None:
            self._next_key += 1
            key = self._keys[conn] = self._next_key
            self._conns[key] = conn
        return key

    def _forward(self, table_id: str, link: Link, request: Request) -> None:
        conn, kind, body, cid, seat, at_turn = request
        if not isinstance(conn, Conn):  # another process's phone: this is not its owner
            if isinstance(conn, RemoteConn):
                conn.link.put({"t": "moved", "table": table_id})
            return
        self.inflight.setdefault(table_id, {})[cid] = request
        self.forwarded += 1
        link.put(
            {
                "t": "change",
                "table": table_id,
                "conn": self._key(conn),
                "kind": kind,
                "body": body,
                "cid": cid,
                "seat": seat,
                "at_turn": at_turn,
                "address": conn.address,
                "holds": list(conn.seats),
            }
        )

    async def _resolve(self, table_id: str) -> None:
        """Claim the table, or link to its owner; until then its changes wait."""
        pause = 0.1
        try:
            while True:
                table = self.hub.tables.get(table_id)
                if table is None:  # left memory meanwhile (nobody connected)
                    for conn, _, _, cid, _, _ in self.waiting.pop(table_id, []):
                        conn.send_json(error_message(cid, "storage", STORAGE))
                    return
                try:
                    lease = await asyncio.to_thread(
                        self.leases.claim, table_id, self.me, self.address, TTL
                    )
                except Exception as exc:
                    log.warning("table %s: could not claim its lease (%s)", table_id, exc)
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, 2.0)
                    continue
                if lease.owner == self.me:
                    await self._own(table)
                    return
                if lease.left > 0 and lease.address and lease.address != self.address:
                    link = await self._link(lease.address)
                    if link is not None and self.hub.tables.get(table_id) is table:
                        self._follow(table, link)
                        return
                # Its owner can't be reached (it died): its lease expires within TTL.
                await asyncio.sleep(min(max(lease.left, 0.05), RENEW))
        finally:
            self.resolving.discard(table_id)

    async def _own(self, table: Table) -> None:
        """This process holds the table's lease: its copy is made current (a table followed
        at another owner until now is loaded again from the store, which holds everything
        that owner acknowledged), then the changes that waited are decided. (A table loaded
        moments ago is current; if a dying owner wrote since, the first write here is refused
        and the table loaded again: the writer's conflict.)"""
        table_id = table.id
        self.mine.add(table_id)
        self.copies.behind.pop(table_id, None)
        followed = table_id in self.copies.seen
        shown = self.copies.seen.pop(table_id, table.last_seq)
        self.remote.pop(table_id, None)
        self.counts.forget(table_id)  # the followers tell this process their counts anew
        if followed:
            self.taken_over += 1
            # The tools the last owner wrote and did not send before it died are read too.
            self._spawn(tools_changed(self.hub, self.tools, table_id, None))
            await self.writer.reload(table)
            if self.hub.tables.get(table_id) is table and table.last_seq > shown:
                self.hub.resync(table, shown)
        waiting = self.waiting.pop(table_id, [])
        table = self.hub.tables.get(table_id) or table
        for request in waiting:
            if table_id in self.mine:
                self._decide(table, request)
            else:
                self.route(table, *request)

    def _follow(self, table: Table, link: Link) -> None:
        table_id = table.id
        self.remote[table_id] = link
        self.copies.seen.setdefault(table_id, table.last_seq)
        link.put({"t": "follow", "table": table_id})
        self.counts.changed(table_id)  # its sockets here counted there
        for request in self.waiting.pop(table_id, []):
            self._forward(table_id, link, request)

    def gone(self, table_id: str) -> None:
        """The table left memory: its lease is given up, or the owner told."""
        if table_id in self.mine:
            self.mine.discard(table_id)
            self.followers.pop(table_id, None)
            self._spawn(asyncio.to_thread(self.leases.release, self.me, [table_id]))
        link = self.remote.pop(table_id, None)
        if link is not None:
            link.put({"t": "unfollow", "table": table_id})
        self.copies.behind.pop(table_id, None)
        self.copies.seen.pop(table_id, None)
        self.inflight.pop(table_id, None)
        self.copies.filling.pop(table_id, None)
        self.counts.forget(table_id)

    async def _link(self, address: str) -> Link | None:
        """The link to the process at ``address`` (opened once; ``None``: it can't be
        reached)."""
        opening = self.links.get(address)
        if opening is not None and opening.done():
            found = opening.result()
            if found is None or found.closed:
                opening = None
        if opening is None:
            opening = asyncio.get_running_loop().create_future()
            self.links[address] = opening
            self._spawn(self._open(address, opening))
        return await asyncio.shield(opening)

    async def _open(self, address: str, opening: asyncio.Future[Link | None]) -> None:
        assert self.session is not None
        try:
            ws = await asyncio.wait_for(
                self.session.ws_connect(
                    f"http://{address}{LINK_PATH}",
                    headers={"Authorization": self.bearer},
                    heartbeat=HEARTBEAT,
                    max_msg_size=0,
                ),
                CONNECT,
            )
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.info("could not link to the process at %s (%s)", address, exc)
            opening.set_result(None)
            if self.links.get(address) is opening:
                del self.links[address]
            return
        link = Link(ws)
        opening.set_result(link)
        try:
            async for message in link.messages():
                self._from_owner(link, message)
        except Exception:
            log.exception("the link to %s failed", address)
        finally:
            if self.links.get(address) is opening:
                del self.links[address]
            self._link_lost(link)

    def _link_lost(self, link: Link) -> None:
        """An owner's link closed (it died, or stopped): each of its tables is claimed, or
        followed at its next owner; the changes sent and not answered go first."""
        for table_id in [t for t, owner in self.remote.items() if owner is link]:
            self._moved(table_id)

    def _moved(self, table_id: str) -> None:
        self.remote.pop(table_id, None)
        self.counts.forget(table_id)  # told again by the next owner (or by its followers)
        unanswered = list(self.inflight.pop(table_id, {}).values())
        self.waiting[table_id] = unanswered + self.waiting.get(table_id, [])
        self.resolving.discard(table_id)
        self.settle(table_id)

    def _from_owner(self, link: Link, message: dict[str, Any]) -> None:
        """A message from the owner of tables followed here."""
        kind, table_id = message.get("t"), str(message.get("table"))
        if self.remote.get(table_id) is not link:
            return  # no longer followed there
        if kind == "event":
            table = self.hub.tables.get(table_id)
            if table is None:
                return
            event = event_of(table_id, message["event"])
            if event.seq <= self.copies.seen.get(table_id, 0):
                return
            self.copies.seen[table_id] = event.seq
            self.copies.arrived(table_id)
            if event.seq > table.last_seq:
                behind = self.copies.behind.setdefault(table_id, [])
                behind.append(event)
                if len(behind) >= BEHIND and table_id not in self.copies.refreshing:
                    self.copies.refreshing.add(table_id)
                    self._spawn(self.copies.refresh(table))
            cid = message.get("cid") or ""
            sender = None
            if message.get("conn") is not None:
                sender = self._conns.get(message["conn"])
                self.inflight.get(table_id, {}).pop(cid, None)
            filling = self.copies.filling.get(table_id)
            if filling is not None:
                filling.append((event.seq, sender, cid))
            else:
                self.hub.send_all(table, message["text"], sender, cid)
        elif kind == "send":
            if message.get("cid"):
                self.inflight.get(table_id, {}).pop(message["cid"], None)
            conn = self._conns.get(message.get("conn", -1))
            if conn is not None:
                conn.send(message["text"])
        elif kind == "close":
            conn = self._conns.get(message.get("conn", -1))
            if conn is not None:
                conn.close()
        elif kind == "followed":
            table = self.hub.tables.get(table_id)
            if table is not None and int(message["seq"]) > self.copies.seen.get(table_id, 0):
                self.copies.filling[table_id] = []
                self._spawn(
                    self.copies.fill(table, link, self.copies.seen.get(table_id, table.last_seq))
                )
            tools = message.get("tools")
            if table is not None and type(tools) is int and tools > table.tools.version:
                # Written before the following began: read from the store, shown here.
                self._spawn(tools_changed(self.hub, self.tools, table_id, tools))
        elif kind == "tools":
            self._tools_from_owner(table_id, message)
        elif kind == "undo_ask":
            self._undo_ask(table_id, message)
        elif kind == "moved":
            self._moved(table_id)
        elif kind == "sockets":
            self.counts.from_owner(table_id, message.get("counts"))

    def _undo_ask(self, table_id: str, message: dict[str, Any]) -> None:
        """The owner did not apply an undo a phone here sent: it takes back another seat's
        change (issue 26 item 4). Once the copy here holds that change (the owner decided it,
        and sends it once written), the undo is put to that seat as a question, as if asked
        here (:attr:`.Subscribers.undo_asked`); if the table moved on meanwhile, the undo is
        sent to the owner again, which decides it anew."""
        cid = str(message.get("cid") or "")
        self.inflight.get(table_id, {}).pop(cid, None)
        conn = self._conns.get(message.get("conn", -1))
        seat, target, owner, body = (message.get(k) for k in ("seat", "target", "owner", "body"))
        table = self.hub.tables.get(table_id)
        if (
            conn is None
            or table is None
            or conn.table is not table
            or not isinstance(seat, str)
            or type(target) is not int
            or not isinstance(owner, str)
            or not isinstance(body, dict)
        ):
            return
        self._spawn(self._ask_undo(table, conn, cid, seat, target, owner, body))

    async def _ask_undo(
        self,
        table: Table,
        conn: Conn,
        cid: str,
        seat: str,
        target: int,
        owner: str,
        body: dict[str, Any],
    ) -> None:
        table_id = table.id
        if self.copies.seen.get(table_id, 0) < target:
            arrived: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self.copies.awaited.setdefault(table_id, []).append((target, arrived))
            try:
                async with asyncio.timeout(AWAIT_CHANGE):
                    await arrived
            except TimeoutError:
                pass
        await self.copies.caught_up(table)
        if conn.closing or self.hub.tables.get(table_id) is not table:
            return
        asked = self.hub.subscribers.undo_asked
        if table.undo_owner(target) != owner or not asked:
            self.route(table, conn, "undo", body, cid, seat)  # decided anew by the owner
            return
        for ask in asked:
            ask(conn, cid, seat, target, owner, body)

    def _tools_from_owner(self, table_id: str, message: dict[str, Any]) -> None:
        """The owner's new tools of a table followed here: kept, and sent to its phones here
        (the sender's with its acknowledgement); tools already as new here (read from the
        store meanwhile) acknowledge the sender alone."""
        cid = str(message.get("cid") or "")
        sender = None
        if message.get("conn") is not None:
            sender = self._conns.get(message["conn"])
            self.inflight.get(table_id, {}).pop(cid, None)
        table = self.hub.tables.get(table_id)
        if table is None:
            return
        text = str(message["text"])
        version = int(message["version"])
        if version > table.tools.version:
            table.tools = Tools.load(version, str(message["data"]))
            self.hub.send_all(table, text, sender, cid)
        elif sender is not None and cid:
            sender.send(acknowledged(text, cid))

    # -- the owner's side ------------------------------------------------------------------

    @property
    def bearer(self) -> str:
        """What this process shows the others' internal listeners: its id and its key."""
        return f"Bearer {self.me}.{self.secret}"

    async def _processes(self, wanted: Callable[[dict[str, tuple[str, str]]], bool]) -> None:
        """Read the processes on the store again unless :attr:`known` has what is ``wanted``
        (at most every :data:`KNOWN_EVERY` seconds: a flood of made-up names reads it no
        more often)."""
        if wanted(self.known) or time.monotonic() - self.known_at < KNOWN_EVERY:
            return
        self.known_at = time.monotonic()
        with contextlib.suppress(Exception):
            self.known = await asyncio.to_thread(self.leases.processes)

    async def authentic(self, request: web.Request) -> None:
        """Refuse (403) a request to the internal listener not shown the key of a process
        on the store (``Bearer ID.KEY``: its digest is compared in constant time with the
        one the store keeps for that process)."""
        given = request.headers.get("Authorization", "")
        owner, _, key = given.removeprefix("Bearer ").partition(".")
        if not given.startswith("Bearer ") or not owner or not key or len(given) > 200:
            raise web.HTTPForbidden()
        await self._processes(lambda known: owner in known)
        _, digest = self.known.get(owner, ("", ""))
        if not digest or not hmac.compare_digest(key_digest(key).encode(), digest.encode()):
            raise web.HTTPForbidden()

    async def is_process(self, address: str) -> bool:
        """Whether a process on the store listens at ``address`` (registered there)."""
        await self._processes(lambda known: any(a == address for a, _ in known.values()))
        return any(a == address for a, _ in self.known.values())

    async def ask(self, address: str, path: str) -> tuple[int, Any]:
        """GET ``path`` of the process at ``address`` (its internal listener, shown this
        process's key): the answer's status and JSON (a long poll: up to a minute). Raises
        :class:`ValueError` for an address no process on the store listens at: the key is
        never shown elsewhere."""
        assert self.session is not None
        if not await self.is_process(address):
            raise ValueError(f"no process of this store listens at {address}")
        async with self.session.get(
            f"http://{address}{path}",
            headers={"Authorization": self.bearer},
            timeout=aiohttp.ClientTimeout(total=60),
        ) as res:
            return res.status, await res.json()

    async def accept(self, request: web.Request) -> web.StreamResponse:
        """GET /link on the internal listener: another process's link (shown its key)."""
        await self.authentic(request)
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=0)
        await ws.prepare(request)
        link = Link(ws)
        try:
            async for message in link.messages():
                self._from_follower(link, message)
        finally:
            for links in self.followers.values():
                links.discard(link)
            self.counts.link_closed(link)
        return ws

    def _from_follower(self, link: Link, message: dict[str, Any]) -> None:
        """A message from a process following tables decided here."""
        kind, table_id = message.get("t"), str(message.get("table"))
        table = self.hub.tables.get(table_id)
        if kind == "change":
            if table is None or table_id not in self.mine:
                link.put({"t": "moved", "table": table_id})
                return
            holds = message.get("holds")
            conn = RemoteConn(
                link,
                int(message["conn"]),
                table_id,
                str(message["address"]),
                tuple(s for s in holds if isinstance(s, str)) if isinstance(holds, list) else (),
            )
            gate = self.counts.gate
            if gate is not None and not gate.take_table(table_id):
                # The table's budget, which its phones here spend too (issue 18 item 2).
                conn.send_json(error_message(str(message["cid"]), "throttled", THROTTLED))
                return
            request: Request = (
                conn,
                str(message["kind"]),
                message["body"],
                str(message["cid"]),
                message["seat"],
                message["at_turn"],
            )
            waiting = self.waiting.get(table_id)
            if waiting is not None:
                waiting.append(request)
            else:
                self._decide(table, request)
        elif kind == "follow":
            if table is None or table_id not in self.mine:
                link.put({"t": "moved", "table": table_id})
                return
            table.used = time.monotonic()
            self.followers.setdefault(table_id, set()).add(link)
            link.put(
                {
                    "t": "followed",
                    "table": table_id,
                    "seq": table.committed,
                    "tools": table.tools.version,
                }
            )
        elif kind == "unfollow":
            self.followers.get(table_id, set()).discard(link)
            self.counts.unfollowed(table_id, link)
        elif kind == "sockets":
            self.counts.from_follower(table_id, link, message.get("counts"))

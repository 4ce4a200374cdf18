"""The app's limits on what one client may send, and the counters that enforce them.

Every counter here costs O(1) per request (amortized) and holds a bounded number of keys: a
:class:`Throttle` forgets a key once its budget is full again (an expiry queue in the order the
keys were last used, never a scan of every key), and drops its oldest keys beyond ``max_keys``.
"""

from __future__ import annotations

import functools
import ipaddress
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass

from lifeledger.sentences import Grouped, Sentence

from . import engine
from .errors import TableError

__all__ = [
    "HOLD_SECONDS",
    "MOST_CHARGED",
    "SHORTCUT_EVENTS",
    "Bucket",
    "CodeGuard",
    "CostShares",
    "Limits",
    "Pacer",
    "SocketGate",
    "Throttle",
    "WorkShare",
    "WorkShares",
    "charged",
    "check_shortcut",
    "network_of",
]

#: The most events a shortcut (``repeat``, 732.2a) sent from a phone may hold: its ``times``
#: times the events of its actions. The engine takes up to 1,000,000 iterations in a record;
#: at a table one message must not hold the server for seconds (an iteration with a trigger
#: costs some 20 µs, and every phone waits meanwhile). Beyond it, the table records the result.
SHORTCUT_EVENTS = 1_000


def _events(action: engine.Action) -> int:
    """How many events ``action`` is: a ``repeat`` its times times its actions' events, a
    ``together`` group its actions' events, any other action 1."""
    if isinstance(action, engine.Repeat):
        return action.times * sum(_events(inner) for inner in action.actions)
    if isinstance(action, engine.Together):
        return sum(_events(inner) for inner in action.actions)
    return 1


def check_shortcut(action: engine.Action) -> None:
    """Raise ``too-large`` for an action a phone sent that holds a shortcut of more than
    :data:`SHORTCUT_EVENTS` events (docs/table.md, "Limits")."""
    events = _events(action)
    if events > SHORTCUT_EVENTS:
        raise TableError(
            "too-large",
            Sentence(
                "This shortcut is {n} events; a table takes at most {most} in one change "
                "(732.2a): record fewer iterations, or the totals they lead to.",
                n=Grouped(events),
                most=Grouped(SHORTCUT_EVENTS),
            ),
            member="times",
        )


#: The time the rules engine may take over one change a phone sends
#: (:attr:`lifeledger.Game.time_limit`): past it the change is refused ``too-much-work`` and
#: nothing changes. An ordinary change takes well under a millisecond.
DECISION_SECONDS = 0.01
#: The time an undo may take to work out again the changes since the checkpoint before it
#: (at most a checkpoint's 100 changes, each decided within :data:`DECISION_SECONDS`): past
#: it the undo is refused ``too-much-work``. An undo at a table at play takes a few ms.
UNDO_SECONDS = 0.1
#: The share of one core the changes of one table may take, on average (the seconds its
#: changes took to decide, drained at this many seconds a second) ...
TABLE_SHARE = 0.1
#: ... and in one burst: whose changes took more waits (``busy``) until its share has
#: drained below it. No table holds the others long at a time (a decision is bounded by
#: :data:`DECISION_SECONDS`), and none holds them often (issue 21).
TABLE_BURST = 0.5
#: The same for the changes sent from one network (:func:`network_of`: a client with many
#: tables), larger, since every table of a shop or a club on one Wi-Fi shares it.
NETWORK_SHARE = 0.3
NETWORK_BURST = 1.5
#: A change whose own work (processor time) is longer than this (seconds) counts against the
#: shares for the time it held the event loop times its work over this: every other table's
#: message that comes meanwhile waits for it whole, so a table's long decisions cost the others
#: far more than as many short ones, and on a loaded machine a decision holds the loop several
#: times its work (issue 26 item 5: 10 ms decisions, 20 a second, counted as their work alone,
#: held the loop 10% of the time and more, and moved another table's p99 4.4x and 8.3x). An
#: ordinary change takes less and counts its work, as before; one of the engine's whole 10 ms
#: counts 0.4 s or more, so a table sending nothing but those holds the loop 0.3% of the time
#: (1% at most, on a loaded machine), and another table's p99 stays within 2x of quiet.
HOLD_SECONDS = 0.00025
#: The most one change counts (seconds, weighted as above), so that its table waits at most
#: this over :data:`TABLE_SHARE`, 10 s, before its next change (slowed, never shut out), and
#: a decision of 10 ms of work held up to 25 ms by a loaded machine still counts in full.
MOST_CHARGED = 1.0


def charged(held: float, work: float) -> float:
    """What a change counts against a share: its ``work`` (its processor time) where that is
    at most :data:`HOLD_SECONDS`, else the seconds it ``held`` the event loop times its work
    over :data:`HOLD_SECONDS`, at most :data:`MOST_CHARGED`. An ordinary change that the
    machine merely paused is not counted the pause: any code would have waited for it."""
    if work <= HOLD_SECONDS:
        return max(0.0, work)
    return min(max(held, work) * (work / HOLD_SECONDS), MOST_CHARGED)


class WorkShare:
    """What the changes of one table (or of one network's clients) cost the server to decide,
    against its share (:data:`TABLE_SHARE` of a core, beyond a burst of :data:`TABLE_BURST`
    seconds; ``network``: :data:`NETWORK_SHARE`, :data:`NETWORK_BURST`): a leaky bucket of
    the seconds its changes held the event loop, each long hold weighted (:func:`charged`)."""

    __slots__ = ("debt", "network", "since")

    def __init__(self, *, network: bool = False) -> None:
        self.network = network
        self.debt = 0.0
        self.since = time.monotonic()

    def check(self) -> None:
        """Raise ``busy`` while the changes have taken more than their share."""
        share, burst = (
            (NETWORK_SHARE, NETWORK_BURST) if self.network else (TABLE_SHARE, TABLE_BURST)
        )
        now = time.monotonic()
        self.debt = max(0.0, self.debt - (now - self.since) * share)
        self.since = now
        if self.debt > burst:
            wait = (self.debt - burst) / share
            seconds = max(1, round(wait))
            raise TableError(
                "busy",
                Sentence(
                    "Your network's changes took more than their share of the server; send "
                    "this one again in {n} s.",
                    n=seconds,
                )
                if self.network
                else Sentence(
                    "This table's changes took more than their share of the server; send this "
                    "one again in {n} s.",
                    n=seconds,
                ),
            )

    def spend(self, seconds: float, work: float | None = None) -> None:
        """A change held the event loop ``seconds`` to be decided, ``work`` of them its own
        processor time: counted as :func:`charged` (a table's decision); without ``work``,
        as it took (an event another process decided, taken in here)."""
        self.debt += seconds if work is None else charged(seconds, work)


class WorkShares:
    """A :class:`WorkShare` per network (:func:`network_of`), at most ``max_keys`` of them:
    beyond, the least recently used is forgotten (which only gives a share back early)."""

    def __init__(self, max_keys: int = 100_000) -> None:
        self.max_keys = max_keys
        self._shares: OrderedDict[str, WorkShare] = OrderedDict()

    def of(self, address: str) -> WorkShare:
        """The share of the network ``address`` is in."""
        key = network_of(address)
        share = self._shares.get(key)
        if share is None:
            share = self._shares[key] = WorkShare(network=True)
            if len(self._shares) > self.max_keys:
                self._shares.popitem(last=False)
        else:
            self._shares.move_to_end(key)
        return share


class CostShares:
    """What answering each key's requests (a client address, a network) cost the server, in
    seconds of work, against a share: ``share`` of a core on average, beyond a burst of
    ``burst`` seconds (a leaky bucket of debt per key, as :class:`WorkShare`; unlike a
    :class:`Throttle`'s budget, a debt is never cut short, so a costly answer counts whole).

    Keys are kept in the order they were last charged; one whose debt has drained is forgotten
    from the front of that order (O(1) amortized), and beyond ``max_keys`` the oldest are
    forgotten (which only forgives a debt early)."""

    def __init__(
        self,
        share: float,
        burst: float,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.share = share
        self.burst = burst
        self.max_keys = max_keys
        self.clock = clock
        #: key -> (debt in seconds, when it was last charged)
        self.debts: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _prune(self, now: float) -> None:
        debts = self.debts
        while debts:
            debt, at = next(iter(debts.values()))
            if debt - (now - at) * self.share > 0 and len(debts) <= self.max_keys:
                break
            debts.popitem(last=False)

    def debt(self, who: str, now: float | None = None) -> float:
        """``who``'s debt now, in seconds of work."""
        now = self.clock() if now is None else now
        self._prune(now)
        entry = self.debts.get(who)
        if entry is None:
            return 0.0
        debt, at = entry
        return max(0.0, debt - (now - at) * self.share)

    def wait(self, who: str) -> float:
        """Seconds until ``who`` is within its burst again (0: it is)."""
        over = self.debt(who) - self.burst
        return over / self.share if over > 0 else 0.0

    def spend(self, who: str, seconds: float) -> None:
        """Answering ``who`` took ``seconds``."""
        now = self.clock()
        self.debts[who] = (self.debt(who, now) + seconds, now)
        self.debts.move_to_end(who)
        self._prune(now)

    def __len__(self) -> int:
        return len(self.debts)


@dataclass(frozen=True, slots=True)
class Limits:
    """The app's limits on what one client may send (docs/table.md, Limits, gives reasons)."""

    #: Largest WebSocket message, in bytes.
    message_bytes: int = 16 * 1024
    #: A table nobody is connected to leaves memory after ``idle`` seconds unused, or sooner
    #: once more than ``tables_held`` tables are in memory (checked every ``sweep`` seconds);
    #: its log stays in the store, and the next request loads it from its newest checkpoint.
    idle: float = 300.0
    tables_held: int = 1000
    sweep: float = 10.0
    #: No table used in the last ``busy`` seconds leaves memory, however many are held.
    busy: float = 30.0
    #: Largest HTTP request body (a record to replay), in bytes.
    body_bytes: int = 1024 * 1024
    #: Messages per second a socket may send, on average ...
    rate: float = 20.0
    #: ... and in one burst.
    burst: float = 40.0
    #: Messages turned away for flooding before the socket is closed.
    flood_close: int = 200
    #: Failed short-code lookups per client address in ``code_window`` seconds ...
    code_failures: int = 30
    #: ... per network (an IPv4 /24, an IPv6 /48) ...
    code_network_failures: int = 100
    #: ... and from everyone together (the budget the guessing math rests on).
    code_global_failures: int = 600
    code_window: float = 600.0
    #: Over a budget, lookups wait in one lane: this many a second, waiting at most
    #: ``code_lane_wait`` seconds (more are refused), so the right code still gets in.
    code_lane_rate: float = 1.0
    code_lane_wait: float = 10.0
    #: Tables opened, and records replayed, per client address in ``work_window`` seconds.
    tables_opened: int = 60
    replays: int = 60
    #: Game records downloaded per client address in ``work_window`` seconds.
    downloads: int = 120
    work_window: float = 600.0
    #: Messages queued for a slow client before it is dropped (it resumes on reconnect).
    queue: int = 2000
    #: Bytes queued for a slow client before it is dropped (it resumes on reconnect).
    queue_bytes: int = 1024 * 1024
    #: Open WebSockets per client address; per table, those that hold no seat (spectators
    #: and visitors: a full table never keeps out its players, whose sockets name their seat
    #: token as they open), and per seat.
    sockets_per_address: int = 256
    watchers_per_table: int = 16
    sockets_per_seat: int = 4
    #: WebSockets opened per client address per minute.
    sockets_opened: int = 600
    #: Messages per second all the sockets of one address may send together (and burst) ...
    address_rate: float = 200.0
    address_burst: float = 400.0
    #: ... and all the seated sockets of one table together.
    table_rate: float = 30.0
    table_burst: float = 60.0
    #: Tool messages (dice, clocks, the round timer: decide/tools.py) a table's sockets may send
    #: together a second, and in one burst; those of one address, over all its tables; and
    #: how many may wait at one table for their write. Each is a write of its own to the
    #: store (a sync to disk: the game's changes are written in batches, the tools' one at a
    #: time), so a phone, or a flood across many tables, never makes the store write more
    #: than these, and the tables' own changes keep their turn.
    tools_rate: float = 4.0
    tools_burst: float = 20.0
    tools_address_rate: float = 20.0
    tools_address_burst: float = 60.0
    tools_waiting: int = 16
    #: History pages a socket may ask for a second, on average, and in one burst.
    pages_rate: float = 2.0
    pages_burst: float = 5.0
    #: Seconds a socket has to say hello.
    hello_seconds: float = 10.0
    #: Seconds a client has to send a request's headers (and to send the next one on a kept-
    #: alive connection), and to send its body.
    header_seconds: float = 5.0
    body_seconds: float = 15.0
    #: Seconds a body nobody reads (an early answer, a timeout) is drained before closing.
    linger_seconds: float = 2.0
    #: Seconds a client has to take an answer (the largest, a replay's 8 MiB, takes a minute
    #: at 1 Mbit/s).
    write_seconds: float = 120.0
    #: Open connections (HTTP and WebSocket), in all and per client address; the total is
    #: lowered to leave ``spare_descriptors`` of the process's descriptor limit free.
    connections: int = 4096
    connections_per_address: int = 256
    spare_descriptors: int = 64
    #: Takeover requests (and free takeovers) per client address in ``work_window`` seconds,
    #: requests waiting at once per table, and how long a request waits for an answer.
    takeovers: int = 20
    takeovers_waiting: int = 16
    takeover_seconds: float = 60.0
    #: A seat no phone has held on a socket for this long may be taken over without asking.
    seat_idle_seconds: float = 60.0
    #: Error answers (4xx) an address may get in ``errors_window`` seconds; past them each of
    #: its error answers waits ``error_delay`` seconds, so that a client asking in a loop (for
    #: codes, table ids, ...) slows to a few requests a second, at no cost to the server.
    errors_per_address: int = 60
    errors_window: float = 60.0
    error_delay: float = 5.0
    #: The share of a core the API requests of one client address may take (what answering
    #: them cost: :mod:`.answers`), on average, beyond a burst of seconds; and of one network.
    answer_share: float = 0.1
    answer_burst: float = 0.5
    answer_network_share: float = 0.25
    answer_network_burst: float = 1.0


class Throttle:
    """A budget per key (a client address, a network, a table): ``limit`` times at once, given
    back at ``limit`` per ``window`` seconds (a token bucket). ``allow`` is true while a key
    has budget left.

    Keys are kept in the order they were last used; a key untouched for ``window`` seconds has
    its whole budget again and is forgotten from the front of that order, so each call costs
    O(1) amortized. Beyond ``max_keys`` the oldest keys are forgotten (they get their budget
    back early: a budget shared by everyone, one key, is never lost that way).
    """

    def __init__(
        self,
        limit: float,
        window: float,
        max_keys: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self.limit = float(limit)
        self.window = window
        self.rate = self.limit / window if window > 0 else float("inf")
        self.max_keys = max_keys
        #: key -> (budget left, when it was last updated)
        self.keys: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def _prune(self, now: float) -> None:
        keys = self.keys
        while keys:
            _key, (_left, at) = next(iter(keys.items()))
            if now - at < self.window and len(keys) <= self.max_keys:
                break
            keys.popitem(last=False)

    def left(self, who: str, now: float | None = None) -> float:
        """The budget ``who`` has left now."""
        now = self.clock() if now is None else now
        self._prune(now)
        entry = self.keys.get(who)
        if entry is None:
            return self.limit
        left, at = entry
        return min(self.limit, left + (now - at) * self.rate)

    def blocked(self, who: str) -> bool:
        """Whether ``who`` has no budget left (counting nothing)."""
        return self.left(who) < 1

    def count(self, who: str, cost: float = 1.0) -> None:
        """Spend ``cost`` of ``who``'s budget (never below nothing)."""
        now = self.clock()
        self.put(who, self.left(who, now) - cost, now)

    def put(self, who: str, left: float, now: float) -> None:
        """``who`` has ``left`` of its budget (never below nothing) at ``now``: what
        :meth:`left` said at ``now``, less what was spent (the keys untouched for a window
        were forgotten by it; beyond ``max_keys``, the oldest are now)."""
        keys = self.keys
        keys[who] = (max(0.0, left), now)
        keys.move_to_end(who)
        if len(keys) > self.max_keys:
            self._prune(now)

    def allow(self, who: str) -> bool:
        """Whether ``who`` may do it once more now (spending the budget, if so)."""
        now = self.clock()
        left = self.left(who, now)
        if left < 1:
            return False
        self.put(who, left - 1, now)
        return True

    def __len__(self) -> int:
        return len(self.keys)


class Bucket:
    """A token bucket: ``take`` is true while the socket keeps under its rate."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Pacer:
    """One lane: ``reserve`` gives each caller its turn, ``rate`` turns a second; the seconds
    to wait for it, or ``None`` if that would be longer than ``max_wait``."""

    def __init__(self, rate: float, max_wait: float) -> None:
        self.gap = 1.0 / rate
        self.max_wait = max_wait
        self.next_free = 0.0

    def reserve(self) -> float | None:
        """Take the next turn: the seconds until it comes, or ``None`` (the lane is full)."""
        now = time.monotonic()
        turn = max(now, self.next_free)
        if turn - now > self.max_wait:
            return None
        self.next_free = turn + self.gap
        return turn - now


@functools.lru_cache(maxsize=4096)
def network_of(address: str) -> str:
    """The network an address belongs to, for budgets shared by neighbours: an IPv4 /24 or
    an IPv6 /48 (what one household, office or provider customer usually has). Kept for the
    4,096 addresses asked about last: parsing an address was a tenth of a change's CPU (issue
    18 item 3), and the same few addresses ask again and again."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = 24 if ip.version == 4 else 48
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


class CodeGuard:
    """Budgets on wrong short codes: per address, per network and for everyone.

    Under every budget a lookup happens at once. Over any of them it waits for its turn in one
    lane shared by everyone (``code_lane_rate`` lookups a second): the right code typed behind
    a shared, throttled address still gets in, while guesses stay bounded by the global budget
    plus the lane (docs/table.md gives the arithmetic).
    """

    EVERYONE = "*"

    def __init__(self, limits: Limits) -> None:
        window = limits.code_window
        self.address = Throttle(limits.code_failures, window)
        self.network = Throttle(limits.code_network_failures, window)
        self.everyone = Throttle(limits.code_global_failures, window)
        self.lane = Pacer(limits.code_lane_rate, limits.code_lane_wait)

    def wait(self, who: str) -> float | None:
        """Seconds ``who`` waits before its lookup (0: at once); ``None``: refused for now."""
        if not (
            self.address.blocked(who)
            or self.network.blocked(network_of(who))
            or self.everyone.blocked(self.EVERYONE)
        ):
            return 0.0
        return self.lane.reserve()

    def failed(self, who: str) -> None:
        """Count a wrong code from ``who`` against every budget it is under."""
        self.address.count(who)
        self.network.count(network_of(who))
        self.everyone.count(self.EVERYONE)


class SocketGate:
    """WebSockets and their messages per client address and per table.

    ``admit`` counts a socket in (or says why not); ``leave`` counts it out; ``take`` spends
    one message from the budgets of the socket's address and table (shared by its sockets).
    Counts of open sockets are dropped at zero, so they hold no more keys than sockets.

    A table's caps (sockets per seat, spectators and visitors per table) hold for the table
    whichever process its sockets are on (issue 18 item 2): :attr:`elsewhere` holds the counts
    of its sockets on the other processes serving it, as last reported over the owners' links
    (:mod:`..live.owners`: each process tells the table's owner its counts whenever they
    change, and the owner tells each the others'), and a socket is admitted on the count here
    plus those. It is eventually consistent: two processes admitting at the same instant, or
    while a report is on its way (a few milliseconds), may hold one socket over a cap for a
    moment. With one process nothing is reported and :attr:`elsewhere` stays empty. The
    budgets per address stay per process: they are per connection, and a process counts
    those of its own connections.
    """

    def __init__(self, limits: Limits, changed: Callable[[str], None] | None = None) -> None:
        self.limits = limits
        self.by_address: dict[str, int] = {}
        self.by_table: dict[str, int] = {}
        #: The same counts by table: ``{seat: sockets holding it, "": spectators and
        #: visitors}`` (what this process reports to the others).
        self.places: dict[str, dict[str, int]] = {}
        #: The counts of each table's sockets on the other processes serving it, as
        #: :attr:`places` (set by :class:`..live.owners.Owners`).
        self.elsewhere: dict[str, dict[str, int]] = {}
        #: Called with a table's id whenever its counts here change (the owners' links report
        #: them); ``None``: nobody is told.
        self.changed = changed
        self.opened = Throttle(limits.sockets_opened, 60.0)
        self.address_messages = Throttle(
            limits.address_burst, limits.address_burst / limits.address_rate
        )
        self.table_messages = Throttle(limits.table_burst, limits.table_burst / limits.table_rate)

    def counts(self, table: str) -> dict[str, int]:
        """This process's counts of ``table``'s sockets, as :attr:`places`."""
        return dict(self.places.get(table, {}))

    def held(self, table: str, seat: str = "") -> int:
        """The sockets holding ``seat`` of ``table`` (``""``: its spectators and visitors),
        here and on the other processes serving it."""
        here = self.places.get(table)
        there = self.elsewhere.get(table)
        return (here.get(seat, 0) if here else 0) + (there.get(seat, 0) if there else 0)

    def _step(self, table: str, seat: str, step: int) -> None:
        """Count a socket in (``step`` 1) or out (-1) of ``seat`` of ``table`` (``""``: as a
        spectator or visitor)."""
        key = f"{table}\n{seat}" if seat else table
        n = self.by_table.get(key, 0) + step
        places = self.places.setdefault(table, {})
        if n > 0:
            self.by_table[key] = places[seat] = n
        else:
            self.by_table.pop(key, None)
            places.pop(seat, None)
            if not places:
                del self.places[table]
        if self.changed is not None:
            self.changed(table)

    def admit(self, who: str, table: str, seats: Collection[str] = ()) -> str | None:
        """Count a new socket from ``who`` on ``table`` in (``seats``: the seats its tokens
        hold, counted once for each: a table device's socket holds several; none for a
        spectator or visitor); or the reason it may not open."""
        if self.by_address.get(who, 0) >= self.limits.sockets_per_address:
            return Sentence(
                "At most {n} connections from one address.", n=self.limits.sockets_per_address
            )
        if not seats and self.held(table) >= self.limits.watchers_per_table:
            return Sentence(
                "At most {n} spectators and visitors at one table; players get in.",
                n=self.limits.watchers_per_table,
            )
        if seats and any(self.held(table, s) >= self.limits.sockets_per_seat for s in seats):
            return Sentence("At most {n} connections for one seat.", n=self.limits.sockets_per_seat)
        if not self.opened.allow(who):
            return Sentence("Too many connections opened from here; wait a minute.")
        self.by_address[who] = self.by_address.get(who, 0) + 1
        for seat in list(seats) or [""]:
            self._step(table, seat, 1)
        return None

    def leave(
        self, who: str, table: str, seats: Collection[str] = (), *, watcher: bool | None = None
    ) -> None:
        """Count a closed socket out: ``seats``, those it is still counted for (see
        :meth:`leave_seat`); ``watcher``, whether it was counted in as a spectator or visitor
        (by default, when ``seats`` is empty)."""
        watcher = not seats if watcher is None else watcher
        n = self.by_address.get(who, 0) - 1
        if n > 0:
            self.by_address[who] = n
        else:
            self.by_address.pop(who, None)
        for seat in [*seats, *([""] if watcher else [])]:
            self._step(table, seat, -1)

    def has_room(self, table: str, seat: str) -> bool:
        """Whether one more socket may hold ``seat`` (the cap on sockets per seat)."""
        return self.held(table, seat) < self.limits.sockets_per_seat

    def join_seat(self, table: str, seat: str) -> bool:
        """Count an open socket in for one more seat (a hello's tokens hold seats its URL did
        not name), if the seat has room: the cap on sockets per seat holds however a socket
        came to hold it."""
        if not self.has_room(table, seat):
            return False
        self._step(table, seat, 1)
        return True

    def leave_seat(self, table: str, seat: str) -> None:
        """Count an open socket out of one seat it no longer holds (it was given to another
        phone, which must get in: a table device's socket stays open for its other seats)."""
        self._step(table, seat, -1)

    def take(self, who: str, table: str | None) -> bool:
        """Spend one message of the address's budget and the table's (``None``: a socket that
        holds no seat, which the table's budget does not cover), if both have one. (On a
        process that does not decide the table, its changes spend the table's budget at its
        owner too: :meth:`take_table`, there.)"""
        # Each budget read once (issue 29 item 1: every message of every socket comes here).
        address, tables = self.address_messages, self.table_messages
        now = address.clock()
        left = address.left(who, now)
        if left < 1:
            return False
        if table is not None:
            table_now = tables.clock()
            table_left = tables.left(table, table_now)
            if table_left < 1:
                return False
            tables.put(table, table_left - 1, table_now)
        address.put(who, left - 1, now)
        return True

    def take_table(self, table: str) -> bool:
        """Spend one message of the table's budget, if it has one: on the table's owner, a
        change another process's phone sent (forwarded on a link), which spends the budget
        the owner's own phones' messages spend, so that the table's changes together keep
        within one budget however its phones are spread over the processes."""
        return self.table_messages.allow(table)

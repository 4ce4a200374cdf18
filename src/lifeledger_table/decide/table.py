"""A table: its append-only log, and everything derived from it by the rules engine.

The log holds five kinds of event: ``action`` (a record action, applied by the engine),
``undo`` (takes back the last action of the current game that is still in effect, or the
``reset`` or ``new_game`` that began the game when no action of it is), ``next_game`` (starts
the next game of the match, after a game that is over), and ``reset`` and ``new_game`` (issue
17 item 3: the game in progress is left unfinished, never scored, and a fresh game with the
same players begins; the two differ only in what the history says). A game's record is its
header plus the actions still in effect, in log order; the engine replaying that record is the
game's state.

What a table holds in memory does not grow with its log (issue 9): the live game, a
checkpoint (a copy of the game every :attr:`Table.CHECKPOINT` actions in effect) and the
actions in effect since it, and the newest timeline entries. Everything older is in the
store: each event is kept with its game, its position and its timeline entry, and each
checkpoint beside the event that made it, so that loading a table replays at most
``CHECKPOINT`` actions, an undo as many, and older history is read a page at a time.

Deciding a change does no I/O (issue 18 item 4, sans I/O as h11 and python-chess are): when
a decision needs part of the log that is not in memory (an undo naming an older event, an undo
across a checkpoint, the undo of a reset or a new game), :meth:`Table.decide` raises
:class:`.logreads.NeedsLog` naming the read, having changed nothing; the caller makes the read
off the event loop, gives it to the table (:meth:`Table.learn`, kept in a few bounded
:class:`.logreads.LogReads`, dropped when the table changes) and decides the request again.
:meth:`Table.settle` does all that at once, reading the store itself: for loading a table (in
a thread), :meth:`Table.submit` and tests, never on the event loop.
"""

from __future__ import annotations

import gc
import json
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar, cast

from lifeledger.budget import cpu_time
from lifeledger.sentences import Items, Sentence

from ..store.records import (
    Checkpoint,
    DamagedError,
    DuplicateError,
    Event,
    Store,
    StoreUnavailable,
    TableRow,
    newest_at_each_position,
)
from . import engine
from .changes import changes
from .errors import TableError, TableUnavailable
from .limits import DECISION_SECONDS, UNDO_SECONDS, WorkShare, check_shortcut
from .logreads import Found, LogRead, LogReads, NeedsLog
from .rights import Rights, concessions
from .setup import COLOURS, check_name
from .text import check_action_text
from .tools import Tools, load_tools

__all__ = [
    "ENTRY_BYTES",
    "MAX_GAMES",
    "PAGE",
    "PAGE_BYTES",
    "VIEW_BYTES",
    "Decision",
    "Entry",
    "NeedsLog",
    "Table",
]

T = TypeVar("T")

log = logging.getLogger("lifeledger_table")

#: The most reads of the log :meth:`Table.settle` makes for one decision (a few are needed).
READS = 16
#: How many refused client ids a table remembers, so that a retry gets the same answer.
REFUSALS_KEPT = 1000
#: How many accepted client ids a table remembers in memory, at least (a retry of an older one
#: is decided again, its write fails on the store's unique key, and the writer then finds it
#: in the store: however late, a retry is applied once).
CLIENT_IDS_KEPT = 256
#: The most timeline entries a welcome, a table's JSON or one history page carries.
PAGE = 200
#: How many of the newest timeline entries a table keeps in memory (a welcome's page).
RECENT = PAGE
#: The most bytes of entries a welcome or a history page carries (at least one entry).
PAGE_BYTES = 64 * 1024
#: The largest view (state, score, effects) and timeline entry a change may make, in bytes of
#: JSON: with a page, a welcome stays well under what a socket may queue (``Limits``).
VIEW_BYTES = 256 * 1024
ENTRY_BYTES = 128 * 1024
#: How many different proposals of an intentional draw a table keeps at once.
PROPOSALS_KEPT = 20
#: The most games one table plays (a long night is a few dozen). Each decisive change scores
#: the table's every game over, and each new game's checkpoint keeps their outcomes: a phone
#: conceding and starting the next game again and again made thousands, and then every
#: decisive change held the event loop (every table on the server) for a tenth of a second
#: and more. 300 keeps it to a few milliseconds; more games are played on a new table.
MAX_GAMES = 300
#: Where the players' names and colours as changed at the table (``setup`` events, issue 17
#: item 2) are kept: the checkpoint of "game 0" (no game has that number), as JSON, written with
#: the event that changed them and replaced by the next one (derived from the log, as every
#: checkpoint: a log replayed from its start makes it again).
SETUP_KEY = (0, 0)
#: The events that leave the game in progress unfinished (not scored) and begin a fresh one
#: with the same players: an undo takes them back while no action of the new game is in effect.
OPENERS = ("reset", "new_game")
#: The most later changes replayed when a seat takes back its own change under them (issue 25
#: item 4): each is worked out again by the engine, within :data:`.limits.UNDO_SECONDS`.
UNDO_UNDER = 50


@dataclass(slots=True)
class Entry:
    """One line of the timeline: an event of the log and what it changed."""

    seq: int
    kind: str
    game: int
    seat: str | None
    time: float
    action: dict[str, Any] | None = None
    target: int | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    #: The engine's notes: ``{"rule", "text", "sentence"}`` (:func:`.engine.note_json`; an
    #: entry kept before sentences were has no ``"sentence"``: a phone shows its text).
    notes: list[dict[str, Any]] = field(default_factory=list)
    #: What sent it, when not the seat's own phone: ``"table"``, a table device (issue 17
    #: item 11: a tablet's tap on a panel is the table's, whichever held seat it acts as).
    device: str | None = None
    #: For an undo of another seat's change: who allowed it (that seat, or ``"host"``).
    allowed: str | None = None
    #: For a change of a player's name or colour (``setup``): the player, and each of
    #: ``name`` and ``colour`` that changed as ``{"from": ..., "to": ...}``.
    setup: dict[str, Any] | None = None
    #: Part of a seat's own change taken back under later ones (issue 25 item 4): for an undo of
    #: a later change, the change taken back; for a later change made again, the one it repeats.
    replay: int | None = None
    _text: str | None = None

    def text(self) -> str:
        """The entry as JSON text (made once: an entry never changes once in the timeline)."""
        if self._text is None:
            self._text = json.dumps(self.to_json())
        return self._text

    def to_json(self) -> dict[str, Any]:
        """The entry as sent to a client."""
        return {
            "seq": self.seq,
            "kind": self.kind,
            "game": self.game,
            "seat": self.seat,
            "time": self.time,
            "action": self.action,
            "target": self.target,
            "changes": self.changes,
            "notes": self.notes,
            **({"device": self.device} if self.device is not None else {}),
            **({"allowed": self.allowed} if self.allowed is not None else {}),
            **({"setup": self.setup} if self.setup is not None else {}),
            **({"replay": self.replay} if self.replay is not None else {}),
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """A request the table accepted: its event (to be written, with the checkpoint it made,
    if any), the view after it, and the message for every phone as JSON text (to be sent
    once the event is written): a delta, the change itself, not the state."""

    event: Event
    checkpoint: Checkpoint | None
    entry: Entry
    view: dict[str, Any]
    text: str
    #: For one of the changes that take back a seat's own change under later ones (issue 25
    #: item 4): the request's client id, shared by all of them (decided again as one).
    group: str | None = None


#: A stretch of the current game: a checkpoint (never changed: copied to be played on), how
#: many actions in effect it comes after, and the actions in effect after it.
Segment = tuple[engine.Game, int, list[Event]]


@dataclass(slots=True)
class _Step:
    """A change worked out in full, not yet taken into the table: :meth:`Table._adopt` takes
    it in with assignments only, so that a change either happens whole or not at all."""

    event: Event
    entry: Entry
    game: engine.Game
    state: dict[str, Any]
    #: The actions in effect in the current game after it, and the last of them.
    count: int
    last: Event | None
    #: The current game's segment after it (``None``: the event is added to the segment).
    segment: Segment | None = None
    checkpoint: Checkpoint | None = None
    #: For a next game: the outcome of the game that ended.
    outcome: engine.Outcome | None = None
    #: For the undo of a reset or a new game: the game it ended is the current one again.
    back: bool = False
    #: For a change of a player's name or colour: the header and the colours after it.
    setup: tuple[dict[str, Any], dict[str, int]] | None = None
    view: dict[str, Any] | None = None
    text: str = ""


@dataclass(slots=True)
class _Replay:
    """While a log is replayed from its first event (a log from before checkpoints were kept,
    or one whose checkpoints this build can't read): the current game's actions in effect and
    checkpoints, all of them, and what is derived for the store."""

    effective: list[Event] = field(default_factory=list)
    checkpoints: dict[int, engine.Game] = field(default_factory=dict)
    derived: list[Event] = field(default_factory=list)
    made: list[Checkpoint] = field(default_factory=list)
    #: The games a reset or a new game left (their actions in effect and checkpoints), for
    #: its undo; and the reset or new game that began each game.
    left: list[tuple[list[Event], dict[int, engine.Game]]] = field(default_factory=list)
    openers: dict[int, Event] = field(default_factory=dict)


class Table:
    """One table in memory: the live game of the current match game, and the newest entries.

    Built from the store by :meth:`reload`; every change goes through :meth:`decide` (then the
    hub writes it and calls :meth:`commit`) or :meth:`submit` (both at once). A change is
    worked out in full first and taken into memory only if nothing failed.

    A table whose log can't be loaded keeps the error in :attr:`broken` and answers it to
    every request (:class:`TableUnavailable`) without loading the log again.

    Loading reads the store (call it off the event loop); deciding never does: a decision that
    needs part of the log not in memory raises :class:`NeedsLog` (see the module's docstring).
    """

    #: How many actions in effect apart the checkpoints of a game are.
    CHECKPOINT = 100

    def __init__(self, store: Store, table_id: str) -> None:
        self.store = store
        self.id = table_id
        #: When the table was last used (``time.monotonic()``): idle tables leave memory.
        self.used = time.monotonic()
        self.reload()

    def _reset(self, row: TableRow | None) -> None:
        self.row = row or TableRow(self.id, "", "", {"header": {"players": []}}, 0.0)
        self.header: dict[str, Any] = self.row.setup["header"]
        self.labels: dict[str, str] = self.row.setup.get("labels", {})
        #: Each player's colour where one was chosen (an index in the page's palette), as the
        #: setup has it, or as changed at the table since (``setup`` events: issue 17 item 2).
        self.colours: dict[str, int] = dict(self.row.setup.get("colours", {}))
        self.seats: dict[str, str] = {}
        teams = {p["id"]: p["team"] for p in self.header["players"] if p.get("team")}
        self.rights = Rights(teams, self.label)
        #: The outcomes of the games before the current one.
        self.outcomes: list[engine.Outcome] = []
        #: How many actions of the current game are in effect, the last of them, and the
        #: segment the live game is played from: :attr:`base` (a checkpoint after
        #: :attr:`base_count` of them) and :attr:`tail`, the ones after it.
        self.count = 0
        self.last: Event | None = None
        self.base_count = 0
        self.tail: list[Event] = []
        #: The newest timeline entries (decided; a client is shown only those written).
        self.recent: deque[tuple[int, str]] = deque(maxlen=RECENT)
        #: Decided changes not yet written, by sequence number.
        self.pending: dict[int, Decision] = {}
        #: Client ids accepted lately (a plain dict of strings: the garbage collector never
        #: walks it), trimmed to the newest CLIENT_IDS_KEPT once twice as many.
        self.client_ids: dict[str, int] = {}
        #: Every event from this sequence number on has its client id in :attr:`client_ids`
        #: (an older one's is in the store: :meth:`may_be_stored`).
        self.ids_from = 1
        #: Being loaded again off the event loop (:meth:`.writer.Writer.reload`): nothing is
        #: decided meanwhile, since whatever is decided on a table about to be replaced is lost.
        self.reloading = False
        self.last_seq = 0
        self.committed = 0
        #: What deciding this table's changes cost the server, against its fair share.
        self.share = WorkShare()
        self._refusals: OrderedDict[str, TableError] = OrderedDict()
        #: Intentional draws proposed since the last change: the action -> who agreed.
        self._proposals: dict[str, set[str]] = {}
        #: The view after the last change written (what a newly connected phone is shown),
        #: and after the last change decided (what the next change's delta is against).
        self.view: dict[str, Any] = {}
        self.latest: dict[str, Any] = {}
        self._view_text: str | None = None
        self._replay: _Replay | None = None
        self._at = 0
        #: The reads of the log this table was given for its decisions (:meth:`learn`).
        self._reads = LogReads()

    def reload(self) -> None:
        """Build everything in memory from the store (on first use, and after a failed write:
        whatever was decided but not written is forgotten), from the newest checkpoint: at
        most :attr:`CHECKPOINT` actions are replayed. Raises :class:`KeyError` if the store
        has no such table; if the log can't be loaded, :attr:`broken` says why."""
        self.broken: TableUnavailable | None = None
        self._reset(None)
        #: The table's tools (dice, clocks, the round timer: decide/tools.py), kept beside its log.
        try:
            self.tools = load_tools(self.store, self.id)
        except StoreUnavailable:
            raise  # the store can't be reached now: the table is loaded later, not broken
        except Exception:
            log.exception("table %s: could not read its tools", self.id)
            self.tools = Tools()
        try:
            row = self.store.table(self.id)
        except StoreUnavailable:
            raise
        except Exception as exc:
            self._break(None, exc)
            return
        if row is None:
            raise KeyError(self.id)
        try:
            self._start(row)
            if not self._resume():
                self._start(row)
                self._replay_log()
            self.committed = self.last_seq
            self.view = self.latest = self._view()
        except StoreUnavailable:
            raise
        except Exception as exc:
            self._break(self._at or self.last_seq + 1, exc)

    def _start(self, row: TableRow) -> None:
        self._reset(row)
        self.match = engine.Match(row.setup.get("best_of"))
        self.seats = self.store.seats(self.id)
        self.game = engine.new_game(self.header)
        self.base = engine.new_game(self.header)
        self.state = engine.state_of(self.game)

    def _resume(self) -> bool:
        """Load the table from its newest checkpoint and the actions in effect after it;
        ``False`` if it can't be (a log from before checkpoints, or a checkpoint another build
        wrote): the log is then replayed from the start."""
        last = self.store.last_event(self.id)
        if last is None:
            return True
        if last.game is None or last.position is None:
            return False
        if not self._take_setup(self.store.checkpoint(self.id, *SETUP_KEY)):
            return False
        if last.kind == "action":
            count = last.position + 1
        elif last.kind in OPENERS:
            count = 0  # its position is the count of the game it ended
        else:
            count = last.position
        base_count = count // self.CHECKPOINT * self.CHECKPOINT
        base, outcomes = engine.new_game(self.header), list[engine.Outcome]()
        if last.game > 1 or base_count:
            found = self.store.checkpoint(self.id, last.game, base_count)
            if found is None:
                return False
            try:
                base, outcomes = engine.load_checkpoint(found.data)
            except ValueError as exc:
                log.info("table %s: replaying its log (%s)", self.id, exc)
                return False
            if len(outcomes) + 1 != last.game:
                return False
        # At a checkpoint, the segment is empty: its last action is read too.
        start = min(base_count, max(count - 1, 0))
        tail = self.store.effective(self.id, last.game, start, count)
        if [e.position for e in tail] != list(range(start, count)):
            return False
        recent = self.store.entries(self.id, last.seq + 1, RECENT)
        if any(text is None for _, text in recent):
            return False
        self.outcomes = outcomes
        self.count, self.last = count, (tail[-1] if tail else None)
        if not count:  # a reset or a new game may be undone
            number = last.game
            self.last = self.settle(lambda: self._opener(number), loading=True)
        self.base, self.base_count, self.tail = base, base_count, tail[base_count - start :]
        try:
            actions = [e.body["action"] for e in self.tail]
            self.game = engine.resume(base.copy(), actions, base_count)
        except Exception:
            return False  # replayed from the start, which names the event that fails
        self.state = engine.state_of(self.game)
        self.last_seq = last.seq
        self.recent.extend((seq, text) for seq, text in recent if text is not None)
        # The newest client ids: a change sent again after a restart is known at once.
        ids = self.store.client_ids(self.id, CLIENT_IDS_KEPT)
        self.client_ids = {cid: seq for seq, cid in ids}
        self.ids_from = ids[0][0] if len(ids) == CLIENT_IDS_KEPT else 1
        return True

    def _replay_log(self) -> None:
        """Replay the whole log (a log from before checkpoints were kept, or whose checkpoints
        can't be read), and keep in the store what it derived, so that the next load starts
        from a checkpoint."""
        self._replay = replay = _Replay()
        for event in self.store.events(self.id):
            self._at = event.seq
            step = self._prepare(event, None, live=False)
            self._adopt(step)
            if event != step.event:
                replay.derived.append(step.event)
            if step.checkpoint is not None:
                replay.made.append(step.checkpoint)
        self._at = 0
        self._replay = None
        if replay.derived or replay.made:
            try:
                self.store.derive(replay.derived, replay.made)
            except Exception:
                # Only derived facts: the table is loaded; the next load replays again.
                log.exception("table %s: could not keep its checkpoints", self.id)

    def _break(self, seq: int | None, exc: Exception) -> None:
        if isinstance(exc, DamagedError):
            seq = exc.seq
            damage = str(exc).split(" is damaged: ", 1)[-1]
            reason = Sentence("is damaged: {reason}", reason=damage)
        elif isinstance(exc, TableError):
            reason = (
                Sentence("is refused: {message} ({rule})", message=exc.message, rule=exc.rule)
                if exc.rule
                else Sentence("is refused: {message}", message=exc.message)
            )
        elif isinstance(exc, engine.LifeledgerError):
            reason = Sentence("is refused by the rules engine: {error}", error=engine.said(exc))
        else:
            reason = Sentence(
                "can't be read ({error})", error=f"{type(exc).__name__}: {str(exc)[:200]}"
            )
        self.broken = TableUnavailable(self.id, seq, reason)
        log.error("%s", self.broken.message)

    def check(self) -> None:
        """Raise :class:`TableUnavailable` if the table can't be used."""
        if self.broken is not None:
            raise self.broken

    def idle(self) -> bool:
        """Whether the table may leave memory: everything it decided is written."""
        return not self.pending and self.committed == self.last_seq

    def may_be_stored(self, client_id: str) -> bool:
        """Whether the store may hold an event sent with ``client_id`` that this table does not
        remember (one older than the client ids it keeps): the store is then asked."""
        return client_id not in self.client_ids and self.ids_from > 1

    def take_over(self, fresh: Table) -> None:
        """Become ``fresh``, this table loaded again from the store (off the event loop):
        assignments only. Whatever this one decided and did not write is forgotten."""
        used = self.used
        self.__dict__.update(fresh.__dict__)
        self.used = used

    # -- derived facts -------------------------------------------------------------------------

    @property
    def number(self) -> int:
        """The current game's number in the match, from 1."""
        return len(self.outcomes) + 1

    def player_ids(self) -> list[str]:
        """The players' ids, in seating order."""
        return [p["id"] for p in self.header["players"]]

    def sides(self, state: dict[str, Any] | None = None) -> list[tuple[str, str]]:
        """The sides that score in a match: each team, and each player on no team, as
        ``(id, kind)``."""
        out: list[tuple[str, str]] = []
        seen: set[str] = set()
        for team in (state or self.state).get("teams", []):
            out.append((team["id"], "team"))
            seen.update(team["players"])
        out.extend((pid, "player") for pid in self.player_ids() if pid not in seen)
        return out

    def score(self) -> dict[str, Any]:
        """Where the match stands, as the engine scores it (100.6a): the current match's
        number, each side's wins, losses and draws in it (this game included once it is
        over), the side that has won it, if one has, and the matches each side has won."""
        return self._score(self.outcomes, self.game, self.state)

    def _score(
        self, outcomes: list[engine.Outcome], game: engine.Game, state: dict[str, Any]
    ) -> dict[str, Any]:
        sides = self.sides(state)
        ids = [side for side, _ in sides]
        # A game left unfinished by a reset or a new game is not scored (issue 17 item 3).
        score = self.match.score([o for o in outcomes if o.over], game.outcome(), ids)
        return {
            "best_of": self.match.best_of,
            "game": len(outcomes) + 1,
            "match": score.number,
            "finished": score.games,
            "sides": [
                {
                    "id": side,
                    "kind": kind,
                    "wins": score.tallies[side].wins,
                    "losses": score.tallies[side].losses,
                    "draws": score.tallies[side].draws,
                    "matches": score.won[side],
                }
                for side, kind in sides
            ],
            "match_winner": score.winner,
        }

    def undo_target(self) -> int | None:
        """The sequence number of the action an undo may take back now (``None``: none)."""
        return _undoable(self.last)

    def can_undo(self) -> bool:
        """Whether the current game has an action that undo may take back."""
        return self.undo_target() is not None

    def record(self, number: int) -> dict[str, Any]:
        """The record (document shape) of game ``number`` of the match: its actions in effect,
        read from the store (only what is written: a change decided but not yet stored may
        still fail). Reads the game's whole log: call it off the event loop."""
        if not 1 <= number <= self.number:
            raise TableError(
                "unknown-game", Sentence("This table has no game {number}.", number=number)
            )
        committed = self.committed
        effective: list[Event] = []
        for event in self.store.game_events(self.id, number):
            if event.seq > committed:
                break
            if event.kind == "action":
                effective.append(event)
            elif event.kind == "undo" and effective and _takes_back(event, effective[-1]):
                effective.pop()
        return {
            "note": f"lifeledger table, game {number}",
            **self.header,
            "actions": [e.body["action"] for e in effective],
        }

    def _agree(self, action: dict[str, Any], seat: str) -> None:
        """104.4i: all players in the game agree to an intentional draw. The seat's request
        counts as its player's agreement; the action happens once every other player still in
        the game who holds a seat has sent the same action since the last change (players
        without a seat are at the table with a phone that is: its request speaks for them)."""
        key = json.dumps(action, sort_keys=True)
        if key not in self._proposals and len(self._proposals) >= PROPOSALS_KEPT:
            self._proposals.clear()
        agreed = self._proposals.setdefault(key, set())
        agreed.add(seat)
        playing = {p["id"] for p in self.state.get("players", []) if p["status"] == "playing"}
        waiting = [p for p in self.player_ids() if p in self.seats and p in playing - agreed]
        if waiting:
            raise TableError(
                "awaiting-agreement",
                Sentence(
                    "{player} agrees to a draw; it happens once {others} agree too (each sends "
                    "the same).",
                    player=self.label(seat),
                    others=Items(self.label(p) for p in waiting),
                ),
                rule="104.4i",
            )

    # -- changing the table -------------------------------------------------------------------

    def _earlier(self, client_id: str, look_up: bool) -> int | None:
        """The sequence number a client id got, if the table accepted it lately (or ever,
        with ``look_up``: the log is read, :class:`NeedsLog`)."""
        seq = self.client_ids.get(client_id)
        if seq is None and look_up:
            found = self._read(LogRead(self.id, "client_id", client_id=client_id))
            seq = found.seq if isinstance(found, Event) else None
        return seq

    # -- reading the log (sans I/O) ------------------------------------------------------------

    def _read(self, read: LogRead) -> Found:
        """What ``read`` found, if the table was given it (:meth:`learn`); else
        :class:`NeedsLog` (nothing is read here, and nothing has changed yet)."""
        known, found = self._reads.get(read)
        if not known:
            self._reads.asked = True
            raise NeedsLog(read, self._reads)
        return found

    def learn(self, need: NeedsLog, found: Found) -> bool:
        """Take what the read ``need`` named found (made off the event loop), for the request
        to be decided again; ``False`` if the table changed since it was raised (the read is
        then dropped: deciding again asks for it again)."""
        if need.token is not self._reads:
            return False
        self._reads.keep(need.read, found)
        return True

    def settle(self, work: Callable[[], T], *, loading: bool = False) -> T:
        """``work()`` (a decision), the store read here, synchronously, each time it needs
        part of the log (:class:`NeedsLog`): for :meth:`submit`, loading a table (in a thread)
        and tests, never on the event loop. A read that fails refuses it ``storage`` (nothing
        changed); ``loading``: it raises its own error (a store that can't be reached leaves
        the table to be loaded later)."""
        for _ in range(READS):
            try:
                return work()
            except NeedsLog as need:
                try:
                    found = need.read.fetch(self.store)
                except Exception as exc:
                    if loading:
                        raise
                    if not isinstance(exc, StoreUnavailable):
                        log.warning("table %s: could not read its log (%s)", self.id, exc)
                    raise TableError(
                        "storage",
                        Sentence("The table's storage can't be reached now; nothing changed."),
                    ) from exc
                self.learn(need, found)
        return work()

    def _unwritten(self) -> list[tuple[Event, Checkpoint | None]]:
        """The changes decided here that a read of the store may not hold, oldest first:
        those written since the reads kept began, and those not written yet."""
        return [*self._reads.written, *((d.event, d.checkpoint) for d in self.pending.values())]

    def _event(self, seq: int) -> Event | None:
        """Event ``seq`` of the log (decided here, or read: :class:`NeedsLog`)."""
        for event, _ in self._unwritten():
            if event.seq == seq:
                return event
        found = self._read(LogRead(self.id, "event", seq=seq))
        return found if isinstance(found, Event) else None

    def _checkpoint(self, number: int, count: int) -> Checkpoint | None:
        """Game ``number``'s checkpoint after ``count`` actions in effect (the newest made
        here, or read: :class:`NeedsLog`)."""
        made = None
        for _, checkpoint in self._unwritten():
            if checkpoint is not None and (checkpoint.game, checkpoint.count) == (number, count):
                made = checkpoint
        if made is not None:
            return made
        found = self._read(LogRead(self.id, "checkpoint", game=number, count=count))
        return found if isinstance(found, Checkpoint) else None

    def decide(
        self,
        kind: str,
        body: dict[str, Any],
        client_id: str,
        seat: str | None,
        *,
        look_up: bool = False,
        at_turn: int | None = None,
        shares: Sequence[WorkShare] = (),
        at: float | None = None,
    ) -> Decision | int:
        """Let the engine and the table decide a client's request, and take it into memory.

        Returns the :class:`Decision` (its event is to be written, then passed to :meth:`commit`),
        or, for a ``client_id`` seen lately (a retry; with ``look_up``, ever: the store is
        asked), the sequence number it got. Raises
        :class:`TableError` if the request is turned down (nothing changes); a retry of a
        turned-down request gets the same error. If the write then fails, :meth:`reload`.
        ``at_turn``: the request holds only while the game's turn number is this one (two
        phones pressing "Next turn" at once begin one turn, not two: the second is ``stale``).
        ``shares``: a phone's request is turned down ``busy`` while the table's changes, or
        its network's, have taken more than their share of the server (each a
        :class:`.limits.WorkShare`); the time the decision takes counts against each, and
        against the table's own (:attr:`share`) whoever asks. ``at``: when the change was
        made, if not now (a table shared from a device keeps its changes' times).
        """
        earlier = self._admit(client_id, look_up, at_turn, shares)
        if earlier is not None:
            return earlier
        with self._spending(shares):
            return self._decide(kind, body, client_id, seat, at)

    def _admit(
        self, client_id: str, look_up: bool, at_turn: int | None, shares: Sequence[WorkShare]
    ) -> int | None:
        """What every request meets before it is decided: a table that can be decided, no
        refusal of the same change kept, its turn still the one it names, the shares not
        spent (raising :class:`TableError`); returns the sequence number of the same change
        accepted before (a retry), else ``None``."""
        self.check()
        if self.reloading:
            raise TableError(
                "storage",
                Sentence("The table is being loaded again; nothing changed. Send it again."),
            )
        refused = self._refusals.get(client_id)
        if refused is not None:
            raise refused
        earlier = self._earlier(client_id, look_up)
        if earlier is not None:
            return earlier
        if at_turn is not None:
            self._check_turn(at_turn)
        for share in shares:
            share.check()
        return None

    @contextmanager
    def _spending(self, shares: Sequence[WorkShare]) -> Iterator[None]:
        """Charge what deciding within takes to the table's share and to ``shares``: the time
        it held the event loop, which every other table's messages wait for (on a loaded
        machine several times its processor time), and the work it took, which weights a
        long one (issue 26 item 5: limits.charged)."""
        began, worked = time.perf_counter(), cpu_time()
        try:
            yield
        finally:
            work = cpu_time() - worked
            held = max(time.perf_counter() - began, work)
            self.share.spend(held, work)
            for share in shares:
                if share is not self.share:
                    share.spend(held, work)

    def _decide(
        self,
        kind: str,
        body: dict[str, Any],
        client_id: str,
        seat: str | None,
        at: float | None = None,
        *,
        replayed: bool = False,
        group: str | None = None,
    ) -> Decision:
        """:meth:`decide` a new request, the engine bounded by :data:`.limits.DECISION_SECONDS`
        (the log, replayed, is not: each of its actions was decided within it once)."""
        event = Event(
            table=self.id,
            seq=self.last_seq + 1,
            kind=kind,
            body=body,
            client_id=client_id,
            seat=seat,
            time=time.time() if at is None else at,
        )
        game = self.game
        game.time_limit = DECISION_SECONDS
        # No collection of cyclic garbage while deciding: what the engine makes (a note per
        # trigger, thousands of them) lives until the action ends, would be promoted and set
        # off full collections of the whole server's objects, tens of ms each (issue 21).
        # Freed by reference counting at the end, it never reaches the collector.
        collecting = gc.isenabled()
        gc.disable()
        try:
            step = self._prepare(event, seat, live=True, replayed=replayed)
        except TableError as exc:
            if exc.code != "choice-needed":  # sent again, with its id, once the choice is made
                self._refusals[client_id] = exc
            while len(self._refusals) > REFUSALS_KEPT:
                self._refusals.popitem(last=False)
            raise
        except NeedsLog:  # nothing changed: the request is decided again once it is read
            raise
        except StoreUnavailable as exc:  # a store's error: nothing changed
            raise TableError(
                "storage", Sentence("The table's storage can't be reached now; nothing changed.")
            ) from exc
        except Exception as exc:
            # Not a refusal: the engine failed. The live game may be half changed: rebuild it.
            log.exception("table %s: the engine failed on a %s", self.id, kind)
            if kind == "action":
                self._recover()
            raise TableError(
                "engine-failed",
                Sentence("The rules engine failed on this change; nothing changed."),
            ) from exc
        finally:
            game.time_limit = None
            if collecting:
                gc.enable()
        self._adopt(step)
        assert step.view is not None
        decision = Decision(step.event, step.checkpoint, step.entry, step.view, step.text, group)
        self.pending[event.seq] = decision
        return decision

    def take_in(self, events: list[Event]) -> list[str]:
        """Take in events another server wrote to the table's log after the last one here
        (several servers on one database: issue 10), as they were decided there, and return
        each one's message for the phones. Only when nothing decided here waits to be
        written (such a write conflicts, and the table is then reloaded). Raises if an event
        can't be taken in: the caller reloads the table.

        Reads the log itself where an event needs it (:meth:`settle`: an undo across a
        checkpoint, or of a reset): for a thread, or tests; on the event loop, take each in
        with :meth:`take_one`, its reads made off the loop (issue 26 item 2)."""
        return [self.settle(partial(self.take_one, event), loading=True) for event in events]

    def take_one(self, event: Event) -> str:
        """Take in one event another server wrote, the next after the last one here (as
        :meth:`take_in`), and return its message for the phones. Does no I/O: an event that
        needs part of the log not in memory raises :class:`NeedsLog`, having changed nothing
        (read it off the event loop, :meth:`learn` it, and call again)."""
        if self.pending:
            raise TableError("busy", Sentence("Changes decided here are still being written."))
        step = self._prepare(event, None, live=True)
        self._adopt(step)
        assert step.view is not None
        self.commit(Decision(step.event, step.checkpoint, step.entry, step.view, step.text))
        return step.text

    def commit(self, decision: Decision) -> None:
        """Note that the decision's event is in the store: new phones may now be shown it."""
        reads = self._reads
        if reads.asked or reads.found:  # a read under way may have missed it: kept beside
            reads.written.append((decision.event, decision.checkpoint))
            if len(reads.written) > reads.WRITTEN:
                self._reads = LogReads()
        self.committed = decision.event.seq
        self.pending.pop(decision.event.seq, None)
        self.view = decision.view
        self._view_text = None

    def submit(
        self,
        kind: str,
        body: dict[str, Any],
        client_id: str,
        seat: str | None,
        *,
        shares: Sequence[WorkShare] = (),
    ) -> tuple[Entry | None, int]:
        """Decide a request and write it at once (one request, one transaction).

        Returns ``(entry, seq)``; ``entry`` is ``None`` for a retry of a request that was
        accepted before. Raises :class:`TableError` if it is turned down.
        """
        decision = self.settle(
            lambda: self.decide(kind, body, client_id, seat, look_up=True, shares=shares)
        )
        if isinstance(decision, int):
            return None, decision
        try:
            checkpoints = [decision.checkpoint] if decision.checkpoint else []
            if self.store.append([decision.event], checkpoints):
                raise DuplicateError(f"another server wrote event {decision.event.seq} first")
        except BaseException:
            self.reload()
            raise
        self.commit(decision)
        return decision.entry, decision.event.seq

    def _recover(self) -> None:
        """The live game again from the segment (after the engine failed midway)."""
        try:
            actions = [e.body["action"] for e in self.tail]
            self.game = engine.resume(self.base.copy(), actions, self.base_count)
            self.state = engine.state_of(self.game)
        except Exception as exc:
            self._break(self.last_seq, exc)

    def _checkpoint_game(self, count: int, number: int | None = None) -> engine.Game:
        """The current game (or game ``number``) after ``count`` actions in effect (a multiple
        of :attr:`CHECKPOINT`), from its checkpoint: never changed (copy it to play on)."""
        number = self.number if number is None else number
        if count == 0:
            return engine.new_game(self.header)
        if self._replay is not None:
            current = number == self.number
            return (self._replay.checkpoints if current else self._replay.left[-1][1])[count]
        found = self._checkpoint(number, count)
        if found is None:
            raise DamagedError(self.id, None, f"checkpoint {count} of game {number} is gone")
        try:
            return engine.load_checkpoint(found.data)[0]
        except ValueError as exc:  # another build's (or forged): the game's actions replayed
            log.info("table %s: replaying game %d (%s)", self.id, number, exc)
            actions = [e.body["action"] for e in self._actions(0, count, number)]
            return engine.resume(engine.new_game(self.header), actions, 0)

    def _segment_before(self, end: int) -> Segment:
        """The segment of the current game that ends after ``end`` actions in effect (a
        multiple of :attr:`CHECKPOINT`, above 0): its checkpoint and its actions, read from
        the log (:class:`NeedsLog`; and the changes not yet written)."""
        start = end - self.CHECKPOINT
        return self._checkpoint_game(start), start, self._actions(start, end)

    def _prepare(
        self, event: Event, seat: str | None, *, live: bool, replayed: bool = False
    ) -> _Step:
        """Work out what ``event`` does, changing nothing in the table (only the live game, for
        an action the engine accepts: :meth:`_adopt` then takes it in, or the caller rebuilds
        the game). ``live``: a client's request (checked against its seat; a view and the
        phones' message are made), as opposed to an event of the log being replayed. Raises
        :class:`TableError` if the event may not be added."""
        if event.seq != self.last_seq + 1:
            raise TableError(
                "malformed", Sentence("is out of order (after event {seq})", seq=self.last_seq)
            )
        if not isinstance(event.body, dict):
            raise TableError("malformed", Sentence("has no body (a JSON object)"))
        entry = Entry(
            seq=event.seq, kind=event.kind, game=self.number, seat=event.seat, time=event.time
        )
        entry.device = _device(event.body)
        replay = event.body.get("replay") if isinstance(event.body, dict) else None
        entry.replay = replay if type(replay) is int else None
        number, position = self.number, self.count
        players: frozenset[str] | None = None
        teams: frozenset[str] | None = None
        effects_changed = True
        if event.kind == "action":
            game = self.game
            action = event.body.get("action")
            if not isinstance(action, dict):
                raise TableError(
                    "malformed", Sentence("An action is a JSON object."), member="action"
                )
            try:
                parsed = engine.parse(action, position)
            except engine.MalformedError as exc:
                raise TableError("malformed", exc.message, member=exc.member) from exc
            if live:
                check_action_text(action, "action")
                check_shortcut(parsed)
                # A change replayed under an undo (issue 25 item 4) was checked when made.
                if seat is not None and not replayed and self.rights.check(parsed, seat, game=game):
                    self._agree(action, seat)
            try:
                entry.notes = engine.apply(game, parsed, position)
            except engine.ChoiceNeeded as exc:
                if live and engine.state_of(game) != self.state:
                    self._recover()
                raise self._choice_needed(exc) from exc
            except engine.RefusedError as exc:
                if live and engine.state_of(game) != self.state:
                    self._recover()  # the engine promises nothing changed: make it so
                raise TableError("refused", exc.message, rule=exc.rule) from exc
            except engine.TooMuchWork as exc:
                if live and engine.state_of(game) != self.state:
                    self._recover()
                raise TableError("too-much-work", _too_much_work(exc)) from exc
            except engine.MalformedError as exc:
                if live and engine.state_of(game) != self.state:
                    self._recover()
                raise TableError("malformed", exc.message, member=exc.member) from exc
            entry.action = action
            state, players, teams, effects_changed = engine.after(game, self.state)
            step = _Step(event, entry, game, state, position + 1, None)
            if step.count % self.CHECKPOINT == 0:
                base = game.copy()
                step.segment = (base, step.count, [])
                step.checkpoint = Checkpoint(
                    self.id,
                    number,
                    step.count,
                    event.seq,
                    engine.dump_checkpoint(base, self.outcomes),
                )
        elif event.kind == "undo" and self.last is not None and self.last.kind in OPENERS:
            # The game the reset or new game left is the current one again, as it was.
            entry.target = self._undo_target(event.body, live)
            entry.allowed = _allowed(event.body)
            opened = self.last
            left = number - 1
            count = opened.position or 0
            start = count // self.CHECKPOINT * self.CHECKPOINT
            base = self._checkpoint_game(start, left)
            kept = self._actions(start, count, left)
            game = engine.resume(base.copy(), [e.body["action"] for e in kept], start)
            last: Event | None = kept[-1] if kept else None
            if not kept and start:
                last = self._actions(start - 1, start, left)[0]
            elif not kept:
                last = self._opener(left)
            entry.game = left
            state = engine.state_of(game)
            step = _Step(event, entry, game, state, count, last, (base, start, kept), back=True)
        elif event.kind == "undo":
            entry.target = self._undo_target(event.body, live)
            entry.allowed = _allowed(event.body)
            if self.tail:
                base, start, tail = self.base, self.base_count, self.tail
            else:
                base, start, tail = self._segment_before(self.count)
            kept = tail[:-1]
            # What it reads of the log is read before the engine works (NeedsLog: no work lost).
            last = kept[-1] if kept else None
            if not kept and start:
                last = self._actions(start - 1, start)[0]
            elif not kept:
                last = self._opener(number)  # a reset or new game began it: undo may take it
            game = base.copy()
            if live:  # the actions since the checkpoint are worked out again: bounded too
                game.deadline = time.monotonic() + UNDO_SECONDS
            try:
                engine.resume(game, [e.body["action"] for e in kept], start)
            except engine.TooMuchWork as exc:
                raise TableError(
                    "too-much-work",
                    Sentence(
                        "Taking this back means working out the changes since the last "
                        "checkpoint again, more than a table may at once ({ms} ms); nothing "
                        "changed. Record what undoes it instead.",
                        ms=f"{UNDO_SECONDS * 1000:g}",
                    ),
                ) from exc
            finally:
                game.deadline = None
            state = engine.state_of(game)
            step = _Step(event, entry, game, state, position - 1, last, (base, start, kept))
        elif event.kind == "next_game":
            # After the game that decides a match, the next game begins the next match.
            if not self.state.get("over"):
                raise TableError(
                    "not-over",
                    Sentence("This game isn't over yet: it ends with a win, a loss or a draw."),
                )
            step = self._begin_next_game(event, entry)
            game, state = step.game, step.state
        elif event.kind == "setup":
            # Issue 17 item 2: a player's name or colour, changed at the table (a quick game's
            # "Player 1" becomes Ana). The game is as it was; the setup is the table's.
            entry.setup, header, colours = self._setup_change(event.body)
            game, state, effects_changed = self.game, self.state, False
            segment = (self.base, self.base_count, self.tail)
            step = _Step(event, entry, game, state, position, self.last, segment)
            step.setup = (header, colours)
            names = {p["id"]: p["name"] for p in header["players"]}
            data = json.dumps({"names": names, "colours": colours}).encode()
            step.checkpoint = Checkpoint(self.id, *SETUP_KEY, event.seq, data)
        elif event.kind in OPENERS:
            # Issue 17 item 3: the game in progress is left unfinished and not scored (no
            # result is made up for it: nobody won, lost or drew it); the same players begin
            # a fresh game, with the setup's header. Its undo brings the game back as it was.
            if self.state.get("over"):
                raise TableError(
                    "over",
                    Sentence(
                        "This game is over: Next game starts the next one, and its result counts."
                    ),
                )
            if not position:
                raise TableError(
                    "unchanged",
                    Sentence("Nothing has happened in this game yet: it is at its start already."),
                )
            step = self._begin_next_game(event, entry)
            game, state = step.game, step.state
        else:
            raise TableError(
                "malformed",
                Sentence("Unknown request {kind}.", kind=repr(event.kind)),
                member="type",
            )
        entry.changes = changes(self.state, state, players, teams)
        # The event as stored: with its game, its position (for an action, the actions in
        # effect before it; for a reset or a new game, those of the game it left, which its
        # undo brings back; else after it) and its timeline entry.
        step.event = Event(
            event.table,
            event.seq,
            event.kind,
            event.body,
            event.client_id,
            event.seat,
            event.time,
            entry.game,
            position if event.kind in ("action", *OPENERS) else step.count,
            entry.text(),
        )
        if event.kind in ("action", *OPENERS):
            step.last = step.event
        if live:
            self._present(step, effects_changed)
        return step

    def _check_turn(self, at_turn: int) -> None:
        """Raise ``stale`` unless the game's turn number is ``at_turn`` (0 before the first)."""
        turn = self.state.get("turn") or {}
        number = turn.get("number", 0)
        if number != at_turn:
            whose = " & ".join(self.label(p) for p in turn.get("active", []))
            raise TableError(
                "stale",
                Sentence(
                    "Turn {number} ({player}'s) has begun since: nothing was sent again.",
                    number=number,
                    player=whose,
                )
                if number
                else Sentence("No turn has begun since; nothing was sent again."),
                member="at_turn",
            )

    def _choice_needed(self, exc: engine.ChoiceNeeded) -> TableError:
        """An action that needs a choice a player hasn't made (603.3b, 603.3d, 616.1): turned
        down, naming the player, the cards and the rule, with the choice (``choice``)."""
        who = self.label(exc.player)
        cards = [engine.card_of(self.game, i) for i in exc.ids]
        what: Sentence
        if exc.choice == "targets":
            options: str = ""
            for index, p in enumerate(exc.options):
                label = self.label(p)
                options = (
                    label
                    if not index
                    else Sentence("{first} or {second}", first=options, second=label)
                )
            what = Sentence(
                "the target of {card} ({player}'s): when {player} gains life, which opponent "
                "loses that much — {options}",
                card=cards[0],
                player=who,
                options=options,
            )
        elif exc.choice == "replacements" and engine.replaces_losing(self.game, exc.ids):
            mirrors = [
                Sentence(
                    "{card} ({player}'s)",
                    card=card,
                    player=self.label(engine.controller_of(self.game, i) or exc.player),
                )
                for card, i in zip(cards, exc.ids, strict=True)
            ]
            what = Sentence(
                "which of {cards} replaces {player}'s loss of the game",
                cards=Items(mirrors),
                player=who,
            )
        elif exc.choice == "replacements":
            what = Sentence(
                "the order in which {cards} apply to the life {player} gains",
                cards=Items(cards),
                player=who,
            )
        else:
            what = Sentence(
                "the order of {cards} ({player}'s), whose triggered abilities go on the stack "
                "at once",
                cards=Items(cards),
                player=who,
            )
        return TableError(
            "choice-needed",
            Sentence(
                "Waiting for {player} to choose {what} ({rule}). Nothing changed: send it again "
                "once {player} has chosen.",
                player=who,
                what=what,
                rule=exc.rule,
            ),
            rule=exc.rule,
            member="do",
            choice=engine.choice_json(exc),
        )

    def _present(self, step: _Step, effects_changed: bool) -> None:
        """The view after a step and its message for the phones: the change (its timeline
        entry), with the score and the effects only when they changed. Raises ``too-large``
        for a change that would make the view or the entry too large to send."""
        prior = self.latest
        outcomes = self.outcomes if step.outcome is None else [*self.outcomes, step.outcome]
        if step.back:
            outcomes = outcomes[:-1]
        decisive = step.event.kind != "action" or any(
            c["what"] in ("status", "over", "game") for c in step.entry.changes
        )
        score = self._score(outcomes, step.game, step.state) if decisive else prior["score"]
        effects = engine.effects(step.game) if effects_changed else prior["effects"]
        target = _undoable(step.last)
        step.view = {
            "state": step.state,
            "score": score,
            "can_undo": target is not None,
            "undo_target": target,
            "undo_own": _own_targets(step.segment[2] if step.segment else [*self.tail, step.event]),
            "effects": effects,
            "choices": engine.choices(step.game),  # a few entries per card in play
            **_setup_view(*(step.setup or (self.header, self.colours))),
        }
        turns = engine.turns(step.game)  # the turn tracker's (version 2): docs/table.md, "Turns"
        if turns is not None:
            step.view["turns"] = turns
        text = step.entry.text()
        head = json.dumps(
            {
                "type": "event",
                "seq": step.event.seq,
                "can_undo": target is not None,
                "undo_target": target,
                "undo_own": step.view["undo_own"],
            }
        )
        extra = ""
        if score != prior["score"]:
            extra += f', "score": {json.dumps(score)}'
        if effects != prior["effects"]:
            extra += f', "effects": {json.dumps(effects)}'
        if step.view["choices"] != prior.get("choices"):
            extra += f', "choices": {json.dumps(step.view["choices"])}'
        if turns != prior.get("turns"):
            extra += f', "turns": {json.dumps(turns)}'
        for member in ("names", "colours"):  # a player's name or colour changed (issue 17)
            if step.view[member] != prior.get(member):
                extra += f', "{member}": {json.dumps(step.view[member])}'
        if len(text) > ENTRY_BYTES or (
            (extra or step.event.kind != "action" or _grows(step.entry.changes))
            and len(json.dumps(step.view)) > VIEW_BYTES
        ):
            # Every phone is sent every change: a state that only grows (new counter kinds,
            # effects, ...) would end up too large to send (found by an audit).
            if step.event.kind == "action":
                self._recover()
            raise TableError(
                "too-large",
                Sentence(
                    "This change would make the table's state too large to send to the phones."
                ),
            )
        step.text = f'{head[:-1]}, "entry": {text}{extra}}}'

    def _begin_next_game(self, event: Event, entry: Entry) -> _Step:
        """The step of ``event`` beginning the next game with the setup's players (after the
        current one: decided, or left unfinished), with its checkpoint of a game at its start;
        ``too-many-games`` past :data:`MAX_GAMES`."""
        number = self.number
        if number >= MAX_GAMES:
            raise TableError(
                "too-many-games",
                Sentence(
                    "A table plays at most {n} games: open a new table to play on (this one "
                    "keeps its games, records and statistics).",
                    n=MAX_GAMES,
                ),
            )
        outcome = self.game.outcome()
        game = engine.new_game(self.header)
        entry.game = number + 1
        state = engine.state_of(game)
        base = engine.new_game(self.header)
        step = _Step(event, entry, game, state, 0, None, (base, 0, []), outcome=outcome)
        step.checkpoint = Checkpoint(
            self.id,
            number + 1,
            0,
            event.seq,
            engine.dump_checkpoint(base, [*self.outcomes, outcome]),
        )
        return step

    def _undo_target(self, body: dict[str, Any], live: bool) -> int:
        """The action an undo takes back, or :class:`TableError` saying why it can't. (Whose
        change it is, is the socket's question: web/protocol.py asks the seat that made it.)"""
        target = body.get("target")
        if target is None and not live:
            target = self.last.seq if self.last else 0  # a log from before undo named targets
        if isinstance(target, bool) or not isinstance(target, int):
            raise TableError(
                "malformed",
                Sentence(
                    'An undo names the action it takes back: "target" is its sequence number.'
                ),
                member="target",
            )
        last = self.last
        if last is None or target != last.seq:
            if self._was_undone(target):
                raise TableError(
                    "already-undone",
                    Sentence("Event {seq} has already been undone.", seq=target),
                )
            if last is None:
                raise TableError(
                    "nothing-to-undo", Sentence("There is nothing to undo in this game.")
                )
            # A seat's own change under a later one is not taken back alone (issue 17 item 10:
            # docs/table.md, "Undo"): undo takes the table's changes back last first.
            raise TableError(
                "not-last",
                Sentence(
                    "Event {seq} is not the last action in effect: {player}'s change (event "
                    "{last}) came after it, and undo takes back the last change first.",
                    seq=target,
                    player=self.undo_by(last),
                    last=last.seq,
                ),
            )
        if _undoable(last) is None:
            raise TableError(
                "final", Sentence("A concession is final: it can't be undone."), rule="104.3a"
            )
        return target

    def undo_owner(self, target: object) -> str | None:
        """The seat whose change an undo of ``target`` would take back, if ``target`` is the
        last action in effect (``None`` otherwise, or for a change no seat sent)."""
        last = self.last
        if type(target) is not int or last is None or target != last.seq:
            return None  # (1.0 and True are no sequence numbers, though equal to 1)
        if _undoable(last) is None:
            return None
        return last.seat

    def undo_by(self, event: Event | None = None) -> str:
        """Who made a change (the last action in effect by default), as the history says it:
        "the table" for a table device's, else its seat's name."""
        event = event or self.last
        if event is None:
            return Sentence("nobody")
        if _device(event.body) == "table":
            return Sentence("the table")
        return self.label(event.seat) if event.seat else Sentence("nobody")

    # -- a seat's own change under later ones (issue 25 item 4) --------------------------------

    def undoes_under(self, kind: str, body: dict[str, Any]) -> bool:
        """Whether a request is an undo of a change under the table's last one: an action in
        effect since the last checkpoint, not the last (:meth:`decide_all` decides it)."""
        target = body.get("target")
        last = self.last
        if kind != "undo" or type(target) is not int or last is None or last.kind != "action":
            return False
        return target != last.seq and any(e.seq == target for e in self.tail)

    def decide_all(
        self,
        kind: str,
        body: dict[str, Any],
        client_id: str,
        seat: str | None,
        *,
        look_up: bool = False,
        at_turn: int | None = None,
        shares: Sequence[WorkShare] = (),
    ) -> list[Decision] | int:
        """:meth:`decide` a request, as one or several changes: a seat taking back its own
        change under later ones (issue 25 item 4) is, in the log, the later ones taken back
        (newest first), its own, then each later one made again as it was (its seat's, its
        device's, marked ``"replay"``), so that every reader of the log (records, pictures,
        checkpoints, other servers) reads plain undos and actions. The engine works them out
        first: if it now refuses a later change, the undo is refused, naming it and the rule;
        if a later change would now do something else, the undo is refused
        ``undo-changes-later``, naming each and how, unless the request says
        ``"confirm": true``. The last change made has ``client_id`` (a retry is answered its
        sequence number); the others have ids derived from it."""
        if not self.undoes_under(kind, body):
            decision = self.decide(
                kind, body, client_id, seat, look_up=look_up, at_turn=at_turn, shares=shares
            )
            return decision if isinstance(decision, int) else [decision]
        earlier = self._admit(client_id, look_up, at_turn, shares)
        if earlier is not None:
            return earlier
        with self._spending(shares):
            try:
                return self._undo_under(body, client_id, seat)
            except TableError as exc:
                self._refusals[client_id] = exc
                while len(self._refusals) > REFUSALS_KEPT:
                    self._refusals.popitem(last=False)
                raise

    def _undo_under(self, body: dict[str, Any], client_id: str, seat: str | None) -> list[Decision]:
        target = body["target"]
        index = next(i for i, e in enumerate(self.tail) if e.seq == target)
        undone, later = self.tail[index], self.tail[index + 1 :]
        device = _device(body)
        last = self.last
        assert last is not None
        if seat is None or undone.seat != seat or _device(undone.body) != device:
            raise TableError(
                "not-last",
                Sentence(
                    "Event {seq} is not the last action in effect: {player}'s change (event "
                    "{last}) came after it. Under later changes, a seat takes back only its "
                    "own last change.",
                    seq=target,
                    player=self.undo_by(last),
                    last=last.seq,
                ),
            )
        newer = [e for e in later if e.seat == seat and _device(e.body) == device]
        if newer:
            raise TableError(
                "not-last",
                Sentence(
                    "Event {seq} is not {player}'s last change: event {newer} came after it; "
                    "take that back first.",
                    seq=target,
                    player=self.undo_by(undone),
                    newer=newer[-1].seq,
                ),
            )
        if _undoable(undone) is None:
            raise TableError(
                "final", Sentence("A concession is final: it can't be undone."), rule="104.3a"
            )
        if len(later) > UNDO_UNDER:
            raise TableError(
                "too-much-work",
                Sentence(
                    "{n} changes came after it: a change is taken back under at most {most}. "
                    "Record what undoes it instead.",
                    n=len(later),
                    most=UNDO_UNDER,
                ),
            )
        differ = self._replayed_without(index)
        if differ and body.get("confirm") is not True:
            raise TableError(
                "undo-changes-later",
                Sentence(
                    "Taking back {what} changes what later changes did: {changes}. Undo again "
                    "to take it back anyway.",
                    what=Sentence("event {seq}", seq=target),
                    changes=Items(said for said, _ in differ),
                ),
                preview=[each for _, each in differ],
            )
        # What the undo of the last of them reads of the log is read before anything changes
        # (NeedsLog: nothing changed yet), and kept through the changes made here.
        position = self.base_count + index
        if position == self.base_count and position:
            self._actions(position - 1, position)
        elif not position:
            self._opener(self.number)
        reads = self._reads
        made: list[Decision] = []
        stem = client_id[:48]
        common = {"device": device} if device else {}
        try:
            for e in reversed(later):
                undo = {"target": e.seq, "replay": target, **common}
                made.append(self._decide("undo", undo, f"{stem}-u{e.seq}", seat, group=client_id))
                self._reads = reads
            ids = [f"{stem}-r{e.seq}" for e in later]
            made.append(self._decide("undo", {**body}, f"{stem}-x", seat, group=client_id))
            self._reads = reads
            for e, cid in zip(later, [*ids[:-1], client_id], strict=True):
                again = {"action": e.body["action"], "replay": e.seq}
                if _device(e.body):
                    again["device"] = "table"
                made.append(
                    self._decide("action", again, cid, e.seat, replayed=True, group=client_id)
                )
                self._reads = reads
        except Exception:
            # Worked out before: the engine agreed. Whatever failed, the table is loaded again
            # as the store holds it (nothing of this undo is written).
            log.exception("table %s: taking back event %s under later ones failed", self.id, target)
            for decision in made:
                self.pending.pop(decision.event.seq, None)
            self.reload()
            raise TableError(
                "engine-failed",
                Sentence("The rules engine failed on this change; nothing changed."),
            ) from None
        return made

    def _replayed_without(self, index: int) -> list[tuple[str, dict[str, Any]]]:
        """The later changes (after ``self.tail[index]``) that the engine, replaying them
        without it, finds doing something else, each named with how (raises ``refused``
        naming one it now refuses, with the rule, and ``too-much-work`` past
        :data:`.limits.UNDO_SECONDS`). Changes nothing."""
        start = self.base_count
        game = self.base.copy()
        game.deadline = time.monotonic() + UNDO_SECONDS
        undone = self.tail[index]
        differ: list[tuple[str, dict[str, Any]]] = []
        try:
            engine.resume(game, [e.body["action"] for e in self.tail[:index]], start)
            state = engine.state_of(game)
            for offset, e in enumerate(self.tail[index + 1 :]):
                where = start + index + offset
                try:
                    engine.apply(game, e.body["action"], where)
                except (engine.RefusedError, engine.ChoiceNeeded) as exc:
                    why = exc.message if isinstance(exc, engine.RefusedError) else str(exc)
                    raise TableError(
                        "refused",
                        Sentence(
                            "Taking back event {seq} would leave {player}'s later change "
                            "(event {later}) refused: {why}",
                            seq=undone.seq,
                            player=self.undo_by(e),
                            later=e.seq,
                            why=why,
                        ),
                        rule=getattr(exc, "rule", None),
                    ) from None
                after, players, teams, _ = engine.after(game, state)
                now = changes(state, after, players, teams)
                state = after
                was = json.loads(e.entry)["changes"] if e.entry else []
                if _effect(now) != _effect(was):
                    said = Sentence(
                        "{player}'s change (event {seq}): {was}, now {now}",
                        player=self.undo_by(e),
                        seq=e.seq,
                        was=self._said_changes(was),
                        now=self._said_changes(now),
                    )
                    each = {"seq": e.seq, "seat": e.seat, "action": e.body["action"]}
                    if _device(e.body):
                        each["device"] = "table"
                    differ.append((said, {**each, "was": was, "now": now}))
        except engine.TooMuchWork as exc:
            raise TableError(
                "too-much-work",
                Sentence(
                    "Taking this back means working out the changes after it again, more than "
                    "a table may at once ({ms} ms); nothing changed. Record what undoes it "
                    "instead.",
                    ms=f"{UNDO_SECONDS * 1000:g}",
                ),
            ) from exc
        finally:
            game.deadline = None
        return differ

    def _said_changes(self, items: list[dict[str, Any]]) -> str:
        """What a change did, shortly: "Cy life 40 → 37; Cy status playing → lost"."""
        if not items:
            return Sentence("nothing")
        said = []
        for c in items:
            who = c.get("player") or c.get("team")
            what = str(c.get("what"))
            if c.get("key"):
                what = f"{what} {c['key']}"
            said.append(
                f"{self.label(who) + ' ' if who else ''}{what} {c.get('from')} → {c.get('to')}"
            )
        return "; ".join(said)

    def _take_setup(self, found: Checkpoint | None) -> bool:
        """Take in the players' names and colours as changed at the table (``setup`` events),
        kept beside the log (:data:`SETUP_KEY`); ``False`` if what is kept can't be read (the
        log is then replayed from its start, which makes it again)."""
        if found is None:
            return True
        try:
            kept = json.loads(found.data)
            names, colours = kept["names"], kept["colours"]
            ids = set(self.player_ids())
            if not (
                set(names) == ids
                and all(isinstance(n, str) and n for n in names.values())
                and set(colours) <= ids
                and all(type(c) is int and 0 <= c < COLOURS for c in colours.values())
            ):
                raise ValueError("not the table's players")
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            log.info("table %s: replaying its log (its players' names: %s)", self.id, exc)
            return False
        self.header = _renamed(self.header, names)
        self.colours = dict(colours)
        return True

    def _setup_change(
        self, body: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
        """A change of a player's name or colour, checked whole before anything changes: the
        timeline's account of it, and the header and colours after it. Raises
        :class:`TableError` naming the member at fault."""
        extra = sorted(set(body) - {"player", "name", "colour", "device"})
        if extra:
            raise TableError(
                "malformed",
                Sentence("Unknown member {member}.", member=repr(extra[0])),
                member=extra[0],
            )
        player = body.get("player")
        if not isinstance(player, str) or player not in self.player_ids():
            raise TableError(
                "unknown-player",
                Sentence("Name the player whose name or colour changes (their id)."),
                member="player",
            )
        name, colour = body.get("name"), body.get("colour")
        if name is None and colour is None:
            raise TableError(
                "malformed",
                Sentence(
                    'Give {player} a new "name", a "colour", or both.', player=self.label(player)
                ),
            )
        names = {p["id"]: str(p.get("name") or p["id"]) for p in self.header["players"]}
        change: dict[str, Any] = {"player": player}
        if name is not None:
            try:
                name = check_name(name, "player's name")
            except TableError as exc:
                raise TableError(exc.code, exc.message, member="name") from exc
            for other, known in names.items():
                if other != player and known.casefold() == name.casefold():
                    raise TableError(
                        "name-taken",
                        Sentence(
                            "{name} is another player's name at this table: choose another.",
                            name=known,
                        ),
                        member="name",
                    )
            if name != names[player]:
                change["name"] = {"from": names[player], "to": name}
        colours = dict(self.colours)
        if colour is not None:
            if type(colour) is not int or not 0 <= colour < COLOURS:
                raise TableError(
                    "malformed",
                    Sentence(
                        "A colour is a number from 0 to {last} (the palette's).", last=COLOURS - 1
                    ),
                    member="colour",
                )
            for other, chosen in colours.items():
                if other != player and chosen == colour:
                    raise TableError(
                        "colour-taken",
                        Sentence("{name} has that colour: choose another.", name=names[other]),
                        member="colour",
                    )
            if colours.get(player) != colour:
                change["colour"] = {"from": colours.get(player), "to": colour}
                colours[player] = colour
        if len(change) == 1:
            raise TableError(
                "unchanged",
                Sentence("{name} has that name and colour already.", name=names[player]),
            )
        if "name" in change:
            names[player] = change["name"]["to"]
        return change, _renamed(self.header, names), colours

    def _was_undone(self, target: int) -> bool:
        """Whether event ``target`` is an action of the current game that was undone: no
        longer in effect (the game has fewer actions in effect than its position, or a later
        action took its position)."""
        if self._replay is not None or not 0 < target <= self.last_seq:
            return False
        event = self._event(target)
        if event is not None and event.kind in OPENERS and event.game is not None:
            # A reset or new game is undone once its game is left, or begun by another.
            if event.game != self.number:
                return event.game > self.number
            opener = self._opener(self.number)
            return opener is None or opener.seq != target
        if event is None or event.kind != "action" or event.game != self.number:
            return False
        if event.position is None or event.position >= self.count:
            return True
        return self._actions(event.position, event.position + 1)[0].seq != target

    def _actions(self, start: int, end: int, number: int | None = None) -> list[Event]:
        """The current game's actions in effect at positions ``start`` to ``end - 1`` (or
        game ``number``'s: the game a reset or a new game left, which its undo brings back)."""
        number = self.number if number is None else number
        current = number == self.number
        if current and start >= self.base_count:
            return self.tail[start - self.base_count : end - self.base_count]
        if self._replay is not None:
            effective = self._replay.effective if current else self._replay.left[-1][0]
            return effective[start:end]
        found = self._read(LogRead(self.id, "effective", game=number, start=start, end=end))
        assert isinstance(found, list)
        waiting = [e for e, _ in self._unwritten() if e.kind == "action" and e.game == number]
        tail = newest_at_each_position(
            [e for e in [*found, *waiting] if e.position is not None and start <= e.position < end]
        )
        if [e.position for e in tail] != list(range(start, end)):
            raise DamagedError(self.id, None, f"actions {start} to {end} of game {number}")
        return tail

    def _opener(self, number: int) -> Event | None:
        """The reset or new game that began game ``number``, if one did (an undo takes it
        back once no action of the game is in effect): the event its checkpoint at the
        game's start names."""
        if number <= 1:
            return None
        if self._replay is not None:
            return self._replay.openers.get(number)
        found = self._checkpoint(number, 0)
        if found is None:
            raise DamagedError(self.id, None, f"the start of game {number} is gone")
        event = self._event(found.seq)
        return event if event is not None and event.kind in OPENERS else None

    def _adopt(self, step: _Step) -> None:
        """Take a worked-out change into the table (assignments only: nothing here fails)."""
        event = step.event
        replay = self._replay
        if step.segment is None:
            self.tail.append(event)
        else:
            self.base, self.base_count, self.tail = step.segment
        if replay is not None:
            if event.kind == "action":
                replay.effective.append(event)
            elif step.back:
                replay.effective, replay.checkpoints = replay.left.pop()
            elif event.kind == "undo":
                replay.effective.pop()
            elif event.kind == "setup":
                pass  # the game is as it was
            else:
                if event.kind in OPENERS:
                    replay.left.append((replay.effective, replay.checkpoints))
                    replay.openers[self.number + 1] = event
                replay.effective = []
                replay.checkpoints = {}
            if step.checkpoint is not None and step.checkpoint.game and step.count:
                replay.checkpoints[step.count] = self.base
        if step.outcome is not None:
            self.outcomes.append(step.outcome)
        if step.back:
            self.outcomes.pop()
        if step.setup is not None:
            self.header, self.colours = step.setup
        self.count, self.last = step.count, step.last
        self.game = step.game
        self.state = step.state
        if step.view is not None:
            self.latest = step.view
        assert event.entry is not None
        self.recent.append((event.seq, event.entry))
        self.client_ids[event.client_id] = event.seq
        if len(self.client_ids) > 2 * CLIENT_IDS_KEPT:
            self.client_ids = dict(list(self.client_ids.items())[-CLIENT_IDS_KEPT:])
            self.ids_from = next(iter(self.client_ids.values()))
        self.last_seq = event.seq
        self._proposals.clear()
        if self._reads.asked or self._reads.found:
            self._reads = LogReads()  # what was read may no longer be what is in effect

    # -- seats and presentation ---------------------------------------------------------------

    def label(self, side: str) -> str:
        """A side's or player's display name."""
        for player in self.header["players"]:
            if player["id"] == side:
                return str(player.get("name") or side)
        members = [
            str(p.get("name") or p["id"]) for p in self.header["players"] if p.get("team") == side
        ]
        return " & ".join(members) if members else side

    def info(self, spectator: bool) -> dict[str, Any]:
        """The table's setup as a client needs it; a spectator does not learn the table's id
        or code (they would let them take a seat)."""
        out: dict[str, Any] = {
            "header": self.header,
            "best_of": self.match.best_of,
            "labels": self.labels,
            "counted": self.row.setup.get(
                "counted", [p["id"] for p in self.header["players"] if "library" in p]
            ),
            "taken": sorted(self.seats),
            "colours": self.colours,
            "watch": self.row.watch,
            "catalogue": engine.catalogue(),
        }
        if not spectator:
            out["id"] = self.id
            out["code"] = self.row.code
        return out

    def _view(self) -> dict[str, Any]:
        view = {
            "state": self.state,
            "score": self.score(),
            "can_undo": self.can_undo(),
            "undo_target": self.undo_target(),
            "undo_own": _own_targets(self.tail),
            "effects": engine.effects(self.game),
            "choices": engine.choices(self.game),
            **_setup_view(self.header, self.colours),
        }
        turns = engine.turns(self.game)  # the turn tracker's (version 2): docs/table.md, "Turns"
        if turns is not None:
            view["turns"] = turns
        return view

    @property
    def view_text(self) -> str:
        """The view as of the last change written, as JSON text (made once per change, when
        a phone first asks for it)."""
        if self._view_text is None:
            self._view_text = json.dumps(self.view)
        return self._view_text

    def _page(
        self, after: int, before: int, limit: int, *, memory: bool = False
    ) -> tuple[list[str], bool]:
        """The newest ``limit`` written entries with ``after < seq < before``, oldest first,
        at most :data:`PAGE_BYTES` of them (at least one), as JSON texts, and whether older
        ones (still after ``after``) exist. The newest come from memory, older ones from the
        log (:class:`NeedsLog`); with ``memory``, only those in memory (the older ones are
        then said to exist: a client asks for them a page at a time)."""
        end = max(0, min(before - 1, self.committed))
        start = max(after, end - limit, 0)
        if end <= start:
            return [], start > after
        first = self.recent[0][0] if self.recent else end + 1
        if first <= start + 1:
            found = [text for _, text in list(self.recent)[start + 1 - first : end + 1 - first]]
        elif memory:
            held = list(self.recent)[: max(0, end + 1 - first)]
            found = [text for _, text in held]
            start = end - len(found)
        else:
            read = LogRead(self.id, "entries", seq=end + 1, count=end - start)
            rows = cast(list[tuple[int, str | None]], self._read(read))  # (LogRead.fetch)
            if any(text is None for _, text in rows):
                raise DamagedError(self.id, None, "a timeline entry was never derived")
            found = [text for _, text in rows if text is not None]
        size = 0
        for index in range(len(found) - 1, -1, -1):
            size += len(found[index])
            if size > PAGE_BYTES and index < len(found) - 1:
                found = found[index + 1 :]
                break
        return found, end - len(found) > after

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """What a client needs to catch up after sequence number ``since``: the view as of
        the last event written to the store and the newest :data:`PAGE` entries after
        ``since`` (``more``: older ones exist; a client asks for them with :meth:`history`)."""
        return json.loads(self.snapshot_text(since))  # type: ignore[no-any-return]

    def snapshot_text(self, since: int = 0, **head: Any) -> str:
        """:meth:`snapshot` as JSON text, with ``head``'s members first, made from the cached
        texts of the view and the entries (a welcome costs no more than its size)."""
        self.check()
        entries, more = self._page(since, self.committed + 1, PAGE, memory=True)
        first = json.dumps({**head, "seq": self.committed, "since": since, "more": more})
        return f'{first[:-1]}, "entries": [{", ".join(entries)}], {self.view_text[1:]}'

    def history(self, before: int, limit: int = PAGE) -> dict[str, Any]:
        """A page of older entries: the newest ``limit`` (at most :data:`PAGE`) with a sequence
        number below ``before``, oldest first, and whether there are older ones still."""
        return json.loads(self.history_text(before, limit))  # type: ignore[no-any-return]

    def history_text(self, before: int, limit: int = PAGE) -> str:
        """:meth:`history` as JSON text, made from the entries' texts."""
        self.check()
        entries, more = self._page(0, before, max(0, min(limit, PAGE)))
        joined = ", ".join(entries)
        return f'{{"type": "history", "entries": [{joined}], "more": {json.dumps(more)}}}'


def _too_much_work(exc: engine.TooMuchWork) -> str:
    """What a phone is told of a change the engine gave up on (issue 21)."""
    if exc.limit == "seconds":
        return Sentence(
            "This change takes the rules engine too long to work out at a table (over {ms} ms); "
            "nothing changed. Record the result it leads to instead (the totals, or a loop's "
            "draw, 732.2a).",
            ms=f"{DECISION_SECONDS * 1000:g}",
        )
    return Sentence("{message}; nothing changed.", message=exc.message)


def _undoable(last: Event | None) -> int | None:
    """The sequence number of ``last``, the last action in effect (or the reset or new game
    that began the game, while no action of it is), if an undo may take it back (104.3a: a
    concession is final)."""
    if last is None or (last.kind == "action" and concessions(last.body["action"])):
        return None
    return last.seq


def _own_targets(effective: list[Event]) -> dict[str, int]:
    """Each seat's own last change in effect among ``effective`` (the actions since the last
    checkpoint), as a seat's Undo on its own phone names it (issue 25 item 4): its newest
    action sent from its own phone (not the table device's), unless a concession (104.3a)."""
    own: dict[str, int] = {}
    seen: set[str] = set()
    for event in reversed(effective):
        seat = event.seat
        if event.kind != "action" or seat is None or seat in seen or _device(event.body):
            continue
        seen.add(seat)
        if _undoable(event) is not None:
            own[seat] = event.seq
    return own


def _effect(items: list[dict[str, Any]]) -> list[str]:
    """What a change did, whatever the totals were before it: each item of its changes with a
    number's change as the difference (Bo −2 is Bo −2 from 38 as from 36), else as it was."""
    out = []
    for c in items:
        rest = {k: v for k, v in c.items() if k not in ("from", "to")}
        old, new = c.get("from"), c.get("to")
        numbers = all(type(x) is int for x in (old, new))
        rest["by"] = new - old if numbers else [old, new]  # type: ignore[operator]
        out.append(json.dumps(rest, sort_keys=True))
    return sorted(out)


def _renamed(header: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The header with its players' names as ``names`` says (a new header: never changed)."""
    players = [
        {**p, "name": names[p["id"]]} if names.get(p["id"], p.get("name")) != p.get("name") else p
        for p in header["players"]
    ]
    return {**header, "players": players}


def _setup_view(header: dict[str, Any], colours: dict[str, int]) -> dict[str, Any]:
    """The players' names and chosen colours, as the view carries them (a phone that joins,
    or comes back, after a change of either is shown them)."""
    names = {p["id"]: str(p.get("name") or p["id"]) for p in header["players"]}
    return {"names": names, "colours": colours}


def _takes_back(undo: Event, last: Event) -> bool:
    """Whether an undo in a game's log takes back ``last``, the game's last action in effect
    (not the reset or new game that began the game after it: that undo leaves its game
    as it was)."""
    target = undo.body.get("target") if isinstance(undo.body, dict) else None
    return target is None or target == last.seq


def _device(body: object) -> str | None:
    """The device that sent an event, as its body says (``"table"``; ``None``: a phone)."""
    device = body.get("device") if isinstance(body, dict) else None
    return device if device == "table" else None


def _allowed(body: object) -> str | None:
    """For an undo of another seat's change: who allowed it (a seat, or ``"host"``)."""
    allowed = body.get("allowed") if isinstance(body, dict) else None
    return allowed if isinstance(allowed, str) else None


def _grows(items: list[dict[str, Any]]) -> bool:
    """Whether a change adds to the state (a counter kind, a commander, a trigger it did not
    have): only such a change can make it too large to send."""
    return any(
        c["what"] in ("counters", "commander_damage", "triggered") and c["from"] == 0 for c in items
    )

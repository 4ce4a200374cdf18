"""A table's state: what every room of its decisions reads and changes (docs/design.md, "The
table's decisions"), the facts derived from it at once (the game's number, the players, the
sides, the undo), and the bounds it is kept within.

:class:`TableState` holds the state; the rooms are modules of functions that take it
(:mod:`.reading`, :mod:`.undoing`, :mod:`.setting`, :mod:`.views`, :mod:`.deciding`,
:mod:`.loading`, :mod:`.undoing_under`) and :class:`.table.Table`, the one the rest of the app
uses, is a :class:`TableState` whose methods hand each request to its room.
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from typing import Any

from lifeledger.sentences import Sentence

from ..store.records import DamagedError, Event, Store, TableRow
from . import engine
from .entries import Decision, Replay, undoable
from .errors import TableError, TableUnavailable
from .limits import WorkShare
from .logreads import LogReads
from .rights import Rights
from .tools import Tools

__all__ = [
    "CLIENT_IDS_KEPT",
    "ENTRY_BYTES",
    "MAX_GAMES",
    "OPENERS",
    "PAGE",
    "PAGE_BYTES",
    "READS",
    "RECENT",
    "REFUSALS_KEPT",
    "SETUP_KEY",
    "UNDO_UNDER",
    "VIEW_BYTES",
    "TableState",
]

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


class TableState:
    """One table in memory: the live game of the current match game, and the newest entries
    (assigned by :meth:`reset` and the rooms; read by the rest of the app through
    :class:`.table.Table`)."""

    #: How many actions in effect apart the checkpoints of a game are.
    CHECKPOINT = 100

    store: Store
    id: str
    #: When the table was last used (``time.monotonic()``): idle tables leave memory.
    used: float
    #: Why the table can't be used, if its log can't be loaded (:meth:`fail`).
    broken: TableUnavailable | None
    #: The table's tools (dice, clocks, the round timer: decide/tools.py), kept beside its log.
    tools: Tools
    match: engine.Match
    #: The live game, its state, and the checkpoint its segment is played from.
    game: engine.Game
    state: dict[str, Any]
    base: engine.Game

    def reset(self, row: TableRow | None) -> None:
        """Everything in memory as before the table's first event (``row``: its setup)."""
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
        #: The requests turned down lately, by client id (a retry gets the same answer).
        self.refusals: OrderedDict[str, TableError] = OrderedDict()
        #: Intentional draws proposed since the last change: the action -> who agreed.
        self.proposals: dict[str, set[str]] = {}
        #: The view after the last change written (what a newly connected phone is shown),
        #: and after the last change decided (what the next change's delta is against).
        self.view: dict[str, Any] = {}
        self.latest: dict[str, Any] = {}
        #: :attr:`view` as JSON text, once a phone asked for it (:func:`.views.view_text`).
        self.view_json: str | None = None
        #: While the log is replayed from its first event (:func:`.loading.replay_log`).
        self.replaying: Replay | None = None
        #: The event being loaded, if one is (named when it fails).
        self.loading_at = 0
        #: The reads of the log this table was given for its decisions (:func:`.reading.learn`).
        self.reads = LogReads()

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

    def label(self, side: str) -> str:
        """A side's or player's display name."""
        for player in self.header["players"]:
            if player["id"] == side:
                return str(player.get("name") or side)
        members = [
            str(p.get("name") or p["id"]) for p in self.header["players"] if p.get("team") == side
        ]
        return " & ".join(members) if members else side

    def undo_target(self) -> int | None:
        """The sequence number of the action an undo may take back now (``None``: none)."""
        return undoable(self.last)

    def can_undo(self) -> bool:
        """Whether the current game has an action that undo may take back."""
        return self.undo_target() is not None

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

    def fail(self, seq: int | None, exc: Exception) -> None:
        """Keep in :attr:`broken` why the table can't be used (event ``seq`` failed with
        ``exc``), in words a person reads."""
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

    def recover(self) -> None:
        """The live game again from the segment (after the engine failed midway)."""
        try:
            actions = [e.body["action"] for e in self.tail]
            self.game = engine.resume(self.base.copy(), actions, self.base_count)
            self.state = engine.state_of(self.game)
        except Exception as exc:
            self.fail(self.last_seq, exc)

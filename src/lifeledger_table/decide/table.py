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

The table's decisions are in rooms of their own (docs/design.md, "The table's decisions"):
its state (:mod:`.state`) and what the rooms hand one another (:mod:`.entries`); reading the
log sans I/O (:mod:`.reading`); undo (:mod:`.undoing`), a change of the setup
(:mod:`.setting`) and what a table shows (:mod:`.views`); deciding a change (:mod:`.deciding`);
loading and checkpoints (:mod:`.loading`); a seat's own change taken back under later ones
(:mod:`.undoing_under`). :class:`Table` is the one the rest of the app uses: a
:class:`.state.TableState` whose every method hands the request to its room.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from ..store.records import Event, Store
from . import deciding, loading, reading, undoing, undoing_under, views
from .entries import Decision, Entry
from .limits import WorkShare
from .loading import settle as _settle  # (Table.settle's argument ``loading`` hides the room)
from .logreads import Found, NeedsLog
from .state import (
    CLIENT_IDS_KEPT,
    ENTRY_BYTES,
    MAX_GAMES,
    PAGE,
    PAGE_BYTES,
    RECENT,
    VIEW_BYTES,
    TableState,
)

__all__ = [
    "CLIENT_IDS_KEPT",
    "ENTRY_BYTES",
    "MAX_GAMES",
    "PAGE",
    "PAGE_BYTES",
    "RECENT",
    "VIEW_BYTES",
    "Decision",
    "Entry",
    "NeedsLog",
    "Table",
]

T = TypeVar("T")


class Table(TableState):
    """One table in memory: the live game of the current match game, and the newest entries.

    Built from the store by :meth:`reload`; every change goes through :meth:`decide` (then the
    hub writes it and calls :meth:`commit`) or :meth:`submit` (both at once). A change is
    worked out in full first and taken into memory only if nothing failed.

    A table whose log can't be loaded keeps the error in :attr:`broken` and answers it to
    every request (:class:`TableUnavailable`) without loading the log again.

    Loading reads the store (call it off the event loop); deciding never does: a decision that
    needs part of the log not in memory raises :class:`NeedsLog` (see the module's docstring).
    """

    def __init__(self, store: Store, table_id: str) -> None:
        self.store = store
        self.id = table_id
        self.used = time.monotonic()
        self.reload()

    # -- loading (:mod:`.loading`) --------------------------------------------------------------

    def reload(self) -> None:
        """Build everything in memory from the store (on first use, and after a failed write:
        whatever was decided but not written is forgotten), from the newest checkpoint: at
        most :attr:`CHECKPOINT` actions are replayed. Raises :class:`KeyError` if the store
        has no such table; if the log can't be loaded, :attr:`broken` says why."""
        loading.reload(self)

    def take_over(self, fresh: Table) -> None:
        """Become ``fresh``, this table loaded again from the store (off the event loop):
        assignments only. Whatever this one decided and did not write is forgotten."""
        used = self.used
        self.__dict__.update(fresh.__dict__)
        self.used = used

    def settle(self, work: Callable[[], T], *, loading: bool = False) -> T:
        """``work()`` (a decision), the store read here each time it needs part of the log
        (:func:`.loading.settle`): for :meth:`submit`, loading a table (in a thread) and
        tests, never on the event loop."""
        return _settle(self, work, loading=loading)

    def submit(
        self,
        kind: str,
        body: dict[str, Any],
        client_id: str,
        seat: str | None,
        *,
        shares: Sequence[WorkShare] = (),
    ) -> tuple[Entry | None, int]:
        """Decide a request and write it at once (:func:`.loading.submit`)."""
        return loading.submit(self, kind, body, client_id, seat, shares=shares)

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

    # -- deciding (:mod:`.deciding`, :mod:`.undoing_under`, :mod:`.reading`) -------------------

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
        """Let the engine and the table decide a client's request, and take it into memory:
        the :class:`Decision` to write, then :meth:`commit`, or a retry's sequence number; a
        request turned down raises :class:`TableError` (:func:`.deciding.decide`)."""
        return deciding.decide(
            self,
            kind,
            body,
            client_id,
            seat,
            look_up=look_up,
            at_turn=at_turn,
            shares=shares,
            at=at,
        )

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
        change under later ones (issue 25 item 4) is several (:func:`.undoing_under.decide_all`)."""
        return undoing_under.decide_all(
            self, kind, body, client_id, seat, look_up=look_up, at_turn=at_turn, shares=shares
        )

    def undoes_under(self, kind: str, body: dict[str, Any]) -> bool:
        """Whether a request is an undo of a change under the table's last one: an action in
        effect since the last checkpoint, not the last (:meth:`decide_all` decides it)."""
        return undoing_under.undoes_under(self, kind, body)

    def take_one(self, event: Event) -> str:
        """Take in one event another server wrote, the next after the last one here (as
        :meth:`take_in`), and return its message for the phones. Does no I/O: an event that
        needs part of the log not in memory raises :class:`NeedsLog`, having changed nothing
        (read it off the event loop, :meth:`learn` it, and call again)."""
        return deciding.take_one(self, event)

    def commit(self, decision: Decision) -> None:
        """Note that the decision's event is in the store: new phones may now be shown it."""
        deciding.commit(self, decision)

    def learn(self, need: NeedsLog, found: Found) -> bool:
        """Take what the read ``need`` named found (made off the event loop), for the request
        to be decided again; ``False`` if the table changed since it was raised (the read is
        then dropped: deciding again asks for it again)."""
        return reading.learn(self, need, found)

    # -- undo (:mod:`.undoing`) ---------------------------------------------------------------

    def undo_owner(self, target: object) -> str | None:
        """The seat whose change an undo of ``target`` would take back, if ``target`` is the
        last action in effect (``None`` otherwise, or for a change no seat sent)."""
        return undoing.undo_owner(self, target)

    def undo_by(self, event: Event | None = None) -> str:
        """Who made a change (the last action in effect by default), as the history says it:
        "the table" for a table device's, else its seat's name."""
        return undoing.undo_by(self, event)

    # -- what a table shows (:mod:`.views`) ---------------------------------------------------

    def score(self) -> dict[str, Any]:
        """Where the match stands, as the engine scores it (100.6a): the current match's
        number, each side's wins, losses and draws in it (this game included once it is
        over), the side that has won it, if one has, and the matches each side has won."""
        return views.score(self)

    def record(self, number: int) -> dict[str, Any]:
        """The record (document shape) of game ``number`` of the match: its actions in effect,
        read from the store (only what is written: a change decided but not yet stored may
        still fail). Reads the game's whole log: call it off the event loop."""
        return views.record(self, number)

    def info(self, spectator: bool) -> dict[str, Any]:
        """The table's setup as a client needs it; a spectator does not learn the table's id
        or code (they would let them take a seat)."""
        return views.info(self, spectator)

    @property
    def view_text(self) -> str:
        """The view as of the last change written, as JSON text (made once per change, when
        a phone first asks for it)."""
        return views.view_text(self)

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """What a client needs to catch up after sequence number ``since``: the view as of
        the last event written to the store and the newest :data:`PAGE` entries after
        ``since`` (``more``: older ones exist; a client asks for them with :meth:`history`)."""
        return json.loads(self.snapshot_text(since))  # type: ignore[no-any-return]

    def snapshot_text(self, since: int = 0, **head: Any) -> str:
        """:meth:`snapshot` as JSON text, with ``head``'s members first, made from the cached
        texts of the view and the entries (a welcome costs no more than its size)."""
        return views.snapshot_text(self, since, **head)

    def history(self, before: int, limit: int = PAGE) -> dict[str, Any]:
        """A page of older entries: the newest ``limit`` (at most :data:`PAGE`) with a sequence
        number below ``before``, oldest first, and whether there are older ones still."""
        return json.loads(self.history_text(before, limit))  # type: ignore[no-any-return]

    def history_text(self, before: int, limit: int = PAGE) -> str:
        """:meth:`history` as JSON text, made from the entries' texts."""
        return views.history_text(self, before, limit)

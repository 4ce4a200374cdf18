"""A table: its append-only log, and everything derived from it by the rules engine.

The log holds three kinds of event: ``action`` (a record action, applied by the engine),
``undo`` (takes back the last action of the current game that is still in effect) and
``next_game`` (starts the next game of the match). A game's record is its header plus the
actions still in effect, in log order; the engine replaying that record is the game's state.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from . import engine
from .changes import changes
from .errors import TableError, TableUnavailable
from .rights import Rights, concessions
from .store import DamagedError, Event, Store, TableRow
from .text import check_action_text

__all__ = ["ENTRY_BYTES", "PAGE", "PAGE_BYTES", "VIEW_BYTES", "Decision", "Entry", "Table"]

log = logging.getLogger("lifeledger_table")

#: How many refused client ids a table remembers, so that a retry gets the same answer.
REFUSALS_KEPT = 1000
#: The most timeline entries a welcome, a table's JSON or one history page carries.
PAGE = 200
#: The most bytes of entries a welcome or a history page carries (at least one entry).
PAGE_BYTES = 64 * 1024
#: The largest view (state, score, effects) and timeline entry a change may make, in bytes of
#: JSON: with a page, a welcome stays well under what a socket may queue (``Limits``).
VIEW_BYTES = 256 * 1024
ENTRY_BYTES = 128 * 1024
#: How many different proposals of an intentional draw a table keeps at once.
PROPOSALS_KEPT = 20


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
    notes: list[dict[str, str]] = field(default_factory=list)
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
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """A request the table accepted: its event (to be written), the timeline entry, the view
    after it, and the message for every phone as JSON text (to be sent once the event is
    written). The view is turned into text once per change, and serves all three."""

    event: Event
    entry: Entry
    view: dict[str, Any]
    view_text: str
    text: str


@dataclass(slots=True)
class _Step:
    """A change worked out in full, not yet taken into the table: :meth:`Table._adopt` takes
    it in with assignments only, so that a change either happens whole or not at all."""

    event: Event
    entry: Entry
    game: engine.Game
    state: dict[str, Any]
    #: For an undo: the sequence number it takes back; for a next game: the game's outcome.
    target: int | None = None
    outcome: engine.Outcome | None = None
    view: dict[str, Any] | None = None
    view_text: str = ""


class Table:
    """One table in memory: the live game of the current match game, and the timeline.

    Built from the store's log by :meth:`reload`; every change goes through :meth:`decide`
    (then the hub writes it and calls :meth:`commit`) or :meth:`submit` (both at once). A
    change is worked out in full first and taken into memory only if nothing failed.

    A table whose log can't be loaded keeps the error in :attr:`broken` and answers it to
    every request (:class:`TableUnavailable`) without loading the log again.
    """

    #: How many actions apart the checkpoints of the current game are.
    CHECKPOINT = 100

    def __init__(self, store: Store, table_id: str) -> None:
        self.store = store
        self.id = table_id
        self.reload()

    def _reset(self, row: TableRow | None) -> None:
        self.row = row or TableRow(self.id, "", "", {"header": {"players": []}}, 0.0)
        self.header: dict[str, Any] = self.row.setup["header"]
        self.labels: dict[str, str] = self.row.setup.get("labels", {})
        self.seats: dict[str, str] = {}
        teams = {p["id"]: p["team"] for p in self.header["players"] if p.get("team")}
        self.rights = Rights(teams, self.label)
        self.entries: list[Entry] = []
        #: The outcomes of the games before the current one, and the actions in effect in
        #: each of them.
        self.outcomes: list[engine.Outcome] = []
        self.past: list[list[Event]] = []
        #: The current game's actions in effect, in log order.
        self.effective: list[Event] = []
        #: Copies of the current game after every :attr:`CHECKPOINT` actions in effect (the
        #: first after CHECKPOINT, the second after twice as many, ...): an undo replays at
        #: most CHECKPOINT actions from the nearest one, however long the game.
        self.checkpoints: list[engine.Game] = []
        #: The sequence numbers of every action undone so far.
        self.undone: set[int] = set()
        self.client_ids: dict[str, int] = {}
        self.last_seq = 0
        self.committed = 0
        self._refusals: OrderedDict[str, TableError] = OrderedDict()
        #: Intentional draws proposed since the last change: the action -> who agreed.
        self._proposals: dict[str, set[str]] = {}
        self.view: dict[str, Any] = {}
        self.view_text = "{}"

    def reload(self) -> None:
        """Build everything in memory from the store's log (on first use, and after a failed
        write: whatever was decided but not written is forgotten). Raises :class:`KeyError` if
        the store has no such table; if the log can't be loaded, :attr:`broken` says why."""
        self.broken: TableUnavailable | None = None
        self._reset(None)
        try:
            row = self.store.table(self.id)
        except Exception as exc:
            self._break(None, exc)
            return
        if row is None:
            raise KeyError(self.id)
        event: Event | None = None
        try:
            self._reset(row)
            self.match = engine.Match(row.setup.get("best_of"))
            self.seats = self.store.seats(self.id)
            self.game = engine.new_game(self.header)
            self.state = engine.state_of(self.game)
            for event in self.store.events(self.id):
                self._adopt(self._prepare(event, None, live=False))
            event = None
            #: The last sequence number written to the store, and the view of the table after
            #: it: what a newly connected phone is shown (never anything not yet written).
            self.committed = self.last_seq
            self._set_view(self._view())
        except Exception as exc:
            self._break(event.seq if event is not None else self.last_seq + 1, exc)

    def _break(self, seq: int | None, exc: Exception) -> None:
        if isinstance(exc, DamagedError):
            seq = exc.seq
            reason = str(exc).split(" is damaged: ", 1)[-1]
            reason = f"is damaged: {reason}"
        elif isinstance(exc, TableError):
            reason = f"is refused: {exc.message}" + (f" ({exc.rule})" if exc.rule else "")
        elif isinstance(exc, engine.LifeledgerError):
            reason = f"is refused by the rules engine: {exc}"
        else:
            reason = f"can't be read ({type(exc).__name__}: {str(exc)[:200]})"
        self.broken = TableUnavailable(self.id, seq, reason)
        log.error("%s", self.broken.message)

    def check(self) -> None:
        """Raise :class:`TableUnavailable` if the table can't be used."""
        if self.broken is not None:
            raise self.broken

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
        score = self.match.score(outcomes, game.outcome(), ids)
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
        if not self.effective or concessions(self.effective[-1].body["action"]):
            return None
        return self.effective[-1].seq

    def can_undo(self) -> bool:
        """Whether the current game has an action that undo may take back."""
        return self.undo_target() is not None

    def record(self, number: int) -> dict[str, Any]:
        """The record (document shape) of game ``number`` of the match."""
        if not 1 <= number <= self.number:
            raise TableError("unknown-game", f"This table has no game {number}.")
        # Only what is written: a change decided but not yet stored may still fail.
        events = self.effective if number == self.number else self.past[number - 1]
        actions = [e.body["action"] for e in events if e.seq <= self.committed]
        return {
            "note": f"lifeledger table, game {number}",
            **self.header,
            "actions": actions,
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
                f"{self.label(seat)} agrees to a draw; it happens once "
                + " and ".join(self.label(p) for p in waiting)
                + " agree too (each sends the same).",
                rule="104.4i",
            )

    # -- changing the table -------------------------------------------------------------------

    def decide(
        self, kind: str, body: dict[str, Any], client_id: str, seat: str | None
    ) -> Decision | int:
        """Let the engine and the table decide a client's request, and take it into memory.

        Returns the :class:`Decision` (its event is to be written, then passed to :meth:`commit`),
        or, for a ``client_id`` seen before (a retry), the sequence number it got. Raises
        :class:`TableError` if the request is turned down (nothing changes); a retry of a
        turned-down request gets the same error. If the write then fails, :meth:`reload`.
        """
        self.check()
        earlier = self.client_ids.get(client_id)
        if earlier is not None:
            return earlier
        refused = self._refusals.get(client_id)
        if refused is not None:
            raise refused
        event = Event(
            table=self.id,
            seq=self.last_seq + 1,
            kind=kind,
            body=body,
            client_id=client_id,
            seat=seat,
            time=time.time(),
        )
        try:
            step = self._prepare(event, seat, live=True)
        except TableError as exc:
            self._refusals[client_id] = exc
            while len(self._refusals) > REFUSALS_KEPT:
                self._refusals.popitem(last=False)
            raise
        except Exception as exc:
            # Not a refusal: the engine failed. The live game may be half changed: rebuild it.
            log.exception("table %s: the engine failed on a %s", self.id, kind)
            if kind == "action":
                self._recover()
            raise TableError(
                "engine-failed", "The rules engine failed on this change; nothing changed."
            ) from exc
        self._adopt(step)
        assert step.view is not None
        text = (
            f'{{"type": "event", "seq": {event.seq}, "entry": {step.entry.text()}, '
            f"{step.view_text[1:]}"
        )
        return Decision(event, step.entry, step.view, step.view_text, text)

    def commit(self, decision: Decision) -> None:
        """Note that the decision's event is in the store: new phones may now be shown it."""
        self.committed = decision.event.seq
        self.view, self.view_text = decision.view, decision.view_text

    def submit(
        self, kind: str, body: dict[str, Any], client_id: str, seat: str | None
    ) -> tuple[Entry | None, int]:
        """Decide a request and write it at once (one request, one transaction).

        Returns ``(entry, seq)``; ``entry`` is ``None`` for a retry of a request that was
        accepted before. Raises :class:`TableError` if it is turned down.
        """
        decision = self.decide(kind, body, client_id, seat)
        if isinstance(decision, int):
            return None, decision
        try:
            self.store.append([decision.event])
        except BaseException:
            self.reload()
            raise
        self.commit(decision)
        return decision.entry, decision.event.seq

    def _game_after(self, kept: list[Event]) -> engine.Game:
        """The game after the actions ``kept`` (the first of those in effect), replayed from
        the nearest checkpoint: at most :attr:`CHECKPOINT` actions, however long the game."""
        usable = min(len(kept) // self.CHECKPOINT, len(self.checkpoints))
        if usable:
            game, start = self.checkpoints[usable - 1].copy(), usable * self.CHECKPOINT
        else:
            game, start = engine.new_game(self.header), 0
        return engine.resume(game, [e.body["action"] for e in kept[start:]], start)

    def _recover(self) -> None:
        """The live game again from the actions in effect (after the engine failed midway)."""
        try:
            self.game = self._game_after(self.effective)
            self.state = engine.state_of(self.game)
        except Exception as exc:
            self._break(self.last_seq, exc)

    def _prepare(self, event: Event, seat: str | None, *, live: bool) -> _Step:
        """Work out what ``event`` does, changing nothing in the table (only the live game, for
        an action the engine accepts: :meth:`_adopt` then takes it in, or the caller rebuilds
        the game). ``live``: a client's request (checked against its seat; a view is made), as
        opposed to an event of the log being loaded. Raises :class:`TableError` if the event
        may not be added."""
        if event.seq != self.last_seq + 1:
            raise TableError("malformed", f"is out of order (after event {self.last_seq})")
        if not isinstance(event.body, dict):
            raise TableError("malformed", "has no body (a JSON object)")
        entry = Entry(
            seq=event.seq, kind=event.kind, game=self.number, seat=event.seat, time=event.time
        )
        game = self.game
        target: int | None = None
        outcome: engine.Outcome | None = None
        last: Event | None = None
        if event.kind == "action":
            action = event.body.get("action")
            if not isinstance(action, dict):
                raise TableError("malformed", "An action is a JSON object.", member="action")
            position = len(self.effective)
            try:
                parsed = engine.parse(action, position)
            except engine.MalformedError as exc:
                raise TableError("malformed", exc.message, member=exc.member) from exc
            if live:
                check_action_text(action, "action")
                if seat is not None and self.rights.check(parsed, seat):
                    self._agree(action, seat)
            try:
                entry.notes = engine.apply(game, parsed, position)
            except engine.RefusedError as exc:
                if live and engine.state_of(game) != self.state:
                    self._recover()  # the engine promises nothing changed: make it so
                raise TableError("refused", exc.message, rule=exc.rule) from exc
            except engine.MalformedError as exc:
                if live and engine.state_of(game) != self.state:
                    self._recover()
                raise TableError("malformed", exc.message, member=exc.member) from exc
            entry.action = action
            last = event
        elif event.kind == "undo":
            target = self._undo_target(event.body, live)
            entry.target = target
            kept = self.effective[:-1]
            game = self._game_after(kept)
            last = kept[-1] if kept else None
        elif event.kind == "next_game":
            # After the game that decides a match, the next game begins the next match.
            if not self.state.get("over"):
                raise TableError(
                    "not-over", "This game isn't over yet: it ends with a win, a loss or a draw."
                )
            outcome = self.game.outcome()
            game = engine.new_game(self.header)
            entry.game = self.number + 1
        else:
            raise TableError("malformed", f"Unknown request {event.kind!r}.", member="type")
        state = engine.state_of(game)
        entry.changes = changes(self.state, state)
        view = None
        if live:
            outcomes = [*self.outcomes, outcome] if outcome is not None else self.outcomes
            can = last is not None and not concessions(last.body["action"])
            view = {
                "state": state,
                "score": self._score(outcomes, game, state),
                "can_undo": can,
                "undo_target": last.seq if can and last is not None else None,
                "effects": engine.effects(game),
            }
            view_text = json.dumps(view)
            if len(entry.text()) > ENTRY_BYTES or len(view_text) > VIEW_BYTES:
                # Every phone is sent every change: a state that only grows (new counter kinds,
                # effects, ...) would end up too large to send (found by an audit).
                if event.kind == "action":
                    self._recover()
                raise TableError(
                    "too-large",
                    "This change would make the table's state too large to send to the phones.",
                )
            return _Step(event, entry, game, state, target, outcome, view, view_text)
        return _Step(event, entry, game, state, target, outcome)

    def _undo_target(self, body: dict[str, Any], live: bool) -> int:
        """The action an undo takes back, or :class:`TableError` saying why it can't."""
        target = body.get("target")
        if target is None and not live:
            target = self.effective[-1].seq if self.effective else 0  # a log from before targets
        if isinstance(target, bool) or not isinstance(target, int):
            raise TableError(
                "malformed",
                'An undo names the action it takes back: "target" is its sequence number.',
                member="target",
            )
        if target in self.undone:
            raise TableError("already-undone", f"Event {target} has already been undone.")
        if not self.effective:
            raise TableError("nothing-to-undo", "There is nothing to undo in this game.")
        if target != self.effective[-1].seq:
            raise TableError(
                "not-last",
                f"Event {target} is not the last action in effect "
                f"(that is event {self.effective[-1].seq}); undo takes back the last one.",
            )
        if concessions(self.effective[-1].body["action"]):
            raise TableError("final", "A concession is final: it can't be undone.", rule="104.3a")
        return target

    def _adopt(self, step: _Step) -> None:
        """Take a worked-out change into the table (assignments only: nothing here fails)."""
        event = step.event
        if event.kind == "action":
            self.effective.append(event)
            if len(self.effective) % self.CHECKPOINT == 0:
                self.checkpoints.append(step.game.copy())
        elif event.kind == "undo":
            self.effective.pop()
            del self.checkpoints[len(self.effective) // self.CHECKPOINT :]
            assert step.target is not None
            self.undone.add(step.target)
        elif event.kind == "next_game":
            assert step.outcome is not None
            self.outcomes.append(step.outcome)
            self.past.append(self.effective)
            self.effective = []
            self.checkpoints = []
        self.game = step.game
        self.state = step.state
        self.entries.append(step.entry)
        self.client_ids[event.client_id] = event.seq
        self.last_seq = event.seq
        self._proposals.clear()

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
            "watch": self.row.watch,
            "catalogue": engine.catalogue(),
        }
        if not spectator:
            out["id"] = self.id
            out["code"] = self.row.code
        return out

    def _view(self) -> dict[str, Any]:
        return {
            "state": self.state,
            "score": self.score(),
            "can_undo": self.can_undo(),
            "undo_target": self.undo_target(),
            "effects": engine.effects(self.game),
        }

    def _set_view(self, view: dict[str, Any]) -> None:
        self.view = view
        self.view_text = json.dumps(view)

    def _page(self, after: int, before: int, limit: int) -> tuple[list[Entry], bool]:
        """The newest ``limit`` written entries with ``after < seq < before``, oldest first,
        at most :data:`PAGE_BYTES` of them (at least one), and whether older ones (still after
        ``after``) exist. Entry ``n`` is ``entries[n-1]``."""
        end = max(0, min(before - 1, self.committed))
        start = max(after, end - limit, 0)
        size = 0
        for index in range(end - 1, start - 1, -1):
            size += len(self.entries[index].text())
            if size > PAGE_BYTES and index < end - 1:
                start = index + 1
                break
        return self.entries[start:end], start > after

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """What a client needs to catch up after sequence number ``since``: the view as of
        the last event written to the store and the newest :data:`PAGE` entries after
        ``since`` (``more``: older ones exist; a client asks for them with :meth:`history`)."""
        self.check()
        entries, more = self._page(since, self.committed + 1, PAGE)
        return {
            "seq": self.committed,
            "since": since,
            "more": more,
            "entries": [e.to_json() for e in entries],
            **self.view,
        }

    def snapshot_text(self, since: int = 0, **head: Any) -> str:
        """:meth:`snapshot` as JSON text, with ``head``'s members first, made from the cached
        texts of the view and the entries (a welcome costs no more than its size)."""
        self.check()
        entries, more = self._page(since, self.committed + 1, PAGE)
        first = json.dumps({**head, "seq": self.committed, "since": since, "more": more})
        return (
            f'{first[:-1]}, "entries": [{", ".join(e.text() for e in entries)}], '
            f"{self.view_text[1:]}"
        )

    def history(self, before: int, limit: int = PAGE) -> dict[str, Any]:
        """A page of older entries: the newest ``limit`` (at most :data:`PAGE`) with a sequence
        number below ``before``, oldest first, and whether there are older ones still."""
        self.check()
        entries, more = self._page(0, before, max(0, min(limit, PAGE)))
        return {"type": "history", "entries": [e.to_json() for e in entries], "more": more}

    def history_text(self, before: int, limit: int = PAGE) -> str:
        """:meth:`history` as JSON text, made from the entries' cached texts."""
        self.check()
        entries, more = self._page(0, before, max(0, min(limit, PAGE)))
        joined = ", ".join(e.text() for e in entries)
        return f'{{"type": "history", "entries": [{joined}], "more": {json.dumps(more)}}}'

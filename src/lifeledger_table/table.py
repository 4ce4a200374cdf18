"""A table: its append-only log, and everything derived from it by the rules engine.

The log holds three kinds of event: ``action`` (a record action, applied by the engine),
``undo`` (takes back the last action of the current game that is still in effect) and
``next_game`` (starts the next game of the match). A game's record is its header plus the
actions still in effect, in log order; the engine replaying that record is the game's state.
"""

from __future__ import annotations

import time
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from . import engine
from .store import Event, Store

__all__ = ["Decision", "Entry", "Table", "TableError", "changes"]

#: How many refused client ids a table remembers, so that a retry gets the same answer.
REFUSALS_KEPT = 1000


class TableError(Exception):
    """A request the table turns down; nothing changed. ``rule`` is set for a rules refusal."""

    def __init__(
        self,
        code: str,
        message: str,
        rule: str | None = None,
        member: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.member = member

    def to_json(self) -> dict[str, Any]:
        """The error as sent to a client."""
        return {
            "error": self.code,
            "message": self.message,
            "rule": self.rule,
            "member": self.member,
        }


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
    """A request the table accepted: its event (to be written), the timeline entry, and the
    message for every phone (to be sent once the event is written)."""

    event: Event
    entry: Entry
    message: dict[str, Any]


def _concessions(action: dict[str, Any]) -> list[object]:
    """The players an action concedes for (inside ``together`` groups too)."""
    if action.get("do") == "concede":
        return [action.get("player")]
    inner = action.get("actions")
    if not isinstance(inner, list):
        return []
    return [p for a in inner if isinstance(a, dict) for p in _concessions(a)]


def _check_text(value: object, member: str) -> None:
    """Every string in an action is text to show: no markup, no control characters."""
    if isinstance(value, str):
        if "<" in value or ">" in value:
            raise TableError("malformed", f"{value!r} contains markup (< or >).", member=member)
        if any(unicodedata.category(c).startswith("C") for c in value):
            raise TableError("malformed", f"{value!r} contains control characters.", member=member)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, member)
            _check_text(item, f"{member}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_text(item, f"{member}[{index}]")


def _shared(team: dict[str, Any] | None, member: str) -> bool:
    return team is not None and team.get(member) is not None


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """What differs between two of the engine's states, for the timeline.

    Only a comparison of the engine's own figures: a shared team total is reported once, for
    the team, rather than once per head.
    """
    out: list[dict[str, Any]] = []
    old_teams = {t["id"]: t for t in before.get("teams", [])}
    new_teams = {t["id"]: t for t in after.get("teams", [])}
    for tid, team in new_teams.items():
        old = old_teams.get(tid, {})
        for member in ("life", "poison"):
            if team.get(member) is not None and team.get(member) != old.get(member):
                out.append(
                    {"team": tid, "what": member, "from": old.get(member), "to": team[member]}
                )
    old_players = {p["id"]: p for p in before.get("players", [])}
    for player in after.get("players", []):
        pid = player["id"]
        old = old_players.get(pid, {})
        team = new_teams.get(player.get("team") or "")
        for member in ("life", "poison", "library"):
            if _shared(team, member):
                continue
            if player.get(member) != old.get(member):
                out.append(
                    {"player": pid, "what": member, "from": old.get(member), "to": player[member]}
                )
        for group in ("counters", "commander_damage"):
            new_counts: dict[str, int] = player.get(group) or {}
            old_counts: dict[str, int] = old.get(group) or {}
            for key in sorted(set(new_counts) | set(old_counts)):
                if new_counts.get(key, 0) != old_counts.get(key, 0):
                    out.append(
                        {
                            "player": pid,
                            "what": group,
                            "key": key,
                            "from": old_counts.get(key, 0),
                            "to": new_counts.get(key, 0),
                        }
                    )
        if player.get("status") != old.get("status"):
            out.append(
                {
                    "player": pid,
                    "what": "status",
                    "from": old.get("status"),
                    "to": player.get("status"),
                    "reason": player.get("reason"),
                    "rule": player.get("rule"),
                }
            )
    if after.get("game") != before.get("game"):
        out.append({"what": "game", "from": before.get("game"), "to": after.get("game")})
    if after.get("over") and not before.get("over"):
        out.append({"what": "over", "to": True})
    old_triggers: dict[str, int] = before.get("triggered") or {}
    for key, count in (after.get("triggered") or {}).items():
        if count != old_triggers.get(key, 0):
            out.append(
                {"what": "triggered", "key": key, "from": old_triggers.get(key, 0), "to": count}
            )
    return out


class Table:
    """One table in memory: the live game of the current match game, and the timeline.

    Built from the store's log by :meth:`load`; every change goes through :meth:`submit`, which
    lets the engine decide, writes the event to the store, and only then changes memory.
    """

    def __init__(self, store: Store, table_id: str) -> None:
        self.store = store
        self.id = table_id
        self.reload()

    def reload(self) -> None:
        """Build everything in memory from the store's log (on first use, and after a failed
        write: whatever was decided but not written is forgotten)."""
        row = self.store.table(self.id)
        if row is None:
            raise KeyError(self.id)
        self.row = row
        self.header: dict[str, Any] = row.setup["header"]
        self.match = engine.Match(row.setup.get("best_of"))
        self.labels: dict[str, str] = row.setup.get("labels", {})
        self.seats: dict[str, str] = self.store.seats(self.id)
        self.entries: list[Entry] = []
        #: The outcomes of the games before the current one.
        self.outcomes: list[engine.Outcome] = []
        self.effective: list[Event] = []
        self.client_ids: dict[str, int] = {}
        self.game = engine.new_game(self.header)
        self.state = engine.state_of(self.game)
        self.last_seq = 0
        self._refusals: OrderedDict[str, TableError] = OrderedDict()
        for event in self.store.events(self.id):
            self._absorb(event)
        #: The last sequence number written to the store, and the view of the table after it:
        #: what a newly connected phone is shown (never anything not yet written).
        self.committed = self.last_seq
        self.view = self._view()

    # -- derived facts -------------------------------------------------------------------------

    @property
    def number(self) -> int:
        """The current game's number in the match, from 1."""
        return len(self.outcomes) + 1

    def player_ids(self) -> list[str]:
        """The players' ids, in seating order."""
        return [p["id"] for p in self.header["players"]]

    def sides(self) -> list[tuple[str, str]]:
        """The sides that score in a match: each team, and each player on no team, as
        ``(id, kind)``."""
        out: list[tuple[str, str]] = []
        seen: set[str] = set()
        for team in self.state.get("teams", []):
            out.append((team["id"], "team"))
            seen.update(team["players"])
        out.extend((pid, "player") for pid in self.player_ids() if pid not in seen)
        return out

    def score(self) -> dict[str, Any]:
        """Where the match stands, as the engine scores it (100.6a): the current match's
        number, each side's wins, losses and draws in it (this game included once it is
        over), the side that has won it, if one has, and the matches each side has won."""
        sides = self.sides()
        ids = [side for side, _ in sides]
        score = self.match.score(self.outcomes, self.game.outcome(), ids)
        return {
            "best_of": self.match.best_of,
            "game": self.number,
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

    def can_undo(self) -> bool:
        """Whether the current game has an action that undo may take back."""
        return bool(self.effective) and not _concessions(self.effective[-1].body["action"])

    def record(self, number: int) -> dict[str, Any]:
        """The record (document shape) of game ``number`` of the match."""
        if not 1 <= number <= self.number:
            raise TableError("unknown-game", f"This table has no game {number}.")
        actions = [e.body["action"] for e in self._effective_of(number)]
        return {
            "note": f"lifeledger table, game {number}",
            **self.header,
            "actions": actions,
        }

    def _effective_of(self, number: int) -> list[Event]:
        if number == self.number:
            # Only what is written: a change decided but not yet stored may still fail.
            return [e for e in self.effective if e.seq <= self.committed]
        kept: list[Event] = []
        game = 1
        for event in self.store.events(self.id):
            if event.kind == "next_game":
                game += 1
            elif game == number and event.kind == "action":
                kept.append(event)
            elif game == number and event.kind == "undo":
                kept.pop()
        return kept

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
        earlier = self.client_ids.get(client_id)
        if earlier is not None:
            return earlier
        refused = self._refusals.get(client_id)
        if refused is not None:
            raise refused
        try:
            notes = self._check(kind, body, seat)
        except TableError as exc:
            self._refusals[client_id] = exc
            while len(self._refusals) > REFUSALS_KEPT:
                self._refusals.popitem(last=False)
            raise
        event = Event(
            table=self.id,
            seq=self.last_seq + 1,
            kind=kind,
            body=body,
            client_id=client_id,
            seat=seat,
            time=time.time(),
        )
        entry = self._absorb(event, notes)
        return Decision(event=event, entry=entry, message=self.update(entry))

    def commit(self, decision: Decision) -> None:
        """Note that the decision's event is in the store: new phones may now be shown it."""
        self.committed = decision.event.seq
        self.view = {k: decision.message[k] for k in ("state", "score", "can_undo", "effects")}

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

    def _check(
        self, kind: str, body: dict[str, Any], seat: str | None
    ) -> list[dict[str, str]] | None:
        """Decide whether the event may be added. An action is applied to the live game (the
        caller rebuilds the game if the store then fails) and its consequences returned."""
        if kind == "action":
            action = body.get("action")
            if not isinstance(action, dict):
                raise TableError("malformed", "An action is a JSON object.", member="action")
            _check_text(action, "action")
            for player in _concessions(action):
                # 104.3a: a player concedes; no one else at the table can do it for them.
                if seat is not None and player != seat:
                    raise TableError(
                        "not-your-seat",
                        f"Only {self.label(str(player))} can concede for themselves.",
                        rule="104.3a",
                    )
            try:
                return engine.apply(self.game, action, len(self.effective))
            except engine.RefusedError as exc:
                raise TableError("refused", exc.message, rule=exc.rule) from exc
            except engine.MalformedError as exc:
                raise TableError("malformed", exc.message, member=exc.member) from exc
        elif kind == "undo":
            if not self.effective:
                raise TableError("nothing-to-undo", "There is nothing to undo in this game.")
            if not self.can_undo():
                raise TableError(
                    "final",
                    "A concession is final: it can't be undone.",
                    rule="104.3a",
                )
        elif kind == "next_game":
            # After the game that decides a match, the next game begins the next match.
            if not self.state.get("over"):
                raise TableError(
                    "not-over", "This game isn't over yet: it ends with a win, a loss or a draw."
                )
        else:
            raise TableError("malformed", f"Unknown request {kind!r}.", member="type")
        return None

    def _absorb(self, event: Event, notes: list[dict[str, str]] | None = None) -> Entry:
        """Take an event of the log into memory. ``notes``: the consequences of an action the
        live game has already applied (``None``: apply it now)."""
        before = self.state
        entry = Entry(
            seq=event.seq, kind=event.kind, game=self.number, seat=event.seat, time=event.time
        )
        if event.kind == "action":
            if notes is None:
                notes = engine.apply(self.game, event.body["action"], len(self.effective))
            entry.notes = notes
            self.effective.append(event)
            entry.action = event.body["action"]
        elif event.kind == "undo":
            taken = self.effective.pop()
            entry.target = taken.seq
            self._rebuild_game()
        elif event.kind == "next_game":
            self.outcomes.append(self.game.outcome())
            self.effective = []
            self.game = engine.new_game(self.header)
            entry.game = self.number
        self.state = engine.state_of(self.game)
        entry.changes = changes(before, self.state)
        self.entries.append(entry)
        self.client_ids[event.client_id] = event.seq
        self.last_seq = event.seq
        return entry

    def _rebuild_game(self) -> None:
        """The live game, from scratch: the engine replaying the actions in effect."""
        self.game = engine.replay(self.header, [e.body["action"] for e in self.effective])

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
            "effects": engine.effects(self.game),
        }

    def snapshot(self, since: int = 0) -> dict[str, Any]:
        """What a client needs to catch up after sequence number ``since``: the entries and
        the view as of the last event written to the store."""
        return {
            "seq": self.committed,
            "since": since,
            "entries": [e.to_json() for e in self.entries if since < e.seq <= self.committed],
            **self.view,
        }

    def update(self, entry: Entry) -> dict[str, Any]:
        """The message that tells every socket on the table about a new entry."""
        return {"type": "event", "seq": entry.seq, "entry": entry.to_json(), **self._view()}

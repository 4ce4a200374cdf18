"""Starting and pacing the game (docs/table.md): the table's shared tools, decided by the
server so that every phone at the table sees the same result.

- a random pick of who chooses the starting player (103.1; in Two-Headed Giant, a team:
  103.1a, and that team skips the draw step of its first turn, 810.6);
- dice of any size (2 to :data:`MAX_SIDES` sides, up to :data:`MAX_DICE` at once), a coin,
  and the planar die of Planechase (901.9: six faces, the planeswalker symbol on one, the
  chaos symbol on one, four blank);
- a turn timer or chess clock, one time per player (per team where teams share their turns);
- a tournament round timer (50 minutes unless told otherwise) that, once time is called,
  counts the turn in progress and the additional turns of the Magic Tournament Rules'
  end-of-match procedure (MTR 2.4: five, three for teams sharing turns), after which the page
  offers to record the game as a draw (``intentional_draw``, 104.4i, agreed at the table).

Randomness comes from :mod:`secrets`. The tools' state is kept in memory on the table
(:attr:`.table.Table.tools`) and in the store (one row a table, written with a version so
that servers sharing a store never overwrite each other's change), and every phone of the
table is sent it whole (``{"type": "tools", "tools": ..., "now": ms}``) after each change
(:mod:`lifeledger_table.live.toolmessages`). Times are the server's epoch milliseconds: every
phone shows the same countdown. This module decides; it sends nothing.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from lifeledger.sentences import Sentence

from ..store.records import Store
from . import engine
from .errors import TableError

__all__ = [
    "MAX_DICE",
    "MAX_SIDES",
    "PLANAR_FACES",
    "Seating",
    "ToolOp",
    "Tools",
    "decide",
    "load_tools",
    "parse",
    "round_phase",
]

log = logging.getLogger("lifeledger_table")

#: The most sides a die may have, and the most dice rolled at once.
MAX_SIDES = 1000
MAX_DICE = 20
#: How many results the table keeps (newest last), and how many client ids of tool messages
#: it remembers (a retry after a reconnect is applied once).
RECENT = 10
IDS_KEPT = 64
#: The planar die's six faces (901.9: one planeswalker symbol, one chaos symbol, four blank).
PLANAR_FACES = ("planeswalker", "chaos", "blank", "blank", "blank", "blank")
#: The round timer: its default length, and the additional turns once time is called (Magic
#: Tournament Rules 2.4, End-of-Match Procedure: five, three for teams sharing their turns).
ROUND_MINUTES = 50
EXTRA_TURNS = 5
TEAM_EXTRA_TURNS = 3
#: Bounds of what a phone may ask for.
MAX_ROUND_MINUTES = 600
MAX_EXTRA_TURNS = 10
MIN_CLOCK_SECONDS = 10
MAX_CLOCK_SECONDS = 24 * 3600

_SIDE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

TOOLS = ("roll", "coin", "first_player", "planar", "clock", "round")
_MEMBERS: dict[str, dict[str, set[str]]] = {
    "roll": {"": {"sides", "count"}},
    "coin": {"": set()},
    "first_player": {"": set()},
    "planar": {"": set()},
    "clock": {
        "start": {"mode", "seconds", "first"},
        "pass": {"to", "turn"},
        "pause": set(),
        "resume": set(),
        "stop": set(),
        "restart": {"game"},
    },
    "round": {
        "start": {"minutes", "extra_turns"},
        "pause": set(),
        "resume": set(),
        "extend": {"minutes"},
        "turn": set(),
        "stop": set(),
    },
}


class Seating(Protocol):
    """What the tools read of a table (:class:`.table.Table`): its players, its state, its
    games and their outcomes, and the players' labels."""

    @property
    def header(self) -> dict[str, Any]: ...
    @property
    def labels(self) -> dict[str, str]: ...
    @property
    def state(self) -> dict[str, Any]: ...
    @property
    def game(self) -> engine.Game: ...
    @property
    def outcomes(self) -> Sequence[engine.Outcome]: ...
    def label(self, side: str) -> str: ...


@dataclass(frozen=True, slots=True)
class ToolOp:
    """A tool message, checked in full: which tool, the operation (``""`` for the random
    tools) and its arguments."""

    tool: str
    op: str
    args: dict[str, Any]


def _one_of(words: Iterable[str]) -> str:
    return ", ".join(words)


def _malformed(message: str, member: str) -> TableError:
    return TableError("malformed", message, member=member)


def _whole(msg: dict[str, Any], member: str, low: int, high: int, default: int | None) -> int:
    value = msg.get(member, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise _malformed(
            Sentence(
                '"{member}" is a whole number from {low} to {high}.',
                member=member,
                low=low,
                high=high,
            ),
            member,
        )
    return value


def parse(msg: dict[str, Any]) -> ToolOp:
    """Check a tool message in full (before anything changes); raises ``malformed`` naming
    the member at fault."""
    tool = msg.get("tool")
    if tool not in TOOLS:
        raise _malformed(Sentence('"tool" is one of {names}.', names=_one_of(TOOLS)), "tool")
    ops = _MEMBERS[tool]
    op = ""
    if "" not in ops:
        found = msg.get("op")
        if not isinstance(found, str) or found not in ops:
            raise _malformed(
                Sentence('"op" of the {tool} is one of {names}.', tool=tool, names=_one_of(ops)),
                "op",
            )
        op = found
    allowed = {"type", "id", "tool"} | ({"op"} if op else set()) | ops[op]
    extra = sorted(set(msg) - allowed)
    if extra:
        what = f"{tool} {op}".strip()
        raise _malformed(
            Sentence("Unknown member {member} for the {what}.", member=repr(extra[0]), what=what),
            extra[0],
        )
    args: dict[str, Any] = {}
    if tool == "roll":
        args["sides"] = _whole(msg, "sides", 2, MAX_SIDES, None)
        args["count"] = _whole(msg, "count", 1, MAX_DICE, 1)
    elif tool == "clock" and op == "start":
        mode = msg.get("mode", "chess")
        if mode not in ("chess", "turn"):
            raise _malformed(
                Sentence('"mode" is "chess" (a time for the whole game) or "turn".'), "mode"
            )
        args["mode"] = mode
        args["seconds"] = _whole(msg, "seconds", MIN_CLOCK_SECONDS, MAX_CLOCK_SECONDS, None)
        args["first"] = _side(msg, "first")
    elif tool == "clock" and op == "pass":
        args["to"] = _side(msg, "to")
        # A phone following a turn names it: the clock goes with each turn once.
        args["turn"] = None if msg.get("turn") is None else _whole(msg, "turn", 1, 10**9, None)
    elif tool == "clock" and op == "restart":
        # The game that began (a reset, a new game, the next game): a phone following it names
        # it, so that every phone may ask and the clock restarts once per game.
        args["game"] = _whole(msg, "game", 1, 10**9, None)
    elif tool == "round" and op == "start":
        args["minutes"] = _whole(msg, "minutes", 1, MAX_ROUND_MINUTES, ROUND_MINUTES)
        args["extra_turns"] = (
            _whole(msg, "extra_turns", 0, MAX_EXTRA_TURNS, None) if "extra_turns" in msg else None
        )
    elif tool == "round" and op == "extend":
        args["minutes"] = _whole(msg, "minutes", 1, 60, None)
    return ToolOp(tool, op, args)


def _side(msg: dict[str, Any], member: str) -> str | None:
    value = msg.get(member)
    if value is None:
        return None
    if not isinstance(value, str) or not _SIDE.match(value):
        raise _malformed(
            Sentence('"{member}" is a player (or a team) of the table.', member=member), member
        )
    return value


@dataclass(slots=True)
class Tools:
    """A table's tools: the recent results, the clock and the round timer (``None``: not
    running), ``version`` (how many changes the store holds) and ``serial`` (the last
    result's number)."""

    version: int = 0
    serial: int = 0
    recent: list[dict[str, Any]] = field(default_factory=list)
    clock: dict[str, Any] | None = None
    round: dict[str, Any] | None = None
    ids: list[str] = field(default_factory=list)

    def dump(self) -> str:
        """The state as the store keeps it (JSON text)."""
        return json.dumps(
            {
                "serial": self.serial,
                "recent": self.recent,
                "clock": self.clock,
                "round": self.round,
                "ids": self.ids,
            },
            separators=(",", ":"),
        )

    @classmethod
    def load(cls, version: int, text: str) -> Tools:
        """The state the store keeps; a row that can't be read gives empty tools (they are
        not the game's log: nothing the rules decided is lost)."""
        try:
            data = json.loads(text)
            tools = cls(
                version,
                int(data["serial"]),
                [r for r in data["recent"] if isinstance(r, dict)][-RECENT:],
                data["clock"] if isinstance(data["clock"], dict) else None,
                data["round"] if isinstance(data["round"], dict) else None,
                [i for i in data["ids"] if isinstance(i, str)][-IDS_KEPT:],
            )
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            log.warning("the table's tools could not be read (%s): starting afresh", exc)
            return cls(version)
        return tools

    def copy(self) -> Tools:
        """A deep copy, to work a change out on."""
        return Tools.load(self.version, self.dump())

    def view(self, table: Seating, now: int) -> dict[str, Any]:
        """The tools as a phone is sent them, with the labels of the sides and what the round
        timer is at ``now``."""
        out: dict[str, Any] = {"recent": self.recent, "clock": None, "round": None}
        if self.clock is not None:
            clock = dict(self.clock)
            clock["sides"] = [{**s, "label": _label(table, s["id"])} for s in clock["sides"]]
            out["clock"] = clock
        if self.round is not None:
            out["round"] = {**self.round, "phase": round_phase(self.round, now)}
        return out


def _label(table: Seating, side: str) -> str:
    return table.labels.get(side) or table.label(side)


def load_tools(store: Store, table_id: str) -> Tools:
    """A table's tools as the store keeps them (empty if it has none)."""
    found = store.tools(table_id)
    return Tools() if found is None else Tools.load(*found)


# -- deciding a change --------------------------------------------------------------------


def shared_turns(table: Seating) -> bool:
    """Whether the table's teams share their turns (805.4: Two-Headed Giant, 810.2, and
    Archenemy, 904.2, as the engine's variant says): its clock and its starting pick are per
    team (103.1a)."""
    return table.game.variant.shared_turns


def sides(table: Seating) -> list[tuple[str, list[str]]]:
    """Who takes turns, in seating order: each team where teams share their turns, else each
    player; with the players of each."""
    if not shared_turns(table):
        return [(p["id"], [p["id"]]) for p in table.header["players"]]
    teams: dict[str, list[str]] = {}
    for p in table.header["players"]:
        teams.setdefault(p.get("team") or p["id"], []).append(p["id"])
    return list(teams.items())


def _playing(table: Seating, players: list[str]) -> bool:
    status = {p["id"]: p.get("status") for p in table.state.get("players", [])}
    return any(status.get(p, "playing") == "playing" for p in players)


def round_phase(timer: dict[str, Any], now: int) -> str:
    """Where a round timer is: ``running``, ``paused``, ``time`` (time was called: the turn in
    progress and the additional turns are being played) or ``over`` (they are over)."""
    if timer.get("ends_at") is None:
        return "paused" if timer.get("left_ms", 0) > 0 else _after_time(timer)
    if now < timer["ends_at"]:
        return "running"
    return _after_time(timer)


def _after_time(timer: dict[str, Any]) -> str:
    return "over" if timer["turns_done"] > timer["extra_turns"] else "time"


def decide(tools: Tools, op: ToolOp, by: str | None, table: Seating, now: int, cid: str) -> Tools:
    """The tools after ``op`` (a copy; ``tools`` is unchanged), sent by the seat ``by`` (a
    personal phone's) or by the table device (``None``: everyone plays on it, so no one seat
    rolled); raises :class:`TableError` if the table's state refuses it."""
    new = tools.copy()
    new.version += 1
    new.ids = [*new.ids, cid][-IDS_KEPT:]
    if op.tool in ("roll", "coin", "first_player", "planar"):
        result = _random(op, table)
        new.serial += 1
        new.recent = [*new.recent, {"n": new.serial, "by": by, "at": now, **result}][-RECENT:]
    elif op.tool == "clock":
        new.clock = _clock(tools.clock, op, table, now, tools.recent)
    else:
        new.round = _round(tools.round, op, table, now)
    return new


def _random(op: ToolOp, table: Seating) -> dict[str, Any]:
    if op.tool == "roll":
        values = [secrets.randbelow(op.args["sides"]) + 1 for _ in range(op.args["count"])]
        return {"tool": "roll", "sides": op.args["sides"], "values": values, "total": sum(values)}
    if op.tool == "coin":
        return {"tool": "coin", "value": secrets.choice(("heads", "tails"))}
    if op.tool == "planar":
        if table.header.get("format") != "planechase":
            raise TableError(
                "refused",
                Sentence(
                    "The planar die is rolled only in a Planechase game (this table's format "
                    "is {format}).",
                    format=str(table.header.get("format", "normal")),
                ),
                rule="901.9",
            )
        return {"tool": "planar", "value": secrets.choice(PLANAR_FACES), "rule": "901.9"}
    return _first_player(table)


def _first_player(table: Seating) -> dict[str, Any]:
    """103.1: a random pick of the starting player (103.1 lets the one picked choose another
    instead: the result says so). In Two-Headed Giant a team is picked (103.1a) and skips the
    draw step of its first turn (810.6); in a two-player game the starting player skips
    theirs (103.8a); in other multiplayer games nobody does (103.8c)."""
    archenemy = [p["id"] for p in table.header["players"] if p.get("archenemy")]
    if archenemy:
        raise TableError(
            "refused",
            Sentence(
                "In Archenemy, the archenemy ({player}) takes the first turn.",
                player=table.label(archenemy[0]),
            ),
            rule="103.1b",
        )
    found = sides(table)
    candidates = [s for s in found if _playing(table, s[1])] or found
    side, players = secrets.choice(candidates)
    label = _label(table, side)
    rule = table.game.first_draw_rule  # 103.8: the engine's, as the turn bar's
    if rule == "810.6":
        note = Sentence(
            "{team} take the first turn and skip the draw step of their first turn. ({team} "
            "may choose to let the other team start instead: then that team skips its first "
            "draw.)",
            team=label,
        )
        rules = ["103.1a", "810.6"]
    elif rule == "103.8a":
        note = Sentence(
            "{player} takes the first turn and skips the draw step of their first turn. "
            "({player} may choose to let the other player start instead.)",
            player=label,
        )
        rules = ["103.1", "103.8a"]
    else:
        note = Sentence(
            "{player} takes the first turn; no player skips the draw step of their first "
            "turn. ({player} may choose another player to start instead.)",
            player=label,
        )
        rules = ["103.1", "103.8c"]
    if any(o.over for o in table.outcomes):  # a game left unfinished is none (issue 17 item 3)
        note = Sentence(
            "{note} In a later game of a match, the loser of the previous game makes this "
            "choice (103.1).",
            note=note,
        )
    return {
        "tool": "first_player",
        "game": _game_number(table),  # the game it is for: a later game's clock ignores it
        "side": side,
        "kind": "team" if shared_turns(table) else "player",
        "players": players,
        "label": label,
        "skips_draw": rule != "103.8c",
        "note": note,
        "sentence": note.to_json(),  # the note in each phone's language (issue 20)
        "rules": rules,
    }


def _turn_side(table: Seating) -> str | None:
    """The side whose turn it is (a player, or a team where teams share their turns), or
    ``None`` before the first turn: one turn, one clock."""
    active = (table.state.get("turn") or {}).get("active") or []
    return next((side for side, players in sides(table) if set(players) & set(active)), None)


def _game_number(table: Seating) -> int:
    """The number of the table's game in progress (every game before it has an outcome, a game
    left unfinished by a reset or a new game too)."""
    return len(table.outcomes) + 1


def _first_side(table: Seating, recent: list[dict[str, Any]], ids: list[str]) -> str:
    """Whose time a clock starts with: the turn's side; before the first turn, the side the
    last pick made in this game chose (103.1; a pick made in an earlier game is not this
    game's), or the first seat."""
    turn = _turn_side(table)
    if turn is not None and turn in ids:
        return turn
    game = _game_number(table)
    picked = [
        r["side"]
        for r in recent
        if r.get("tool") == "first_player" and r.get("game", game) == game and r["side"] in ids
    ]
    return picked[-1] if picked else ids[0]


def _next_side(clock: dict[str, Any], table: Seating, after: str) -> str:
    """The side after ``after`` in turn order that is still in the game."""
    ids: list[str] = [str(s["id"]) for s in clock["sides"]]
    heads = dict(sides(table))
    start = ids.index(after) if after in ids else -1
    for step in range(1, len(ids) + 1):
        candidate = ids[(start + step) % len(ids)]
        if _playing(table, heads.get(candidate, [candidate])):
            return candidate
    return ids[(start + 1) % len(ids)]


def _clock(
    clock: dict[str, Any] | None,
    op: ToolOp,
    table: Seating,
    now: int,
    recent: list[dict[str, Any]],
) -> dict[str, Any] | None:
    if op.op == "start":
        per = op.args["seconds"] * 1000
        ids = [s for s, _ in sides(table)]
        first = op.args["first"] or _first_side(table, recent, ids)
        if first not in ids:
            raise TableError(
                "malformed",
                Sentence("{side} takes no turns at this table.", side=repr(first)),
                member="first",
            )
        return {
            "mode": op.args["mode"],
            "per_ms": per,
            "sides": [{"id": s, "left_ms": per} for s in ids],
            "active": first,
            "since": now,
            "turns": 0,
        }
    if clock is None:
        raise TableError("no-clock", Sentence("No clock is running: start one first."))
    if op.op == "stop":
        return None
    if op.op == "restart":
        # Issue 25 item 10: a reset, a new game or the next game begins a game: the clock (time
        # per game) stops, every side has its whole time again, and it is to start with who
        # starts that game. Once per game (every phone may ask), and only for the game in
        # progress (a reset already taken back restarts nothing).
        game = op.args["game"]
        if game != _game_number(table) or clock.get("game") == game:
            return clock
        ids = [str(s["id"]) for s in clock["sides"]]
        return {
            "mode": clock["mode"],
            "per_ms": clock["per_ms"],
            "sides": [{"id": s, "left_ms": clock["per_ms"]} for s in ids],
            "active": _first_side(table, recent, ids),
            "since": None,
            "turns": 0,
            "game": game,
        }
    clock = {**clock, "sides": [dict(s) for s in clock["sides"]]}
    running = clock["since"] is not None
    if op.op == "pause":
        if running:
            _spend(clock, now)
            clock["since"] = None
        return clock
    if op.op == "resume":
        if not running:
            clock["since"] = now
        return clock
    # pass: the active side's time stops, the next side's starts. A pass that follows a turn
    # (issue 17 item 13) is made once per turn, and not at all once a player passed by hand
    # during it: every phone may ask, and one may ask late.
    turn = (table.state.get("turn") or {}).get("number")
    follows = op.args.get("turn")
    if follows is not None and (follows != turn or clock.get("followed") == turn):
        return clock
    clock["followed"] = turn
    target = op.args["to"]
    ids = [s["id"] for s in clock["sides"]]
    if target is not None and target not in ids:
        raise TableError(
            "malformed",
            Sentence("{side} takes no turns at this table.", side=repr(target)),
            member="to",
        )
    if running:
        _spend(clock, now)
    if target is not None and target == clock["active"]:
        return clock  # already theirs: every phone following a turn may ask, one pass is made
    target = target or _next_side(clock, table, clock["active"])
    if clock["mode"] == "turn":
        for s in clock["sides"]:
            s["left_ms"] = clock["per_ms"]
    clock["active"] = target
    clock["turns"] = clock.get("turns", 0) + 1
    clock["since"] = now if running else None
    return clock


def _spend(clock: dict[str, Any], now: int) -> None:
    for s in clock["sides"]:
        if s["id"] == clock["active"]:
            s["left_ms"] -= max(0, now - clock["since"])


def _round(
    timer: dict[str, Any] | None, op: ToolOp, table: Seating, now: int
) -> dict[str, Any] | None:
    if op.op == "start":
        minutes = op.args["minutes"]
        extra = op.args["extra_turns"]
        if extra is None:
            extra = TEAM_EXTRA_TURNS if shared_turns(table) else EXTRA_TURNS
        return {
            "minutes": minutes,
            "extra_turns": extra,
            "started": now,
            "ends_at": now + minutes * 60_000,
            "left_ms": None,
            "turns_done": 0,
        }
    if timer is None:
        raise TableError("no-round", Sentence("No round timer is running: start one first."))
    if op.op == "stop":
        return None
    timer = dict(timer)
    phase = round_phase(timer, now)
    if op.op == "pause":
        if phase == "running":
            timer["left_ms"] = timer["ends_at"] - now
            timer["ends_at"] = None
        return timer
    if op.op == "resume":
        if phase == "paused":
            timer["ends_at"] = now + timer["left_ms"]
            timer["left_ms"] = None
        return timer
    if op.op == "extend":
        # A judge's time extension (a long ruling, a deck check): the end of the round moves.
        if phase not in ("running", "paused"):
            raise TableError(
                "round-over",
                Sentence("Time has been called: a time extension comes before that."),
            )
        # Bounded like a round's start: extension after extension never makes a round of
        # more than MAX_ROUND_MINUTES left (nor a time no phone can show).
        left = timer["left_ms"] if timer["ends_at"] is None else timer["ends_at"] - now
        added = op.args["minutes"] * 60_000
        if left + added > MAX_ROUND_MINUTES * 60_000:
            raise TableError(
                "too-long",
                Sentence(
                    "A round has at most {most} minutes left: this one has {left} and {more} "
                    "more would pass that.",
                    most=MAX_ROUND_MINUTES,
                    left=left // 60_000,
                    more=op.args["minutes"],
                ),
                member="minutes",
            )
        if timer["ends_at"] is None:
            timer["left_ms"] += added
        else:
            timer["ends_at"] += added
        return timer
    # turn: a turn ended after time was called (the turn in progress counts as turn 0).
    if phase in ("running", "paused"):
        raise TableError(
            "not-time",
            Sentence(
                "Time has not been called: turns are counted once the round's time is up "
                "(Magic Tournament Rules 2.4)."
            ),
        )
    if phase == "over":
        raise TableError(
            "turns-over",
            Sentence(
                "The additional turns are over: if no one has won, the game is a draw "
                "(Magic Tournament Rules 2.4)."
            ),
        )
    timer["turns_done"] += 1
    return timer

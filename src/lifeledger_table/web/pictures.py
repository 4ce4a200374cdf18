"""A picture of the game: the life graph of a match game and the table's statistics.

``GET /api/tables/{table}/games/{n}/series`` (spectators: ``/api/watch/{watch}/games/{n}/series``)
answers every player's total over game ``n``'s actions in effect, or, where a team shares its
life (810.9a, Two-Headed Giant), every team's, with a marker where a player or team lost, drew
or won, naming the reason and the rule. It is built from the timeline entries the store keeps
with each event (their ``changes``), not by replaying the game: an undo's entry names the
action it takes back, which leaves the series with everything it changed. A long game's series
stays small: past :data:`POINTS` points a line is decimated, keeping in each of
:data:`BUCKETS` stretches of the game its lowest and highest point and the last, every point
with a marker, and the ends. Totals are exact (a total may be any integer the record allows,
up to 10^1000): the page scales them.

``GET /api/tables/{table}/stats`` (and ``/api/watch/{watch}/stats``) answers the games won per
side (a team, or a player on no team: the sides a match scores, 100.6a) and how each game
ended, for the current match and the whole table, from the outcomes the table keeps.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide import engine
from ..decide.errors import TableError, TableUnavailable
from ..decide.limits import Throttle
from ..decide.table import Table
from ..store.records import Event, Store
from .requests import error_response, table_or_404, watched_or_404

__all__ = [
    "BUCKETS",
    "BUILDS",
    "CACHED",
    "CACHED_BYTES",
    "ENDINGS",
    "FOLDS",
    "MADE_KEY",
    "POINTS",
    "Fold",
    "Made",
    "add_routes",
    "category",
    "encode",
    "game_series",
    "life_at",
    "stats",
]

#: A line with more points than this is decimated.
POINTS = 180
#: The stretches a decimated line is cut into (each keeps at most three points).
BUCKETS = POINTS // 3
#: How many series a server keeps made (a finished game's never changes; the current game's
#: until its next event).
CACHED = 64
#: ... and at most this many bytes of them (twelve lines of thousand-digit totals make a
#: series of two megabytes).
CACHED_BYTES = 16 * 1024 * 1024
#: Series made at once (each in a worker thread of the pool the store's writes use too: a
#: burst of graphs asked for never takes every thread, nor stalls a table's writes).
BUILDS = 2
#: How many current games' folds a server keeps (each holds a step per action in effect).
FOLDS = 8
#: Series made from a game's whole log per client address in ten minutes (a series already
#: made costs nothing, nor does following the current game event by event).
MADE_PER_ADDRESS = 600
#: Series of the current game followed event by event, per client address in ten minutes
#: (each costs its new events, and the points of the whole game: a long game's is tens of
#: milliseconds of work; a page follows a game at the pace players act, far below this).
FOLLOWED_PER_ADDRESS = 3000

#: How a side's result came about, by the result's reason (lifeledger.outcome.Reason): the
#: cause of a loss or a draw. ``None``: the result follows from another side's (a teammate
#: lost, an opponent won, the last one standing...), not a cause of its own.
_CAUSES: dict[str, str | None] = {
    "life": "life",  # 704.5a
    "team-life": "life",  # 704.6a
    "poison": "poison",  # 704.5c
    "team-poison": "poison",  # 704.6b
    "commander-damage": "commander-damage",  # 704.6c
    "conceded": "concession",  # 104.3a, 810.8b
    "empty-library": "other",  # 704.5b
    "effect": "other",  # 104.3e, 104.2b
    "penalty": "other",  # 104.3k
    "loop": "draw",  # 104.4b
    "intentional": "draw",  # 104.4i
    "simultaneous-loss": "draw",  # 104.4a
    "teammate": None,  # 810.8a
    "emperor": None,  # 809.5
    "opponent-won": None,  # 104.3h
    "last-standing": None,  # 104.2a
    "team": None,  # 104.2c
}
#: The ways a game ends, in the order the statistics list them.
ENDINGS = ("life", "poison", "commander-damage", "concession", "draw", "other", "mixed")


# -- the series of a game -----------------------------------------------------------------------


@dataclass(slots=True)
class _Step:
    """An action in effect: its sequence number, and what it did to the units' totals and
    standings, as ``(unit, before, after)``."""

    seq: int
    life: list[tuple[str, Any, Any]] = field(default_factory=list)
    standing: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)


def _takes_back(undo: Event, seq: int) -> bool:
    """Whether an undo in a game's log takes back event ``seq``, the game's last action in
    effect (the undo of a reset or a new game is in the log of the game it brings back, and
    takes back nothing of it)."""
    target = undo.body.get("target") if isinstance(undo.body, dict) else None
    return target is None or target == seq


def _units(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The lines of the graph, in seating order: each team that shares its life (810.9a), and
    each player on no such team."""
    shared = [t for t in state["teams"] if t.get("life") is not None]
    heads = {p for t in shared for p in t["players"]}
    order = [p["id"] for p in state["players"]]
    out = [
        {"id": t["id"], "kind": "team", "players": list(t["players"]), "start": t["life"]}
        for t in shared
    ]
    out += [
        {"id": p["id"], "kind": "player", "players": [p["id"]], "start": p["life"]}
        for p in state["players"]
        if p["id"] not in heads
    ]
    return sorted(out, key=lambda u: order.index(u["players"][0]))


def _standing(item: dict[str, Any]) -> dict[str, Any]:
    return {"status": item.get("to"), "reason": item.get("reason"), "rule": item.get("rule")}


class Fold:
    """Game ``number``'s actions in effect, folded from its events in log order (an undo takes
    back the last one, and what it changed), as far as event :attr:`seq`: more events are
    folded in as they come, so that the current game's series costs its new events only.
    Not shared between threads without :attr:`lock`."""

    def __init__(self, header: dict[str, Any], number: int) -> None:
        self.header = header
        self.number = number
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        """Back to the game's start, nothing folded."""
        self.units = _units(engine.state_of(engine.new_game(self.header)))
        self.kinds = {u["id"]: u["kind"] for u in self.units}
        self.life = {u["id"]: u["start"] for u in self.units}
        self.standing = {u["id"]: _standing({"to": "playing"}) for u in self.units}
        self.steps: list[_Step] = []
        self.seq = 0

    def take(self, events: list[Event], committed: int) -> None:
        """Fold in the game's events after :attr:`seq` and up to ``committed`` (others are
        passed over). Raises :class:`TableError` (``unavailable``) for an event whose
        timeline entry was never derived."""
        for event in events:
            if event.seq <= self.seq or event.seq > committed or event.game != self.number:
                continue
            if event.kind == "undo" and self.steps and _takes_back(event, self.steps[-1].seq):
                step = self.steps.pop()
                for unit, before, _ in step.life:
                    self.life[unit] = before
                for unit, was, _ in step.standing:
                    self.standing[unit] = was
            elif event.kind == "action":
                if event.entry is None:
                    raise TableError(
                        "unavailable", Sentence("This game's timeline is still being derived.")
                    )
                self.steps.append(self._step(event.seq, json.loads(event.entry)))
            self.seq = event.seq

    def _step(self, seq: int, entry: dict[str, Any]) -> _Step:
        step = _Step(seq)
        for item in entry.get("changes", []):
            unit = item.get("team") if "team" in item else item.get("player")
            if unit not in self.kinds or ("team" in item) != (self.kinds[unit] == "team"):
                continue  # a head's own figures, where the team's total is the line
            if item["what"] == "life":
                step.life.append((unit, self.life[unit], item["to"]))
                self.life[unit] = item["to"]
            elif item["what"] == "status":
                step.standing.append((unit, self.standing[unit], _standing(item)))
                self.standing[unit] = _standing(item)
        return step

    def series(self) -> dict[str, Any]:
        """The series as folded so far."""
        units, steps = self.units, self.steps
        points: dict[str, list[list[Any]]] = {u["id"]: [[0, u["start"]]] for u in units}
        markers: list[dict[str, Any]] = []
        for x, step in enumerate(steps, 1):
            for unit, _, after in step.life:
                line = points[unit]
                if line[-1][0] == x:
                    line[-1][1] = after
                else:
                    line.append([x, after])
            for unit, _, now in step.standing:
                if now["status"] in ("lost", "drew", "won"):
                    total = points[unit][-1][1]  # the line holds its points up to x
                    markers.append({"x": x, "seq": step.seq, "unit": unit, **now, "life": total})
        keep: dict[str, set[int]] = {u["id"]: set() for u in units}
        for marker in markers:
            keep[marker["unit"]].add(marker["x"])
        out_units = []
        decimated = False
        for u in units:
            line = points[u["id"]]
            values = [v for _, v in line]
            shown = _decimate(line, len(steps), keep[u["id"]])
            decimated = decimated or len(shown) < len(line)
            out_units.append(
                {
                    **u,
                    "label": _label(self.header, u),
                    "end": values[-1],
                    "min": min(values),
                    "max": max(values),
                    **self.standing[u["id"]],
                    "changes": len(line) - 1,
                    "points": shown,
                }
            )
        return {
            "game": self.number,
            "seq": self.seq,
            "count": len(steps),
            "units": out_units,
            "markers": markers,
            "decimated": decimated,
        }


def game_series(
    store: Store, header: dict[str, Any], table_id: str, number: int, committed: int
) -> dict[str, Any]:
    """The series of game ``number`` of a table, from its events written up to ``committed``
    (reads the game's log: call it off the event loop). Raises :class:`TableError`
    (``unavailable``) if an event's timeline entry was never derived."""
    fold = Fold(header, number)
    fold.take(store.game_events(table_id, number), committed)
    return fold.series()


def life_at(line: list[list[Any]], x: int) -> Any:
    """A line's total after ``x`` actions in effect (a step line: a total holds until the
    next point)."""
    value = line[0][1]
    for px, v in line:
        if px > x:
            break
        value = v
    return value


def _label(header: dict[str, Any], unit: dict[str, Any]) -> str:
    names = {p["id"]: str(p.get("name") or p["id"]) for p in header["players"]}
    if unit["kind"] == "player":
        return names[unit["id"]]
    return " & ".join(names[p] for p in unit["players"])


def _decimate(line: list[list[Any]], count: int, keep: set[int]) -> list[list[Any]]:
    """A line of at most about :data:`POINTS` points (and its markers'): the first and the
    last point, and in each of :data:`BUCKETS` stretches of the game its lowest, its highest
    and its last point, and every point at ``keep``."""
    if len(line) <= POINTS:
        return line
    chosen = {0, len(line) - 1}
    best: dict[int, tuple[int, int, int]] = {}  # bucket -> (lowest, highest, last) indices
    for i, (x, v) in enumerate(line):
        if x in keep:
            chosen.add(i)
        b = x * BUCKETS // (count + 1)
        if b not in best:
            best[b] = (i, i, i)
            continue
        low, high, _ = best[b]
        best[b] = (
            i if v < line[low][1] else low,
            i if v > line[high][1] else high,
            i,
        )
    for trio in best.values():
        chosen.update(trio)
    return [line[i] for i in sorted(chosen)]


# -- statistics ---------------------------------------------------------------------------------


def category(reason: str | None) -> str | None:
    """The way a result came about, for the statistics: ``life``, ``poison``,
    ``commander-damage``, ``concession``, ``draw`` or ``other``; ``None`` for a result that
    follows from another side's (see :data:`_CAUSES`)."""
    if reason is None:
        return None
    return _CAUSES.get(reason, "other")


def _game(sides: list[tuple[str, str]], number: int, outcome: engine.Outcome) -> dict[str, Any]:
    """One game over: each side's result (with its reason, rule and cause), the winners, and
    how the game ended."""
    results = []
    for side, kind in sides:
        found = engine.Match.result_of(outcome, side)
        if found is None:
            continue
        reason = None if found.reason is None else found.reason.value
        results.append(
            {
                "side": side,
                "kind": kind,
                "status": found.status.value,
                "reason": reason,
                "rule": found.rule,
                "cause": category(reason) if found.status.value != "won" else None,
            }
        )
    winners = [r["side"] for r in results if r["status"] == "won"]
    causes = {r["cause"] for r in results if r["status"] in ("lost", "drew") and r["cause"]}
    if not winners and any(r["status"] == "drew" for r in results):
        ended = "draw"
    elif len(causes) == 1:
        ended = causes.pop()
    elif causes:
        ended = "mixed"  # several losses of different kinds (a game of more than two sides)
    else:
        ended = "other"  # only a winner's own result: an effect (104.2b)
    return {"game": number, "winners": winners, "ended": ended, "results": results}


def _tally(games: list[dict[str, Any]], sides: list[str]) -> dict[str, Any]:
    wins = dict.fromkeys(sides, 0)
    ended: dict[str, int] = {}
    losses: dict[str, int] = {}
    for game in games:
        for side in game["winners"]:
            wins[side] = wins.get(side, 0) + 1
        ended[game["ended"]] = ended.get(game["ended"], 0) + 1
        for result in game["results"]:
            if result["status"] == "lost" and result["cause"]:
                losses[result["cause"]] = losses.get(result["cause"], 0) + 1
    order = {name: i for i, name in enumerate(ENDINGS)}
    return {
        "games": len(games),
        "wins": wins,
        "ended": dict(sorted(ended.items(), key=lambda kv: order.get(kv[0], 99))),
        "losses": dict(sorted(losses.items(), key=lambda kv: order.get(kv[0], 99))),
    }


@dataclass(frozen=True, slots=True)
class _Games:
    """What the statistics are made of, taken from a table at one moment (on the event loop:
    the table changes there), so that they can be made off it."""

    sides: list[tuple[str, str]]
    labels: dict[str, str]
    over: list[engine.Outcome]
    number: int
    match: engine.Match
    score: dict[str, Any]


def _games(table: Table) -> _Games:
    table.check()
    sides = table.sides()
    over = list(table.outcomes)
    current = table.game.outcome()
    if current.over:
        over.append(current)
    labels = {side: table.label(side) for side, _ in sides}
    return _Games(sides, labels, over, table.number, table.match, table.score())


def stats(table: Table) -> dict[str, Any]:
    """The table's statistics: every game over (the current one too, once over), each in its
    match (a match ends with the game its winner needed, 100.6a), and the games won per side
    and how the games ended, for the current match and for the whole table."""
    return _tabulate(_games(table))


def _tabulate(found: _Games) -> dict[str, Any]:
    """The statistics of :func:`stats` (a step per game over: a long table's are made off the
    event loop)."""
    sides = [side for side, _ in found.sides]
    games: list[dict[str, Any]] = []
    match, in_match = 1, list[engine.Outcome]()
    for number, outcome in enumerate(found.over, 1):
        if not outcome.over:
            continue  # left unfinished by a reset or a new game: not scored (issue 17 item 3)
        game = _game(found.sides, number, outcome)
        game["match"] = match
        games.append(game)
        in_match.append(outcome)
        if found.match.winner(in_match, sides) is not None and number < found.number:
            match, in_match = match + 1, []
    score = found.score
    return {
        "best_of": found.match.best_of,
        "game": found.number,
        "sides": [
            {"id": side, "kind": kind, "label": found.labels[side]} for side, kind in found.sides
        ],
        "games": games,
        "match": {
            "number": score["match"],
            "winner": score["match_winner"],
            **_tally([g for g in games if g["match"] == score["match"]], sides),
        },
        "table": {
            **_tally(games, sides),
            "matches": {s["id"]: s["matches"] for s in score["sides"]},
        },
    }


# -- the routes ---------------------------------------------------------------------------------


class Made:
    """The series a server has made, newest last; the current games' folds (a new event costs
    only itself); and the budget for making new series (set up at the first series asked
    for, from :data:`MADE_PER_ADDRESS`, :data:`FOLLOWED_PER_ADDRESS` and :data:`BUILDS`)."""

    def __init__(self) -> None:
        self.series: OrderedDict[tuple[str, int, int], bytes] = OrderedDict()
        self.folds: OrderedDict[tuple[str, int], Fold] = OrderedDict()
        self.size = 0

    @functools.cached_property
    def throttle(self) -> Throttle:
        """New series made from a game's whole log, per address."""
        return Throttle(MADE_PER_ADDRESS, 600.0)

    @functools.cached_property
    def following(self) -> Throttle:
        """The current game's series followed event by event, per address."""
        return Throttle(FOLLOWED_PER_ADDRESS, 600.0)

    @functools.cached_property
    def builds(self) -> asyncio.Semaphore:
        """The series being made at once."""
        return asyncio.Semaphore(BUILDS)

    def keep(self, key: tuple[str, int, int], body: bytes) -> None:
        old = self.series.pop(key, None)
        self.size -= 0 if old is None else len(old)
        if len(body) > CACHED_BYTES:
            return
        self.series[key] = body
        self.size += len(body)
        while len(self.series) > CACHED or self.size > CACHED_BYTES:
            self.size -= len(self.series.popitem(last=False)[1])

    def fold(self, table: Table) -> Fold:
        """The current game's fold (a new one for a table whose setup is not the fold's)."""
        key = (table.id, table.number)
        found = self.folds.get(key)
        if found is None or found.header != table.header:
            found = self.folds[key] = Fold(table.header, table.number)
        self.folds.move_to_end(key)
        while len(self.folds) > FOLDS:
            self.folds.popitem(last=False)
        return found


def _current_series(fold: Fold, store: Store, table_id: str, committed: int) -> dict[str, Any]:
    """The current game's series: its fold, with the events written since (read off the
    event loop)."""
    with fold.lock:
        if fold.seq > committed:  # the table was reloaded behind what was folded: start over
            fold.reset()
        if fold.seq == 0:
            events = store.game_events(table_id, fold.number)
        else:
            events = store.events(table_id, fold.seq)
        fold.take(events, committed)
        return fold.series()


def _encoded(make: Callable[..., dict[str, Any]], *args: Any) -> bytes:
    """``make(*args)`` (a series or the statistics) as JSON bytes, by :func:`encode`: run
    off the event loop."""
    return encode(make(*args))


def encode(data: dict[str, Any]) -> bytes:
    """A series (or the statistics) as JSON bytes, written a point (a game) at a time.

    One ``json.dumps`` of a whole series is one call into C that holds the interpreter lock
    to its end, in a worker thread too: with twelve lines of totals of a thousand digits
    (107.1 allows them) that is a tenth of a second, in which the event loop, and every table
    with it, waits. Written a point at a time, the lock is given up between points, and the
    event loop waits a few milliseconds at most."""
    if "units" in data:
        return _pieces(data, "units", lambda unit: _pieces(unit, "points")).encode()
    return _pieces(data, "games").encode()


def _pieces(data: dict[str, Any], member: str, item: Callable[[Any], str] | None = None) -> str:
    """``data`` as JSON, its list ``member`` written an item at a time (by ``item``; by
    default, each as JSON)."""
    head = json.dumps({k: v for k, v in data.items() if k != member})
    items = ",".join([(item or json.dumps)(x) for x in data[member]])
    return f'{head[:-1]}{", " if len(head) > 2 else ""}"{member}": [{items}]}}'


MADE_KEY = web.AppKey("series", Made)
"""The series the app has made (one :class:`Made` a server, made by the composition root)."""


def _fail(status: int, code: str, message: str) -> web.Response:
    return error_response(status, code, message)


async def _series(request: web.Request, table: Table) -> web.Response:
    text = request.match_info["n"]
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        return _fail(404, "unknown-game", Sentence("No such game."))
    number = int(text)
    try:
        table.check()
    except TableUnavailable as exc:
        return web.json_response(exc.to_json(), status=503)
    if not 1 <= number <= table.number:
        return _fail(
            404, "unknown-game", Sentence("This table has no game {number}.", number=number)
        )
    # A finished game's series never changes: it is made once (the current game's, once per
    # event written).
    committed = table.committed
    key = (table.id, number, committed if number == table.number else -1)
    made = request.app[MADE_KEY]
    body = made.series.get(key)
    if body is None:
        # Following the current game costs its new events only: only a series made from the
        # game's whole log is budgeted.
        fold = made.folds.get((table.id, number))
        following = number == table.number and fold is not None
        budget = made.following if following else made.throttle
        if not budget.allow(request.remote or "?"):
            return _fail(
                429, "throttled", Sentence("Too many graphs asked for from here; wait a minute.")
            )
        # Made and written out as JSON off the event loop (a long game's totals may have a
        # thousand digits each: :func:`encode`), BUILDS at a time; one asked for again while
        # it waited its turn is made once.
        async with made.builds:
            found_meanwhile = made.series.get(key)
            try:
                if found_meanwhile is not None:
                    body = found_meanwhile
                elif number == table.number:
                    body = await asyncio.to_thread(
                        _encoded,
                        _current_series,
                        made.fold(table),
                        table.store,
                        table.id,
                        committed,
                    )
                else:
                    body = await asyncio.to_thread(
                        _encoded,
                        game_series,
                        table.store,
                        table.header,
                        table.id,
                        number,
                        committed,
                    )
            except TableError as exc:
                return web.json_response(exc.to_json(), status=503)
        made.keep(key, body)
    else:
        made.series.move_to_end(key)
    return web.Response(body=body, content_type="application/json")


async def _stats(request: web.Request, table: Table) -> web.Response:
    """The statistics, made off the event loop (a step per game: a table may have played
    thousands) and kept until the table's next event."""
    try:
        found = _games(table)
    except TableUnavailable as exc:
        return web.json_response(exc.to_json(), status=503)
    made = request.app[MADE_KEY]
    key = (table.id, -table.number, table.committed)  # apart from the series' keys
    kept = made.series.get(key)
    if kept is not None:
        made.series.move_to_end(key)
        return web.Response(body=kept, content_type="application/json")
    async with made.builds:
        kept = made.series.get(key)
        body = kept if kept is not None else await asyncio.to_thread(_encoded, _tabulate, found)
    made.keep(key, body)
    return web.Response(body=body, content_type="application/json")


async def table_series(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/games/{n}/series: the life graph's data of game n."""
    return await _series(request, await table_or_404(request))


async def watch_series(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}/games/{n}/series: the same, for a spectator."""
    return await _series(request, await watched_or_404(request))


async def table_stats(request: web.Request) -> web.Response:
    """GET /api/tables/{table}/stats: games won and how games ended, match and table."""
    return await _stats(request, await table_or_404(request))


async def watch_stats(request: web.Request) -> web.Response:
    """GET /api/watch/{watch}/stats: the same, for a spectator."""
    return await _stats(request, await watched_or_404(request))


def add_routes(router: web.UrlDispatcher) -> None:
    """The routes of the graph and the statistics."""
    router.add_get("/api/tables/{table}/games/{n}/series", table_series)
    router.add_get("/api/watch/{watch}/games/{n}/series", watch_series)
    router.add_get("/api/tables/{table}/stats", table_stats)
    router.add_get("/api/watch/{watch}/stats", watch_stats)

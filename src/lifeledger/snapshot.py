"""A game as data, and back: :func:`to_data` writes every attribute of a :class:`Game` as plain
JSON values (dicts, lists, strings, integers, booleans, ``None``), and :func:`from_data` reads
them back into a game that goes on exactly as :meth:`Game.copy` would (property-tested).

Reading builds nothing named by the data: the few classes a game holds (its players, teams and
totals, effects, triggers, the clock, the designations, the stack, results, sentences and
refusals) are made by this module's own code, each member checked for its type; enumerations
are found by their values, variants and formats by their names in the engine's tables, and the
history's actions by the record's parser. Data of any other shape raises :class:`SnapshotError`
naming where and what, and nothing is made of it.

Two attributes are not written, because they hold nothing between two actions: the journal
(what the action being applied changed, emptied as the next one begins) and the budget (the
work left to the action being applied; a copy's is new, as :meth:`Game.copy` makes it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .bounds import MAX_INTEGER
from .budget import Budget
from .core import _EFFECTS, _EVERYTHING, Note, _Event
from .effects import Effect, Kind, Reach
from .errors import MalformedError, RefusedError
from .formats import FORMATS, Format
from .formatting import format_action
from .game import Game
from .outcome import PLAYING, Outcome, Reason, Result, Status
from .parsing import parse_action
from .roster import Player, Team, Total
from .seats import Seat
from .sentences import Arg, Grouped, Id, Items, Sentence
from .stack import Stack, Trigger
from .turns import STEPS, Clock, Designations
from .variants import VARIANTS, Variant

__all__ = [
    "SNAPSHOT_VERSION",
    "SnapshotError",
    "from_data",
    "outcome_from_data",
    "outcome_to_data",
    "to_data",
]

#: The shape of the data :func:`to_data` writes; data of another is refused.
SNAPSHOT_VERSION = 1

T = TypeVar("T")


class SnapshotError(ValueError):
    """Data that is not a game :func:`to_data` wrote: ``where`` names the member (``players[1].
    life``), the message what is wrong with it."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"snapshot, {where}: {what}")
        self.where = where
        self.what = what


# -- writing ------------------------------------------------------------------------------------


def _arg(value: Arg) -> Any:
    """A sentence's argument (or a note's text) as data, its kind kept."""
    kind = type(value)
    if kind is str:
        return value
    if kind is Sentence:
        assert isinstance(value, Sentence)
        out: dict[str, Any] = {"msg": value.template}
        if value.args:
            out["args"] = {k: _arg(v) for k, v in value.args.items()}
        if value.plural is not None:
            out["plural"] = value.plural
        if value.count_by is not None:
            out["count"] = value.count_by
        return out
    if kind is Id:
        return {"id": str(value)}
    if kind is Grouped:
        assert isinstance(value, Grouped)
        return {"grouped": int(value)}
    if kind is int:
        return {"n": value}
    if kind is Items:
        assert isinstance(value, Items)
        return {"list": [_arg(v) for v in value], "sep": value.sep}
    raise SnapshotError("a sentence", f"an argument of type {kind.__name__} can't be written")


def _result(result: Result) -> list[Any]:
    return [
        result.status.value,
        None if result.reason is None else result.reason.value,
        result.rule,
    ]


def _seat(seat: Seat) -> dict[str, Any]:
    return {
        "id": seat.id,
        "name": seat.name,
        "team": seat.team,
        "library": seat.library,
        "life_modifier": seat.life_modifier,
        "commanders": list(seat.commanders),
        "archenemy": seat.archenemy,
        "emperor": seat.emperor,
        "range": seat.range,
    }


def _effect(effect: Effect) -> dict[str, Any]:
    affects = effect.affects
    return {
        "id": effect.id,
        "kind": effect.kind.value,
        "controller": effect.controller,
        "affects": affects.value if isinstance(affects, Reach) else list(affects),
        "factor": effect.factor,
        "life_at_least": effect.life_at_least,
        "until": effect.until,
        "card": effect.card,
    }


def _trigger(t: Trigger) -> list[Any]:
    return [t.id, t.controller, t.kind.value, t.amount, t.subject, t.target]


class _Table:
    """Objects numbered as they are first met, so that one object held in two places (a
    shared total, an effect in two indexes, a trigger waiting and merged) is one again."""

    def __init__(self, write: Callable[[Any], Any]) -> None:
        self.write = write
        self.index: dict[int, int] = {}
        self.rows: list[Any] = []

    def __call__(self, obj: object) -> int:
        found = self.index.get(id(obj))
        if found is None:
            found = self.index[id(obj)] = len(self.rows)
            self.rows.append(self.write(obj))
        return found


def to_data(game: Game) -> dict[str, Any]:
    """Every attribute of ``game`` (but its journal and budget: see the module's docstring) as
    plain JSON values; :func:`from_data` reads it back."""
    totals = _Table(lambda t: t.value)
    effects = _Table(_effect)
    triggers = _Table(_trigger)
    players = []
    for p in game._players.values():
        if p.seat is not game.seats[p.index] and p.seat != game.seats[p.index]:
            raise SnapshotError(f"players[{p.index}]", "its seat is not the game's")
        players.append(
            {
                "id": p.id,
                "team": p.team,
                "life": totals(p.life),
                "poison": totals(p.poison),
                "counters": dict(p.counters),
                "commander_damage": dict(p.commander_damage),
                "library": p.library,
                "drew_from_empty": p.drew_from_empty,
                "result": _result(p.result),
                "game": p.game,
            }
        )
    teams = [
        {
            "id": t.id,
            "members": [m.id for m in t.members],
            "shares_life": t.shares_life,
            "shares_poison": t.shares_poison,
            "poison_threshold": t.poison_threshold,
            "result": _result(t.result),
        }
        for t in game._teams.values()
    ]
    by_id = [[key, [effects(e) for e in listed]] for key, listed in game._effects.items()]
    by_kind = [[kind.value, [effects(e) for e in listed]] for kind, listed in game._by_kind.items()]
    clock = game._clock
    marks = game._marks
    stack = game._stack
    event = game._event
    other: list[Any] = []
    for mark in game._touched_other:
        if type(mark) is tuple:
            other.append({"team": mark[0]})
        else:
            other.append("effects" if mark == _EFFECTS else "everything")
    other.sort(key=repr)
    return {
        "snapshot": SNAPSHOT_VERSION,
        "version": game.version,
        "seats": [_seat(s) for s in game.seats],
        "variant": game.variant.name,
        "format": game.format.name,
        "starting_life": game.starting_life,
        "range_of_influence": game.range_of_influence,
        "history": (None if game.history is None else [format_action(a) for a in game.history]),
        "notes": [[n.rule, _arg(n.text)] for n in game.notes],
        "refusals": [[where, e.rule, _arg(e.message)] for where, e in game.refusals],
        "game_number": game.game_number,
        "triggered": dict(game.triggered),
        "players": players,
        "totals": totals.rows,
        "teams": teams,
        "effects": by_id,
        "by_kind": by_kind,
        "effect_table": effects.rows,
        "known_ids": sorted(game._known_ids),
        "event": None
        if event is None
        else {
            "frozen_life": event.frozen_life,
            "wins": list(event.wins),
            "losses": {k: _result(r) for k, r in event.losses.items()},
            "draws": [[None if w is None else sorted(w), _result(r)] for w, r in event.draws],
            "lifelink": sorted([a, b] for a, b in event.lifelink),
        },
        "dirty": None if game._dirty is None else sorted(p.id for p in game._dirty),
        "in_range": {k: sorted(v) for k, v in game._in_range.items()},
        "over": game._over,
        "touched": sorted(game._touched),
        "touched_other": other,
        "clock": {
            "number": clock.number,
            "player": clock.player,
            "active": list(clock.active),
            "team": clock.team,
            "step": clock.step,
            "spells": dict(clock.spells),
            "starting": clock.starting,
            "rule": clock.rule,
        },
        "designations": {
            "monarch": marks.monarch,
            "initiative": marks.initiative,
            "day_night": marks.day_night,
            "city_blessing": sorted(marks.city_blessing),
            "pending": [list(p) for p in marks.pending],
        },
        "stack": {
            "pending": [triggers(t) for t in stack.pending],
            "items": [triggers(t) for t in stack.items],
            "merge": [[list(k), [triggers(t) for t in ts]] for k, ts in stack.merge.items()],
            "order": {k: list(v) for k, v in stack.order.items()},
            "targets": {k: list(v) for k, v in stack.targets.items()},
            "replacements": {k: list(v) for k, v in stack.replacements.items()},
            "omens": dict(stack.omens),
            "resolved": stack.resolved,
            "triggers": triggers.rows,
        },
    }


def outcome_to_data(outcome: Outcome) -> dict[str, Any]:
    """An :class:`Outcome` as plain JSON values (:func:`outcome_from_data` reads it back)."""
    return {
        "over": outcome.over,
        "game": outcome.game,
        "results": {k: _result(r) for k, r in outcome.results.items()},
        "team_results": {k: _result(r) for k, r in outcome.team_results.items()},
    }


# -- reading ------------------------------------------------------------------------------------


def _what(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:60]}…"


def _object(value: object, where: str, members: tuple[str, ...]) -> dict[str, Any]:
    """``value``: an object with exactly ``members``."""
    if type(value) is not dict:
        raise SnapshotError(where, f"an object, not {_what(value)}")
    if set(value) != set(members):
        missing = sorted(set(members) - set(value))
        extra = sorted(str(k) for k in set(value) - set(members))
        raise SnapshotError(where, f"members missing {missing}, unknown {extra}")
    return value


def _int(value: object, where: str, low: int = -MAX_INTEGER) -> int:
    if type(value) is not int:
        raise SnapshotError(where, f"an integer, not {_what(value)}")
    if not low <= value <= MAX_INTEGER:
        raise SnapshotError(where, f"an integer from {low} to 10^1000, not {_what(value)}")
    return value


def _str(value: object, where: str) -> str:
    if type(value) is not str:
        raise SnapshotError(where, f"a string, not {_what(value)}")
    return value


def _bool(value: object, where: str) -> bool:
    if type(value) is not bool:
        raise SnapshotError(where, f"true or false, not {_what(value)}")
    return value


def _maybe(read: Callable[[object, str], T]) -> Callable[[object, str], T | None]:
    def maybe(value: object, where: str) -> T | None:
        return None if value is None else read(value, where)

    return maybe


_opt_int = _maybe(_int)
_opt_str = _maybe(_str)


def _list(value: object, where: str, read: Callable[[object, str], T]) -> list[T]:
    if type(value) is not list:
        raise SnapshotError(where, f"a list, not {_what(value)}")
    return [read(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _strs(value: object, where: str) -> list[str]:
    return _list(value, where, _str)


def _row(value: object, where: str, length: int) -> list[Any]:
    if type(value) is not list or len(value) != length:
        raise SnapshotError(where, f"a list of {length}, not {_what(value)}")
    return value


def _mapping(value: object, where: str, read: Callable[[object, str], T]) -> dict[str, T]:
    if type(value) is not dict:
        raise SnapshotError(where, f"an object, not {_what(value)}")
    return {_str(k, where): read(v, f"{where}.{k}") for k, v in value.items()}


def _counts(value: object, where: str) -> dict[str, int]:
    return _mapping(value, where, lambda v, w: _int(v, w, 0))


def _enum(kind: type[T], value: object, where: str) -> T:
    try:
        return kind(_str(value, where))  # type: ignore[call-arg]
    except ValueError:
        raise SnapshotError(where, f"no {kind.__name__} is {_what(value)}") from None


def _index(value: object, where: str, rows: list[T]) -> T:
    index = _int(value, where, 0)
    if index >= len(rows):
        raise SnapshotError(where, f"no entry {index} (there are {len(rows)})")
    return rows[index]


def _read_result(value: object, where: str) -> Result:
    status, reason, rule = _row(value, where, 3)
    made = Result(
        _enum(Status, status, f"{where}[0]"),
        None if reason is None else _enum(Reason, reason, f"{where}[1]"),
        _opt_str(rule, f"{where}[2]"),
    )
    return PLAYING if made == PLAYING else made


def _read_arg(value: object, where: str, depth: int = 0) -> Arg:
    if type(value) is str:
        return value
    if depth > 20:
        raise SnapshotError(where, "sentences nested more than 20 deep")
    if type(value) is dict and len(value) == 1:
        ((key, inner),) = value.items()
        if key == "id":
            return Id(_str(inner, f"{where}.id"))
        if key == "grouped":
            return Grouped(_int(inner, f"{where}.grouped"))
        if key == "n":
            return _int(inner, f"{where}.n")
    if type(value) is dict and set(value) == {"list", "sep"}:
        items = _list(value["list"], f"{where}.list", lambda v, w: _read_arg(v, w, depth + 1))
        return Items(items, _str(value["sep"], f"{where}.sep"))
    if type(value) is dict and "msg" in value and set(value) <= {"msg", "args", "plural", "count"}:
        args = _mapping(
            value.get("args", {}), f"{where}.args", lambda v, w: _read_arg(v, w, depth + 1)
        )
        return Sentence._make(
            _str(value["msg"], f"{where}.msg"),
            _opt_str(value.get("plural"), f"{where}.plural"),
            _opt_str(value.get("count"), f"{where}.count"),
            args,
        )
    raise SnapshotError(where, f"a sentence or its argument, not {_what(value)}")


def _read_text(value: object, where: str) -> str:
    text = _read_arg(value, where)
    if not isinstance(text, str):
        raise SnapshotError(where, f"words, not {_what(value)}")
    return text


def _read_seat(value: object, where: str) -> Seat:
    v = _object(value, where, tuple(_seat(Seat("x"))))
    try:
        return Seat(
            _str(v["id"], f"{where}.id"),
            _opt_str(v["name"], f"{where}.name"),
            _opt_str(v["team"], f"{where}.team"),
            _opt_int(v["library"], f"{where}.library"),
            _opt_int(v["life_modifier"], f"{where}.life_modifier"),
            tuple(_strs(v["commanders"], f"{where}.commanders")),
            _bool(v["archenemy"], f"{where}.archenemy"),
            _bool(v["emperor"], f"{where}.emperor"),
            _opt_int(v["range"], f"{where}.range"),
        )
    except MalformedError as exc:
        raise SnapshotError(where, str(exc)) from None


def _read_effect(value: object, where: str) -> Effect:
    v = _object(
        value,
        where,
        ("id", "kind", "controller", "affects", "factor", "life_at_least", "until", "card"),
    )
    affects: Reach | tuple[str, ...] = (
        tuple(_strs(v["affects"], f"{where}.affects"))
        if type(v["affects"]) is list
        else _enum(Reach, v["affects"], f"{where}.affects")
    )
    return Effect(
        _str(v["id"], f"{where}.id"),
        _enum(Kind, v["kind"], f"{where}.kind"),
        _str(v["controller"], f"{where}.controller"),
        affects,
        _opt_int(v["factor"], f"{where}.factor"),
        _opt_int(v["life_at_least"], f"{where}.life_at_least"),
        _opt_str(v["until"], f"{where}.until"),
        _opt_str(v["card"], f"{where}.card"),
    )


def _read_trigger(value: object, where: str) -> Trigger:
    id_, controller, kind, amount, subject, target = _row(value, where, 6)
    return Trigger(
        _str(id_, f"{where}[0]"),
        _str(controller, f"{where}[1]"),
        _enum(Kind, kind, f"{where}[2]"),
        _int(amount, f"{where}[3]"),
        _str(subject, f"{where}[4]"),
        _opt_str(target, f"{where}[5]"),
    )


_MEMBERS = (
    "snapshot",
    "version",
    "seats",
    "variant",
    "format",
    "starting_life",
    "range_of_influence",
    "history",
    "notes",
    "refusals",
    "game_number",
    "triggered",
    "players",
    "totals",
    "teams",
    "effects",
    "by_kind",
    "effect_table",
    "known_ids",
    "event",
    "dirty",
    "in_range",
    "over",
    "touched",
    "touched_other",
    "clock",
    "designations",
    "stack",
)


def _named(table: Mapping[str, type[T]], value: object, where: str) -> T:
    found = table.get(_str(value, where))
    if found is None:
        raise SnapshotError(where, f"no such name: {_what(value)}")
    return found()


def from_data(data: object) -> Game:
    """The game :func:`to_data` wrote as ``data``. Raises :class:`SnapshotError` (a
    :class:`ValueError`) for data of any other shape or version, naming where and what."""
    d = _object(data, "the game", _MEMBERS)
    if d["snapshot"] != SNAPSHOT_VERSION or type(d["snapshot"]) is not int:
        raise SnapshotError("snapshot", f"version {SNAPSHOT_VERSION}, not {_what(d['snapshot'])}")
    seats = _list(d["seats"], "seats", _read_seat)
    variant: Variant = _named(VARIANTS, d["variant"], "variant")
    format: Format = _named(FORMATS, d["format"], "format")
    history = d["history"]
    try:
        game = Game(
            seats,
            variant,
            format,
            starting_life=_opt_int(d["starting_life"], "starting_life"),
            range_of_influence=_opt_int(d["range_of_influence"], "range_of_influence"),
            keep_history=history is not None,
            version=_int(d["version"], "version"),
        )
    except MalformedError as exc:  # the seats, variant and format don't make a game
        raise SnapshotError("the game", str(exc)) from None
    if history is not None:
        actions = _list(history, "history", lambda v, w: v)
        try:
            game.history = [parse_action(a, str(i)) for i, a in enumerate(actions)]
        except MalformedError as exc:
            raise SnapshotError("history", str(exc)) from None
    game.notes = [
        Note(_str(rule, f"notes[{i}][0]"), _read_text(text, f"notes[{i}][1]"))
        for i, (rule, text) in enumerate(_list(d["notes"], "notes", lambda v, w: _row(v, w, 2)))
    ]
    game.refusals = [
        (
            _str(where, f"refusals[{i}][0]"),
            RefusedError(_str(rule, f"refusals[{i}][1]"), _read_text(text, f"refusals[{i}][2]")),
        )
        for i, (where, rule, text) in enumerate(
            _list(d["refusals"], "refusals", lambda v, w: _row(v, w, 3))
        )
    ]
    game.game_number = _int(d["game_number"], "game_number", 1)
    game.triggered = _counts(d["triggered"], "triggered")

    totals = [Total(v) for v in _list(d["totals"], "totals", _int)]
    players: dict[str, Player] = {}
    listed = _list(d["players"], "players", lambda v, w: v)
    if len(listed) != len(game.seats):
        raise SnapshotError("players", f"one for each of the {len(game.seats)} seats")
    for index, (seat, value) in enumerate(zip(game.seats, listed, strict=True)):
        where = f"players[{index}]"
        v = _object(
            value,
            where,
            (
                "id",
                "team",
                "life",
                "poison",
                "counters",
                "commander_damage",
                "library",
                "drew_from_empty",
                "result",
                "game",
            ),
        )
        if v["id"] != seat.id:
            raise SnapshotError(f"{where}.id", f"{seat.id!r}, the seat's, not {_what(v['id'])}")
        p = Player(seat, index, _opt_str(v["team"], f"{where}.team"))
        p.life = _index(v["life"], f"{where}.life", totals)
        p.poison = _index(v["poison"], f"{where}.poison", totals)
        p.counters = _counts(v["counters"], f"{where}.counters")
        p.commander_damage = _counts(v["commander_damage"], f"{where}.commander_damage")
        p.library = _opt_int(v["library"], f"{where}.library")
        p.drew_from_empty = _bool(v["drew_from_empty"], f"{where}.drew_from_empty")
        p.result = _read_result(v["result"], f"{where}.result")
        p.game = _int(v["game"], f"{where}.game", 1)
        players[p.id] = p
    game._players = players

    def player(value: object, where: str) -> Player:
        found = players.get(_str(value, where))
        if found is None:
            raise SnapshotError(where, f"no player is {_what(value)}")
        return found

    def player_id(value: object, where: str) -> str:
        return player(value, where).id

    teams: dict[str, Team] = {}
    for index, value in enumerate(_list(d["teams"], "teams", lambda v, w: v)):
        where = f"teams[{index}]"
        v = _object(
            value,
            where,
            ("id", "members", "shares_life", "shares_poison", "poison_threshold", "result"),
        )
        team = Team(_str(v["id"], f"{where}.id"), _list(v["members"], f"{where}.members", player))
        team.shares_life = _bool(v["shares_life"], f"{where}.shares_life")
        team.shares_poison = _bool(v["shares_poison"], f"{where}.shares_poison")
        team.poison_threshold = _int(v["poison_threshold"], f"{where}.poison_threshold", 1)
        team.result = _read_result(v["result"], f"{where}.result")
        teams[team.id] = team
    for p in players.values():
        if p.team is not None and p not in teams.get(p.team, Team("", [])).members:
            raise SnapshotError(f"players[{p.index}].team", f"no team {p.team!r} lists them")
    game._teams = teams

    effect_table = _list(d["effect_table"], "effect_table", _read_effect)

    def effects(value: object, where: str) -> list[Effect]:
        return _list(value, where, lambda v, w: _index(v, w, effect_table))

    game._effects = {
        _str(key, f"effects[{i}][0]"): effects(listed, f"effects[{i}][1]")
        for i, (key, listed) in enumerate(
            _list(d["effects"], "effects", lambda v, w: _row(v, w, 2))
        )
    }
    game._by_kind = {
        _enum(Kind, kind, f"by_kind[{i}][0]"): effects(listed, f"by_kind[{i}][1]")
        for i, (kind, listed) in enumerate(
            _list(d["by_kind"], "by_kind", lambda v, w: _row(v, w, 2))
        )
    }
    game._known_ids = set(_strs(d["known_ids"], "known_ids"))
    game._event = None if d["event"] is None else _read_event(d["event"], player_id)
    game._journal = []
    game._dirty = None if d["dirty"] is None else set(_list(d["dirty"], "dirty", player))
    game._in_range = {
        player_id(k, "in_range"): frozenset(_list(v, f"in_range.{k}", player_id))
        for k, v in _mapping(d["in_range"], "in_range", lambda v, w: v).items()
    }
    game._over = _bool(d["over"], "over")
    game._touched = set(_list(d["touched"], "touched", player_id))
    game._touched_other = set(_list(d["touched_other"], "touched_other", _read_mark))
    game._clock = _read_clock(d["clock"], player_id)
    game._marks = _read_designations(d["designations"], player_id)
    game._stack = _read_stack(d["stack"], player_id)
    game._budget = Budget()
    return game


def _read_mark(value: object, where: str) -> object:
    if value == "effects":
        return _EFFECTS
    if value == "everything":
        return _EVERYTHING
    return (_str(_object(value, where, ("team",))["team"], f"{where}.team"),)


def _read_event(value: object, player_id: Callable[[object, str], str]) -> _Event:
    v = _object(value, "event", ("frozen_life", "wins", "losses", "draws", "lifelink"))
    frozen = v["frozen_life"]
    event = _Event(None if frozen is None else _mapping(frozen, "event.frozen_life", _int))
    event.wins = _list(v["wins"], "event.wins", player_id)
    event.losses = _mapping(v["losses"], "event.losses", _read_result)
    for i, row in enumerate(_list(v["draws"], "event.draws", lambda v, w: _row(v, w, 2))):
        who = (
            None if row[0] is None else frozenset(_list(row[0], f"event.draws[{i}][0]", player_id))
        )
        event.draws.append((who, _read_result(row[1], f"event.draws[{i}][1]")))
    for i, row in enumerate(_list(v["lifelink"], "event.lifelink", lambda v, w: _row(v, w, 2))):
        event.lifelink.add(
            (_str(row[0], f"event.lifelink[{i}]"), _str(row[1], f"event.lifelink[{i}]"))
        )
    return event


def _read_clock(value: object, player_id: Callable[[object, str], str]) -> Clock:
    v = _object(
        value,
        "clock",
        ("number", "player", "active", "team", "step", "spells", "starting", "rule"),
    )
    clock = Clock(_maybe(player_id)(v["starting"], "clock.starting"), _str(v["rule"], "clock.rule"))
    clock.number = _int(v["number"], "clock.number", 0)
    clock.player = _maybe(player_id)(v["player"], "clock.player")
    clock.active = tuple(_list(v["active"], "clock.active", player_id))
    clock.team = _opt_str(v["team"], "clock.team")
    clock.step = _int(v["step"], "clock.step", 0)
    if clock.step >= len(STEPS):
        raise SnapshotError("clock.step", f"a step from 0 to {len(STEPS) - 1}")
    clock.spells = _counts(v["spells"], "clock.spells")
    return clock


def _read_designations(value: object, player_id: Callable[[object, str], str]) -> Designations:
    v = _object(
        value, "designations", ("monarch", "initiative", "day_night", "city_blessing", "pending")
    )
    marks = Designations()
    marks.monarch = _maybe(player_id)(v["monarch"], "designations.monarch")
    marks.initiative = _maybe(player_id)(v["initiative"], "designations.initiative")
    marks.day_night = _opt_str(v["day_night"], "designations.day_night")
    marks.city_blessing = frozenset(
        _list(v["city_blessing"], "designations.city_blessing", player_id)
    )
    for i, row in enumerate(
        _list(v["pending"], "designations.pending", lambda v, w: _row(v, w, 3))
    ):
        where = f"designations.pending[{i}]"
        marks.pending.append((_str(row[0], where), _str(row[1], where), _str(row[2], where)))
    return marks


def _read_stack(value: object, player_id: Callable[[object, str], str]) -> Stack:
    v = _object(
        value,
        "stack",
        (
            "pending",
            "items",
            "merge",
            "order",
            "targets",
            "replacements",
            "omens",
            "resolved",
            "triggers",
        ),
    )
    rows = _list(v["triggers"], "stack.triggers", _read_trigger)

    def triggers(value: object, where: str) -> list[Trigger]:
        return _list(value, where, lambda v, w: _index(v, w, rows))

    def ids(value: object, where: str) -> tuple[str, ...]:
        return tuple(_strs(value, where))

    stack = Stack()
    stack.pending = triggers(v["pending"], "stack.pending")
    stack.items = triggers(v["items"], "stack.items")
    for i, row in enumerate(_list(v["merge"], "stack.merge", lambda v, w: _row(v, w, 2))):
        stack.merge[ids(row[0], f"stack.merge[{i}][0]")] = triggers(row[1], f"stack.merge[{i}][1]")
    stack.order = _mapping(v["order"], "stack.order", ids)
    stack.targets = _mapping(v["targets"], "stack.targets", ids)
    stack.replacements = _mapping(v["replacements"], "stack.replacements", ids)
    stack.omens = _mapping(v["omens"], "stack.omens", lambda v, w: _int(v, w, 0))
    stack.resolved = _int(v["resolved"], "stack.resolved", 0)
    return stack


def outcome_from_data(data: object, where: str = "outcome") -> Outcome:
    """The :class:`Outcome` :func:`outcome_to_data` wrote as ``data`` (its results as dicts, as
    the table keeps them); :class:`SnapshotError` for anything else."""
    v = _object(data, where, ("over", "game", "results", "team_results"))
    return Outcome(
        _bool(v["over"], f"{where}.over"),
        _int(v["game"], f"{where}.game", 1),
        _mapping(v["results"], f"{where}.results", _read_result),
        _mapping(v["team_results"], f"{where}.team_results", _read_result),
    )

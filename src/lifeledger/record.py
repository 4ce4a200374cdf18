"""The game record (``../shared/spec/game-record.md``, version 1): JSON in, actions out, and back.

A record is a *document* (one JSON object: the header and ``"actions"``) or a *stream* (the
header on the first line, then one action per line). :func:`replay` plays one; a stream replays
in memory that does not grow with its length.
"""

from __future__ import annotations

import itertools
import json
import json.scanner
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .actions import (
    Action,
    AddCounters,
    Amount,
    Concede,
    Damage,
    Draw,
    DrawGame,
    End,
    ExchangeLife,
    GainLife,
    IntentionalDraw,
    LifeOf,
    Loop,
    Lose,
    LoseLife,
    PayLife,
    Penalty,
    RedistributeLife,
    RemoveCounters,
    Restart,
    SetLife,
    SetLifeEach,
    StartCard,
    StartEffect,
    Together,
    Upkeep,
    Win,
)
from .effects import Affects, Kind, Reach
from .errors import MalformedError, RefusedError
from .game import Game, Note
from .seats import Seat

__all__ = [
    "RECORD_VERSION",
    "Header",
    "Refusal",
    "Replay",
    "Step",
    "dumps",
    "format_action",
    "format_header",
    "load",
    "loads",
    "parse_action",
    "parse_header",
    "parse_json",
    "replay",
    "source_of",
    "start",
    "steps",
]

RECORD_VERSION = 1
Json = Any


def _json_integer(digits: str) -> int:
    """A JSON integer of any size: the record's amounts are unbounded, so a number longer than
    the interpreter's limit on converting text to ``int`` is converted in halves."""
    if len(digits) <= 4000:
        return int(digits)
    negative = digits.startswith("-")
    body = digits[1:] if negative else digits
    low = len(body) // 2
    value: int = _json_integer(body[:-low]) * 10**low + _json_integer(body[-low:])
    return -value if negative else value


def parse_json(text: str | bytes, position: str | None = None) -> Json:
    """Parse JSON, integers of any size included. ``NaN`` and ``Infinity`` parse as floats,
    which no member of a record accepts: the member that holds one is named as malformed."""
    try:
        return json.loads(text, parse_int=_json_integer)
    except (ValueError, RecursionError) as exc:
        raise MalformedError(f"not JSON: {exc}", position=position) from None


# typeshed types the context as a scanner; the json module passes a JSONDecoder, as here.
_SCAN: Callable[[str, int], tuple[Json, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]
)


def _parse_line(line: str, position: str | None = None) -> Json:
    """One line of a stream, parsed by the json module's own scanner without the wrapper
    that ``json.loads`` puts around it (half the cost of a short line); a line that is not
    exactly one JSON value is left to :func:`parse_json`, which says what is wrong."""
    try:
        value, end = _SCAN(line, 0)
    except (StopIteration, ValueError, RecursionError):
        return parse_json(line, position)
    if end != len(line) and not line[end:].isspace():
        return parse_json(line, position)
    return value


# -- reading members ----------------------------------------------------------------------


def _object(value: Json, member: str | None = None) -> dict[str, Json]:
    if not isinstance(value, dict):
        raise MalformedError(f"expected a JSON object, got {_kind(value)}", member=member)
    return value


def _kind(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return "a list" if isinstance(value, list) else "an object"


def _check_members(
    obj: Mapping[str, Json], required: Iterable[str], allowed: Container[str], prefix: str = ""
) -> None:
    """Unknown members (``note`` is allowed anywhere) and missing ones are malformed."""
    for name in obj:
        if name not in allowed and name != "note":
            raise MalformedError("unknown member", member=prefix + name)
    for name in required:
        if name not in obj:
            raise MalformedError("missing member", member=prefix + name)
    if "note" in obj and not isinstance(obj["note"], str):
        raise MalformedError(
            f"a note is a string, not {_kind(obj['note'])}", member=prefix + "note"
        )


def _string(value: Json, member: str) -> str:
    if type(value) is not str:
        raise MalformedError(f"expected a string, got {_kind(value)}", member=member)
    return value


def _optional_string(obj: Mapping[str, Json], name: str, prefix: str = "") -> str | None:
    value = obj.get(name)
    return None if value is None else _string(value, prefix + name)


def _integer(value: Json, member: str, minimum: int | None = 0) -> int:
    if type(value) is not int:  # JSON integers only: not true, 3.0, NaN or Infinity
        raise MalformedError(f"expected an integer, got {_kind(value)}", member=member)
    if minimum is not None and value < minimum:
        raise MalformedError(
            f"expected an integer of {minimum} or more, got {value}", member=member
        )
    return value


def _boolean(obj: Mapping[str, Json], name: str, prefix: str = "") -> bool:
    value = obj.get(name, False)
    if not isinstance(value, bool):
        raise MalformedError(f"expected true or false, got {_kind(value)}", member=prefix + name)
    return value


def _string_list(value: Json, member: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise MalformedError(f"expected a list, got {_kind(value)}", member=member)
    return tuple(_string(item, member) for item in value)


def _amount(value: Json, member: str, minimum: int | None = 0) -> Amount:
    """An amount: an integer, or ``{"life_of": p, "fraction": [n, d], "round": "up"}``."""
    if type(value) is dict:
        _check_members(value, ("life_of",), ("life_of", "fraction", "round"), member + ".")
        fraction = value.get("fraction", [1, 1])
        if not (isinstance(fraction, list) and len(fraction) == 2):
            raise MalformedError("a fraction is [numerator, denominator]", member=member)
        numerator = _integer(fraction[0], member + ".fraction")
        denominator = _integer(fraction[1], member + ".fraction", 1)
        rounding = _optional_string(value, "round", member + ".")
        try:
            return LifeOf(_string(value["life_of"], member), (numerator, denominator), rounding)
        except MalformedError as exc:
            raise MalformedError(exc.message, member=f"{member}.{exc.member}") from None
    return _integer(value, member, minimum)


def _mapping(value: Json, member: str) -> dict[str, Json]:
    obj = _object(value, member)
    if not obj:
        raise MalformedError("names no player", member=member)
    return obj


# -- the header ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The record's header: who plays, in which variant and format, with which options."""

    seats: tuple[Seat, ...]
    variant: str | None = None
    format: str = "normal"
    starting_life: int | None = None
    range_of_influence: int | None = None
    note: str | None = None

    def new_game(self, *, keep_history: bool = True) -> Game:
        """A game with this header, at its start."""
        return Game(
            self.seats,
            self.variant,
            self.format,
            starting_life=self.starting_life,
            range_of_influence=self.range_of_influence,
            keep_history=keep_history,
        )


_SEAT_MEMBERS = (
    "name",
    "team",
    "library",
    "life_modifier",
    "commanders",
    "archenemy",
    "emperor",
    "range",
)


def _parse_seat(value: Json, index: int) -> Seat:
    prefix = f"players[{index}]."
    obj = _object(value, f"players[{index}]")
    _check_members(obj, ("id",), ("id", *_SEAT_MEMBERS), prefix)
    library = obj.get("library")
    modifier = obj.get("life_modifier")
    seat_range = obj.get("range")
    try:
        return Seat(
            _string(obj["id"], prefix + "id"),
            name=_optional_string(obj, "name", prefix),
            team=_optional_string(obj, "team", prefix),
            library=None if library is None else _integer(library, prefix + "library"),
            life_modifier=None
            if modifier is None
            else _integer(modifier, prefix + "life_modifier", None),
            commanders=_string_list(obj.get("commanders", []), prefix + "commanders"),
            archenemy=_boolean(obj, "archenemy", prefix),
            emperor=_boolean(obj, "emperor", prefix),
            range=None if seat_range is None else _integer(seat_range, prefix + "range"),
        )
    except MalformedError as exc:
        if exc.member and not exc.member.startswith("players"):
            raise MalformedError(exc.message, member=prefix + exc.member) from None
        raise


def parse_header(value: Json, *, stream: bool = False) -> Header:
    """The header of a record (of a stream's first line with ``stream``)."""
    obj = _object(value)
    allowed = ["record", "players", "variant", "format", "options"]
    if not stream:
        allowed.append("actions")
    _check_members(obj, ("record", "players"), allowed)
    if _integer(obj["record"], "record") != RECORD_VERSION:
        raise MalformedError(f"this is record version {RECORD_VERSION}", member="record")
    players = obj["players"]
    if not isinstance(players, list) or len(players) < 2:
        raise MalformedError("players is a list of 2 or more players", member="players")
    options = _object(obj.get("options", {}), "options")
    _check_members(options, (), ("starting_life", "range_of_influence"), "options.")
    starting = options.get("starting_life")
    reach = options.get("range_of_influence")
    return Header(
        seats=tuple(_parse_seat(p, i) for i, p in enumerate(players)),
        variant=_optional_string(obj, "variant"),
        format=_optional_string(obj, "format") or "normal",
        starting_life=None if starting is None else _integer(starting, "options.starting_life", 1),
        range_of_influence=None if reach is None else _integer(reach, "options.range_of_influence"),
        note=_optional_string(obj, "note"),
    )


def format_header(game: Game) -> dict[str, Json]:
    """The header of ``game`` as a record's JSON object (without ``actions``)."""
    players = []
    for seat in game.seats:
        entry: dict[str, Json] = {"id": seat.id}
        for name in _SEAT_MEMBERS:
            value = getattr(seat, name)
            if value is not None and value is not False and value != ():
                entry[name] = list(value) if isinstance(value, tuple) else value
        players.append(entry)
    header: dict[str, Json] = {
        "record": RECORD_VERSION,
        "variant": game.variant.name,
        "format": game.format.name,
    }
    if game.starting_life is not None or game.range_of_influence is not None:
        header["options"] = {
            "starting_life": game.starting_life,
            "range_of_influence": game.range_of_influence,
        }
    header["players"] = players
    return header


# -- actions ------------------------------------------------------------------------------

_Parser = Callable[[dict[str, Json], str | None, str | None], Action]
_PARSERS: dict[str, tuple[tuple[str, ...], frozenset[str], _Parser]] = {}


def _parser(
    do: str, required: tuple[str, ...] = (), optional: tuple[str, ...] = ()
) -> Callable[[_Parser], _Parser]:
    def register(function: _Parser) -> _Parser:
        _PARSERS[do] = (
            ("do", *required),
            frozenset({"do", "source", *required, *optional}),
            function,
        )
        return function

    return register


@_parser(
    "damage", ("source", "to", "amount"), ("combat", "infect", "lifelink", "controller", "toxic")
)
def _damage(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Damage(
        _string(o["to"], "to"),
        _amount(o["amount"], "amount"),
        _boolean(o, "combat"),
        _boolean(o, "infect"),
        _boolean(o, "lifelink"),
        _optional_string(o, "controller"),
        _integer(o.get("toxic", 0), "toxic"),
        source=source,
        note=note,
    )


@_parser("lose_life", ("player", "amount"))
def _lose_life(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return LoseLife(
        _string(o["player"], "player"), _amount(o["amount"], "amount"), source=source, note=note
    )


@_parser("gain_life", ("player", "amount"))
def _gain_life(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return GainLife(
        _string(o["player"], "player"), _amount(o["amount"], "amount"), source=source, note=note
    )


def _either(o: dict[str, Json], one: tuple[str, ...], other: str) -> bool:
    """Whether ``o`` uses the members ``one`` rather than ``other``; exactly one form."""
    if other in o:
        for name in one:
            if name in o:
                raise MalformedError(f"give {' and '.join(one)} or {other}, not both", member=name)
        return False
    for name in one:
        if name not in o:
            raise MalformedError("missing member", member=name)
    return True


@_parser("pay_life", (), ("player", "amount", "payments"))
def _pay_life(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    if _either(o, ("player", "amount"), "payments"):
        payment = (_string(o["player"], "player"), _amount(o["amount"], "amount"))
        return PayLife((payment,), source=source, note=note)
    payments = _mapping(o["payments"], "payments")
    return PayLife(
        tuple((p, _amount(a, "payments")) for p, a in payments.items()),
        single=False,
        source=source,
        note=note,
    )


@_parser("set_life", (), ("player", "to", "each", "chosen"))
def _set_life(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    if _either(o, ("player", "to"), "each"):
        if "chosen" in o:
            raise MalformedError("chosen goes with each", member="chosen")
        return SetLife(
            _string(o["player"], "player"), _amount(o["to"], "to", None), source=source, note=note
        )
    each = _mapping(o["each"], "each")
    chosen = _object(o.get("chosen", {}), "chosen")
    return SetLifeEach(
        tuple((p, _amount(t, "each", None)) for p, t in each.items()),
        tuple((team, _string(p, "chosen")) for team, p in chosen.items()),
        source=source,
        note=note,
    )


@_parser("exchange_life", ("players",))
def _exchange_life(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    players = _string_list(o["players"], "players")
    if len(players) != 2:
        raise MalformedError("an exchange is between exactly 2 players", member="players")
    return ExchangeLife(players[0], players[1], source=source, note=note)


@_parser("redistribute_life", ("totals",), ("controller",))
def _redistribute_life(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    totals = _mapping(o["totals"], "totals")
    return RedistributeLife(
        tuple((p, _integer(t, "totals", None)) for p, t in totals.items()),
        _optional_string(o, "controller"),
        source=source,
        note=note,
    )


@_parser("add_counters", ("player", "kind", "amount"))
def _add_counters(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return AddCounters(
        _string(o["player"], "player"),
        _string(o["kind"], "kind"),
        _amount(o["amount"], "amount"),
        source=source,
        note=note,
    )


@_parser("remove_counters", ("player", "kind", "amount"))
def _remove_counters(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return RemoveCounters(
        _string(o["player"], "player"),
        _string(o["kind"], "kind"),
        _amount(o["amount"], "amount"),
        source=source,
        note=note,
    )


@_parser("draw", ("player", "count"))
def _draw(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Draw(
        _string(o["player"], "player"), _integer(o["count"], "count"), source=source, note=note
    )


@_parser("concede", ("player",))
def _concede(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Concede(_string(o["player"], "player"), source=source, note=note)


@_parser("win", ("player",))
def _win(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Win(_string(o["player"], "player"), source=source, note=note)


@_parser("lose", (), ("player", "players"))
def _lose(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    if _either(o, ("player",), "players"):
        return Lose((_string(o["player"], "player"),), source=source, note=note)
    players = _string_list(o["players"], "players")
    if not players:
        raise MalformedError("names no player", member="players")
    return Lose(players, single=False, source=source, note=note)


@_parser("draw_game", (), ("controller",))
def _draw_game(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return DrawGame(_optional_string(o, "controller"), source=source, note=note)


@_parser("loop", ("controllers",))
def _loop(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Loop(_string_list(o["controllers"], "controllers"), source=source, note=note)


@_parser("intentional_draw")
def _intentional_draw(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return IntentionalDraw(source=source, note=note)


@_parser("penalty", ("player",))
def _penalty(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Penalty(_string(o["player"], "player"), source=source, note=note)


@_parser("restart", (), ("controller",))
def _restart(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Restart(_optional_string(o, "controller"), source=source, note=note)


def _affects(value: Json) -> Affects:
    if isinstance(value, str):
        try:
            return Reach(value)
        except ValueError:
            raise MalformedError(
                f'affects is "you", "opponents", "players" or a list of players, not {value!r}',
                member="affects",
            ) from None
    players = _string_list(value, "affects")
    if not players:
        raise MalformedError("names no player", member="affects")
    return players


@_parser("effect", ("id", "kind", "controller"), ("affects", "factor", "life_at_least"))
def _effect(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    kind = _string(o["kind"], "kind")
    try:
        effect_kind = Kind(kind)
    except ValueError:
        raise MalformedError(f"unknown effect kind {kind!r}", member="kind") from None
    factor = o.get("factor")
    life = o.get("life_at_least")
    return StartEffect(
        _string(o["id"], "id"),
        effect_kind,
        _string(o["controller"], "controller"),
        _affects(o.get("affects", "you")),
        None if factor is None else _integer(factor, "factor"),
        None if life is None else _integer(life, "life_at_least"),
        source=source,
        note=note,
    )


@_parser("card", ("id", "name", "controller"))
def _card(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return StartCard(
        _string(o["id"], "id"),
        _string(o["name"], "name"),
        _string(o["controller"], "controller"),
        source=source,
        note=note,
    )


@_parser("end", ("id",))
def _end(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return End(_string(o["id"], "id"), source=source, note=note)


@_parser("upkeep", ("player",))
def _upkeep(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Upkeep(_string(o["player"], "player"), source=source, note=note)


#: How deep groups may nest inside groups (no card needs more than a few levels).
MAX_GROUP_DEPTH = 32


def _group_depth(group: dict[str, Json]) -> int:
    """How many levels of groups ``group`` holds, itself included (counted up to one past
    :data:`MAX_GROUP_DEPTH`, without recursion)."""
    depth, level = 0, [group]
    while level and depth <= MAX_GROUP_DEPTH:
        depth += 1
        level = [
            inner
            for g in level
            if isinstance(g.get("actions"), list)
            for inner in g["actions"]
            if isinstance(inner, dict) and inner.get("do") == "together"
        ]
    return depth


@_parser("together", ("actions",))
def _together(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    inner = o["actions"]
    if not isinstance(inner, list) or not inner:
        raise MalformedError("a together group is a non-empty list of actions", member="actions")
    if _group_depth(o) > MAX_GROUP_DEPTH:
        raise MalformedError(
            f"groups nest at most {MAX_GROUP_DEPTH} deep inside each other", member="actions"
        )
    return Together(
        tuple(parse_action(a, str(i)) for i, a in enumerate(inner)), source=source, note=note
    )


def parse_action(value: Json, position: str | None = None) -> Action:
    """One action of a record; errors name ``position`` and the member."""
    try:
        obj = value if type(value) is dict else _object(value)
        do = obj.get("do")
        if do is None:
            raise MalformedError("missing member", member="do")
        entry = _PARSERS.get(do) if isinstance(do, str) else None
        if entry is None:
            raise MalformedError(f"unknown action {do!r}", member="do")
        required, allowed, build = entry
        _check_members(obj, required, allowed)
        source = obj.get("source")
        if source is not None and not isinstance(source, str):
            raise MalformedError(f"expected a string, got {_kind(source)}", member="source")
        return build(obj, source, obj.get("note"))
    except MalformedError as exc:
        if position is None:
            raise
        raise exc.at(position) from None


def _amount_json(value: Amount) -> Json:
    if isinstance(value, LifeOf):
        out: dict[str, Json] = {"life_of": value.player}
        if value.fraction != (1, 1):
            out["fraction"] = list(value.fraction)
        if value.round is not None:
            out["round"] = value.round
        return out
    return value


def format_action(action: Action) -> dict[str, Json]:
    """``action`` as a record's JSON object; :func:`parse_action` reads it back unchanged."""
    out: dict[str, Json] = {"do": action.do}
    match action:
        case Damage():
            out |= {"to": action.to, "amount": _amount_json(action.amount)}
            for flag in ("combat", "infect", "lifelink"):
                if getattr(action, flag):
                    out[flag] = True
            if action.controller is not None:
                out["controller"] = action.controller
            if action.toxic:
                out["toxic"] = action.toxic
        case LoseLife() | GainLife():
            out |= {"player": action.player, "amount": _amount_json(action.amount)}
        case PayLife(single=True):
            player, amount = action.payments[0]
            out |= {"player": player, "amount": _amount_json(amount)}
        case PayLife():
            out["payments"] = {p: _amount_json(a) for p, a in action.payments}
        case SetLife():
            out |= {"player": action.player, "to": _amount_json(action.to)}
        case SetLifeEach():
            out["each"] = {p: _amount_json(t) for p, t in action.each}
            if action.chosen:
                out["chosen"] = dict(action.chosen)
        case ExchangeLife():
            out["players"] = [action.a, action.b]
        case RedistributeLife():
            out["totals"] = dict(action.totals)
            if action.controller is not None:
                out["controller"] = action.controller
        case AddCounters() | RemoveCounters():
            out |= {"player": action.player, "kind": action.kind}
            out["amount"] = _amount_json(action.amount)
        case Draw():
            out |= {"player": action.player, "count": action.count}
        case Concede() | Win() | Penalty() | Upkeep():
            out["player"] = action.player
        case Lose(single=True):
            out["player"] = action.losers[0]
        case Lose():
            out["players"] = list(action.losers)
        case DrawGame() | Restart():
            if action.controller is not None:
                out["controller"] = action.controller
        case Loop():
            out["controllers"] = list(action.controllers)
        case StartEffect():
            out |= {"id": action.id, "kind": action.kind.value, "controller": action.controller}
            if action.affects is not Reach.YOU:
                affects = action.affects
                out["affects"] = affects.value if isinstance(affects, Reach) else list(affects)
            if action.factor is not None:
                out["factor"] = action.factor
            if action.life_at_least is not None:
                out["life_at_least"] = action.life_at_least
        case StartCard():
            out |= {"id": action.id, "name": action.name, "controller": action.controller}
        case End():
            out["id"] = action.id
        case Together():
            out["actions"] = [format_action(a) for a in action.actions]
    if action.source is not None:
        out["source"] = action.source
    if action.note is not None:
        out["note"] = action.note
    return out


# -- replaying ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused action: its position, the rule that refuses it and a sentence."""

    position: str
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a replay: what it was, whether it was refused, and its consequences."""

    position: str
    action: Action
    refusal: Refusal | None
    notes: tuple[Note, ...]


@dataclass
class Replay:
    """The result of replaying a record: the game after its last action and the refusals."""

    game: Game
    refused: list[Refusal] = field(default_factory=list)


def steps(game: Game, actions: Iterable[Json], start: int = 0) -> Iterator[Step]:
    """Apply record actions (JSON objects) to ``game`` one by one, yielding a :class:`Step`
    for each. A refused action is reported and the replay goes on; a malformed one raises
    :class:`MalformedError` naming its position, and nothing past it is applied."""
    for index, value in enumerate(actions, start):
        position = str(index)
        action = parse_action(value, position)
        try:
            game.apply(action)
        except RefusedError as exc:
            yield Step(position, action, Refusal(position, exc.rule, exc.message), ())
        except MalformedError as exc:
            raise exc.at(position) from None
        else:
            yield Step(position, action, None, tuple(game.notes))


def _document_parts(document: Json) -> tuple[Header, list[Json]]:
    header = parse_header(document)
    actions = document.get("actions")
    if not isinstance(actions, list):
        raise MalformedError(
            "missing member" if actions is None else "actions is a list", member="actions"
        )
    return header, actions


def _stream_lines(lines: Iterable[str]) -> tuple[Header, Iterator[str]]:
    """A stream's header, and its action lines (blank lines left out)."""
    iterator = iter(lines)
    first = next((line for line in iterator if line.strip()), None)
    if first is None:
        raise MalformedError("an empty record: the header is missing")
    header = parse_header(parse_json(first), stream=True)
    return header, (line for line in iterator if line and not line.isspace())


def _stream_parts(lines: Iterable[str]) -> tuple[Header, Iterator[Json]]:
    header, actions = _stream_lines(lines)
    return header, (_parse_line(line, str(index)) for index, line in enumerate(actions))


def start(
    source: Json | Iterable[str], *, keep_history: bool = True
) -> tuple[Game, Iterator[Step]]:
    """Begin replaying a record: a document (a JSON object already parsed), or the lines of
    a stream. Returns the game at its start and the steps that play it, one by one."""
    if isinstance(source, dict):
        header, actions = _document_parts(source)
        iterator: Iterable[Json] = actions
    else:
        header, iterator = _stream_parts(source)
    game = header.new_game(keep_history=keep_history)
    return game, steps(game, iterator)


#: How many distinct lines of a stream a replay remembers the actions of. Games repeat
#: themselves ("ana loses 1 life", tap after tap): a line seen before is not parsed again.
#: Actions are immutable, so one may be applied many times; the bound keeps memory constant.
LINE_CACHE = 4096


def replay(source: Json | Iterable[str], *, keep_history: bool = True) -> Replay:
    """Replay a whole record (see :func:`start`). Refusals are collected; a malformed record
    raises :class:`MalformedError`."""
    items: Iterable[Json]
    parse: Callable[[Json], Action]
    if isinstance(source, dict):
        header, items = _document_parts(source)
        parse = parse_action
    else:
        header, items = _stream_lines(source)
        parse = _line_parser()
    game = header.new_game(keep_history=keep_history)
    result = Replay(game)
    apply = game.apply
    for index, item in enumerate(items):
        try:
            apply(parse(item))
        except RefusedError as exc:
            result.refused.append(Refusal(str(index), exc.rule, exc.message))
        except MalformedError as exc:
            raise exc.at(str(index)) from None
        if game.refusals:
            result.refused.extend(_refusals_in_group(game, str(index)))
    return result


def _line_parser() -> Callable[[str], Action]:
    """A parser of stream lines that parses a line seen before only once (:data:`LINE_CACHE`)."""
    seen: dict[str, Action] = {}

    def parse(line: str) -> Action:
        action = seen.get(line)
        if action is None:
            action = parse_action(_parse_line(line))
            if len(seen) < LINE_CACHE:
                seen[line] = action
        return action

    return parse


def _refusals_in_group(game: Game, position: str) -> list[Refusal]:
    """The refused actions inside the group just applied at ``position`` (609.3)."""
    return [Refusal(f"{position}.{inner}", e.rule, e.message) for inner, e in game.refusals]


def source_of(lines: Iterable[str], *, stream: bool | None = None) -> Json | Iterator[str]:
    """The parsed document, or the stream's lines (read lazily, so that a long stream is never
    held in memory). ``stream`` says which it is; ``None`` tells them apart by their shape: a
    stream's first line is a whole header object without ``actions``."""
    iterator = iter(lines)
    if stream:
        return iterator
    head: list[str] = []
    for line in iterator:
        head.append(line)
        if line.strip():
            break
    try:
        first = json.loads(head[-1], parse_int=_json_integer) if head else None
    except (ValueError, RecursionError):
        first = None
    if stream is None and isinstance(first, dict) and "actions" not in first:
        return itertools.chain(head, iterator)
    document = parse_json("".join(itertools.chain(head, iterator)))
    if not isinstance(document, dict):
        raise MalformedError(f"a record is a JSON object, not {_kind(document)}")
    return document


def loads(text: str, *, keep_history: bool = True) -> Replay:
    """Replay a record given as text, document or stream."""
    return replay(source_of(text.splitlines(keepends=True)), keep_history=keep_history)


def load(path: str | Path, *, keep_history: bool = True) -> Replay:
    """Replay the record in the file at ``path`` (``.jsonl``: a stream, else a document)."""
    path = Path(path)
    with path.open(encoding="utf-8") as lines:
        source = source_of(lines, stream=path.suffix == ".jsonl")
        return replay(source, keep_history=keep_history)


def dumps(game: Game, *, stream: bool = False) -> str:
    """``game``'s header and history as a record that replays to the same state."""
    if game.history is None:
        raise ValueError("this game keeps no history (keep_history=False)")
    header = format_header(game)
    actions = [format_action(a) for a in game.history]
    if stream:
        lines = [json.dumps(header)] + [json.dumps(a) for a in actions]
        return "\n".join(lines) + "\n"
    return json.dumps({**header, "actions": actions}, indent=1)

"""The game record (``../shared/spec/game-record.md``, version 1, and ``docs/record-format.md``,
version 2): JSON in, actions out, and back.

A record is a *document* (one JSON object: the header and ``"actions"``) or a *stream* (the
header on the first line, then one action per line). :func:`replay` plays one; a stream replays
in memory that does not grow with its length.
"""

from __future__ import annotations

import io
import itertools
import json
import json.scanner
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .actions import (
    Action,
    AddCounters,
    Amount,
    BecomeMonarch,
    BeginStep,
    Cast,
    Choose,
    CityBlessing,
    Concede,
    Damage,
    DayNight,
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
    Repeat,
    Restart,
    SetLibrary,
    SetLife,
    SetLifeEach,
    StartCard,
    StartEffect,
    TakeInitiative,
    Together,
    Turn,
    Upkeep,
    Win,
)
from .bounds import MAX_DIGITS, MAX_INTEGER, check_integer
from .effects import Affects, Kind, Reach
from .errors import MalformedError, RefusedError, quote
from .game import RECORD_VERSIONS, Game, Note
from .seats import Seat, check_text

__all__ = [
    "RECORD_VERSION",
    "RECORD_VERSIONS",
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
    "use_decoder",
]

#: The latest version of the game record (every version in :data:`RECORD_VERSIONS` is read).
RECORD_VERSION = 2
Json = Any


class _LongNumber:
    """A JSON integer whose text is longer than any integer within the record's bound
    (:data:`lifeledger.bounds.MAX_DIGITS` digits): it is never converted to ``int`` (CPython
    does that in time quadratic in the length), and the member that holds it is malformed."""

    __slots__ = ("digits", "negative")

    def __init__(self, digits: int, negative: bool):
        self.digits = digits
        self.negative = negative

    def error(self, member: str | None) -> MalformedError:
        sign = "-" if self.negative else ""
        return MalformedError(
            f"an integer is beyond {sign}10^1000 (it has {self.digits:,} digits); the record"
            " bounds every integer by 10^1000",
            member=member,
        )


def _json_integer(text: str) -> int | _LongNumber:
    """A JSON integer, converted only if its text is short enough to lie within the bound."""
    if len(text) <= MAX_DIGITS + 1:  # a sign and 1,001 digits
        return int(text)
    negative = text.startswith("-")
    return _LongNumber(len(text) - negative, negative)


class _Duplicates(dict[str, Any]):
    """A JSON object in which ``key`` appears more than once (json keeps the last): whoever
    reads it as an object names the key as malformed."""

    __slots__ = ("key",)
    key: str


def _json_object(pairs: list[tuple[str, Json]]) -> dict[str, Json]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            break
        seen.add(key)
    duplicates = _Duplicates(obj)
    duplicates.key = key
    return duplicates


#: The record's JSON reader: integers longer than the bound are never converted, and an object
#: with a duplicate key is marked (see :func:`_object`).
_DECODER = json.JSONDecoder(parse_int=_json_integer, object_pairs_hook=_json_object)

#: A byte-order mark, which some editors write at the start of a UTF-8 file.
_BOM = "\ufeff"


def parse_json(text: str | bytes, position: str | None = None) -> Json:
    """Parse a record's JSON (a UTF-8 byte-order mark at the start is skipped). ``NaN`` and
    ``Infinity`` parse as floats, an integer longer than the record's bound as a marker that is
    not converted, and an object with a duplicate key as a marked object: no member of a record
    accepts any of them, so the member that holds one is named as malformed."""
    try:
        if isinstance(text, bytes):
            return json.loads(text, parse_int=_json_integer, object_pairs_hook=_json_object)
        return _DECODER.decode(text[1:] if text.startswith(_BOM) else text)
    except (ValueError, RecursionError) as exc:
        raise MalformedError(f"not JSON: {exc}", position=position) from None


# typeshed types the context as a scanner; the json module passes a JSONDecoder, as here.
_SCAN: Callable[[str, int], tuple[Json, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]
)


def _parse_line(line: str, position: str | None = None) -> Json:
    """One line of a stream. A short line (most are) is parsed by the json module's own
    scanner, without the wrapper that ``json.loads`` puts around it (half the cost of a short
    line) and without hooks: it can hold no integer longer than the bound, and it holds no
    duplicate key when it has as many colons as its objects have keys (every key is followed
    by one). Any other line is left to :func:`parse_json`, which also says what is wrong."""
    if len(line) > MAX_DIGITS:
        return parse_json(line, position)
    try:
        value, end = _SCAN(line, 0)
    except (StopIteration, ValueError, RecursionError):
        return parse_json(line, position)
    if end != len(line) and not line[end:].isspace():
        return parse_json(line, position)
    if type(value) is dict:
        colons = line.count(":")
        if colons != len(value) and colons != _keys(value):
            return parse_json(line, position)  # a colon in a string, or a duplicate key
    return value


def _keys(value: Json) -> int:
    """How many keys the objects in ``value`` have, nested ones included."""
    count, pending = 0, [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            count += len(item)
            pending.extend(item.values())
        elif type(item) is list:
            pending.extend(item)
    return count


# -- reading members ----------------------------------------------------------------------


def _object(value: Json, member: str | None = None) -> dict[str, Json]:
    if type(value) is dict:
        return value
    if type(value) is _Duplicates:
        key = value.key
        raise MalformedError(
            f"the key {quote(key)} appears more than once in this object",
            member=key if member is None else f"{member}.{key}",
        )
    raise MalformedError(f"expected a JSON object, got {_kind(value)}", member=member)


def _kind(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, _LongNumber):
        return f"an integer of {value.digits:,} digits"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {quote(value)}"
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
    if "note" in obj:
        note = obj["note"]
        if type(note) is not str:
            raise MalformedError(f"a note is a string, not {_kind(note)}", member=prefix + "note")
        if not note.isascii():
            check_text(note, prefix + "note")


def _string(value: Json, member: str) -> str:
    if type(value) is not str:
        raise MalformedError(f"expected a string, got {_kind(value)}", member=member)
    if not value.isascii():
        check_text(value, member)
    return value


def _optional_string(obj: Mapping[str, Json], name: str, prefix: str = "") -> str | None:
    value = obj.get(name)
    return None if value is None else _string(value, prefix + name)


_MIN_INTEGER = -MAX_INTEGER


def _integer(value: Json, member: str, minimum: int | None = 0) -> int:
    if type(value) is not int:  # JSON integers only: not true, 3.0, NaN or Infinity
        if type(value) is _LongNumber:
            raise value.error(member)
        raise MalformedError(f"expected an integer, got {_kind(value)}", member=member)
    if not _MIN_INTEGER <= value <= MAX_INTEGER:
        check_integer(value, member)
    if minimum is not None and value < minimum:
        raise MalformedError(
            f"expected an integer of {minimum} or more, got {quote(value)}", member=member
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
    if isinstance(value, dict):
        value = _object(value, member)
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


def _mapping(value: Json, member: str, *, empty: bool = False) -> dict[str, Json]:
    """An object whose keys are ids (of players, or of teams for ``chosen``)."""
    obj = _object(value, member)
    if not obj and not empty:
        raise MalformedError("names no player", member=member)
    for key in obj:
        if not key.isascii():
            check_text(key, member)
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
    #: The record's version (``record``): 1, or 2 for turns and designations.
    version: int = 1

    def new_game(self, *, keep_history: bool = True) -> Game:
        """A game with this header, at its start."""
        return Game(
            self.seats,
            self.variant,
            self.format,
            starting_life=self.starting_life,
            range_of_influence=self.range_of_influence,
            keep_history=keep_history,
            version=self.version,
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
    version = _integer(obj["record"], "record")
    if version not in RECORD_VERSIONS:
        raise MalformedError(
            f"this is record version 1 or 2, not {quote(version)}", member="record"
        )
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
        version=version,
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
        "record": game.version,
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
    chosen = _mapping(o.get("chosen", {}), "chosen", empty=True)
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
                'affects is "you", "opponents", "players" or a list of players, not '
                + quote(value),
                member="affects",
            ) from None
    players = _string_list(value, "affects")
    if not players:
        raise MalformedError("names no player", member="affects")
    return players


@_parser("effect", ("id", "kind", "controller"), ("affects", "factor", "life_at_least", "until"))
def _effect(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    kind = _string(o["kind"], "kind")
    try:
        effect_kind = Kind(kind)
    except ValueError:
        raise MalformedError(f"unknown effect kind {quote(kind)}", member="kind") from None
    factor = o.get("factor")
    life = o.get("life_at_least")
    return StartEffect(
        _string(o["id"], "id"),
        effect_kind,
        _string(o["controller"], "controller"),
        _affects(o.get("affects", "you")),
        None if factor is None else _integer(factor, "factor"),
        None if life is None else _integer(life, "life_at_least"),
        _optional_string(o, "until"),
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


# -- version 2: turns and designations ----------------------------------------------------


def _of_one_player(make: Callable[..., Action]) -> _Parser:
    """The parser of an action whose only member is ``player``."""

    def parse(o: dict[str, Json], source: str | None, note: str | None) -> Action:
        return make(_string(o["player"], "player"), source=source, note=note)

    return parse


# ``upkeep`` (version 1; in version 2 also an additional upkeep step), ``turn`` (805, 810.2),
# the monarch (725), the initiative (726) and the city's blessing (702.131c).
for _do, _make in (
    ("upkeep", Upkeep),
    ("turn", Turn),
    ("become_monarch", BecomeMonarch),
    ("take_initiative", TakeInitiative),
    ("city_blessing", CityBlessing),
):
    _parser(_do, ("player",))(_of_one_player(_make))


@_parser("step", ("step",), ("nonland_milled",))
def _step(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    milled = _mapping(o.get("nonland_milled", {}), "nonland_milled", empty=True)
    return BeginStep(
        _string(o["step"], "step"),
        tuple((p, _integer(n, "nonland_milled")) for p, n in milled.items()),
        source=source,
        note=note,
    )


@_parser("cast", ("player",), ("count",))
def _cast(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return Cast(
        _string(o["player"], "player"),
        _integer(o.get("count", 1), "count"),
        source=source,
        note=note,
    )


@_parser("day_night", ("to",))
def _day_night(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return DayNight(_string(o["to"], "to"), source=source, note=note)


@_parser("set_library", ("player", "count"))
def _set_library(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    return SetLibrary(
        _string(o["player"], "player"), _integer(o["count"], "count"), source=source, note=note
    )


@_parser("choose", ("player",), ("order", "targets", "replacements"))
def _choose(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    targets = _mapping(o.get("targets", {}), "targets", empty=True)
    return Choose(
        _string(o["player"], "player"),
        _string_list(o.get("order", []), "order"),
        tuple(
            (i, (_string(t, "targets"),) if isinstance(t, str) else _string_list(t, "targets"))
            for i, t in targets.items()
        ),
        _string_list(o.get("replacements", []), "replacements"),
        source=source,
        note=note,
    )


@_parser("repeat", ("times", "actions"))
def _repeat(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    inner = o["actions"]
    if not isinstance(inner, list) or not inner:
        raise MalformedError("a shortcut is a non-empty list of actions", member="actions")
    for i, a in enumerate(inner):
        if isinstance(a, dict) and a.get("do") == "repeat":
            raise MalformedError("a shortcut can't hold a shortcut", member=f"actions[{i}]")
    return Repeat(
        _integer(o["times"], "times"),
        tuple(parse_action(a, str(i), member="actions") for i, a in enumerate(inner)),
        source=source,
        note=note,
    )


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
        tuple(parse_action(a, str(i), member="actions") for i, a in enumerate(inner)),
        source=source,
        note=note,
    )


# -- the usual actions, read fast ----------------------------------------------------------
#
# A long game is mostly the same few actions whose members are of the usual types and ranges:
# ASCII strings, integers from 0 to 10^1000, true and false. Such an action is built by the
# functions below with a few comparisons, and anything else (an unknown or missing member, a
# null, a string that is not ASCII, an expression, a value the action itself refuses) is left
# to the parser above, which accepts it or says exactly what is wrong: each function returns
# the action that parser would, or ``None``. (tests/test_record_fast.py checks that they agree.)

_NO_NOTE: Any = object()


def _members(*names: str) -> frozenset[str]:
    return frozenset({"do", "source", "note", *names})


_PLAYER_AMOUNT = _members("player", "amount")
_PLAYER_KIND_AMOUNT = _members("player", "kind", "amount")
_PLAYER_TO = _members("player", "to")
_PLAYER_COUNT = _members("player", "count")
_PLAYER = _members("player")
_DAMAGE = _members("to", "amount", "combat", "infect", "lifelink", "controller", "toxic")


def _sourced(action: Action, source: Json, note: Json) -> Action | None:
    """``action`` with its ``source`` and ``note``, if both are usual (ASCII text; the source
    may be null, and the note missing), else ``None``."""
    if source is not None:
        if type(source) is not str or not source.isascii():
            return None
        action.source = source
    if note is not _NO_NOTE:
        if type(note) is not str or not note.isascii():
            return None
        action.note = note
    return action


def _fast_damage(o: dict[str, Json]) -> Action | None:
    to = o.get("to")
    amount = o.get("amount")
    source = o.get("source")
    if not (
        type(to) is str
        and type(amount) is int
        and 0 <= amount <= MAX_INTEGER
        and type(source) is str  # damage names its source (120.1)
        and to.isascii()
        and _DAMAGE.issuperset(o)
    ):
        return None
    combat = o.get("combat", False)
    infect = o.get("infect", False)
    lifelink = o.get("lifelink", False)
    controller = o.get("controller")
    toxic = o.get("toxic", 0)
    if (
        (combat is not True and combat is not False)
        or (infect is not False and infect is not True)
        or (lifelink is not False and lifelink is not True)
        or (controller is not None and (type(controller) is not str or not controller.isascii()))
        or type(toxic) is not int
        or not 0 <= toxic <= MAX_INTEGER
    ):
        return None
    try:
        action = Damage(to, amount, combat, infect, lifelink, controller, toxic)
    except MalformedError:
        return None
    return _sourced(action, source, o.get("note", _NO_NOTE))


def _fast_player_number(
    kind: Callable[[str, int], Action],
    member: str = "amount",
    members: frozenset[str] = _PLAYER_AMOUNT,
    least: int = 0,
) -> Callable[[dict[str, Json]], Any]:
    """The fast path of an action of a ``player`` and one integer ``member`` (``least`` to
    the bound), with nothing but ``members``; ``None`` hands it to the general parser."""

    def build(o: dict[str, Json]) -> Action | None:
        player = o.get("player")
        value = o.get(member)
        if (
            type(player) is str
            and type(value) is int
            and least <= value <= MAX_INTEGER
            and player.isascii()
            and members.issuperset(o)
        ):
            return _sourced(kind(player, value), o.get("source"), o.get("note", _NO_NOTE))
        return None

    return build


def _fast_counters(kind: Callable[[str, str, int], Action]) -> Callable[[dict[str, Json]], Any]:
    def build(o: dict[str, Json]) -> Action | None:
        player = o.get("player")
        counter = o.get("kind")
        amount = o.get("amount")
        if (
            type(player) is str
            and type(counter) is str
            and type(amount) is int
            and 0 <= amount <= MAX_INTEGER
            and player.isascii()
            and counter.isascii()
            and _PLAYER_KIND_AMOUNT.issuperset(o)
        ):
            action = kind(player, counter, amount)
            return _sourced(action, o.get("source"), o.get("note", _NO_NOTE))
        return None

    return build


def _fast_player(kind: Callable[[str], Action]) -> Callable[[dict[str, Json]], Any]:
    def build(o: dict[str, Json]) -> Action | None:
        player = o.get("player")
        if type(player) is str and player.isascii() and _PLAYER.issuperset(o):
            return _sourced(kind(player), o.get("source"), o.get("note", _NO_NOTE))
        return None

    return build


_FAST: dict[str, Callable[[dict[str, Json]], Action | None]] = {
    "damage": _fast_damage,
    "lose_life": _fast_player_number(LoseLife),
    "gain_life": _fast_player_number(GainLife),
    "pay_life": _fast_player_number(lambda player, amount: PayLife(((player, amount),))),
    "set_life": _fast_player_number(SetLife, "to", _PLAYER_TO, -MAX_INTEGER),
    "add_counters": _fast_counters(AddCounters),
    "remove_counters": _fast_counters(RemoveCounters),
    "draw": _fast_player_number(Draw, "count", _PLAYER_COUNT),
    "concede": _fast_player(Concede),
    "win": _fast_player(Win),
    "penalty": _fast_player(Penalty),
    "upkeep": _fast_player(Upkeep),
}


#: The faster decoder of a stream's short lines, if one is in use (:func:`use_decoder`).
_DECODE: Callable[[str], Json] | None = None


def use_decoder(loads: Callable[[str], Json] | None) -> None:
    """Read a stream's usual lines with ``loads``, a faster JSON decoder than the json module's
    (msgspec's: the ``fast`` extra, :mod:`lifeledger_fast`), or again with the json module's
    own (``None``, the default). The result is the same either way: a line ``loads`` refuses
    (``NaN``, a number past a float's range, a lone surrogate, anything not JSON) or may read
    differently (a duplicate key) is read by the json module as before, and what is wrong with
    it named as before."""
    global _DECODE
    _DECODE = loads


def _line_action(line: str) -> Action:
    """The action on one line of a stream: :func:`parse_action` of :func:`_parse_line`, with
    the usual line (a flat object of one of the usual actions) read on the shortest path."""
    if len(line) <= MAX_DIGITS:
        decode = _DECODE
        if decode is None:
            try:
                value, end = _SCAN(line, 0)
            except (StopIteration, ValueError, RecursionError):
                return parse_action(_parse_line(line))
            whole = end == len(line) or line[end:].isspace()
        else:
            try:
                value = decode(line)
            except Exception:  # whatever it refuses, the json module reads (and names)
                return parse_action(_parse_line(line))
            whole = True
        if (
            whole
            and type(value) is dict
            and line.count(":") == len(value)  # no duplicate key (see _parse_line)
        ):
            do = value.get("do")
            build = _FAST.get(do) if type(do) is str else None
            action = None if build is None else build(value)
            return _parse_action(value, None, None) if action is None else action
    return parse_action(_parse_line(line))


def parse_action(value: Json, position: str | None = None, *, member: str | None = None) -> Action:
    """One action of a record; errors name ``position`` and the member. ``member`` says where
    the action sits (``actions`` in a document or a group; a stream's line is in none), for
    an error about a value that is not an action object at all."""
    if type(value) is dict:
        do = value.get("do")
        build = _FAST.get(do) if type(do) is str else None
        if build is not None:
            action = build(value)
            if action is not None:
                return action
    return _parse_action(value, position, member)


def _parse_action(value: Json, position: str | None, member: str | None) -> Action:
    """:func:`parse_action`, for any value."""
    try:
        if type(value) is dict:
            obj = value
        elif isinstance(value, dict):
            obj = _object(value)  # a duplicate key
        else:
            raise MalformedError(f"an action is a JSON object, not {_kind(value)}", member=member)
        do = obj.get("do")
        if do is None:
            raise MalformedError("missing member", member="do")
        entry = _PARSERS.get(do) if type(do) is str else None
        if entry is None:
            raise MalformedError(f"unknown action {quote(_string(do, 'do'))}", member="do")
        required, allowed, build = entry
        _check_members(obj, required, allowed)
        source = obj.get("source")
        if source is not None and (type(source) is not str or not source.isascii()):
            _string(source, "source")
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
        case (
            Concede()
            | Win()
            | Penalty()
            | Upkeep()
            | Turn()
            | BecomeMonarch()
            | TakeInitiative()
            | CityBlessing()
        ):
            out["player"] = action.player
        case Cast() | SetLibrary():
            out |= {"player": action.player, "count": action.count}
        case BeginStep():
            out["step"] = action.step
            if action.nonland_milled:
                out["nonland_milled"] = dict(action.nonland_milled)
        case DayNight():
            out["to"] = action.to
        case Choose():
            out["player"] = action.player
            if action.order:
                out["order"] = list(action.order)
            if action.targets:
                out["targets"] = {i: list(t) for i, t in action.targets}
            if action.replacements:
                out["replacements"] = list(action.replacements)
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
            if action.until is not None:
                out["until"] = action.until
        case StartCard():
            out |= {"id": action.id, "name": action.name, "controller": action.controller}
        case End():
            out["id"] = action.id
        case Together():
            out["actions"] = [format_action(a) for a in action.actions]
        case Repeat():
            out["times"] = action.times
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


def steps(
    game: Game, actions: Iterable[Json], start: int = 0, *, member: str | None = None
) -> Iterator[Step]:
    """Apply record actions (JSON objects) to ``game`` one by one, yielding a :class:`Step`
    for each. A refused action is reported and the replay goes on; a malformed one raises
    :class:`MalformedError` naming its position, and nothing past it is applied. ``member``
    is where the actions sit (``actions`` in a document), named if one is not an object."""
    for play in _plays(game, actions, start, member):
        yield Step(*play)


#: One action of a replay as :class:`Step` has it, as a tuple (made at less cost).
_Play = tuple[str, Action, Refusal | None, tuple[Note, ...]]


def _plays(
    game: Game, actions: Iterable[Json], start: int = 0, member: str | None = None
) -> Iterator[_Play]:
    """:func:`steps`, as tuples."""
    for index, value in enumerate(actions, start):
        position = str(index)
        action = parse_action(value, position, member=member)
        try:
            game.apply(action)
        except RefusedError as exc:
            yield position, action, Refusal(position, exc.rule, exc.message), ()
        except MalformedError as exc:
            raise exc.at(position) from None
        else:
            yield position, action, None, tuple(game.notes)


def _document_parts(document: Json) -> tuple[Header, list[Json]]:
    header = parse_header(document)
    actions = document.get("actions")
    if actions is None:
        raise MalformedError(
            "missing member (a document lists its actions; a stream's header alone must be in"
            " a .jsonl file or be followed by actions, one per line)",
            member="actions",
        )
    if not isinstance(actions, list):
        raise MalformedError(f"actions is a list, not {_kind(actions)}", member="actions")
    return header, actions


def _stream_head(lines: Iterable[str]) -> tuple[Header, Iterator[str]]:
    """A stream's header, and the lines after it (blank ones included)."""
    iterator = iter(lines)
    first = next((line for line in _without_bom(iterator) if line.strip()), None)
    if first is None:
        raise MalformedError("an empty record: the header is missing")
    return parse_header(parse_json(first), stream=True), iterator


def _stream_plays(game: Game, lines: Iterable[str]) -> Iterator[_Play]:
    """:func:`_plays` for the lines of a stream after its header (blank ones are left out),
    each line seen before parsed only once (:data:`LINE_CACHE`)."""
    parse = _line_parser()
    apply = game.apply
    index = -1
    for line in lines:
        if not line or line.isspace():
            continue
        index += 1
        position = str(index)
        try:
            action = parse(line)
            apply(action)
        except RefusedError as exc:
            yield position, action, Refusal(position, exc.rule, exc.message), ()
        except MalformedError as exc:
            raise exc.at(position) from None
        else:
            yield position, action, None, tuple(game.notes)


def start(
    source: Json | Iterable[str], *, keep_history: bool = True
) -> tuple[Game, Iterator[Step]]:
    """Begin replaying a record: a document (a JSON object already parsed), or the lines of
    a stream. Returns the game at its start and the steps that play it, one by one."""
    game, plays = _start(source, keep_history=keep_history)
    return game, (Step(*play) for play in plays)


def _start(source: Json | Iterable[str], *, keep_history: bool) -> tuple[Game, Iterator[_Play]]:
    """:func:`start`, with each step as a tuple (for the command line's timeline)."""
    if isinstance(source, dict):
        header, actions = _document_parts(source)
        game = header.new_game(keep_history=keep_history)
        return game, _plays(game, actions, member="actions")
    header, lines = _stream_head(source)
    game = header.new_game(keep_history=keep_history)
    return game, _stream_plays(game, lines)


#: How many distinct lines of a stream a replay remembers the actions of. Games repeat
#: themselves ("ana loses 1 life", tap after tap): a line seen before is not parsed again.
#: Actions are immutable, so one may be applied many times; the bound keeps memory constant.
LINE_CACHE = 4096


def replay(
    source: Json | Iterable[str], *, keep_history: bool = True, deadline: float | None = None
) -> Replay:
    """Replay a whole record (see :func:`start`). Refusals are collected; a malformed record
    raises :class:`MalformedError`. ``deadline``: the game's (:attr:`Game.deadline`), past
    which the replay stops with :class:`TooMuchWork`."""
    if not isinstance(source, dict):
        header, lines = _stream_head(source)
        game = header.new_game(keep_history=keep_history)
        game.deadline = deadline
        result = Replay(game)
        _replay_lines(game, lines, result.refused)
        return result
    header, items = _document_parts(source)
    game = header.new_game(keep_history=keep_history)
    game.deadline = deadline
    result = Replay(game)
    apply = game.apply
    for index, item in enumerate(items):
        try:
            apply(parse_action(item, member="actions"))
        except RefusedError as exc:
            result.refused.append(Refusal(str(index), exc.rule, exc.message))
        except MalformedError as exc:
            raise exc.at(str(index)) from None
        if game.refusals:
            result.refused.extend(_refusals_in_group(game, str(index)))
    return result


#: What a replay shows of each step (the command line's timeline): its position, action,
#: refusal and notes, as :class:`Step` has them.
_Show = Callable[[str, Action, Refusal | None, Sequence[Note]], None]


def _replay_lines(
    game: Game,
    lines: Iterable[str],
    refused: list[Refusal] | None,
    show: _Show | None = None,
    every: Callable[[], None] = lambda: None,
) -> None:
    """Apply the action lines of a stream to ``game`` (blank lines left out), collecting the
    refusals (unless ``refused`` is ``None``) and showing each step (with ``show``; ``every``
    is called every 1,024 of them): the loop of ``lifeledger replay``, which costs a line no
    more than its parsing and its action. A line seen before is parsed only once
    (:data:`LINE_CACHE`), as long as lines repeat at all (see :func:`_line_parser`)."""
    apply = game.apply
    seen: dict[str, Action] = {}
    hits = skip = 0
    index = -1
    try:
        for line in lines:
            if not line or line.isspace():
                continue
            index += 1
            if skip:
                skip -= 1
                action = _line_action(line)
            else:
                cached = seen.get(line)
                if cached is None:
                    action = _line_action(line)
                    if len(seen) < LINE_CACHE:
                        seen[line] = action
                    elif hits < LINE_CACHE // 8:
                        seen.clear()
                        hits, skip = 0, 16 * LINE_CACHE
                else:
                    hits += 1
                    action = cached
            try:
                apply(action)
            except RefusedError as exc:
                refusal = Refusal(str(index), exc.rule, exc.message)
                if refused is not None:
                    refused.append(refusal)
                if show is not None:
                    show(refusal.position, action, refusal, ())
                continue
            if show is not None:
                show(str(index), action, None, game.notes)
                if not index & 1023:
                    every()
            if game.refusals and refused is not None:
                refused.extend(_refusals_in_group(game, str(index)))
    except MalformedError as exc:
        raise exc.at(str(index)) from None


def _replayer(
    source: Json | Iterable[str], *, keep_history: bool
) -> tuple[Game, Callable[[_Show, Callable[[], None]], None]]:
    """The game of a record at its start, and a function that replays the record showing
    each step and calling its second argument every 1,024 steps or so (the command line's
    timeline; :func:`start` gives the same steps one by one)."""
    if isinstance(source, dict):
        header, actions = _document_parts(source)
        game = header.new_game(keep_history=keep_history)

        def run(show: _Show, every: Callable[[], None]) -> None:
            for play in _plays(game, actions, member="actions"):
                show(*play)
                if not int(play[0]) & 1023:
                    every()

        return game, run
    header, lines = _stream_head(source)
    game = header.new_game(keep_history=keep_history)
    return game, lambda show, every: _replay_lines(game, lines, None, show, every)


def _line_parser() -> Callable[[str], Action]:
    """A parser of stream lines that parses a line seen before only once (:data:`LINE_CACHE`).
    Where lines hardly repeat (fewer than one in eight of the first :data:`LINE_CACHE`
    distinct ones), looking each up costs more than it saves: the cache is set aside for the
    next ``16 * LINE_CACHE`` lines, then tried again afresh."""
    seen: dict[str, Action] = {}
    hits = skip = 0

    def parse(line: str) -> Action:
        nonlocal hits, skip
        if skip:
            skip -= 1
            return _line_action(line)
        action = seen.get(line)
        if action is not None:
            hits += 1
            return action
        action = _line_action(line)
        if len(seen) < LINE_CACHE:
            seen[line] = action
        elif hits < LINE_CACHE // 8:
            seen.clear()
            hits, skip = 0, 16 * LINE_CACHE
        return action

    return parse


def _refusals_in_group(game: Game, position: str) -> list[Refusal]:
    """The refused actions inside the group just applied at ``position`` (609.3)."""
    return [Refusal(f"{position}.{inner}", e.rule, e.message) for inner, e in game.refusals]


def _without_bom(lines: Iterator[str]) -> Iterator[str]:
    """``lines`` without the UTF-8 byte-order mark that may begin the first one (which is read
    at once; the others are passed on as they come, at no cost per line)."""
    for line in lines:
        return itertools.chain((line[1:] if line.startswith(_BOM) else line,), lines)
    return iter(())


def source_of(lines: Iterable[str], *, stream: bool | None = None) -> Json | Iterator[str]:
    """The parsed document, or the stream's lines (read lazily, so that a long stream is never
    held in memory). ``stream`` says which it is (``True`` for a ``.jsonl`` file); ``None``
    tells them apart by their content: a first line that is a whole JSON object without
    ``actions``, followed by more lines, begins a stream. Such an object alone is a document
    without ``actions`` (malformed), whatever it is read from, unless ``stream`` says it is
    a stream. A byte-order mark at the start is skipped."""
    iterator = _without_bom(iter(lines))
    if stream:
        return iterator
    head: list[str] = []
    for line in iterator:
        head.append(line)
        if line and not line.isspace():
            break
    else:
        raise MalformedError("not JSON: the record is empty")
    try:
        first = parse_json(head[-1])
    except MalformedError:  # not one whole JSON value: the first line of a document
        document = parse_json("".join(itertools.chain(head, iterator)))
    else:
        after = next((line for line in iterator if line and not line.isspace()), None)
        if after is None:
            document = first  # the only line: never parsed twice
        elif stream is None and isinstance(first, dict) and "actions" not in first:
            return itertools.chain(head, (after,), iterator)
        else:
            document = parse_json("".join(itertools.chain(head, (after,), iterator)))
    if not isinstance(document, dict):
        raise MalformedError(f"a record is a JSON object, not {_kind(document)}")
    return document


#: Where ``str.splitlines`` splits a line and a file does not (a JSON string may hold the last
#: three as they are).
_OTHER_LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text``, split where a file's are (at ``\\n``, ``\\r\\n`` and ``\\r``)."""
    if any(mark in text for mark in _OTHER_LINE_BREAKS):
        return iter(io.StringIO(text, newline=None))  # slower, so only where needed
    return iter(text.splitlines(keepends=True))


def loads(text: str, *, stream: bool | None = None, keep_history: bool = True) -> Replay:
    """Replay a record given as text, document or stream: ``stream`` says which it is, as for
    :func:`source_of` (``None``: told apart by the content). A stream's header alone, with no
    actions yet (what :func:`dumps` writes for a game without any), is a stream only with
    ``stream=True``, as it is one only in a ``.jsonl`` file."""
    return replay(source_of(_lines(text), stream=stream), keep_history=keep_history)


def load(path: str | Path, *, keep_history: bool = True) -> Replay:
    """Replay the record in the file at ``path`` (``.jsonl``: a stream; else told apart by
    its content, see :func:`source_of`)."""
    path = Path(path)
    with path.open(encoding="utf-8-sig") as lines:
        source = source_of(lines, stream=True if path.suffix == ".jsonl" else None)
        return replay(source, keep_history=keep_history)


def dumps(game: Game, *, stream: bool = False) -> str:
    """``game``'s header and history as a record that replays to the same state (with
    ``stream``, a stream: read it back with ``loads(text, stream=True)`` or from a ``.jsonl``
    file, since a game without actions is its header alone)."""
    if game.history is None:
        raise ValueError("this game keeps no history (keep_history=False)")
    header = format_header(game)
    actions = [format_action(a) for a in game.history]
    if stream:
        lines = [json.dumps(header)] + [json.dumps(a) for a in actions]
        return "\n".join(lines) + "\n"
    return json.dumps({**header, "actions": actions}, indent=1)

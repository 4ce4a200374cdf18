"""The game record's actions read: one parser per ``do``, the usual actions read fast, and
:func:`parse_action`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .actions import (
    Action,
    AddCounters,
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
from .bounds import MAX_DIGITS, MAX_INTEGER
from .effects import Affects, Kind, Reach
from .errors import MalformedError, quote
from .recordjson import (
    _SCAN,
    Json,
    _amount,
    _boolean,
    _check_members,
    _integer,
    _kind,
    _mapping,
    _object,
    _optional_string,
    _parse_line,
    _string,
    _string_list,
)
from .sentences import Items, Sentence

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
                raise MalformedError(
                    Sentence(
                        "give {members} or {other}, not both", members=Items(one), other=other
                    ),
                    member=name,
                )
        return False
    for name in one:
        if name not in o:
            raise MalformedError(Sentence("missing member"), member=name)
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
            raise MalformedError(Sentence("chosen goes with each"), member="chosen")
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
        raise MalformedError(Sentence("an exchange is between exactly 2 players"), member="players")
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
        raise MalformedError(Sentence("names no player"), member="players")
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
                Sentence(
                    'affects is "you", "opponents", "players" or a list of players, not {value}',
                    value=quote(value),
                ),
                member="affects",
            ) from None
    players = _string_list(value, "affects")
    if not players:
        raise MalformedError(Sentence("names no player"), member="affects")
    return players


@_parser("effect", ("id", "kind", "controller"), ("affects", "factor", "life_at_least", "until"))
def _effect(o: dict[str, Json], source: str | None, note: str | None) -> Action:
    kind = _string(o["kind"], "kind")
    try:
        effect_kind = Kind(kind)
    except ValueError:
        raise MalformedError(
            Sentence("unknown effect kind {kind}", kind=quote(kind)), member="kind"
        ) from None
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
        raise MalformedError(
            Sentence("a shortcut is a non-empty list of actions"), member="actions"
        )
    for i, a in enumerate(inner):
        if isinstance(a, dict) and a.get("do") == "repeat":
            raise MalformedError(
                Sentence("a shortcut can't hold a shortcut"), member=f"actions[{i}]"
            )
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
        raise MalformedError(
            Sentence("a together group is a non-empty list of actions"), member="actions"
        )
    if _group_depth(o) > MAX_GROUP_DEPTH:
        raise MalformedError(
            Sentence("groups nest at most {n} deep inside each other", n=MAX_GROUP_DEPTH),
            member="actions",
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


# The commonest actions are made without their dataclass's ``__init__`` (a call through the
# type, with keywords, costs more than the rest of reading the action): ``_new`` and each of
# the action's fields set, exactly as ``__init__`` would (tests/test_record_fast.py compares
# them, field by field, with what the general parser builds).
_new = object.__new__


def _fast_damage(o: dict[str, Json]) -> Action | None:
    try:
        to = o["to"]
        amount = o["amount"]
        source = o["source"]
    except KeyError:
        return None
    if not (
        type(to) is str
        and type(amount) is int
        and 0 <= amount <= MAX_INTEGER
        and type(source) is str  # damage names its source (120.1)
        and to.isascii()
        and source.isascii()
    ):
        return None
    combat = infect = lifelink = False
    controller = note = None
    toxic = 0
    extra = len(o) - 4  # the members besides do, source, to and amount
    if extra:
        if "note" in o:
            note = o["note"]
            if type(note) is not str or not note.isascii():
                return None
            extra -= 1
        if "combat" in o:
            combat = o["combat"]
            if combat is not True and combat is not False:
                return None
            extra -= 1
        if "infect" in o:
            infect = o["infect"]
            if infect is not True and infect is not False:
                return None
            extra -= 1
        if "lifelink" in o:
            lifelink = o["lifelink"]
            if lifelink is not True and lifelink is not False:
                return None
            extra -= 1
        if "controller" in o:
            controller = o["controller"]
            if controller is not None and (type(controller) is not str or not controller.isascii()):
                return None
            extra -= 1
        if "toxic" in o:
            toxic = o["toxic"]
            if type(toxic) is not int or not 0 <= toxic <= MAX_INTEGER:
                return None
            extra -= 1
        # An unknown member, or what Damage.__post_init__ refuses: the general parser names it.
        if extra or (lifelink and controller is None) or (toxic and not combat):
            return None
    action = _new(Damage)
    action.source = source
    action.note = note
    action.to = to
    action.amount = amount
    action.combat = combat
    action.infect = infect
    action.lifelink = lifelink
    action.controller = controller
    action.toxic = toxic
    return action


def _usual_extras(o: dict[str, Json], extra: int) -> tuple[Any, Any]:
    """The ``source`` and ``note`` of ``o`` if they are its ``extra`` members besides those of
    its action, and usual (ASCII text; the source may be null); else ``(None, _NO_NOTE)``,
    which leaves ``o`` to the general parser (an unknown member, a note that is no text)."""
    source = note = None
    if "source" in o:
        source = o["source"]
        if source is not None and (type(source) is not str or not source.isascii()):
            return None, _NO_NOTE
        extra -= 1
    if "note" in o:
        note = o["note"]
        if type(note) is not str or not note.isascii():
            return None, _NO_NOTE
        extra -= 1
    return (source, note) if extra == 0 else (None, _NO_NOTE)


def _fast_life(kind: type[LoseLife | GainLife]) -> Callable[[dict[str, Json]], Any]:
    """The fast path of ``lose_life`` and ``gain_life``: a ``player`` and an ``amount``."""

    def build(o: dict[str, Json]) -> Action | None:
        try:
            player = o["player"]
            amount = o["amount"]
        except KeyError:
            return None
        if type(player) is str and type(amount) is int and 0 <= amount <= MAX_INTEGER:
            source = note = None
            size = len(o)
            if size != 3:  # more than do, player and amount
                source, note = _usual_extras(o, size - 3)
                if note is _NO_NOTE:
                    return None
            if player.isascii():
                action = _new(kind)
                action.source = source
                action.note = note
                action.player = player
                action.amount = amount
                return action
        return None

    return build


def _fast_pay_life(o: dict[str, Json]) -> Action | None:
    try:
        player = o["player"]
        amount = o["amount"]
    except KeyError:
        return None
    if type(player) is str and type(amount) is int and 0 <= amount <= MAX_INTEGER:
        source = note = None
        size = len(o)
        if size != 3:  # more than do, player and amount
            source, note = _usual_extras(o, size - 3)
            if note is _NO_NOTE:
                return None
        if player.isascii():
            action = _new(PayLife)
            action.source = source
            action.note = note
            action.payments = ((player, amount),)
            action.single = True
            return action
    return None


def _fast_player_number(
    kind: Callable[..., Action],
    member: str = "amount",
    members: frozenset[str] = _PLAYER_AMOUNT,
    least: int = 0,
) -> Callable[[dict[str, Json]], Any]:
    """The fast path of an action of a ``player`` and one integer ``member`` (``least`` to
    the bound), with nothing but ``members``; ``None`` hands it to the general parser.
    ``kind`` takes the player, the integer, and ``source`` and ``note`` by name."""

    def build(o: dict[str, Json]) -> Action | None:
        player = o.get("player")
        value = o.get(member)
        if (
            type(player) is str
            and type(value) is int
            and least <= value <= MAX_INTEGER
            and player.isascii()
        ):
            size = len(o)
            if size == 3:  # do, player and the integer: nothing else
                return kind(player, value)
            source, note = _usual_extras(o, size - 3)
            if note is _NO_NOTE:
                return None
            return kind(player, value, source=source, note=note)
        return None

    return build


def _fast_counters(kind: type[AddCounters | RemoveCounters]) -> Callable[[dict[str, Json]], Any]:
    def build(o: dict[str, Json]) -> Action | None:
        try:
            player = o["player"]
            counter = o["kind"]
            amount = o["amount"]
        except KeyError:
            return None
        if (
            type(player) is str
            and type(counter) is str
            and type(amount) is int
            and 0 <= amount <= MAX_INTEGER
        ):
            source = note = None
            size = len(o)
            if size != 4:  # more than do, player, kind and amount
                source, note = _usual_extras(o, size - 4)
                if note is _NO_NOTE:
                    return None
            if player.isascii() and counter.isascii():
                action = _new(kind)
                action.source = source
                action.note = note
                action.player = player
                action.kind = counter
                action.amount = amount
                return action
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
    "lose_life": _fast_life(LoseLife),
    "gain_life": _fast_life(GainLife),
    "pay_life": _fast_pay_life,
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


#: The reader of a stream's usual lines straight into actions, if one is in use
#: (:func:`use_reader`).
_READ: Callable[[str], Action | None] | None = None


def use_reader(read: Callable[[str], Action | None] | None) -> None:
    """Read a stream's usual lines with ``read`` first (the ``fast`` extra's: msgspec decoding
    them into typed objects, :mod:`lifeledger_fast`), or no longer (``None``, the default).
    ``read`` returns the action on a line, exactly the one :func:`parse_action` makes of it,
    or ``None`` for any line it does not read so (then read as before, and what is wrong
    with it named as before); it sees only lines of at most :data:`MAX_DIGITS` characters."""
    global _READ
    _READ = read


def _line_action(line: str) -> Action:
    """The action on one line of a stream: :func:`parse_action` of :func:`_parse_line`, with
    the usual line (a flat object of one of the usual actions) read on the shortest path."""
    if len(line) <= MAX_DIGITS:
        read = _READ
        if read is not None:
            action = read(line)
            if action is not None:
                return action
        decode = _DECODE
        if decode is None:
            try:
                value, end = _SCAN(line, 0)
            except (StopIteration, ValueError, RecursionError):
                return parse_action(_parse_line(line))
            # The usual line ends with its object, or with the object and a line break.
            rest = len(line) - end
            if rest and (rest != 1 or line[end] != "\n") and not line[end:].isspace():
                return parse_action(_parse_line(line))
        else:
            try:
                value = decode(line)
            except Exception:  # whatever it refuses, the json module reads (and names)
                return parse_action(_parse_line(line))
        if (
            type(value) is dict
            and line.count(":") == len(value)  # no duplicate key (see _parse_line)
        ):
            do = value["do"] if "do" in value else None  # noqa: SIM401 (cheaper than get)
            if type(do) is str and do in _FAST:
                action = _FAST[do](value)
                if action is not None:
                    return action
            return _parse_action(value, None, None)
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
            raise MalformedError(
                Sentence("an action is a JSON object, not {kind}", kind=_kind(value)),
                member=member,
            )
        do = obj.get("do")
        if do is None:
            raise MalformedError(Sentence("missing member"), member="do")
        entry = _PARSERS.get(do) if type(do) is str else None
        if entry is None:
            raise MalformedError(
                Sentence("unknown action {name}", name=quote(_string(do, "do"))), member="do"
            )
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

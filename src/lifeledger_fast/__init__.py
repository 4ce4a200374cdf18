"""The ``fast`` extra of lifeledger (``pip install 'lifeledger[fast]'``): a stream's lines read
by msgspec's JSON decoder, written in C, instead of the json module of the standard library.

The rules package itself stays on the standard library alone, and its own reader stays the
default: this package hands it two readers. The first (:func:`lifeledger.record.use_reader`)
decodes a usual line (damage, life lost, gained, paid or set, counters, a draw, the actions
of one player, a step, a spell cast, day and night) straight into typed objects, whose
members msgspec has checked, and makes the action of them; any other line, or one it can't
read so, goes to the second (:func:`lifeledger.record.use_decoder`): msgspec's decoder of
any JSON, which keeps the json module for every line msgspec can't read or may read
differently. So a replay gives the same result either way, and the same errors (integers of
any size are read as integers, as the json module reads them). ``lifeledger replay --fast``
uses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Union

import msgspec
from msgspec import UNSET, Struct, UnsetType

from lifeledger import record
from lifeledger.actions import (
    Action,
    AddCounters,
    BecomeMonarch,
    BeginStep,
    Cast,
    CityBlessing,
    Concede,
    Damage,
    DayNight,
    Draw,
    GainLife,
    LoseLife,
    PayLife,
    Penalty,
    RemoveCounters,
    SetLife,
    TakeInitiative,
    Turn,
    Upkeep,
    Win,
)
from lifeledger.bounds import MAX_INTEGER
from lifeledger.errors import MalformedError

__all__ = ["install", "uninstall"]

# -- the usual lines, typed ------------------------------------------------------------------
#
# One struct per usual action, tagged by ``do``: msgspec checks the types of its members (a
# string, an integer, true or false; a null only where the record allows one) and refuses an
# unknown member. A member left out is UNSET, so that the members a line has can be counted:
# a line whose colons are more than its members holds a duplicate key (or a colon in a
# string), and goes to the general reader, which says what is wrong.

_Source = str | UnsetType | None
_Note = str | UnsetType


class _Typed(Struct, tag_field="do", forbid_unknown_fields=True):
    pass


class _Damage(_Typed, tag="damage"):
    to: str
    amount: int
    source: str  # damage names its source (120.1)
    combat: bool | UnsetType = UNSET
    infect: bool | UnsetType = UNSET
    lifelink: bool | UnsetType = UNSET
    controller: str | UnsetType | None = UNSET
    toxic: int | UnsetType = UNSET
    note: _Note = UNSET


class _LoseLife(_Typed, tag="lose_life"):
    player: str
    amount: int
    source: _Source = UNSET
    note: _Note = UNSET


class _GainLife(_LoseLife, tag="gain_life"):
    pass


class _PayLife(_LoseLife, tag="pay_life"):
    pass


class _SetLife(_Typed, tag="set_life"):
    player: str
    to: int
    source: _Source = UNSET
    note: _Note = UNSET


class _Draw(_Typed, tag="draw"):
    player: str
    count: int
    source: _Source = UNSET
    note: _Note = UNSET


class _AddCounters(_Typed, tag="add_counters"):
    player: str
    kind: str
    amount: int
    source: _Source = UNSET
    note: _Note = UNSET


class _RemoveCounters(_AddCounters, tag="remove_counters"):
    pass


class _OfOnePlayer(_Typed, tag="concede"):
    player: str
    source: _Source = UNSET
    note: _Note = UNSET


class _Step(_Typed, tag="step"):
    step: str
    source: _Source = UNSET
    note: _Note = UNSET


class _Cast(_Typed, tag="cast"):
    player: str
    count: int | UnsetType = UNSET
    source: _Source = UNSET
    note: _Note = UNSET


class _DayNight(_Typed, tag="day_night"):
    to: str
    source: _Source = UNSET
    note: _Note = UNSET


_ONE_PLAYER: dict[str, type[Action]] = {
    "concede": Concede,
    "win": Win,
    "penalty": Penalty,
    "upkeep": Upkeep,
    "turn": Turn,
    "become_monarch": BecomeMonarch,
    "take_initiative": TakeInitiative,
    "city_blessing": CityBlessing,
}
_OF_ONE_PLAYER: dict[type[_Typed], type[Action]] = {_OfOnePlayer: Concede}
for _do, _kind in _ONE_PLAYER.items():
    if _do != "concede":

        class _Other(_OfOnePlayer, tag=_do):
            pass

        _OF_ONE_PLAYER[_Other] = _kind

_decode = msgspec.json.Decoder(
    Union[
        (
            _Damage,
            _LoseLife,
            _GainLife,
            _PayLife,
            _SetLife,
            _Draw,
            _AddCounters,
            _RemoveCounters,
            _Step,
            _Cast,
            _DayNight,
            *_OF_ONE_PLAYER,
        )
    ]
).decode

# The actions are made as lifeledger.parsing makes the usual ones: without their dataclass's
# __init__, each field set (tests/test_record_fast.py compares them with the general parser's).
_new = object.__new__
_MIN_INTEGER = -MAX_INTEGER


def _extras(typed: Any, keys: int) -> tuple[Any, Any, int]:
    """The source and note of ``typed`` (``None`` where left out) and how many members it has
    (``keys`` besides them)."""
    source, note = typed.source, typed.note
    if source is UNSET:
        source = None
    else:
        keys += 1
    if note is UNSET:
        note = None
    else:
        keys += 1
    return source, note, keys


def _damage(typed: Any, colons: int) -> Action | None:
    amount = typed.amount
    if not 0 <= amount <= MAX_INTEGER:
        return None
    keys = 4  # do, to, amount, source
    combat, infect, lifelink = typed.combat, typed.infect, typed.lifelink
    controller, toxic, note = typed.controller, typed.toxic, typed.note
    if combat is UNSET:
        combat = False
    else:
        keys += 1
    if infect is UNSET:
        infect = False
    else:
        keys += 1
    if lifelink is UNSET:
        lifelink = False
    else:
        keys += 1
    if controller is UNSET:
        controller = None
    else:
        keys += 1
    if toxic is UNSET:
        toxic = 0
    else:
        keys += 1
        if not 0 <= toxic <= MAX_INTEGER:
            return None
    if note is UNSET:
        note = None
    else:
        keys += 1
    # A duplicate key, or what Damage.__post_init__ refuses: the general reader names it.
    if keys != colons or (lifelink and controller is None) or (toxic and not combat):
        return None
    action = _new(Damage)
    action.source = typed.source
    action.note = note
    action.to = typed.to
    action.amount = amount
    action.combat = combat
    action.infect = infect
    action.lifelink = lifelink
    action.controller = controller
    action.toxic = toxic
    return action


def _life(kind: type[LoseLife | GainLife]) -> Callable[[Any, int], Action | None]:
    def make(typed: _LoseLife, colons: int) -> Action | None:
        amount = typed.amount
        source, note, keys = _extras(typed, 3)
        if keys != colons or not 0 <= amount <= MAX_INTEGER:
            return None
        action = _new(kind)
        action.source = source
        action.note = note
        action.player = typed.player
        action.amount = amount
        return action

    return make


def _pay_life(typed: _PayLife, colons: int) -> Action | None:
    amount = typed.amount
    source, note, keys = _extras(typed, 3)
    if keys != colons or not 0 <= amount <= MAX_INTEGER:
        return None
    action = _new(PayLife)
    action.source = source
    action.note = note
    action.payments = ((typed.player, amount),)
    action.single = True
    return action


def _set_life(typed: _SetLife, colons: int) -> Action | None:
    source, note, keys = _extras(typed, 3)
    if keys != colons or not _MIN_INTEGER <= typed.to <= MAX_INTEGER:
        return None
    return SetLife(typed.player, typed.to, source=source, note=note)


def _draw(typed: _Draw, colons: int) -> Action | None:
    source, note, keys = _extras(typed, 3)
    if keys != colons or not 0 <= typed.count <= MAX_INTEGER:
        return None
    return Draw(typed.player, typed.count, source=source, note=note)


def _counters(kind: type[AddCounters | RemoveCounters]) -> Callable[[Any, int], Action | None]:
    def make(typed: _AddCounters, colons: int) -> Action | None:
        amount = typed.amount
        source, note, keys = _extras(typed, 4)
        if keys != colons or not 0 <= amount <= MAX_INTEGER:
            return None
        action = _new(kind)
        action.source = source
        action.note = note
        action.player = typed.player
        action.kind = typed.kind
        action.amount = amount
        return action

    return make


def _one_player(kind: Callable[..., Action]) -> Callable[[Any, int], Action | None]:
    def make(typed: _OfOnePlayer, colons: int) -> Action | None:
        source, note, keys = _extras(typed, 2)
        if keys != colons:
            return None
        return kind(typed.player, source=source, note=note)

    return make


def _step(typed: _Step, colons: int) -> Action | None:
    source, note, keys = _extras(typed, 2)
    if keys != colons:
        return None
    try:  # a step the rules don't name: the general reader says so
        return BeginStep(typed.step, (), source=source, note=note)
    except MalformedError:
        return None


def _cast(typed: Any, colons: int) -> Action | None:
    source, note, keys = _extras(typed, 2)
    count = typed.count
    if count is UNSET:
        count = 1
    else:
        keys += 1
    if keys != colons or not 0 <= count <= MAX_INTEGER:
        return None
    return Cast(typed.player, count, source=source, note=note)


def _day_night(typed: _DayNight, colons: int) -> Action | None:
    source, note, keys = _extras(typed, 2)
    if keys != colons:
        return None
    try:  # neither day nor night: the general reader says so
        return DayNight(typed.to, source=source, note=note)
    except MalformedError:
        return None


_MAKE: dict[type[_Typed], Callable[[Any, int], Action | None]] = {
    _Damage: _damage,
    _LoseLife: _life(LoseLife),
    _GainLife: _life(GainLife),
    _PayLife: _pay_life,
    _SetLife: _set_life,
    _Draw: _draw,
    _AddCounters: _counters(AddCounters),
    _RemoveCounters: _counters(RemoveCounters),
    _Step: _step,
    _Cast: _cast,
    _DayNight: _day_night,
    **{typed: _one_player(kind) for typed, kind in _OF_ONE_PLAYER.items()},
}


def read(line: str) -> Action | None:
    """The action on a usual line of a stream, or ``None`` for the general reader: a line
    with any text that is not ASCII (or may decode to such: a ``\\u`` escape, which may be a
    lone surrogate), one that is not a usual action, or one whose values the action refuses."""
    if not line.isascii() or "\\u" in line:
        return None
    try:
        typed = _decode(line)
    except (msgspec.MsgspecError, RecursionError):
        return None
    return _MAKE[type(typed)](typed, line.count(":"))


def install() -> None:
    """Read streams with msgspec from now on."""
    record.use_reader(read)
    record.use_decoder(msgspec.json.Decoder().decode)


def uninstall() -> None:
    """Read streams with the json module again (the default)."""
    record.use_reader(None)
    record.use_decoder(None)

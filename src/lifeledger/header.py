"""The game record's header: the seats, the variant, the format and the options of a game
(:class:`Header`), read and written."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import MalformedError, quote
from .game import RECORD_VERSIONS, Game
from .recordjson import (
    Json,
    _boolean,
    _check_members,
    _integer,
    _object,
    _optional_string,
    _string,
    _string_list,
)
from .seats import Seat
from .sentences import Sentence

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
            Sentence("this is record version 1 or 2, not {value}", value=quote(version)),
            member="record",
        )
    players = obj["players"]
    if not isinstance(players, list) or len(players) < 2:
        raise MalformedError(Sentence("players is a list of 2 or more players"), member="players")
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

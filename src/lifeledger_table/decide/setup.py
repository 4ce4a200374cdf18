"""Turning the "open a table" form into a record header, with every check a name needs.

The form speaks in display names; the record speaks in ids. Ids are made from the names, and
the names go into the header's ``name`` members (and ``labels`` for teams and commanders).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from lifeledger.sentences import Sentence

from . import engine
from .errors import TableError
from .text import check_text, what_of

__all__ = ["MAX_PLAYERS", "build_setup", "check_name"]

MAX_PLAYERS = 16
COLOURS = 16  # the page's palette of player colours (static/layout.js)
MAX_NAME = 40


def check_name(value: object, what: str) -> str:
    """A display name, trimmed; raises :class:`TableError` for anything else: not text, empty,
    too long, control characters, or markup (``<`` or ``>``)."""
    if not isinstance(value, str):
        raise TableError(
            "malformed", Sentence("The {what} is not text.", what=what_of(what)), member=what
        )
    name = value.strip()
    if not name:
        raise TableError(
            "malformed", Sentence("The {what} is empty.", what=what_of(what)), member=what
        )
    if len(name) > MAX_NAME:
        raise TableError(
            "malformed",
            Sentence("The {what} is longer than {n} characters.", what=what_of(what), n=MAX_NAME),
            member=what,
        )
    check_text(name, what, what)
    return name


def _slug(name: str, fallback: str, taken: set[str]) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")[:32] or fallback
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _int(value: object, what: str, low: int, high: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TableError(
            "malformed", Sentence("The {what} is not a whole number.", what=what), member=what
        )
    if not low <= value <= high:
        raise TableError(
            "malformed",
            Sentence("The {what} must be between {low} and {high}.", what=what, low=low, high=high),
            member=what,
        )
    return value


def _flag(value: object, what: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        raise TableError("malformed", Sentence("{what} is true or false.", what=what), member=what)
    return value


def build_setup(form: object) -> dict[str, Any]:
    """The stored setup for a form, checked by the engine: ``header``, ``best_of``, ``labels``
    (names of teams and commanders), ``counted`` (the players whose libraries are counted) and
    ``colours`` (each player's panel colour, an index in the page's palette of
    :data:`COLOURS`, when chosen; no two players share one).

    Raises :class:`TableError` with a sentence a person can act on.
    """
    if not isinstance(form, dict):
        raise TableError("malformed", Sentence("The table's setup is a JSON object."))
    unknown = set(form) - {"variant", "format", "starting_life", "best_of", "players"}
    if unknown:
        raise TableError(
            "malformed", Sentence("Unknown setup member {member}.", member=repr(sorted(unknown)[0]))
        )
    players = form.get("players")
    if not isinstance(players, list) or not players:
        raise TableError("malformed", Sentence("A table needs its players."), member="players")
    if len(players) > MAX_PLAYERS:
        raise TableError(
            "malformed",
            Sentence("A table seats at most {n} players.", n=MAX_PLAYERS),
            member="players",
        )
    labels: dict[str, str] = {}
    ids: set[str] = set()
    team_ids: dict[str, str] = {}
    seats: list[dict[str, Any]] = []
    counted: list[str] = []
    colours: dict[str, int] = {}
    for index, player in enumerate(players, start=1):
        if not isinstance(player, dict):
            raise TableError(
                "malformed", Sentence("Each player is a JSON object."), member="players"
            )
        allowed = {
            "name",
            "team",
            "commanders",
            "library",
            "life_modifier",
            "archenemy",
            "emperor",
            "colour",
        }
        extra = set(player) - allowed
        if extra:
            raise TableError(
                "malformed",
                Sentence("Unknown player member {member}.", member=repr(sorted(extra)[0])),
            )
        name = check_name(player.get("name"), "player's name")
        seat: dict[str, Any] = {"id": _slug(name, f"p{index}", ids), "name": name}
        team = player.get("team")
        if team not in (None, ""):
            team_name = check_name(team, "team's name")
            if team_name not in team_ids:
                team_ids[team_name] = _slug(team_name, f"team{len(team_ids) + 1}", ids)
                labels[team_ids[team_name]] = team_name
            seat["team"] = team_ids[team_name]
        commanders = player.get("commanders") or []
        if not isinstance(commanders, list) or len(commanders) > 2:
            raise TableError(
                "malformed",
                Sentence("A player has at most two commanders (partners)."),
                member="commanders",
            )
        if commanders:
            seat["commanders"] = []
            for commander in commanders:
                cname = check_name(commander, "commander's name")
                cid = _slug(f"{seat['id']}-{cname}", f"{seat['id']}-commander", ids)
                labels[cid] = cname
                seat["commanders"].append(cid)
        # A library the players don't count is untracked (the header omits it): draws never
        # run out of it, the draw step's included (504.1). The table states it empty with
        # set_library when it is (121.4, 704.5b).
        library = _int(player.get("library"), "library", 0, 10_000)
        if library is not None:
            seat["library"] = library
            counted.append(seat["id"])
        modifier = _int(player.get("life_modifier"), "life_modifier", -1000, 1000)
        if modifier is not None:
            seat["life_modifier"] = modifier
        if _flag(player.get("archenemy"), "archenemy"):
            seat["archenemy"] = True
        if _flag(player.get("emperor"), "emperor"):
            seat["emperor"] = True
        colour = _int(player.get("colour"), "colour", 0, COLOURS - 1)
        if colour is not None:
            if colour in colours.values():
                raise TableError(
                    "malformed",
                    Sentence("Two players have colour {colour}; each has its own.", colour=colour),
                    member="colour",
                )
            colours[seat["id"]] = colour
        seats.append(seat)
    header: dict[str, Any] = {"record": 2}
    variant = form.get("variant")
    if variant not in (None, ""):
        if not isinstance(variant, str):
            raise TableError("malformed", Sentence("The variant is a name."), member="variant")
        header["variant"] = variant
    fmt = form.get("format") or "normal"
    if not isinstance(fmt, str):
        raise TableError("malformed", Sentence("The format is a name."), member="format")
    header["format"] = fmt
    starting = _int(form.get("starting_life"), "starting_life", 1, 1_000_000)
    header["options"] = {"starting_life": starting, "range_of_influence": None}
    header["players"] = seats
    # 100.6a: the engine knows the usual length of a match; "best_of": null is an open match.
    best_of = form.get("best_of", engine.Match.usual(len(seats)).best_of)
    try:
        engine.Match(best_of)
    except engine.MalformedError as exc:
        raise TableError(
            "malformed", Sentence("{message}.", message=exc.message), member="best_of"
        ) from exc
    try:
        engine.check_header(header)
    except engine.MalformedError as exc:
        raise TableError("malformed", exc.message, member=exc.member) from exc
    setup = {"header": header, "best_of": best_of, "labels": labels, "counted": counted}
    if colours:
        setup["colours"] = colours
    return setup

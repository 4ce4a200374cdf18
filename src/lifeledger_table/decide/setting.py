"""A player's name or colour changed at the table (issue 17 item 2: a quick game's "Player 1"
becomes Ana): the change checked whole, its step (the game is as it was; the setup is the
table's), and what is kept of it beside the log (:data:`.state.SETUP_KEY`).

The form that opens a table is :mod:`.setup`'s.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from lifeledger.sentences import Sentence

from ..store.records import Checkpoint, Event
from .entries import Entry, Step
from .errors import TableError
from .setup import COLOURS, check_name
from .state import SETUP_KEY, TableState

__all__ = ["renamed", "setup_change", "setup_step", "take_setup"]

log = logging.getLogger("lifeledger_table")


def setup_step(table: TableState, event: Event, entry: Entry) -> Step:
    """The step of a ``setup`` event: the game as it was, the header and colours after it,
    and its checkpoint of the players' names and colours (:data:`.state.SETUP_KEY`)."""
    entry.setup, header, colours = setup_change(table, event.body)
    segment = (table.base, table.base_count, table.tail)
    step = Step(event, entry, table.game, table.state, table.count, table.last, segment)
    step.effects_changed = False
    step.setup = (header, colours)
    names = {p["id"]: p["name"] for p in header["players"]}
    data = json.dumps({"names": names, "colours": colours}).encode()
    step.checkpoint = Checkpoint(table.id, *SETUP_KEY, event.seq, data)
    return step


def take_setup(table: TableState, found: Checkpoint | None) -> bool:
    """Take in the players' names and colours as changed at the table (``setup`` events),
    kept beside the log (:data:`SETUP_KEY`); ``False`` if what is kept can't be read (the
    log is then replayed from its start, which makes it again)."""
    if found is None:
        return True
    try:
        kept = json.loads(found.data)
        names, colours = kept["names"], kept["colours"]
        ids = set(table.player_ids())
        if not (
            set(names) == ids
            and all(isinstance(n, str) and n for n in names.values())
            and set(colours) <= ids
            and all(type(c) is int and 0 <= c < COLOURS for c in colours.values())
        ):
            raise ValueError("not the table's players")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        log.info("table %s: replaying its log (its players' names: %s)", table.id, exc)
        return False
    table.header = renamed(table.header, names)
    table.colours = dict(colours)
    return True


def setup_change(
    table: TableState, body: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, int]]:
    """A change of a player's name or colour, checked whole before anything changes: the
    timeline's account of it, and the header and colours after it. Raises
    :class:`TableError` naming the member at fault."""
    extra = sorted(set(body) - {"player", "name", "colour", "device"})
    if extra:
        raise TableError(
            "malformed",
            Sentence("Unknown member {member}.", member=repr(extra[0])),
            member=extra[0],
        )
    player = body.get("player")
    if not isinstance(player, str) or player not in table.player_ids():
        raise TableError(
            "unknown-player",
            Sentence("Name the player whose name or colour changes (their id)."),
            member="player",
        )
    name, colour = body.get("name"), body.get("colour")
    if name is None and colour is None:
        raise TableError(
            "malformed",
            Sentence(
                'Give {player} a new "name", a "colour", or both.', player=table.label(player)
            ),
        )
    names = {p["id"]: str(p.get("name") or p["id"]) for p in table.header["players"]}
    change: dict[str, Any] = {"player": player}
    if name is not None:
        try:
            name = check_name(name, "player's name")
        except TableError as exc:
            raise TableError(exc.code, exc.message, member="name") from exc
        for other, known in names.items():
            if other != player and known.casefold() == name.casefold():
                raise TableError(
                    "name-taken",
                    Sentence(
                        "{name} is another player's name at this table: choose another.",
                        name=known,
                    ),
                    member="name",
                )
        if name != names[player]:
            change["name"] = {"from": names[player], "to": name}
    colours = dict(table.colours)
    if colour is not None:
        if type(colour) is not int or not 0 <= colour < COLOURS:
            raise TableError(
                "malformed",
                Sentence(
                    "A colour is a number from 0 to {last} (the palette's).", last=COLOURS - 1
                ),
                member="colour",
            )
        for other, chosen in colours.items():
            if other != player and chosen == colour:
                raise TableError(
                    "colour-taken",
                    Sentence("{name} has that colour: choose another.", name=names[other]),
                    member="colour",
                )
        if colours.get(player) != colour:
            change["colour"] = {"from": colours.get(player), "to": colour}
            colours[player] = colour
    if len(change) == 1:
        raise TableError(
            "unchanged",
            Sentence("{name} has that name and colour already.", name=names[player]),
        )
    if "name" in change:
        names[player] = change["name"]["to"]
    return change, renamed(table.header, names), colours


def renamed(header: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The header with its players' names as ``names`` says (a new header: never changed)."""
    players = [
        {**p, "name": names[p["id"]]} if names.get(p["id"], p.get("name")) != p.get("name") else p
        for p in header["players"]
    ]
    return {**header, "players": players}

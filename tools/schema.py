"""The JSON Schema (draft 2020-12) of the game record, versions 1 and 2, written from the engine's
own lists (actions, effect kinds, the card catalogue, variants and formats):

    python tools/schema.py          # writes src/lifeledger/schema/record.schema.json
    python tools/schema.py --check  # exit status 1 if the file differs from what it would write

The schema checks a record's shape: which members each object has, their types, the words each
may be, which actions, kinds and cards each version has. It can't check what needs the game
(an unknown player, an id declared twice, a choice left unstated, an integer past 10^1000, a
JSON text with a member twice, which a parser has already collapsed): a record the schema
accepts may still be malformed, and the engine's word is final (docs/conformance.md). A record
the engine replays always validates (tests/test_schema.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from lifeledger.effects import CARD_ONLY_KINDS, CATALOGUE, CATALOGUE_V2, VERSION_2_KINDS, Kind
from lifeledger.formats import FORMATS
from lifeledger.seats import ID_PATTERN
from lifeledger.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "src" / "lifeledger" / "schema" / "record.schema.json"

Schema = dict[str, Any]

STRING: Schema = {"type": "string"}
OPTIONAL_STRING: Schema = {"type": ["string", "null"]}
COUNT: Schema = {"type": "integer", "minimum": 0}
INTEGER: Schema = {"type": "integer"}
STRINGS: Schema = {"type": "array", "items": STRING}
PLAYERS: Schema = {"type": "array", "items": STRING, "minItems": 1}


def ref(name: str) -> Schema:
    return {"$ref": f"#/$defs/{name}"}


def by_player(value: Schema, *, empty: bool = False) -> Schema:
    """An object whose keys are players' (or teams') ids."""
    out: Schema = {"type": "object", "additionalProperties": value}
    if not empty:
        out["minProperties"] = 1
    return out


def action(required: tuple[str, ...], optional: dict[str, Schema], **more: Any) -> Schema:
    """An action object: ``do``, ``source`` and ``note`` besides its own members."""
    members = {name: schema for name, schema in optional.items()}
    return {
        "type": "object",
        "required": ["do", *required],
        "properties": {"do": STRING, "source": OPTIONAL_STRING, "note": STRING, **members},
        "additionalProperties": False,
        **more,
    }


def either(one: tuple[str, ...], other: tuple[str, ...]) -> Schema:
    """Exactly one of two forms: every member of ``one`` and none of ``other``, or the reverse
    (``other``'s first member required)."""
    return {
        "oneOf": [
            {"required": list(one), "not": {"anyOf": [{"required": [n]} for n in other]}},
            {"required": [other[0]], "not": {"anyOf": [{"required": [n]} for n in one]}},
        ]
    }


#: The actions of version 2 alone (docs/record-format.md).
VERSION_2_ACTIONS = (
    "turn",
    "step",
    "cast",
    "become_monarch",
    "take_initiative",
    "day_night",
    "city_blessing",
    "set_library",
    "choose",
    "repeat",
)
#: What a group or a shortcut may not hold (member ``do`` at the inner position).
NOT_IN_GROUP = ("turn", "step", "restart")
NOT_IN_REPEAT = ("turn", "step", "restart", "repeat")


def actions(version: int) -> dict[str, Schema]:
    """Each ``do`` of record ``version`` and its object's schema."""
    v = f"v{version}"
    amount, signed = ref("amount"), ref("signed_amount")
    kinds = [k.value for k in Kind if k not in CARD_ONLY_KINDS]
    if version == 1:
        kinds = [k for k in kinds if Kind(k) not in VERSION_2_KINDS]
    cards = sorted(CATALOGUE if version == 2 else set(CATALOGUE) - CATALOGUE_V2)
    effect: dict[str, Schema] = {
        "id": STRING,
        "kind": {"enum": kinds},
        "controller": STRING,
        "affects": {
            "anyOf": [{"enum": ["you", "opponents", "players"]}, PLAYERS],
        },
        "factor": {"type": ["integer", "null"], "minimum": 0},
        "life_at_least": {"type": ["integer", "null"], "minimum": 0},
    }
    if version == 2:
        effect["until"] = {"enum": ["end_of_turn", None]}
    counters = {"player": STRING, "kind": ref("counter_kind"), "amount": amount}
    out: dict[str, Schema] = {
        "damage": action(
            ("source", "to", "amount"),
            {
                "to": STRING,
                "amount": amount,
                "combat": {"type": "boolean"},
                "infect": {"type": "boolean"},
                "lifelink": {"type": "boolean"},
                "controller": OPTIONAL_STRING,
                "toxic": COUNT,
            },
        ),
        "lose_life": action(("player", "amount"), {"player": STRING, "amount": amount}),
        "gain_life": action(("player", "amount"), {"player": STRING, "amount": amount}),
        "pay_life": action(
            (),
            {"player": STRING, "amount": amount, "payments": by_player(amount)},
            **either(("player", "amount"), ("payments",)),
        ),
        "set_life": action(
            (),
            {
                "player": STRING,
                "to": signed,
                "each": by_player(signed),
                "chosen": by_player(STRING, empty=True),
            },
            **either(("player", "to"), ("each", "chosen")),
        ),
        "exchange_life": action(
            ("players",), {"players": {**STRINGS, "minItems": 2, "maxItems": 2}}
        ),
        "redistribute_life": action(
            ("totals",), {"totals": by_player(INTEGER), "controller": OPTIONAL_STRING}
        ),
        "add_counters": action(("player", "kind", "amount"), counters),
        "remove_counters": action(("player", "kind", "amount"), counters),
        "draw": action(("player", "count"), {"player": STRING, "count": COUNT}),
        "concede": action(("player",), {"player": STRING}),
        "win": action(("player",), {"player": STRING}),
        "lose": action(
            (), {"player": STRING, "players": PLAYERS}, **either(("player",), ("players",))
        ),
        "draw_game": action((), {"controller": OPTIONAL_STRING}),
        "loop": action(("controllers",), {"controllers": STRINGS}),
        "intentional_draw": action((), {}),
        "penalty": action(("player",), {"player": STRING}),
        "restart": action((), {"controller": OPTIONAL_STRING}),
        "effect": action(("id", "kind", "controller"), effect),
        "card": action(
            ("id", "name", "controller"),
            {"id": STRING, "name": {"enum": cards}, "controller": STRING},
        ),
        "end": action(("id",), {"id": STRING}),
        "upkeep": action(("player",), {"player": STRING}),
        "together": action(
            ("actions",),
            {
                "actions": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "allOf": [
                            ref(f"action_{v}"),
                            {"not": {"properties": {"do": {"enum": list(NOT_IN_GROUP)}}}},
                        ]
                    },
                }
            },
        ),
    }
    if version == 1:
        return out
    one_player = {"player": STRING}
    out.update(
        {
            "turn": action(("player",), one_player),
            "step": action(
                ("step",),
                {
                    "step": {"enum": ["draw", "main", "end", "cleanup"]},
                    "nonland_milled": by_player(COUNT, empty=True),
                },
            ),
            "cast": action(("player",), {"player": STRING, "count": COUNT}),
            "become_monarch": action(("player",), one_player),
            "take_initiative": action(("player",), one_player),
            "day_night": action(("to",), {"to": {"enum": ["day", "night"]}}),
            "city_blessing": action(("player",), one_player),
            "set_library": action(("player", "count"), {"player": STRING, "count": COUNT}),
            "choose": action(
                ("player",),
                {
                    "player": STRING,
                    "order": {**STRINGS, "uniqueItems": True},
                    "targets": by_player({"anyOf": [STRING, PLAYERS]}, empty=True),
                    "replacements": {**STRINGS, "uniqueItems": True},
                },
            ),
            "repeat": action(
                ("times", "actions"),
                {
                    "times": {"type": "integer", "minimum": 1},
                    "actions": {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "allOf": [
                                ref(f"action_{v}"),
                                {"not": {"properties": {"do": {"enum": list(NOT_IN_REPEAT)}}}},
                            ]
                        },
                    },
                },
            ),
        }
    )
    return out


def dispatch(version: int, names: dict[str, Schema]) -> Schema:
    """An action of record ``version``: an object whose ``do`` is one of its actions, checked
    against that action's schema."""
    return {
        "type": "object",
        "required": ["do"],
        "properties": {"do": {"enum": list(names)}},
        "allOf": [
            {
                "if": {"properties": {"do": {"const": do}}, "required": ["do"]},
                "then": ref(f"{do}_v{version}"),
            }
            for do in names
        ],
    }


def build() -> Schema:
    """The schema of a record document of version 1 or 2; its ``$defs`` hold a stream's
    header (``header``) and each version's action (``action_v1``, ``action_v2``)."""
    defs: dict[str, Schema] = {}
    for version in (1, 2):
        names = actions(version)
        for do, schema in names.items():
            defs[f"{do}_v{version}"] = schema
        defs[f"action_v{version}"] = dispatch(version, names)
    life_of: Schema = {
        "type": "object",
        "required": ["life_of"],
        "properties": {
            "life_of": STRING,
            "fraction": {
                "type": "array",
                "prefixItems": [COUNT, {"type": "integer", "minimum": 1}],
                "minItems": 2,
                "maxItems": 2,
            },
            "round": {"enum": ["up", "down", None]},
            "note": STRING,
        },
        "additionalProperties": False,
    }
    defs.update(
        {
            "life_of": life_of,
            "amount": {"anyOf": [COUNT, ref("life_of")]},
            "signed_amount": {"anyOf": [INTEGER, ref("life_of")]},
            "counter_kind": {
                "type": "string",
                "pattern": "^[a-z]+(?:[_-][a-z0-9]+)*$",
                "maxLength": 64,
            },
            "seat": {
                "type": "object",
                "required": ["id"],
                "properties": {
                    "id": {"type": "string", "pattern": f"^{ID_PATTERN.pattern}$"},
                    "name": OPTIONAL_STRING,
                    "team": {"type": ["string", "null"], "minLength": 1},
                    "library": {"type": ["integer", "null"], "minimum": 0},
                    "life_modifier": {"type": ["integer", "null"]},
                    "commanders": {
                        "type": "array",
                        "items": {"type": "string", "minLength": 1},
                        "uniqueItems": True,
                    },
                    "archenemy": {"type": "boolean"},
                    "emperor": {"type": "boolean"},
                    "range": {"type": ["integer", "null"], "minimum": 0},
                    "note": STRING,
                },
                "additionalProperties": False,
            },
            "header": {
                "type": "object",
                "required": ["record", "players"],
                "properties": {
                    "record": {"enum": [1, 2]},
                    "variant": {"enum": [*VARIANTS, None]},
                    "format": {"enum": [*FORMATS, None]},
                    "options": {
                        "type": "object",
                        "properties": {
                            "starting_life": {"type": ["integer", "null"], "minimum": 1},
                            "range_of_influence": {"type": ["integer", "null"], "minimum": 0},
                            "note": STRING,
                        },
                        "additionalProperties": False,
                    },
                    "players": {"type": "array", "minItems": 2, "items": ref("seat")},
                    "note": STRING,
                },
                "additionalProperties": False,
            },
        }
    )
    header_members = defs["header"]["properties"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://lifeledger.invalid/schema/record.schema.json",
        "title": "lifeledger game record (versions 1 and 2)",
        "description": (
            "A record document: the header's members and its actions. A stream (.jsonl) is a"
            " header ($defs/header) on its first line, then one action a line ($defs/action_v1"
            " or $defs/action_v2, as its record says). The schema checks the shape; the engine"
            " decides the rest (docs/conformance.md)."
        ),
        "type": "object",
        "required": ["record", "players", "actions"],
        "properties": {**header_members, "actions": {"type": "array"}},
        "additionalProperties": False,
        "if": {"properties": {"record": {"const": 1}}, "required": ["record"]},
        "then": {"properties": {"actions": {"items": ref("action_v1")}}},
        "else": {"properties": {"actions": {"items": ref("action_v2")}}},
        "$defs": defs,
    }


def text() -> str:
    return json.dumps(build(), indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        if TARGET.read_text(encoding="utf-8") != text():
            print(f"{TARGET}: out of date; run python tools/schema.py", file=sys.stderr)
            return 1
        return 0
    if argv:
        print("usage: python tools/schema.py [--check]", file=sys.stderr)
        return 2
    TARGET.parent.mkdir(exist_ok=True)
    TARGET.write_text(text(), encoding="utf-8")
    print(TARGET)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

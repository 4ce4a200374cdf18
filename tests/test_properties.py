"""Property-based tests: random well-formed records, checked against what the spec promises.

- Well-formed input never raises out of ``record.replay``; inside the engine, ``game.apply``
  raises nothing but ``RefusedError`` (and never ``MalformedError``) for well-formed actions.
- A refused action leaves the state exactly as it was.
- ``record.dumps(game)`` replays to the same state, in both shapes.
- The document and stream shapes of one record replay to the same state.
- In Two-Headed Giant a team's life total is its starting total plus the net of every life
  change applied to its members (810.9), and every member's life is the team's (810.9a).

Actions are drawn one at a time against the current state, so targets, ids to end and
redistributions are always well-formed.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lifeledger import record
from lifeledger import state as ll_state
from lifeledger.errors import ChoiceNeeded, MalformedError, RefusedError

#: The profile's settings (tests/conftest.py): derandomized in `make test`, random in `make fuzz`.
SETTINGS = settings()

FORMATS = ["normal", "commander", "brawl", "vanguard", "planechase"]
# Combinations the rules surely define; any other gets options.starting_life (a house variant).
DEFINED = {
    "two-player": set(FORMATS),
    "free-for-all": set(FORMATS),
    "archenemy": {"normal", "commander"},
}
VARIANTS = [
    "two-player",
    "free-for-all",
    "grand-melee",
    "team-vs-team",
    "two-headed-giant",
    "emperor",
    "alternating-teams",
    "archenemy",
    "supervillain-rumble",
]
EFFECT_KINDS = [
    "cant_gain_life",
    "cant_lose_life",
    "life_total_cant_change",
    "cant_lose_game",
    "cant_win_game",
    "no_loss_for_life",
    "cant_get_poison",
    "gain_life_times",
    "gain_becomes_loss",
    "on_gain_life",
    "on_lose_life",
    "win_at_upkeep",
    "win_on_empty_draw",
    "infect_at_or_below_zero",
]
CARDS = [
    "Platinum Angel",
    "Abyssal Persecutor",
    "Platinum Emperion",
    "Phyrexian Unlife",
    "Leyline of Punishment",
    "Erebos, God of the Dead",
    "Rhox Faithmender",
    "Boon Reflection",
    "Tainted Remedy",
    "Ajani's Pridemate",
    "Test of Endurance",
    "Felidar Sovereign",
    "Laboratory Maniac",
]
CONTROLLER_ONLY = {"win_at_upkeep", "win_on_empty_draw"}
# Actions that end the game (or a player's part in it) outright: drawn less often.
ENDINGS = {"win", "lose", "concede", "draw_game", "loop", "intentional_draw", "penalty"}
COUNTER_KINDS = ["poison", "energy", "experience", "rad"]


# --- headers ----------------------------------------------------------------------------------


def _seated(team_sizes: list[int], alternate: bool) -> list[tuple[str, str]]:
    """(player id, team) in seating order: team by team, or alternately (811.3)."""
    teams = [[(f"t{t}p{i}", f"t{t}") for i in range(n)] for t, n in enumerate(team_sizes)]
    if not alternate:
        return [seat for team in teams for seat in team]
    return [team[i] for i in range(team_sizes[0]) for team in teams]


@st.composite
def headers(draw: st.DrawFn, variants: list[str] | None = None) -> dict[str, Any]:
    variant = draw(st.sampled_from(variants or VARIANTS))
    fmt = draw(st.sampled_from(FORMATS))
    players: list[dict[str, Any]]
    if variant == "two-player":
        players = [{"id": "p0"}, {"id": "p1"}]
    elif variant in ("free-for-all", "grand-melee", "supervillain-rumble"):
        players = [{"id": f"p{i}"} for i in range(draw(st.integers(3, 6)))]
        if variant == "supervillain-rumble":
            players = [{**p, "archenemy": True} for p in players]
    elif variant == "team-vs-team":
        sizes = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))
        players = [{"id": p, "team": t} for p, t in _seated(sizes, False)]
    elif variant == "two-headed-giant":
        size = draw(st.integers(2, 3))
        players = [{"id": p, "team": t} for p, t in _seated([size, size], False)]
    elif variant == "alternating-teams":
        size = draw(st.integers(1, 2))
        n_teams = draw(st.integers(2, 3))
        players = [{"id": p, "team": t} for p, t in _seated([size] * n_teams, True)]
    elif variant == "emperor":
        size = draw(st.sampled_from([3, 4]))
        n_teams = 2 if size == 4 else draw(st.integers(2, 3))
        players = []
        for t in range(n_teams):
            for i in range(size):
                seat: dict[str, Any] = {"id": f"t{t}p{i}", "team": f"t{t}"}
                if i == 1:
                    seat["emperor"] = True
                players.append(seat)
    else:  # archenemy
        heroes = draw(st.integers(2, 4))
        team = draw(st.sampled_from([None, "heroes", "guild"]))
        players = [{"id": "arch", "archenemy": True}]
        players += [{"id": f"h{i}", **({"team": team} if team else {})} for i in range(heroes)]
    for p in players:
        if draw(st.booleans()):
            p["library"] = draw(st.integers(0, 4))
        if fmt == "vanguard":
            p["life_modifier"] = draw(st.integers(-5, 5))
        if fmt in ("commander", "brawl"):
            p["commanders"] = [f"{p['id']}-c"]
        if variant in ("free-for-all", "grand-melee") and draw(st.integers(0, 4)) == 0:
            p["range"] = draw(st.integers(1, 3))
    options: dict[str, Any] = {}
    if fmt not in DEFINED.get(variant, {"normal"}) or draw(st.integers(0, 5)) == 0:
        options["starting_life"] = draw(st.integers(1, 60))
    if variant in ("free-for-all", "team-vs-team") and draw(st.integers(0, 3)) == 0:
        options["range_of_influence"] = draw(st.integers(1, 2))
    head: dict[str, Any] = {"record": 1, "variant": variant, "format": fmt, "players": players}
    if options:
        head["options"] = options
    return head


# --- actions, drawn against the current state --------------------------------------------------


@dataclass
class Table:
    """What the action generator knows: the header and the ids in play."""

    header: dict[str, Any]
    next_id: int = 0
    active: list[str] = field(default_factory=list)  # effect and card ids that may be ended

    @property
    def ids(self) -> list[str]:
        return [p["id"] for p in self.header["players"]]

    def applied(self, obj: dict[str, Any]) -> None:
        """Note what an action the game accepted put in play or ended (a restart ends all)."""
        if obj["do"] in ("effect", "card"):
            self.active.append(obj["id"])
        elif obj["do"] == "end":
            self.active.remove(obj["id"])
        elif obj["do"] == "restart":
            self.active.clear()

    @property
    def teams(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for p in self.header["players"]:
            if "team" in p:
                out.setdefault(p["team"], []).append(p["id"])
        return out

    @property
    def commanders(self) -> list[str]:
        return [c for p in self.header["players"] for c in p.get("commanders", [])]

    def fresh_id(self, prefix: str) -> str:
        self.next_id += 1
        return f"{prefix}{self.next_id}"


def a_player(draw: st.DrawFn, table: Table, state: dict[str, Any]) -> str:
    """Mostly a player still in the game; now and then one who has left."""
    playing = [p["id"] for p in state["players"] if p["status"] == "playing"]
    if playing and draw(st.integers(0, 5)) > 0:
        return draw(st.sampled_from(playing))
    return draw(st.sampled_from(table.ids))


def an_amount(draw: st.DrawFn, table: Table, state: dict[str, Any], top: int = 12) -> Any:
    if draw(st.integers(0, 5)) > 0:
        return draw(st.integers(0, top))
    expression: dict[str, Any] = {"life_of": a_player(draw, table, state)}
    if draw(st.booleans()):
        expression["fraction"] = [draw(st.integers(0, 3)), draw(st.integers(1, 3))]
        if draw(st.integers(0, 3)) > 0 or expression["fraction"][1] > 1:
            expression["round"] = draw(st.sampled_from(["up", "down"]))  # 107.1a
    return expression


def a_source(draw: st.DrawFn, table: Table) -> str:
    return draw(st.sampled_from(["bolt", "quake", "attacker", *table.commanders]))


def simple_action(draw: st.DrawFn, table: Table, state: dict[str, Any]) -> dict[str, Any]:
    """An action that may stand inside a together group."""
    kind = draw(
        st.sampled_from(
            ["damage"] * 4
            + ["lose_life", "gain_life", "gain_life", "set_life", "add_counters"]
            + ["remove_counters", "draw", "win", "lose", "concede"]
        )
    )
    if kind in ENDINGS and draw(st.integers(0, 2)) > 0:
        kind = "damage"  # keep most games going for a while
    player = a_player(draw, table, state)
    if kind == "damage":
        action = {
            "do": "damage",
            "source": a_source(draw, table),
            "to": player,
            "amount": an_amount(draw, table, state),
        }
        for flag in ("combat", "infect"):
            if draw(st.booleans()):
                action[flag] = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            action["lifelink"] = True
            action["controller"] = a_player(draw, table, state)
        return action
    if kind in ("lose_life", "gain_life"):
        return {"do": kind, "player": player, "amount": an_amount(draw, table, state)}
    if kind == "set_life":
        to = draw(st.integers(0, 60)) if draw(st.booleans()) else an_amount(draw, table, state)
        return {"do": "set_life", "player": player, "to": to}
    if kind in ("add_counters", "remove_counters"):
        return {
            "do": kind,
            "player": player,
            "kind": draw(st.sampled_from(COUNTER_KINDS)),
            "amount": draw(st.integers(0, 12)),
        }
    if kind == "draw":
        return {"do": "draw", "player": player, "count": draw(st.integers(0, 3))}
    if kind == "lose" and draw(st.booleans()):
        others = draw(st.lists(st.sampled_from(table.ids), min_size=1, max_size=3, unique=True))
        return {"do": "lose", "players": others}
    return {"do": kind, "player": player}


def an_action(draw: st.DrawFn, table: Table, state: dict[str, Any]) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["simple"] * 8
            + ["together"] * 2
            + ["pay_life", "pay_life", "set_life_each", "exchange_life", "redistribute_life"]
            + ["effect", "effect", "card", "card", "end", "upkeep", "upkeep"]
            + ["draw_game", "loop", "intentional_draw", "penalty", "restart"]
        )
    )
    ids, teams = table.ids, table.teams
    if kind == "simple" or (kind in ENDINGS and draw(st.integers(0, 2)) > 0):
        return simple_action(draw, table, state)
    if kind == "together":
        n = draw(st.integers(1, 4))
        return {"do": "together", "actions": [simple_action(draw, table, state) for _ in range(n)]}
    if kind == "pay_life":
        if teams and draw(st.booleans()):
            members = teams[draw(st.sampled_from(sorted(teams)))]
            payers = draw(st.lists(st.sampled_from(members), min_size=1, unique=True))
            return {"do": "pay_life", "payments": {p: draw(st.integers(0, 20)) for p in payers}}
        return {
            "do": "pay_life",
            "player": a_player(draw, table, state),
            "amount": an_amount(draw, table, state, 40),
        }
    if kind == "set_life_each":
        playing = [p["id"] for p in state["players"] if p["status"] == "playing"] or ids
        action: dict[str, Any] = {
            "do": "set_life",
            "each": {p: draw(st.integers(0, 40)) for p in playing},
        }
        if table.header["variant"] == "two-headed-giant" and draw(st.booleans()):
            action["chosen"] = {t: draw(st.sampled_from(m)) for t, m in teams.items()}
        return action
    if kind == "exchange_life":
        pair = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
        return {"do": "exchange_life", "players": pair}
    if kind == "redistribute_life":
        chosen = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=3, unique=True))
        lives = {p["id"]: p["life"] for p in state["players"]}
        totals = draw(st.permutations([lives[p] for p in chosen]))
        action = {"do": "redistribute_life", "totals": dict(zip(chosen, totals, strict=True))}
        if draw(st.booleans()):
            action["controller"] = a_player(draw, table, state)
        return action
    if kind == "effect":
        effect_kind = draw(st.sampled_from(EFFECT_KINDS))
        action = {
            "do": "effect",
            "id": table.fresh_id("e"),
            "kind": effect_kind,
            "controller": a_player(draw, table, state),
        }
        # "your upkeep", "you would draw": these two speak only of their controller
        if effect_kind not in CONTROLLER_ONLY and draw(st.booleans()):
            action["affects"] = draw(
                st.one_of(
                    st.sampled_from(["you", "opponents", "players"]),
                    st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True),
                )
            )
        if effect_kind == "gain_life_times":
            action["factor"] = draw(st.integers(2, 3))
        if effect_kind == "win_at_upkeep":
            action["life_at_least"] = draw(st.integers(20, 50))
        return action
    if kind == "card":
        return {
            "do": "card",
            "id": table.fresh_id("c"),
            "name": draw(st.sampled_from(CARDS)),
            "controller": a_player(draw, table, state),
        }
    if kind == "end" and table.active:
        return {"do": "end", "id": draw(st.sampled_from(table.active))}
    if kind == "upkeep":
        return {"do": "upkeep", "player": a_player(draw, table, state)}
    if kind == "draw_game":
        return {"do": "draw_game", "controller": a_player(draw, table, state)}
    if kind == "loop":
        controllers = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=2, unique=True))
        return {"do": "loop", "controllers": controllers}
    if kind == "intentional_draw":
        return {"do": "intentional_draw"}
    if kind == "penalty":
        return {"do": "penalty", "player": a_player(draw, table, state)}
    if kind == "restart" and draw(st.integers(0, 2)) == 0:
        return {"do": "restart", "controller": a_player(draw, table, state)}
    return simple_action(draw, table, state)


# --- playing a drawn game ------------------------------------------------------------------------


@dataclass
class Played:
    header: dict[str, Any]
    actions: list[dict[str, Any]]
    game: Any
    refused_at: list[str]
    unchanged: list[tuple[dict[str, Any], dict[str, Any]]]  # (before, after) of each refusal
    states: list[dict[str, Any]]  # the state before the first action and after each one

    @property
    def document(self) -> dict[str, Any]:
        return {**self.header, "actions": self.actions}

    @property
    def stream(self) -> list[str]:
        return [json.dumps(self.header) + "\n"] + [json.dumps(a) + "\n" for a in self.actions]


def snapshot(game: Any) -> dict[str, Any]:
    return ll_state.state_dict(game, [])


def play(
    draw: st.DrawFn, head: dict[str, Any], length: int = 12, chooser: Any = an_action
) -> Played:
    """Draw and apply actions one by one through ``record.parse_action`` and ``game.apply``."""
    game = record.replay({**head, "actions": []}).game
    table = Table(head)
    actions: list[dict[str, Any]] = []
    refused_at: list[str] = []
    unchanged = []
    states = [snapshot(game)]
    for _ in range(draw(st.integers(0, length))):
        before = states[-1]
        if before["over"] and draw(st.integers(0, 2)) > 0:
            break  # now and then, go on to see actions refused after the end (104.1)
        obj = chooser(draw, table, before)
        while True:
            position = str(len(actions))
            try:
                game.apply(record.parse_action(obj, position))
            except RefusedError:
                refused_at.append(position)
                unchanged.append((before, snapshot(game)))
            except ChoiceNeeded as exc:
                # Version 2 never guesses a player's choice: nothing happened; the player
                # states one, and the action is sent again.
                assert snapshot(game) == before
                choice = stated_choice(draw, exc)
                game.apply(record.parse_action(choice, position))
                actions.append(choice)
                before = snapshot(game)
                states.append(before)
                continue
            else:
                refused_at.extend(f"{position}.{inner}" for inner, _ in game.refusals)
                table.applied(obj)
            break
        actions.append(obj)
        states.append(snapshot(game))
    return Played(head, actions, game, refused_at, unchanged, states)


def stated_choice(draw: st.DrawFn, needed: ChoiceNeeded) -> dict[str, Any]:
    """A ``choose`` that states the choice an action needed (603.3b, 603.3d, 616.1)."""
    if needed.choice == "targets":
        target = draw(st.sampled_from(needed.options))
        return {"do": "choose", "player": needed.player, "targets": {needed.ids[0]: target}}
    return {
        "do": "choose",
        "player": needed.player,
        needed.choice: draw(st.permutations(needed.options)),
    }


def without_refused(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "refused"}


# --- the properties ----------------------------------------------------------------------------


@SETTINGS
@given(st.data())
def test_well_formed_records_replay_without_raising(data: st.DataObject):
    played = play(data.draw, data.draw(headers()))
    replay = record.replay(played.document)  # nothing may escape for well-formed input
    state = ll_state.state_dict(replay.game, replay.refused)
    assert [r["action"] for r in state["refused"]] == played.refused_at
    assert without_refused(state) == without_refused(played.states[-1])
    assert all(r["rule"] for r in state["refused"])


@SETTINGS
@given(st.data())
def test_a_refused_action_leaves_the_state_unchanged(data: st.DataObject):
    played = play(data.draw, data.draw(headers()), length=16)
    for before, after in played.unchanged:
        assert after == before


@SETTINGS
@given(st.data())
def test_saving_and_replaying_gives_the_same_state(data: st.DataObject):
    played = play(data.draw, data.draw(headers()))
    expected = without_refused(snapshot(played.game))
    for stream in (False, True):
        text = record.dumps(played.game, stream=stream)
        again = record.loads(text, stream=stream)
        # Only applied actions are saved; a saved group's refused parts are part of its
        # history (609.3) and are refused again, at their new positions.
        inner = [position for position in played.refused_at if "." in position]
        assert all("." in r.position for r in again.refused)
        assert len(again.refused) == len(inner)
        assert without_refused(ll_state.state_dict(again.game, again.refused)) == expected
        if not stream:
            again = record.replay(json.loads(text))
            assert without_refused(ll_state.state_dict(again.game, [])) == expected


@SETTINGS
@given(st.data())
def test_a_copy_of_a_game_goes_on_exactly_as_a_replay_from_the_start(data: st.DataObject):
    """A checkpoint (``Game.copy``) taken at any point, with the rest of the game applied to
    it, is the same game as the whole record replayed from the start; and the game it was
    copied from is untouched by what is applied to the copy."""
    played = play(data.draw, data.draw(headers()))
    actions = played.actions
    at = data.draw(st.integers(0, len(actions)))
    first = record.replay({**played.header, "actions": actions[:at]}).game
    before = snapshot(first)
    checkpoint = first.copy()
    for position, obj in enumerate(actions[at:], start=at):
        with contextlib.suppress(RefusedError):
            checkpoint.apply(record.parse_action(obj, str(position)))
    assert snapshot(first) == before
    assert without_refused(snapshot(checkpoint)) == without_refused(played.states[-1])
    assert record.dumps(checkpoint) == record.dumps(played.game)


@SETTINGS
@given(st.data())
def test_document_and_stream_shapes_agree(data: st.DataObject):
    played = play(data.draw, data.draw(headers()))
    document = record.replay(played.document)
    stream = record.replay(played.stream)
    from_text = record.loads("".join(played.stream), stream=True)
    from_doc_text = record.loads(json.dumps(played.document, indent=1))
    expected = ll_state.state_dict(document.game, document.refused)
    assert ll_state.state_dict(stream.game, stream.refused) == expected
    assert ll_state.state_dict(from_text.game, from_text.refused) == expected
    assert ll_state.state_dict(from_doc_text.game, from_doc_text.refused) == expected


def test_a_saved_group_whose_parts_were_all_refused_replays_with_the_same_refusal():
    """Found by fuzzing (issue 7 item 3): a group all of whose parts were refused (800.4,
    609.3) is still an applied action; saved and replayed, its part is refused again, at the
    group's new position, and nothing else is."""
    game = record.replay(
        {
            "record": 1,
            "variant": "grand-melee",
            "players": [{"id": "p0"}, {"id": "p1"}, {"id": "p2"}],
            "actions": [
                {"do": "concede", "player": "p0"},
                {"do": "gain_life", "player": "p0", "amount": 1},
                {"do": "together", "actions": [{"do": "draw", "player": "p0", "count": 0}]},
            ],
        }
    ).game
    again = record.loads(record.dumps(game))
    assert [(r.position, r.rule) for r in again.refused] == [("1.0", "800.4")]


@pytest.mark.rule("904.13b")
def test_904_13b_heroes_who_share_life_lose_it_by_810_8c_in_the_states_shape():
    """Found by fuzzing: in Archenemy Commander the heroes' shared life at 0 is a loss by
    810.8c, and a state showing it has the spec's shape (with the rules' rule, not 704.6a)."""
    head = {
        "record": 1,
        "variant": "archenemy",
        "format": "commander",
        "players": [
            {"id": "arch", "archenemy": True, "commanders": ["arch-c"]},
            {"id": "h0", "commanders": ["h0-c"]},
            {"id": "h1", "commanders": ["h1-c"]},
        ],
    }
    replayed = record.replay(
        {**head, "actions": [{"do": "damage", "source": "bolt", "to": "h0", "amount": 60}]}
    )
    state = ll_state.state_dict(replayed.game, replayed.refused)
    assert state["players"][1]["rule"] == "810.8c"
    check_state_shape(state, head)


def test_a_saved_record_keeps_members_whose_value_is_zero():
    # library 0 is not "not tracked", and life_modifier 0 / range 0 are values too.
    players = [
        {"id": "ana", "library": 0, "life_modifier": 0},
        {"id": "bo", "library": 2, "life_modifier": -3},
        {"id": "cy", "range": 1},
    ]
    head = {"record": 1, "variant": "free-for-all", "format": "vanguard", "players": players}
    replay = record.replay({**head, "actions": []})
    again = record.loads(record.dumps(replay.game))
    assert ll_state.state_dict(again.game, []) == ll_state.state_dict(replay.game, [])
    draw = record.replay({**head, "actions": [{"do": "draw", "player": "ana", "count": 1}]})
    saved = record.loads(record.dumps(draw.game))
    assert ll_state.state_dict(saved.game, [])["players"][0]["status"] == "lost"


# The spec's table of results: (status, reason) -> the rules that may be given.
RESULTS = {
    ("lost", "life"): {"704.5a"},
    # 904.13b: the Archenemy Commander heroes' shared life is lost by 810.8c (704.6a names
    # Two-Headed Giant only); the spec's table lists 704.6a alone, and the rules win.
    ("lost", "team-life"): {"704.6a", "810.8c"},
    ("lost", "poison"): {"704.5c"},
    ("lost", "team-poison"): {"704.6b"},
    ("lost", "empty-library"): {"704.5b"},
    ("lost", "commander-damage"): {"704.6c"},
    ("lost", "conceded"): {"104.3a", "810.8b"},
    ("lost", "effect"): {"104.3e"},
    ("lost", "penalty"): {"104.3k"},
    ("lost", "teammate"): {"810.8a"},
    ("lost", "emperor"): {"809.5b"},
    ("lost", "opponent-won"): {"104.2b", "104.3h", "801.14"},
    ("won", "last-standing"): {"104.2a", "104.2c"},
    ("won", "effect"): {"104.2b"},
    ("won", "team"): {"104.2c", "810.8a"},
    ("won", "emperor"): {"809.5a"},
    ("drew", "simultaneous-loss"): {"104.4a", "104.4d"},
    ("drew", "loop"): {"104.4b", "801.16"},
    ("drew", "effect"): {"104.4c", "801.15"},
    ("drew", "intentional"): {"104.4i"},
    ("drew", "emperor"): {"809.5c"},
}
SHARED_LIFE = {"two-headed-giant"}


def check_state_shape(state: dict[str, Any], head: dict[str, Any]) -> None:
    """What the spec's "The state" says of every state."""
    assert state["record"] == 1
    assert isinstance(state["game"], int) and state["game"] >= 1
    ids = [p["id"] for p in head["players"]]
    assert [p["id"] for p in state["players"]] == ids  # seating order
    playing = []
    for p in state["players"]:
        status, reason, rule = p["status"], p["reason"], p["rule"]
        if status == "playing":
            assert reason is None and rule is None, p
            playing.append(p["id"])
        else:
            assert rule in RESULTS[(status, reason)], p
        assert isinstance(p["life"], int) and not isinstance(p["life"], bool)
        assert isinstance(p["poison"], int) and p["poison"] >= 0
        assert "poison" not in p["counters"]
        assert all(isinstance(n, int) and n > 0 for n in p["counters"].values()), p
        assert all(isinstance(n, int) and n > 0 for n in p["commander_damage"].values()), p
        assert p["library"] is None or p["library"] >= 0
    # 104.1, 104.5: the game is over exactly when nobody is left playing
    assert state["over"] == (not playing), state
    if any(p["status"] == "won" for p in state["players"]):
        assert state["over"]
    by_id = {p["id"]: p for p in state["players"]}
    for team in state["teams"]:
        members = [by_id[m] for m in team["players"]]
        assert (
            team["players"]
            == [p["id"] for p in head["players"] if p.get("team", "heroes") == team["id"]]
            or head["variant"] == "archenemy"
        )
        if head["variant"] in SHARED_LIFE:  # 810.9a, 810.10a
            assert all(m["life"] == team["life"] for m in members)
            assert all(m["poison"] == team["poison"] for m in members)
        elif head["variant"] == "archenemy" and head["format"] == "commander":
            assert all(m["life"] == team["life"] for m in members)  # 904.13b
            assert team["poison"] is None  # 904.13c: poison counters are not shared
        else:
            assert team["life"] is None and team["poison"] is None
        if team["status"] == "playing":
            assert any(m["status"] == "playing" for m in members), team
        if any(m["status"] == "playing" for m in members):
            assert team["status"] == "playing", team
        if team["status"] == "won":  # 104.2c: each player on the winning team wins
            # ... even one who had lost; one who drew had left the game with a draw (104.4).
            statuses = {m["status"] for m in members}
            assert statuses <= {"won", "drew"} or state["game"] > 1, team


@SETTINGS
@given(st.data())
def test_every_state_has_the_shape_the_spec_gives(data: st.DataObject):
    head = data.draw(headers())
    played = play(data.draw, head, length=16)
    for state in played.states:
        check_state_shape(state, head)


# --- malformed input: nothing but MalformedError ---------------------------------------------

ODD_VALUES = [None, True, 3.0, -1, "x", "", [], {}, [1, 2], {"life_of": "nobody"}, 10**20]


@st.composite
def mutated(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with one member somewhere deleted, added or replaced by an odd value."""
    if isinstance(value, dict) and value and draw(st.integers(0, 3)) > 0:
        key = draw(st.sampled_from(sorted(value)))
        how = draw(st.sampled_from(["delete", "replace", "recurse", "add"]))
        out = dict(value)
        if how == "delete":
            del out[key]
        elif how == "replace":
            out[key] = draw(st.sampled_from(ODD_VALUES))
        elif how == "recurse":
            out[key] = draw(mutated(value[key]))
        else:
            out[draw(st.sampled_from(["extra", "Note", "do ", "id"]))] = 1
        return out
    if isinstance(value, list) and value and draw(st.booleans()):
        out_list = list(value)
        index = draw(st.integers(0, len(value) - 1))
        out_list[index] = draw(mutated(value[index]))
        return out_list
    return draw(st.sampled_from(ODD_VALUES))


@SETTINGS
@given(st.data())
def test_malformed_input_raises_nothing_but_malformed_error(data: st.DataObject):
    played = play(data.draw, data.draw(headers()), length=6)
    bad = data.draw(mutated(played.document))
    try:
        replay = record.replay(bad) if isinstance(bad, dict) else record.loads(json.dumps(bad))
    except MalformedError:
        return
    ll_state.state_dict(replay.game, replay.refused)  # a harmless change: still a state


@SETTINGS
@given(st.data(), st.text(max_size=30))
def test_a_garbage_line_in_a_stream_raises_nothing_but_malformed_error(
    data: st.DataObject, garbage: str
):
    played = play(data.draw, data.draw(headers()), length=4)
    lines = played.stream
    at = data.draw(st.integers(0, len(lines)))
    lines = [*lines[:at], garbage + "\n", *lines[at:]]
    try:
        replay = record.loads("".join(lines))
    except MalformedError:
        return
    ll_state.state_dict(replay.game, replay.refused)


# --- Two-Headed Giant: the team's life is the sum of what happened to its members --------------


def life_action(draw: st.DrawFn, table: Table, state: dict[str, Any]) -> dict[str, Any]:
    """Life changes only: no effects, no ends of the game but the state-based ones."""
    ids = table.ids

    def one(grouped: bool) -> dict[str, Any]:
        kinds = ["damage", "damage", "lose_life", "gain_life"] + ([] if grouped else ["set_life"])
        kind = draw(st.sampled_from(kinds))
        player = draw(st.sampled_from(ids))
        if kind == "damage":
            amount = draw(st.integers(0, 12))
            action = {"do": "damage", "source": "src", "to": player, "amount": amount}
            if draw(st.integers(0, 3)) == 0:
                action["infect"] = True
            if draw(st.integers(0, 2)) == 0:
                action.update(lifelink=True, controller=draw(st.sampled_from(ids)))
            return action
        if kind == "set_life":
            return {"do": "set_life", "player": player, "to": an_amount(draw, table, state)}
        return {"do": kind, "player": player, "amount": an_amount(draw, table, state, 12)}

    kind = draw(st.sampled_from(["one", "one", "one", "together", "pay", "payments", "exchange"]))
    if kind == "together":
        return {"do": "together", "actions": [one(True) for _ in range(draw(st.integers(1, 4)))]}
    if kind == "pay":
        player = draw(st.sampled_from(ids))
        return {"do": "pay_life", "player": player, "amount": an_amount(draw, table, state, 40)}
    if kind == "payments":
        members = table.teams[draw(st.sampled_from(sorted(table.teams)))]
        return {"do": "pay_life", "payments": {p: draw(st.integers(0, 25)) for p in members}}
    if kind == "exchange":
        return {"do": "exchange_life", "players": draw(st.permutations(ids))[:2]}
    return one(False)


def evaluate(amount: Any, life: dict[str, int], *, floor: bool = True) -> int:
    """An amount against the lives as the rules read them (107.1b: below zero counts as 0)."""
    if isinstance(amount, int):
        return amount
    numerator, denominator = amount.get("fraction", [1, 1])
    value = life[amount["life_of"]] * numerator
    up = amount.get("round") == "up"
    result = -(-value // denominator) if up else value // denominator
    return max(result, 0) if floor else result


def net_change(
    action: dict[str, Any], life: dict[str, int], team_of: dict[str, str]
) -> dict[str, int]:
    """The net life change per team that an action applied in full makes (810.9, 810.9c)."""
    net = dict.fromkeys(set(team_of.values()), 0)
    do = action["do"]
    if do == "together":
        for inner in action["actions"]:  # expressions read the state as the group begins
            for team, change in net_change(inner, life, team_of).items():
                net[team] += change
        return net
    if do == "damage":
        amount = action["amount"]
        if not action.get("infect"):
            net[team_of[action["to"]]] -= amount
        if action.get("lifelink") and amount > 0:
            net[team_of[action["controller"]]] += amount
    elif do == "lose_life":
        net[team_of[action["player"]]] -= evaluate(action["amount"], life)
    elif do == "gain_life":
        net[team_of[action["player"]]] += evaluate(action["amount"], life)
    elif do == "pay_life":
        payments = action.get("payments") or {action["player"]: action["amount"]}
        for player, amount in payments.items():
            net[team_of[player]] -= evaluate(amount, life)
    elif do == "set_life":
        player = action["player"]
        net[team_of[player]] += evaluate(action["to"], life, floor=False) - life[player]
    elif do == "exchange_life":
        a, b = action["players"]
        net[team_of[a]] += life[b] - life[a]
        net[team_of[b]] += life[a] - life[b]
    return net


@SETTINGS
@given(st.data())
def test_two_headed_giant_team_life_is_the_net_of_its_members_changes(data: st.DataObject):
    head = data.draw(headers(["two-headed-giant"]))
    played = play(data.draw, head, length=14, chooser=life_action)
    team_of = {p["id"]: p["team"] for p in head["players"]}
    refused = set(played.refused_at)
    size = len(head["players"]) // 2
    starting = head.get("options", {}).get("starting_life") or 30 + 15 * (size - 2)  # 810.11
    assert {t["life"] for t in played.states[0]["teams"]} == {starting}
    for index, action in enumerate(played.actions):
        before, after = played.states[index], played.states[index + 1]
        team_life = {t["id"]: t["life"] for t in before["teams"]}
        life = {p["id"]: p["life"] for p in before["players"]}
        assert all(life[p] == team_life[team_of[p]] for p in life)  # 810.9a
        if str(index) in refused:
            assert after == before
            continue
        expected = net_change(action, life, team_of)
        for team in after["teams"]:
            assert team["life"] == team_life[team["id"]] + expected[team["id"]], (index, action)
        if action["do"] == "pay_life":  # 119.4a: the team must have the whole payment
            payments = action.get("payments") or {action["player"]: action["amount"]}
            total = sum(evaluate(a, life) for a in payments.values())
            assert total == 0 or total <= team_life[team_of[next(iter(payments))]]


def test_two_headed_giant_a_payment_is_refused_only_when_the_team_cannot_pay():
    players = [{"id": p, "team": t} for p, t in (("a", "n"), ("b", "n"), ("c", "s"), ("d", "s"))]
    doc = {"record": 1, "variant": "two-headed-giant", "players": players}
    actions = [
        {"do": "damage", "source": "x", "to": "a", "amount": 20},
        {"do": "pay_life", "payments": {"a": 6, "b": 5}},
        {"do": "pay_life", "payments": {"a": 5, "b": 4}},
        {"do": "pay_life", "player": "b", "amount": 0},
    ]
    replay = record.replay({**doc, "actions": actions})
    state = ll_state.state_dict(replay.game, replay.refused)
    assert [r["action"] for r in state["refused"]] == ["1"]
    assert {t["id"]: t["life"] for t in state["teams"]} == {"n": 1, "s": 30}


def test_the_starting_total_is_30_plus_15_per_extra_head():
    for size, total in ((2, 30), (3, 45)):
        players = [{"id": f"t{t}p{i}", "team": f"t{t}"} for t in range(2) for i in range(size)]
        replay = record.replay(
            {"record": 1, "variant": "two-headed-giant", "players": players, "actions": []}
        )
        state = ll_state.state_dict(replay.game, [])
        assert {t["life"] for t in state["teams"]} == {total}

"""Property-based tests of version 2 of the record (turns and designations), in the style and
with the profiles of ``test_properties.py`` (derandomized in ``make test``):

- a version-1 record replays exactly as before under the version-2 engine: declared version 2,
  with the order of replacement effects it can't state stated as version 1 applies them
  (616.1), its state is the version-1 state plus the three new members (and ``"record": 2``);
- random version-2 games (turns, steps, rad counters, designations, spells, "this turn"
  effects, stated library counts, mixed with every version-1 action) replay without raising,
  a refused action leaves the state as it was, and ``record.dumps`` replays to the same state;
- the monarch and the initiative are always a player still in the game, or nobody once the
  game is over;
- a version-2 record with one member deleted, added or replaced raises nothing but
  ``MalformedError``.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from lifeledger import record
from lifeledger import state as ll_state
from lifeledger.errors import ChoiceNeeded, MalformedError, RefusedError
from test_properties import (
    SETTINGS,
    Table,
    a_player,
    an_action,
    check_state_shape,
    headers,
    mutated,
    play,
    snapshot,
    without_refused,
)

STEPS = ["upkeep", "draw", "main", "end", "cleanup"]
V2_ONLY = ("turn", "designations", "omens")


def as_version_1(state: dict[str, Any]) -> dict[str, Any]:
    return {**{k: v for k, v in state.items() if k not in V2_ONLY}, "record": 1}


def stating_version_1_choices(document: dict[str, Any]) -> dict[str, Any]:
    """The state of ``document`` replayed where, before each action that needs the order of
    the replacement effects on a gain of life (616.1), which a version-1 record can't state
    and version 2 never guesses, a ``choose`` states the order version 1 applies (a Remedy
    first); its refusals name the actions by their places in ``document``."""
    remedies = {
        a["id"]
        for a in document["actions"]
        if a.get("kind") == "gain_becomes_loss" or a.get("name") == "Tainted Remedy"
    }
    actions = list(document["actions"])
    inserted: list[int] = []  # the places of the choices stated, in the order they come
    while True:
        try:
            replay = record.replay({**document, "actions": actions})
            break
        except ChoiceNeeded as exc:
            assert exc.choice == "replacements" and exc.position is not None, exc
            order = sorted(exc.options, key=lambda i: i not in remedies)
            at = int(exc.position.split(".")[0])
            actions.insert(at, {"do": "choose", "player": exc.player, "replacements": order})
            inserted.append(at)
    state = ll_state.state_dict(replay.game, replay.refused)
    for refusal in state["refused"]:
        top, dot, inner = refusal["action"].partition(".")
        place = int(top)
        refusal["action"] = f"{place - sum(i < place for i in inserted)}{dot}{inner}"
    return state


@SETTINGS
@given(st.data())
def test_a_version_1_record_replays_identically_under_version_2(data: st.DataObject):
    played = play(data.draw, data.draw(headers()), length=16)
    v1 = record.replay(played.document)
    v1_state = ll_state.state_dict(v1.game, v1.refused)
    assert "turn" not in v1_state and v1_state["record"] == 1
    v2_state = stating_version_1_choices({**played.document, "record": 2})
    assert as_version_1(v2_state) == v1_state
    assert v2_state["turn"] is None  # a version-1 record takes no turns
    assert v2_state["omens"] == {}  # and has no Celestial Convergence
    # The stream, read line by line on the fast path, agrees.
    stream = record.loads("".join(played.stream), stream=True)
    assert ll_state.state_dict(stream.game, stream.refused) == v1_state


def test_616_1_a_version_1_record_with_a_remedy_and_a_doubler_replays_identically():
    """Found by ``make fuzz``: a version-1 record whose gain Tainted Remedy and Rhox
    Faithmender both replace (616.1), the game over after it and an action refused (104.1).
    Declared version 2 with the order stated before the gain, it replays to the same state,
    its refusal named by its place in the version-1 record, not one further on."""
    document = {
        "record": 1,
        "players": [{"id": "ana"}, {"id": "bo"}],
        "actions": [
            {"do": "card", "id": "rhox", "name": "Rhox Faithmender", "controller": "ana"},
            {
                "do": "effect",
                "id": "remedy",
                "kind": "gain_becomes_loss",
                "controller": "bo",
                "affects": "opponents",
            },
            {"do": "gain_life", "player": "ana", "amount": 30},
            {"do": "gain_life", "player": "bo", "amount": 1},
        ],
    }
    v1 = record.replay(document)
    v1_state = ll_state.state_dict(v1.game, v1.refused)
    assert v1_state["refused"] == [{"action": "3", "rule": "104.1", "message": "the game is over"}]
    assert as_version_1(stating_version_1_choices({**document, "record": 2})) == v1_state


def _milled(draw: st.DrawFn, state: dict[str, Any]) -> dict[str, int]:
    """A count of nonland cards for each active player with rad counters (728.1)."""
    out: dict[str, int] = {}
    by_id = {p["id"]: p for p in state["players"]}
    for pid in state["turn"]["active"]:
        p = by_id[pid]
        count = p["counters"].get("rad", 0)
        if count and p["status"] == "playing":
            mill = count if p["library"] is None else min(count, p["library"])
            out[pid] = draw(st.integers(0, mill))
    return out


def _needs_main(state: dict[str, Any]) -> bool:
    turn = state.get("turn")
    return bool(turn) and STEPS.index(turn["step"]) < 2


def _with_controllers(draw: st.DrawFn, table: Table, action: dict[str, Any]) -> dict[str, Any]:
    """Combat damage names its creature's controller (725.2, 726.2 may need it)."""
    if action["do"] == "together":
        action["actions"] = [_with_controllers(draw, table, a) for a in action["actions"]]
    elif action["do"] == "damage" and action.get("combat") and "controller" not in action:
        action["controller"] = draw(st.sampled_from(table.ids))
    return action


def v2_action(draw: st.DrawFn, table: Table, state: dict[str, Any]) -> dict[str, Any]:
    kind = draw(
        st.sampled_from(
            ["v1"] * 6
            + ["turn"] * 3
            + ["step"] * 3
            + ["cast", "monarch", "initiative", "day_night", "blessing", "until", "rad", "library"]
        )
    )
    player = a_player(draw, table, state)
    if kind in ("turn", "step") and _needs_main(state) and state["turn"]["step"] == "upkeep":
        # The draw step comes first: what the rad counters mill is counted after its draw.
        return {"do": "step", "step": "draw"}
    if kind == "turn":
        if _needs_main(state) and draw(st.booleans()):
            # A turn would pass the main phase, whose rad counters the record states.
            return {"do": "step", "step": "main", "nonland_milled": _milled(draw, state)}
        if _needs_main(state) and _milled(draw, state):
            return {"do": "step", "step": "cleanup", "nonland_milled": _milled(draw, state)}
        return {"do": "turn", "player": player}
    if kind == "step":
        name = draw(st.sampled_from(STEPS[1:]))
        action: dict[str, Any] = {"do": "step", "step": name}
        if state["turn"] and _needs_main(state) and STEPS.index(name) >= 2:
            milled = _milled(draw, state)
            if milled:
                action["nonland_milled"] = milled
        return action
    if kind == "cast":
        return {"do": "cast", "player": player, "count": draw(st.integers(0, 3))}
    if kind == "monarch":
        return {"do": "become_monarch", "player": player}
    if kind == "initiative":
        return {"do": "take_initiative", "player": player}
    if kind == "day_night":
        return {"do": "day_night", "to": draw(st.sampled_from(["day", "night"]))}
    if kind == "blessing":
        return {"do": "city_blessing", "player": player}
    if kind == "until":
        return {
            "do": "effect",
            "id": table.fresh_id("u"),
            "kind": draw(st.sampled_from(["cant_lose_game", "cant_gain_life", "cant_lose_life"])),
            "controller": player,
            "affects": draw(st.sampled_from(["you", "opponents", "players"])),
            "until": "end_of_turn",
        }
    if kind == "library":
        return {"do": "set_library", "player": player, "count": draw(st.integers(0, 3))}
    if kind == "rad":
        return {"do": "add_counters", "player": player, "kind": "rad", "amount": 3}
    return _with_controllers(draw, table, an_action(draw, table, state))


def v2_headers() -> st.SearchStrategy[dict[str, Any]]:
    # Grand Melee of 8 or more would need turn markers (807.4): our headers seat at most 6.
    return headers().map(lambda head: {**head, "record": 2})


def check_v2_shape(state: dict[str, Any], head: dict[str, Any]) -> None:
    check_state_shape(as_version_1(state), {**head, "record": 1})
    playing = {p["id"] for p in state["players"] if p["status"] == "playing"}
    marks = state["designations"]
    for name in ("monarch", "initiative"):  # 725.4, 726.4
        assert marks[name] is None or marks[name] in playing or state["over"], (name, state)
    assert set(marks["city_blessing"]) <= playing or state["over"], state  # 702.131c
    assert marks["day_night"] in (None, "day", "night")
    omens = state["omens"]  # 122.1: Celestial Convergence enters with seven
    assert all(type(n) is int and 0 <= n <= 7 for n in omens.values()), omens
    turn = state["turn"]
    if turn is not None:
        assert turn["number"] >= 1 and turn["step"] in STEPS and turn["active"]


@SETTINGS
@given(st.data())
def test_version_2_games_replay_round_trip_and_refuse_without_change(data: st.DataObject):
    head = data.draw(v2_headers())
    played = play(data.draw, head, length=20, chooser=v2_action)
    replay = record.replay(played.document)
    state = ll_state.state_dict(replay.game, replay.refused)
    assert [r["action"] for r in state["refused"]] == played.refused_at
    assert without_refused(state) == without_refused(played.states[-1])
    for before, after in played.unchanged:
        assert after == before
    for each in played.states:
        check_v2_shape(each, head)
    for stream in (False, True):
        again = record.loads(record.dumps(played.game, stream=stream), stream=stream)
        expected = without_refused(snapshot(played.game))
        assert without_refused(ll_state.state_dict(again.game, again.refused)) == expected


@SETTINGS
@given(st.data())
def test_a_copy_of_a_version_2_game_goes_on_as_a_replay(data: st.DataObject):
    played = play(data.draw, data.draw(v2_headers()), length=16, chooser=v2_action)
    at = data.draw(st.integers(0, len(played.actions)))
    first = record.replay({**played.header, "actions": played.actions[:at]}).game
    checkpoint = first.copy()
    for position, obj in enumerate(played.actions[at:], start=at):
        with contextlib.suppress(RefusedError):
            checkpoint.apply(record.parse_action(obj, str(position)))
    assert without_refused(snapshot(checkpoint)) == without_refused(played.states[-1])


@SETTINGS
@given(st.data())
def test_a_malformed_version_2_record_raises_nothing_but_malformed_error(data: st.DataObject):
    played = play(data.draw, data.draw(v2_headers()), length=8, chooser=v2_action)
    bad = data.draw(mutated(played.document))
    try:
        replay = record.replay(bad) if isinstance(bad, dict) else record.loads(json.dumps(bad))
    except MalformedError:
        return
    ll_state.state_dict(replay.game, replay.refused)  # a harmless change: still a state

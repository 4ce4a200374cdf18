"""Issue 19 item 4: a shortcut (732.2a) whose iterations change the game's integers by the same
amounts each time is settled at once (``Game._do_repeat``), stopping exactly where a
state-based action or a threshold first fires; only what can't be computed that way is played
iteration by iteration. Property-tested (derandomized in ``make test``, as every property test:
``tests/conftest.py``) against playing every iteration: the same state, the same outcome, the
same errors, and the game goes on the same afterwards.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lifeledger import Game, Seat, record
from lifeledger.actions import Damage, GainLife, LoseLife
from lifeledger.errors import MalformedError, RefusedError
from lifeledger.state import state_dict
from test_properties import SETTINGS, Table, a_player, simple_action, snapshot
from test_properties_stack import STACK_CARDS, stack_action
from test_properties_v2 import v2_headers

#: The catalogue's cards a shortcut's iterations set off, with Ajani's Pridemate (a count).
CARDS = [*STACK_CARDS, "Ajani's Pridemate", "Phyrexian Unlife", "Rhox Faithmender"]


@contextmanager
def iterating(settle: bool) -> Iterator[None]:
    """Shortcuts settled at once (``settle``), or every iteration played."""
    was = Game._settle_shortcuts
    Game._settle_shortcuts = settle
    try:
        yield
    finally:
        Game._settle_shortcuts = was


def inner_action(draw: st.DrawFn, table: Table, state: dict[str, Any]) -> dict[str, Any]:
    """An action of a shortcut's iteration: mostly one that changes integers the same way
    each time (a life change, damage, counters, a draw, a spell cast), now and then anything."""
    kind = draw(
        st.sampled_from(
            [
                *("gain", "gain", "lose", "damage", "counters", "poison", "draw", "cast"),
                *("monarch", "simple", "simple", "any"),
            ]
        )
    )
    player = a_player(draw, table, state)
    if kind == "gain":
        return {"do": "gain_life", "player": player, "amount": draw(st.integers(0, 4))}
    if kind == "lose":
        return {"do": "lose_life", "player": player, "amount": draw(st.integers(0, 4))}
    if kind == "damage":
        action = {"do": "damage", "source": "bolt", "to": player, "amount": draw(st.integers(0, 4))}
        if draw(st.booleans()):
            action.update(lifelink=True, controller=a_player(draw, table, state))
        return action
    if kind in ("counters", "poison"):
        do = draw(st.sampled_from(["add_counters", "add_counters", "remove_counters"]))
        counter = "poison" if kind == "poison" else draw(st.sampled_from(["energy", "rad"]))
        return {"do": do, "player": player, "kind": counter, "amount": draw(st.integers(0, 3))}
    if kind == "draw":
        return {"do": "draw", "player": player, "count": draw(st.integers(0, 2))}
    if kind == "cast":
        return {"do": "cast", "player": player, "count": draw(st.integers(0, 2))}
    if kind == "monarch":
        return {"do": "become_monarch", "player": player}
    if kind == "simple":
        return simple_action(draw, table, state)
    return stack_action(draw, table, state)


def outcome_of(game: Game, *objs: dict[str, Any]) -> list[Any]:
    """Apply each action; what each did (its error, or the state after it)."""
    out: list[Any] = []
    for index, obj in enumerate(objs):
        try:
            game.apply(record.parse_action(obj, str(index)))
        except (MalformedError, RefusedError) as exc:
            out.append((type(exc).__name__, str(exc), getattr(exc, "member", None)))
        out.append((snapshot(game), game.outcome(), game.refusals and str(game.refusals)))
    return out


@SETTINGS
@given(st.data())
def test_732_2a_a_shortcut_settled_at_once_is_the_shortcut_iterated(data: st.DataObject) -> None:
    head = data.draw(v2_headers())
    if data.draw(st.booleans()):
        # Libraries to draw from (an empty one loses, 704.5b: a threshold too).
        head = {
            **head,
            "players": [{**p, "library": data.draw(st.integers(0, 40))} for p in head["players"]],
        }
    game = record.replay({**head, "actions": []}).game
    table = Table(head)
    table.cards = CARDS  # type: ignore[attr-defined]
    kept: list[dict[str, Any]] = []
    for index in range(data.draw(st.integers(0, 8))):
        obj = stack_action(data.draw, table, snapshot(game))
        try:
            game.apply(record.parse_action(obj, str(index)))
        except (RefusedError, MalformedError):
            continue
        table.applied(obj)
        kept.append(obj)
    state = snapshot(game)
    inner = [inner_action(data.draw, table, state) for _ in range(data.draw(st.integers(1, 3)))]
    shortcut = {"do": "repeat", "times": data.draw(st.integers(1, 80)), "actions": inner}
    after = {"do": "lose_life", "player": a_player(data.draw, table, state), "amount": 1}
    results = []
    for settle in (True, False):
        with iterating(settle):
            played = record.replay({**head, "actions": kept}).game
            results.append(outcome_of(played, shortcut, after))
    assert results[0] == results[1]


LINEAR_CARDS = [
    "Ajani's Pridemate",
    "Sanguine Bond",
    "Exquisite Blood",
    "Marauding Blight-Priest",
    "Phyrexian Unlife",
    "Platinum Angel",
    "Transcendence",
    "Worship",
    "Rhox Faithmender",
    "Celestial Convergence",
]


@SETTINGS
@given(
    st.sampled_from(["free-for-all", "two-headed-giant"]),
    st.integers(2, 4),
    st.integers(1, 40),
    st.lists(st.tuples(st.sampled_from(LINEAR_CARDS), st.integers(0, 3)), max_size=3),
    st.lists(
        st.tuples(
            st.sampled_from(["gain", "lose", "damage", "poison", "energy", "unenergy", "draw"]),
            st.integers(0, 3),
            st.integers(0, 4),
        ),
        min_size=1,
        max_size=3,
    ),
    st.integers(1, 200),
    st.integers(0, 60),
)
def test_732_2a_a_settled_shortcut_stops_where_iterating_does(
    variant: str,
    size: int,
    life: int,
    cards: list[tuple[str, int]],
    parts: list[tuple[str, int, int]],
    times: int,
    library: int,
) -> None:
    """Small totals, so that a threshold (0 life, 10 poison counters, an empty library, 20 life
    under Transcendence, the last omen counter) comes within the shortcut: the iterations
    before it settled at once, the one that crosses played, as iterating every one does."""
    if variant == "two-headed-giant":
        ids = [f"p{i}" for i in range(4)]
        seats = [{"id": pid, "team": f"t{i // 2}", "library": library} for i, pid in enumerate(ids)]
    else:
        ids = [f"p{i}" for i in range(size)]
        seats = [{"id": pid, "library": library} for pid in ids]
    head = {"record": 2, "variant": variant, "players": seats, "options": {"starting_life": life}}
    prefix: list[dict[str, Any]] = []
    for n, (name, owner) in enumerate(cards):
        controller = ids[owner % len(ids)]
        prefix.append({"do": "card", "id": f"c{n}", "name": name, "controller": controller})
    for pid in ids:
        mine = [f"c{n}" for n, (_, owner) in enumerate(cards) if ids[owner % len(ids)] == pid]
        if mine:
            prefix.append(
                {"do": "choose", "player": pid, "order": mine,
                 "targets": {c: [q for q in ids if q != pid] for c in mine}}
            )  # fmt: skip
    inner: list[dict[str, Any]] = []
    for kind, who, amount in parts:
        pid = ids[who % len(ids)]
        if kind == "gain":
            inner.append({"do": "gain_life", "player": pid, "amount": amount})
        elif kind == "lose":
            inner.append({"do": "lose_life", "player": pid, "amount": amount})
        elif kind == "damage":
            inner.append({"do": "damage", "source": "bat", "to": pid, "amount": amount,
                          "lifelink": True, "controller": ids[0]})  # fmt: skip
        elif kind == "draw":
            inner.append({"do": "draw", "player": pid, "count": amount})
        else:
            do = "remove_counters" if kind == "unenergy" else "add_counters"
            counter = "poison" if kind == "poison" else "energy"
            inner.append({"do": do, "player": pid, "kind": counter, "amount": amount})
    shortcut = {"do": "repeat", "times": times, "actions": inner}
    after = {"do": "gain_life", "player": ids[-1], "amount": 1}
    results = []
    for settle in (True, False):
        with iterating(settle):
            try:
                played = record.replay({**head, "actions": prefix}).game
            except (MalformedError, RefusedError):
                return  # a setup the rules don't allow (a variant's seats)
            results.append(outcome_of(played, shortcut, after))
    assert results[0] == results[1]


def _pridemate_game() -> Game:
    game = Game([Seat("ana"), Seat("bo")], version=2)
    game.card("pridemate", "Ajani's Pridemate", "ana")
    return game


@pytest.mark.rule("732.2a")
def test_732_2a_a_million_life_gains_under_ajanis_pridemate_are_settled_at_once() -> None:
    """Issue 19 item 4: it took 10.3 s of CPU and 370 MB, iteration by iteration. Now two
    iterations are played, 999,997 settled at once and verified by one more (under 0.1 s on
    a quiet machine: ``benchmarks/shortcut.py``; bounded loosely here, the machine is shared),
    in memory that doesn't grow with the count."""
    game = _pridemate_game()
    tracemalloc.start()
    began = time.process_time()
    try:
        game.repeat(1_000_000, GainLife("ana", 1))
        took = time.process_time() - began
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert game.life_of("ana") == 1_000_020
    assert game.triggered == {"pridemate": 1_000_000}
    assert took < 2.0
    assert peak < 1_000_000  # bytes: a handful of iterations' notes and copies
    rules = [(n.rule, n.text) for n in game.notes if n.rule == "732.2a"]
    assert rules == [
        (
            "732.2a",
            "999,997 iterations of the shortcut change the game as the last one did: settled "
            "at once (computed)",
        ),
        ("732.2a", "a shortcut: 1,000,000 of 1,000,000 iterations"),
    ]
    assert len(game.notes) == 3 + 2  # the three iterations played: a trigger each


@pytest.mark.rule("704.5a")
def test_732_2a_704_5a_a_settled_shortcut_stops_at_the_iteration_a_player_dies() -> None:
    """Bo at 2,000,000 takes 3 damage an iteration: the iterations up to his last are settled at
    once, the one that brings him to 0 or less is played (704.5a), and the shortcut stops
    with the game; Ana's lifelink gains count every iteration that happened."""
    game = Game([Seat("ana"), Seat("bo")], version=2, starting_life=2_000_000)
    game.card("pridemate", "Ajani's Pridemate", "ana")
    game.repeat(10**6, Damage("bo", 3, source="bat", lifelink=True, controller="ana"))
    dies = 666_667  # the iteration that takes Bo to 0 or less
    assert game.life_of("bo") == 2_000_000 - 3 * dies == -1
    assert game.life_of("ana") == 2_000_000 + 3 * dies
    assert game.triggered == {"pridemate": dies}
    assert game.is_over() and str(game.outcome().results["bo"]) == "lost (life, 704.5a)"
    assert game.notes[-1].text == f"a shortcut: {dies:,} of 1,000,000 iterations"


@pytest.mark.rule("810.9a")
def test_732_2a_810_9a_a_shared_life_total_is_settled_once_for_the_team() -> None:
    """Two-Headed Giant: both heads lose 1 life an iteration from their one shared total
    (810.9a): it falls by 2, not 4, each time, and the team loses as it reaches 0 (704.6a)."""
    seats = [Seat(p, team=t) for p, t in (("ana", "n"), ("bo", "n"), ("cy", "s"), ("di", "s"))]
    game = Game(seats, "two-headed-giant", version=2, starting_life=10**6)
    game.repeat(10**6, LoseLife("ana", 1), LoseLife("bo", 1))
    assert game.life_of("ana") == game.life_of("bo") == 0
    assert game.notes[-1].text == f"a shortcut: {10**6 // 2:,} of 1,000,000 iterations"
    assert game.team("n").result.rule == "704.6a" and game.is_over()


@pytest.mark.rule("704.5c")
def test_732_2a_704_5c_poison_counters_and_a_library_stop_a_settled_shortcut() -> None:
    """Poison counters (704.5c) and an empty library (704.5b) are thresholds as life is: the
    iterations before the one that crosses are settled, that one is played."""
    game = Game([Seat("ana", library=10**6), Seat("bo")], version=2)
    before = state_dict(game)
    with iterating(False):
        slow = Game([Seat("ana", library=10**6), Seat("bo")], version=2)
        slow.repeat(5_000, *_draw_and_poison())
    game.repeat(5_000, *_draw_and_poison())
    assert state_dict(game) == state_dict(slow) != before
    assert game.player("bo").poison == 10 and game.is_over()
    big = Game([Seat("ana", library=10**6), Seat("bo")], version=2)
    big.repeat(10**6, *_draw_and_poison(poison=0))
    assert big.player("ana").library == 0 and not big.is_over()  # 704.5b: no attempt yet


def _draw_and_poison(poison: int = 1) -> tuple[Any, ...]:
    from lifeledger.actions import AddCounters, Draw

    return (Draw("ana", 1), AddCounters("bo", "poison", poison), GainLife("ana", 0))


def test_732_2a_a_shortcut_past_the_bound_on_resolutions_is_malformed_as_iterated() -> None:
    """The resolutions of the iterations settled at once count toward the action's bound
    (``MAX_RESOLUTIONS``): the iteration that passes it is played, and fails, as iterating
    does (``test_rules_stack``'s test of the bound, unchanged, checks the rest)."""
    from lifeledger.stack import MAX_RESOLUTIONS

    errors = []
    for settle in (True, False):
        with iterating(settle):
            game = Game([Seat("ana"), Seat("bo")], version=2, starting_life=10**9)
            game.card("bond", "Sanguine Bond", "ana")
            with pytest.raises(MalformedError) as raised:
                game.repeat(MAX_RESOLUTIONS + 5, GainLife("ana", 1))
            errors.append((str(raised.value), raised.value.member, state_dict(game)))
    assert errors[0] == errors[1]

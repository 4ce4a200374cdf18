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


@pytest.mark.rule("732.2a")
def test_732_2a_settled_iterations_count_toward_no_bound_on_resolutions() -> None:
    """Issue 28 item 4: a million life gains under Sanguine Bond and Ajani's Pridemate were
    malformed ("resolve more than 20,000 times"): the iterations settled at once counted their
    resolutions. The bound is on work done: settled, the shortcut is the totals a million
    iterations give; played every one (the tests' switch), its 2,000,000 resolutions pass the
    bound, and it is malformed as before."""
    from lifeledger.stack import MAX_RESOLUTIONS

    def game() -> Game:
        g = Game([Seat("ana"), Seat("bo")], version=2, starting_life=10**9)
        g.card("pridemate", "Ajani's Pridemate", "ana")
        g.card("bond", "Sanguine Bond", "ana")
        g.choose("ana", order=["pridemate", "bond"])
        return g

    settled = game()
    settled.repeat(1_000_000, GainLife("ana", 1))
    assert settled.life_of("ana") == 10**9 + 10**6
    assert settled.life_of("bo") == 10**9 - 10**6
    assert settled.triggered == {"pridemate": 10**6, "bond": 10**6}
    assert settled.notes[-1].text == "a shortcut: 1,000,000 of 1,000,000 iterations"
    with iterating(False):
        played = game()
        before = state_dict(played)
        with pytest.raises(MalformedError, match=f"resolve more than {MAX_RESOLUTIONS:,} times"):
            played.repeat(1_000_000, GainLife("ana", 1))
        assert state_dict(played) == before


@pytest.mark.rule("732.2a")
def test_732_2a_iterations_that_cant_be_settled_are_bounded_by_their_resolutions() -> None:
    """Iterations whose changes differ each time (an exchange of life totals: 701.12c) are
    played, each resolving Sanguine Bond's ability for real: past ``MAX_RESOLUTIONS`` of them
    in one action the shortcut is malformed, and nothing of it happens (work done is bounded,
    iterations settled at once are not)."""
    from lifeledger.actions import ExchangeLife
    from lifeledger.stack import MAX_RESOLUTIONS

    game = Game([Seat("ana"), Seat("bo")], version=2, starting_life=10**9)
    game.card("bond", "Sanguine Bond", "ana")
    before = state_dict(game)
    with pytest.raises(MalformedError, match=f"resolve more than {MAX_RESOLUTIONS:,} times"):
        game.repeat(10**12, ExchangeLife("ana", "bo"), GainLife("ana", 1))
    assert state_dict(game) == before


@pytest.mark.rule("732.2a")
def test_732_2a_a_shortcut_names_any_number_of_iterations_within_the_integer_bound() -> None:
    """732.2a: a shortcut may name any finite number of iterations; the record bounds it as
    every integer (10^1000). Iterations that change nothing settle at once, however many."""
    from lifeledger.actions import Repeat
    from lifeledger.bounds import MAX_INTEGER

    game = _pridemate_game()
    game.repeat(MAX_INTEGER, GainLife("ana", 0))  # 119.8: a gain of 0 is no event
    assert game.life_of("ana") == 20 and game.triggered == {"pridemate": 0}
    assert game.notes[-1].text.startswith("a shortcut: 10,000,000,000,")
    with pytest.raises(MalformedError) as raised:
        Repeat(MAX_INTEGER + 1, (GainLife("ana", 1),))
    assert raised.value.member == "times" and "10^1000" in str(raised.value)
    with pytest.raises(MalformedError, match=r"1 to 10\^1000 times \(732.2a\), not 0"):
        Repeat(0, (GainLife("ana", 1),))
    parsed = record.parse_action(
        {"do": "repeat", "times": 10**30, "actions": [{"do": "gain_life", "player": "ana",
         "amount": 1}]}, "0"
    )  # fmt: skip
    game.apply(parsed)
    assert game.life_of("ana") == 20 + 10**30 and game.triggered == {"pridemate": 10**30}


@pytest.mark.rule("732.2a")
def test_732_2a_a_shortcut_past_the_integer_bound_is_malformed_as_iterated() -> None:
    """A total that would pass 10^1000 part-way: the iterations before it settled at once, the
    one that passes it played, and malformed as iterating makes it; nothing of it happens."""
    from lifeledger.bounds import MAX_INTEGER

    game = Game([Seat("ana"), Seat("bo")], version=2, starting_life=MAX_INTEGER - 10**6)
    before = state_dict(game)
    with pytest.raises(MalformedError, match="beyond 10\\^1000"):
        game.repeat(MAX_INTEGER, GainLife("ana", 3))
    assert state_dict(game) == before
    game.repeat(10**6 // 3, GainLife("ana", 3))  # up to the bound: applied
    assert game.life_of("ana") == MAX_INTEGER - 1


#: Shortcuts of 10^12 iterations (issue 28 item 4): their actions, the cards, the starting
#: life, and what the game is after them (ana's and bo's life, the trigger counts, the
#: iterations done).
TRILLION = 10**12
BIG_SHORTCUTS: list[tuple[str, list[Any], list[str], int, tuple[int, int, dict[str, int], int]]] = [
    (
        "Sanguine Bond and Ajani's Pridemate",
        [GainLife("ana", 1)],
        ["Ajani's Pridemate", "Sanguine Bond"],
        10**13,
        (10**13 + TRILLION, 10**13 - TRILLION, {"c0": TRILLION, "c1": TRILLION}, TRILLION),
    ),
    (
        "and Boon Reflection (each gain doubled)",
        [GainLife("ana", 1)],
        ["Ajani's Pridemate", "Sanguine Bond", "Boon Reflection"],
        10**13,
        (10**13 + 2 * TRILLION, 10**13 - 2 * TRILLION, {"c0": TRILLION, "c1": TRILLION}, TRILLION),
    ),
    (
        "and Marauding Blight-Priest, a loss each iteration too",
        [GainLife("ana", 2), LoseLife("ana", 1)],
        ["Ajani's Pridemate", "Sanguine Bond", "Marauding Blight-Priest"],
        10**13,
        (
            10**13 + TRILLION,
            10**13 - 3 * TRILLION,
            {"c0": TRILLION, "c1": TRILLION, "c2": TRILLION},
            TRILLION,
        ),
    ),
    (
        "until bo dies (704.5a) part-way",
        [GainLife("ana", 3)],
        ["Ajani's Pridemate", "Sanguine Bond"],
        10**11,
        # bo reaches 0 or less at iteration ceil(10^11 / 3)
        (
            10**11 + 3 * (10**11 // 3 + 1),
            -2,
            {"c0": 10**11 // 3 + 1, "c1": 10**11 // 3 + 1},
            10**11 // 3 + 1,
        ),
    ),
]


@pytest.mark.rule("732.2a")
@pytest.mark.parametrize(
    ("actions", "cards", "life", "after"),
    [case[1:] for case in BIG_SHORTCUTS],
    ids=[case[0] for case in BIG_SHORTCUTS],
)
def test_732_2a_a_shortcut_of_a_trillion_iterations_settles_in_bounded_work(
    actions: list[Any], cards: list[str], life: int, after: tuple[int, int, dict[str, int], int]
) -> None:
    """Issue 28 item 4: 10^12 iterations whose triggers don't depend on each other's results
    settle in closed form, stopping exactly where a state-based action first applies, in
    time and memory that don't grow with the count (under 0.1 s of CPU on a quiet machine:
    ``benchmarks/shortcuts.py``; bounded loosely here, the machine is shared)."""
    game = Game([Seat("ana"), Seat("bo")], version=2, starting_life=life)
    for n, name in enumerate(cards):
        game.card(f"c{n}", name, "ana")
    game.choose("ana", order=[f"c{n}" for n in range(len(cards))])
    tracemalloc.start()
    began = time.process_time()
    try:
        game.repeat(TRILLION, *actions)
        took = time.process_time() - began
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    ana, bo, triggered, done = after
    assert (game.life_of("ana"), game.life_of("bo"), game.triggered) == (ana, bo, triggered)
    assert game.notes[-1].text == f"a shortcut: {done:,} of {TRILLION:,} iterations"
    assert game.is_over() == (bo <= 0)
    assert took < 1.0
    assert peak < 1_000_000  # bytes: a handful of iterations' notes and copies


@pytest.mark.rule("704.6c")
def test_732_2a_704_6c_a_settled_shortcut_stops_at_21_commander_damage() -> None:
    """Commander damage is a threshold as life is (704.6c: 21 from one commander): a trillion
    iterations of 2 combat damage from ana's commander stop at the 11th (22 damage), with the
    state iterating every one gives."""
    from lifeledger.state import state_dict

    def game() -> Game:
        seats = [Seat("ana", commanders=("cmdr",)), Seat("bo", commanders=("bc",))]
        return Game(seats, "two-player", "commander", version=2)

    shortcut = Damage("bo", 2, source="cmdr", combat=True)
    settled = game()
    settled.repeat(TRILLION, shortcut)
    with iterating(False):
        played = game()
        played.repeat(60, shortcut)
    assert settled.player("bo").commander_damage == {"cmdr": 22}
    assert settled.is_over() and str(settled.outcome().results["bo"]).endswith("704.6c)")
    assert settled.notes[-1].text == f"a shortcut: 11 of {TRILLION:,} iterations"
    assert state_dict(settled) == state_dict(played)


#: The cards whose triggers a shortcut's iterations set off together (issue 28 item 4).
TRIGGER_CARDS = [
    "Sanguine Bond",
    "Ajani's Pridemate",
    "Exquisite Blood",
    "Boon Reflection",
    "Rhox Faithmender",
    "Marauding Blight-Priest",
    "Vito, Thorn of the Dusk Rose",
    "Transcendence",
    "Platinum Angel",
    "Worship",
    "Lich's Mirror",
    "Phyrexian Unlife",
    "Tainted Remedy",
    "Near-Death Experience",
    "Felidar Sovereign",
]


@SETTINGS
@given(
    st.integers(2, 3),
    st.sampled_from([1, 5, 19, 20, 39, 60, 10**6]),
    st.lists(st.tuples(st.sampled_from(TRIGGER_CARDS), st.integers(0, 2)), max_size=4),
    st.lists(
        st.tuples(
            st.sampled_from(["gain", "lose", "damage", "poison", "upkeep", "together"]),
            st.integers(0, 2),
            st.integers(0, 5),
        ),
        min_size=1,
        max_size=3,
    ),
    st.integers(1, 60),
)
def test_732_2a_shortcuts_of_many_triggers_settle_as_they_iterate(
    size: int,
    life: int,
    cards: list[tuple[str, int]],
    parts: list[tuple[str, int, int]],
    times: int,
) -> None:
    """Issue 28 item 4: any number of the catalogue's triggered abilities set off together
    (Sanguine Bond, Ajani's Pridemate, Exquisite Blood, doublers, Blight-Priest, ...), with
    the thresholds they meet (0 life, 20 under Transcendence, an upkeep at exactly 1 or 40
    life, 10 poison counters): settled in closed form, the shortcut of up to 60 iterations
    is the shortcut played action by action: the same state, outcome and errors, and the
    game goes on the same afterwards."""
    ids = [f"p{i}" for i in range(size)]
    head = {
        "record": 2,
        "players": [{"id": pid} for pid in ids],
        "options": {"starting_life": life},
    }
    prefix: list[dict[str, Any]] = []
    for n, (name, owner) in enumerate(cards):
        prefix.append({"do": "card", "id": f"c{n}", "name": name, "controller": ids[owner % size]})
    for pid in ids:
        mine = [f"c{n}" for n, (_, owner) in enumerate(cards) if ids[owner % size] == pid]
        if mine:
            prefix.append(
                {"do": "choose", "player": pid, "order": mine,
                 "targets": {c: [q for q in ids if q != pid] for c in mine},
                 "replacements": mine}
            )  # fmt: skip
    inner: list[dict[str, Any]] = []
    for kind, who, amount in parts:
        pid = ids[who % size]
        if kind == "gain":
            inner.append({"do": "gain_life", "player": pid, "amount": amount})
        elif kind == "lose":
            inner.append({"do": "lose_life", "player": pid, "amount": amount})
        elif kind == "damage":
            inner.append({"do": "damage", "source": "bat", "to": pid, "amount": amount,
                          "lifelink": True, "controller": ids[(who + 1) % size]})  # fmt: skip
        elif kind == "poison":
            inner.append({"do": "add_counters", "player": pid, "kind": "poison", "amount": 1})
        elif kind == "upkeep":
            inner.append({"do": "upkeep", "player": pid})
        else:
            gain = {"do": "gain_life", "player": pid, "amount": amount}
            loss = {"do": "lose_life", "player": ids[(who + 1) % size], "amount": amount}
            inner.append({"do": "together", "actions": [gain, loss]})
    shortcut = {"do": "repeat", "times": times, "actions": inner}
    after = {"do": "gain_life", "player": ids[-1], "amount": 1}
    results = []
    for settle in (True, False):
        with iterating(settle):
            try:
                played = record.replay({**head, "actions": prefix}).game
            except (MalformedError, RefusedError):
                return  # a statement the rules don't allow here (a replacement order)
            results.append(outcome_of(played, shortcut, after))
    assert results[0] == results[1]

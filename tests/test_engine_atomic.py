"""Issue 7, items 3-5: an action changes the game whole or not at all, and no integer of a game
passes 10^1000 (the record spec, Actions), so that no action can take unbounded time.

Each test is a short game; the ones named for a rule say which rule the refusal or the event
rests on.
"""

from __future__ import annotations

import time

import pytest

from lifeledger import Game, Seat, record
from lifeledger import state as ll_state
from lifeledger.actions import GainLife, LifeOf, LoseLife, PayLife, SetLife
from lifeledger.bounds import MAX_INTEGER
from lifeledger.errors import MalformedError, RefusedError

HUGE = 10**5000


def _two(**options: object) -> Game:
    return Game([Seat("ana"), Seat("bo")], **options)  # type: ignore[arg-type]


def _commander() -> Game:
    return Game(
        [Seat("ana", commanders=("ana-cmdr",)), Seat("bo", commanders=("bo-cmdr",))],
        format="commander",
    )


def _snapshot(game: Game) -> object:
    return ll_state.state_dict(game, []), len(game.history or [])


def _assert_unchanged(game: Game, before: object) -> None:
    assert _snapshot(game) == before
    assert game.notes == []
    assert game.refusals == []
    # The saved record still replays to the same state (the failed action left no trace).
    replayed = record.loads(record.dumps(game)).game
    assert ll_state.state_dict(replayed, []) == ll_state.state_dict(game, [])


# -- item 3: refusals belong to the action that made them ------------------------------------


@pytest.mark.rule("609.3")
def test_609_3_a_refused_action_after_a_group_lists_no_refusals_of_the_group():
    """Issue 7 item 3: concede a; a group in which a's part is refused (800.4); then
    gain_life a is refused at the top level. The group's refusal "1.0" must not be reported
    again as "2.0" for the refused action after it."""
    game = Game([Seat("a"), Seat("b"), Seat("c")])
    game.concede("a")
    game.together(GainLife("a", 1), GainLife("b", 1))
    assert [(position, e.rule) for position, e in game.refusals] == [("0", "800.4")]
    with pytest.raises(RefusedError) as refused:
        game.gain_life("a", 1)
    assert refused.value.rule == "800.4"
    assert game.refusals == []
    assert game.notes == []


@pytest.mark.rule("800.4")
def test_800_4_the_record_lists_each_refusal_once():
    """Issue 7 item 3, through the record: refusals "1.0" and "2", and no bogus "2.0"."""
    replayed = record.replay(
        {
            "record": 1,
            "players": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
            "actions": [
                {"do": "concede", "player": "a"},
                {
                    "do": "together",
                    "actions": [
                        {"do": "gain_life", "player": "a", "amount": 1},
                        {"do": "gain_life", "player": "b", "amount": 1},
                    ],
                },
                {"do": "gain_life", "player": "a", "amount": 1},
            ],
        }
    )
    assert [r.position for r in replayed.refused] == ["1.0", "2"]


# -- item 4: a group that fails half-way changes nothing --------------------------------------


@pytest.mark.rule("119.8")
def test_a_group_that_fails_half_way_under_platinum_emperion_changes_nothing():
    """Issue 7 item 4: under Platinum Emperion (ana's life total can't change), the group
    [lose_life bo 5, gain_life ana 10^5000] is malformed (an integer beyond 10^1000), and bo
    keeps 20 life: nothing of the group happens, and the record still round-trips."""
    game = _two()
    game.card("emperion", "Platinum Emperion", controller="ana")
    before = _snapshot(game)
    with pytest.raises(MalformedError) as malformed:
        game.together(LoseLife("bo", 5), GainLife("ana", HUGE))
    assert malformed.value.position == "1"
    assert malformed.value.member == "amount"
    assert game.life_of("bo") == 20
    _assert_unchanged(game, before)


def test_a_single_action_that_fails_half_way_changes_nothing():
    """Issue 7 item 4: lifelink damage whose gain would take the controller past 10^1000 is
    malformed, and the damage it dealt first is undone."""
    game = _two()
    game.set_life("ana", MAX_INTEGER)
    before = _snapshot(game)
    with pytest.raises(MalformedError) as malformed:
        game.damage("bo", 5, source="ana-lifelinker", lifelink=True, controller="ana")
    assert malformed.value.member == "amount"
    assert game.life_of("bo") == 20
    _assert_unchanged(game, before)


def test_a_failed_action_leaves_triggers_uncounted():
    """Issue 7 item 4: bo's loss triggers "whenever an opponent loses life" (603.2), then
    ana's lifelink gain would pass 10^1000: the action is malformed, and the trigger it
    counted is not counted."""
    game = _two()
    game.effect("bleeder", "on_lose_life", controller="ana", affects="opponents")
    game.set_life("ana", MAX_INTEGER)
    before = _snapshot(game)
    with pytest.raises(MalformedError):
        game.damage("bo", 3, source="lifelinker", lifelink=True, controller="ana", combat=True)
    assert game.triggered == {"bleeder": 0}
    _assert_unchanged(game, before)


# -- item 5: every integer within 10^1000 ------------------------------------------------------


@pytest.mark.parametrize(
    ("act", "member"),
    [
        (lambda g: g.gain_life("ana", HUGE), "amount"),
        (lambda g: g.lose_life("ana", -HUGE), "amount"),
        (lambda g: g.set_life("ana", -HUGE), "to"),
        (lambda g: g.pay_life("ana", HUGE), "amount"),
        (lambda g: g.damage("ana", HUGE, source="x"), "amount"),
        (lambda g: g.add_counters("ana", "energy", HUGE), "amount"),
        (lambda g: g.draw("ana", HUGE), "count"),
        (lambda g: g.set_life_each({"ana": HUGE}), "each"),
    ],
)
def test_an_amount_beyond_10_to_the_1000_is_malformed(act, member):
    """Issue 7 item 5: the Python API refuses what the record may not say, as
    MalformedError naming the member (not ValueError from printing a 5,000-digit number)."""
    game = _two()
    before = _snapshot(game)
    with pytest.raises(MalformedError) as malformed:
        act(game)
    assert malformed.value.member == member
    assert "10^1000" in str(malformed.value)
    _assert_unchanged(game, before)


def test_doubling_a_life_total_stops_at_10_to_the_1000():
    """Issue 7 item 5: "double target player's life total" over and over (the table's
    freeze: set_life to life_of x times 10^1000) stops with a malformed action once the total
    would pass 10^1000; each step stays fast."""
    game = _two()
    double = SetLife("ana", LifeOf("ana", (2, 1)))
    steps = 0
    while True:
        started = time.perf_counter()
        try:
            game.apply(double)
        except MalformedError as exc:
            assert exc.member == "to"
            break
        steps += 1
        assert time.perf_counter() - started < 0.5
    assert game.life_of("ana") <= MAX_INTEGER < 2 * game.life_of("ana")
    assert steps == 3317  # 20 * 2**3317 is the last total within 10^1000
    assert record.loads(record.dumps(game)).game.life_of("ana") == game.life_of("ana")


def test_a_fraction_times_a_large_total_is_malformed():
    """Issue 7 item 5: an evaluated amount beyond the bound is malformed: life_of ana times
    10^1000, with ana at 20."""
    game = _two()
    before = _snapshot(game)
    with pytest.raises(MalformedError) as malformed:
        game.apply(SetLife("bo", LifeOf("ana", (MAX_INTEGER, 1))))
    assert malformed.value.member == "to"
    _assert_unchanged(game, before)


@pytest.mark.rule("616.1")
def test_616_1_a_life_doubler_cannot_take_a_gain_past_the_bound():
    """Issue 7 item 5: Boon Reflection doubles a gain of 10^1000 (616.1): the result would
    pass the bound, so the gain is malformed and changes nothing."""
    game = _two()
    game.card("boon", "Boon Reflection", controller="ana")
    before = _snapshot(game)
    with pytest.raises(MalformedError):
        game.gain_life("ana", MAX_INTEGER)
    _assert_unchanged(game, before)


@pytest.mark.rule("903.10a")
def test_903_10a_commander_damage_and_poison_and_counters_stay_within_the_bound():
    """Issue 7 item 5: commander damage, poison and other counters are bounded too."""
    game = _commander()
    game.card("angel", "Platinum Angel", controller="bo")  # bo stays in whatever happens
    game.damage("bo", MAX_INTEGER, source="ana-cmdr", combat=True)
    game.add_counters("bo", "poison", MAX_INTEGER)
    game.add_counters("bo", "energy", MAX_INTEGER)
    before = _snapshot(game)
    for act in (
        lambda: game.damage("bo", 1, source="ana-cmdr", combat=True),
        lambda: game.add_counters("bo", "poison", 1),
        lambda: game.damage("bo", 1, source="x", infect=True),
        lambda: game.add_counters("bo", "energy", 1),
    ):
        with pytest.raises(MalformedError):
            act()
        _assert_unchanged(game, before)


def test_a_starting_life_beyond_the_bound_is_malformed():
    """Issue 7 item 5: the setup's integers are bounded too."""
    with pytest.raises(MalformedError) as malformed:
        _two(starting_life=HUGE)
    assert malformed.value.member == "starting_life"
    with pytest.raises(MalformedError) as malformed:
        Game([Seat("ana"), Seat("bo"), Seat("cy")], range_of_influence=HUGE)
    assert malformed.value.member == "range_of_influence"


def test_the_largest_totals_print_under_the_default_digit_limit():
    """Issue 7 item 5: within the bound, every total prints with Python's default limit of
    4,300 digits for int-to-text (nothing needs sys.set_int_max_str_digits(0))."""
    game = _two()
    game.set_life("ana", MAX_INTEGER)
    game.set_life("bo", -MAX_INTEGER)
    assert str(game.life_of("ana")) == "1" + "0" * 1000
    text = record.dumps(game)
    assert record.loads(text).game.life_of("bo") == -MAX_INTEGER


# -- item 15's siblings in the Python API -------------------------------------------------------


def test_the_typed_methods_refuse_what_the_record_cannot_say():
    """Issue 7 item 15: a lone surrogate in a source is no text; the record refuses it, and
    so does the API (else a game would save a record that can't be read back)."""
    game = _two()
    with pytest.raises(MalformedError) as malformed:
        game.lose_life("ana", 1, source="\ud800")
    assert malformed.value.member == "source"
    with pytest.raises(MalformedError) as malformed:
        game.together(LoseLife("ana", 1, source="ok"), GainLife("bo", 1, source="\udfff"))
    assert malformed.value.member == "source"
    assert game.history == []


def test_an_error_quotes_at_most_60_characters_of_an_id():
    """Issue 7 item 15: an unknown 100,000-character player id is quoted short."""
    game = _two()
    with pytest.raises(MalformedError) as malformed:
        game.lose_life("x" * 100_000, 1)
    assert len(str(malformed.value)) < 200
    assert "100,000 characters" in str(malformed.value)


def test_a_starting_total_beyond_the_bound_is_malformed():
    """Issue 7 item 5 (found by an audit): 20 plus a Vanguard life modifier of 10^1000 started
    a total beyond the bound (902.4)."""
    with pytest.raises(MalformedError) as malformed:
        Game([Seat("ana", life_modifier=MAX_INTEGER), Seat("bo")], format="vanguard")
    assert malformed.value.member == "players[0]"
    assert Game([Seat("ana", life_modifier=-20), Seat("bo")], format="vanguard").life_of("ana") == 0


@pytest.mark.rule("122.1")
def test_122_1_a_counter_kind_is_a_word_not_a_text_of_any_length():
    """Issue 7 item 6 (found by an audit): counter kinds of 15,000 letters grew the state
    without end; a kind is a lowercase word of at most 64 characters."""
    game = _two()
    game.add_counters("ana", "e" * 64, 1)
    with pytest.raises(MalformedError) as malformed:
        game.add_counters("ana", "e" * 65, 1)
    assert malformed.value.member == "kind"


def test_a_game_copies_after_a_group_whose_part_was_refused():
    """Found fuzzing version 2: ``Game.copy`` deep-copies the last group's refusals, and a
    ``RefusedError`` (two arguments) could not be copied."""
    import copy as copying

    game = Game([Seat("ana"), Seat("bo")])
    game.together(PayLife((("ana", 30),)), LoseLife("bo", 1))
    assert [(position, e.rule) for position, e in game.refusals] == [("0", "119.4")]
    clone = game.copy()
    assert [(position, e.rule, e.message) for position, e in clone.refusals] == [
        (position, e.rule, e.message) for position, e in game.refusals
    ]
    error = copying.deepcopy(MalformedError("bad", member="amount", position="3"))
    assert (error.message, error.member, error.position) == ("bad", "amount", "3")
    assert str(copying.deepcopy(RefusedError("119.4", "no"))) == "no (119.4)"


def test_104_3_a_refused_action_changes_nothing_the_next_check_notes():
    """A refused action changes nothing, not even whom the next state-based check looks at:
    after Cy's "can't lose" is noted (104.3, 704.5c) and a payment is refused (119.4), an
    action that touches nobody notes nothing, as it would without the refusal."""
    game = Game([Seat("ana"), Seat("bo"), Seat("cy")])
    game.effect("angel", "cant_lose_game", "cy")
    game.add_counters("cy", "poison", 10)
    assert [n.rule for n in game.notes] == ["104.3"]
    with pytest.raises(RefusedError):
        game.pay_life("ana", 21)
    game.lose_life("ana", 0)
    assert game.notes == []

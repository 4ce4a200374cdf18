"""Property-based tests of the stack of version 2 (the card catalogue's triggered abilities and
the loops the engine decides), with the profiles of ``test_properties.py`` (derandomized in
``make test``):

- a game with triggers (random catalogue cards, stated choices and every other action) replays
  from its record to the same state, and ``record.dumps`` round-trips it;
- an action that is malformed or refused (a choice the record left out, a total past the bound)
  leaves the game exactly as it was;
- loop detection never hangs: any combination of the catalogue's cards, with any starting
  totals up to 10^60, ends the action (a result, a draw, or a malformed action) promptly.
"""

from __future__ import annotations

import time
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from lifeledger import Game, Seat, record
from lifeledger import state as ll_state
from lifeledger.effects import CATALOGUE
from lifeledger.errors import MalformedError, RefusedError
from test_properties import SETTINGS, Table, a_player, snapshot, without_refused
from test_properties_v2 import v2_action, v2_headers

STACK_CARDS = [
    "Sanguine Bond",
    "Vito, Thorn of the Dusk Rose",
    "Exquisite Blood",
    "Marauding Blight-Priest",
    "Transcendence",
    "Celestial Convergence",
    "Angel's Grace",
    "Lich's Mirror",
    "Worship",
    "Near-Death Experience",
    "Platinum Angel",
]


def stack_action(draw: st.DrawFn, table: Table, state: dict[str, Any]) -> dict[str, Any]:
    """A catalogue card (of ``table.cards``), the choices of a player who controls some (all their
    stack cards' ids in a drawn order, every player as a target by preference), or any
    version-2 action."""
    mine: dict[str, list[str]] = getattr(table, "stack_cards", {})
    table.stack_cards = mine  # type: ignore[attr-defined]
    live = [i for i in table.active if i.startswith("sc")]
    kind = draw(st.sampled_from(["card", "choose", "gain", "lose", "other", "other"]))
    player = a_player(draw, table, state)
    if kind == "card":
        card_id = table.fresh_id("sc")
        mine[card_id] = [player]
        return {"do": "card", "id": card_id, "name": draw(st.sampled_from(table.cards)),
                "controller": player}  # fmt: skip
    if kind == "choose" and live:
        owner = mine[draw(st.sampled_from(live))][0]
        ids = [i for i in live if mine[i][0] == owner]
        order = draw(st.permutations(ids))
        targets = {i: draw(st.permutations(table.ids)) for i in ids}
        # 616.1: the order of replacements on an event that affects a player is theirs, whoever
        # controls the cards (a teammate's Lich's Mirror): any cards in play, any player.
        replacements = draw(st.permutations(live))
        if draw(st.booleans()):
            return {"do": "choose", "player": player, "replacements": replacements}
        return {"do": "choose", "player": owner, "order": order, "targets": targets,
                "replacements": replacements}  # fmt: skip
    if kind == "gain":
        return {"do": "gain_life", "player": player, "amount": draw(st.integers(0, 5))}
    if kind == "lose":  # 104.3e, which Lich's Mirror replaces (614.1a)
        return {"do": "lose", "player": player, "source": "a-spell"}
    return v2_action(draw, table, state)


def plays_and_round_trips(data: st.DataObject, cards: list[str]) -> None:
    """A version-2 game of ``stack_action``s with catalogue ``cards``: a malformed or refused
    action changes nothing (none is half-done), the accepted ones replay to the same game, and
    it round-trips through the record, as a document and as a stream."""
    head = data.draw(v2_headers())
    game = record.replay({**head, "actions": []}).game
    table = Table(head)
    table.cards = cards  # type: ignore[attr-defined]
    kept: list[dict[str, Any]] = []
    for index in range(data.draw(st.integers(0, 24))):
        before = snapshot(game)
        obj = stack_action(data.draw, table, before)
        try:
            game.apply(record.parse_action(obj, str(index)))
        except (RefusedError, MalformedError):
            assert snapshot(game) == before  # nothing half-done
            continue
        table.applied(obj)
        kept.append(obj)
    replay = record.replay({**head, "actions": kept})
    assert without_refused(snapshot(replay.game)) == without_refused(snapshot(game))
    for stream in (False, True):
        again = record.loads(record.dumps(game, stream=stream), stream=stream)
        assert without_refused(ll_state.state_dict(again.game, again.refused)) == without_refused(
            snapshot(game)
        )


@SETTINGS
@given(st.data())
def test_a_game_with_triggers_round_trips_through_the_record(data: st.DataObject) -> None:
    plays_and_round_trips(data, STACK_CARDS)


@SETTINGS
@given(st.data())
def test_a_loss_that_two_lichs_mirrors_could_replace_changes_nothing_until_chosen(
    data: st.DataObject,
) -> None:
    """616.1: Lich's Mirrors only, with losses, damage and choices: an action whose loss of
    the game two Mirrors could replace, the choice unstated, changes nothing (the check of
    state-based actions that finds it comes after the action's own changes), and the game
    round-trips through the record."""
    plays_and_round_trips(data, ["Lich's Mirror"])


@SETTINGS
@given(
    st.lists(st.sampled_from(list(CATALOGUE)), max_size=6),
    st.integers(2, 4),
    st.integers(1, 10**60),
    st.integers(0, 10**6),
    st.integers(0, 16),
)
def test_loop_detection_never_hangs(
    cards: list[str], players: int, life: int, amount: int, turns: int
) -> None:
    """Every card of the catalogue (Step C's Angel's Grace, Transcendence and Celestial
    Convergence included: a state trigger, 603.8, and an upkeep countdown), any totals, and
    up to 16 turns so that the upkeep triggers and "this turn" effects come into play."""
    ids = [f"p{i}" for i in range(players)]
    game = Game([Seat(i) for i in ids], version=2, starting_life=life)
    began = time.monotonic()
    try:
        for n, name in enumerate(cards):
            game.card(f"c{n}", name, ids[n % players])
        for pid in ids:
            mine = [f"c{n}" for n in range(len(cards)) if ids[n % players] == pid]
            if mine and game.is_in_game(pid):
                game.choose(pid, order=mine, targets={c: ids for c in mine})
        game.gain_life(ids[0], amount)
        game.lose_life(ids[-1], amount)
        for n in range(turns):
            game.turn(ids[n % players])
            game.step("main")
            game.lose_life(ids[(n + 1) % players], amount)
    except (MalformedError, RefusedError):
        pass
    assert time.monotonic() - began < 20

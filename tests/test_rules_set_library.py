"""Rule stories for ``set_library`` (version 2 of the record): the record states how many cards
are in a player's library from now on. A library the record didn't track (a header without
``library``: draws never run out) becomes tracked; with 0, the player's next draw is an attempt
to draw from an empty library (121.4), and they lose the next time state-based actions are
checked (704.5b). The draw step's draw is the engine's (504.1), so a table that counts no
library states an empty one this way.
"""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import Game, Seat
from lifeledger.errors import MalformedError, RefusedError
from stories import Story, effect, turn, v2


def set_library(player: str, count: Any) -> dict[str, Any]:
    return {"do": "set_library", "player": player, "count": count}


def draw_step() -> dict[str, Any]:
    return {"do": "step", "step": "draw"}


def draw(player: str, count: int = 1) -> dict[str, Any]:
    return {"do": "draw", "player": player, "count": count}


def test_an_untracked_library_never_runs_out_in_the_draw_step_504_1():
    """504.1: the active player draws in their draw step; a library the record doesn't track
    has no count to run out of, so turns pass and nobody loses (103.8a: Ana skips her first
    draw)."""
    s = v2(["ana", "bo"], variant="two-player")
    for player in ("ana", "bo", "ana", "bo"):
        s.do(turn(player))
        state = s.do(draw_step())
    assert state.statuses() == {"ana": "playing", "bo": "playing"}
    assert [p["library"] for p in state["players"]] == [None, None]


def test_set_library_tracks_an_untracked_library_and_changes_no_life_121_4():
    """The record states Bo's library: it is tracked from now on; no card is drawn and no life
    changes."""
    s = v2(["ana", "bo"])
    state = s.do(set_library("bo", 7))
    assert state.player("bo")["library"] == 7
    assert state.player("ana")["library"] is None
    assert state.lives() == {"ana": 20, "bo": 20}
    assert state.statuses() == {"ana": "playing", "bo": "playing"}
    state = s.do(draw("bo", 2))  # 121.1: draws come out of the stated count
    assert state.player("bo")["library"] == 5


def test_set_library_restates_a_counted_library():
    """A tracked library's count is replaced, up or down (a shuffle effect, a miscount)."""
    s = v2([{"id": "ana", "library": 3}, "bo"])
    assert s.do(set_library("ana", 40)).player("ana")["library"] == 40
    assert s.do(set_library("ana", 0)).player("ana")["library"] == 0


def test_an_empty_library_alone_makes_no_one_lose_704_5b():
    """704.5b is about an attempt to draw from an empty library, not about having one: stating
    0 cards makes nobody lose."""
    state = v2(["ana", "bo"]).do(set_library("bo", 0))
    assert state.player("bo")["library"] == 0
    assert state.statuses() == {"ana": "playing", "bo": "playing"}


def test_the_draw_step_after_an_empty_library_loses_the_game_121_4_704_5b_504_1():
    """Bo's library is stated empty; in his first draw step he draws (504.1) from it (121.4)
    and loses as state-based actions are checked (704.5b)."""
    s = v2(["ana", "bo"], variant="two-player")
    s.do(turn("ana"))
    s.do(set_library("bo", 0))
    s.do(turn("bo"))
    state = s.do(draw_step())
    assert state.why("bo") == ("lost", "empty-library", "704.5b")
    assert state.player("ana")["status"] == "won"


def test_a_group_of_an_empty_library_and_a_draw_is_a_draw_from_it_121_4_704_5b():
    """A table that counts no library records an attempt to draw from an empty one as one
    group: the library is stated empty, then the player draws (121.4); the player loses as the
    group ends (704.3, 704.5b)."""
    s = v2(["ana", "bo", "cy"])
    state = s.do({"do": "together", "actions": [set_library("bo", 0), draw("bo")]})
    assert state.why("bo") == ("lost", "empty-library", "704.5b")
    assert state.player("bo")["library"] == 0
    assert state.player("ana")["status"] == "playing"


def test_an_empty_library_is_forgiven_under_cant_lose_the_game_704_5b():
    """An effect that says a player can't lose the game (104.3) keeps a draw from an empty
    library from making them lose (704.5b is a loss of the game)."""
    s = v2(["ana", "bo", "cy"])
    s.do(effect("plat", "cant_lose_game", "bo"))
    state = s.do({"do": "together", "actions": [set_library("bo", 0), draw("bo")]})
    assert state.player("bo")["status"] == "playing"


def test_set_library_is_malformed_in_a_version_1_record():
    """set_library is an action of record version 2 (member ``do``)."""
    err = Story(["ana", "bo"]).malformed(set_library("bo", 0))
    assert (err.position, err.member) == ("0", "do")


@pytest.mark.parametrize("count", [-1, True, 1.5, "3", None, 10**1000 + 1])
def test_set_library_with_a_count_that_is_not_a_whole_number_is_malformed(count: Any):
    """A library holds 0 or more cards, an integer within the record's bound."""
    err = v2(["ana", "bo"]).malformed(set_library("bo", count))
    assert (err.position, err.member) == ("0", "count")


def test_set_library_of_an_unknown_player_is_malformed():
    err = v2(["ana", "bo"]).malformed(set_library("zed", 3))
    assert (err.position, err.member) == ("0", "player")


def test_set_library_without_a_count_is_malformed():
    err = v2(["ana", "bo"]).malformed({"do": "set_library", "player": "bo"})
    assert err.member == "count"


def test_set_library_of_a_player_who_left_is_refused_800_4():
    s = v2(["ana", "bo", "cy"])
    s.do({"do": "concede", "player": "bo"})
    s.do(set_library("bo", 3))
    assert s.refused_last()["rule"] == "800.4"  # type: ignore[index]
    assert s.state().player("bo")["library"] is None


def test_set_library_after_the_game_is_over_is_refused_104_1():
    s = v2(["ana", "bo"])
    s.do({"do": "concede", "player": "bo"})
    s.do(set_library("ana", 3))
    assert s.refused_last()["rule"] == "104.1"  # type: ignore[index]


def test_the_typed_method_marks_the_player_touched_and_undoes_nothing_else():
    """Game.set_library: the player's entry in the state changed (Game.touched), and only
    theirs; a malformed count changes nothing."""
    game = Game([Seat("ana"), Seat("bo")], version=2)
    game.set_library("bo", 0)
    assert game.touched.players == frozenset({"bo"})
    assert game.player("bo").library == 0
    assert not game.has_drawn_from_empty_library("bo")
    with pytest.raises(MalformedError):
        game.set_library("bo", -2)
    assert game.player("bo").library == 0
    game.concede("bo")
    with pytest.raises(RefusedError):
        game.set_library("ana", 1)

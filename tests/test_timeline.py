"""The text timeline works from what each action touched (``Game.touched``) and prints exactly
what comparing the whole state before and after each action prints: checked over random games
against that comparison, kept here as the reference."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lifeledger import Game, MalformedError, record
from lifeledger.outcome import Result, Status
from lifeledger.record import Step
from lifeledger.timeline import Timeline, escaped
from test_properties import SETTINGS, headers, life_action, play


def _standing(result: Result) -> str:
    if result.status is Status.PLAYING:
        return "playing"
    reason = result.reason.value if result.reason else ""
    return f"{result.status.value.upper()} ({reason}, {result.rule})"


def whole_snapshot(game: Game) -> dict[str, Any]:
    """Every line of the timeline, from the whole state (the timeline before issue 9)."""
    facts: dict[str, Any] = {}
    for team in game.teams:
        if team.life is not None:
            facts[f"team {team.id} life"] = team.life
        if team.poison is not None:
            facts[f"team {team.id} poison"] = team.poison
    for p in game.players:
        if p.team is None or game.player(p.id).team not in {
            t.id for t in game.teams if t.life is not None
        }:
            facts[f"{p.id} life"] = p.life
        if not any(t.poison is not None and p.id in t.players for t in game.teams):
            facts[f"{p.id} poison"] = p.poison
        for kind, count in p.counters.items():
            facts[f"{p.id} {kind}"] = count
        for commander, damage in p.commander_damage.items():
            facts[f"{p.id} damage from {commander}"] = damage
        if p.library is not None:
            facts[f"{p.id} library"] = p.library
        facts[f"{p.id} is"] = _standing(p.result)
    return facts


class WholeStateTimeline(Timeline):
    """The reference: the timeline that snapshots and compares the whole state each step."""

    def __init__(self, game: Game, write: Any) -> None:
        super().__init__(game, write)
        self._whole = True
        self._before = whole_snapshot(game)
        self._changed = self._changes

    def _changes(self) -> list[tuple[str, Any, Any]]:
        after = whole_snapshot(self.game)
        before, self._before = self._before, after
        return [(k, before.get(k), v) for k, v in after.items() if before.get(k) != v]


def both_timelines(source: Any) -> tuple[list[str], list[str]]:
    """The lines of the timeline and of the reference, for one record."""
    printed: list[list[str]] = []
    for kind in (Timeline, WholeStateTimeline):
        lines: list[str] = []
        game, steps = record.start(source, keep_history=False)
        timeline = kind(game, lines.append)
        timeline.header()
        for step in steps:
            timeline(step)
        timeline.footer()
        printed.append(lines)
    return printed[0], printed[1]


@SETTINGS
@given(st.data())
def test_the_timeline_prints_what_comparing_whole_states_prints(data: st.DataObject):
    played = play(data.draw, data.draw(headers()), length=20)
    ours, reference = both_timelines(played.document)
    assert ours == reference


@SETTINGS
@given(st.data())
def test_810_9a_the_timeline_of_shared_totals_is_what_comparing_whole_states_prints(
    data: st.DataObject,
):
    played = play(data.draw, data.draw(headers(["two-headed-giant"])), 16, life_action)
    ours, reference = both_timelines(played.stream)
    assert ours == reference


def test_a_player_named_team_and_a_team_share_a_line_as_before():
    """A player named ``team`` writes lines a team may write too (``team damage from x life``):
    such a game is compared whole, as it always was."""
    head = {
        "record": 1,
        "variant": "team-vs-team",
        "format": "commander",
        "options": {"starting_life": 20},
        "players": [
            {"id": "team", "team": "damage from", "commanders": ["x life"]},
            {"id": "bo", "team": "south", "commanders": ["bo-c"]},
        ],
    }
    actions = [
        {"do": "damage", "source": "bo-c", "to": "team", "amount": 3, "combat": True},
        {"do": "add_counters", "player": "team", "kind": "energy", "amount": 2},
        {"do": "restart"},
        {"do": "gain_life", "player": "team", "amount": 1},
    ]
    ours, reference = both_timelines({**head, "actions": actions})
    assert ours == reference
    assert "      team energy: 2" in ours


@pytest.mark.rule("727.1")
def test_727_1_after_a_restart_the_timeline_shows_every_total_that_changed():
    head = {"record": 1, "players": [{"id": "ana"}, {"id": "bo"}]}
    actions = [
        {"do": "damage", "source": "x", "to": "bo", "amount": 5},
        {"do": "add_counters", "player": "ana", "kind": "energy", "amount": 1},
        {"do": "restart"},
    ]
    lines = [json.dumps(head)] + [json.dumps(a) for a in actions]
    ours, reference = both_timelines([line + "\n" for line in lines])
    assert ours == reference
    assert "      bo life: 15 -> 20" in ours


def test_a_stream_replayed_by_steps_names_a_malformed_line_by_its_position():
    lines = ['{"record": 1, "players": [{"id": "ana"}, {"id": "bo"}]}\n']
    lines += ['{"do": "gain_life", "player": "ana", "amount": 1}\n'] * 3
    lines += ['{"do": "gain_life", "player": "cy", "amount": 1}\n']
    game, steps = record.start(lines)
    with pytest.raises(MalformedError) as raised:
        list(steps)
    assert str(raised.value) == "action 3, member 'player': unknown player 'cy'"
    assert escaped(str(raised.value)) == str(raised.value)
    assert game.life_of("ana") == 23


def test_steps_report_the_notes_of_each_action():
    lines = ['{"record": 1, "players": [{"id": "ana"}, {"id": "bo"}]}\n']
    lines += ['{"do": "damage", "source": "x", "to": "bo", "amount": 0}\n'] * 2
    _, steps = record.start(lines)
    played: list[Step] = list(steps)
    assert [[n.rule for n in s.notes] for s in played] == [["120.8"], ["120.8"]]

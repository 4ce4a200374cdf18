"""The table model: its state is always the engine replaying its log, whatever the order of
actions, refusals, undos and games; a failed write changes nothing."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lifeledger_table.decide import engine, loading
from lifeledger_table.decide.changes import apply_changes, changes
from lifeledger_table.decide.errors import TableError
from lifeledger_table.decide.setup import build_setup
from lifeledger_table.decide.table import Table
from lifeledger_table.store.records import Checkpoint, Event, TableRow
from lifeledger_table.store.sqlite import SQLiteStore

PLAYERS = ["ana", "bo", "cy"]
counter = itertools.count()


def new_table(store: SQLiteStore, form: dict[str, Any]) -> Table:
    n = next(counter)
    store.create_table(TableRow(f"t{n}", f"w{n}", f"C{n}", build_setup(form), 0.0))
    return Table(store, f"t{n}")


actions = st.one_of(
    st.builds(
        lambda p, n: {"do": "lose_life", "player": p, "amount": n},
        st.sampled_from(PLAYERS),
        st.integers(0, 12),
    ),
    st.builds(
        lambda p, n: {"do": "gain_life", "player": p, "amount": n},
        st.sampled_from(PLAYERS),
        st.integers(0, 5),
    ),
    st.builds(
        lambda p, n: {"do": "pay_life", "player": p, "amount": n},
        st.sampled_from(PLAYERS),
        st.integers(0, 30),
    ),
    st.builds(
        lambda p, n: {"do": "add_counters", "player": p, "kind": "poison", "amount": n},
        st.sampled_from(PLAYERS),
        st.integers(0, 6),
    ),
    st.builds(lambda p: {"do": "concede", "player": p}, st.sampled_from(PLAYERS)),
    st.builds(
        lambda p: {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": p},
        st.sampled_from(PLAYERS),
    ),
    st.just({"do": "end", "id": "angel"}),
)
steps = st.lists(
    st.one_of(
        actions.map(lambda a: ("action", a)),
        st.just(("undo", None)),
        st.just(("next_game", None)),
    ),
    max_size=25,
)


@pytest.mark.parametrize("checkpoint", [Table.CHECKPOINT, 2, 3])
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_the_live_table_is_always_its_log_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, checkpoint: int, steps: list[Any]
) -> None:
    """Every change, undo (from the nearest checkpoint: issue 7, an undo at 50,000 events
    replayed the whole game and stalled every table) and next game leaves the table as its
    log replayed from the start; a table loaded from its checkpoints (issue 9) is the same
    table as one loaded by replaying its whole log; and each change's delta, applied to the
    state before it, is the state after it."""
    monkeypatch.setattr(Table, "CHECKPOINT", checkpoint)
    store = SQLiteStore(str(tmp_path / f"m{next(counter)}.db"))
    table = new_table(
        store, {"players": [{"name": n} for n in ("Ana", "Bo", "Cy")], "best_of": None}
    )
    for i, (kind, action) in enumerate(steps):
        before = (table.last_seq, table.state)
        body: dict[str, Any] = {"action": action} if kind == "action" else {}
        if kind == "undo":  # issue 7 item 2: an undo names the action it takes back
            body = {"target": table.last.seq if table.last else 1}
        try:
            entry, _ = table.submit(kind, body, f"id{i}", "ana")
        except TableError:
            assert (table.last_seq, table.state) == before
        else:
            assert entry is not None
            assert apply_changes(before[1], entry.changes) == table.state
        fresh = Table(store, table.id)
        with monkeypatch.context() as m:
            m.setattr(loading, "resume", lambda table: False)
            replayed = Table(store, table.id)
        for other in (fresh, replayed):
            assert other.broken is None
            assert other.state == table.state
            assert other.view == table.view == table.latest
            assert list(other.recent) == list(table.recent)
            assert (other.count, other.last, other.base_count) == (
                table.count,
                table.last,
                table.base_count,
            )
            assert other.tail == table.tail
            assert engine.state_of(other.base) == engine.state_of(table.base)
        actions = table.record(table.number)["actions"]
        assert len(actions) == table.count
        assert engine.state_of(engine.replay(table.header, actions)) == table.state
    store.close()


class FailingStore(SQLiteStore):
    """A store whose writes fail (a full disk, say)."""

    fail = False

    def append(self, events: Sequence[Event], checkpoints: Sequence[Checkpoint] = ()) -> set[str]:
        if self.fail:
            raise OSError("disk full")
        return super().append(events, checkpoints)


def test_a_failed_write_changes_nothing(tmp_path: Path) -> None:
    store = FailingStore(str(tmp_path / "f.db"))
    table = new_table(store, {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    table.submit("action", {"action": {"do": "lose_life", "player": "bo", "amount": 3}}, "a", "ana")
    before = table.state
    store.fail = True
    with pytest.raises(OSError):
        table.submit(
            "action", {"action": {"do": "lose_life", "player": "bo", "amount": 3}}, "b", None
        )
    assert table.state == before
    assert engine.state_of(table.game) == before
    store.fail = False
    table.submit("action", {"action": {"do": "lose_life", "player": "bo", "amount": 1}}, "b", None)
    assert next(p["life"] for p in table.state["players"] if p["id"] == "bo") == 16


def test_a_retry_of_a_refused_request_gets_the_same_answer(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "r.db"))
    table = new_table(store, {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    pay = {"action": {"do": "pay_life", "player": "ana", "amount": 25}}
    with pytest.raises(TableError) as first:
        table.submit("action", pay, "p", "ana")
    table.submit(
        "action", {"action": {"do": "gain_life", "player": "ana", "amount": 10}}, "g", "ana"
    )
    with pytest.raises(TableError) as again:
        table.submit("action", pay, "p", "ana")
    assert again.value is first.value and first.value.rule == "119.4"


def test_changes_report_a_shared_total_once_for_the_team() -> None:
    before = {
        "game": 1,
        "over": False,
        "players": [
            {"id": "a", "team": "n", "life": 30, "poison": 0, "counters": {}, "status": "playing"},
            {"id": "b", "team": "n", "life": 30, "poison": 0, "counters": {}, "status": "playing"},
        ],
        "teams": [{"id": "n", "players": ["a", "b"], "life": 30, "poison": 0}],
    }
    after = {
        **before,
        "players": [
            {**before["players"][0], "life": 26, "counters": {"energy": 2}},
            {**before["players"][1], "life": 26, "status": "lost", "reason": "x", "rule": "1"},
        ],
        "teams": [{"id": "n", "players": ["a", "b"], "life": 26, "poison": 0}],
    }
    assert changes(before, after) == [
        {"team": "n", "what": "life", "from": 30, "to": 26},
        {"player": "a", "what": "counters", "key": "energy", "from": 0, "to": 2},
        {
            "player": "b",
            "what": "status",
            "from": "playing",
            "to": "lost",
            "reason": "x",
            "rule": "1",
        },
    ]


def test_a_refused_action_leaves_the_next_checks_notes_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by ``make fuzz``: Cy under Platinum Angel has 10 poison counters (104.3: the
    check notes that he can't lose, 704.5c). Ana's payment of 21 life with 20 is refused
    (119.4) and the table keeps no trace of it; the engine used to forget, in rolling it back,
    whom its next state-based check had to look at, and so checked everyone at the next
    action and noted Cy again: the live table's entry had a note the table loaded from its
    log (checkpoint at 2) had not."""
    steps = [
        ("action", {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "cy"}),
        ("action", {"do": "add_counters", "player": "cy", "kind": "poison", "amount": 4}),
        ("action", {"do": "add_counters", "player": "cy", "kind": "poison", "amount": 6}),
        ("action", {"do": "pay_life", "player": "ana", "amount": 21}),
        ("action", {"do": "lose_life", "player": "ana", "amount": 0}),
    ]
    live = test_the_live_table_is_always_its_log_replayed.hypothesis.inner_test  # type: ignore[attr-defined]
    live(tmp_path, monkeypatch, 2, steps)

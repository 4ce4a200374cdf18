"""The contract every table store keeps. A store's test module subclasses :class:`StoreContract`
and provides ``make_store`` (a fresh, empty store) and ``reopen`` (the same data, reconnected)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lifeledger_table.store.records import Checkpoint, DuplicateError, Event, Store, TableRow


def event(table: str, seq: int, client_id: str, kind: str = "action", **body: Any) -> Event:
    return Event(table, seq, kind, body, client_id, "ana" if seq % 2 else None, 1000.0 + seq)


def row(n: int) -> TableRow:
    return TableRow(
        id=f"table-{n}",
        watch=f"watch-{n}",
        code=f"CODE{n:04d}",
        setup={"header": {"record": 1, "players": [{"id": "ana"}, {"id": "bo"}]}, "n": n},
        created=1000.0 + n,
    )


class StoreContract:
    """The behaviour the app relies on, whatever the store."""

    def make_store(self) -> Store:
        raise NotImplementedError

    def reopen(self, store: Store) -> Store:
        raise NotImplementedError

    @pytest.fixture
    def store(self) -> Iterator[Store]:
        store = self.make_store()
        yield store
        store.close()

    def test_a_table_is_found_by_id_watch_and_code(self, store: Store) -> None:
        store.create_table(row(1))
        assert store.table("table-1") == row(1)
        assert store.table_by_watch("watch-1") == row(1)
        assert store.table_by_code("CODE0001") == row(1)
        assert store.table("nope") is None
        assert store.table_by_watch("nope") is None
        assert store.table_by_code("nope") is None

    def test_ids_watch_ids_and_codes_are_unique(self, store: Store) -> None:
        store.create_table(row(1))
        for clash in (
            row(1),
            TableRow("other", "watch-1", "OTHER", {}, 0.0),
            TableRow("other", "other", "CODE0001", {}, 0.0),
        ):
            with pytest.raises(DuplicateError):
                store.create_table(clash)
        assert store.table_ids() == ["table-1"]

    def test_events_are_kept_in_order(self, store: Store) -> None:
        store.create_table(row(1))
        store.create_table(row(2))
        a = event("table-1", 1, "c1", action={"do": "x"})
        b = event("table-2", 1, "c1", action={"do": "y"})
        c = event("table-1", 2, "c2", kind="undo")
        store.append([a, b])
        store.append([c])
        assert store.events("table-1") == [a, c]
        assert store.events("table-2") == [b]
        assert store.events("table-1", after=1) == [c]
        assert store.events("table-3") == []

    def test_a_tables_events_in_a_batch_are_written_whole_or_not_at_all(self, store: Store) -> None:
        """issue 10: a batch holds several tables' events; a table that already has one of
        its events' seq or client id (another server wrote first) gets none of them, and the
        other tables' are written."""
        store.create_table(row(1))
        store.create_table(row(2))
        assert store.append([event("table-1", 1, "c1")]) == set()
        assert store.append([event("table-1", 2, "c2"), event("table-1", 1, "c3")]) == {"table-1"}
        refused = store.append(
            [event("table-1", 2, "c2"), event("table-1", 3, "c1"), event("table-2", 1, "c1")]
        )
        assert refused == {"table-1"}
        assert [e.seq for e in store.events("table-1")] == [1]
        assert [e.seq for e in store.events("table-2")] == [1]

    def test_a_client_id_is_used_once_per_table(self, store: Store) -> None:
        store.create_table(row(1))
        store.create_table(row(2))
        first = event("table-1", 1, "same")
        store.append([first, event("table-2", 1, "same")])
        assert store.append([event("table-1", 2, "same")]) == {"table-1"}
        assert store.event_by_client_id("table-1", "same") == first
        assert store.event_by_client_id("table-1", "other") is None
        assert len(store.events("table-1")) == 1

    def test_the_newest_client_ids_are_read_in_order(self, store: Store) -> None:
        """issue 21 item 4: a table loaded from the store knows its newest client ids."""
        store.create_table(row(1))
        store.create_table(row(2))
        store.append([event("table-1", n, f"c{n}") for n in range(1, 6)])
        store.append([event("table-2", 1, "other")])
        assert store.client_ids("table-1", 3) == [(3, "c3"), (4, "c4"), (5, "c5")]
        assert store.client_ids("table-1", 10) == [(n, f"c{n}") for n in range(1, 6)]
        assert store.client_ids("table-3", 10) == []

    def test_seats_are_given_and_taken_over(self, store: Store) -> None:
        store.create_table(row(1))
        assert store.set_seat("table-1", "ana", "h1")
        assert store.set_seat("table-1", "ana", "h2", "h1")
        assert store.set_seat("table-1", "bo", "h3")
        assert store.seats("table-1") == {"ana": "h2", "bo": "h3"}
        assert store.seats("table-2") == {}

    def test_a_seat_is_given_only_by_whoever_knows_who_holds_it(self, store: Store) -> None:
        """issue 10: two servers granting one seat at once: only the first grant is written,
        the second (which saw the seat free, or held by a token since replaced) is told."""
        store.create_table(row(1))
        assert store.set_seat("table-1", "ana", "h1")
        assert not store.set_seat("table-1", "ana", "h2")  # it thought the seat free
        assert store.set_seat("table-1", "ana", "h3", "h1")
        assert not store.set_seat("table-1", "ana", "h4", "h1")  # h1 no longer holds it
        assert store.seats("table-1") == {"ana": "h3"}

    def test_everything_written_is_there_after_reopening(self, store: Store) -> None:
        store.create_table(row(1))
        store.set_seat("table-1", "ana", "h1")
        big = event("table-1", 1, "c", action={"amount": 10**30, "name": "Ana \u00e9 <b>"})
        store.append([big])
        again = self.reopen(store)
        try:
            assert again.table("table-1") == row(1)
            assert again.seats("table-1") == {"ana": "h1"}
            assert again.events("table-1") == [big]
        finally:
            again.close()

    # -- issue 9: what a table derived is kept beside its log --------------------------------

    def test_an_event_keeps_its_game_position_and_entry(self, store: Store) -> None:
        store.create_table(row(1))
        first = Event("table-1", 1, "action", {"a": 1}, "c1", None, 1.0, 1, 0, '{"seq": 1}')
        store.append([first, event("table-1", 2, "c2")])
        assert store.event("table-1", 1) == first
        assert store.event("table-1", 3) is None
        assert store.last_event("table-1") == event("table-1", 2, "c2")
        assert store.last_event("table-2") is None
        assert store.entries("table-1", 3, 10) == [(1, '{"seq": 1}'), (2, None)]

    def test_the_actions_in_effect_are_the_newest_at_each_position(self, store: Store) -> None:
        """An undo takes back the last action in effect, so the next action takes its
        position: at each position, the newest action is the one in effect."""
        store.create_table(row(1))

        def at(seq: int, kind: str, game: int, position: int) -> Event:
            return Event("table-1", seq, kind, {}, f"c{seq}", None, 0.0, game, position, "{}")

        log = [
            at(1, "action", 1, 0),
            at(2, "action", 1, 1),
            at(3, "undo", 1, 1),
            at(4, "action", 1, 1),
            at(5, "action", 1, 2),
            at(6, "next_game", 2, 0),
            at(7, "action", 2, 0),
        ]
        store.append(log)
        assert [e.seq for e in store.effective("table-1", 1, 0, 3)] == [1, 4, 5]
        assert [e.seq for e in store.effective("table-1", 1, 1, 2)] == [4]
        assert [e.seq for e in store.effective("table-1", 2, 0, 1)] == [7]
        assert [e.seq for e in store.game_events("table-1", 2)] == [6, 7]
        assert store.entries("table-1", 6, 2) == [(4, "{}"), (5, "{}")]

    def test_a_checkpoint_is_written_with_its_event_and_replaced_later(self, store: Store) -> None:
        store.create_table(row(1))
        one = Checkpoint("table-1", 1, 100, 1, b"first")
        store.append([event("table-1", 1, "c1")], [one])
        assert store.checkpoint("table-1", 1, 100) == one
        assert store.checkpoint("table-1", 1, 200) is None
        two = Checkpoint("table-1", 1, 100, 2, b"second")
        # All or nothing: with its event refused, the checkpoint is not kept.
        assert store.append([event("table-1", 1, "c9")], [two]) == {"table-1"}
        assert store.checkpoint("table-1", 1, 100) == one
        store.append([event("table-1", 2, "c2")], [two])
        assert store.checkpoint("table-1", 1, 100) == two

    def test_what_a_table_derives_from_an_old_log_is_kept(self, store: Store) -> None:
        store.create_table(row(1))
        store.append([event("table-1", 1, "c1")])
        derived = Event("table-1", 1, "action", {}, "c1", "ana", 1001.0, 1, 0, '{"seq": 1}')
        made = Checkpoint("table-1", 1, 1, 1, b"data")
        store.derive([derived], [made])
        again = store.event("table-1", 1)
        assert again is not None and (again.game, again.position, again.entry) == (
            1,
            0,
            '{"seq": 1}',
        )
        assert store.checkpoint("table-1", 1, 1) == made

    def test_a_tables_tools_are_kept_version_after_version(self, store: Store) -> None:
        """The table's tools (dice results, clocks, the round timer): one row a table, written
        only over the version before it, so that of two servers changing them at once one
        wins and the other decides again; kept across a reconnect."""
        store.create_table(row(1))
        store.create_table(row(2))
        assert store.tools("table-1") is None
        assert not store.put_tools("table-1", 2, '{"a": 2}')  # no version 1 yet
        assert store.put_tools("table-1", 1, '{"a": 1}')
        assert not store.put_tools("table-1", 1, '{"other": 1}')  # another server was first
        assert store.tools("table-1") == (1, '{"a": 1}')
        assert store.put_tools("table-1", 2, '{"a": 2}')
        assert not store.put_tools("table-1", 2, '{"other": 2}')
        assert not store.put_tools("table-1", 4, '{"a": 4}')
        assert store.tools("table-1") == (2, '{"a": 2}')
        assert store.tools("table-2") is None
        again = self.reopen(store)
        try:
            assert again.tools("table-1") == (2, '{"a": 2}')
        finally:
            again.close()

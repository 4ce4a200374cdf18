"""The contract every table store keeps. A store's test module subclasses :class:`StoreContract`
and provides ``make_store`` (a fresh, empty store) and ``reopen`` (the same data, reconnected)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from lifeledger_table.store import DuplicateError, Event, Store, TableRow


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

    def test_a_batch_is_written_whole_or_not_at_all(self, store: Store) -> None:
        store.create_table(row(1))
        store.append([event("table-1", 1, "c1")])
        with pytest.raises(DuplicateError):
            store.append([event("table-1", 2, "c2"), event("table-1", 1, "c3")])
        with pytest.raises(DuplicateError):
            store.append([event("table-1", 2, "c2"), event("table-1", 3, "c1")])
        assert [e.seq for e in store.events("table-1")] == [1]

    def test_a_client_id_is_used_once_per_table(self, store: Store) -> None:
        store.create_table(row(1))
        store.create_table(row(2))
        first = event("table-1", 1, "same")
        store.append([first, event("table-2", 1, "same")])
        with pytest.raises(DuplicateError):
            store.append([event("table-1", 2, "same")])
        assert store.event_by_client_id("table-1", "same") == first
        assert store.event_by_client_id("table-1", "other") is None
        assert len(store.events("table-1")) == 1

    def test_seats_are_given_and_taken_over(self, store: Store) -> None:
        store.create_table(row(1))
        store.set_seat("table-1", "ana", "h1")
        store.set_seat("table-1", "ana", "h2")
        store.set_seat("table-1", "bo", "h3")
        assert store.seats("table-1") == {"ana": "h2", "bo": "h3"}
        assert store.seats("table-2") == {}

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

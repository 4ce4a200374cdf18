"""The SQLite store keeps the store contract."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_contract import StoreContract

from lifeledger_table.store import SQLiteStore, Store, hash_token


class TestSQLiteStore(StoreContract):
    @pytest.fixture(autouse=True)
    def _path(self, tmp_path: Path) -> None:
        self.path = str(tmp_path / "store.db")

    def make_store(self) -> Store:
        return SQLiteStore(self.path)

    def reopen(self, store: Store) -> Store:
        return SQLiteStore(self.path)


def test_the_database_is_in_wal_mode(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "wal.db"))
    mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    store.close()
    assert mode == "wal"


def test_tokens_are_stored_as_digests() -> None:
    assert hash_token("secret") != "secret" and len(hash_token("secret")) == 64

"""Storage faults (issue 7 item 14): a store that can't be opened, read or written stops the
server at start with a one-line message; a damaged table is named and the others are served
(the tampered-event case is in test_table_undo.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from table_helpers import TWO, open_table, phone, seat

from lifeledger_table.decide.setup import build_setup
from lifeledger_table.store.records import Event, StoreError, TableRow
from lifeledger_table.store.sqlite import SQLiteStore


def filled(path: Path, events: int = 400) -> None:
    """A store with a table and a long log (many pages), checkpointed into the file."""
    store = SQLiteStore(str(path))
    store.create_table(TableRow("t", "w", "C", build_setup(TWO), 0.0))
    action = {"action": {"do": "gain_life", "player": "bo", "amount": 1, "note": "x" * 200}}
    store.append([Event("t", n, "action", action, f"c{n}", "ana", 0.0) for n in range(1, events)])
    store.close()


@pytest.fixture
def read_only() -> Iterator[list[Path]]:
    """Makes paths read-only (``chattr +i`` when running as root, whom modes don't stop)."""
    done: list[Path] = []

    def undo() -> None:
        for path in done:
            if os.geteuid() == 0:
                subprocess.run(["chattr", "-i", str(path)], check=False)
            else:
                path.chmod(0o755 if path.is_dir() else 0o644)

    yield done
    undo()


def make_read_only(path: Path, done: list[Path]) -> None:
    if os.geteuid() == 0:
        result = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        if result.returncode != 0:
            pytest.skip("running as root without chattr: can't make a path read-only")
    else:
        path.chmod(0o555 if path.is_dir() else 0o444)
    done.append(path)


def opening_fails(path: Path) -> str:
    with pytest.raises(StoreError) as failed:
        SQLiteStore(str(path))
    message = str(failed.value)
    assert "\n" not in message and str(path) in message
    return message


def test_a_non_database_file_is_refused_at_start(tmp_path: Path) -> None:
    """issue 7 item 14: a file that is not a database."""
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 200)
    assert "not a database" in opening_fails(path)


def test_a_truncated_database_is_refused_at_start(tmp_path: Path) -> None:
    """issue 7 item 14: a database cut short (a copy that stopped half-way)."""
    path = tmp_path / "cut.db"
    filled(path)
    size = path.stat().st_size
    assert size > 40_000
    with path.open("r+b") as f:
        f.truncate(size // 2)
    opening_fails(path)


def test_another_programs_database_is_refused_at_start(tmp_path: Path) -> None:
    """issue 7 item 14: a SQLite file whose tables are not the table store's."""
    import sqlite3

    path = tmp_path / "other.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE events (id INTEGER, what TEXT)")
    con.commit()
    con.close()
    assert "not a lifeledger table store" in opening_fails(path)


def test_a_read_only_database_is_refused_at_start(tmp_path: Path, read_only: list[Path]) -> None:
    """issue 7 item 14: a database that can be read but not written (it started, then failed
    every write)."""
    path = tmp_path / "ro.db"
    filled(path, 10)
    make_read_only(path, read_only)
    assert "readonly" in opening_fails(path).replace("read-only", "readonly")


def test_a_read_only_directory_is_refused_at_start(tmp_path: Path, read_only: list[Path]) -> None:
    """issue 7 item 14: a new database in a directory that can't be written."""
    folder = tmp_path / "locked"
    folder.mkdir()
    make_read_only(folder, read_only)
    opening_fails(folder / "tables.db")


def test_serve_says_why_in_one_line_and_exits(tmp_path: Path) -> None:
    """issue 7 item 14: ``lifeledger serve`` on a bad store exits at once with one line."""
    path = tmp_path / "notes.db"
    path.write_bytes(b"not a database\n" * 500)
    result = subprocess.run(
        [sys.executable, "-m", "lifeledger_table", "--port", "0", "--db", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and "not a database" in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.asyncio
async def test_a_store_deleted_while_the_server_runs_takes_no_more_writes(
    client: TestClient[Any, Any], db: str
) -> None:
    """issue 7 item 14 (found by an audit): the database deleted while the server runs went
    unnoticed: changes were acknowledged into the unlinked file and lost at the next start.
    Now every write is refused, saying why, and nothing is acknowledged."""
    table = await open_table(client)
    ana = await phone(client, table["id"], await seat(client, table["id"], "ana"))
    assert (await ana.act({"do": "lose_life", "player": "bo", "amount": 1}))["type"] == "ack"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    answer = await ana.act({"do": "lose_life", "player": "bo", "amount": 1})
    assert answer.get("error") == "storage"
    res = await client.post("/api/tables", json=TWO)
    assert res.status == 503

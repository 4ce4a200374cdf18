"""issue 21 item 7: a checkpoint is read only if the build that reads it wrote it (its tag, the
digest of the code's source files, is checked before anything else), and reading one never
runs code: whoever can write to the database can't make a server run anything. A checkpoint
that fails its check is ignored and the log replayed."""

from __future__ import annotations

import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_table_memory import new_table, play

from lifeledger_table.decide import engine
from lifeledger_table.decide.table import Table
from lifeledger_table.store.sqlite import SQLiteStore


class Mkdir:
    """What an attacker stores: a pickle that, when loaded, makes a directory (as well as
    anything else it could call)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return os.mkdir, (str(self.path),)


def test_a_checkpoint_written_to_run_code_never_runs_it(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 150)
    head = engine.CHECKPOINT_FORMAT.encode() + b"\n"
    marker = tmp_path / "ran"
    for forged in (
        pickle.dumps((engine.CHECKPOINT_FORMAT, Mkdir(marker), [])),  # the tag inside
        head + pickle.dumps(Mkdir(marker)),  # the tag in front, as this build writes it
        head + pickle.dumps((engine.CHECKPOINT_FORMAT, Mkdir(marker), [])),
    ):
        store._db.execute("UPDATE checkpoints SET data = ?", (forged,))
        with pytest.raises(ValueError):
            engine.load_checkpoint(forged)
        loaded = Table(store, "t")  # the checkpoint is ignored: the log is replayed
        assert not marker.exists()
        assert loaded.broken is None and loaded.state == table.state
    found = store.checkpoint("t", 1, 100)  # written again by the replay
    assert found is not None
    assert engine.state_of(engine.load_checkpoint(found.data)[0]) == table.state


def test_a_checkpoint_names_only_the_engines_classes(tmp_path: Path) -> None:
    """The engine's own classes are all a checkpoint may name: anything else (a function, a
    class of another module, a name reached through another) is refused before it is made."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 100)
    good = store.checkpoint("t", 1, 100)
    assert good is not None
    game, outcomes = engine.load_checkpoint(good.data)
    assert engine.state_of(game) == table.state and outcomes == []
    head = engine.CHECKPOINT_FORMAT.encode() + b"\n"
    assert good.data.startswith(head)
    for value in (print, Path, pickle.Pickler, engine.Game.__init__):
        with pytest.raises(ValueError):
            engine.load_checkpoint(head + pickle.dumps((value, [])))


def test_a_checkpoint_is_tagged_by_the_build_that_wrote_it(tmp_path: Path) -> None:
    """The tag is a digest of the code's source files (the engine's and the table app's), not
    the version number: a change of any source file is another build."""
    assert engine.__file__ is not None
    sources = [Path(engine.__file__).parent, Path(engine.lifeledger.__file__).parent]
    assert engine.build_of(sources) == engine.BUILD
    assert engine.BUILD in engine.CHECKPOINT_FORMAT
    copy = [tmp_path / source.name for source in sources]
    for source, target in zip(sources, copy, strict=True):
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    assert engine.build_of(copy) == engine.BUILD
    with (copy[1] / "game.py").open("a") as f:
        f.write("\n# one more line\n")
    assert engine.build_of(copy) != engine.BUILD
    data = engine.dump_checkpoint(
        engine.new_game({"record": 2, "players": [{"id": "ana"}, {"id": "bo"}]}), []
    )
    assert data.startswith(engine.CHECKPOINT_FORMAT.encode())
    other = data.replace(engine.BUILD.encode(), b"0" * len(engine.BUILD), 1)
    with pytest.raises(ValueError, match="another build"):
        engine.load_checkpoint(other)


def test_an_undo_past_a_checkpoint_that_fails_its_check_replays_the_game(tmp_path: Path) -> None:
    """An undo back past a checkpoint reads the one before it from the store: if that one is
    of another build (or forged), the game's actions in effect are replayed instead."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 200)
    store._db.execute("UPDATE checkpoints SET data = ? WHERE count = 100", (b"forged",))
    again = new_table(SQLiteStore(str(tmp_path / "u.db")), "t")
    play(again, 199)
    decision = table.settle(lambda: table.decide("undo", {"target": 200}, "u1", None))
    assert not isinstance(decision, int)
    assert table.state == again.state and table.undo_target() == 199

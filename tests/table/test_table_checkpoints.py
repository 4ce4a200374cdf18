"""issue 21 item 7, issue 26 item 6: a checkpoint is data (JSON of the engine's state,
``lifeledger.snapshot``, under the build that wrote it), read only if that build wrote it
(its tag, the digest of the code's source files, is checked before anything else), and
reading one builds nothing it names: whoever can write to the database can't make a server
run anything or build any object. A checkpoint that fails its check is ignored and the log
replayed. The table app uses no pickle at all."""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_table_memory import new_table, play

import lifeledger_table
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


def test_a_checkpoint_is_json_data_of_this_build(tmp_path: Path) -> None:
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 100)
    good = store.checkpoint("t", 1, 100)
    assert good is not None
    body = json.loads(good.data)
    assert body["format"] == engine.CHECKPOINT_FORMAT and engine.BUILD in body["format"]
    assert body["game"]["snapshot"] == 1 and body["outcomes"] == []
    game, outcomes = engine.load_checkpoint(good.data)
    assert engine.state_of(game) == table.state and outcomes == []


def test_a_checkpoint_written_to_run_code_never_runs_it(tmp_path: Path) -> None:
    """A pickle (what an older build wrote, or an attacker) is no checkpoint: never loaded."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 150)
    good = store.checkpoint("t", 1, 100)
    assert good is not None
    head = good.data[: good.data.index(b'"game"')]  # this build's tag, as it writes it
    marker = tmp_path / "ran"
    for forged in (
        pickle.dumps((engine.CHECKPOINT_FORMAT, Mkdir(marker), [])),
        f"{engine.CHECKPOINT_FORMAT}\n".encode() + pickle.dumps(Mkdir(marker)),
        head + b'"game":' + pickle.dumps(Mkdir(marker)),
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


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b["game"].update(variant="os.system"),
        lambda b: b["game"]["players"][0].update(life={"py/object": "os.system"}),
        lambda b: b["game"].update(snapshot=99),
        lambda b: b["outcomes"].append({"__reduce__": ["os.system", ["true"]]}),
        lambda b: b.update(extra=1),
    ],
)
def test_a_checkpoint_of_another_shape_is_ignored_and_the_log_replayed(
    tmp_path: Path, change: Any
) -> None:
    """Data of an unknown shape (a name that is no variant, a member of the wrong type, an
    unknown snapshot version, a made-up outcome or member) is refused naming where, and the
    table is the same, from its log."""
    store = SQLiteStore(str(tmp_path / "t.db"))
    table = new_table(store)
    play(table, 120)
    good = store.checkpoint("t", 1, 100)
    assert good is not None
    body = json.loads(good.data)
    change(body)
    forged = json.dumps(body).encode()
    with pytest.raises(ValueError):
        engine.load_checkpoint(forged)
    store._db.execute("UPDATE checkpoints SET data = ?", (forged,))
    loaded = Table(store, "t")
    assert loaded.broken is None and loaded.state == table.state


def test_the_table_app_has_no_pickle() -> None:
    """No module of the table app imports pickle (nor marshal or shelve): no data it reads
    can be turned into objects but by its own code."""
    root = Path(lifeledger_table.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        for name in ("pickle", "marshal", "shelve"):
            assert f"import {name}" not in text, path
            assert f"from {name} " not in text, path


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
    assert data.startswith(b'{"format":' + json.dumps(engine.CHECKPOINT_FORMAT).encode())
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

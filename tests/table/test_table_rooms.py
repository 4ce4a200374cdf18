"""issue 29 item 2: the table's decisions are in rooms of their own (docs/design.md, "The
table's decisions"), and deciding a change does no I/O (issue 18 item 4): of the rooms, only
``loading`` reads or writes the store (loading a table, ``settle``, ``submit``), and ``views``
reads it for a game's record alone; every other room reads the log through what the table was
given (``reading``), and ``Table`` is a facade that hands each request to its room."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

from lifeledger_table.decide import table as facade
from lifeledger_table.decide.state import TableState
from lifeledger_table.decide.table import Table

DECIDE = Path(facade.__file__).parent
ROOMS = [
    "state",
    "entries",
    "reading",
    "undoing",
    "setting",
    "views",
    "deciding",
    "loading",
    "undoing_under",
]


def _store_users(room: str) -> set[str]:
    """The functions (and methods) of a room that touch the table's store (``….store``)."""
    tree = ast.parse((DECIDE / f"{room}.py").read_text())
    users: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            touches = any(
                isinstance(inner, ast.Attribute) and inner.attr == "store"
                for inner in ast.walk(node)
            )
            if touches:
                users.add(node.name)
    return users


def test_only_loading_reads_the_store_and_views_for_a_record() -> None:
    found = {room: users for room in ROOMS if (users := _store_users(room))}
    assert set(found) <= {"loading", "views"}
    assert found.get("views", set()) <= {"record"}
    assert {"reload", "resume", "settle", "submit"} <= found["loading"]


def test_the_facade_hands_each_request_to_its_room() -> None:
    """Each of Table's own methods but the constructor and ``take_over`` (assignments) is
    one statement after its docstring: a delegation."""
    for name, member in vars(Table).items():
        function = member.fget if isinstance(member, property) else member
        if not inspect.isfunction(function) or name in ("__init__", "take_over"):
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
        definition = tree.body[0]
        assert isinstance(definition, ast.FunctionDef)
        statements = [
            s
            for s in definition.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        ]
        assert len(statements) == 1, name
    assert issubclass(Table, TableState)

"""The rules package imports the standard library alone, in every module (import-linter's
contracts in pyproject.toml hold the layers and the absence of cycles; this test holds what a
forbidden list can't: that no third-party package at all is imported)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import lifeledger

PACKAGE = Path(lifeledger.__file__).parent


def test_the_rules_package_imports_the_standard_library_alone() -> None:
    outside: list[str] = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition(".")[0]
                if top != "lifeledger" and top not in sys.stdlib_module_names:
                    outside.append(f"{path.name}: {name}")
    assert outside == []

"""The README's examples run as tests: its Python session and its command-line output."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def test_readme_python_examples_run() -> None:
    result = doctest.testfile(str(README), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_readme_command_line_output_is_real() -> None:
    blocks = re.findall(r"```console\n\$ (.+?)\n(.*?)```", README.read_text(), re.S)
    assert blocks
    for command, expected in blocks:
        program, *args = command.split()
        assert program == "lifeledger"
        done = subprocess.run(
            [sys.executable, "-m", "lifeledger", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout == expected


def test_engine_docstring_examples_run() -> None:
    import lifeledger.game
    import lifeledger.match

    for module in (lifeledger.game, lifeledger.match):
        result = doctest.testmod(module)
        assert result.attempted > 0
        assert result.failed == 0

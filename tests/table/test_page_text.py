"""The page's text, without a browser: names and action strings that need format characters
(issue 7 item 16), and the static JavaScript kept to syntax that Safari 14 parses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lifeledger_table.decide.errors import TableError
from lifeledger_table.decide.setup import build_setup, check_name
from lifeledger_table.decide.text import check_action_text

STATIC = Path(__file__).resolve().parents[2] / "src" / "lifeledger_table" / "static"


@pytest.mark.parametrize(
    "name",
    [
        "🧙\u200d♂️ Gandalf",  # a zero-width joiner in an emoji sequence
        "می\u200cخواهم",  # Persian: a zero-width non-joiner
        "❤\ufe0f Ana",  # a variation selector
        "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Sco",  # a flag's tags
    ],
)
def test_names_keep_the_format_characters_text_needs(name: str) -> None:
    """issue 7 item 16: names with a zero-width joiner or non-joiner were refused as control
    characters; they are text. The same holds for every string in an action."""
    assert check_name(name, "player's name") == name
    check_action_text({"do": "damage", "source": name}, "action")
    setup = build_setup({"players": [{"name": name}, {"name": "Bo"}]})
    assert setup["header"]["players"][0]["name"] == name


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Ana\u202egnp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("Ana\u2066Bo", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("Ana\u200fBo", "U+200F RIGHT-TO-LEFT MARK"),
        ("Ana\u0007", "U+0007"),
        ("Ana\nBo", "U+000A"),
    ],
)
def test_controls_that_can_forge_text_are_still_refused(text: str, code: str) -> None:
    """issue 7 item 16: bidi overrides, isolates, marks and control characters stay refused,
    and the message names the character, never the name in escapes (``\\u202e``)."""
    for check in (
        lambda: check_name(text, "player's name"),
        lambda: check_action_text({"do": "damage", "source": text}, "action"),
    ):
        with pytest.raises(TableError) as info:
            check()
        assert code in info.value.message
        assert "\\" not in info.value.message


def test_markup_is_quoted_as_typed() -> None:
    """issue 7 item 16: an error shows a name as typed, not as Python's repr."""
    with pytest.raises(TableError) as info:
        check_name("Bo's <b>", "player's name")
    assert "“Bo's <b>”" in info.value.message


# Syntax and built-ins newer than Safari 14 (which must parse the whole page, or nothing works).
NEWER_THAN_SAFARI_14 = {
    "regex lookbehind (Safari 16.4)": r"\(\?<[=!]",
    "logical assignment (Safari 14 has it, but not 13)": r"(\?\?|\|\||&&)=",
    "private class members (Safari 15)": r"(this|self)\.#|^\s*(static\s+)?#[A-Za-z_$]",
    "class static blocks (Safari 16.4)": r"\bstatic\s*\{",
    "top-level await (Safari 15)": r"^await\b",
    "Array.prototype.at (Safari 15.4)": r"\.at\(",
    "Object.hasOwn (Safari 15.4)": r"\bObject\.hasOwn\(",
    "structuredClone (Safari 15.4)": r"\bstructuredClone\(",
    "findLast (Safari 15.4)": r"\.findLast(Index)?\(",
    "regex flags d and v (Safari 15, 17)": r"/[gimsuy]*[dv][gimsuy]*\.(exec|test)\(",
    "import attributes (Safari 17.2)": r"\bwith\s*\{\s*type\s*:",
}


def _class_fields(text: str) -> list[str]:
    """Declarations of class fields (public static fields need Safari 14.1)."""
    found: list[str] = []
    for body in re.finditer(r"\bclass\s+\w+(?:\s+extends\s+[\w.]+)?\s*\{", text):
        depth, i = 1, body.end()
        line_start = True
        while depth and i < len(text):
            c = text[i]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == "\n":
                line_start = True
                i += 1
                continue
            if line_start and depth == 1:
                m = re.match(r"\s*(static\s+)?[A-Za-z_$#][\w$]*\s*(=[^=>]|;)", text[i:])
                if m:
                    found.append(text[i : i + m.end()].strip())
            line_start = False
            i += 1
    return found


@pytest.mark.parametrize("path", sorted(STATIC.glob("*.js")), ids=lambda p: p.name)
def test_the_static_javascript_parses_in_safari_14(path: Path) -> None:
    """issue 7 item 16: common.js used a regex lookbehind, a syntax error in Safari before 16.4,
    and the whole app failed to load there. No syntax or built-in newer than Safari 14."""
    text = path.read_text(encoding="utf-8")
    found = [
        f"{what}: line {text[: m.start()].count(chr(10)) + 1}"
        for what, pattern in NEWER_THAN_SAFARI_14.items()
        for m in re.finditer(pattern, text, re.MULTILINE)
    ]
    found += [f"class field: {field}" for field in _class_fields(text)]
    assert not found, found


def test_the_scan_finds_what_it_looks_for() -> None:
    """The scan itself: each pattern finds its syntax."""
    samples = {
        "regex lookbehind (Safari 16.4)": "s.replace(/(?<![a-z])x/g, y)",
        "logical assignment (Safari 14 has it, but not 13)": "a.b ??= 1;",
        "private class members (Safari 15)": "  #count = 0;",
        "class static blocks (Safari 16.4)": "class A { static { init(); } }",
        "top-level await (Safari 15)": "await main();",
        "Array.prototype.at (Safari 15.4)": "xs.at(-1)",
    }
    for what, sample in samples.items():
        assert re.search(NEWER_THAN_SAFARI_14[what], sample, re.MULTILINE), what
    assert _class_fields("class A {\n  count = 0;\n  f() { const x = 1; }\n}") == ["count ="]

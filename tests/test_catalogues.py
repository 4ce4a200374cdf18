"""The catalogues' check (tools/catalogues.py, run by make lint) fails on each way a complete
language can fall short of the code (issue 20): a message without a translation, a message the
code no longer uses, a placeholder that differs, a .mo not compiled from its .po, words that
are not a literal. And the project's own catalogues pass it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import catalogues

CODE = """
from lifeledger.sentences import Plural, Sentence
A = Sentence("{player} can't gain life", player="ana")
B = Plural("{n} poison counter", "{n} poison counters", "n", n=2)
"""


def domain(tmp_path: Path, code: str = CODE, js: str | None = None) -> catalogues.Domain:
    source = tmp_path / "words.py"
    source.write_text(code, encoding="utf-8")
    sources = [source]
    if js is not None:
        script = tmp_path / "page.js"
        script.write_text(js, encoding="utf-8")
        sources = [script]
    return catalogues.Domain("words", tmp_path / "locale", tuple(sources))


def translated(tmp_path: Path, words: catalogues.Domain) -> Path:
    """The domain's Italian catalogue, made and translated in full."""
    catalogues.update([words])
    po = catalogues.po_path(words, "it")
    text = po.read_text(encoding="utf-8")
    text = text.replace(
        'msgid "{player} can\'t gain life"\nmsgstr ""',
        'msgid "{player} can\'t gain life"\nmsgstr "{player} non può guadagnare punti vita"',
    )
    text = text.replace(
        'msgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""',
        'msgstr[0] "{n} segnalino veleno"\nmsgstr[1] "{n} di segnalini veleno"\n'
        'msgstr[2] "{n} segnalini veleno"',
    )
    po.write_text(text, encoding="utf-8")
    catalogues.update([words])
    return po


def test_a_complete_catalogue_passes(tmp_path: Path) -> None:
    words = domain(tmp_path)
    translated(tmp_path, words)
    assert catalogues.problems([words]) == []


def test_a_message_without_its_translation_fails(tmp_path: Path) -> None:
    words = domain(tmp_path)
    catalogues.update([words])
    found = catalogues.problems([words])
    assert any("can't gain life" in p and "no translation" in p for p in found), found


def test_a_message_the_code_no_longer_uses_fails(tmp_path: Path) -> None:
    words = domain(tmp_path)
    translated(tmp_path, words)
    (tmp_path / "words.py").write_text(CODE.replace("can't gain life", "can't lose life"))
    found = catalogues.problems([words])
    assert any("no longer used" in p for p in found), found
    assert any("lacks" in p and "can't lose life" in p for p in found), found


def test_a_placeholder_that_differs_fails(tmp_path: Path) -> None:
    words = domain(tmp_path)
    po = translated(tmp_path, words)
    po.write_text(po.read_text().replace("{player} non può", "{giocatore} non può"))
    catalogues.update([words])
    found = catalogues.problems([words])
    assert any("placeholders" in p for p in found), found


def test_a_mo_not_compiled_from_its_po_fails(tmp_path: Path) -> None:
    words = domain(tmp_path)
    po = translated(tmp_path, words)
    po.write_text(po.read_text().replace("non può guadagnare", "non guadagna"))
    found = catalogues.problems([words])
    assert any("not compiled" in p for p in found), found


@pytest.mark.parametrize(
    ("code", "js"),
    [
        ("from lifeledger.sentences import Sentence\nA = Sentence(WORDS)\n", None),
        ("", "const a = t(words, {});\n"),
    ],
)
def test_words_that_are_not_a_literal_fail(tmp_path: Path, code: str, js: str | None) -> None:
    words = domain(tmp_path, code, js)
    found = catalogues.problems([words])
    assert any("literal" in p for p in found), found


def test_the_pages_calls_are_found(tmp_path: Path) -> None:
    js = 'const a = t("Undo"); const b = tn("{n} card", "{n} cards", 2, {n: 2});\n'
    js += 'const c = tc("panel tag", "you");\n'
    found = catalogues.extract(domain(tmp_path, js=js))
    assert set(found) == {(None, "Undo"), (None, "{n} card"), ("panel tag", "you")}
    assert found[(None, "{n} card")].plural == "{n} cards"


def test_the_projects_catalogues_are_complete() -> None:
    assert catalogues.problems() == []

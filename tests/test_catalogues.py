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


# Issue 28 item 8: the glossary of official Italian terms (tools/glossary_it.json) holds every
# Italian message: its English's terms in their Italian, and no English word left.


def test_an_english_word_left_in_an_italian_message_is_found() -> None:
    words = catalogues.glossary()
    assert catalogues.english_left("la partita è in un loop", words) == ["loop"]
    # placeholders, quoted identifiers, paths, options and card names are not words
    text = "{player} paga «round» con \"up\", pip install 'lifeledger[table]', --time-limit"
    assert catalogues.english_left(text, words) == []
    cards = catalogues.card_names()
    assert catalogues.english_left("Sanguine Bond si innesca", words, cards) == []
    assert "Magic: The Gathering" in cards


def test_a_glossary_term_not_used_as_written_fails(tmp_path: Path) -> None:
    """CR 104.4a: a draw is *patta*; CR 702.164: toxic is *tossico* (the cards' printing)."""
    code = (
        "from lifeledger.sentences import Sentence\n"
        'A = Sentence("the game is a draw")\nB = Sentence("{what}, toxic {n}", what=1, n=2)\n'
    )
    words = domain(tmp_path, code)
    catalogues.update([words])
    po = catalogues.po_path(words, "it")
    text = po.read_text(encoding="utf-8")
    text = text.replace(
        'msgid "the game is a draw"\nmsgstr ""',
        'msgid "the game is a draw"\nmsgstr "la partita è un pareggio"',
    )
    text = text.replace(
        'msgid "{what}, toxic {n}"\nmsgstr ""',
        'msgid "{what}, toxic {n}"\nmsgstr "{what}, tossicità {n}"',
    )
    po.write_text(text, encoding="utf-8")
    catalogues.update([words])
    found = catalogues.problems([words])
    assert any("draw" in p and "patta" in p for p in found), found
    assert any("toxic" in p and "tossico" in p for p in found), found
    po.write_text(
        po.read_text(encoding="utf-8")
        .replace("è un pareggio", "è patta")
        .replace("tossicità", "tossico"),
        encoding="utf-8",
    )
    catalogues.update([words])
    assert catalogues.problems([words]) == []


def test_a_documented_exception_lets_a_term_be(tmp_path: Path) -> None:
    words = catalogues.glossary()
    loop = next(p for p, _ in words.terms if p.pattern == r"\bloops?\b")
    assert any(e[1] == loop.pattern for e in words.exceptions)


def test_every_glossary_term_compiles_and_names_its_source() -> None:
    import json

    data = json.loads(catalogues.GLOSSARY.read_text(encoding="utf-8"))
    for term in data["terms"]:
        assert term["it"] and term["source"], term
    assert {"pila", "monarca", "patta", "tossico"} <= {f for t in data["terms"] for f in t["it"]}

"""Issue 28 item 8: Italian as a judge writes it. An effect's kind is named in words, never by
the record's identifier (``cant_gain_life``); the JSON parser's English never stands in an
Italian sentence; a draw is *patta* (CR 104.4), toxic is *tossico* (CR 702.164), a step is a
*sottofase*, a loop a *ciclo* (CR 732)."""

from __future__ import annotations

import json

import pytest

from lifeledger import MalformedError
from lifeledger.actions import Damage, IntentionalDraw, StartEffect
from lifeledger.describing import effect_words
from lifeledger.effects import Kind, Reach
from lifeledger.language import language
from lifeledger.recordjson import parse_json
from lifeledger.sentences import english
from lifeledger.timeline import describe
from lifeledger_table.decide.jsontext import NotJson, strict_json
from lifeledger_table.web.languages import catalogue_body

ITALIAN = language("it")


@pytest.mark.rule("611.1")
@pytest.mark.parametrize("kind", list(Kind))
def test_611_1_every_effect_kind_is_named_in_words(kind: Kind) -> None:
    """A continuous effect (611) is described by what it does, in both languages; its
    identifier is the record's, never a reader's."""
    extra = {"factor": 2} if kind is Kind.GAIN_LIFE_TIMES else {}
    extra |= {"life_at_least": 50} if kind is Kind.WIN_AT_UPKEEP else {}
    said = describe(StartEffect("e1", kind, "ana", Reach.OPPONENTS, **extra))
    italian = ITALIAN.text(said)
    assert kind.value not in english(said)
    assert kind.value not in italian
    assert ITALIAN.text(effect_words(kind)) != english(effect_words(kind))


@pytest.mark.rule("119.7")
def test_119_7_cant_gain_life_in_italian() -> None:
    said = describe(StartEffect("e1", Kind.CANT_GAIN_LIFE, "ana", Reach.OPPONENTS))
    assert english(said) == "e1: can't gain life (opponents), controlled by ana"
    assert ITALIAN.text(said) == (
        "e1: impossibile guadagnare punti vita (avversari), controllato da ana"
    )


@pytest.mark.rule("702.164")
def test_702_164_toxic_is_tossico_as_the_cards_print_it() -> None:
    said = describe(Damage("bo", 2, combat=True, toxic=7))
    assert "tossico 7" in ITALIAN.text(said)


@pytest.mark.rule("104.4")
def test_104_4_a_draw_is_patta() -> None:
    assert ITALIAN.text(describe(IntentionalDraw())) == (
        "i giocatori concordano una patta intenzionale"
    )


@pytest.mark.parametrize(
    ("text", "italian"),
    [
        ('{"record": 2 "players": []}', "manca una virgola (,) (riga 1, colonna 14)"),
        ('{"record" 2}', "mancano i due punti (:) (riga 1, colonna 11)"),
        ('{"record": 2}\n{', "dopo il valore JSON c'è altro testo (riga 2, colonna 1)"),
        ('{"a": "b', "una stringa non è chiusa (riga 1, colonna 7)"),
        (b'{"a": "\xff"}', "il testo non è UTF-8"),
    ],
)
def test_the_json_parsers_error_is_said_in_italian(text: str | bytes, italian: str) -> None:
    """The record's parser names what is wrong and where, in the reader's language."""
    with pytest.raises(MalformedError) as caught:
        parse_json(text)
    said = ITALIAN.text(caught.value.message)
    assert said == f"non è JSON: {italian}"
    assert "Expecting" not in said and "delimiter" not in said


def test_the_tables_json_reader_says_why_in_any_language() -> None:
    """The table's reader: its English is the error's text, its words the page's catalogue
    writes in Italian (the server's domain holds them)."""
    messages = json.loads(catalogue_body("it"))["messages"]
    with pytest.raises(NotJson) as caught:
        strict_json('{"do": "win", "do": "lose"}')
    assert str(caught.value) == "the member 'do' appears twice in one object"
    assert messages[caught.value.words.template] == (
        "il membro {name} compare due volte nello stesso oggetto"
    )
    with pytest.raises(NotJson) as caught:
        strict_json('{"do" "win"}')
    assert ITALIAN.text(caught.value.words) == "mancano i due punti (:) (riga 1, colonna 7)"

"""Sentences people read keep their template and arguments (lifeledger.sentences), and are
written in each language from its catalogue (lifeledger.language)."""

from __future__ import annotations

import copy
import pickle

from lifeledger.language import LANGUAGES, language
from lifeledger.sentences import AND, Grouped, Id, Items, Plural, Sentence


def test_a_sentence_is_its_english_text() -> None:
    said = Sentence("{player} can't gain life: the gain of {n} does nothing", player=Id("ana"), n=3)
    assert said == "ana can't gain life: the gain of 3 does nothing"
    assert said.template == "{player} can't gain life: the gain of {n} does nothing"
    assert f"{said} (119.7)" == "ana can't gain life: the gain of 3 does nothing (119.7)"


def test_a_sentence_as_data_names_each_kind_of_argument() -> None:
    said = Sentence(
        "{players} can't pay {n} life with {what}",
        players=Items([Id("ana"), Id("bo")]),
        n=10**30,
        what=Sentence("a team total of {n} life", n=11),
    )
    assert (
        said
        == "ana and bo can't pay 1000000000000000000000000000000 life with a team total of 11 life"
    )
    assert said.to_json() == {
        "msg": "{players} can't pay {n} life with {what}",
        "args": {
            "players": {"list": [{"id": "ana"}, {"id": "bo"}], "sep": "and"},
            "n": {"n": str(10**30)},
            "what": {"msg": "a team total of {n} life", "args": {"n": {"n": "11"}}},
        },
    }


def test_a_plural_chooses_its_form_by_its_count() -> None:
    one = Plural("{n} poison counter", "{n} poison counters", "n", n=1)
    two = Plural("{n} poison counter", "{n} poison counters", "n", n=2)
    assert (one, two) == ("1 poison counter", "2 poison counters")
    assert two.to_json()["plural"] == "{n} poison counters"


def test_a_brace_that_is_no_argument_stays() -> None:
    assert Sentence("{x} and {y}", x="{y}", y="1") == "{y} and 1"


def test_sentences_pickle_and_copy_whole() -> None:
    said = Sentence(
        "{a}, {b}", a=Items([Id("ana"), "x"], ","), b=Plural("{n} card", "{n} cards", "n", n=2)
    )
    for again in (pickle.loads(pickle.dumps(said)), copy.deepcopy(said), copy.copy(said)):
        assert again == said and isinstance(again, Sentence)
        assert again.to_json() == said.to_json()


def test_english_is_the_message_ids() -> None:
    english = language("en")
    said = Sentence("{player} can't lose the game", player=Id("ana"))
    assert english.text(said) == said
    assert english.text("plain words") == "plain words"
    assert english.number(12345678) == "12345678"


def test_italian_numbers_group_from_five_digits() -> None:
    italian = language("it")
    assert italian.code == "it"
    assert [italian.number(n) for n in (999, 1000, 10000, -1234567)] == [
        "999",
        "1000",
        "10.000",
        "-1.234.567",
    ]


def test_italian_joins_lists_with_e() -> None:
    italian = language("it")
    assert italian.gettext(AND) == "{first} e {second}"
    assert italian.join(["Ana", "Bo", "Cy"], "and") == "Ana e Bo e Cy"


def test_a_language_by_its_code_or_the_environment(monkeypatch: object) -> None:
    assert language("it-IT").code == "it"
    assert language("it_IT.UTF-8").code == "it"
    assert language("xx").code == "en"
    assert set(LANGUAGES) == {"en", "it"}


def test_a_grouped_count_is_grouped_in_english_and_digits_as_data() -> None:
    said = Plural(
        "{text} ({n} character)", "{text} ({n} characters)", "n", text="'a…'", n=Grouped(100000)
    )
    assert said == "'a…' (100,000 characters)"
    assert said.to_json()["args"] == {"text": "'a…'", "n": {"n": "100000"}}
    assert language("it").text(said) == "'a…' (100.000 caratteri)"
    assert pickle.loads(pickle.dumps(said)) == said

"""Issue 20: what the record's readers say of a malformed record (lifeledger.recordjson,
header, parsing, record) is a sentence, English as it always was and Italian in Italian."""

from __future__ import annotations

import json

import pytest

from lifeledger import MalformedError, record
from lifeledger.language import language
from lifeledger.sentences import Sentence

ITALIAN = language("it")
HEADER = json.dumps({"record": 2, "players": [{"id": "ana"}, {"id": "bo"}]})

#: A malformed line of a stream, the English error and the Italian one.
LINES = [
    (
        '{"do": "lose_life", "player": "ana", "amount": "3"}',
        "action 0, member 'amount': expected an integer, got the string '3'",
        "azione 0, membro 'amount': serve un intero, non la stringa '3'",
    ),
    (
        '{"do": "lose_life", "player": "ana", "amount": -3}',
        "action 0, member 'amount': expected an integer of 0 or more, got -3",
        "azione 0, membro 'amount': serve un intero pari a 0 o più, non -3",
    ),
    (
        '{"do": "lose_life", "player": "ana", "amount": 1' + "0" * 1500 + "}",
        "action 0, member 'amount': an integer is beyond 10^1000 (it has 1,501 digits); the"
        " record bounds every integer by 10^1000",
        "azione 0, membro 'amount': un intero va oltre 10^1000 (ha 1501 cifre); la"
        " registrazione limita ogni intero a 10^1000",
    ),
    (
        '{"do": "gain_life", "player": "ana", "amount": 1, "amount": 2}',
        "action 0, member 'amount': the key 'amount' appears more than once in this object",
        "azione 0, membro 'amount': la chiave 'amount' compare più di una volta in questo oggetto",
    ),
    (
        '{"do": "gain_life", "player": "ana", "amount": 1, "colour": "red"}',
        "action 0, member 'colour': unknown member",
        "azione 0, membro 'colour': membro sconosciuto",
    ),
    (
        '{"do": "pay_life", "player": "ana", "amount": 1, "payments": {"bo": 1}}',
        "action 0, member 'player': give player and amount or payments, not both",
        "azione 0, membro 'player': indica player e amount oppure payments, non entrambi",
    ),
    (
        '{"do": "fly", "player": "ana"}',
        "action 0, member 'do': unknown action 'fly'",
        "azione 0, membro 'do': azione sconosciuta 'fly'",
    ),
    (
        "[1, 2]",
        "action 0: an action is a JSON object, not a list",
        "azione 0: un'azione è un oggetto JSON, non una lista",
    ),
    (
        '{"do": "draw", "player": "ana", "count": 1.5}',
        "action 0, member 'count': expected an integer, got the number 1.5",
        "azione 0, membro 'count': serve un intero, non il numero 1.5",
    ),
]


@pytest.mark.parametrize(("line", "english", "italian"), LINES)
def test_a_malformed_line_in_english_and_italian(line: str, english: str, italian: str) -> None:
    with pytest.raises(MalformedError) as raised:
        record.loads(f"{HEADER}\n{line}\n", stream=True)
    assert isinstance(raised.value.message, Sentence)
    assert str(raised.value) == english
    assert ITALIAN.text(raised.value.sentence) == italian


def test_a_malformed_header_in_italian() -> None:
    with pytest.raises(MalformedError) as raised:
        record.loads(json.dumps({"record": 7, "players": [{"id": "ana"}], "actions": []}))
    assert str(raised.value) == "header, member 'record': this is record version 1 or 2, not 7"
    assert ITALIAN.text(raised.value.sentence) == (
        "intestazione, membro 'record': la versione della registrazione è 1 o 2, non 7"
    )
    with pytest.raises(MalformedError) as raised:
        record.loads("")
    assert ITALIAN.text(raised.value.sentence) == (
        "intestazione: non è JSON: la registrazione è vuota"
    )

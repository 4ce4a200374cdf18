"""Issue 20: the engine's errors, the timeline of ``lifeledger replay`` and its command line
read right in Italian (lifeledger.language), and the same in English as they always were."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lifeledger import MalformedError, Seat, record
from lifeledger.actions import AddCounters, Damage, Draw, LifeOf, PayLife, Repeat
from lifeledger.bounds import check_integer
from lifeledger.cli import main
from lifeledger.errors import RefusedError, quote
from lifeledger.language import language
from lifeledger.sentences import Sentence
from lifeledger.timeline import Timeline, describe, english
from test_properties import SETTINGS, headers, play

ITALIAN = language("it")
TWO = [{"id": "ana"}, {"id": "bo"}]


def timeline(document: dict[str, Any], code: str = "it") -> list[str]:
    """The lines of ``document``'s timeline in the language ``code``."""
    lines: list[str] = []
    game, steps = record.start(document, keep_history=False)
    shown = Timeline(game, lines.append, language=language(code))
    shown.header()
    for step in steps:
        shown(step)
    shown.footer()
    return lines


@pytest.mark.rule("122.1f")
def test_122_1f_poison_counters_in_italian_are_one_many_and_a_million() -> None:
    """Italian's three plural forms: ``1 segnalino``, ``2 segnalini``, and a whole number of
    millions takes ``di``: ``1.000.000 di segnalini``."""
    said = [ITALIAN.text(describe(AddCounters("bo", "poison", n))) for n in (1, 2, 10**6)]
    assert said == [
        "bo riceve 1 segnalino veleno",
        "bo riceve 2 segnalini veleno",
        "bo riceve 1.000.000 di segnalini veleno",
    ]
    assert describe(AddCounters("bo", "poison", 10**6)) == "bo gets 1000000 poison counters"


@pytest.mark.rule("119.4")
def test_119_4_a_refused_payment_in_italian() -> None:
    """Ana, at 3 life, can't pay 5 (119.4): the refusal's line is Italian, with its rule."""
    actions = [
        {"do": "damage", "source": "bo-attackers", "to": "ana", "amount": 17, "combat": True},
        {"do": "pay_life", "player": "ana", "amount": 5},
        {"do": "pay_life", "player": "ana", "amount": 0},
    ]
    lines = timeline({"record": 1, "players": TWO, "actions": actions})
    assert lines[:6] == [
        "due giocatori, normale: ana 20, bo 20",
        "   0  bo-attackers: 17 danni a ana (combattimento)",
        "      punti vita di ana: 20 -> 3",
        "   1  ana paga 5 punti vita",
        lines[4],
        "   2  ana paga 0 punti vita",
    ]
    assert lines[4].startswith("      rifiutata: ") and lines[4].endswith(" (119.4)")
    assert lines[-1] == "la partita 1 continua"
    refused = RefusedError("119.4", Sentence("{player} can't pay {n} life", player="ana", n=5))
    assert str(refused) == "ana can't pay 5 life (119.4)" == refused.sentence


@pytest.mark.rule("704.5a")
def test_704_5a_a_loss_for_life_in_the_italian_timeline() -> None:
    actions = [{"do": "damage", "source": "fireball", "to": "bo", "amount": 20}]
    lines = timeline({"record": 1, "players": TWO, "actions": actions})
    assert lines == [
        "due giocatori, normale: ana 20, bo 20",
        "   0  fireball: 20 danni a bo",
        "      ana: in gioco -> VITTORIA (nessun avversario rimasto, 104.2a)",
        "      punti vita di bo: 20 -> 0",
        "      bo: in gioco -> SCONFITTA (punti vita, 704.5a)",
        "la partita 1 è finita",
    ]


@pytest.mark.rule("810.9a")
def test_810_9a_a_shared_life_total_in_the_italian_timeline() -> None:
    players = [
        {"id": "ana", "team": "north"},
        {"id": "bo", "team": "north"},
        {"id": "cy", "team": "south"},
        {"id": "di", "team": "south"},
    ]
    actions = [{"do": "lose_life", "player": "cy", "amount": 1000000}]
    head = {"record": 1, "variant": "two-headed-giant", "players": players}
    lines = timeline({**head, "actions": actions})
    assert lines[0] == (
        "Gigante a Due Teste, normale: ana (north) 30, bo (north) 30, cy (south) 30, di (south) 30"
    )
    assert lines[1] == "   0  cy perde 1.000.000 di punti vita"
    assert "      punti vita della squadra south: 30 -> -999.970" in lines


@pytest.mark.rule("107.1a")
def test_107_1a_half_a_life_total_rounded_up_in_italian() -> None:
    paid = PayLife((("ana", LifeOf("ana", (1, 2), "up")),))
    assert describe(paid) == "ana pays half ana's life total (rounded up)"
    assert ITALIAN.text(describe(paid)) == (
        "ana paga metà dei punti vita di ana (arrotondati per eccesso)"
    )


@pytest.mark.rule("732.2a")
def test_732_2a_a_shortcut_and_its_bound_in_italian() -> None:
    shortcut = Repeat(12000, (Draw("bo", 2), Damage("bo", 1, source="ping")))
    assert describe(shortcut) == (
        "a shortcut, 12,000 times: bo draws 2 cards; ping: 1 damage to bo (732.2a)"
    )
    assert ITALIAN.text(describe(shortcut)) == (
        "una scorciatoia, 12.000 volte: bo pesca 2 carte; ping: 1 danno a bo (732.2a)"
    )
    with pytest.raises(MalformedError) as raised:
        Repeat(0, (Draw("bo"),))
    assert str(raised.value) == (
        "header, member 'times': a shortcut repeats 1 to 10^1000 times (732.2a), not 0"
    )
    assert ITALIAN.text(raised.value.sentence) == (
        "intestazione, membro 'times': una scorciatoia si ripete da 1 a 10^1000 volte"
        " (732.2a), non 0"
    )


def test_a_malformed_id_in_italian_quotes_the_input_as_it_is() -> None:
    with pytest.raises(MalformedError) as raised:
        Seat("a b")
    assert str(raised.value) == (
        "header, member 'id': 'a b' is not an id (1-64 letters, digits, '_' and '-')"
    )
    assert ITALIAN.text(raised.value.at("3").sentence) == (
        "azione 3, membro 'id': 'a b' non è un id (da 1 a 64 tra lettere, cifre, '_' e '-')"
    )


def test_a_long_input_is_quoted_with_its_length_in_each_language() -> None:
    """quote's words are a sentence: ``(100,000 characters)``, ``(100.000 caratteri)``, and
    the Italian of a whole number of millions: ``(1.000.000 di caratteri)``."""
    assert quote("a" * 100_000) == "'" + "a" * 60 + "…' (100,000 characters)"
    assert ITALIAN.text(quote("a" * 100_000)).endswith("…' (100.000 caratteri)")
    assert ITALIAN.text(quote("a" * 1_000_000)).endswith("…' (1.000.000 di caratteri)")
    assert ITALIAN.text(quote(10**2000)) == "un intero di circa 2001 cifre"
    assert quote(10**2000) == "an integer of about 2,001 digits"
    assert ITALIAN.text(quote(7 * 10**70)).endswith("… (71 cifre)")
    with pytest.raises(MalformedError) as raised:
        check_integer(-(10**1200), "amount")
    assert ITALIAN.text(raised.value.sentence) == (
        "intestazione, membro 'amount': un intero va oltre -10^1000 (ha circa 1201 cifre);"
        " la registrazione limita ogni intero a 10^1000"
    )


@SETTINGS
@given(st.data())
def test_the_italian_timeline_has_the_english_lines_and_no_placeholder(
    data: st.DataObject,
) -> None:
    """Every game's timeline is written in Italian line for line, every template filled."""
    played = play(data.draw, data.draw(headers()), length=16)
    italian = timeline(played.document, "it")
    english = timeline(played.document, "en")
    assert len(italian) == len(english)
    assert not [line for line in italian if re.search(r"\{[a-z_]+\}", line)]


@SETTINGS
@given(st.data())
def test_the_english_written_at_once_is_the_sentences(data: st.DataObject) -> None:
    """The timeline writes the English of the usual actions without making their sentences:
    the same words as the sentences' (in random games, and each kind of damage)."""
    played = play(data.draw, data.draw(headers()), length=16)
    actions = [record.parse_action(a, str(i)) for i, a in enumerate(played.document["actions"])]
    actions += [
        Damage(
            "bo",
            3,
            combat=combat,
            infect=infect,
            lifelink=True,
            controller="ana",
            toxic=int(combat),
        )
        for combat in (False, True)
        for infect in (False, True)
    ]
    actions += [Damage("bo", 1, source="x", combat=True), AddCounters("bo", "rad", 1)]
    for action in actions:
        assert english(action) == describe(action)


def write_record(tmp_path: Path) -> str:
    path = tmp_path / "game.json"
    actions = [
        {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 1},
        {"do": "pay_life", "player": "ana", "amount": 25},
    ]
    path.write_text(json.dumps({"record": 1, "players": TWO, "actions": actions}))
    return str(path)


def test_replay_lang_it_writes_the_timeline_in_italian(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_record(tmp_path)
    assert main(["replay", "--lang", "it", path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == [
        "due giocatori, normale: ana 20, bo 20",
        "   0  bo riceve 1 segnalino veleno",
        "      segnalini veleno di bo: 0 -> 1",
        "   1  ana paga 25 punti vita",
    ]
    assert out[4].startswith("      rifiutata: ") and out[-1] == "la partita 1 continua"


def test_replay_json_is_the_same_data_in_every_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_record(tmp_path)
    printed = []
    for flags in ([], ["--lang", "it"], ["--lang", "en"]):
        assert main(["replay", "--json", *flags, path]) == 0
        printed.append(capsys.readouterr().out)
    assert printed[0] == printed[1] == printed[2]
    assert json.loads(printed[1])["refused"][0]["rule"] == "119.4"


def test_replay_lang_of_no_language_is_an_error_naming_the_languages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "--lang", "xx", write_record(tmp_path)]) == 2
    assert capsys.readouterr().err == "lifeledger: --lang: no language 'xx' (one of en, it)\n"
    assert main(["replay", "--lang", "en_GB", write_record(tmp_path)]) == 0


def test_replay_errors_in_italian(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"record": 1, "players": [{"id": "a b"}, {"id": "bo"}]}))
    assert main(["replay", "--lang", "it", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"lifeledger: {path}: intestazione, membro 'players[0].id': 'a b' non è un id (da 1 a"
        " 64 tra lettere, cifre, '_' e '-')\n"
    )


def run_cli(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    """``lifeledger`` in a process of its own, with the environment's language variables
    only as given."""
    clean = {k: v for k, v in os.environ.items() if k not in _LOCALE}
    return subprocess.run(
        [sys.executable, "-m", "lifeledger", *args],
        env={**clean, **env},
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


_LOCALE = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.mark.parametrize(
    ("env", "first"),
    [
        ({"LANG": "it_IT.UTF-8"}, "due giocatori, normale: ana 20, bo 20"),
        ({"LC_ALL": "it_IT.UTF-8", "LANG": "en_US.UTF-8"}, "due giocatori, normale: ana 20, bo 20"),
        ({"LANGUAGE": "C", "LANG": "it_IT.UTF-8"}, "two-player, normal: ana 20, bo 20"),
        ({"LANG": "C"}, "two-player, normal: ana 20, bo 20"),
        ({"LANG": "POSIX"}, "two-player, normal: ana 20, bo 20"),
        ({"LANG": "xx_XX.UTF-8"}, "two-player, normal: ana 20, bo 20"),
    ],
)
def test_replay_follows_the_environments_language(
    tmp_path: Path, env: dict[str, str], first: str
) -> None:
    done = run_cli(["replay", write_record(tmp_path)], **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == first


def test_replay_lang_goes_before_the_environment(tmp_path: Path) -> None:
    done = run_cli(["replay", "--lang", "en", write_record(tmp_path)], LANG="it_IT.UTF-8")
    assert done.stdout.splitlines()[0] == "two-player, normal: ana 20, bo 20"
    help_it = run_cli(["replay", "--help"], LANG="it_IT.UTF-8").stdout
    assert "la lingua della cronologia e dei messaggi d'errore: en, it" in " ".join(help_it.split())

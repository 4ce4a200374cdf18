"""Issue 20: the engine's own sentences about life and the end of the game (lifeledger.life,
lifeledger.ending, lifeledger.counters, lifeledger.game) read right in Italian, and the same in
English as they always were: a Two-Headed Giant team's refused payment, a loss for 0 life,
21 commander damage, a Platinum Angel that keeps its controller in the game."""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import Game, MalformedError, RefusedError, Seat, record
from lifeledger.language import language
from lifeledger.sentences import Sentence
from lifeledger.timeline import Timeline

ITALIAN = language("it")
HEADS = [Seat("ana", team="north"), Seat("bo", team="north"), Seat("cy", team="south")]
HEADS.append(Seat("di", team="south"))


def timeline(document: dict[str, Any]) -> list[str]:
    """The lines of ``document``'s timeline in Italian."""
    lines: list[str] = []
    game, steps = record.start(document, keep_history=False)
    shown = Timeline(game, lines.append, language=ITALIAN)
    shown.header()
    for step in steps:
        shown(step)
    shown.footer()
    return lines


def refusal(act: Any, *args: Any, **kwargs: Any) -> RefusedError:
    with pytest.raises(RefusedError) as raised:
        act(*args, **kwargs)
    assert isinstance(raised.value.message, Sentence)
    return raised.value


@pytest.mark.rule("119.4a")
def test_119_4a_810_9b_a_two_headed_giant_teams_payment_refused_in_italian() -> None:
    """The heads of a team at 5 life can't pay 6 together (119.4a, 810.9b): the refusal is
    one whole sentence in each language, a point of life singular in Italian, two plural."""
    game = Game(HEADS, variant="two-headed-giant")
    game.lose_life("ana", 25)
    together = refusal(game.pay_life_together, {"ana": 3, "bo": 3})
    assert str(together) == "ana and bo can't pay 6 life with a team total of 5 life (119.4a)"
    assert ITALIAN.text(together.sentence) == (
        "ana e bo non possono pagare 6 punti vita con un totale di squadra di 5 punti vita (119.4a)"
    )
    game.lose_life("bo", 4)
    alone = refusal(game.pay_life, "bo", 2)
    assert str(alone) == "bo can't pay 2 life with a team total of 1 life (119.4a)"
    assert ITALIAN.text(alone.sentence) == (
        "bo non può pagare 2 punti vita con un totale di squadra di 1 punto vita (119.4a)"
    )
    assert game.life_of("ana") == 1


@pytest.mark.rule("119.4")
def test_119_4_a_million_life_unpaid_in_italian() -> None:
    game = Game([Seat("ana"), Seat("bo")])
    refused = refusal(game.pay_life, "ana", 1_000_000)
    assert str(refused) == "ana can't pay 1000000 life with 20 life (119.4)"
    assert ITALIAN.text(refused.sentence) == (
        "ana non può pagare 1.000.000 di punti vita con 20 punti vita (119.4)"
    )


@pytest.mark.rule("704.5a")
def test_704_5a_a_player_at_0_life_loses_and_the_game_is_over_in_italian() -> None:
    """Bo loses exactly 20 life (704.5a); afterwards every action is refused, the game being
    over (104.1), in Italian too."""
    actions = [
        {"do": "lose_life", "player": "bo", "amount": 20},
        {"do": "gain_life", "player": "ana", "amount": 1},
    ]
    lines = timeline({"record": 1, "players": [{"id": "ana"}, {"id": "bo"}], "actions": actions})
    assert "      bo: in gioco -> SCONFITTA (punti vita, 704.5a)" in lines
    assert "      rifiutata: la partita è finita (104.1)" in lines
    game = Game([Seat("ana"), Seat("bo")])
    game.lose_life("bo", 20)
    assert str(game.outcome().results["bo"]) == "lost (life, 704.5a)"
    over = refusal(game.gain_life, "ana", 1)
    assert (str(over), ITALIAN.text(over.sentence)) == (
        "the game is over (104.1)",
        "la partita è finita (104.1)",
    )


@pytest.mark.rule("704.6c")
def test_704_6c_21_commander_damage_in_italian() -> None:
    """21 combat damage from one commander (903.10a) loses the game (704.6c), in the Italian
    timeline; and commander damage beyond 10^1000 is an error naming it, in Italian too."""
    players = [{"id": "ana", "commanders": ["ana-cmdr"]}, {"id": "bo"}]
    hit = {"do": "damage", "source": "ana-cmdr", "to": "bo", "amount": 21, "combat": True}
    document = {"record": 1, "format": "commander", "players": players, "actions": [hit]}
    lines = timeline(document)
    assert "      bo: in gioco -> SCONFITTA (danno da comandante, 704.6c)" in lines
    game = Game([Seat("ana", commanders=("ana-cmdr",)), Seat("bo")], format="commander")
    game.card("angel", "Platinum Angel", "bo")
    game.damage("bo", 10**1000, source="ana-cmdr", combat=True)
    with pytest.raises(MalformedError) as raised:
        game.damage("bo", 1, source="ana-cmdr", combat=True)
    assert str(raised.value) == (
        "header, member 'amount': the commander damage bo has taken from ana-cmdr is beyond"
        " 10^1000 (it has about 1001 digits); the record bounds every integer by 10^1000"
    )
    assert ITALIAN.text(raised.value.sentence) == (
        "intestazione, membro 'amount': il danno da comandante che bo ha subito da ana-cmdr va"
        " oltre 10^1000 (ha circa 1001 cifre); la registrazione limita ogni intero a 10^1000"
    )
    assert game.player("bo").commander_damage == {"ana-cmdr": 10**1000}


@pytest.mark.rule("104.3")
def test_104_3_platinum_angel_cant_lose_the_game_in_italian() -> None:
    """Bo at 0 life controls Platinum Angel: 704.5a would apply, but bo can't lose (104.3);
    the note says which rule would have applied, and ana can't win (104.2)."""
    game = Game([Seat("ana"), Seat("bo")])
    game.card("angel", "Platinum Angel", "bo")
    game.lose_life("bo", 20)
    [note] = game.notes
    assert (note.rule, note.text) == ("104.3", "bo can't lose the game (704.5a applies)")
    assert ITALIAN.text(note.text) == "bo non può perdere la partita (si applicherebbe 704.5a)"
    assert note.text.to_json() == {  # type: ignore[attr-defined]
        "msg": "{player} can't lose the game ({rule} applies)",
        "args": {"player": {"id": "bo"}, "rule": "704.5a"},
    }
    game.win("ana", source="fireball")
    [note] = game.notes
    assert note.rule == "104.2"
    assert ITALIAN.text(note.text) == "ana non può vincere la partita"
    assert game.outcome().results["bo"].is_playing


@pytest.mark.rule("119.7")
def test_119_7_a_gain_that_does_nothing_and_a_trigger_in_italian() -> None:
    game = Game([Seat("ana"), Seat("bo")])
    game.card("leyline", "Leyline of Punishment", "bo")
    game.gain_life("ana", 3)
    [note] = game.notes
    assert note.text == "ana can't gain life: the gain of 3 does nothing"
    assert ITALIAN.text(note.text) == (
        "ana non può guadagnare punti vita: il guadagno di 3 non ha effetto"
    )
    game.end("leyline")
    game.card("pridemate", "Ajani's Pridemate", "ana")
    game.gain_life("ana", 3)
    [note] = game.notes
    assert (note.rule, note.text) == ("119.9", "pridemate triggers: ana gains life")
    assert ITALIAN.text(note.text) == "pridemate si innesca: ana guadagna punti vita"


@pytest.mark.rule("500.1")
def test_500_1_combat_damage_in_the_end_step_is_refused_in_italian() -> None:
    game = Game([Seat("ana"), Seat("bo")], version=2)
    game.turn("ana")
    game.step("main")
    game.step("end")
    refused = refusal(game.damage, "bo", 2, source="bear", combat=True)
    assert str(refused) == (
        "combat damage in the end step: combat comes after the precombat main phase and"
        " before the end step (500.1)"
    )
    assert ITALIAN.text(refused.sentence) == (
        "danno da combattimento durante la sottofase finale: il combattimento viene dopo la"
        " prima fase principale e prima della sottofase finale (500.1)"
    )


def test_an_unknown_player_in_italian_quotes_the_input() -> None:
    game = Game([Seat("ana"), Seat("bo")])
    with pytest.raises(MalformedError) as raised:
        game.gain_life("zed", 1)
    assert str(raised.value) == "header, member 'player': unknown player 'zed'"
    assert ITALIAN.text(raised.value.at("4").sentence) == (
        "azione 4, membro 'player': giocatore sconosciuto 'zed'"
    )

"""Issue 20: the stories of version 2 read right in Italian: a triggered ability on the stack
(603, 608), the turn order and the game's first turn (103, 727), the monarch (725), a
shortcut's result (732.2a) and a choice asked of the right player (603.3b, 603.3d, 616.1); the
English words are as they always were."""

from __future__ import annotations

from typing import Any

import pytest

from lifeledger import ChoiceNeeded, MalformedError, record
from lifeledger.language import language
from test_italian import timeline

ITALIAN = language("it")


def players(*ids: str, library: int = 9) -> list[dict[str, Any]]:
    return [{"id": pid, "library": library} for pid in ids]


def card(cid: str, name: str, controller: str) -> dict[str, Any]:
    return {"do": "card", "id": cid, "name": name, "controller": controller}


def needed(document: dict[str, Any]) -> ChoiceNeeded:
    """The choice the record's last action needs and doesn't state."""
    with pytest.raises(MalformedError) as raised:
        record.replay(document)
    assert isinstance(raised.value, ChoiceNeeded)
    return raised.value


@pytest.mark.rule("608.2")
def test_603_and_608_2_a_trigger_goes_on_the_stack_and_resolves_in_italian() -> None:
    """Ana's Sanguine Bond triggers on her gain (603.2), goes on the stack targeting Bo
    (603.3b, 603.3d) and resolves (608.2); Bo's Celestial Convergence enters with its omen
    counters (122.1)."""
    actions = [
        card("bond", "Sanguine Bond", "ana"),
        {"do": "gain_life", "player": "ana", "amount": 4},
        card("cc", "Celestial Convergence", "bo"),
    ]
    document = {"record": 2, "players": players("ana", "bo"), "actions": actions}
    assert timeline(document)[2:] == [
        "   1  ana guadagna 4 punti vita",
        "      punti vita di ana: 20 -> 24",
        "      punti vita di bo: 20 -> 16",
        "      bond si innesca: ana guadagna 4 punti vita (603.2)",
        "      bond (di ana, 4) che bersaglia bo va in pila (603.3b)",
        "      bond (di ana, 4) che bersaglia bo si risolve: bo perde 4 punti vita (608.2)",
        "   2  Celestial Convergence (cc) entra sotto il controllo di bo",
        "      cc entra con 7 segnalini presagio (122.1)",
        "la partita 1 continua",
    ]
    assert timeline(document, "en")[5:8] == [
        "      bond triggers: ana gains 4 life (603.2)",
        "      bond (ana's, 4) targeting bo is put on the stack (603.3b)",
        "      bond (ana's, 4) targeting bo resolves: bo loses 4 life (608.2)",
    ]


@pytest.mark.rule("608.2")
def test_608_2_one_life_is_a_punto_vita() -> None:
    """Italian's singular: a drain of 1 is ``1 punto vita``."""
    actions = [
        card("bond", "Sanguine Bond", "ana"),
        {"do": "gain_life", "player": "ana", "amount": 1},
    ]
    lines = timeline({"record": 2, "players": players("ana", "bo"), "actions": actions})
    assert "      bond si innesca: ana guadagna 1 punto vita (603.2)" in lines
    assert (
        "      bond (di ana, 1) che bersaglia bo si risolve: bo perde 1 punto vita (608.2)" in lines
    )


@pytest.mark.rule("103.1b")
def test_103_and_727_1a_the_first_turn_and_the_turn_order_in_italian() -> None:
    """Archenemy: the archenemy plays first (103.1b); after a hero's restart the heroes' team
    does (103.1a, 727.1a), the archenemy's first turn refused; no one skips the first draw
    (103.8c) and each hero draws (504.1)."""
    seats = [{"id": "arch", "archenemy": True, "library": 9}, *players("h0", "h1")]
    actions = [
        {"do": "turn", "player": "h0"},
        {"do": "turn", "player": "arch"},
        {"do": "restart", "controller": "h0", "source": "karn"},
        {"do": "turn", "player": "arch"},
        {"do": "turn", "player": "h1"},
        {"do": "step", "step": "draw"},
    ]
    document = {"record": 2, "variant": "archenemy", "players": seats, "actions": actions}
    lines = timeline(document)
    assert lines[0] == "Arcinemico, normale: arch 40, h0 (heroes) 20, h1 (heroes) 20"
    assert "      rifiutata: il primo turno della partita è di arch, non di h0 (103.1b)" in lines
    assert "      turno 1: inizia il turno di arch (500.1)" in lines
    assert (
        "      rifiutata: il primo turno della partita è della squadra di h0 (heroes), non di arch"
        " (727.1a)"
    ) in lines
    assert "      turno 1: inizia il turno della squadra heroes (500.1)" in lines
    assert lines[-4:] == [
        "      in una partita multigiocatore nessun giocatore salta la sua prima sottofase di"
        " acquisizione (103.8c)",
        "      h0 pesca una carta nella sottofase di acquisizione (504.1)",
        "      h1 pesca una carta nella sottofase di acquisizione (504.1)",
        "la partita 2 continua",
    ]
    english = timeline(document, "en")
    assert "      refused: arch takes the game's first turn, not h0 (103.1b)" in english
    assert "      turn 1: team heroes's turn begins (500.1)" in english


@pytest.mark.rule("103.8a")
def test_103_8a_and_500_1_the_player_who_plays_first_skips_the_draw_in_italian() -> None:
    """A two-player game: the first player skips the draw step of the first turn (103.8a);
    the steps come in order (500.1), named as the Italian rules name them."""
    actions = [
        {"do": "turn", "player": "ana"},
        {"do": "step", "step": "main"},
        {"do": "step", "step": "draw"},
        {"do": "turn", "player": "bo"},
        {"do": "upkeep", "player": "bo"},
        {"do": "step", "step": "end"},
        {"do": "upkeep", "player": "bo"},
    ]
    lines = timeline({"record": 2, "players": players("ana", "bo"), "actions": actions})
    assert [line for line in lines if line.endswith(("(500.1)", "(103.8a)", "(504.1)"))] == [
        "      turno 1: inizia il turno di ana (500.1)",
        "      ana ha il primo turno e ne salta la sottofase di acquisizione (103.8a)",
        "      rifiutata: il turno è alla fase principale: la sottofase di acquisizione è già"
        " finita (500.1)",
        "      turno 2: inizia il turno di bo (500.1)",
        "      bo pesca una carta nella sottofase di acquisizione (504.1)",
        "      rifiutata: una sottofase di mantenimento aggiuntiva viene subito dopo il"
        " mantenimento; il turno è alla sottofase finale (500.1)",
    ]


@pytest.mark.rule("725.2")
def test_725_the_monarch_in_italian() -> None:
    """Bo becomes the monarch (725.1), again (no second monarch); combat damage to Bo makes
    the creature's controller, Cy, the monarch (725.2); Cy leaves the game and the active
    player, Ana, becomes the monarch (725.4), who draws at the beginning of her end step
    (725.2)."""
    actions = [
        {"do": "turn", "player": "ana"},
        {"do": "step", "step": "main"},
        {"do": "become_monarch", "player": "bo"},
        {"do": "become_monarch", "player": "bo"},
        {"do": "damage", "source": "bear", "to": "bo", "amount": 2, "combat": True,
         "controller": "cy"},
        {"do": "concede", "player": "cy"},
        {"do": "step", "step": "end"},
    ]  # fmt: skip
    document = {"record": 2, "players": players("ana", "bo", "cy"), "actions": actions}
    notes = [line for line in timeline(document) if "(72" in line]
    assert notes == [
        "      bo è già il monarca (725.3)",
        "      danno da combattimento a bo: cy diventa il monarca (725.2)",
        "      cy lascia la partita: ana diventa il monarca (725.4)",
        "      ana è il monarca e pesca una carta (725.2)",
    ]
    assert [line for line in timeline(document, "en") if "(72" in line] == [
        "      bo already has the monarch (725.3)",
        "      combat damage to bo: cy becomes the monarch (725.2)",
        "      cy leaves the game: ana has the monarch (725.4)",
        "      ana is the monarch and draws a card (725.2)",
    ]


@pytest.mark.rule("732.2a")
def test_732_2a_a_shortcuts_result_in_italian() -> None:
    """A thousand iterations that change nothing are settled at once, and the shortcut's
    result says how many of them happened, in Italian's numbers; one that ends the game
    early says so."""
    loop = [
        {"do": "lose_life", "player": "bo", "amount": 1},
        {"do": "gain_life", "player": "bo", "amount": 1},
    ]
    drain = [{"do": "lose_life", "player": "bo", "amount": 1}]
    actions = [
        {"do": "repeat", "times": 1000, "actions": loop},
        {"do": "repeat", "times": 100000, "actions": drain},
    ]
    document = {"record": 2, "players": players("ana", "bo"), "actions": actions}
    notes = [line for line in timeline(document) if line.endswith("(732.2a)")][1:]
    assert notes[:2] == [
        "      997 iterazioni della scorciatoia cambiano la partita come l'ultima: applicate in"
        " un colpo solo (calcolate) (732.2a)",
        "      una scorciatoia: 1000 iterazioni su 1000 (732.2a)",
    ]
    assert notes[-1] == "      una scorciatoia: 20 iterazioni su 100.000 (732.2a)"
    english = [line for line in timeline(document, "en") if line.endswith("(732.2a)")]
    assert english[2] == "      a shortcut: 1,000 of 1,000 iterations (732.2a)"
    assert english[-1] == "      a shortcut: 20 of 100,000 iterations (732.2a)"


@pytest.mark.rule("603.3b")
def test_603_3b_and_603_3d_a_choice_is_asked_of_the_right_player_in_italian() -> None:
    """Ana controls Sanguine Bond and Exquisite Blood: Bo's statement of their order is
    ignored (603.3b), and a lifelink hit asks Ana, not Bo, for the order; with two opponents
    Bond asks Ana for its target (603.3d)."""
    actions = [
        card("bond", "Sanguine Bond", "ana"),
        card("blood", "Exquisite Blood", "ana"),
        {"do": "choose", "player": "bo", "order": ["blood", "bond"]},
    ]
    document = {"record": 2, "players": players("ana", "bo"), "actions": actions}
    assert timeline(document)[-3:-1] == [
        "      blood è di ana: è ana a ordinarne le abilità, quanto ne indica bo è ignorato"
        " (603.3b)",
        "      bond è di ana: è ana a ordinarne le abilità, quanto ne indica bo è ignorato"
        " (603.3b)",
    ]
    hit = {"do": "damage", "to": "bo", "amount": 2, "source": "bat", "lifelink": True,
           "controller": "ana"}  # fmt: skip
    err = needed({**document, "actions": [*actions, hit]})
    assert (err.player, err.choice, err.rule) == ("ana", "order", "603.3b")
    assert ITALIAN.text(err.sentence) == (
        "azione 3, membro 'do': ana mette in pila allo stesso tempo le abilità innescate di"
        " blood, bond: indica il loro ordine con choose (603.3b); l'ordine indicato non"
        " comprende blood, bond"
    )
    assert str(err) == (
        "action 3, member 'do': ana puts the triggered abilities of blood, bond on the stack at"
        " once: state their order with choose (603.3b); blood, bond is not in it"
    )
    three = {"record": 2, "players": players("ana", "bo", "cy"), "actions": actions[:1]}
    err = needed(
        {**three, "actions": [*actions[:1], {"do": "gain_life", "player": "ana", "amount": 2}]}
    )
    assert (err.player, err.choice, err.options) == ("ana", "targets", ("bo", "cy"))
    assert ITALIAN.text(err.sentence) == (
        "azione 1, membro 'do': bond bersaglia un avversario di ana: indica quale con choose"
        " (603.3d); i bersagli legali sono bo, cy"
    )


@pytest.mark.rule("616.1")
def test_616_1_the_replacements_order_is_the_affected_players_in_italian() -> None:
    """Ana's gain under her Rhox Faithmender and Bo's Tainted Remedy: Bo's statement of the
    order is ignored, and Ana is asked, in Italian words with no placeholder left."""
    actions = [
        card("rhox", "Rhox Faithmender", "ana"),
        card("remedy", "Tainted Remedy", "bo"),
        {"do": "choose", "player": "bo", "replacements": ["rhox", "remedy"]},
        {"do": "gain_life", "player": "ana", "amount": 3},
    ]
    err = needed({"record": 2, "players": players("ana", "bo"), "actions": actions})
    assert (err.player, err.choice, err.rule) == ("ana", "replacements", "616.1")
    said = ITALIAN.text(err.sentence)
    assert said.startswith("azione 3, membro 'do': ") and said != str(err)
    assert "{" not in said and "ana" in said and "616.1" in said


@pytest.mark.rule("616.1")
def test_a_triggers_card_and_a_choices_cards_are_ids_as_data() -> None:
    """The engine gives each card it names as an id (a reader names it by the card, as it names
    a player): a trigger's note (603.2, 603.3b, 608.2) and a 616.1 choice's message, with the
    English words as they always were."""
    actions = [
        card("bond", "Sanguine Bond", "ana"),
        {"do": "gain_life", "player": "ana", "amount": 4},
    ]
    game = record.replay({"record": 2, "players": players("ana", "bo"), "actions": actions}).game
    notes = {note.rule: note.text for note in game.notes}
    assert notes["603.2"] == "bond triggers: ana gains 4 life"
    assert notes["603.2"].to_json()["args"]["id"] == {"id": "bond"}
    put = notes["603.3b"].to_json()["args"]["trigger"]
    assert put["msg"] == "{id} ({player}'s, {n}) targeting {target}"
    assert put["args"]["id"] == {"id": "bond"} and put["args"]["target"] == {"id": "bo"}
    resolved = notes["608.2"].to_json()["args"]["trigger"]
    assert resolved["args"]["id"] == {"id": "bond"}

    replaced = [
        card("rhox", "Rhox Faithmender", "ana"),
        card("remedy", "Tainted Remedy", "bo"),
        {"do": "gain_life", "player": "ana", "amount": 3},
    ]
    err = needed({"record": 2, "players": players("ana", "bo"), "actions": replaced})
    assert (err.choice, err.rule) == ("replacements", "616.1")
    message = err.sentence.to_json()["args"]["message"]
    assert message["msg"].startswith("the replacement effects {ids} would apply")
    assert message["args"]["ids"] == {"list": [{"id": "remedy"}, {"id": "rhox"}], "sep": ","}
    assert message["args"]["missing"]["list"] == message["args"]["ids"]["list"]
    assert message["args"]["player"] == {"id": "ana"}
    assert str(err).endswith(
        "the replacement effects remedy, rhox would apply to the life ana gains: ana states the"
        " order they apply in with choose (616.1); remedy, rhox are not in it"
    )

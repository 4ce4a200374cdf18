"""The one place the table app talks to the rules engine (the ``lifeledger`` package).

The app computes no rule of its own: every total, standing and refusal comes from here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import lifeledger
from lifeledger import record, snapshot, state
from lifeledger.actions import (
    Action,
    Choose,
    Concede,
    DrawGame,
    IntentionalDraw,
    Loop,
    Lose,
    PayLife,
    Penalty,
    Repeat,
    Restart,
    StartEffect,
    Together,
    Win,
)
from lifeledger.effects import CARD_ONLY_KINDS, CATALOGUE, Kind, Reach
from lifeledger.errors import (
    ChoiceNeeded,
    LifeledgerError,
    MalformedError,
    RefusedError,
    TooMuchWork,
)
from lifeledger.formats import FORMATS
from lifeledger.game import Game
from lifeledger.match import Match
from lifeledger.outcome import Outcome
from lifeledger.sentences import Grouped, Plural, Sentence
from lifeledger.stack import OpenChoice
from lifeledger.variants import VARIANTS

__all__ = [
    "BUILD",
    "Action",
    "ChoiceNeeded",
    "Choose",
    "Concede",
    "DrawGame",
    "Game",
    "IntentionalDraw",
    "Kind",
    "LifeledgerError",
    "Loop",
    "Lose",
    "MalformedError",
    "Match",
    "Outcome",
    "PayLife",
    "Penalty",
    "Reach",
    "RefusedError",
    "Repeat",
    "Restart",
    "StartEffect",
    "Together",
    "TooMuchWork",
    "Win",
    "after",
    "apply",
    "build_of",
    "card_of",
    "catalogue",
    "check_header",
    "choice_json",
    "choices",
    "controller_of",
    "dump_checkpoint",
    "effects",
    "load_checkpoint",
    "new_game",
    "note_json",
    "parse",
    "replaces_losing",
    "replay",
    "resume",
    "said",
    "state_of",
    "turns",
]


def build_of(roots: Iterable[Path]) -> str:
    """A digest of the Python source files under ``roots`` (their paths and contents): any
    change of the code is another build."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            name = path.relative_to(root).as_posix()
            digest.update(f"{root.name}/{name}\0".encode())
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()[:32]


#: This build: the digest of the engine's and the table app's source files, made once.
BUILD = build_of([Path(__file__).parent, Path(lifeledger.__file__).parent])

#: What a checkpoint is, and which build wrote it: the first member of a checkpoint's JSON. A
#: checkpoint that does not start with this one's is never read further (the log is replayed).
CHECKPOINT_FORMAT = f"lifeledger checkpoint 4 build {BUILD}"
_HEAD = b'{"format":' + json.dumps(CHECKPOINT_FORMAT).encode() + b","


#: The most consequences an action's timeline entry lists: the first ``NOTES_HEAD``, one line
#: for those left out (their rules) and the last ``NOTES_TAIL``. A shortcut of 1,000 life gains
#: under Sanguine Bond makes 3,001 (260 KB), more than a change may send to every phone.
NOTES_SHOWN = 100
NOTES_HEAD = 80
NOTES_TAIL = NOTES_SHOWN - NOTES_HEAD - 1


def _rule_order(rule: str) -> list[int | str]:
    """A rule number's place among rules: 104.4b before 603.2 before 603.3b before 608.2."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", rule) if part]


def catalogue() -> dict[str, Any]:
    """What the engine knows, for the setup screen and the play screen's menus."""
    return {
        "variants": [
            {"name": name, "rule": cls.rule, "formats": sorted(cls.formats)}
            for name, cls in VARIANTS.items()
        ],
        "formats": list(FORMATS),
        "cards": list(CATALOGUE),
        "effect_kinds": [kind.value for kind in Kind if kind not in CARD_ONLY_KINDS],
    }


def check_header(header: dict[str, Any]) -> None:
    """Raise :class:`MalformedError` unless ``header`` is a header the engine can play."""
    record.parse_header(header)
    new_game(header)


def new_game(header: dict[str, Any]) -> Game:
    """A game as it begins under ``header`` (keeping no history: the table keeps its log)."""
    return record.parse_header(header).new_game(keep_history=False)


def replay(header: dict[str, Any], actions: Sequence[dict[str, Any]]) -> Game:
    """The game after the engine replays ``actions`` under ``header`` (see :func:`resume`)."""
    return resume(new_game(header), actions, 0)


def resume(game: Game, actions: Sequence[dict[str, Any]], start: int) -> Game:
    """``game`` (a checkpoint: ``start`` actions in) after the engine applies ``actions``.

    The actions are ones the engine accepted before. A refusal inside a group is part of the
    group's history (609.3: the group did what it could), so it is not an error; a refused
    top-level action means the log and the engine disagree, and :class:`RefusedError` says
    which (its position, from 0).
    """
    for position, action in enumerate(actions, start):
        try:
            game.apply(parse(action, position))
        except RefusedError as exc:
            where = Sentence("action {position}: {message}", position=position, message=exc.message)
            raise RefusedError(exc.rule, where) from None
    return game


def parse(action: object, position: int) -> Action:
    """A record action (a JSON object) as the engine reads it; raises :class:`MalformedError`."""
    return record.parse_action(action, str(position))


def note_json(rule: str, text: str) -> dict[str, Any]:
    """A consequence as a timeline entry keeps it: its ``rule`` and English ``text``, and its
    ``sentence`` (when the engine wrote one: each phone renders it in its own language, naming
    the players and cards the engine gave as ids, :meth:`Sentence.to_json`)."""
    out: dict[str, Any] = {"rule": rule, "text": text}
    if isinstance(text, Sentence):
        out["sentence"] = text.to_json()
    return out


def said(exc: LifeledgerError) -> str:
    """What an engine's error says, as one sentence (where and what, for a malformed action):
    its :class:`Sentence` when the engine wrote one, else its text."""
    found = getattr(exc, "sentence", None)
    return found if isinstance(found, Sentence) else str(exc)


def apply(game: Game, action: dict[str, Any] | Action, position: int) -> list[dict[str, Any]]:
    """Apply one record action (JSON, or already parsed) to ``game`` and return its
    consequences with their rules (:func:`note_json`; at most :data:`NOTES_SHOWN`: a line says
    how many more, and their rules); on :class:`MalformedError` or :class:`RefusedError`
    nothing changes."""
    parsed = action if isinstance(action, Action) else parse(action, position)
    game.apply(parsed)
    notes = game.notes
    if len(notes) > NOTES_SHOWN:  # a shortcut, a long stack: the first and the last
        left_out = notes[NOTES_HEAD : len(notes) - NOTES_TAIL]
        rules = ", ".join(sorted({note.rule for note in left_out}, key=_rule_order))
        summary = note_json(
            rules,
            Plural(
                "… and {n} more consequence (the game's record replays it)",
                "… and {n} more consequences (the game's record replays each of them)",
                "n",
                n=Grouped(len(left_out)),
            ),
        )
        head = [note_json(n.rule, n.text) for n in notes[:NOTES_HEAD]]
        tail = [note_json(n.rule, n.text) for n in notes[len(notes) - NOTES_TAIL :]]
        return [*head, summary, *tail]
    return [note_json(note.rule, note.text) for note in notes]


def effects(game: Game) -> list[dict[str, Any]]:
    """The continuous effects that apply now (a card's effects share the card's id, and name
    the ``card``: a phone that joins long after it entered still knows it by name)."""
    return [
        {"id": effect.id, "kind": effect.kind.value, "controller": effect.controller}
        | ({"card": effect.card} if effect.card is not None else {})
        for effect in game.effects()
    ]


def choice_json(found: ChoiceNeeded | OpenChoice) -> dict[str, Any]:
    """A choice the rules give a player (603.3b, 603.3d, 616.1), as the table sends it: who
    chooses (``player``), what (``choice``: ``"targets"``, ``"order"`` or
    ``"replacements"``), for which effects (``ids``), among what (``options``: the legal
    targets, or the ids to order) and its ``rule``."""
    return {
        "player": found.player,
        "choice": found.choice,
        "ids": list(found.ids),
        "options": list(found.options),
        "rule": found.rule,
    }


def choices(game: Game) -> dict[str, Any]:
    """The choices players make as the engine sees them now (603.3b, 603.3d, 616.1): those
    ``open`` (:meth:`Game.open_choices`: a player would be asked for them before any action
    needs them) and, for each ability that targets, the player it would target now and its legal
    targets (``targets``: ``{id: {"target": player or null, "options": [players]}}``,
    :meth:`Game.standing_targets`; ``null`` while its choice is open). Small: a few entries
    per card in play, whatever the game's length."""
    return {
        "open": [choice_json(c) for c in game.open_choices()],
        "targets": {
            effect_id: {"target": target, "options": list(legal)}
            for effect_id, (target, legal) in game.standing_targets().items()
        },
    }


def card_of(game: Game, effect_id: str) -> str:
    """The name of the card ``effect_id`` is (an ``effect`` that is no card: its id)."""
    for effect in game.effects():
        if effect.id == effect_id and effect.card is not None:
            return effect.card
    return effect_id


def controller_of(game: Game, effect_id: str) -> str | None:
    """The controller of the effect or card ``effect_id`` that applies now (``None``: none)."""
    for effect in game.effects():
        if effect.id == effect_id:
            return effect.controller
    return None


def replaces_losing(game: Game, effect_ids: Sequence[str]) -> bool:
    """Whether the effects ``effect_ids`` replace a loss of the game (Lich's Mirror, 614.1a):
    a choice of ``"replacements"`` among them is which one does (616.1)."""
    kinds = {effect.id: effect.kind for effect in game.effects()}
    return all(kinds.get(i) is Kind.LOSING_REPLACED for i in effect_ids)


def turns(game: Game) -> dict[str, Any] | None:
    """What the table's turn tracker offers, all of it the engine's (``None`` in a game of
    record version 1, which has no turns): ``first``, who may take the first turn (103.1,
    103.1b, 904.6, 727.1a; empty once a turn has begun); ``first_draw``, the rule that says who
    skips the first draw step (103.8a, 810.6, 103.8c); ``next``, whose turn is next in turn
    order (103.1, 805.4, 810.2, 800.4); ``cast``, the spells each player cast this turn (502.2,
    731.2); ``radiation``, the active players whose rad counters mill at this turn's main
    phase, with the most nonland cards they can mill (728.1); ``markers``, ``"807.4"`` when
    the game has several turn markers, whose turns version 2 can't record; ``shared``, whether
    teams take turns (805.4: naming any player of a team begins the team's turn)."""
    if game.version < 2:
        return None
    return {
        "first": list(game.first_turn_players()),
        "first_draw": game.first_draw_rule,
        "next": game.next_turn_player(),
        "cast": game.spells_cast,
        "radiation": game.radiation(),
        "markers": "807.4" if game.has_several_turn_markers() else None,
        "shared": game.variant.shared_turns,
    }


def state_of(game: Game) -> dict[str, Any]:
    """The spec's state JSON of ``game``."""
    return state.state_dict(game, [])


def after(
    game: Game, before: dict[str, Any]
) -> tuple[dict[str, Any], frozenset[str] | None, frozenset[str] | None, bool]:
    """The state of ``game`` after the action just applied, ``before`` being the state before
    it, made from what the action touched (:attr:`Game.touched`) rather than from scratch:
    ``(state, players, teams, effects)``, where ``players`` and ``teams`` are the ones whose
    entries may differ (``None``: any) and ``effects`` whether the effects may have changed."""
    touched = game.touched
    if touched.everything:
        return state_of(game), None, None, True
    outcome = game.outcome()
    players = before["players"]
    if touched.players:
        players = [
            state.player_state(game, p["id"]) if p["id"] in touched.players else p for p in players
        ]
    teams = before["teams"]
    if touched.teams:
        teams = [state.team_state(game, t["id"]) if t["id"] in touched.teams else t for t in teams]
    triggered = before["triggered"]
    if triggered != game.triggered:
        triggered = dict(game.triggered)
    out = {
        **before,
        "game": outcome.game,
        "over": outcome.over,
        "players": players,
        "teams": teams,
        "triggered": triggered,
    }
    if game.version >= 2:  # the turn, the designations, the omens: small, made afresh each time
        out["turn"] = state.turn_state(game)
        out["designations"] = state.designations_state(game)
        out["omens"] = state.omens_state(game)
    return out, touched.players, touched.teams, touched.effects


def dump_checkpoint(game: Game, outcomes: list[Outcome]) -> bytes:
    """A game and the outcomes of the match's games before it, as bytes for the store: JSON
    data (:mod:`lifeledger.snapshot`), its first member :data:`CHECKPOINT_FORMAT` (only this
    build reads them back, and reading one builds nothing the data names: see
    :func:`load_checkpoint`)."""
    body = {
        "format": CHECKPOINT_FORMAT,
        "game": snapshot.to_data(game),
        "outcomes": [snapshot.outcome_to_data(o) for o in outcomes],
    }
    return json.dumps(body, separators=(",", ":")).encode()  # ASCII: any string is writable


def load_checkpoint(data: bytes) -> tuple[Game, list[Outcome]]:
    """What :func:`dump_checkpoint` made. Raises :class:`ValueError` for a checkpoint this
    build did not write (its format is checked before the rest is read), or of any other
    shape (the table then replays its log instead); reading one makes only the engine's own
    game, from data checked member by member."""
    if not data.startswith(_HEAD):
        raise ValueError("a checkpoint of another build")
    try:
        found = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"unreadable checkpoint ({type(exc).__name__}: {exc})") from None
    if type(found) is not dict or set(found) != {"format", "game", "outcomes"}:
        raise ValueError("a checkpoint of another shape")
    if found["format"] != CHECKPOINT_FORMAT:
        raise ValueError("a checkpoint of another build")
    outcomes = found["outcomes"]
    if type(outcomes) is not list:
        raise ValueError("a checkpoint of another shape (outcomes: not a list)")
    game = snapshot.from_data(found["game"])  # a SnapshotError is a ValueError
    return game, [snapshot.outcome_from_data(o, f"outcomes[{i}]") for i, o in enumerate(outcomes)]

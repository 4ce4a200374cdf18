"""Who at a table may send which action for whom, rule by rule (docs/table.md, "Who may do
what"): an effect may do things to any player, but nobody decides for another player what is
theirs to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lifeledger.describing import effect_words
from lifeledger.sentences import Sentence

from . import engine
from .errors import TableError

__all__ = ["Rights", "concessions"]

#: Actions that end the game for everyone: only an effect (its source) does, so only with a
#: source (what to name, the rule).
_ENDS_GAME: dict[type[engine.Action], tuple[Sentence, str]] = {
    engine.DrawGame: (Sentence("the card that says the game is a draw"), "104.4c"),
    engine.Loop: (Sentence("the cards whose abilities make the loop"), "104.4b"),
    engine.Restart: (Sentence("the card that restarts the game"), "727.1"),
}

#: Effects that can make their players win, or keep them in the game (every opponent's
#: loss, 104.2a): only with a source, whoever they are for (the rule).
_WINNING_EFFECTS = {
    engine.Kind.WIN_AT_UPKEEP: "104.2b",
    engine.Kind.WIN_AT_UPKEEP_WITH_1: "104.2b",
    engine.Kind.WIN_ON_EMPTY_DRAW: "104.2b",
    engine.Kind.CANT_LOSE_GAME: "104.3",
    engine.Kind.NO_LOSS_FOR_LIFE: "104.3",
    engine.Kind.LOSING_REPLACED: "104.3",
}
#: Effects that can make their players lose, or stop them winning: only with a source,
#: unless the sender's own (as a player's own loss is theirs, 104.3a).
_LOSING_EFFECTS = {engine.Kind.CANT_WIN_GAME: "104.2", engine.Kind.LOSE_AT_20_LIFE: "104.3e"}


def concessions(action: object) -> list[object]:
    """The players an action (JSON) concedes for (inside ``together`` groups too)."""
    if not isinstance(action, dict):
        return []
    if action.get("do") == "concede":
        return [action.get("player")]
    inner = action.get("actions")
    if not isinstance(inner, list):
        return []
    return [p for a in inner for p in concessions(a)]


class Rights:
    """The checks for one table: ``teams`` maps each player on a team to it, ``label`` names
    a player for a message."""

    def __init__(self, teams: Mapping[str, str], label: Callable[[str], str]) -> None:
        self.teams = teams
        self.label = label

    def _teammates(self, a: str, b: str) -> bool:
        return a in self.teams and self.teams.get(a) == self.teams.get(b)

    def check(
        self,
        action: engine.Action,
        seat: str,
        source: str | None = None,
        *,
        game: engine.Game | None = None,
    ) -> bool:
        """Whether the seat of player ``seat`` may send ``action`` (docs/table.md, "Who may do
        what"); raises :class:`TableError` if not. Returns true if the action holds an
        intentional draw, which every seated player in the game must agree to (104.4i).
        ``source``: the source of the group the action is part of; ``game``: the game it is
        for (whose cards' controllers make the choices for them). The turn tracker's actions
        (``turn``, ``step``, ``cast``, ``day_night``) are the table's shared record of the
        game's clock, which any seat keeps: the engine refuses what the rules forbid (103.1b,
        727.1a, 500.1)."""
        # A source names a card: text with a letter or a digit (not " ", not a lone joiner).
        named = action.source if action.source and any(c.isalnum() for c in action.source) else None
        source = named or source
        if isinstance(action, engine.Together | engine.Repeat):  # a group, or a shortcut
            agree = False
            for inner in action.actions:
                agree = self.check(inner, seat, source, game=game) or agree
            return agree
        if isinstance(action, engine.Choose):
            self._check_choose(action, seat, game)
        if isinstance(action, engine.Concede | engine.Penalty) and action.player != seat:
            concede = isinstance(action, engine.Concede)
            raise TableError(
                "not-your-seat",
                Sentence(
                    "Only {player} can concede for themselves.", player=self.label(action.player)
                )
                if concede
                else Sentence(
                    "Only {player} can record a judge's game loss.",
                    player=self.label(action.player),
                ),
                rule="104.3a" if concede else "104.3k",
            )
        if isinstance(action, engine.PayLife):
            payers = [player for player, _ in action.payments]
            if seat not in payers or not all(p == seat or self._teammates(p, seat) for p in payers):
                others = [p for p in payers if p != seat]
                raise TableError(
                    "not-your-seat",
                    Sentence(
                        "Only {player} can pay their own life.",
                        player=self.label(others[0] if others else payers[0]),
                    ),
                    rule="119.4",
                )
        if isinstance(action, engine.Win | engine.Lose) and source is None:
            # 104.2b: a win is every opponent's loss, so only an effect makes a player win,
            # even the sender; a player's own loss is theirs to record (104.3a).
            win = isinstance(action, engine.Win)
            players = [action.player] if isinstance(action, engine.Win) else list(action.losers)
            others = players if win else [p for p in players if p != seat]
            if others:
                raise TableError(
                    "not-your-seat",
                    Sentence(
                        "Name the card that says {player} wins the game (its source).",
                        player=self.label(others[0]),
                    )
                    if win
                    else Sentence(
                        "Name the card that says {player} loses the game (its source).",
                        player=self.label(others[0]),
                    ),
                    rule="104.2b" if win else "104.3e",
                )
        ends = _ENDS_GAME.get(type(action))
        if ends is not None and source is None:
            raise TableError(
                "not-your-seat", Sentence("Name {what} (its source).", what=ends[0]), rule=ends[1]
            )
        if isinstance(action, engine.StartEffect) and source is None:
            self._check_effect(action, seat)
        return isinstance(action, engine.IntentionalDraw)

    def _check_effect(self, action: engine.StartEffect, seat: str) -> None:
        """An effect that decides who wins or loses needs its source (the card), as ``win``
        and ``lose`` do; one that only makes the sender lose or unable to win is theirs."""
        rule = _WINNING_EFFECTS.get(action.kind)
        if rule is None:
            rule = _LOSING_EFFECTS.get(action.kind)
            own = action.affects is engine.Reach.YOU or (
                isinstance(action.affects, tuple) and set(action.affects) <= {seat}
            )
            if rule is None or (action.controller == seat and own):
                return
        raise TableError(
            "not-your-seat",
            Sentence(
                "Name the card whose effect this is (its source): an effect “{kind}” decides who"
                " wins or loses the game.",
                kind=effect_words(action.kind),
            ),
            rule=rule,
        )

    def _check_choose(self, action: engine.Choose, seat: str, game: engine.Game | None) -> None:
        """603.3b, 603.3d: the controller of triggered abilities chooses their order and
        targets (616.1: the affected player, the order of replacements), from their own seat
        (a table device holding it may); and a player chooses only for their own cards."""
        rule = "603.3d" if action.targets else "603.3b" if action.order else "616.1"
        if action.player != seat:
            raise TableError(
                "not-your-seat",
                Sentence(
                    "Only {player} makes {player}'s choices for their triggered abilities.",
                    player=self.label(action.player),
                ),
                rule=rule,
            )
        if game is None:
            return
        for effect_id in [*action.order, *(i for i, _ in action.targets)]:
            owner = engine.controller_of(game, effect_id)
            if owner is not None and owner != seat:
                raise TableError(
                    "not-your-seat",
                    Sentence(
                        "{card} is {player}'s: only {player} chooses for it.",
                        card=engine.card_of(game, effect_id),
                        player=self.label(owner),
                    ),
                    rule="603.3d" if effect_id in dict(action.targets) else "603.3b",
                )

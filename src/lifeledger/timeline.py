"""The timeline for people: each action, what it changed, and each consequence with its rule."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from .actions import (
    Action,
    AddCounters,
    Amount,
    BecomeMonarch,
    BeginStep,
    Cast,
    Choose,
    CityBlessing,
    Concede,
    Damage,
    DayNight,
    Draw,
    DrawGame,
    End,
    ExchangeLife,
    GainLife,
    IntentionalDraw,
    LifeOf,
    Loop,
    Lose,
    LoseLife,
    PayLife,
    Penalty,
    RedistributeLife,
    RemoveCounters,
    Repeat,
    Restart,
    SetLibrary,
    SetLife,
    SetLifeEach,
    StartCard,
    StartEffect,
    TakeInitiative,
    Together,
    Turn,
    Upkeep,
    Win,
)
from .effects import Reach
from .game import Game, Note
from .language import Language, language
from .outcome import Reason, Result, Status
from .record import Refusal, Step
from .sentences import N_, Arg, Grouped, Id, Items, Plural, Sentence

__all__ = ["Timeline", "describe", "escaped"]

#: What a terminal would act on rather than show: control characters (C0, DEL, C1: newlines,
#: ESC sequences), the line and paragraph separators, the bidirectional overrides, embeddings
#: and isolates (which reorder what a line shows), and lone surrogates (no characters at all).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _ESCAPES.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def escaped(text: str) -> str:
    """``text`` with every character a terminal would act on rather than show written as an
    escape (``\\n``, ``\\x1b``, ``\\u202e``), so that a string from a record prints as what it
    is, on one line: no source or id can forge a line of the timeline or colour it."""
    return text if text.isprintable() else _UNSAFE.sub(_escape, text)


#: The words of a counter's kind a player may have (122.1): translated; any other kind is
#: shown as the record names it.
_KIND_WORDS: dict[str, Sentence] = {
    "poison": Sentence("poison"),
    "energy": Sentence("energy"),
    "experience": Sentence("experience"),
    "rad": Sentence("rad"),
    "ticket": Sentence("ticket"),
}


def _kind(kind: str) -> Arg:
    """A counter's kind, in words: ``poison``."""
    return _KIND_WORDS.get(kind, kind)


def _life_total(value: LifeOf) -> Sentence:
    """``half of ana's life total (rounded up)``: an amount computed from a life total."""
    player = Id(value.player)
    match value.fraction:
        case (1, 1):
            text = Sentence("{player}'s life total", player=player)
        case (1, 2):
            text = Sentence("half {player}'s life total", player=player)
        case (2, 1):
            text = Sentence("twice {player}'s life total", player=player)
        case (1, 3):
            text = Sentence("a third of {player}'s life total", player=player)
        case (1, 4):
            text = Sentence("a quarter of {player}'s life total", player=player)
        case (numerator, denominator):
            text = Sentence(
                "{numerator}/{denominator} of {player}'s life total",
                numerator=numerator,
                denominator=denominator,
                player=player,
            )
    if value.round == "up":
        return Sentence("{amount} (rounded up)", amount=text)
    if value.round == "down":
        return Sentence("{amount} (rounded down)", amount=text)
    return text


def _counters(value: LifeOf, kind: str) -> Sentence:
    """An expression's ``poison counters equal to ...``."""
    return Sentence(
        "{kind} counters equal to {amount}", kind=_kind(kind), amount=_life_total(value)
    )


def _by(action: Action, what: Arg) -> Sentence:
    """``what``, after the action's source where it names one: ``Sanguine Bond: ...``."""
    if action.source:
        return Sentence("{source}: {what}", source=action.source, what=what)
    return what if isinstance(what, Sentence) else Sentence("{what}", what=what)


def _joined(template: str, parts: list[Arg]) -> Arg:
    """``parts`` joined two at a time by ``template`` (``"{first}; {second}"``)."""
    out = parts[0]
    for part in parts[1:]:
        out = Sentence._make(template, None, None, {"first": out, "second": part})
    return out


#: How the parts of a sentence are joined: ``a; b``, and alternatives: ``ana or bo``.
_SEMICOLON = N_("{first}; {second}")
_OR = N_("{first} or {second}")


def _loses(action: LoseLife) -> Sentence:
    player, amount = Id(action.player), action.amount
    if isinstance(amount, LifeOf):
        said = Sentence("{player} loses {amount}", player=player, amount=_life_total(amount))
    else:
        said = Plural(
            "{player} loses {n} life", "{player} loses {n} life", "n", player=player, n=amount
        )
    return _by(action, said)


def _gains(action: GainLife) -> Sentence:
    player, amount = Id(action.player), action.amount
    if isinstance(amount, LifeOf):
        said = Sentence("{player} gains {amount}", player=player, amount=_life_total(amount))
    else:
        said = Plural(
            "{player} gains {n} life", "{player} gains {n} life", "n", player=player, n=amount
        )
    return _by(action, said)


def _gets(action: AddCounters) -> Sentence:
    player, amount = Id(action.player), action.amount
    if isinstance(amount, LifeOf):
        said = Sentence(
            "{player} gets {amount}", player=player, amount=_counters(amount, action.kind)
        )
    else:
        said = Plural(
            "{player} gets {n} {kind} counter",
            "{player} gets {n} {kind} counters",
            "n",
            player=player,
            n=amount,
            kind=_kind(action.kind),
        )
    return _by(action, said)


def _loses_counters(action: RemoveCounters) -> Sentence:
    player, amount = Id(action.player), action.amount
    if isinstance(amount, LifeOf):
        said = Sentence(
            "{player} loses {amount}", player=player, amount=_counters(amount, action.kind)
        )
    else:
        said = Plural(
            "{player} loses {n} {kind} counter",
            "{player} loses {n} {kind} counters",
            "n",
            player=player,
            n=amount,
            kind=_kind(action.kind),
        )
    return _by(action, said)


#: The sentences of the usual actions, made without the general match.
_SENTENCES: dict[type[Action], Callable[[Any], Sentence]] = {
    LoseLife: _loses,
    GainLife: _gains,
    AddCounters: _gets,
    RemoveCounters: _loses_counters,
}


def _english_amount(verb: str) -> Callable[[Any], str | None]:
    def said(action: Any) -> str | None:
        amount = action.amount
        if type(amount) is not int:
            return None
        by = f"{action.source}: " if action.source else ""
        return f"{by}{action.player} {verb} {amount} life"

    return said


def _english_counters(verb: str) -> Callable[[Any], str | None]:
    def said(action: Any) -> str | None:
        amount = action.amount
        if type(amount) is not int:
            return None
        by = f"{action.source}: " if action.source else ""
        counters = "counter" if amount == 1 else "counters"
        return f"{by}{action.player} {verb} {amount} {action.kind} {counters}"

    return said


def _english_damage(action: Damage) -> str | None:
    amount = action.amount
    if type(amount) is not int or action.infect or action.lifelink or action.toxic:
        return None
    by = f"{action.source}: " if action.source else ""
    combat = " (combat)" if action.combat else ""
    return f"{by}{amount} damage to {action.to}{combat}"


#: The English of the most usual actions, written at once (a timeline in English writes every
#: action's sentence: :meth:`Timeline._describe`), the same words as :func:`describe`'s
#: (``tests/test_italian.py`` checks it); ``None`` where :func:`describe` is needed.
_ENGLISH_AT_ONCE: dict[type[Action], Callable[[Any], str | None]] = {
    LoseLife: _english_amount("loses"),
    GainLife: _english_amount("gains"),
    AddCounters: _english_counters("gets"),
    RemoveCounters: _english_counters("loses"),
    Damage: _english_damage,
}


def english(action: Action) -> str:
    """:func:`describe`'s English text of ``action`` (a plain string: made at once for the
    most usual actions)."""
    fast = _ENGLISH_AT_ONCE.get(type(action))
    said = None if fast is None else fast(action)
    return describe(action) if said is None else said


def describe(action: Action) -> str:
    """A sentence for one action, as a person would say it (a
    :class:`~lifeledger.sentences.Sentence`: the English text, translated by
    :meth:`lifeledger.language.Language.text`)."""
    sentence = _SENTENCES.get(type(action))
    return _describe(action) if sentence is None else sentence(action)


def _pays(player: str, amount: Amount) -> Sentence:
    if isinstance(amount, LifeOf):
        return Sentence("{player} pays {amount}", player=Id(player), amount=_life_total(amount))
    return Plural(
        "{player} pays {n} life", "{player} pays {n} life", "n", player=Id(player), n=amount
    )


def _total(player: str, amount: Amount) -> Sentence:
    """``ana 20``: a player's total in a list."""
    what: Arg = _life_total(amount) if isinstance(amount, LifeOf) else amount
    return Sentence("{player} {amount}", player=Id(player), amount=what)


#: Whom an effect affects, relative to its controller.
_REACH_WORDS = {
    Reach.YOU: Sentence("you"),
    Reach.OPPONENTS: Sentence("opponents"),
    Reach.PLAYERS: Sentence("players"),
}

#: The steps a ``step`` action begins, as they begin.
_STEP_BEGINS = {
    "draw": Sentence("the draw step begins"),
    "main": Sentence("the precombat main phase begins"),
    "end": Sentence("the end step begins"),
    "cleanup": Sentence("the cleanup step begins"),
}

#: What a damage's source has, among the ones that change what it does.
_DAMAGE_WORDS = {
    "combat": Sentence("combat"),
    "infect": Sentence("infect"),
    "lifelink": Sentence("lifelink"),
}


def _damage(action: Damage) -> Sentence:
    amount, to = action.amount, Id(action.to)
    if isinstance(amount, LifeOf):
        said = Sentence(
            "damage equal to {amount} to {player}", amount=_life_total(amount), player=to
        )
    else:
        said = Plural("{n} damage to {player}", "{n} damage to {player}", "n", n=amount, player=to)
    kinds = [_DAMAGE_WORDS[k] for k in ("combat", "infect", "lifelink") if getattr(action, k)]
    if kinds:
        said = Sentence("{what} ({kinds})", what=said, kinds=Items(kinds, ","))
    if action.toxic:
        said = Sentence("{what}, toxic {n}", what=said, n=action.toxic)
    return _by(action, said)


def _choices(action: Choose) -> Sentence:
    parts: list[Arg] = []
    if action.order:
        parts.append(
            Sentence("puts {ids} on the stack in that order", ids=Items(list(action.order), ","))
        )
    for i, targets in action.targets:
        players = _joined(_OR, [Id(t) for t in targets])
        parts.append(Sentence("targets {players} with {id}", players=players, id=i))
    chosen = _joined(_SEMICOLON, parts) if parts else Sentence("nothing")
    return Sentence(
        "{player} chooses: {choices} (603.3b, 603.3d)", player=Id(action.player), choices=chosen
    )


def _describe(action: Action) -> str:
    match action:
        case Damage():
            return _damage(action)
        case LoseLife():
            return _loses(action)
        case GainLife():
            return _gains(action)
        case PayLife():
            return _by(action, Items([_pays(p, a) for p, a in action.payments], ","))
        case SetLife():
            to: Arg = _life_total(action.to) if isinstance(action.to, LifeOf) else action.to
            return _by(
                action,
                Sentence(
                    "{player}'s life total becomes {amount}", player=Id(action.player), amount=to
                ),
            )
        case SetLifeEach():
            each = Items([_total(p, t) for p, t in action.each], ",")
            return _by(action, Sentence("life totals become: {totals}", totals=each))
        case ExchangeLife():
            return _by(
                action,
                Sentence("{a} and {b} exchange life totals", a=Id(action.a), b=Id(action.b)),
            )
        case RedistributeLife():
            totals = Items([_total(p, t) for p, t in action.totals], ",")
            return _by(action, Sentence("life totals are redistributed: {totals}", totals=totals))
        case AddCounters():
            return _gets(action)
        case RemoveCounters():
            return _loses_counters(action)
        case Draw():
            return _by(
                action,
                Plural(
                    "{player} draws {n} card",
                    "{player} draws {n} cards",
                    "n",
                    player=Id(action.player),
                    n=action.count,
                ),
            )
        case Concede():
            return Sentence("{player} concedes", player=Id(action.player))
        case Win():
            return _by(
                action,
                Sentence("{player} wins the game, says an effect", player=Id(action.player)),
            )
        case Lose():
            return _by(
                action,
                Plural(
                    "{players} lose the game, says an effect",
                    "{players} lose the game, says an effect",
                    "n",
                    players=Items([Id(p) for p in action.losers], ","),
                    n=len(action.losers),
                ),
            )
        case DrawGame():
            return _by(action, Sentence("the game is a draw, says an effect"))
        case Loop():
            return Sentence(
                "the game is in a loop of mandatory actions ({players})",
                players=Items([Id(p) for p in action.controllers], ","),
            )
        case IntentionalDraw():
            return Sentence("the players agree to an intentional draw")
        case Penalty():
            return Sentence("a judge gives {player} a game loss", player=Id(action.player))
        case Restart():
            return _by(action, Sentence("the game restarts"))
        case StartEffect():
            affects = action.affects
            whom: Arg = (
                _REACH_WORDS[affects]
                if isinstance(affects, Reach)
                else Items([Id(p) for p in affects], ",")
            )
            args: dict[str, Arg] = {
                "id": action.id,
                "kind": action.kind.value,
                "whom": whom,
                "player": Id(action.controller),
            }
            if action.until == "end_of_turn":
                return Sentence(
                    "{id}: {kind} ({whom}), controlled by {player} until end of turn", **args
                )
            return Sentence("{id}: {kind} ({whom}), controlled by {player}", **args)
        case StartCard():
            return Sentence(
                "{card} ({id}) enters under {player}'s control",
                card=action.name,
                id=action.id,
                player=Id(action.controller),
            )
        case End():
            return Sentence("{id} stops applying", id=action.id)
        case Upkeep():
            return Sentence("{player}'s upkeep begins", player=Id(action.player))
        case Turn():
            return Sentence("{player}'s turn begins", player=Id(action.player))
        case BeginStep():
            begins = _STEP_BEGINS[action.step]
            if not action.nonland_milled:
                return begins
            milled = [
                Sentence("{player} {n} nonland", player=Id(p), n=n)
                for p, n in action.nonland_milled
            ]
            return Sentence("{what} ({milled})", what=begins, milled=Items(milled, ","))
        case Cast():
            return Plural(
                "{player} casts {n} spell",
                "{player} casts {n} spells",
                "n",
                player=Id(action.player),
                n=action.count,
            )
        case BecomeMonarch():
            return _by(action, Sentence("{player} becomes the monarch", player=Id(action.player)))
        case TakeInitiative():
            return _by(action, Sentence("{player} takes the initiative", player=Id(action.player)))
        case CityBlessing():
            return _by(
                action, Sentence("{player} gets the city's blessing", player=Id(action.player))
            )
        case DayNight():
            if action.to == "day":
                return _by(action, Sentence("it becomes day"))
            return _by(action, Sentence("it becomes night"))
        case SetLibrary():
            return _by(
                action,
                Plural(
                    "{player}'s library has {n} card",
                    "{player}'s library has {n} cards",
                    "n",
                    player=Id(action.player),
                    n=action.count,
                ),
            )
        case Together():
            return _by(action, Sentence("together, as one event:"))
        case Choose():
            return _choices(action)
        case Repeat():
            inner = _joined(_SEMICOLON, [describe(a) for a in action.actions])
            return _by(
                action,
                Plural(
                    "a shortcut, {n} times: {actions} (732.2a)",
                    "a shortcut, {n} times: {actions} (732.2a)",
                    "n",
                    n=Grouped(action.times),
                    actions=inner,
                ),
            )
    return action.do


#: The steps of a turn, as the timeline's ``step`` line names them.
_STEP_WORDS = {
    "upkeep": Sentence("upkeep"),
    "draw": Sentence("draw"),
    "main": Sentence("main"),
    "end": Sentence("end"),
    "cleanup": Sentence("cleanup"),
}
_DAY_NIGHT_WORDS = {"day": Sentence("day"), "night": Sentence("night")}

#: The names of the timeline's lines of the game itself (version 2).
_TURN = Sentence("turn")
_STEP = Sentence("step")
_MONARCH = Sentence("monarch")
_INITIATIVE = Sentence("initiative")
_DAY_NIGHT = Sentence("day/night")
_CITY_BLESSING = Sentence("city's blessing")
#: What a line of the game shows once it is gone.
_NONE = Sentence("none")


def _game_lines(game: Game) -> dict[str, Any]:
    """Version 2: the timeline's lines of the game itself: the turn and the designations."""
    lines: dict[str, Any] = {}
    if game.turn_number:
        whose = Id(game.active_players[0] if game.active_team is None else game.active_team)
        lines[_TURN] = Sentence("{n} ({whose})", n=game.turn_number, whose=whose)
        step = game.current_step
        lines[_STEP] = None if step is None else _STEP_WORDS.get(step, step)
    if game.monarch is not None:
        lines[_MONARCH] = Id(game.monarch)
    if game.initiative is not None:
        lines[_INITIATIVE] = Id(game.initiative)
    if game.day_or_night is not None:
        lines[_DAY_NIGHT] = _DAY_NIGHT_WORDS.get(game.day_or_night, game.day_or_night)
    if game.city_blessed:
        lines[_CITY_BLESSING] = Items([Id(p) for p in game.city_blessed], ",")
    return lines


_STATUS_WORDS = {
    Status.WON: Sentence("WON"),
    Status.LOST: Sentence("LOST"),
    Status.DREW: Sentence("DREW"),
}
_REASON_WORDS = {
    Reason.LIFE: Sentence("life"),
    Reason.TEAM_LIFE: Sentence("team-life"),
    Reason.POISON: Sentence("poison"),
    Reason.TEAM_POISON: Sentence("team-poison"),
    Reason.EMPTY_LIBRARY: Sentence("empty-library"),
    Reason.COMMANDER_DAMAGE: Sentence("commander-damage"),
    Reason.CONCEDED: Sentence("conceded"),
    Reason.EFFECT: Sentence("effect"),
    Reason.PENALTY: Sentence("penalty"),
    Reason.TEAMMATE: Sentence("teammate"),
    Reason.EMPEROR: Sentence("emperor"),
    Reason.OPPONENT_WON: Sentence("opponent-won"),
    Reason.LAST_STANDING: Sentence("last-standing"),
    Reason.TEAM: Sentence("team"),
    Reason.SIMULTANEOUS_LOSS: Sentence("simultaneous-loss"),
    Reason.LOOP: Sentence("loop"),
    Reason.INTENTIONAL: Sentence("intentional"),
}
_PLAYING = Sentence("playing")


@lru_cache(maxsize=1024)
def _standing(result: Result) -> Sentence:
    if result.status is Status.PLAYING:
        return _PLAYING
    return Sentence(
        "{status} ({reason}, {rule})",
        status=_STATUS_WORDS[result.status],
        reason=""
        if result.reason is None
        else _REASON_WORDS.get(result.reason, result.reason.value),
        rule=str(result.rule),
    )


#: What the timeline shows of a team: its shared life and poison (``None``: not shared).
_TeamValues = tuple[int | None, int | None]
#: ... and of a player: life and poison where not shared (else ``None``), counters, commander
#: damage, library, standing.
_PlayerValues = tuple[int | None, int | None, dict[str, int], dict[str, int], int | None, Result]
_Line = tuple[str, Any, Any]

#: Counter kinds whose line is written as one of the player's other lines ("ana life"): a
#: player with one of them is compared line by line, as a mapping.
_LINE_NAMES = frozenset({"life", "poison", "library", "is"})


# The names of the lines, each a sentence equal to its English text ("ana life"), made once.
@lru_cache(maxsize=4096)
def _team_life(tid: str) -> Sentence:
    return Sentence("team {team} life", team=Id(tid))


@lru_cache(maxsize=4096)
def _team_poison(tid: str) -> Sentence:
    return Sentence("team {team} poison", team=Id(tid))


@lru_cache(maxsize=4096)
def _life_line(pid: str) -> Sentence:
    return Sentence("{player} life", player=Id(pid))


@lru_cache(maxsize=4096)
def _poison_line(pid: str) -> Sentence:
    return Sentence("{player} poison", player=Id(pid))


@lru_cache(maxsize=4096)
def _counter_line(pid: str, kind: str) -> Sentence:
    return Sentence("{player} {kind}", player=Id(pid), kind=_kind(kind))


@lru_cache(maxsize=4096)
def _damage_line(pid: str, commander: str) -> Sentence:
    return Sentence("{player} damage from {commander}", player=Id(pid), commander=Id(commander))


@lru_cache(maxsize=4096)
def _library_line(pid: str) -> Sentence:
    return Sentence("{player} library", player=Id(pid))


@lru_cache(maxsize=4096)
def _standing_line(pid: str) -> Sentence:
    return Sentence("{player} is", player=Id(pid))


def _team_lines(tid: str, values: _TeamValues) -> dict[str, Any]:
    """A team's lines of the timeline: its shared totals (810.9a, 810.10a)."""
    life, poison = values
    lines: dict[str, Any] = {}
    if life is not None:
        lines[_team_life(tid)] = life
    if poison is not None:
        lines[_team_poison(tid)] = poison
    return lines


def _player_lines(pid: str, values: _PlayerValues) -> dict[str, Any]:
    """A player's lines of the timeline: the totals that are theirs alone, counters, commander
    damage, library and standing."""
    life, poison, counters, damage, library, result = values
    lines: dict[str, Any] = {}
    if life is not None:
        lines[_life_line(pid)] = life
    if poison is not None:
        lines[_poison_line(pid)] = poison
    for kind, count in counters.items():
        lines[_counter_line(pid, kind)] = count
    for commander, dealt in damage.items():
        lines[_damage_line(pid, commander)] = dealt
    if library is not None:
        lines[_library_line(pid)] = library
    lines[_standing_line(pid)] = _standing(result)
    return lines


def _compare(out: list[_Line], before: dict[str, Any], after: dict[str, Any]) -> None:
    """The lines of ``after`` that differ from ``before``, in order."""
    for line, value in after.items():
        old = before.get(line)
        if old != value:
            out.append((line, old, value))


_NO_COUNTS: dict[str, int] = {}


class _Facts:
    """What the timeline shows of each team and player, kept between steps and brought up to
    date from what each action touched (:attr:`lifeledger.Game.touched`), never rebuilt and
    compared whole: an action costs the same in a game of any length or size."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.refresh_all()

    def refresh_all(self) -> None:
        game = self.game
        teams = game.teams
        shared_life = {t.id for t in teams if t.life is not None}
        shared_poison = {pid for t in teams if t.poison is not None for pid in t.players}
        self.own_life = {p.id: p.team is None or p.team not in shared_life for p in game.players}
        self.own_poison = {p.id: p.id not in shared_poison for p in game.players}
        # Dicts keep the seating order: the timeline prints teams, then players, in it.
        self.teams: dict[str, _TeamValues] = {t.id: (t.life, t.poison) for t in teams}
        # Kept as lists brought up to date in place: _values, and whether a counter's kind is
        # the name of another line (_LINE_NAMES).
        self.players: dict[str, list[Any]] = {}
        for p in game.players:
            values = self._values(p.id)
            self.players[p.id] = [*values, not _LINE_NAMES.isdisjoint(values[2])]
        self.team_order = {tid: i for i, tid in enumerate(self.teams)}
        self.player_order = {pid: i for i, pid in enumerate(self.players)}

    def _values(self, pid: str) -> _PlayerValues:
        p = self.game._players[pid]  # the engine's own player: read without views, at no cost
        counters, damage = p.counters, p.commander_damage
        return (
            p.life.value if self.own_life[pid] else None,
            p.poison.value if self.own_poison[pid] else None,
            dict(counters) if counters else _NO_COUNTS,
            dict(damage) if damage else _NO_COUNTS,
            p.library,
            p.result,
        )

    def changed(self) -> list[_Line]:
        """``(line, before, after)`` for each line that the last action changed, in order."""
        game = self.game
        players, other = game._touched, game._touched_other  # Game.touched, without copies
        out: list[_Line] = []
        if other:
            touched = game.touched
            if touched.everything:
                return self._everything()
            teams = self.teams
            for tid in sorted(touched.teams, key=self.team_order.__getitem__):
                team = game.team(tid)
                values = (team.life, team.poison)
                if values != teams[tid]:
                    _compare(out, _team_lines(tid, teams[tid]), _team_lines(tid, values))
                    teams[tid] = values
        if len(players) == 1:
            for pid in players:
                self._player_changed(out, pid)
        elif players:
            for pid in sorted(players, key=self.player_order.__getitem__):
                self._player_changed(out, pid)
        return out

    def _player_changed(self, out: list[_Line], pid: str) -> None:
        kept = self.players[pid]
        p = self.game._players[pid]  # the engine's own player (see _values), read field by field
        counters, counters0 = p.counters, kept[2]
        recount = counters != counters0
        if kept[6] or (recount and not _LINE_NAMES.isdisjoint(counters)):
            new = self._values(pid)
            _compare(out, _player_lines(pid, tuple(kept[:6])), _player_lines(pid, new))
            kept[:] = [*new, not _LINE_NAMES.isdisjoint(new[2])]
            return
        # Line by line, in the order of _player_lines, without making the lines that stay.
        was = kept[0]
        if was is not None:  # None: shared (which stays so until a restart, see changed)
            life = p.life.value
            if life != was:
                out.append((_life_line(pid), was, life))
                kept[0] = life
        was = kept[1]
        if was is not None:
            poison = p.poison.value
            if poison != was:
                out.append((_poison_line(pid), was, poison))
                kept[1] = poison
        if recount:
            for kind, count in counters.items():
                was = counters0.get(kind)
                if was != count:
                    out.append((_counter_line(pid, kind), was, count))
            kept[2] = dict(counters)
        damage, damage0 = p.commander_damage, kept[3]
        if damage != damage0:
            for commander, dealt in damage.items():
                was = damage0.get(commander)
                if was != dealt:
                    out.append((_damage_line(pid, commander), was, dealt))
            kept[3] = dict(damage)
        library = p.library
        if library != kept[4]:
            if library is not None:
                out.append((_library_line(pid), kept[4], library))
            kept[4] = library
        result, result0 = p.result, kept[5]
        if result is not result0:
            kept[5] = result
            standing0, standing = _standing(result0), _standing(result)
            if standing != standing0:
                out.append((_standing_line(pid), standing0, standing))

    def _everything(self) -> list[_Line]:
        before = self.lines()
        self.refresh_all()
        out: list[_Line] = []
        _compare(out, before, self.lines())
        return out

    def lines(self) -> dict[str, Any]:
        """Every line the timeline shows, as one mapping (see :class:`Timeline`)."""
        lines: dict[str, Any] = {}
        for tid, team in self.teams.items():
            lines.update(_team_lines(tid, team))
        for pid, values in self.players.items():
            lines.update(_player_lines(pid, tuple(values[:6])))
        return lines


#: How many actions' sentences a timeline keeps (see :meth:`Timeline._plain`).
_SENTENCES_KEPT = 4096


#: The variants and formats, as the header names them.
_VARIANT_WORDS = {
    "two-player": Sentence("two-player"),
    "free-for-all": Sentence("free-for-all"),
    "grand-melee": Sentence("grand-melee"),
    "team-vs-team": Sentence("team-vs-team"),
    "two-headed-giant": Sentence("two-headed-giant"),
    "emperor": Sentence("emperor"),
    "alternating-teams": Sentence("alternating-teams"),
    "archenemy": Sentence("archenemy"),
    "supervillain-rumble": Sentence("supervillain-rumble"),
}
_FORMAT_WORDS = {
    "normal": Sentence("normal"),
    "commander": Sentence("commander"),
    "brawl": Sentence("brawl"),
    "vanguard": Sentence("vanguard"),
    "planechase": Sentence("planechase"),
}


class Timeline:
    """Prints each step of a replay for a person; ``colour`` adds ANSI colours. Its words are
    those of ``language`` (:func:`lifeledger.language.language`; English by default): the
    lines' names, the actions' sentences, the game's notes and refusals (as far as the
    engine's sentences are translated), and numbers as the language writes them."""

    def __init__(
        self,
        game: Game,
        write: Callable[[str], None],
        *,
        colour: bool = False,
        language: Language | None = None,
    ):
        self.game = game
        self.write = write
        self.colour = colour
        self.language = _ENGLISH if language is None else language
        self._english = self.language.code == "en"
        self._facts = _Facts(game)
        self._sentences: dict[int, tuple[Action, str]] = {}
        # A player named "team" could write the same line as a team ("team x life"): such a
        # game is compared whole after each action, as one mapping of lines.
        self._whole = any(p.id == "team" for p in game.players) and bool(game.teams)
        self._before = self._facts.lines() if self._whole else {}
        self._changed = self._whole_changes if self._whole else self._facts.changed
        #: Version 2: the lines of the turn and the designations, compared after each step.
        self._game_lines = _game_lines(game) if game.version >= 2 else None

    def _text(self, value: object) -> str:
        """``value`` in the timeline's language: a sentence translated, a number written as
        the language writes numbers, anything else (an id, a name) as it is."""
        if isinstance(value, Sentence):
            return self.language.text(value)
        if isinstance(value, Items):
            return self.language.text(Sentence("{what}", what=value))
        if isinstance(value, int) and not isinstance(value, bool):
            return self.language.number(value)
        return str(value)

    def _describe(self, action: Action) -> str:
        """The action's sentence in the timeline's language, escaped."""
        if self._english:
            return escaped(english(action))
        return escaped(self._text(describe(action)))

    def _paint(self, text: str, code: str) -> str:
        """``text`` (escaped: it holds strings from the record) in colour ``code``."""
        text = escaped(text)
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def header(self) -> None:
        """The players and their starting totals."""
        game = self.game
        variant, fmt = game.variant.name, game.format.name
        title = Sentence(
            "{variant}, {format}: ",
            variant=_VARIANT_WORDS.get(variant, variant),
            format=_FORMAT_WORDS.get(fmt, fmt),
        )
        players = Items(
            [
                Sentence("{player} ({team}) {life}", player=Id(p.id), team=Id(p.team), life=p.life)
                if p.team
                else Sentence("{player} {life}", player=Id(p.id), life=p.life)
                for p in game.players
            ],
            ",",
        )
        self.write(self._paint(self._text(title), "1") + escaped(self._text(players)))

    def _changes(self) -> list[_Line]:
        if not self._whole:
            return self._facts.changed()
        return self._whole_changes()

    def _whole_changes(self) -> list[_Line]:
        self._facts.refresh_all()
        after = self._facts.lines()
        before, self._before = self._before, after
        out: list[_Line] = []
        _compare(out, before, after)
        return out

    def __call__(self, step: Step) -> None:
        """Print one step."""
        self._show(step.position, step.action, step.refusal, step.notes)

    def _refused(self, refusal: Refusal) -> str:
        said = Sentence("refused: {message} ({rule})", message=refusal.message, rule=refusal.rule)
        return f"      {self._text(said)}"

    def _note(self, note: Note) -> str:
        return f"      {self._text(note.text)} ({note.rule})"

    def _change(self, key: Any, old: Any, value: Any) -> str:
        """One changed line, ``name: before -> after``, in the timeline's language."""
        text = self._text
        if old is None:
            return f"      {text(key)}: {text(value)}"
        return f"      {text(key)}: {text(old)} -> {text(value)}"

    def _show(
        self, position: str, action: Action, refusal: Refusal | None, notes: Iterable[Note]
    ) -> None:
        """Print one step, given as its parts."""
        if not self.colour:
            self._plain(position, action, refusal, notes)
            return
        write, paint = self.write, self._paint
        write(f"{paint(position.rjust(4), '2')}  {self._describe(action)}")
        if isinstance(action, Together):
            self._inner(action, position)
        if refusal is not None:
            write(paint(self._refused(refusal), "33"))
            return
        for key, old, value in self._changes() + self._game_changes():
            colour = "31" if "LOST" in str(value) else "32" if "WON" in str(value) else "36"
            write(paint(self._change(key, old, value), colour))
        for note in notes:
            write(paint(self._note(note), "35"))

    def _plain(
        self, position: str, action: Action, refusal: Refusal | None, notes: Iterable[Note]
    ) -> None:
        """:meth:`_show` without colours (the same lines, made in fewer steps)."""
        write = self.write
        # A replay applies the action of a line seen before again (lifeledger.record's
        # LINE_CACHE): its sentence is kept with it, the action held so that its id stays its.
        kept = self._sentences.get(id(action))
        if kept is None:
            sentence = self._describe(action)
            if len(self._sentences) >= _SENTENCES_KEPT:
                self._sentences.clear()
            self._sentences[id(action)] = (action, sentence)
        else:
            sentence = kept[1]
        # A position is digits and dots: nothing in it to escape.
        write(f"{position.rjust(4)}  {sentence}")
        if isinstance(action, Together):
            self._inner(action, position)
        if refusal is not None:
            write(escaped(self._refused(refusal)))
            return
        game = self.game
        touched = game._touched  # Game.touched, without copies
        if len(touched) == 1 and not game._touched_other and not self._whole:
            changes: list[_Line] = []  # the usual action: one player's lines (see changed)
            for pid in touched:
                self._facts._player_changed(changes, pid)
        else:
            changes = self._changed()
        if self._game_lines is not None:
            changes += self._game_changes()
        if self._english:
            for key, old, value in changes:
                line = f"      {key}: {value}" if old is None else f"      {key}: {old} -> {value}"
                write(line if line.isprintable() else escaped(line))
        else:
            for key, old, value in changes:
                write(escaped(self._change(key, old, value)))
        for note in notes:
            write(escaped(self._note(note)))

    def _game_changes(self) -> list[_Line]:
        """Version 2: the lines of the turn and the designations that the step changed (a line
        gone is shown as ``none``)."""
        before = self._game_lines
        if before is None:
            return []
        after = self._game_lines = _game_lines(self.game)
        out: list[_Line] = []
        _compare(out, before, after)
        out.extend((line, old, _NONE) for line, old in before.items() if line not in after)
        return out

    def _inner(self, group: Together, position: str) -> None:
        for i, action in enumerate(group.actions):
            where = f"{position}.{i}"
            self.write(f"      {self._paint(where, '2')}  {self._describe(action)}")
            if isinstance(action, Together):
                self._inner(action, where)

    def footer(self) -> None:
        """The result."""
        outcome = self.game.outcome()
        if outcome.over:
            said = Sentence("game {n} is over", n=outcome.game)
        else:
            said = Sentence("game {n} goes on", n=outcome.game)
        self.write(self._paint(self._text(said), "1"))


_ENGLISH = language("en")

"""The actions described for people: a sentence for each kind of action (:func:`describe`, a
:class:`~lifeledger.sentences.Sentence` that a :class:`~lifeledger.language.Language`
translates), and the English of the most usual actions written at once (:func:`english`)."""

from __future__ import annotations

from collections.abc import Callable
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
from .effects import INSTANTS, Kind, Reach
from .sentences import N_, Arg, Grouped, Id, Items, Plural, Sentence

__all__ = ["describe", "effect_words", "english"]

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

#: What each kind of continuous effect does, in words (the record's identifiers, such as
#: ``cant_gain_life``, are never printed in a sentence).
_EFFECT_WORDS: dict[Kind, Sentence] = {
    Kind.CANT_GAIN_LIFE: Sentence("can't gain life"),
    Kind.CANT_LOSE_LIFE: Sentence("can't lose life"),
    Kind.LIFE_TOTAL_CANT_CHANGE: Sentence("life total can't change"),
    Kind.CANT_LOSE_GAME: Sentence("can't lose the game"),
    Kind.CANT_WIN_GAME: Sentence("can't win the game"),
    Kind.NO_LOSS_FOR_LIFE: Sentence("doesn't lose the game for having 0 or less life"),
    Kind.CANT_GET_POISON: Sentence("can't get poison counters"),
    Kind.GAIN_LIFE_TIMES: Sentence("life gained is multiplied"),
    Kind.GAIN_BECOMES_LOSS: Sentence("life that would be gained is lost instead"),
    Kind.ON_GAIN_LIFE: Sentence("triggers whenever life is gained"),
    Kind.ON_LOSE_LIFE: Sentence("triggers whenever life is lost"),
    Kind.WIN_AT_UPKEEP: Sentence("wins at the beginning of the upkeep with enough life"),
    Kind.WIN_ON_EMPTY_DRAW: Sentence("wins on drawing from an empty library"),
    Kind.INFECT_AT_OR_BELOW_ZERO: Sentence(
        "at 0 or less life, damage is dealt as though its source had infect"
    ),
    Kind.GAIN_DRAINS_TARGET: Sentence(
        "whenever life is gained, target opponent loses that much life"
    ),
    Kind.GAIN_DRAINS_EACH: Sentence("whenever life is gained, each opponent loses 1 life"),
    Kind.OPPONENT_LOSS_GAINS: Sentence("whenever an opponent loses life, gains that much life"),
    Kind.DAMAGE_FLOOR_ONE: Sentence("damage can't reduce the life total below 1"),
    Kind.WIN_AT_UPKEEP_WITH_1: Sentence("wins at the beginning of the upkeep with exactly 1 life"),
    Kind.LOSING_REPLACED: Sentence("losing the game is replaced"),
    Kind.LOSS_GAINS_TWICE: Sentence("whenever life is lost, gains twice that much life"),
    Kind.LOSE_AT_20_LIFE: Sentence("loses the game with 20 or more life"),
    Kind.OMEN_COUNTDOWN: Sentence("removes an omen counter at the beginning of the upkeep"),
    Kind.LAST_OMEN: Sentence("triggers when the last omen counter is removed"),
}


def effect_words(kind: Kind) -> Sentence:
    """What a continuous effect of ``kind`` does, in words: ``can't gain life``."""
    return _EFFECT_WORDS[kind]


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
    """What a ``choose`` states, each part with its rule: the order of triggered abilities
    (603.3b), targets (603.3d), the order of replacement effects (616.1)."""
    parts: list[Arg] = []
    rules: list[str] = []
    if action.order:
        parts.append(
            Sentence(
                "puts {ids} on the stack in that order",
                ids=Items([Id(i) for i in action.order], ","),
            )
        )
        rules.append("603.3b")
    for i, targets in action.targets:
        players = _joined(_OR, [Id(t) for t in targets])
        parts.append(Sentence("targets {players} with {id}", players=players, id=Id(i)))
    if action.targets:
        rules.append("603.3d")
    if action.replacements:
        parts.append(
            Plural(
                "applies the replacement effect {ids} first",
                "applies the replacement effects {ids} in that order",
                "n",
                ids=Items([Id(i) for i in action.replacements], ","),
                n=len(action.replacements),
            )
        )
        rules.append("616.1")
    if not parts:
        return Sentence("{player} chooses nothing", player=Id(action.player))
    return Sentence(
        "{player} chooses: {choices} ({rules})",
        player=Id(action.player),
        choices=_joined(_SEMICOLON, parts),
        rules=", ".join(rules),
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
                    "{players} loses the game, says an effect",
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
                "id": Id(action.id),
                "kind": effect_words(action.kind),
                "whom": whom,
                "player": Id(action.controller),
            }
            if action.until == "end_of_turn":
                return Sentence(
                    "{id}: {kind} ({whom}), controlled by {player} until end of turn", **args
                )
            return Sentence("{id}: {kind} ({whom}), controlled by {player}", **args)
        case StartCard():
            if action.name in INSTANTS:  # 608.2: a spell cast resolves; it enters nowhere
                return Sentence(
                    "{player} casts {card} ({id}), which resolves",
                    card=action.name,
                    id=Id(action.id),
                    player=Id(action.controller),
                )
            return Sentence(
                "{card} ({id}) enters under {player}'s control",
                card=action.name,
                id=Id(action.id),
                player=Id(action.controller),
            )
        case End():
            return Sentence("{id} stops applying", id=Id(action.id))
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

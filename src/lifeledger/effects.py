"""Continuous effects (611-616) and the card catalogue that makes them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .bounds import check_integer

__all__ = [
    "CARD_DURATION",
    "CARD_ONLY_KINDS",
    "CATALOGUE",
    "CATALOGUE_V2",
    "INSTANTS",
    "OMEN_COUNTERS",
    "STACK_KINDS",
    "TEAM_WIDE",
    "VERSION_2_KINDS",
    "Effect",
    "Kind",
    "Reach",
]


class Kind(Enum):
    """What a continuous effect does; the docstring of each use in :mod:`game` cites its rule."""

    CANT_GAIN_LIFE = "cant_gain_life"  #: 119.7
    CANT_LOSE_LIFE = "cant_lose_life"  #: 119.8
    LIFE_TOTAL_CANT_CHANGE = "life_total_cant_change"  #: 119.7 and 119.8
    CANT_LOSE_GAME = "cant_lose_game"  #: 104.3, 810.8a
    CANT_WIN_GAME = "cant_win_game"  #: 104.2, 810.8a; never stops 104.2a
    NO_LOSS_FOR_LIFE = "no_loss_for_life"  #: "you don't lose the game for having 0 or less life"
    CANT_GET_POISON = "cant_get_poison"  #: 810.10c
    GAIN_LIFE_TIMES = "gain_life_times"  #: a replacement (616), not applied to 0 (119.10)
    GAIN_BECOMES_LOSS = "gain_becomes_loss"  #: a replacement (616)
    ON_GAIN_LIFE = "on_gain_life"  #: a trigger (119.9)
    ON_LOSE_LIFE = "on_lose_life"  #: a trigger
    WIN_AT_UPKEEP = (
        "win_at_upkeep"  #: "at the beginning of your upkeep, if you have N or more life"
    )
    WIN_ON_EMPTY_DRAW = "win_on_empty_draw"  #: "if you would draw from an empty library, you win"
    INFECT_AT_OR_BELOW_ZERO = "infect_at_or_below_zero"  #: damage as though from infect
    #: Version 2, triggered abilities that use the stack (603, 119.9):
    #: "Whenever you gain life, target opponent loses that much life" (Sanguine Bond, Vito)
    GAIN_DRAINS_TARGET = "gain_drains_target"
    #: "Whenever you gain life, each opponent loses 1 life" (Marauding Blight-Priest)
    GAIN_DRAINS_EACH = "gain_drains_each"
    #: "Whenever an opponent loses life, you gain that much life" (Exquisite Blood)
    OPPONENT_LOSS_GAINS = "opponent_loss_gains"
    #: Version 2: "damage that would reduce your life total to less than 1 reduces it to 1
    #: instead" (Worship: a replacement, 614.1a)
    DAMAGE_FLOOR_ONE = "damage_floor_one"
    #: Version 2: "at the beginning of your upkeep, if you have exactly 1 life, you win the
    #: game" (Near-Death Experience)
    WIN_AT_UPKEEP_WITH_1 = "win_at_upkeep_with_1"
    #: Version 2: "if you would lose the game, instead shuffle ... into your library, then
    #: draw seven cards and your life total becomes 20" (Lich's Mirror: 614.1a, 704.7)
    LOSING_REPLACED = "losing_replaced"
    #: Version 2: "whenever you lose life, gain 2 life for each 1 life you lost"
    #: (Transcendence: a triggered ability on the stack, 119.10, 603.2c)
    LOSS_GAINS_TWICE = "loss_gains_twice"
    #: Version 2: "when you have 20 or more life, you lose the game" (Transcendence: a state
    #: trigger, 603.8; the loss is an effect's, 104.3e)
    LOSE_AT_20_LIFE = "lose_at_20_life"
    #: Version 2: "at the beginning of your upkeep, remove an omen counter" and "when the last
    #: omen counter is removed, the player with the highest life total wins the game; if two
    #: or more players are tied for highest life total, the game is a draw" (Celestial
    #: Convergence, which enters with seven omen counters: only as a card)
    OMEN_COUNTDOWN = "omen_countdown"
    #: Version 2: Celestial Convergence's "when the last omen counter is removed" (only the
    #: card's countdown makes it trigger)
    LAST_OMEN = "last_omen"


#: Version 2: the kinds whose triggered abilities go on the stack and resolve (603.3, 608.2).
STACK_KINDS = frozenset(
    {
        Kind.GAIN_DRAINS_TARGET,
        Kind.GAIN_DRAINS_EACH,
        Kind.OPPONENT_LOSS_GAINS,
        Kind.LOSS_GAINS_TWICE,
        Kind.LOSE_AT_20_LIFE,
        Kind.OMEN_COUNTDOWN,
    }
)
#: The kinds only a record of version 2 may name.
VERSION_2_KINDS = STACK_KINDS | {
    Kind.DAMAGE_FLOOR_ONE,
    Kind.WIN_AT_UPKEEP_WITH_1,
    Kind.LOSING_REPLACED,
    Kind.LAST_OMEN,
}
#: The kinds only a catalogue card makes (an ``effect`` of them is malformed): Celestial
#: Convergence's countdown needs the omen counters the card enters with.
CARD_ONLY_KINDS = frozenset({Kind.OMEN_COUNTDOWN, Kind.LAST_OMEN})
#: Celestial Convergence enters with seven omen counters.
OMEN_COUNTERS = 7


#: The kinds that, in Two-Headed Giant, reach a player's whole team (810.8a, 810.9g, 810.9h,
#: 810.10c); triggers and replacements reach only the player, since life is gained and lost by
#: each player individually (810.9). "You don't lose for having 0 or less life" is 810.8a's own
#: example (Transcendence).
TEAM_WIDE = frozenset(
    {
        Kind.CANT_GAIN_LIFE,
        Kind.CANT_LOSE_LIFE,
        Kind.LIFE_TOTAL_CANT_CHANGE,
        Kind.CANT_LOSE_GAME,
        Kind.CANT_WIN_GAME,
        Kind.NO_LOSS_FOR_LIFE,
        Kind.CANT_GET_POISON,
    }
)


class Reach(Enum):
    """Whom an effect affects, named relative to its controller."""

    YOU = "you"
    OPPONENTS = "opponents"
    PLAYERS = "players"


Affects = Reach | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Effect:
    """One continuous effect: its ``id`` (a card's effects share the card's id), ``kind``,
    ``controller``, whom it ``affects``, and its parameters (``factor`` of
    :attr:`Kind.GAIN_LIFE_TIMES`, ``life_at_least`` of :attr:`Kind.WIN_AT_UPKEEP`), how long
    it lasts (``until``, version 2 of the record) and the ``card`` it comes from."""

    id: str
    kind: Kind
    controller: str
    affects: Affects = Reach.YOU
    factor: int | None = None
    life_at_least: int | None = None
    #: ``"end_of_turn"``: the effect ends in the cleanup step (514.2); ``None``: when ended.
    until: str | None = None
    #: The catalogue card whose effect this is (its name), or ``None`` for an ``effect``.
    card: str | None = None

    def __post_init__(self) -> None:
        # Every integer of a game lies within 10^1000 (lifeledger.bounds).
        if self.factor is not None:
            check_integer(self.factor, "factor")
        if self.life_at_least is not None:
            check_integer(self.life_at_least, "life_at_least")


#: The card catalogue: each card's effects as its Oracle text gives them, as
#: ``(kind, affects, parameters)``.
CATALOGUE: dict[str, tuple[tuple[Kind, Reach, dict[str, int]], ...]] = {
    # "You can't lose the game and your opponents can't win the game."
    "Platinum Angel": (
        (Kind.CANT_LOSE_GAME, Reach.YOU, {}),
        (Kind.CANT_WIN_GAME, Reach.OPPONENTS, {}),
    ),
    # "You can't win the game and your opponents can't lose the game."
    "Abyssal Persecutor": (
        (Kind.CANT_WIN_GAME, Reach.YOU, {}),
        (Kind.CANT_LOSE_GAME, Reach.OPPONENTS, {}),
    ),
    # "Your life total can't change."
    "Platinum Emperion": ((Kind.LIFE_TOTAL_CANT_CHANGE, Reach.YOU, {}),),
    # "You don't lose the game for having 0 or less life. As long as you have 0 or less life,
    # all damage is dealt to you as though its source had infect."
    "Phyrexian Unlife": (
        (Kind.NO_LOSS_FOR_LIFE, Reach.YOU, {}),
        (Kind.INFECT_AT_OR_BELOW_ZERO, Reach.YOU, {}),
    ),
    # "Players can't gain life."
    "Leyline of Punishment": ((Kind.CANT_GAIN_LIFE, Reach.PLAYERS, {}),),
    # "Your opponents can't gain life."
    "Erebos, God of the Dead": ((Kind.CANT_GAIN_LIFE, Reach.OPPONENTS, {}),),
    # "If you would gain life, you gain twice that much life instead."
    "Rhox Faithmender": ((Kind.GAIN_LIFE_TIMES, Reach.YOU, {"factor": 2}),),
    "Boon Reflection": ((Kind.GAIN_LIFE_TIMES, Reach.YOU, {"factor": 2}),),
    # "If an opponent would gain life, that player loses that much life instead."
    "Tainted Remedy": ((Kind.GAIN_BECOMES_LOSS, Reach.OPPONENTS, {}),),
    # "Whenever you gain life, put a +1/+1 counter on Ajani's Pridemate."
    "Ajani's Pridemate": ((Kind.ON_GAIN_LIFE, Reach.YOU, {}),),
    # "At the beginning of your upkeep, if you have 50 or more life, you win the game."
    "Test of Endurance": ((Kind.WIN_AT_UPKEEP, Reach.YOU, {"life_at_least": 50}),),
    # "... if you have 40 or more life ..., you win the game."
    "Felidar Sovereign": ((Kind.WIN_AT_UPKEEP, Reach.YOU, {"life_at_least": 40}),),
    # "If you would draw a card while your library has no cards in it, you win the game instead."
    "Laboratory Maniac": ((Kind.WIN_ON_EMPTY_DRAW, Reach.YOU, {}),),
    # Version 2 (the stack): "Whenever you gain life, target opponent loses that much life."
    "Sanguine Bond": ((Kind.GAIN_DRAINS_TARGET, Reach.YOU, {}),),
    "Vito, Thorn of the Dusk Rose": ((Kind.GAIN_DRAINS_TARGET, Reach.YOU, {}),),
    # "Whenever an opponent loses life, you gain that much life."
    "Exquisite Blood": ((Kind.OPPONENT_LOSS_GAINS, Reach.OPPONENTS, {}),),
    # "Whenever you gain life, each opponent loses 1 life."
    "Marauding Blight-Priest": ((Kind.GAIN_DRAINS_EACH, Reach.YOU, {}),),
    # "If you control a creature, damage that would reduce your life total to less than 1
    # reduces it to 1 instead." (The record declares the card while its condition holds.)
    "Worship": ((Kind.DAMAGE_FLOOR_ONE, Reach.YOU, {}),),
    # "At the beginning of your upkeep, if you have exactly 1 life, you win the game."
    "Near-Death Experience": ((Kind.WIN_AT_UPKEEP_WITH_1, Reach.YOU, {}),),
    # "If you would lose the game, instead shuffle your hand, your graveyard, and all
    # permanents you own into your library, then draw seven cards and your life total
    # becomes 20."
    "Lich's Mirror": ((Kind.LOSING_REPLACED, Reach.YOU, {}),),
    # An instant: "You can't lose the game this turn and your opponents can't win the game
    # this turn. Until end of turn, damage that would reduce your life total to less than 1
    # reduces it to 1 instead." (Its effects last until end of turn: CARD_DURATION.)
    "Angel's Grace": (
        (Kind.CANT_LOSE_GAME, Reach.YOU, {}),
        (Kind.CANT_WIN_GAME, Reach.OPPONENTS, {}),
        (Kind.DAMAGE_FLOOR_ONE, Reach.YOU, {}),
    ),
    # "You don't lose the game for having 0 or less life. When you have 20 or more life, you
    # lose the game. Whenever you lose life, gain 2 life for each 1 life you lost."
    "Transcendence": (
        (Kind.NO_LOSS_FOR_LIFE, Reach.YOU, {}),
        (Kind.LOSE_AT_20_LIFE, Reach.YOU, {}),
        (Kind.LOSS_GAINS_TWICE, Reach.YOU, {}),
    ),
    # "Celestial Convergence enters with seven omen counters on it. At the beginning of your
    # upkeep, remove an omen counter from Celestial Convergence. When the last omen counter is
    # removed from Celestial Convergence, the player with the highest life total wins the
    # game. If two or more players are tied for highest life total, the game is a draw."
    "Celestial Convergence": ((Kind.OMEN_COUNTDOWN, Reach.YOU, {}),),
}

#: The cards whose effects last for a time (611.2a): Angel's Grace's "this turn" and "until
#: end of turn" end in the cleanup step (514.2).
CARD_DURATION: dict[str, str] = {"Angel's Grace": "end_of_turn"}

#: The cards of the catalogue that are instants: a spell cast that resolves (608.2), whose
#: effects go on applying; every other card is a permanent on the battlefield (110.1), which
#: leaves it when its ``card`` is ended or shuffled away (Lich's Mirror, 614.1a).
INSTANTS = frozenset({"Angel's Grace"})

#: The cards of the catalogue that only a record of version 2 may name (their triggered
#: abilities use the stack).
CATALOGUE_V2 = frozenset(
    {
        "Sanguine Bond",
        "Vito, Thorn of the Dusk Rose",
        "Exquisite Blood",
        "Marauding Blight-Priest",
        "Worship",
        "Near-Death Experience",
        "Lich's Mirror",
        "Angel's Grace",
        "Transcendence",
        "Celestial Convergence",
    }
)

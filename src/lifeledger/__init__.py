"""lifeledger: life totals and the end of the game in Magic: The Gathering, exactly by the rules.

The package decides every life total, counter and result of a game of any variant from the
actions players take, by the Comprehensive Rules (104, 119, 120, 122, 704, 727, 800-811,
902-904). :class:`Game` is the game; :mod:`lifeledger.record` reads and writes game records;
:class:`Match` scores a series of games (100.6a).
"""

from .actions import Action, LifeOf
from .effects import Effect, Kind, Reach
from .errors import ChoiceNeeded, LifeledgerError, MalformedError, RefusedError
from .game import Game, Note, PlayerView, TeamView, Touched
from .match import Match
from .outcome import Outcome, Reason, Result, Status
from .seats import Seat

__all__ = [
    "Action",
    "ChoiceNeeded",
    "Effect",
    "Game",
    "Kind",
    "LifeOf",
    "LifeledgerError",
    "MalformedError",
    "Match",
    "Note",
    "Outcome",
    "PlayerView",
    "Reach",
    "Reason",
    "RefusedError",
    "Result",
    "Seat",
    "Status",
    "TeamView",
    "Touched",
]

__version__ = "0.1.0"

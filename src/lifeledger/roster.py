"""The players and teams of a game: their totals and standings, and read-only views of them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .outcome import PLAYING, Result
from .seats import Seat

__all__ = ["POISON_THRESHOLD", "PlayerView", "TeamView", "copy_roster"]

#: 704.5c and 122.1f: ten or more poison counters.
POISON_THRESHOLD = 10


class Total:
    """A number one player has, or a team shares (810.4, 810.10): life or poison counters."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value


class Player:
    """One player's mutable state inside a :class:`lifeledger.Game` (read it through
    :class:`PlayerView`)."""

    __slots__ = (
        "commander_damage",
        "counters",
        "drew_from_empty",
        "game",
        "id",
        "index",
        "library",
        "life",
        "poison",
        "result",
        "seat",
        "team",
    )

    def __init__(self, seat: Seat, index: int, team: str | None) -> None:
        self.seat = seat
        self.id = seat.id
        self.index = index
        self.team = team
        self.life = Total(0)
        self.poison = Total(0)
        self.counters: dict[str, int] = {}
        self.commander_damage: dict[str, int] = {}
        self.library = seat.library
        self.drew_from_empty = False
        self.result = PLAYING
        self.game = 1


class Team:
    """One team's mutable state inside a :class:`lifeledger.Game` (read it through
    :class:`TeamView`)."""

    __slots__ = ("id", "members", "poison_threshold", "result", "shares_life", "shares_poison")

    def __init__(self, team_id: str, members: list[Player]) -> None:
        self.id = team_id
        self.members = members
        self.shares_life = False
        self.shares_poison = False
        self.poison_threshold = POISON_THRESHOLD
        self.result = PLAYING


def copy_roster(
    players: Mapping[str, Player], teams: Mapping[str, Team]
) -> tuple[dict[str, Player], dict[str, Team]]:
    """Independent copies of the players and teams, in time linear in what they hold: a
    total a team shares (810.4, 810.10) stays one object the copies share, and what never
    changes (seats, results) is shared with the originals."""
    totals: dict[int, Total] = {}

    def total(original: Total) -> Total:
        copied = totals.get(id(original))
        if copied is None:
            copied = totals[id(original)] = Total(original.value)
        return copied

    new_players: dict[str, Player] = {}
    for player_id, p in players.items():
        q = Player.__new__(Player)
        q.seat, q.id, q.index, q.team = p.seat, p.id, p.index, p.team
        q.life, q.poison = total(p.life), total(p.poison)
        q.counters = dict(p.counters)
        q.commander_damage = dict(p.commander_damage)
        q.library, q.drew_from_empty, q.result, q.game = (
            p.library,
            p.drew_from_empty,
            p.result,
            p.game,
        )
        new_players[player_id] = q
    new_teams: dict[str, Team] = {}
    for team_id, team in teams.items():
        t = Team(team_id, [new_players[m.id] for m in team.members])
        t.shares_life, t.shares_poison = team.shares_life, team.shares_poison
        t.poison_threshold, t.result = team.poison_threshold, team.result
        new_teams[team_id] = t
    return new_players, new_teams


class PlayerView:
    """A read-only view of one player in a :class:`Game`."""

    __slots__ = "_player"

    def __init__(self, player: Player) -> None:
        self._player = player

    @property
    def id(self) -> str:
        """The player's id."""
        return self._player.id

    @property
    def seat(self) -> Seat:
        """The player as the header declared them."""
        return self._player.seat

    @property
    def team(self) -> str | None:
        """The id of the player's team, if any."""
        return self._player.team

    @property
    def life(self) -> int:
        """The life total as the rules read it (810.9a: the team's where it is shared)."""
        return self._player.life.value

    @property
    def poison(self) -> int:
        """Poison counters as the rules read them (810.10a: the team's where they are shared)."""
        return self._player.poison.value

    @property
    def counters(self) -> Mapping[str, int]:
        """Every other kind of counter the player has, with its count (above 0)."""
        return MappingProxyType(self._player.counters)

    @property
    def commander_damage(self) -> Mapping[str, int]:
        """Combat damage dealt to this player by each commander, by commander id (903.10a)."""
        return MappingProxyType(self._player.commander_damage)

    @property
    def library(self) -> int | None:
        """Cards left in the library, or ``None`` where it isn't tracked."""
        return self._player.library

    @property
    def result(self) -> Result:
        """The player's standing, with reason and rule."""
        return self._player.result

    def __repr__(self) -> str:
        return f"<PlayerView {self.id} life={self.life} poison={self.poison} {self.result}>"


class TeamView:
    """A read-only view of one team in a :class:`Game`."""

    __slots__ = "_team"

    def __init__(self, team: Team) -> None:
        self._team = team

    @property
    def id(self) -> str:
        """The team's id."""
        return self._team.id

    @property
    def players(self) -> tuple[str, ...]:
        """The ids of its players, in seating order."""
        return tuple(p.id for p in self._team.members)

    @property
    def life(self) -> int | None:
        """The shared life total (810.4, 904.13b), or ``None`` where life isn't shared."""
        return self._team.members[0].life.value if self._team.shares_life else None

    @property
    def poison(self) -> int | None:
        """The shared poison counters (810.10), or ``None`` where they aren't shared."""
        return self._team.members[0].poison.value if self._team.shares_poison else None

    @property
    def result(self) -> Result:
        """The team's standing."""
        return self._team.result

    def __repr__(self) -> str:
        return f"<TeamView {self.id} {self.players} life={self.life} {self.result}>"

"""Reading the game: its players, teams, turn and designations, and its questions (methods
named as questions: whether a player is in the game, can gain life, ...), citing the rules."""

from __future__ import annotations

from .core import GameBase
from .effects import Effect, Kind
from .errors import MalformedError, quote
from .roster import Player, PlayerView, TeamView
from .sentences import Sentence
from .turns import STEPS


class ReadingMixin(GameBase):
    """Reading the game and asking it questions (102, 104, 119.7, 119.8, 122.1, 500, 725, 726,
    731, 800.4, 801.2)."""

    # -- reading the game -------------------------------------------------------------------

    @property
    def players(self) -> tuple[PlayerView, ...]:
        """Every player, in seating order."""
        return tuple(PlayerView(p) for p in self._players.values())

    @property
    def teams(self) -> tuple[TeamView, ...]:
        """Every team, in the order their first players are seated."""
        return tuple(TeamView(t) for t in self._teams.values())

    @property
    def omen_counters(self) -> dict[str, int]:
        """122.1: the omen counters on each Celestial Convergence in the game, by its id, in
        the order the cards entered (a card that has left the game is not listed)."""
        effects = self._effects
        return {cid: n for cid, n in self._stack.omens.items() if cid in effects}

    def player(self, player_id: str) -> PlayerView:
        """The player with this id."""
        return PlayerView(self._get(player_id, "player"))

    def team(self, team_id: str) -> TeamView:
        """The team with this id."""
        try:
            return TeamView(self._teams[team_id])
        except KeyError:
            raise MalformedError(
                Sentence("unknown team {value}", value=quote(team_id)), member="team"
            ) from None

    def life_of(self, player_id: str) -> int:
        """The player's life total as the rules read it (810.9a: the team's, where shared)."""
        return self._get(player_id, "player").life.value

    def effects(self) -> tuple[Effect, ...]:
        """The continuous effects that apply now."""
        return tuple(e for group in self._effects.values() for e in group)

    # -- the turn and the designations (version 2) ------------------------------------------

    @property
    def turn_number(self) -> int:
        """500: how many turns this game has begun (0 before the first; a restart, 727,
        begins a new game at 0)."""
        return self._clock.number

    @property
    def active_players(self) -> tuple[str, ...]:
        """102.1: the players whose turn it is (805.4a: every member of the active team still
        in the game as the turn began), in seating order; empty before the first turn."""
        return self._clock.active

    @property
    def active_team(self) -> str | None:
        """805.4a: the active team, under shared team turns."""
        return self._clock.team

    @property
    def current_step(self) -> str | None:
        """The step of the current turn (``upkeep``, ``draw``, ``main``, ``end``,
        ``cleanup``), or ``None`` before the first turn."""
        return STEPS[self._clock.step] if self._clock.number else None

    @property
    def monarch(self) -> str | None:
        """725: the monarch, if there is one."""
        return self._marks.monarch

    @property
    def initiative(self) -> str | None:
        """726: the player who has the initiative, if any."""
        return self._marks.initiative

    @property
    def day_or_night(self) -> str | None:
        """731.1: ``"day"`` or ``"night"``, or ``None`` while the game is neither."""
        return self._marks.day_night

    @property
    def city_blessed(self) -> tuple[str, ...]:
        """702.131c: the players who have the city's blessing, in seating order."""
        blessed = self._marks.city_blessing
        return tuple(pid for pid in self._players if pid in blessed)

    def is_active_player(self, player_id: str) -> bool:
        """102.1, 805.4a: whether it is this player's (or their team's) turn."""
        return self._get(player_id, "player").id in self._clock.active

    def is_monarch(self, player_id: str) -> bool:
        """725.3: whether this player is the monarch (one player at a time)."""
        return self._get(player_id, "player").id == self._marks.monarch

    def has_initiative(self, player_id: str) -> bool:
        """726.3: whether this player has the initiative (one player at a time)."""
        return self._get(player_id, "player").id == self._marks.initiative

    def has_city_blessing(self, player_id: str) -> bool:
        """702.131c: whether this player has the city's blessing (any number may)."""
        return self._get(player_id, "player").id in self._marks.city_blessing

    def is_over(self) -> bool:
        """104.1: whether the game has ended."""
        return self._over

    def is_in_game(self, player_id: str) -> bool:
        """104.5, 800.4: whether the player is still in the game (has not won, lost or drawn)."""
        return self._get(player_id, "player").result.is_playing

    def are_opponents(self, a: str, b: str) -> bool:
        """102.2, 102.3: in a game between teams, a player's opponents are the players not on
        their team; otherwise every other player."""
        pa, pb = self._get(a, "player"), self._get(b, "player")
        return pa is not pb and (pa.team is None or pa.team != pb.team)

    def is_in_range(self, a: str, b: str) -> bool:
        """801.2: whether ``b`` is within ``a``'s range of influence (always true without the
        limited range of influence option)."""
        return not self._limited or b in self._in_range.get(a, frozenset({a}))

    def can_gain_life(self, player_id: str) -> bool:
        """119.7: no "can't gain life" effect reaches the player (810.9g: or a teammate
        sharing their life total)."""
        return self._can_gain(self._get(player_id, "player"))

    def can_lose_life(self, player_id: str) -> bool:
        """119.8: no "can't lose life" effect reaches the player (810.9h: or a teammate
        sharing their life total)."""
        return self._can_lose(self._get(player_id, "player"))

    def can_lose_game(self, player_id: str) -> bool:
        """104.3: no "can't lose the game" effect reaches the player (810.8a: or their team)."""
        return not self._reaches(Kind.CANT_LOSE_GAME, self._get(player_id, "player"))

    def can_win_game(self, player_id: str) -> bool:
        """104.2: no "can't win the game" effect reaches the player (810.8a: or their team).
        Such effects never stop 104.2a."""
        return not self._reaches(Kind.CANT_WIN_GAME, self._get(player_id, "player"))

    def can_get_poison(self, player_id: str) -> bool:
        """810.10c: no "can't get poison counters" effect reaches the player or, where poison
        counters are shared, their team."""
        return not self._reaches(Kind.CANT_GET_POISON, self._get(player_id, "player"))

    def _can_gain(self, p: Player) -> bool:
        if not self._effects:
            return True
        return not (
            self._reaches(Kind.CANT_GAIN_LIFE, p) or self._reaches(Kind.LIFE_TOTAL_CANT_CHANGE, p)
        )

    def _can_lose(self, p: Player) -> bool:
        if not self._effects:
            return True
        return not (
            self._reaches(Kind.CANT_LOSE_LIFE, p) or self._reaches(Kind.LIFE_TOTAL_CANT_CHANGE, p)
        )

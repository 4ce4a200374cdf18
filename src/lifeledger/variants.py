"""Multiplayer variants (800.2: one per game) as small classes that override only what differs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from .errors import MalformedError, quote
from .formats import FORMATS, Commander, Format
from .seats import Seat
from .sentences import Id, Plural, Sentence

__all__ = [
    "VARIANTS",
    "AlternatingTeams",
    "Archenemy",
    "Emperor",
    "FreeForAll",
    "GrandMelee",
    "SupervillainRumble",
    "TeamVsTeam",
    "TwoHeadedGiant",
    "TwoPlayer",
    "Variant",
    "find_variant",
    "infer_variant",
]

HEROES = "heroes"


def _fail(message: str) -> MalformedError:
    return MalformedError(message, member="players")


def seating_distance(a: int, b: int, seats: int) -> int:
    """801.2: the distance between two seats, measured in seats around the table."""
    d = abs(a - b) % seats
    return min(d, seats - d)


class Variant:
    """The structure of a game: who plays with and against whom, and how the game is won."""

    name: ClassVar[str] = ""
    #: The rule that defines the variant.
    rule: ClassVar[str] = ""
    #: The formats the rules define for this variant (others need ``options.starting_life``).
    formats: ClassVar[frozenset[str]] = frozenset(FORMATS)
    #: A multiplayer game between teams (102.3, 104.2c).
    between_teams: ClassVar[bool] = False
    #: The shared team turns option (805): a team's upkeep is each member's upkeep.
    shared_turns: ClassVar[bool] = False
    #: A team wins if its emperor wins and loses if its emperor loses (809.5).
    emperor_leads: ClassVar[bool] = False
    #: The range of influence every player has unless told otherwise (801).
    default_range: ClassVar[int | None] = None
    #: The rule by which a team with a shared life total of 0 or less loses (704.6a).
    team_life_rule: ClassVar[str] = "704.6a"

    def check(self, seats: Sequence[Seat]) -> None:
        """Raise :class:`MalformedError` unless ``seats`` have this variant's shape."""
        if any(s.team is not None for s in seats):
            raise _fail(Sentence("{variant} has no teams", variant=self.name))
        if any(s.emperor for s in seats):
            raise _fail(Sentence("only an emperor game has emperors (809.2)"))
        if any(s.archenemy for s in seats):
            raise _fail(
                Sentence("only archenemy and supervillain-rumble games have archenemies (904)")
            )

    def team_of(self, seat: Seat) -> str | None:
        """The id of ``seat``'s team, ``None`` for a player on no team."""
        return seat.team

    def shares_life(self, fmt: Format) -> bool:
        """Whether teams have a shared life total (810.4, 904.13b)."""
        return False

    def shares_poison(self) -> bool:
        """Whether teams share their poison counters (810.10)."""
        return False

    def starting_life(self, fmt: Format, seat: Seat, seats: Sequence[Seat]) -> tuple[int, str]:
        """The starting life total of a player with an individual one, and the rule for it."""
        return fmt.starting_life(seat, len(seats)), fmt.life_rule

    def team_starting_life(self, fmt: Format, size: int) -> tuple[int, str]:
        """The starting life total of a team with a shared one, and the rule for it."""
        raise NotImplementedError(f"{self.name} has no shared life total")

    def team_poison_threshold(self, size: int) -> int:
        """The number of shared poison counters at which a team loses (704.6b, 810.11)."""
        raise NotImplementedError(f"{self.name} has no shared poison counters")

    def ranges(self, seats: Sequence[Seat]) -> list[int | None]:
        """Each seat's default range of influence (801.2a); ``None`` where there is no limit."""
        return [self.default_range] * len(seats)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _teams(seats: Sequence[Seat]) -> dict[str, list[int]]:
    teams: dict[str, list[int]] = {}
    for index, seat in enumerate(seats):
        if seat.team is None:
            raise _fail(Sentence("player '{player}' has no team", player=Id(seat.id)))
        teams.setdefault(seat.team, []).append(index)
    return teams


def _check_seated_together(seats: Sequence[Seat], rule: str) -> None:
    """Each team sits together (a team may wrap around the end of the seating list)."""
    teams = {s.team for s in seats}
    changes = sum(seats[i].team != seats[i - 1].team for i in range(len(seats)))
    if len(teams) > 1 and changes != len(teams):
        raise _fail(
            Sentence("each team sits together on one side of the table ({rule})", rule=rule)
        )


def _check_equal_sizes(teams: dict[str, list[int]], rule: str) -> None:
    if len({len(members) for members in teams.values()}) != 1:
        raise _fail(Sentence("the teams are of equal size ({rule})", rule=rule))


class TwoPlayer(Variant):
    """A two-player game (103, 104)."""

    name = "two-player"
    rule = "103"

    def check(self, seats: Sequence[Seat]) -> None:
        """Exactly two players, no teams."""
        super().check(seats)
        if len(seats) != 2:
            raise _fail(Sentence("a two-player game has exactly 2 players, not {n}", n=len(seats)))


class FreeForAll(Variant):
    """Free-for-All (806): three or more players compete as individuals."""

    name = "free-for-all"
    rule = "806"

    def check(self, seats: Sequence[Seat]) -> None:
        """Three or more players, no teams."""
        super().check(seats)
        if len(seats) < 3:
            raise _fail(Sentence("{variant} needs 3 or more players (800.1)", variant=self.name))


class GrandMelee(FreeForAll):
    """Grand Melee (807): Free-for-All where each player has a range of influence of 1 (807.2a)."""

    name = "grand-melee"
    rule = "807"
    default_range = 1


class TeamVsTeam(Variant):
    """Team vs. Team (808): two or more teams of any size, each seated together (808.2)."""

    name = "team-vs-team"
    rule = "808"
    between_teams = True

    def check(self, seats: Sequence[Seat]) -> None:
        """Two or more teams; every player on one; each team seated together."""
        if any(s.emperor or s.archenemy for s in seats):
            raise _fail(Sentence("{variant} has no emperors or archenemies", variant=self.name))
        if len(_teams(seats)) < 2:
            raise _fail(Sentence("a game between teams has 2 or more teams (808.1)"))
        _check_seated_together(seats, "808.2")


class TwoHeadedGiant(Variant):
    """Two-Headed Giant (810): two teams with a shared life total and shared poison counters.

    810.11: teams of more than two play as N-headed giants.
    """

    name = "two-headed-giant"
    rule = "810"
    formats = frozenset({"normal", "planechase"})
    between_teams = True
    shared_turns = True

    def check(self, seats: Sequence[Seat]) -> None:
        """810.1, 810.11: two teams of equal size, two or more each, seated together (810.3)."""
        if any(s.emperor or s.archenemy for s in seats):
            raise _fail(Sentence("{variant} has no emperors or archenemies", variant=self.name))
        teams = _teams(seats)
        if len(teams) != 2:
            raise _fail(
                Sentence(
                    "two-headed-giant is played by exactly 2 teams, not {n} (810.1)", n=len(teams)
                )
            )
        _check_equal_sizes(teams, "810.11")
        if len(seats) < 4:
            raise _fail(Sentence("each team has 2 or more players (810.1, 810.11)"))
        _check_seated_together(seats, "810.3")

    def shares_life(self, fmt: Format) -> bool:
        """810.4: each team has a shared life total."""
        return True

    def shares_poison(self) -> bool:
        """810.10: poison counters are shared by the team."""
        return True

    def team_starting_life(self, fmt: Format, size: int) -> tuple[int, str]:
        """810.4: 30; 810.11: plus 15 for each player beyond the second."""
        return 30 + 15 * (size - 2), "810.11" if size > 2 else "810.4"

    def team_poison_threshold(self, size: int) -> int:
        """704.6b: fifteen; 810.11: plus five for each player beyond the second."""
        return 15 + 5 * (size - 2)


class Emperor(Variant):
    """Emperor (809): teams of three or more, each led by an emperor seated in its middle."""

    name = "emperor"
    rule = "809"
    between_teams = True
    emperor_leads = True

    def check(self, seats: Sequence[Seat]) -> None:
        """809.1, 809.2, 809.6: equal teams of 3 or more, one emperor each, in the middle."""
        if any(s.archenemy for s in seats):
            raise _fail(Sentence("an emperor game has no archenemies"))
        teams = _teams(seats)
        if len(teams) < 2:
            raise _fail(Sentence("an emperor game has 2 or more teams (809.1)"))
        _check_equal_sizes(teams, "809.6")
        size = len(next(iter(teams.values())))
        if size < 3:
            raise _fail(Sentence("each emperor team has 3 or more players (809.1)"))
        _check_seated_together(seats, "809.2")
        n = len(seats)
        for team, members in teams.items():
            emperors = [i for i in members if seats[i].emperor]
            if len(emperors) != 1:
                raise _fail(
                    Plural(
                        "team {team} has {n} emperor, not 1 (809.2)",
                        "team {team} has {n} emperors, not 1 (809.2)",
                        "n",
                        team=quote(team),
                        n=len(emperors),
                    )
                )
            # The team's seats in clockwise order, starting where the team starts.
            start = next(i for i in members if seats[(i - 1) % n].team != team)
            order = [(start + k) % n for k in range(size)]
            place = order.index(emperors[0])
            if place not in {(size - 1) // 2, size // 2}:
                raise _fail(
                    Sentence(
                        "team {team}'s emperor sits in the middle of the team (809.2)",
                        team=quote(team),
                    )
                )

    def ranges(self, seats: Sequence[Seat]) -> list[int | None]:
        """809.3a and 809.6a: the least range that reaches one opposing general (generals) or
        two (emperors) as the game begins."""
        n = len(seats)
        result: list[int | None] = []
        for i, seat in enumerate(seats):
            distances = sorted(
                seating_distance(i, j, n)
                for j, other in enumerate(seats)
                if other.team != seat.team and not other.emperor
            )
            result.append(distances[1] if seat.emperor else distances[0])
        return result


class AlternatingTeams(Variant):
    """Alternating Teams (811): equal teams, seated so no one is next to a teammate (811.3)."""

    name = "alternating-teams"
    rule = "811"
    between_teams = True

    def check(self, seats: Sequence[Seat]) -> None:
        """811.1, 811.3: equal teams, seated A1, B1, C1, A2, B2, C2, ..."""
        if any(s.emperor or s.archenemy for s in seats):
            raise _fail(Sentence("{variant} has no emperors or archenemies", variant=self.name))
        teams = _teams(seats)
        if len(teams) < 2:
            raise _fail(Sentence("alternating teams has 2 or more teams (811.1)"))
        _check_equal_sizes(teams, "811.1")
        k = len(teams)
        if any(seats[i].team != seats[i % k].team for i in range(len(seats))):
            raise _fail(
                Sentence("teams are seated alternately: A1, B1, C1, A2, B2, C2, ... (811.3)")
            )


class Archenemy(Variant):
    """Archenemy (904): one archenemy against a team of everyone else (904.2)."""

    name = "archenemy"
    rule = "904"
    formats = frozenset({"normal", "commander", "planechase"})
    between_teams = True
    shared_turns = True
    #: 904.13b: the shared life total works as in 810.8 and 810.9; 704.6a names Two-Headed
    #: Giant only, so the team's loss at 0 life is 810.8c's.
    team_life_rule = "810.8c"

    def check(self, seats: Sequence[Seat]) -> None:
        """904.2a, 904.2b: exactly one archenemy, on no team; every other player on one team."""
        if any(s.emperor for s in seats):
            raise _fail(Sentence("an archenemy game has no emperors"))
        archenemies = [s for s in seats if s.archenemy]
        if len(archenemies) != 1:
            raise _fail(
                Sentence("an archenemy game has exactly 1 archenemy, not {n}", n=len(archenemies))
            )
        if archenemies[0].team is not None:
            raise _fail(Sentence("the archenemy is a team of one and has no team id (904.2a)"))
        if len(seats) < 2:
            raise _fail(Sentence("an archenemy game has players to face the archenemy (904.2b)"))
        if len({s.team for s in seats if not s.archenemy}) != 1:
            raise _fail(Sentence("every player other than the archenemy is on one team (904.2b)"))

    def team_of(self, seat: Seat) -> str | None:
        """The archenemy is on no team; the others are on one, ``heroes`` unless named."""
        return None if seat.archenemy else seat.team or HEROES

    def shares_life(self, fmt: Format) -> bool:
        """904.13b: in Archenemy Commander the opposing team has a shared life total."""
        return type(fmt) is Commander

    def starting_life(self, fmt: Format, seat: Seat, seats: Sequence[Seat]) -> tuple[int, str]:
        """904.5: the archenemy starts at 40, every other player at 20; 904.13b: 60."""
        if type(fmt) is Commander:
            return 60, "904.13b"
        return (40 if seat.archenemy else 20), "904.5"

    def team_starting_life(self, fmt: Format, size: int) -> tuple[int, str]:
        """904.13b: the opposing team's shared life total starts at 60."""
        return 60, "904.13b"


class SupervillainRumble(Variant):
    """Supervillain Rumble (904.12): a Free-for-All in which every player is an archenemy."""

    name = "supervillain-rumble"
    rule = "904.12"
    formats = frozenset({"normal", "planechase"})

    def check(self, seats: Sequence[Seat]) -> None:
        """904.12a, 904.12b: no teams; every player is an archenemy."""
        if any(s.team is not None for s in seats):
            raise _fail(Sentence("supervillain-rumble has no teams (904.12a)"))
        if any(s.emperor for s in seats):
            raise _fail(Sentence("supervillain-rumble has no emperors"))
        if len(seats) < 2:
            raise _fail(Sentence("supervillain-rumble needs 2 or more players"))

    def starting_life(self, fmt: Format, seat: Seat, seats: Sequence[Seat]) -> tuple[int, str]:
        """904.12c, 904.5: each player, an archenemy, starts at 40."""
        return 40, "904.12c"


VARIANTS: dict[str, type[Variant]] = {
    cls.name: cls
    for cls in (
        TwoPlayer,
        FreeForAll,
        GrandMelee,
        TeamVsTeam,
        TwoHeadedGiant,
        Emperor,
        AlternatingTeams,
        Archenemy,
        SupervillainRumble,
    )
}


def find_variant(name: str) -> Variant:
    """The variant called ``name``."""
    try:
        return VARIANTS[name]()
    except KeyError:
        raise MalformedError(
            Sentence(
                "unknown variant {name} (one of {names})",
                name=quote(name),
                names=", ".join(VARIANTS),
            ),
            member="variant",
        ) from None


def infer_variant(seats: Sequence[Seat]) -> Variant:
    """The record's default: two-player for two players, team-vs-team with teams, else
    free-for-all."""
    if any(s.team is not None for s in seats):
        return TeamVsTeam()
    return TwoPlayer() if len(seats) == 2 else FreeForAll()

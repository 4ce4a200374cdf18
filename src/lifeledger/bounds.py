"""How large an integer a game may hold, so that no record or request can make a replay take
unbounded time (the record spec, Actions: every integer within 10^1000 in absolute value).

CPython turns integers into text (and back) in time quadratic in their length; with this bound
every integer of a game has at most 1,001 digits, far under the interpreter's default limit of
4,300, so nothing the engine prints or parses ever meets that limit.
"""

from __future__ import annotations

from .errors import MalformedError
from .sentences import Plural, Sentence

__all__ = ["MAX_DIGITS", "MAX_INTEGER", "check_integer"]

#: The largest integer, in absolute value, that a record, an amount or a total may hold.
MAX_INTEGER = 10**1000
#: The most digits an integer within :data:`MAX_INTEGER` has (10^1000 itself has 1,001).
MAX_DIGITS = 1001


def check_integer(value: int, member: str, what: str | None = None) -> int:
    """``value`` if it lies within :data:`MAX_INTEGER`; else :class:`MalformedError` naming
    ``member`` (without printing the value, whose text could take long to make) and ``what``
    the value is (a :class:`~lifeledger.sentences.Sentence`: ``"a count of cards"``; by
    default ``"an integer"``)."""
    if -MAX_INTEGER <= value <= MAX_INTEGER:
        return value
    return _too_large(value, member, what)


def _too_large(value: int, member: str, what: str | None) -> int:
    raise MalformedError(
        Plural(
            "{what} is beyond {bound} (it has about {n} digit); the record bounds every integer"
            " by 10^1000",
            "{what} is beyond {bound} (it has about {n} digits); the record bounds every integer"
            " by 10^1000",
            "n",
            what=Sentence("an integer") if what is None else what,
            bound="-10^1000" if value < 0 else "10^1000",
            n=value.bit_length() * 30103 // 100000 + 1,
        ),
        member=member,
    )

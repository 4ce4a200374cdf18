"""How large an integer a game may hold, so that no record or request can make a replay take
unbounded time (the record spec, Actions: every integer within 10^1000 in absolute value).

CPython turns integers into text (and back) in time quadratic in their length; with this bound
every integer of a game has at most 1,001 digits, far under the interpreter's default limit of
4,300, so nothing the engine prints or parses ever meets that limit.
"""

from __future__ import annotations

from .errors import MalformedError

__all__ = ["MAX_DIGITS", "MAX_INTEGER", "check_integer"]

#: The largest integer, in absolute value, that a record, an amount or a total may hold.
MAX_INTEGER = 10**1000
#: The most digits an integer within :data:`MAX_INTEGER` has (10^1000 itself has 1,001).
MAX_DIGITS = 1001


def check_integer(value: int, member: str, what: str = "an integer") -> int:
    """``value`` if it lies within :data:`MAX_INTEGER`; else :class:`MalformedError` naming
    ``member`` (without printing the value, whose text could take long to make)."""
    if -MAX_INTEGER <= value <= MAX_INTEGER:
        return value
    return _too_large(value, member, what)


def _too_large(value: int, member: str, what: str) -> int:
    sign = "-" if value < 0 else ""
    raise MalformedError(
        f"{what} is beyond {sign}10^1000 (it has about {value.bit_length() * 30103 // 100000 + 1}"
        " digits); the record bounds every integer by 10^1000",
        member=member,
    )

"""The two ways an action can fail: it is malformed, or the rules refuse it.

Both leave the game exactly as it was.
"""

from __future__ import annotations

__all__ = ["LifeledgerError", "MalformedError", "RefusedError"]


class LifeledgerError(ValueError):
    """The root of the project's exceptions."""


class MalformedError(LifeledgerError):
    """Input that is not a well-formed record or action: a wrong type, an unknown player, ...

    ``position`` is the action's position in the record (``"3"``, or ``"3.1"`` for the second
    action inside the fourth; ``None`` for the header) and ``member`` the offending member.
    """

    def __init__(self, message: str, *, member: str | None = None, position: str | None = None):
        super().__init__(message)
        self.message = message
        self.member = member
        self.position = position

    def at(self, position: str) -> MalformedError:
        """This error at ``position``; an inner position is kept (``3`` and ``1``: ``3.1``)."""
        where = position if self.position is None else f"{position}.{self.position}"
        return MalformedError(self.message, member=self.member, position=where)

    def __str__(self) -> str:
        where = "header" if self.position is None else f"action {self.position}"
        member = f", member {self.member!r}" if self.member else ""
        return f"{where}{member}: {self.message}"


class RefusedError(LifeledgerError):
    """A well-formed action that the rules forbid; ``rule`` is the rule that forbids it."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} ({self.rule})"

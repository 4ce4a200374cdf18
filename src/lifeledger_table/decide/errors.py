"""What the table turns down, as sent to a client: :class:`TableError` (nothing changed), and
:class:`TableUnavailable` (a table whose log can't be loaded).

Every message a person reads is a :class:`~lifeledger.sentences.Sentence` (issue 20): sent as
its English ``"message"`` (old pages, API clients) and as data, ``"sentence"``, which each phone
renders in its own language (:func:`with_sentence`, wherever an error or notice is made JSON).
"""

from __future__ import annotations

from typing import Any

from lifeledger.sentences import Sentence

__all__ = [
    "TableError",
    "TableUnavailable",
    "engine_failed",
    "sentence_json",
    "unreachable",
    "with_sentence",
]


def sentence_json(message: object) -> dict[str, Any] | None:
    """``message`` as data for a phone to render (:meth:`Sentence.to_json`), if it is a
    sentence; ``None`` for plain text (a name, a message from before sentences were kept)."""
    return message.to_json() if isinstance(message, Sentence) else None


def with_sentence(out: dict[str, Any], key: str = "message") -> dict[str, Any]:
    """``out`` (an error or a notice), with ``"sentence"``: its ``key``'s structured form,
    when that is a sentence (changed in place, and returned)."""
    found = sentence_json(out.get(key))
    if found is not None:
        out["sentence"] = found
    return out


class TableError(Exception):
    """A request the table turns down; nothing changed. ``rule`` is set for a rules refusal."""

    def __init__(
        self,
        code: str,
        message: str,
        rule: str | None = None,
        member: str | None = None,
        choice: dict[str, Any] | None = None,
        preview: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.member = member
        #: For ``choice-needed``: the choice a player must make first (engine.choice_json).
        self.choice = choice
        #: For ``undo-changes-later`` (issue 25 item 4): each later change that would do
        #: something else, ``{"seq", "seat", "device", "action", "was", "now"}`` (its changes).
        self.preview = preview

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its members when it crosses to another process (a replay's worker).
        more: tuple[Any, ...] = ()
        if self.preview is not None:
            more = (self.choice, self.preview)
        elif self.choice is not None:
            more = (self.choice,)
        return (type(self), (self.code, self.message, self.rule, self.member, *more))

    def to_json(self) -> dict[str, Any]:
        """The error as sent to a client."""
        out: dict[str, Any] = {
            "error": self.code,
            "message": self.message,
            "rule": self.rule,
            "member": self.member,
        }
        if self.choice is not None:
            out["choice"] = self.choice
        if self.preview is not None:
            out["preview"] = self.preview
        return with_sentence(out)


class TableUnavailable(TableError):
    """A table whose log can't be loaded (a damaged or tampered log, or an action the engine
    now refuses): it answers this error to every request, naming the table and the event,
    until the store is fixed and the server restarted. Other tables are not affected."""

    def __init__(self, table: str, seq: int | None, reason: str) -> None:
        where = Sentence("its event {seq}", seq=seq) if seq is not None else Sentence("its setup")
        super().__init__(
            "table-unavailable",
            Sentence(
                "Table {table} can't be loaded: {where} {reason}. Its log is kept as it is; "
                "the server's operator can repair the store and restart the server.",
                table=table,
                where=where,
                reason=reason,
            ),
        )
        self.table = table
        self.seq = seq

    def to_json(self) -> dict[str, Any]:
        """The error as sent to a client, with the table and the event."""
        return {**super().to_json(), "table": self.table, "event": self.seq}


def unreachable() -> TableError:
    """A request refused because the table's storage can't be reached (nothing changed)."""
    return TableError(
        "storage", Sentence("The table's storage can't be reached now; nothing changed.")
    )


def engine_failed() -> TableError:
    """A request refused because the rules engine failed on it (not a refusal of its: a
    fault, logged; nothing changed)."""
    return TableError(
        "engine-failed", Sentence("The rules engine failed on this change; nothing changed.")
    )

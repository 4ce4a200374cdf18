"""The two ways an action can fail: it is malformed, or the rules refuse it.

Both leave the game exactly as it was.
"""

from __future__ import annotations

from .sentences import Grouped, Plural, Sentence

__all__ = [
    "CHOICE_RULES",
    "QUOTE_LIMIT",
    "ChoiceNeeded",
    "LifeledgerError",
    "MalformedError",
    "RefusedError",
    "TooMuchWork",
    "quote",
]

#: The rule that gives a player each kind of choice the record states with ``choose``: the
#: target of a triggered ability (603.3d), the order of their simultaneous triggered abilities
#: (603.3b), the order of the replacement effects on an event that affects them (616.1: their
#: gain of life; which Lich's Mirror replaces their loss of the game).
CHOICE_RULES = {"targets": "603.3d", "order": "603.3b", "replacements": "616.1"}

#: How many characters of an input value an error message quotes at most.
QUOTE_LIMIT = 60


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as an error message quotes it: its ``repr``, cut to about ``limit``
    characters with an ellipsis and the whole length (``'aaaa…' (100,000 characters)``),
    so that a message stays one short line whatever the input. An integer too long to turn
    into text quickly is described by its number of digits instead. Where it adds words of
    its own, it is a :class:`~lifeledger.sentences.Sentence` (translated with the message
    that quotes it); else the quoted text itself."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        text = repr(value)
        return text if len(text) <= limit else _characters(f"{text[:limit]}…", len(text))
    if isinstance(value, int):
        if value.bit_length() > 3400:  # over 1,000 digits: no text is made of it
            return Plural(
                "an integer of about {n} digit",
                "an integer of about {n} digits",
                "n",
                n=Grouped(value.bit_length() * 30103 // 100000 + 1),
            )
        digits = str(value)
        if len(digits) <= limit:
            return digits
        return Plural(
            "{text} ({n} digit)",
            "{text} ({n} digits)",
            "n",
            text=f"{digits[:limit]}…",
            n=Grouped(len(digits.lstrip("-"))),
        )
    if len(value) <= limit:
        return repr(value)
    text = repr(value[:limit])
    return _characters(f"{text[:-1]}…{text[-1]}", len(value))


def _characters(text: str, count: int) -> Sentence:
    return Plural(
        "{text} ({n} character)", "{text} ({n} characters)", "n", text=text, n=Grouped(count)
    )


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

    def __reduce__(self) -> tuple[type[MalformedError], tuple[str], dict[str, object]]:
        return (MalformedError, (self.message,), dict(self.__dict__))

    def at(self, position: str) -> MalformedError:
        """This error at ``position``; an inner position is kept (``3`` and ``1``: ``3.1``)."""
        where = position if self.position is None else f"{position}.{self.position}"
        return MalformedError(self.message, member=self.member, position=where)

    @property
    def sentence(self) -> Sentence:
        """The error as one sentence, where and what (its ``str``, in English)."""
        message, position = self.message, self.position
        if self.member:
            member = quote(self.member)
            if position is None:
                return Sentence(
                    "header, member {member}: {message}", member=member, message=message
                )
            return Sentence(
                "action {position}, member {member}: {message}",
                position=position,
                member=member,
                message=message,
            )
        if position is None:
            return Sentence("header: {message}", message=message)
        return Sentence("action {position}: {message}", position=position, message=message)

    def __str__(self) -> str:
        return str(self.sentence)


class ChoiceNeeded(MalformedError):
    """An action needs a choice the record hasn't stated (603.3b, 603.3d, 616.1): the action
    is malformed (member ``do``) as any record that leaves a choice unstated, and says which.

    ``player`` is the player who chooses; ``choice`` is ``"targets"`` (603.3d: ``ids`` is the
    one effect whose ability targets, ``options`` its legal targets), ``"order"`` (603.3b:
    ``ids`` are the effects whose abilities are put on the stack at once, ``options`` the ids
    to order) or ``"replacements"`` (616.1: ``ids`` are the replacement effects that would
    apply to an event that affects the player, their gain of life or their loss of the game,
    ``options`` the ids to order). A ``choose`` stating it
    lets the same action be applied again.
    """

    def __init__(
        self,
        message: str,
        *,
        player: str = "",
        choice: str = "",
        ids: tuple[str, ...] = (),
        options: tuple[str, ...] = (),
        member: str | None = "do",
        position: str | None = None,
    ):
        super().__init__(message, member=member, position=position)
        self.player = player
        self.choice = choice
        self.ids = ids
        self.options = options

    @property
    def rule(self) -> str:
        """The rule that gives the player the choice."""
        return CHOICE_RULES[self.choice]

    def __reduce__(self) -> tuple[type[MalformedError], tuple[str], dict[str, object]]:
        return (ChoiceNeeded, (self.message,), dict(self.__dict__))

    def at(self, position: str) -> ChoiceNeeded:
        """This error at ``position``, with its choice."""
        where = position if self.position is None else f"{position}.{self.position}"
        return ChoiceNeeded(
            self.message,
            player=self.player,
            choice=self.choice,
            ids=self.ids,
            options=self.options,
            member=self.member,
            position=where,
        )


class TooMuchWork(MalformedError):
    """An action that takes more work than one action may (:mod:`lifeledger.budget`): more
    steps than the bound every replay meets alike (``limit`` ``"steps"``: the record must state
    the result instead, as for a loop the engine can't decide), or more time than an
    application gave it (``limit`` ``"seconds"``: the bound on one action; ``"deadline"``: the
    instant set for all the game's work). Member ``do``; nothing of the action happens."""

    def __init__(
        self,
        message: str,
        *,
        limit: str = "steps",
        member: str | None = "do",
        position: str | None = None,
    ):
        super().__init__(message, member=member, position=position)
        self.limit = limit

    def __reduce__(self) -> tuple[type[MalformedError], tuple[str], dict[str, object]]:
        return (TooMuchWork, (self.message,), dict(self.__dict__))

    def at(self, position: str) -> TooMuchWork:
        """This error at ``position``, with its limit."""
        where = position if self.position is None else f"{position}.{self.position}"
        return TooMuchWork(self.message, limit=self.limit, member=self.member, position=where)


class RefusedError(LifeledgerError):
    """A well-formed action that the rules forbid; ``rule`` is the rule that forbids it."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message

    @property
    def sentence(self) -> Sentence:
        """The refusal as one sentence, with its rule (its ``str``, in English)."""
        return Sentence("{message} ({rule})", message=self.message, rule=self.rule)

    def __str__(self) -> str:
        return f"{self.message} ({self.rule})"

    def __reduce__(self) -> tuple[type[RefusedError], tuple[str, str]]:
        # Copied (Game.copy keeps the refusals of a group) and pickled with both arguments.
        return (RefusedError, (self.rule, self.message))

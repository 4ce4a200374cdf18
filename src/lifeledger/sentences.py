"""Sentences people read, kept translatable: the template and its arguments, not only the words.

The engine's notes, refusals and errors are :class:`Sentence` objects. A sentence *is* the
English text (a ``str``, so every caller that prints or compares it keeps working), and it also
remembers the English template it was made from (the gettext message id, ``"{player} can't gain
life"``) and its arguments, so that :mod:`lifeledger.language` can render it in another
language, and an application can send it as data (:meth:`Sentence.to_json`) for each reader to
render in their own.

An argument is one of:

- :class:`Id`: a player's, team's or commander's id, or an effect's or card's (an application
  shows the name: a player's, a card's label);
- ``int``: a number (formatted for the reader's language); a :class:`Grouped` one is written
  with its thousands grouped in English too (``100,000``), as a count the engine always wrote so;
- a :class:`Sentence`: words that are themselves translated (``"poison counters"``);
- :class:`Items`: a list of arguments, joined as a list is (``"ana and bo"``, ``"ana, bo"``);
- ``str``: anything shown as it is: a card's name, a rule's number, an input quoted.

Templates name their arguments in braces, ``{name}``, with no format specifications and no
escapes: a brace that is not an argument's stays as it is. Message ids are the calls'
literal first arguments (``Sentence("...")``, ``Plural("...", "...", "n")``), which is how
``tools/catalogues.py`` finds them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import Any, Union

__all__ = ["AND", "N_", "Arg", "Grouped", "Id", "Items", "Plural", "Sentence", "fill"]


def N_(message: str) -> str:
    """Marks ``message`` as a message id for the catalogues (it is translated where used)."""
    return message


#: How a list of ``"and"`` is joined, two items at a time: ``ana and bo and cy``.
AND = N_("{first} and {second}")

#: A placeholder in a template: ``{name}``.
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


class Id(str):
    """An id of a player, team or commander, or of an effect or card (a continuous effect's,
    a trigger's card), as an argument: shown as its name where the reader knows one, never
    translated."""

    __slots__ = ()


class Grouped(int):
    """A number, as an argument, that the English text writes with its thousands grouped by
    commas (``100,000 characters``); other languages group it as they group every number, and
    as data it is its digits."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{int(self):,}"

    __repr__ = __str__


class Items(tuple["Arg", ...]):
    """Arguments written as a list: ``"and"`` joins ``ana and bo and cy`` (the engine's
    lists of players), ``","`` joins ``ana, bo`` (its lists of events)."""

    sep: str

    def __new__(cls, items: Iterable[Arg], sep: str = "and") -> Items:
        made = super().__new__(cls, items)
        made.sep = sep
        return made

    def __reduce__(self) -> tuple[type[Items], tuple[tuple[Arg, ...], str]]:
        return (Items, (tuple(self), self.sep))


Arg = Union[str, int, "Sentence", Items]

#: How each kind of argument is written in a language: ``number(n)`` and ``join(words, sep)``.
Number = Callable[[int], str]
Join = Callable[[list[str], str], str]


def english_join(words: list[str], sep: str) -> str:
    return (" and " if sep == "and" else ", ").join(words)


@lru_cache(maxsize=4096)
def _pieces(template: str) -> tuple[str, ...]:
    """``template`` cut at its placeholders: text, name, text, name, ..., text."""
    return tuple(PLACEHOLDER.split(template))


def fill(template: str, args: Mapping[str, str]) -> str:
    """``template`` with each ``{name}`` of ``args`` replaced by its text."""
    if "{" not in template:
        return template
    pieces = _pieces(template)
    out = [pieces[0]]
    for i in range(1, len(pieces), 2):
        name = pieces[i]
        text = args.get(name)
        out.append("{" + name + "}" if text is None else text)
        out.append(pieces[i + 1])
    return "".join(out)


class Sentence(str):
    """A sentence, equal to its English text, that keeps its template and arguments.

    ``Sentence("{player} can't gain life", player=Id("ana"))`` is the string ``"ana can't gain
    life"``; its ``template`` is the message id a catalogue translates."""

    template: str
    args: dict[str, Arg]
    plural: str | None
    count_by: str | None

    def __new__(cls, template: str, /, **args: Arg) -> Sentence:
        return cls._make(template, None, None, args)

    @classmethod
    def _make(
        cls, template: str, plural: str | None, count: str | None, args: dict[str, Arg]
    ) -> Sentence:
        chosen = template
        if plural is not None and count is not None and args.get(count) != 1:
            chosen = plural
        if args:
            text = fill(chosen, {k: v if type(v) is str else english(v) for k, v in args.items()})
        else:
            text = chosen
        made = super().__new__(cls, text)
        made.template = template
        made.args = args
        made.plural = plural
        made.count_by = count
        return made

    def __reduce__(self) -> tuple[Callable[..., Sentence], tuple[Any, ...]]:
        return (_rebuild, (self.template, self.plural, self.count_by, self.args))

    def __copy__(self) -> Sentence:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Sentence:
        return self

    def render(
        self,
        gettext: Callable[[str], str],
        ngettext: Callable[[str, str, int], str],
        number: Number = str,
        join: Join = english_join,
    ) -> str:
        """This sentence in the language of the catalogue functions given (those of a
        :class:`gettext.NullTranslations`; :func:`lifeledger.language.render` passes them)."""
        if self.plural is not None and self.count_by is not None:
            n = self.args.get(self.count_by)
            words = ngettext(self.template, self.plural, n if isinstance(n, int) else 2)
        else:
            words = gettext(self.template)
        if not self.args:
            return words

        def write(value: Arg) -> str:
            if isinstance(value, Sentence):
                return value.render(gettext, ngettext, number, join)
            if isinstance(value, Items):
                return join([write(v) for v in value], value.sep)
            if isinstance(value, int) and not isinstance(value, bool):
                return number(value)
            return str(value)

        return fill(words, {k: write(v) for k, v in self.args.items()})

    def to_json(self) -> dict[str, Any]:
        """The sentence as data for a reader that renders it (the table's page):
        ``{"msg": template, "args": {...}}``, with ``"plural"`` and ``"count"`` for a plural.
        An id is ``{"id": ...}``, a number ``{"n": "123"}`` (text: it may be huge), a list
        ``{"list": [...], "sep": "and"}``, a nested sentence the same shape, a literal a
        string."""
        out: dict[str, Any] = {"msg": self.template}
        if self.args:
            out["args"] = {k: _json_arg(v) for k, v in self.args.items()}
        if self.plural is not None:
            out["plural"] = self.plural
            out["count"] = self.count_by
        return out


def Plural(singular: str, plural: str, count: str, /, **args: Arg) -> Sentence:
    """A sentence whose words depend on a number: ``Plural("{n} card", "{n} cards", "n",
    n=3)``, the argument named ``count`` choosing the form (by the language's plural rule)."""
    return Sentence._make(singular, plural, count, args)


def english(value: Arg) -> str:
    """``value`` as the English text writes it."""
    if isinstance(value, Items):
        return english_join([english(v) for v in value], value.sep)
    return str(value)


def _json_arg(value: Arg) -> Any:
    if isinstance(value, Sentence):
        return value.to_json()
    if isinstance(value, Items):
        return {"list": [_json_arg(v) for v in value], "sep": value.sep}
    if isinstance(value, Id):
        return {"id": str(value)}
    if isinstance(value, int) and not isinstance(value, bool):
        return {"n": str(int(value))}  # within 10^1000 (lifeledger.bounds): always writable
    return str(value)


def _rebuild(
    template: str, plural: str | None, count: str | None, args: dict[str, Arg]
) -> Sentence:
    return Sentence._make(template, plural, count, args)

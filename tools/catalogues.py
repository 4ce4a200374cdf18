"""The message catalogues: find every message the code uses, bring each language's ``.po`` up
to date, compile the ``.mo`` files the programs read, and check that a complete language is
complete.

    python tools/catalogues.py update   # extract, merge into every .po, compile the .mo files
    python tools/catalogues.py check    # what make test checks; exit status 1 on a problem
    python tools/catalogues.py translate it words.json
        # sets translations from a JSON object {"<msgid>": "<translation>" or [<forms>], or
        # "<context>\u0004<msgid>": ...} in every domain that uses the message, then updates

Three gettext domains, one per reader of the words:

- ``lifeledger`` (the engine's sentences, ``src/lifeledger/locale``): the literal first
  arguments of ``Sentence(...)``, ``Plural(singular, plural, ...)`` and ``N_(...)`` calls in
  ``src/lifeledger``;
- ``lifeledger_table`` (the server's messages, ``src/lifeledger_table/locale``): the same
  calls in ``src/lifeledger_table``;
- ``page`` (the page's words, ``src/lifeledger_table/locale``): ``t("...")``,
  ``tn("singular", "plural", ...)`` and ``tc("context", "...")`` in
  ``src/lifeledger_table/static/*.js`` but ``i18n.js``, the translator (double-quoted
  literals; a call with anything else first is reported, since no catalogue could hold it).

English is the message ids themselves. A language is added by creating its
``<domain>.po`` files (copy the header of ``it``) and running ``update``; it is *complete*
once it is in :data:`COMPLETE`, and then ``check`` fails on any message it lacks.
"""

from __future__ import annotations

import ast
import io
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

#: The languages every message must be translated into.
COMPLETE = ("it",)

#: The date written in every catalogue's header (a date that changed on every update would
#: make every update a change).
DATE = datetime(2026, 11, 27, tzinfo=UTC)

PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
JS_STRING = r'"((?:[^"\\\n]|\\.)*)"'
JS_CALL = re.compile(r"(?<![\w.$])(t|tn|tc)\(\s*")
JS_ARGS = {
    "t": re.compile(JS_STRING),
    "tc": re.compile(JS_STRING + r"\s*,\s*" + JS_STRING),
    "tn": re.compile(JS_STRING + r"\s*,\s*" + JS_STRING),
}


@dataclass
class Message:
    """A message the code uses: its id, its plural id, its context and where it is used."""

    id: str
    plural: str | None = None
    context: str | None = None
    places: list[tuple[str, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Domain:
    name: str
    locale: Path
    sources: tuple[Path, ...]


def domains() -> list[Domain]:
    table = SRC / "lifeledger_table"
    py = sorted(p for p in (SRC / "lifeledger").rglob("*.py"))
    table_py = sorted(p for p in table.rglob("*.py"))
    # i18n.js is the page's translator itself: it translates the ids it is given.
    js = sorted(p for p in (table / "static").glob("*.js") if p.name != "i18n.js")
    return [
        Domain("lifeledger", SRC / "lifeledger" / "locale", tuple(py)),
        Domain("lifeledger_table", table / "locale", tuple(table_py)),
        Domain("page", table / "locale", tuple(js)),
    ]


def _rel(path: Path) -> str:
    """``path`` as a message names it: from the project's root where it is inside."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


class Problem(Exception):
    """A message the catalogues can't hold (not a literal)."""


def _key(m: Message) -> tuple[str | None, str]:
    return (m.context, m.id)


def _add(found: dict[tuple[str | None, str], Message], m: Message, where: tuple[str, int]) -> None:
    known = found.setdefault(_key(m), m)
    if known.plural != m.plural:
        raise Problem(f"{where[0]}:{where[1]}: {m.id!r} has two plural forms")
    known.places.append(where)


def extract_python(path: Path, found: dict[tuple[str | None, str], Message]) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    rel = str(_rel(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name = node.func.id
        if name not in ("Sentence", "Plural", "N_"):
            continue
        need = 2 if name == "Plural" else 1
        args = node.args[:need]
        if len(args) < need or not all(
            isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args
        ):
            raise Problem(f"{rel}:{node.lineno}: {name}(...) needs literal words first")
        words = [a.value for a in args if isinstance(a, ast.Constant)]
        plural = words[1] if name == "Plural" else None
        _add(found, Message(words[0], plural), (rel, node.lineno))


def _js_text(literal: str) -> str:
    return str(json.loads(f'"{literal}"'))


def extract_js(path: Path, found: dict[tuple[str | None, str], Message]) -> None:
    text = path.read_text(encoding="utf-8")
    rel = str(_rel(path))
    for call in JS_CALL.finditer(text):
        name = call.group(1)
        line = text.count("\n", 0, call.start()) + 1
        if text[call.start() - 9 : call.start()].endswith("function "):
            continue  # the definition of t/tn/tc itself
        got = JS_ARGS[name].match(text, call.end())
        if got is None:
            raise Problem(f"{rel}:{line}: {name}(...) needs double-quoted literal words first")
        if name == "t":
            m = Message(_js_text(got.group(1)))
        elif name == "tn":
            m = Message(_js_text(got.group(1)), _js_text(got.group(2)))
        else:
            m = Message(_js_text(got.group(2)), context=_js_text(got.group(1)))
        _add(found, m, (rel, line))


def extract(domain: Domain) -> dict[tuple[str | None, str], Message]:
    found: dict[tuple[str | None, str], Message] = {}
    for path in domain.sources:
        if path.suffix == ".py":
            extract_python(path, found)
        else:
            extract_js(path, found)
    return found


def languages(domain: Domain) -> list[str]:
    codes = {p.parent.parent.name for p in domain.locale.glob(f"*/LC_MESSAGES/{domain.name}.po")}
    return sorted(codes | set(COMPLETE))


def po_path(domain: Domain, lang: str) -> Path:
    return domain.locale / lang / "LC_MESSAGES" / f"{domain.name}.po"


def read(domain: Domain, lang: str) -> Catalog:
    path = po_path(domain, lang)
    if not path.exists():
        return Catalog(locale=lang, domain=domain.name)
    with path.open("rb") as fp:
        return read_po(fp, locale=lang, domain=domain.name)


def merged(domain: Domain, lang: str, found: dict[tuple[str | None, str], Message]) -> Catalog:
    """The catalogue of ``lang`` with exactly the messages found, in the order the code
    uses them, keeping every translation still used."""
    old = read(domain, lang)
    new = Catalog(
        locale=lang,
        domain=domain.name,
        project="lifeledger",
        version="1",
        copyright_holder="the lifeledger authors",
        fuzzy=False,
        creation_date=DATE,
        revision_date=DATE,
    )
    for m in found.values():
        before = old.get(m.id if m.plural is None else (m.id, m.plural), context=m.context)
        if before is None:
            before = old.get(m.id, context=m.context)
        string: str | tuple[str, ...] = "" if m.plural is None else ("", "")
        if before is not None and before.string and (m.plural is None) == (not before.pluralizable):
            string = before.string
        new.add(
            m.id if m.plural is None else (m.id, m.plural),
            string,
            locations=[(f, n) for f, n in m.places[:3]],
            context=m.context,
        )
    return new


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=100, omit_header=False, sort_output=False, include_lineno=False)
    return out.getvalue()


def update(doms: list[Domain] | None = None) -> None:
    for domain in domains() if doms is None else doms:
        found = extract(domain)
        for lang in languages(domain):
            catalog = merged(domain, lang, found)
            path = po_path(domain, lang)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(po_bytes(catalog))
            compiled = read(domain, lang)
            path.with_suffix(".mo").write_bytes(mo_bytes(compiled))
            missing = sum(1 for m in compiled if m.id and not _translated(m.string))
            print(f"{_rel(path)}: {len(found)} messages, {missing} untranslated")


def _translated(string: str | tuple[str, ...] | None) -> bool:
    if isinstance(string, tuple):
        return all(string)
    return bool(string)


def _names(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def problems(doms: list[Domain] | None = None, terms: Glossary | None = None) -> list[str]:
    """Every way the catalogues fall short of the code: a message of a complete language
    without a translation, a message no longer used, a placeholder the translation lacks or
    adds, plural forms in the wrong number, a ``.mo`` older than its ``.po``; and an Italian
    message that falls short of the glossary (:func:`glossary_problems`)."""
    out: list[str] = []
    words = glossary() if terms is None else terms
    cards = card_names()
    for domain in domains() if doms is None else doms:
        try:
            found = extract(domain)
        except Problem as exc:
            out.append(str(exc))
            continue
        for lang in languages(domain):
            path = po_path(domain, lang)
            rel = _rel(path)
            if not path.exists():
                out.append(f"{rel}: missing (run: make catalogues)")
                continue
            catalog = read(domain, lang)
            keys = {
                (m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id
            }
            for key, m in found.items():
                if key not in keys:
                    out.append(f"{rel}: lacks {m.id!r} (used at {m.places[0][0]}:{m.places[0][1]})")
            for key in sorted(keys - set(found), key=str):
                out.append(f"{rel}: {key[1]!r} is no longer used (run: make catalogues)")
            forms = int(re.search(r"nplurals=(\d+)", catalog.plural_forms).group(1))  # type: ignore[union-attr]
            for m in catalog:
                if not m.id:
                    continue
                ids = m.id if isinstance(m.id, tuple) else (m.id,)
                strings = m.string if isinstance(m.string, tuple) else (m.string,)
                if lang in COMPLETE and not _translated(m.string):
                    out.append(f"{rel}: {ids[0]!r} has no translation")
                    continue
                if isinstance(m.id, tuple) and len(strings) != forms:
                    out.append(f"{rel}: {ids[0]!r} has {len(strings)} plural forms, not {forms}")
                if lang == "it":
                    out.extend(glossary_problems(rel, m, words, cards))
                wanted = set().union(*(_names(i) for i in ids))
                for s in strings:
                    # A plural's form may leave the number out ("un segnalino"), no more.
                    bad = not _names(s) <= wanted if len(ids) > 1 else _names(s) != wanted
                    if s and bad:
                        out.append(
                            f"{rel}: {ids[0]!r}: placeholders {sorted(_names(s))} in {s!r},"
                            f" not {sorted(wanted)}"
                        )
            mo = path.with_suffix(".mo")
            if not mo.exists() or mo.read_bytes() != mo_bytes(catalog):
                out.append(f"{_rel(mo)}: not compiled from its .po (run: make catalogues)")
    return out


#: The glossary of the official Italian terms (docs/glossary-it.md): the check holds every
#: Italian message to it.
GLOSSARY = ROOT / "tools" / "glossary_it.json"

#: What an Italian message may hold that is not Italian, and is left out before its words are
#: checked: placeholders, quoted text ("...", «...», “...”, `...`), identifiers and paths
#: (a word with ``_ . / [ ] = -`` or a digit in it), command-line options, words in capitals
#: (JSON, LANGUAGE).
_NOT_WORDS = re.compile(
    r"\{[a-z_]+\}|\"[^\"]*\"|«[^»]*»|“[^”]*”|`[^`]*`|--?[a-z][\w-]*"
    r"|[\w'.\[\]/=-]*[_./\[\]=\d-][\w'.\[\]/=-]*|\b[A-Z]{2,}\b"
)
_WORD = re.compile(r"[A-Za-zÀ-ÿ]+(?:'[a-z]+)?")


@dataclass(frozen=True)
class Glossary:
    """The glossary's terms (an English pattern, the Italian forms that may stand for it),
    the English words no Italian message has, the identifiers one may, and the messages a
    term is documented not to apply to."""

    terms: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]
    english: frozenset[str]
    identifiers: frozenset[str]
    exceptions: frozenset[tuple[str, str]]


def glossary(path: Path = GLOSSARY) -> Glossary:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Glossary(
        tuple((re.compile(t["en"], re.IGNORECASE), tuple(t["it"])) for t in data["terms"]),
        frozenset(data["english_words"]),
        frozenset(data["identifiers"]),
        frozenset((e["msgid"], e["en"]) for e in data["exceptions"]),
    )


def card_names() -> tuple[str, ...]:
    """The names of the engine's catalogue cards, which stay as printed in every language,
    and the glossary's other names kept as they are (longest first, so that a name inside
    another is not cut out first)."""
    sys.path.insert(0, str(SRC))
    from lifeledger.effects import CATALOGUE

    kept = json.loads(GLOSSARY.read_text(encoding="utf-8"))["kept_names"]
    return tuple(sorted([*CATALOGUE, *kept], key=len, reverse=True))


def english_left(text: str, words: Glossary, cards: tuple[str, ...] = ()) -> list[str]:
    """The English words ``text`` (an Italian message) still holds: card names, placeholders,
    quoted text and identifiers aside."""
    for name in cards:
        text = text.replace(name, " ")
    text = _NOT_WORDS.sub(" ", text)
    return [
        w for w in _WORD.findall(text) if w.lower() in words.english and w not in words.identifiers
    ]


def glossary_problems(rel: str, m: Any, words: Glossary, cards: tuple[str, ...]) -> list[str]:
    """How an Italian message falls short of the glossary: an English word left in it, a
    term of its English without the term's Italian."""
    out: list[str] = []
    ids = m.id if isinstance(m.id, tuple) else (m.id,)
    strings = [s for s in (m.string if isinstance(m.string, tuple) else (m.string,)) if s]
    for s in strings:
        left = english_left(s, words, cards)
        if left:
            out.append(f"{rel}: {ids[0]!r}: English left in {s!r}: {', '.join(left)}")
    english = PLACEHOLDER.sub(" ", " ".join(ids))
    for name in cards:
        english = english.replace(name, " ")
    for pattern, forms in words.terms:
        if not pattern.search(english) or (ids[0], pattern.pattern) in words.exceptions:
            continue
        for s in strings:
            if not any(f.lower() in s.lower() for f in forms):
                out.append(
                    f"{rel}: {ids[0]!r}: {pattern.pattern!r} is {' or '.join(forms)!r}"
                    f" in Italian (tools/glossary_it.json), not as in {s!r}"
                )
    return out


def translate(lang: str, words: dict[str, str | list[str]]) -> None:
    """Set the translations ``words`` gives (by message id, or context and id joined by
    ``\x04``) in every catalogue of ``lang`` that has the message, then :func:`update`. Each
    catalogue is read and written at once, so that people translating different messages at
    the same time don't undo each other's work."""
    update()
    left = dict(words)
    for domain in domains():
        catalog = read(domain, lang)
        changed = False
        for m in catalog:
            if not m.id:
                continue
            msgid = m.id if isinstance(m.id, str) else m.id[0]
            key = msgid if m.context is None else f"{m.context}\x04{msgid}"
            if key in words:
                given = words[key]
                m.string = tuple(given) if isinstance(given, list) else given
                left.pop(key, None)
                changed = True
        if changed:
            po_path(domain, lang).write_bytes(po_bytes(catalog))
    for key in left:
        print(f"not used by the code: {key!r}")
    update()


def main(argv: list[str]) -> int:
    if argv[1:] == ["update"]:
        update()
        return 0
    if len(argv) == 4 and argv[1] == "translate":
        translate(argv[2], json.loads(Path(argv[3]).read_text(encoding="utf-8")))
        return 0
    if argv[1:] == ["check"]:
        found = problems()
        for line in found:
            print(line)
        print(f"catalogues: {len(found)} problems")
        return 1 if found else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""The game record (``../shared/spec/game-record.md``, version 1, and ``docs/record-format.md``,
version 2): JSON in, actions out, and back.

A record is a *document* (one JSON object: the header and ``"actions"``) or a *stream* (the
header on the first line, then one action per line). :func:`replay` plays one; a stream replays
in memory that does not grow with its length.

The record's JSON (:mod:`lifeledger.recordjson`), its header (:mod:`lifeledger.header`) and its
actions read and written (:mod:`lifeledger.parsing`, :mod:`lifeledger.formatting`) are modules
of their own; this one replays, and every name those hold stays importable from it.
"""

from __future__ import annotations

import io
import itertools
import json
import json.scanner
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .actions import Action
from .errors import MalformedError, RefusedError
from .formatting import _amount_json as _amount_json
from .formatting import format_action as format_action
from .game import RECORD_VERSIONS, Game, Note
from .header import _SEAT_MEMBERS as _SEAT_MEMBERS
from .header import Header as Header
from .header import _parse_seat as _parse_seat
from .header import format_header as format_header
from .header import parse_header as parse_header
from .parsing import _DAMAGE as _DAMAGE
from .parsing import _FAST as _FAST
from .parsing import _NO_NOTE as _NO_NOTE
from .parsing import _PARSERS as _PARSERS
from .parsing import _PLAYER as _PLAYER
from .parsing import _PLAYER_AMOUNT as _PLAYER_AMOUNT
from .parsing import _PLAYER_COUNT as _PLAYER_COUNT
from .parsing import _PLAYER_KIND_AMOUNT as _PLAYER_KIND_AMOUNT
from .parsing import _PLAYER_TO as _PLAYER_TO
from .parsing import MAX_GROUP_DEPTH as MAX_GROUP_DEPTH
from .parsing import _add_counters as _add_counters
from .parsing import _affects as _affects
from .parsing import _card as _card
from .parsing import _cast as _cast
from .parsing import _choose as _choose
from .parsing import _concede as _concede
from .parsing import _damage as _damage
from .parsing import _day_night as _day_night
from .parsing import _draw as _draw
from .parsing import _draw_game as _draw_game
from .parsing import _effect as _effect
from .parsing import _either as _either
from .parsing import _end as _end
from .parsing import _exchange_life as _exchange_life
from .parsing import _fast_counters as _fast_counters
from .parsing import _fast_damage as _fast_damage
from .parsing import _fast_player as _fast_player
from .parsing import _fast_player_number as _fast_player_number
from .parsing import _gain_life as _gain_life
from .parsing import _group_depth as _group_depth
from .parsing import _intentional_draw as _intentional_draw
from .parsing import _line_action as _line_action
from .parsing import _loop as _loop
from .parsing import _lose as _lose
from .parsing import _lose_life as _lose_life
from .parsing import _members as _members
from .parsing import _of_one_player as _of_one_player
from .parsing import _parse_action as _parse_action
from .parsing import _Parser as _Parser
from .parsing import _parser as _parser
from .parsing import _pay_life as _pay_life
from .parsing import _penalty as _penalty
from .parsing import _redistribute_life as _redistribute_life
from .parsing import _remove_counters as _remove_counters
from .parsing import _repeat as _repeat
from .parsing import _restart as _restart
from .parsing import _set_library as _set_library
from .parsing import _set_life as _set_life
from .parsing import _sourced as _sourced
from .parsing import _step as _step
from .parsing import _together as _together
from .parsing import _win as _win
from .parsing import parse_action as parse_action
from .parsing import use_decoder as use_decoder
from .parsing import use_reader as use_reader
from .recordjson import _BOM as _BOM
from .recordjson import _DECODER as _DECODER
from .recordjson import _MIN_INTEGER as _MIN_INTEGER
from .recordjson import _SCAN as _SCAN
from .recordjson import RECORD_VERSION as RECORD_VERSION
from .recordjson import Json as Json
from .recordjson import _amount as _amount
from .recordjson import _boolean as _boolean
from .recordjson import _check_members as _check_members
from .recordjson import _Duplicates as _Duplicates
from .recordjson import _integer as _integer
from .recordjson import _json_integer as _json_integer
from .recordjson import _json_object as _json_object
from .recordjson import _keys as _keys
from .recordjson import _kind as _kind
from .recordjson import _LongNumber as _LongNumber
from .recordjson import _mapping as _mapping
from .recordjson import _object as _object
from .recordjson import _optional_string as _optional_string
from .recordjson import _parse_line as _parse_line
from .recordjson import _string as _string
from .recordjson import _string_list as _string_list
from .recordjson import parse_json as parse_json
from .sentences import Sentence

__all__ = [
    "RECORD_VERSION",
    "RECORD_VERSIONS",
    "Header",
    "Refusal",
    "Replay",
    "Step",
    "dumps",
    "format_action",
    "format_header",
    "load",
    "loads",
    "parse_action",
    "parse_header",
    "parse_json",
    "replay",
    "source_of",
    "start",
    "steps",
    "use_decoder",
    "use_reader",
]


# -- replaying ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused action: its position, the rule that refuses it and a sentence."""

    position: str
    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a replay: what it was, whether it was refused, and its consequences."""

    position: str
    action: Action
    refusal: Refusal | None
    notes: tuple[Note, ...]


@dataclass
class Replay:
    """The result of replaying a record: the game after its last action and the refusals."""

    game: Game
    refused: list[Refusal] = field(default_factory=list)


def steps(
    game: Game, actions: Iterable[Json], start: int = 0, *, member: str | None = None
) -> Iterator[Step]:
    """Apply record actions (JSON objects) to ``game`` one by one, yielding a :class:`Step`
    for each. A refused action is reported and the replay goes on; a malformed one raises
    :class:`MalformedError` naming its position, and nothing past it is applied. ``member``
    is where the actions sit (``actions`` in a document), named if one is not an object."""
    for play in _plays(game, actions, start, member):
        yield Step(*play)


#: One action of a replay as :class:`Step` has it, as a tuple (made at less cost).
_Play = tuple[str, Action, Refusal | None, tuple[Note, ...]]


def _plays(
    game: Game, actions: Iterable[Json], start: int = 0, member: str | None = None
) -> Iterator[_Play]:
    """:func:`steps`, as tuples."""
    for index, value in enumerate(actions, start):
        position = str(index)
        action = parse_action(value, position, member=member)
        try:
            game.apply(action)
        except RefusedError as exc:
            yield position, action, Refusal(position, exc.rule, exc.message), ()
        except MalformedError as exc:
            raise exc.at(position) from None
        else:
            yield position, action, None, tuple(game.notes)


def _document_parts(document: Json) -> tuple[Header, list[Json]]:
    header = parse_header(document)
    actions = document.get("actions")
    if actions is None:
        raise MalformedError(
            Sentence(
                "missing member (a document lists its actions; a stream's header alone must be"
                " in a .jsonl file or be followed by actions, one per line)"
            ),
            member="actions",
        )
    if not isinstance(actions, list):
        raise MalformedError(
            Sentence("actions is a list, not {kind}", kind=_kind(actions)), member="actions"
        )
    return header, actions


def _stream_head(lines: Iterable[str]) -> tuple[Header, Iterator[str]]:
    """A stream's header, and the lines after it (blank ones included)."""
    iterator = iter(lines)
    first = next((line for line in _without_bom(iterator) if line.strip()), None)
    if first is None:
        raise MalformedError(Sentence("an empty record: the header is missing"))
    return parse_header(parse_json(first), stream=True), iterator


def _stream_plays(game: Game, lines: Iterable[str]) -> Iterator[_Play]:
    """:func:`_plays` for the lines of a stream after its header (blank ones are left out),
    each line seen before parsed only once (:data:`LINE_CACHE`)."""
    parse = _line_parser()
    apply = game.apply
    index = -1
    for line in lines:
        if not line or line.isspace():
            continue
        index += 1
        position = str(index)
        try:
            action = parse(line)
            apply(action)
        except RefusedError as exc:
            yield position, action, Refusal(position, exc.rule, exc.message), ()
        except MalformedError as exc:
            raise exc.at(position) from None
        else:
            yield position, action, None, tuple(game.notes)


def start(
    source: Json | Iterable[str], *, keep_history: bool = True
) -> tuple[Game, Iterator[Step]]:
    """Begin replaying a record: a document (a JSON object already parsed), or the lines of
    a stream. Returns the game at its start and the steps that play it, one by one."""
    game, plays = _start(source, keep_history=keep_history)
    return game, (Step(*play) for play in plays)


def _start(source: Json | Iterable[str], *, keep_history: bool) -> tuple[Game, Iterator[_Play]]:
    """:func:`start`, with each step as a tuple (for the command line's timeline)."""
    if isinstance(source, dict):
        header, actions = _document_parts(source)
        game = header.new_game(keep_history=keep_history)
        return game, _plays(game, actions, member="actions")
    header, lines = _stream_head(source)
    game = header.new_game(keep_history=keep_history)
    return game, _stream_plays(game, lines)


#: How many distinct lines of a stream a replay remembers the actions of. Games repeat
#: themselves ("ana loses 1 life", tap after tap): a line seen before is not parsed again.
#: Actions are immutable, so one may be applied many times; the bound keeps memory constant.
LINE_CACHE = 4096


def replay(
    source: Json | Iterable[str], *, keep_history: bool = True, deadline: float | None = None
) -> Replay:
    """Replay a whole record (see :func:`start`). Refusals are collected; a malformed record
    raises :class:`MalformedError`. ``deadline``: the game's (:attr:`Game.deadline`), past
    which the replay stops with :class:`TooMuchWork`."""
    if not isinstance(source, dict):
        header, lines = _stream_head(source)
        game = header.new_game(keep_history=keep_history)
        game.deadline = deadline
        result = Replay(game)
        _replay_lines(game, lines, result.refused)
        return result
    header, items = _document_parts(source)
    game = header.new_game(keep_history=keep_history)
    game.deadline = deadline
    result = Replay(game)
    apply = game.apply
    for index, item in enumerate(items):
        try:
            apply(parse_action(item, member="actions"))
        except RefusedError as exc:
            result.refused.append(Refusal(str(index), exc.rule, exc.message))
        except MalformedError as exc:
            raise exc.at(str(index)) from None
        if game.refusals:
            result.refused.extend(_refusals_in_group(game, str(index)))
    return result


#: What a replay shows of each step (the command line's timeline): its position, action,
#: refusal and notes, as :class:`Step` has them.
_Show = Callable[[str, Action, Refusal | None, Sequence[Note]], None]


def _replay_lines(
    game: Game,
    lines: Iterable[str],
    refused: list[Refusal] | None,
    show: _Show | None = None,
    every: Callable[[], None] = lambda: None,
) -> None:
    """Apply the action lines of a stream to ``game`` (blank lines left out), collecting the
    refusals (unless ``refused`` is ``None``) and showing each step (with ``show``; ``every``
    is called every 1,024 of them): the loop of ``lifeledger replay``, which costs a line no
    more than its parsing and its action. A line seen before is parsed only once
    (:data:`LINE_CACHE`), as long as lines repeat at all (see :func:`_line_parser`)."""
    apply = game.apply
    seen: dict[str, Action] = {}
    hits = skip = 0
    index = -1
    try:
        for line in lines:
            if not line or line.isspace():
                continue
            index += 1
            if skip:
                skip -= 1
                action = _line_action(line)
            else:
                cached = seen.get(line)
                if cached is None:
                    action = _line_action(line)
                    if len(seen) < LINE_CACHE:
                        seen[line] = action
                    elif hits < LINE_CACHE // 8:
                        seen.clear()
                        hits, skip = 0, 16 * LINE_CACHE
                else:
                    hits += 1
                    action = cached
            try:
                apply(action)
            except RefusedError as exc:
                refusal = Refusal(str(index), exc.rule, exc.message)
                if refused is not None:
                    refused.append(refusal)
                if show is not None:
                    show(refusal.position, action, refusal, ())
                continue
            if show is not None:
                show(str(index), action, None, game.notes)
                if not index & 1023:
                    every()
            if game.refusals and refused is not None:
                refused.extend(_refusals_in_group(game, str(index)))
    except MalformedError as exc:
        raise exc.at(str(index)) from None


def _replayer(
    source: Json | Iterable[str], *, keep_history: bool
) -> tuple[Game, Callable[[_Show, Callable[[], None]], None]]:
    """The game of a record at its start, and a function that replays the record showing
    each step and calling its second argument every 1,024 steps or so (the command line's
    timeline; :func:`start` gives the same steps one by one)."""
    if isinstance(source, dict):
        header, actions = _document_parts(source)
        game = header.new_game(keep_history=keep_history)

        def run(show: _Show, every: Callable[[], None]) -> None:
            for play in _plays(game, actions, member="actions"):
                show(*play)
                if not int(play[0]) & 1023:
                    every()

        return game, run
    header, lines = _stream_head(source)
    game = header.new_game(keep_history=keep_history)
    return game, lambda show, every: _replay_lines(game, lines, None, show, every)


def _line_parser() -> Callable[[str], Action]:
    """A parser of stream lines that parses a line seen before only once (:data:`LINE_CACHE`).
    Where lines hardly repeat (fewer than one in eight of the first :data:`LINE_CACHE`
    distinct ones), looking each up costs more than it saves: the cache is set aside for the
    next ``16 * LINE_CACHE`` lines, then tried again afresh."""
    seen: dict[str, Action] = {}
    hits = skip = 0

    def parse(line: str) -> Action:
        nonlocal hits, skip
        if skip:
            skip -= 1
            return _line_action(line)
        action = seen.get(line)
        if action is not None:
            hits += 1
            return action
        action = _line_action(line)
        if len(seen) < LINE_CACHE:
            seen[line] = action
        elif hits < LINE_CACHE // 8:
            seen.clear()
            hits, skip = 0, 16 * LINE_CACHE
        return action

    return parse


def _refusals_in_group(game: Game, position: str) -> list[Refusal]:
    """The refused actions inside the group just applied at ``position`` (609.3)."""
    return [Refusal(f"{position}.{inner}", e.rule, e.message) for inner, e in game.refusals]


def _without_bom(lines: Iterator[str]) -> Iterator[str]:
    """``lines`` without the UTF-8 byte-order mark that may begin the first one (which is read
    at once; the others are passed on as they come, at no cost per line)."""
    for line in lines:
        return itertools.chain((line[1:] if line.startswith(_BOM) else line,), lines)
    return iter(())


def source_of(lines: Iterable[str], *, stream: bool | None = None) -> Json | Iterator[str]:
    """The parsed document, or the stream's lines (read lazily, so that a long stream is never
    held in memory). ``stream`` says which it is (``True`` for a ``.jsonl`` file); ``None``
    tells them apart by their content: a first line that is a whole JSON object without
    ``actions``, followed by more lines, begins a stream. Such an object alone is a document
    without ``actions`` (malformed), whatever it is read from, unless ``stream`` says it is
    a stream. A byte-order mark at the start is skipped."""
    iterator = _without_bom(iter(lines))
    if stream:
        return iterator
    head: list[str] = []
    for line in iterator:
        head.append(line)
        if line and not line.isspace():
            break
    else:
        raise MalformedError(Sentence("not JSON: the record is empty"))
    try:
        first = parse_json(head[-1])
    except MalformedError:  # not one whole JSON value: the first line of a document
        document = parse_json("".join(itertools.chain(head, iterator)))
    else:
        after = next((line for line in iterator if line and not line.isspace()), None)
        if after is None:
            document = first  # the only line: never parsed twice
        elif stream is None and isinstance(first, dict) and "actions" not in first:
            return itertools.chain(head, (after,), iterator)
        else:
            document = parse_json("".join(itertools.chain(head, (after,), iterator)))
    if not isinstance(document, dict):
        raise MalformedError(
            Sentence("a record is a JSON object, not {kind}", kind=_kind(document))
        )
    return document


#: Where ``str.splitlines`` splits a line and a file does not (a JSON string may hold the last
#: three as they are).
_OTHER_LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text``, split where a file's are (at ``\\n``, ``\\r\\n`` and ``\\r``)."""
    if any(mark in text for mark in _OTHER_LINE_BREAKS):
        return iter(io.StringIO(text, newline=None))  # slower, so only where needed
    return iter(text.splitlines(keepends=True))


def loads(text: str, *, stream: bool | None = None, keep_history: bool = True) -> Replay:
    """Replay a record given as text, document or stream: ``stream`` says which it is, as for
    :func:`source_of` (``None``: told apart by the content). A stream's header alone, with no
    actions yet (what :func:`dumps` writes for a game without any), is a stream only with
    ``stream=True``, as it is one only in a ``.jsonl`` file."""
    return replay(source_of(_lines(text), stream=stream), keep_history=keep_history)


def load(path: str | Path, *, keep_history: bool = True) -> Replay:
    """Replay the record in the file at ``path`` (``.jsonl``: a stream; else told apart by
    its content, see :func:`source_of`)."""
    path = Path(path)
    with path.open(encoding="utf-8-sig") as lines:
        source = source_of(lines, stream=True if path.suffix == ".jsonl" else None)
        return replay(source, keep_history=keep_history)


def dumps(game: Game, *, stream: bool = False) -> str:
    """``game``'s header and history as a record that replays to the same state (with
    ``stream``, a stream: read it back with ``loads(text, stream=True)`` or from a ``.jsonl``
    file, since a game without actions is its header alone)."""
    if game.history is None:
        raise ValueError("this game keeps no history (keep_history=False)")
    header = format_header(game)
    actions = [format_action(a) for a in game.history]
    if stream:
        lines = [json.dumps(header)] + [json.dumps(a) for a in actions]
        return "\n".join(lines) + "\n"
    return json.dumps({**header, "actions": actions}, indent=1)

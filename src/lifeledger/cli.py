"""The ``lifeledger`` command line: ``replay`` a record, ``serve`` the table app, write it as
a static ``app``, print the record's JSON ``schema``."""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import sys
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import TextIO

from .budget import MAX_STEPS
from .errors import MalformedError, TooMuchWork
from .language import LANGUAGES, Language, language
from .record import _replayer, replay, source_of, start
from .sentences import N_, Grouped, Sentence
from .state import state_dict
from .timeline import Timeline, escaped

__all__ = ["failure", "main", "replay_json", "schema_text"]

#: How long ``lifeledger replay`` works on a record by default, in seconds.
DEFAULT_TIME_LIMIT = 600.0


def _open(path: str) -> TextIO:
    # Strict UTF-8 for both (standard input's default would let bad bytes through); a
    # byte-order mark at the start, which some editors write, is skipped.
    if path == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", errors="strict")
    return open(path, encoding="utf-8-sig")


def _error(name: str, message: str, lang: Language) -> int:
    """Print one line on standard error in ``lang`` (escaped: it may quote the record) and
    return 2."""
    print(escaped(f"lifeledger: {lang.text(name)}: {lang.text(message)}"), file=sys.stderr)
    return 2


def _language(code: str | None) -> Language | None:
    """The language of ``--lang CODE`` (``it``, ``it_IT``, ``it-IT``), or the environment's
    (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: English where it names none the
    engine has, ``C`` and ``POSIX`` too) without it; ``None`` for a code of no language the
    engine has (:data:`lifeledger.language.LANGUAGES`)."""
    if code is None:
        return language(None)
    found = language(code)
    base = code.replace("-", "_").split(".")[0].split("_")[0].lower()
    return found if found.code != "en" or base == "en" else None


def _write(lines: list[str]) -> None:
    """Write ``lines`` on standard output, and forget them."""
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
        lines.clear()


#: The exit status of a replay stopped by ``--time-limit``.
TIMED_OUT = 3


def _replay(args: argparse.Namespace) -> int:
    lang = _language(args.lang)
    if lang is None:
        return _error(
            "--lang",
            Sentence(
                "no language {code} (one of {codes})",
                code=repr(args.lang),
                codes=", ".join(LANGUAGES),
            ),
            language("en"),
        )
    name = Sentence("standard input") if args.record == "-" else args.record
    if not args.time_limit >= 0:  # NaN too
        return _error(
            "--time-limit",
            Sentence("a number of seconds, 0 or more, not {value}", value=str(args.time_limit)),
            lang,
        )
    deadline = time.monotonic() + args.time_limit if args.time_limit else None
    if args.fast:
        try:
            importlib.import_module("lifeledger_fast").install()
        except ImportError as exc:
            return _error(
                "--fast",
                Sentence(
                    "{error}; install the fast extra with pip install 'lifeledger[fast]'",
                    error=str(exc),
                ),
                lang,
            )
    try:
        stream = _open(args.record)
    except OSError as exc:
        return _error(name, str(exc.strerror), lang)
    try:
        with stream:
            # A .jsonl file is a stream; anything else is told apart by its content.
            is_stream = True if args.record.endswith(".jsonl") else None
            if args.json:
                sys.stdout.write(replay_json(stream, is_stream=is_stream, deadline=deadline))
                return 0
            source = source_of(stream, stream=is_stream)
            if sys.stdout.isatty():  # a person watches: each line as it comes
                game, played = start(source, keep_history=False)
                game.deadline = deadline
                colour = "NO_COLOR" not in os.environ
                timeline = Timeline(game, print, colour=colour, language=lang)
                timeline.header()
                for step in played:
                    timeline(step)
                timeline.footer()
                return 0
            # A pipe or a file: the lines are written a few thousand at a time, and each step
            # is shown as it is played (the same steps, at less cost).
            game, run = _replayer(source, keep_history=False)
            game.deadline = deadline
            lines: list[str] = []
            timeline = Timeline(game, lines.append, language=lang)
            try:
                timeline.header()
                run(timeline._plain, lambda: _write(lines))
                timeline.footer()
            finally:
                _write(lines)
            return 0
    except TooMuchWork as exc:
        _error(name, failure(exc, args.time_limit), lang)
        return TIMED_OUT if exc.limit == "deadline" else 2
    except MalformedError as exc:
        return _error(name, failure(exc, args.time_limit), lang)
    except UnicodeDecodeError:
        return _error(name, Sentence("not UTF-8 text"), lang)


def replay_json(
    stream: TextIO, *, is_stream: bool | None = None, deadline: float | None = None
) -> str:
    """What ``lifeledger replay --json`` prints for the record ``stream`` holds: its state as
    JSON text (the device's engine gives the same text). ``is_stream``: a stream of lines
    (``True``), a document (``False``), or told apart by its content (``None``). Raises
    :class:`MalformedError`, or :class:`TooMuchWork` (:func:`failure` words either)."""
    result = replay(source_of(stream, stream=is_stream), keep_history=False, deadline=deadline)
    return json.dumps(state_dict(result.game, result.refused), indent=1) + "\n"


def failure(exc: MalformedError | TooMuchWork, time_limit: float) -> Sentence:
    """Why a replay stopped, as ``lifeledger replay`` says it after the record's name: a
    malformed record, too much work, or its time limit of ``time_limit`` seconds passed."""
    if not isinstance(exc, TooMuchWork) or exc.limit != "deadline":
        return exc.sentence
    where = (
        Sentence("the header")
        if exc.position is None
        else Sentence("action {position}", position=exc.position)
    )
    return Sentence(
        "the replay took more than its time limit of {seconds} s (at {where}); give it"
        " longer with --time-limit SECONDS (0: no limit)",
        seconds=f"{time_limit:g}",
        where=where,
    )


def _table_app(module: str, command: str, lang: Language) -> ModuleType | None:
    """A module of the table app, a layer on top of the engine with dependencies of its own
    (imported only when a command asks for it); ``None``, having said how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        said = Sentence(
            "{error}; install the table app with pip install 'lifeledger[table]'", error=str(exc)
        )
        print(f"lifeledger {command}: {lang.text(said)}", file=sys.stderr)
        return None


def _serve(args: argparse.Namespace) -> int:
    lang = _language(None)
    assert lang is not None
    server = _table_app("lifeledger_table.server", "serve", lang)
    if server is None:
        return 2
    # The engine the phones run (Pyodide's files, which make installs): missing, the pages
    # would load and their engine would not.
    missing = importlib.import_module("lifeledger_table.web.engine").missing_pyodide()
    if missing:
        said = Sentence(
            "Pyodide's files are missing ({files}); run make in the source tree (npm ci and"
            " the copy into lifeledger_table/pyodide/), or install a built lifeledger package",
            files=", ".join(missing),
        )
        print(f"lifeledger serve: {lang.text(said)}", file=sys.stderr)
        return 2
    # The pages' scripts (each page's bundle, which make builds with esbuild): missing, the
    # pages would load no script.
    missing = importlib.import_module("lifeledger_table.web.pages").missing_bundles()
    if missing:
        said = Sentence(
            "the pages' scripts are missing ({files}); run make in the source tree (make"
            " bundles: esbuild bundles them into lifeledger_table/bundles/), or install a built"
            " lifeledger package",
            files=", ".join(missing),
        )
        print(f"lifeledger serve: {lang.text(said)}", file=sys.stderr)
        return 2
    if (args.cert is None) != (args.key is None):
        said = Sentence("--cert and --key go together")
        print(f"lifeledger serve: {lang.text(said)}", file=sys.stderr)
        return 2
    server.run(
        args.host,
        args.port,
        args.db,
        cert=args.cert,
        key=args.key,
        trusted_proxies=args.trusted_proxy,
        pool_size=args.db_pool,
        workers=args.workers,
        internal=args.internal,
    )
    return 0


def _app(args: argparse.Namespace) -> int:
    lang = _language(None)
    assert lang is not None
    staticapp = _table_app("lifeledger_table.web.staticapp", "app", lang)
    if staticapp is None:
        return 2
    try:
        written = staticapp.write_app(Path(args.directory))
    except (staticapp.AppError, OSError) as exc:
        print(escaped(f"lifeledger app: {exc}"), file=sys.stderr)
        return 2
    said = Sentence(
        "{directory}: the app, {count} files; serve the folder with any static web host, e.g."
        " python -m http.server -d {directory}",
        directory=args.directory,
        count=len(written),
    )
    print(lang.text(said))
    return 0


def schema_text() -> str:
    """The JSON Schema (draft 2020-12) of the game record, versions 1 and 2: the package's
    ``schema/record.schema.json`` (written by ``tools/schema.py``; docs/conformance.md)."""
    return (resources.files("lifeledger") / "schema" / "record.schema.json").read_text("utf-8")


def _schema(args: argparse.Namespace) -> int:
    sys.stdout.write(schema_text())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 for a malformed record)."""
    # The help is written in the language asked for (--lang, else the environment's).
    early = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    early.add_argument("--lang")
    try:
        asked = early.parse_known_args(argv)[0].lang
    except argparse.ArgumentError:  # --lang without a code: the parser below says so
        asked = None
    lang = _language(asked) or language("en")
    t = lang.gettext
    parser = argparse.ArgumentParser(
        prog="lifeledger", description=t(N_("Life totals and game results, by the rules."))
    )
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("replay", help=t(N_("replay a game record")))
    play.add_argument(
        "record", help=t(N_("a record file (.json or .jsonl), or - for standard input"))
    )
    play.add_argument(
        "--json",
        action="store_true",
        help=t(
            N_(
                "print the state as JSON: data, the same in every language (its messages in"
                " English)"
            )
        ),
    )
    play.add_argument(
        "--lang",
        metavar="CODE",
        help=t(
            N_(
                "the language of the timeline and of the error messages: {codes} (default: the"
                " environment's, LANGUAGE, LC_ALL, LC_MESSAGES or LANG; English where it names"
                " none of them)"
            )
        ).replace("{codes}", ", ".join(LANGUAGES)),
    )
    play.add_argument(
        "--fast",
        action="store_true",
        help=t(
            N_(
                "read a stream's lines with msgspec (the fast extra: pip install"
                " 'lifeledger[fast]'); the same result as without, in less time"
            )
        ),
    )
    play.add_argument(
        "--time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=lang.text(
            Sentence(
                "stop a replay that takes longer, with exit status 3 (default: %(default)g; 0:"
                " no limit). Each action is bounded anyway ({steps} steps of work)",
                steps=Grouped(MAX_STEPS),
            )
        ),
    )
    play.set_defaults(run=_replay)
    serve = commands.add_parser("serve", help=t(N_("serve the table app")))
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help=t(
            N_(
                "the address to listen on (default: %(default)s, this machine only); 0.0.0.0"
                " lets phones on the same Wi-Fi join: the LAN address they open is printed"
            )
        ),
    )
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--db",
        default="lifeledger.db",
        help=t(
            N_(
                "where tables are kept: an SQLite file's path (default: %(default)s) or a"
                " PostgreSQL URL, postgresql://user@host/dbname, for several processes sharing"
                " them"
            )
        ),
    )
    serve.add_argument(
        "--db-pool",
        type=int,
        metavar="N",
        help=t(
            N_(
                "connections to a PostgreSQL store (default: 4; one more is kept to hear the"
                " other processes)"
            )
        ),
    )
    serve.add_argument("--cert", help=t(N_("a TLS certificate (PEM), to serve HTTPS")))
    serve.add_argument("--key", help=t(N_("the certificate's private key (PEM)")))
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR_OR_CIDR",
        help=t(
            N_(
                "a reverse proxy (address or network) whose X-Forwarded-For names the client,"
                " for the per-address limits; repeatable (default: none, the header is ignored)"
            )
        ),
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help=t(
            N_(
                "serve the port with N processes (default: 1), with a PostgreSQL --db; each"
                " table is decided by one of them, and the others forward its changes there"
            )
        ),
    )
    serve.add_argument(
        "--internal",
        metavar="HOST[:PORT]",
        help=t(
            N_(
                "where the other processes on the same PostgreSQL database reach this one"
                " (default: 127.0.0.1, any free port; on several machines, this machine's"
                " private address)"
            )
        ),
    )
    serve.set_defaults(run=_serve)
    app = commands.add_parser(
        "app",
        help=t(
            N_(
                "write the table app as static files (pages, engine and Pyodide) into a folder"
                " any static web host serves; phones decide their tables there on their own"
            )
        ),
    )
    app.add_argument(
        "directory", help=t(N_("the folder to write (new, empty, or written by app before)"))
    )
    app.set_defaults(run=_app)
    schema = commands.add_parser(
        "schema",
        help=t(
            N_(
                "print the JSON Schema (draft 2020-12) of the game record, versions 1 and 2: the"
                " shape of a record, which another program can check before replaying it"
            )
        ),
    )
    schema.set_defaults(run=_schema)
    args = parser.parse_args(argv)
    try:
        status: int = args.run(args)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())

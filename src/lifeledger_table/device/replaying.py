"""Records replayed on the device: :func:`replay_json` gives, for a record's text, exactly what
``lifeledger replay --json`` prints for it (the command line's own function makes it), so the
engine in the browser is checked against the command line record by record
(tests/table/test_engine_in_browser.py)."""

from __future__ import annotations

import io
import time

from lifeledger import cli
from lifeledger.errors import MalformedError
from lifeledger.language import language
from lifeledger.timeline import escaped

__all__ = ["replay_json"]


def replay_json(record_text: str, name: str = "") -> str:
    """The state ``lifeledger replay --json`` prints for the record ``record_text`` (a byte-order
    mark at its start skipped, its line ends read as a file's are), with its time limit;
    ``name``: the record's file name, whose ``.jsonl`` makes it a stream as it does for the
    command line. A record the command line rejects raises :class:`ValueError` with the words
    it prints after ``lifeledger: NAME:`` (in English)."""
    stream = io.StringIO(record_text.removeprefix("\ufeff"), newline=None)
    deadline = time.monotonic() + cli.DEFAULT_TIME_LIMIT
    try:
        return cli.replay_json(
            stream, is_stream=True if name.endswith(".jsonl") else None, deadline=deadline
        )
    except MalformedError as exc:  # TooMuchWork too
        said = language("en").text(cli.failure(exc, cli.DEFAULT_TIME_LIMIT))
        raise ValueError(escaped(said)) from None

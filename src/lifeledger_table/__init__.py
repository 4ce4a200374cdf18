"""The lifeledger table: a life counter for every phone at the table that knows the rules.

The web app in :mod:`lifeledger_table.server` keeps each table as an append-only log in a
:class:`~lifeledger_table.store.records.Store` and lets the ``lifeledger`` rules engine decide
every total and every result. Start it with ``lifeledger serve`` or ``python -m
lifeledger_table``.

The app is in layers, each importing only those below it (pyproject.toml's import-linter
contracts hold them, and no import cycle within any):

- :mod:`.server`: the entry, serving the app;
- :mod:`.parts`: the composition root, where every part of a server is made and wired;
- :mod:`.web`: HTTP routes, the WebSocket protocol, pages, middleware, answers, pictures;
- :mod:`.live`: the tables in memory, their sockets, writing, following other servers;
- :mod:`.workers`: work done in worker processes (replays, QR codes);
- :mod:`.decide`: the table's decisions (its log and state, rights, limits, tools);
- :mod:`.store`: where tables are kept (SQLite, PostgreSQL).
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"

"""The lifeledger table: a life counter for every phone at the table that knows the rules.

The web app in :mod:`lifeledger_table.server` keeps each table as an append-only log in a
:class:`~lifeledger_table.store.Store` and lets the ``lifeledger`` rules engine decide every
total and every result. Start it with ``lifeledger serve`` or ``python -m lifeledger_table``.
"""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"

"""Which store ``lifeledger serve --db`` opens: a PostgreSQL URL opens a
:class:`~.postgres.PostgresStore`, anything else an SQLite file."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from .records import Store, StoreError
from .sqlite import SQLiteStore

__all__ = ["is_postgresql", "open_store", "sqlite_path", "where"]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
POSTGRES_SCHEMES = ("postgresql", "postgres")


def open_store(db: str, *, pool_size: int | None = None) -> Store:
    """The store ``db`` names: ``postgresql://...`` or ``postgres://...`` (any libpq URL: a
    database server, through a pool of ``pool_size`` connections), ``sqlite:///path``
    (``sqlite:////abs/path`` for an absolute path) or a plain path (an SQLite file).
    Raises :class:`StoreError` if it can't be opened."""
    found = _SCHEME.match(db)
    scheme = found.group(1).lower() if found else None
    if scheme in POSTGRES_SCHEMES:
        from .postgres import PostgresStore  # psycopg is loaded only for a PostgreSQL store

        return PostgresStore(db) if pool_size is None else PostgresStore(db, pool_size=pool_size)
    if scheme is None:
        return SQLiteStore(db)
    if scheme == "sqlite":
        return SQLiteStore(sqlite_path(db))
    raise StoreError(
        f"can't open the table store: {scheme}:// is not a store lifeledger knows "
        "(postgresql://..., sqlite:///path or a file's path)"
    )


def is_postgresql(db: str) -> bool:
    """Whether ``db`` names a PostgreSQL database (the store several processes may share)."""
    found = _SCHEME.match(db)
    return found is not None and found.group(1).lower() in POSTGRES_SCHEMES


def sqlite_path(url: str) -> str:
    """The file an ``sqlite://`` URL names, as SQLAlchemy reads it: ``sqlite:///tables.db``
    is ``tables.db`` (relative), ``sqlite:////var/lib/tables.db`` is absolute, and
    ``sqlite://`` alone is an in-memory database."""
    parts = urlsplit(url)
    if parts.netloc or parts.query or parts.fragment:
        raise StoreError(
            f"can't open the table store {url}: an sqlite URL is sqlite:///relative/path "
            "or sqlite:////absolute/path"
        )
    path = unquote(parts.path)
    return path[1:] if path else ":memory:"


def where(db: str) -> str:
    """Where ``db`` keeps tables, for messages: a PostgreSQL URL without its password."""
    found = _SCHEME.match(db)
    if found and found.group(1).lower() in POSTGRES_SCHEMES:
        from .postgres import describe

        return describe(db)
    return db

"""Fixtures for the table app's tests: an app on a fresh SQLite store, served in-process; a
throwaway PostgreSQL server for the session, with a fresh database per test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio
from aiohttp.test_utils import TestClient

from lifeledger_table.server import Limits, create_app
from lifeledger_table.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from pg_cluster import Cluster


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A path for a fresh SQLite database."""
    return str(tmp_path / "tables.db")


@pytest.fixture
def limits() -> Limits:
    """The app's limits (tests may override this fixture)."""
    return Limits()


@pytest_asyncio.fixture
async def client(
    aiohttp_client: Callable[..., Any], db: str, limits: Limits
) -> AsyncIterator[TestClient[Any, Any]]:
    """A test client of an app on a fresh store."""
    yield await aiohttp_client(create_app(SQLiteStore(db), limits))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """For the browser tests: a real server process on loopback, for the whole module."""
    pytest.importorskip("playwright.sync_api")
    from browser_helpers import need_chromium, server

    need_chromium()
    with server(tmp_path_factory.mktemp("browser") / "tables.db") as (url, _):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """For the browser tests: Debian's chromium, driven by Playwright."""
    pytest.importorskip("playwright.sync_api")
    from browser_helpers import ARGS, CHROMIUM, need_chromium
    from playwright.sync_api import sync_playwright

    need_chromium()
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def kept_start(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """For the device tables' browser tests: this build's engine start, made once a test
    process (one full start of Pyodide in chromium, 10 to 20 s), for each new phone to keep
    (browser_helpers.keep_start) as a phone that opened the app before keeps it; its engine
    then starts in a second or two. Made in a process of its own (browser_helpers.
    write_kept_start), since a test may already drive Playwright in this one."""
    pytest.importorskip("playwright.sync_api")
    from browser_helpers import need_chromium

    need_chromium()
    out = tmp_path_factory.mktemp("kept-start") / "start.json"
    paths = [str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, browser_helpers; browser_helpers.write_kept_start(sys.argv[1])",
            str(out),
        ],
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
        timeout=300,
    )
    start: dict[str, str] = json.loads(out.read_text("utf-8"))
    return start


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """A PostgreSQL server of its own for the test session (initdb in a temporary directory,
    on a free loopback port), stopped and removed at the end. Without PostgreSQL's binaries,
    its tests are skipped, or fail in CI (``CI=true``), where ``make test`` installs them."""
    from pg_cluster import Unavailable, cluster, find_binaries

    try:
        find_binaries()
    except Unavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(str(exc), pytrace=False)
        pytest.skip(str(exc))
    with cluster() as made:
        yield made


@pytest.fixture
def pg_url(pg_cluster: Cluster) -> str:
    """A fresh place for a store on the session's PostgreSQL server: the URL of a new, empty
    schema (``pg_cluster.create_database()`` makes a whole database, in 0.1 to 0.4 s)."""
    return pg_cluster.create_schema()

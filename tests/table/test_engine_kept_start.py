"""Issue 27 item 5: the engine ready within 2 s on a phone, by keeping what a start costs. The
engine worker's first start keeps Pyodide's memory with the engine imported (its memory
snapshot) in IndexedDB, under the digest of the engine, the worker and Pyodide's version; later
opens start from it (docs/table.md, "Device tables"). Here, in Debian's chromium, on the app
written as static files: a second open starts from the kept start and decides as the first
did; a new build's engine does not use an old start (nor a start that holds another engine,
whatever its label); a damaged or unloadable kept start falls back to a full start and is made
again."""

from __future__ import annotations

import base64
import hashlib
import io
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import START, keep_start, kept_record, static_app  # noqa: E402
from playwright.sync_api import Browser, BrowserContext, Page, Route  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
REPLAY = "lifeledger_table.device.replaying:replay_json"
HOST = "lifeledger_table.device.host"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The static app served by python -m http.server: its URL and its folder."""
    from browser_helpers import need_chromium

    need_chromium()
    top = tmp_path_factory.mktemp("static")
    with static_app(top, "app") as url:
        yield url, top / "app"


def calls() -> list[tuple[str, list[str]]]:
    """Calls whose answers are the same on every start: records replayed (one the rules
    refuse), a first table's first change (Ana makes Bo lose 3 life: 17), a function that is
    not there."""
    paths = sorted((ROOT / "examples").glob("0[1-5]-*.json"))
    paths = [p for p in paths if ".expected." not in p.name]
    paths += sorted((ROOT / "examples").glob("*malformed*.json"))[:1]
    assert len(paths) >= 5
    out = [(REPLAY, [p.read_text("utf-8"), p.name]) for p in paths]
    return [*out, (f"{HOST}:warm", []), (f"{HOST}:nope", [])]


def start(page: Page, made: list[tuple[str, list[str]]] | None = None) -> dict[str, Any]:
    got: dict[str, Any] = page.evaluate(START, made if made is not None else calls())
    assert got["ready"]["type"] == "ready"
    if got["ready"]["start"] == "full":
        assert "error" not in got["kept"], got["kept"]
        assert got["kept"]["bytes"] > 1_000_000
    return got


def opened(browser: Browser, url: str) -> tuple[BrowserContext, Page]:
    """A fresh phone (nothing kept) on the app; the service worker blocked, so that the engine
    comes from the network, where a test may change it."""
    context = browser.new_context(service_workers="block")
    page = context.new_page()
    page.goto(url)
    return context, page


def another_engine(folder: Path) -> bytes:
    """The engine of another build: the same files and one more."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(folder / "engine" / "engine.zip") as old,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new,
    ):
        for info in old.infolist():
            new.writestr(info, old.read(info))
        new.writestr("lifeledger_table/device/another_build.txt", "another build")
    return out.getvalue()


def serve_engine(context: BrowserContext, body: bytes | None) -> None:
    """The engine the worker gets from now on: ``body``, or the app's own (None)."""
    context.unroute("**/engine/engine.zip")
    if body is not None:

        def answer(route: Route) -> None:
            route.fulfill(status=200, body=body, headers={"Content-Type": "application/zip"})

        context.route("**/engine/engine.zip", answer)


@pytest.mark.browser
def test_a_second_open_starts_from_the_kept_start_and_decides_the_same(
    browser: Browser, app: tuple[str, Path]
) -> None:
    url, _ = app
    context, page = opened(browser, url)
    first = start(page)
    assert first["ready"]["start"] == "full" and first["ready"]["refused"] is None
    record = kept_record(page)
    assert record is not None and len(record["key"]) == 64
    # Every module of the engine imported before it was kept: a kept start writes only the
    # engine's catalogues again, not its .py files.
    assert record["files"] == "data"
    answers = first["answers"]
    assert answers[-2] == {"id": len(answers) - 2, "result": "17"}  # 17: 20 life less 3
    assert "no such function" in answers[-1]["error"]
    assert any("error" in a for a in answers[:-2])  # the malformed record, refused alike

    for _ in range(2):
        again = start(page)
        assert again["ready"]["start"] == "kept" and again["ready"]["refused"] is None
        assert "checked" in again["ready"]["phases"]
        assert again["answers"] == answers
        assert kept_record(page) == record  # used, not made again

    # Each kept start is a fresh device: no table of another open, and randomness of its own
    # (a table's id and tokens come from secrets: never the same twice).
    make = [(f"{HOST}:create", ['{"players": [{"name": "Ana"}, {"name": "Bo"}]}'])]
    ids = set()
    for _ in range(2):
        made = start(page, make)["answers"][0]["result"]
        ids.add(made.split('"id": "')[1].split('"')[0])
    assert len(ids) == 2
    table = ids.pop()
    info = start(page, [(f"{HOST}:info", [table])])["answers"][0]["result"]
    assert "not open on this device" in info
    context.close()


@pytest.mark.browser
def test_a_new_build_does_not_use_an_old_kept_start(
    browser: Browser, app: tuple[str, Path], kept_start: dict[str, str]
) -> None:
    url, folder = app
    context, page = opened(browser, url)
    keep_start(page, kept_start)  # this build's start, kept by an earlier open
    first = start(page)
    old = kept_record(page)
    assert first["ready"]["start"] == "kept" and old == kept_start

    serve_engine(context, another_engine(folder))  # a new build: its engine differs
    new = start(page)
    assert new["ready"]["start"] == "full"
    assert new["ready"]["refused"] == "the kept start is another build's"
    assert new["answers"] == first["answers"]
    made = kept_record(page)
    assert made is not None and made["key"] != old["key"]  # replaced by the new build's
    assert start(page)["ready"]["start"] == "kept"

    # A start whose label says this engine but whose memory holds another's is not used.
    serve_engine(context, None)
    keep_start(page, {**made, "key": old["key"]})
    wrong = start(page)
    assert wrong["ready"]["start"] == "full"
    assert wrong["ready"]["refused"] == "the kept start is another engine's"
    assert wrong["answers"] == first["answers"]
    remade = kept_record(page)  # made again, from this engine
    assert remade is not None and remade["key"] == old["key"]
    assert remade["digest"] != made["digest"]
    context.close()


@pytest.mark.browser
def test_a_broken_kept_start_falls_back_to_a_full_start_and_is_made_again(
    browser: Browser, app: tuple[str, Path], kept_start: dict[str, str]
) -> None:
    url, _ = app
    context, page = opened(browser, url)
    keep_start(page, kept_start)  # this build's start, kept by an earlier open
    first = start(page)
    assert first["ready"]["start"] == "kept"
    record = kept_start

    # Damaged on the disk: its bytes are not those it was kept with.
    data = bytearray(base64.b64decode(record["bytes"]))
    data[len(data) // 2] ^= 0xFF
    keep_start(page, {**record, "bytes": base64.b64encode(bytes(data)).decode()})
    damaged = start(page)
    assert damaged["ready"]["start"] == "full"
    assert damaged["ready"]["refused"] == "the kept start is damaged"
    assert damaged["answers"] == first["answers"]
    assert start(page)["ready"]["start"] == "kept"  # made again

    # Its digest right, but not a start Pyodide can load (another format, a cut write).
    junk = b"not a memory snapshot" * 1000
    keep_start(
        page,
        {
            "key": record["key"],
            "digest": hashlib.sha256(junk).hexdigest(),
            "files": "data",
            "bytes": base64.b64encode(junk).decode(),
        },
    )
    unloadable = start(page)
    assert unloadable["ready"]["start"] == "full"
    assert unloadable["ready"]["refused"]
    assert unloadable["answers"] == first["answers"]
    assert start(page)["ready"]["start"] == "kept"
    context.close()

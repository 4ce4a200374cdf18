"""issue 27, items 7 and 5: the pages' scripts are ES modules (static/*.js: the source, checked
by eslint), and each page loads one bundle of them, built by make with esbuild (``make
bundles``: docs/table.md, "The page's scripts"). index.html loads static/index.bundle.js, made
from index.js and its imports; table.html loads static/table.bundle.js, made from table.js,
whose first import is the early module boot.js (a device table's engine started before the
rest runs), so the two share one device.js. The bundles in the package are those the sources
make (built again here and compared); every module is in a bundle; the one global the page's
scripts add is its inspection surface, ``window.lifeledger`` (docs/table.md, "The page's
scripts"). The bundles are in the service worker's shell, so the app opens offline; the
modules, which no page loads, are neither served nor kept."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lifeledger import cli
from lifeledger_table.web import pages, staticapp
from lifeledger_table.web.pages import BUNDLE_FILES, BUNDLES, STATIC, build_id, page_modules

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import post  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ESBUILD = ROOT / "node_modules" / ".bin" / "esbuild"
IMPORT = re.compile(r'^import\s(?:[^;]*?from\s+)?"(\./[^"]+)";', re.M)
SCRIPT = re.compile(r'<script type="module" src="static/([^"]+)"></script>')
#: Each page's one script: its bundle, and the entry module it is made from.
PAGES = {
    "index.html": ("index.bundle.js", "index.js"),
    "table.html": ("table.bundle.js", "table.js"),
}
#: The modules the table page's early module needs: they and it run before any other.
EARLY = {"boot.js", "device.js", "i18n.js", "common.js"}
TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}


def modules() -> dict[str, list[str]]:
    """Each page module's name, and the modules it imports (by name in static/)."""
    return {
        name: [m.removeprefix("./") for m in IMPORT.findall((STATIC / name).read_text())]
        for name in page_modules()
    }


def reached(entry: str) -> set[str]:
    """The modules a page's entry loads: itself and all it imports, and they import."""
    names = modules()
    found: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo.extend(names[name])
    return found


def test_each_module_is_reached_from_a_page_entry() -> None:
    """No page module is left out of the bundles: each is imported, from table.js or index.js
    on (an import names a file beside it in static/); both pages register the service worker
    (install.js), and the start page loads nothing of the table page's."""
    names = modules()
    for module, imported in names.items():
        for name in imported:
            assert (STATIC / name).is_file(), f"{module} imports {name}, which is not in static/"
    assert reached("table.js") | reached("index.js") == set(names)
    assert "install.js" in reached("table.js") & reached("index.js")
    # The early module loads only what a device table's engine needs.
    assert reached("boot.js") == EARLY
    assert reached("index.js") == {
        "index.js",
        "i18n.js",
        "common.js",
        "device.js",
        "seating.js",
        "install.js",
    }


@pytest.mark.parametrize("html", sorted(PAGES))
def test_each_page_loads_exactly_its_bundle(html: str) -> None:
    """issue 27 item 5: a page loads one script, its bundle (deferred, as every module is),
    and preloads no module: the modules are in the bundle."""
    text = (STATIC / html).read_text()
    assert SCRIPT.findall(text) == [PAGES[html][0]]
    assert text.count("<script") == 1
    assert "modulepreload" not in text


def built(folder: Path) -> None:
    """The bundles built into ``folder`` by the Makefile's own rule (``make bundles``, with
    its output folder moved there; node_modules taken as it is)."""
    if not ESBUILD.is_file():
        pytest.fail(f"{ESBUILD} is missing: run make bundles (npm ci installs esbuild)")
    subprocess.run(
        ["make", "-s", "-o", "node_modules/.installed", f"BUNDLE_DIR={folder}", "bundles"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )


def test_the_bundles_in_the_package_are_built_from_the_modules(tmp_path: Path) -> None:
    """Rule (issue 27 item 5): the bundles the pages load are exactly what esbuild makes of
    the modules now (make's rule, built again into a temporary folder): a module changed
    since the last make is found stale here, not in a browser."""
    built(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(BUNDLE_FILES)
    for name in BUNDLE_FILES:
        assert (BUNDLES / name).is_file(), f"{BUNDLES / name} is missing: run make bundles"
        assert (BUNDLES / name).read_bytes() == (tmp_path / name).read_bytes(), (
            f"{BUNDLES / name} is stale (not what the modules make): run make bundles"
        )
    # Names kept, whitespace gone: a stack trace reads without a source map.
    table = (tmp_path / "table.bundle.js").read_text()
    assert "function toJSON(" in table and table.count("\n") <= 1


def test_the_early_module_runs_first_in_the_table_pages_bundle(tmp_path: Path) -> None:
    """issue 27 item 5: in table.html's bundle, boot.js (table.js's first import) runs once
    its own modules have and before any other: esbuild lays the modules out in the order
    they run, each after a comment naming it when it does not minify (here), and table.js,
    the entry, last. The start page's bundle has no boot.js."""
    assert modules()["table.js"][0] == "boot.js"
    if not ESBUILD.is_file():
        pytest.fail(f"{ESBUILD} is missing: run make bundles (npm ci installs esbuild)")
    entries = [str(STATIC / entry) for _bundle, entry in PAGES.values()]
    subprocess.run(
        [str(ESBUILD), *entries, "--bundle", "--format=esm", f"--outdir={tmp_path}"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    for html, (_bundle, entry) in PAGES.items():
        text = (tmp_path / entry).read_text()
        order = re.findall(r"^// src/lifeledger_table/static/([\w-]+\.js)$", text, re.M)
        assert sorted(order) == sorted(reached(entry)), html
        assert order[-1] == entry
        if entry == "table.js":
            assert set(order[: order.index("boot.js") + 1]) == EARLY
        else:
            assert "boot.js" not in order


def test_the_shell_and_the_static_app_hold_the_bundles_not_the_modules(tmp_path: Path) -> None:
    """The pages open offline: their bundles are in the service worker's shell (and so in the
    build's digest and in ``lifeledger app``'s folder), the engine worker too; the modules,
    which no page loads, are not."""
    _build, shell = build_id()
    for name in BUNDLE_FILES:
        assert f"static/{name}" in shell
    assert "static/engine-worker.js" in shell
    for name in page_modules():
        assert f"static/{name}" not in shell
    written = staticapp.write_app(tmp_path / "app")
    assert {f"static/{name}" for name in BUNDLE_FILES} <= set(written)
    assert not {f"static/{name}" for name in page_modules()} & set(written)


def test_serve_and_app_say_that_the_bundles_are_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An editable install where make was not run: ``lifeledger serve`` says in one line
    that the pages' scripts are missing and how to make them, and starts nothing; ``lifeledger
    app`` writes nothing."""
    monkeypatch.setenv("LANGUAGE", "en")
    monkeypatch.setattr(pages, "missing_bundles", lambda: ["table.bundle.js"])
    assert cli.main(["serve", "--port", "0", "--db", "/nonexistent/x.db"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(
        "lifeledger serve: the pages' scripts are missing (table.bundle.js); run make"
    )
    assert "make bundles" in err
    monkeypatch.setattr(staticapp, "missing_bundles", lambda: ["table.bundle.js"])
    with pytest.raises(staticapp.AppError, match=r"bundles are missing \(table.bundle.js\)"):
        staticapp.write_app(tmp_path / "app")
    assert not (tmp_path / "app").exists()


def loaded(page: Page, url: str) -> list[str]:
    """Open ``url`` and say what went wrong: errors thrown, and requests that failed."""
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.goto(url)
    page.wait_for_function("() => !!window.lifeledger")
    return problems


def own_globals(page: Page) -> set[str]:
    names: list[str] = page.evaluate("() => Object.getOwnPropertyNames(window)")
    return set(names)


@pytest.mark.browser
@pytest.mark.parametrize("where", ["start", "play", "watch", "replay"])
def test_a_page_loads_its_bundle_and_adds_one_global(
    base: str, browser: Browser, where: str
) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(base + "/static/style.css")  # a document of the same origin with no script
    blank = own_globals(page)
    table: dict[str, Any] = post(base + "/api/tables", TWO) if where != "start" else {}
    url = {
        "start": base + "/",
        "play": f"{base}/t/{table.get('id')}",
        "watch": f"{base}/w/{table.get('watch')}",
        "replay": base + "/replay",
    }[where]
    assert loaded(page, url) == []
    if where == "play":  # seated, playing: the socket, the panels, the taps
        page.locator('#picker button[data-seat="ana"]').click()
        expect(page.locator('[data-player="ana"] .tag.you')).to_be_visible()
        page.wait_for_function("() => lifeledger.S.connected")
    scripts = page.evaluate(
        "() => [...document.scripts].map((s) => [s.type, s.getAttribute('src')])"
    )
    bundle = PAGES["index.html" if where == "start" else "table.html"][0]
    assert scripts == [["module", f"static/{bundle}"]]
    # The one script the page fetched: its bundle (no module found by an import).
    fetched = page.evaluate(
        """() => performance.getEntriesByType("resource")
            .map((e) => new URL(e.name).pathname)
            .filter((path) => path.endsWith(".js"))"""
    )
    assert fetched == [f"/static/{bundle}"]
    # The modules' names stay in their modules: the page's only new global is lifeledger.
    assert own_globals(page) - blank == {"lifeledger"}
    surface = page.evaluate("() => Object.keys(lifeledger)")
    assert "I18N" in surface and "PALETTE" in surface
    if where != "start":
        assert {"S", "TAPS", "act", "KEY"} <= set(surface)
    # The inspection surface is one frozen object: a test reads the page through it, and
    # nothing replaces what the modules hold.
    assert page.evaluate("() => Object.isFrozen(lifeledger)")
    context.close()


@pytest.mark.browser
@pytest.mark.parametrize("device", [True, False])
def test_the_early_module_starts_a_device_tables_engine(
    base: str, browser: Browser, device: bool
) -> None:
    """issue 27 item 5: on a device table's page (table.html?t=d-…) the engine worker is
    started by boot.js, the bundle's first code after its own modules (checked above), once
    (table.js's device.js is the same module: one Engine); a served table's page starts
    none."""
    context = browser.new_context()
    page = context.new_page()
    workers: list[str] = []
    page.on("worker", lambda worker: workers.append(worker.url))
    if device:
        with page.expect_event("worker", timeout=15_000):
            page.goto(base + "/table.html?t=d-early")
        page.wait_for_function("() => !!window.lifeledger")
        page.wait_for_timeout(500)
        assert [url.rsplit("/", 1)[-1] for url in workers] == ["engine-worker.js"]
    else:
        page.goto(base + "/table.html?t=early")
        page.wait_for_function("() => !!window.lifeledger")
        page.wait_for_timeout(1000)
        assert workers == []
    context.close()

"""issue 27, item 7: the pages' scripts are ES modules. Each page loads one entry module
(static/index.js, static/table.js) that imports the rest from static/, each module importing
what it uses: they share no globals; the table page loads one early module before its entry
(static/boot.js: a device table's engine started first, issue 27 item 5). Each page preloads
exactly the modules its scripts load (``<link rel="modulepreload">``: all fetched at once, no
waterfall of imports). The one global the page's scripts add is its inspection
surface, ``window.lifeledger`` (docs/table.md, "The page's scripts"). Every module is in the
service worker's shell, so the app opens offline."""

from __future__ import annotations

import re
from typing import Any

import pytest

from lifeledger_table.web.pages import STATIC, build_id

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import post  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

IMPORT = re.compile(r'^import\s(?:[^;]*?from\s+)?"(\./[^"]+)";', re.M)
SCRIPT = re.compile(r'<script type="module" src="static/([^"]+)"(?: async)?></script>')
PRELOAD = re.compile(r'<link rel="modulepreload" href="static/([^"]+)">')
#: Each page's module scripts, in the order they run: the table page's early module first.
PAGES = {"index.html": ["index.js"], "table.html": ["boot.js", "table.js"]}
TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}


def modules() -> dict[str, list[str]]:
    """Each page module's name, and the modules it imports (by name in static/)."""
    found = {}
    for path in sorted(STATIC.glob("*.js")):
        if path.name in ("sw.js", "engine-worker.js"):
            continue
        found[path.name] = [m.removeprefix("./") for m in IMPORT.findall(path.read_text())]
    return found


def test_every_module_imported_is_a_static_file_in_the_shell() -> None:
    """An import names a file beside it in static/, which the service worker's shell holds
    (and so the build's digest and ``lifeledger app`` too): the pages open offline."""
    _build, shell = build_id()
    names = modules()
    assert names["table.js"] and names["index.js"]
    for module, imported in names.items():
        assert f"static/{module}" in shell
        for name in imported:
            assert (STATIC / name).is_file(), f"{module} imports {name}, which is not in static/"
            assert f"static/{name}" in shell


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
    """No page module is left out: each is imported, from table.js or index.js on; both
    pages register the service worker (install.js), and the start page loads nothing of the
    table page's."""
    assert reached("table.js") | reached("index.js") | reached("boot.js") == set(modules())
    assert "install.js" in reached("table.js") & reached("index.js")
    # The early module loads only what a device table's engine needs, long before the rest.
    assert reached("boot.js") == {"boot.js", "device.js", "i18n.js", "common.js"}
    assert reached("index.js") == {
        "index.js",
        "i18n.js",
        "common.js",
        "device.js",
        "seating.js",
        "install.js",
    }


@pytest.mark.parametrize("html", sorted(PAGES))
def test_each_page_preloads_exactly_the_modules_it_loads(html: str) -> None:
    """issue 27 item 5: a page names every module its scripts load, to be fetched at once,
    and no other (the list is checked against the modules' imports, so it is never stale)."""
    text = (STATIC / html).read_text()
    assert SCRIPT.findall(text) == PAGES[html]
    preloaded = PRELOAD.findall(text)
    assert len(preloaded) == len(set(preloaded)), "a module preloaded twice"
    graph = set().union(*(reached(entry) for entry in PAGES[html]))
    assert set(preloaded) == graph, (
        f"{html}: preloads {sorted(set(preloaded) - graph)} it doesn't load,"
        f" and doesn't preload {sorted(graph - set(preloaded))}"
    )
    # Preloaded before the scripts that load them.
    assert text.index("modulepreload") < text.index('<script type="module"')


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
def test_a_page_loads_its_module_scripts_and_adds_one_global(
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
    html = "index.html" if where == "start" else "table.html"
    assert scripts == [["module", f"static/{name}"] for name in PAGES[html]]
    # Every module fetched once, asked for at once from its preload (before any arrived),
    # none found by an import after another module came: no waterfall. (A preload the
    # module's own load didn't match would be fetched twice.)
    fetched = page.evaluate(
        """() => performance.getEntriesByType("resource")
            .filter((e) => new URL(e.name).pathname.endsWith(".js"))
            .map((e) => [new URL(e.name).pathname.split("/").pop(), e.startTime, e.responseEnd])"""
    )
    preloaded = PRELOAD.findall((STATIC / html).read_text())
    assert sorted(name for name, _start, _end in fetched) == sorted(preloaded)
    assert max(start for _name, start, _end in fetched) < min(end for _n, _s, end in fetched)
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
def test_the_early_module_starts_a_device_tables_engine_before_the_entry(
    base: str, browser: Browser, device: bool
) -> None:
    """issue 27 item 5: on a device table's page (table.html?t=d-…) the engine worker is
    started by boot.js, not waiting for the entry's modules: here the entry never arrives,
    and the worker starts all the same. A served table's page starts none there."""
    context = browser.new_context()
    page = context.new_page()
    page.route("**/static/table.js", lambda route: route.abort())
    workers: list[str] = []
    page.on("worker", lambda worker: workers.append(worker.url))
    if device:
        with page.expect_event("worker", timeout=15_000):
            page.goto(base + "/table.html?t=d-early")
        assert [url.rsplit("/", 1)[-1] for url in workers] == ["engine-worker.js"]
    else:
        page.goto(base + "/table.html?t=early")
        page.wait_for_timeout(1000)
        assert workers == []
    assert not page.evaluate("() => 'lifeledger' in window")  # the entry never ran
    context.close()

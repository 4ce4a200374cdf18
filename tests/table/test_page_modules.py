"""issue 27, item 7: the pages' scripts are ES modules. Each page loads one entry module
(static/index.js, static/table.js) that imports the rest from static/, each module importing
what it uses: they share no globals. The one global the page's scripts add is its inspection
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
    assert reached("table.js") | reached("index.js") == set(modules())
    assert "install.js" in reached("table.js") & reached("index.js")
    assert reached("index.js") == {
        "index.js",
        "i18n.js",
        "common.js",
        "device.js",
        "seating.js",
        "install.js",
    }


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
def test_a_page_loads_one_entry_module_and_adds_one_global(
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
    entry = "static/index.js" if where == "start" else "static/table.js"
    assert scripts == [["module", entry]]
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

"""Every layout of the table page (issue 8, "every orientation and size"), in a real browser:
phones, tablets and a laptop, upright and turned, for 2 to 12 players and Two-Headed Giant,
on the table device (one device for everyone) and on a personal phone. Real element boxes:
every control lies inside the viewport, is not under another element (the element at its
centre is the control or inside it), is at least 44x44 CSS px, and no two panels overlap.
Saves the screenshots docs/table.md shows under docs/screens/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import post, screenshot  # noqa: E402
from playwright.sync_api import Browser, Page  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu"]
SIZES = {
    "phone-portrait": (390, 844),
    "phone-landscape": (844, 390),
    "tablet-landscape": (1024, 768),
    "tablet-portrait": (768, 1024),
    "laptop": (1366, 768),
}
# ... and a Commander table of four: a row of opposing commanders on each panel (panel.js).
COUNTS: list[int | str] = [2, 3, 4, 5, 6, 8, 12, "thg", "commander"]
# The checks run in the page (page_audit.js): "layout" lists, in words, every shown control
# outside the viewport, under another element, under 44x44 px or cut off by its panel, and
# panels that overlap; "totals" gives the smallest life total's size (px), whether the panels
# scroll and which way each faces.
AUDIT = (Path(__file__).with_name("page_audit.js")).read_text()
# The screenshots docs/table.md shows: (device, players, size).
SHOTS = {
    ("table", 2, "phone-landscape"),
    ("table", 4, "phone-portrait"),
    ("table", 6, "tablet-landscape"),
    ("table", 8, "laptop"),
    ("table", 12, "tablet-portrait"),
    ("table", "thg", "phone-portrait"),
    ("phone", 4, "phone-portrait"),
}


def run(page: Page, check: str, arg: Any = None) -> Any:
    """The result of one of page_audit.js's checks."""
    return page.evaluate(f"([name, arg]) => ({AUDIT})[name](arg)", [check, arg])


def form(count: int | str) -> dict[str, Any]:
    if count == "thg":
        return THG
    if count == "commander":
        names = NAMES[:4]
        players = [{"name": n, "commanders": [f"{n}'s commander"]} for n in names]
        return {"variant": "free-for-all", "format": "commander", "players": players}
    assert isinstance(count, int)
    return {"players": [{"name": n} for n in NAMES[:count]]}


def open_page(browser: Browser, base: str, device: str, count: int | str, lang: str = "en") -> Page:
    """A page of a new table: the table device, or the first player's own phone; in
    ``lang``, chosen on the device (i18n.js)."""
    table = post(base + "/api/tables", form(count))
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=1, has_touch=True
    )
    page = context.new_page()
    tid = table["id"]
    if lang != "en":
        page.add_init_script(f'localStorage.setItem("lifeledger-lang", "{lang}")')
    if device == "table":
        page.add_init_script(f'localStorage.setItem("lifeledger-device-{tid}", "table")')
    else:
        seat = table["header"]["players"][0]["id"]
        token = post(f"{base}/api/tables/{tid}/seats/{seat}", {})["token"]
        saved = json.dumps(json.dumps({"seat": seat, "token": token}))
        page.add_init_script(f'localStorage.setItem("lifeledger-seat-{tid}", {saved})')
    page.goto(f"{base}/t/{tid}")
    # Held seats first: the table device takes them after its first welcome and is welcomed
    # again, drawing every panel anew (a loaded machine did it in the middle of an audit).
    page.wait_for_function(
        "() => lifeledger.S.connected && !lifeledger.S.takingSeats "
        "&& (lifeledger.S.device === 'table'"
        " ? lifeledger.S.seats.length === lifeledger.header().players.length : !!lifeledger.S.seat)"
    )
    page.wait_for_selector("#panels.placed .panel")
    if lang != "en":  # the catalogue fetched and the page drawn in it
        page.wait_for_function(
            "(lang) => document.documentElement.lang === lang"
            " && Object.keys(lifeledger.I18N.messages).length > 0",
            arg=lang,
        )
    return page


def settle(page: Page, width: int, height: int) -> None:
    """Resize, and wait until the panels are laid out for the new size."""
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(
        "([w, h]) => innerWidth === w && innerHeight === h && new Promise((r) => "
        "requestAnimationFrame(() => requestAnimationFrame(() => r(true))))",
        arg=[width, height],
    )
    page.wait_for_function(
        "() => { const box = document.getElementById('panels');"
        " return box.dataset.placed === `${box.clientWidth}x${box.clientHeight}`; }"
    )
    # No toast in the pictures (it never takes taps: pointer-events none).
    page.evaluate("document.getElementById('toast').classList.add('hidden')")


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("device", ["table", "phone"])
@pytest.mark.parametrize("lang", ["en", "it"])  # issue 20: Italian's longer words fit too
def test_every_layout_keeps_every_control_whole_and_uncovered(
    base: str, browser: Browser, lang: str, device: str, count: int | str
) -> None:
    page = open_page(browser, base, device, count, lang)
    problems: list[str] = []
    for size, (width, height) in SIZES.items():
        settle(page, width, height)
        found = run(page, "totals")
        if device == "table":
            # The device in the middle of the table never scrolls: every panel is in view.
            assert not found["scrolls"], f"{size}: the table device's panels scroll"
            if count != 12:
                # Around the edges: each panel turns to face its player.
                assert len(set(found["facing"])) >= 2, f"{size}: {found['facing']}"
        # Totals stay large: readable from across the table.
        least = 44 if count in (2, 3, 4, 5, 6, "thg", "commander") else 32
        assert found["smallest"] >= least, f"{size}: a total of {found['smallest']} px"
        problems += [f"{size}: {p}" for p in run(page, "layout", found["scrolls"])]
        if lang == "en" and (device, count, size) in SHOTS:
            screenshot(page, f"screens/layout-{device}-{count}-{size}.png")
    assert not problems, "\n".join(problems)
    page.context.close()


def test_two_players_face_each_other_and_four_sit_at_the_sides(base: str, browser: Browser) -> None:
    page = open_page(browser, base, "table", 2)
    settle(page, 390, 844)
    assert run(page, "totals")["facing"] == ["0", "180"]  # seating order: Ana at the bottom
    settle(page, 844, 390)
    assert run(page, "totals")["facing"] == ["90", "270"]
    page.context.close()
    page = open_page(browser, base, "table", 4)
    settle(page, 390, 844)
    assert run(page, "totals")["facing"] == ["90", "90", "270", "270"]
    settle(page, 844, 390)
    assert run(page, "totals")["facing"] == ["180", "180", "0", "0"]
    page.context.close()


def test_a_personal_phone_shows_its_own_panel_first_and_biggest(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", form(5))
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    tid = table["id"]
    token = post(f"{base}/api/tables/{tid}/seats/cy", {})["token"]
    saved = json.dumps(json.dumps({"seat": "cy", "token": token}))
    page.add_init_script(f'localStorage.setItem("lifeledger-seat-{tid}", {saved})')
    page.goto(f"{base}/t/{tid}")
    page.wait_for_selector("#panels.placed .panel")
    for width, height in SIZES.values():
        settle(page, width, height)
        areas = page.evaluate(
            "() => [...document.querySelectorAll('#panels .panel')].map((p) => "
            "[p.dataset.unit, p.offsetWidth * p.offsetHeight])"
        )
        assert areas[0][0] == "cy"
        assert all(areas[0][1] > a for _, a in areas[1:]), (width, height, areas)
    context.close()

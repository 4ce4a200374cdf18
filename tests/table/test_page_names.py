"""Issue 17 item 2, the table's side: a quick game's "Player 1" is renamed and recoloured from
the player's ⋯ sheet, on the table device; every phone (a spectator's too) shows it at once, a
bad name is refused naming the field and changes nothing, the history says it, and a reload
keeps it. In Debian's chromium, driven by Playwright, against a real server (the fixtures
``base`` and ``browser`` are in conftest.py)."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import get, held, more_options, new_phone  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = pytest.mark.browser


def test_a_player_is_renamed_and_recoloured_from_the_table(base: str, browser: Browser) -> None:
    page = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True).new_page()
    page.goto(base + "/")
    # A served table (a spectator follows it from another phone), as the table device.
    more_options(page)
    names = page.locator(".player-row .p-name")
    names.nth(0).fill("Player 1")
    names.nth(1).fill("Player 2")
    page.locator("#open-table").click()
    page.locator("#one-device").click()
    page.wait_for_url("**/t/*")
    held(page, 2)
    table = page.url.rsplit("/", 1)[1]
    watch = get(f"{base}/api/tables/{table}")["table"]["watch"]
    spectator = new_phone(browser)
    spectator.goto(f"{base}/w/{watch}")
    one = '.panel[data-player="player-1"]'
    expect(spectator.locator(f"{one} .pname")).to_have_text("Player 1")
    page.locator(f'{one} [data-act="more"]').click()
    name = page.locator("#sh-name")
    expect(name).to_have_value("Player 1")
    # A bad name is refused, naming the field; nothing changes.
    name.fill("Player 2")
    page.locator('[data-sheet="rename"]').click()
    expect(page.locator("#toast")).to_contain_text("another player's name")
    expect(page.locator("#toast")).to_contain_text("(name)")
    name.fill("Ana")
    page.locator('[data-sheet="rename"]').click()
    for p in (page, spectator):
        expect(p.locator(f"{one} .pname")).to_have_text("Ana")
    expect(page.locator("#sheet-title")).to_contain_text("Ana")
    # A colour: one tap on a swatch; another player's colour can't be chosen.
    two_colour = page.locator('.panel[data-player="player-2"]').get_attribute("data-colour")
    taken = page.locator(f'#sheet [data-swatch][aria-label^="{two_colour}:"]')
    expect(taken).to_be_disabled()
    page.locator('#sheet [data-swatch="4"]').click()
    for p in (page, spectator):
        expect(p.locator(one)).to_have_attribute("data-colour", "Purple")
    data = get(f"{base}/api/tables/{table}")
    assert data["table"]["header"]["players"][0]["name"] == "Ana"
    assert data["table"]["colours"]["player-1"] == 4
    page.locator('[data-close="sheet"]').click()
    page.locator("#history-btn").click()
    newest = page.locator("#history-list li")
    expect(newest.nth(0)).to_contain_text("Ana's colour changed")
    expect(newest.nth(1)).to_contain_text("Player 1 is now Ana")
    # A reload (and any phone that joins later) is shown the names as they are now.
    page.reload()
    held(page, 2)
    expect(page.locator(f"{one} .pname")).to_have_text("Ana")
    expect(page.locator(one)).to_have_attribute("data-colour", "Purple")
    for p in (page, spectator):
        p.context.close()

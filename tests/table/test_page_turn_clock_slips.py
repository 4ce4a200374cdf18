"""Issue 25 item 10, the page's side: the toast after undoing a reset names it (not "Undone: ,
by the table"); a reset, a new game and the next game stop the chess clock and give every
side its time again (the game starts over: "Chess clock (time per game)"); after "Pick a
player" the turn bar says who was picked (103.1) instead of asking "Who plays first?"; a
clock started before any turn runs for the one picked to start, or the first player, never
the last. In Debian's chromium, driven by Playwright, against a real server (the fixtures
``base`` and ``browser`` are in conftest.py)."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import held, life, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}
THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}]}


def tablet(browser: Browser, base: str, table: str, count: int) -> Page:
    """A tablet that joins ``table`` as the table device, holding its ``count`` seats."""
    page = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True).new_page()
    page.goto(f"{base}/t/{table}")
    page.locator('#picker button[data-seat="table"]').click()
    held(page, count)
    return page


def start_clock(page: Page) -> None:
    page.locator("#tools-btn").click()
    page.locator("#tool-clock-start").click()
    expect(page.locator("#tool-clock-stop")).to_be_visible()
    page.locator('#tools-sheet [data-close="tools-sheet"]').click()


def test_undoing_a_reset_on_the_table_device_names_the_reset(base: str, browser: Browser) -> None:
    """The table device resets the game, then takes the reset back: the toast says "Undone:
    Reset, by the table", not "Undone: , by the table"."""
    table = post(base + "/api/tables", THREE)["id"]
    device = tablet(browser, base, table, 3)
    device.locator('.panel[data-player="bo"] [data-act="minus5"]').click()
    expect(life(device, "bo")).to_have_text("15")
    device.locator("#menu-btn").click()
    device.locator('[data-menu="reset"]').click()
    device.locator('[data-confirm="reset"]').click()
    expect(life(device, "bo")).to_have_text("20")
    expect(device.locator("#undo-btn")).to_have_text("↶ Undo: Reset")
    device.locator("#undo-btn").click()
    expect(life(device, "bo")).to_have_text("15")
    expect(device.locator("#toast")).to_have_text("Undone: Reset, by the table")
    device.context.close()


def test_a_reset_stops_the_chess_clock_and_gives_back_the_time(base: str, browser: Browser) -> None:
    """The game starts over: the clock stops, each side has its whole time again, on every
    phone; starting it again (▶) runs it from there."""
    table = post(base + "/api/tables", TWO)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    ana.evaluate("() => lifeledger.act({do: 'lose_life', player: 'bo', amount: 3})")
    start_clock(ana)
    expect(bo.locator("#tl-clock .tl-side.active")).to_be_visible()
    ana.wait_for_timeout(2200)  # the running side spends two seconds
    bo.locator("#menu-btn").click()
    bo.locator('[data-menu="reset"]').click()
    bo.locator('[data-confirm="reset"]').click()
    for page in (ana, bo):
        expect(life(page, "bo")).to_have_text("20")
        page.wait_for_function(
            "() => lifeledger.T.tools.clock && lifeledger.T.tools.clock.since === null"
            " && lifeledger.T.tools.clock.sides"
            ".every((s) => s.left_ms === lifeledger.T.tools.clock.per_ms)",
            timeout=10_000,
        )
        expect(page.locator('#tl-clock [aria-label="Resume the clock"]')).to_be_visible()
    ana.wait_for_timeout(1200)
    for page in (ana, bo):
        expect(page.locator("#tl-clock .tl-time").first).to_have_text("20:00")
    ana.context.close()
    bo.context.close()


def test_the_turn_bar_says_who_was_picked_to_play_first(base: str, browser: Browser) -> None:
    """103.1: "Pick a player" names who starts; the bar says so too, the pick highlighted,
    and still lets the one picked choose another player."""
    table = post(base + "/api/tables", THREE)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    expect(bo.locator("#turn-text")).to_contain_text("Who plays first?")
    ana.locator("#tools-btn").click()
    ana.locator("#tool-first").click()
    expect(ana.locator("#tool-recent li")).to_have_count(1)
    ana.locator('#tools-sheet [data-close="tools-sheet"]').click()
    picked = ana.evaluate("lifeledger.T.tools.recent[lifeledger.T.tools.recent.length - 1].label")
    for page in (ana, bo):
        text = page.locator("#turn-text")
        expect(text).to_contain_text(f"{picked} was picked to play first (103.1)")
        expect(text).not_to_contain_text("Who plays first?")
        expect(page.locator("#turn-bar .tb-first.picked")).to_have_text(picked)
    ana.context.close()
    bo.context.close()


def test_a_clock_started_before_any_turn_runs_for_who_starts(base: str, browser: Browser) -> None:
    """103.1: before any turn the clock starts with the side picked to start in this game; a
    pick made in the game a reset left (Bo or Cy, the later seats) is not this game's, so the
    clock of the game begun again starts with the first seat (Ana), as the turn bar offers."""
    table = post(base + "/api/tables", THREE)["id"]
    device = tablet(browser, base, table, 3)
    device.locator("#tools-btn").click()
    picked = "ana"
    for n in range(1, 40):  # until the pick is not the first seat (random: 103.1)
        device.locator("#tool-first").click()
        device.wait_for_function(
            f"() => lifeledger.T.tools.recent.length && lifeledger.T.tools.recent.at(-1).n === {n}"
        )
        picked = device.evaluate("lifeledger.T.tools.recent.at(-1).side")
        if picked != "ana":
            break
    assert picked != "ana"
    device.locator('#tools-sheet [data-close="tools-sheet"]').click()
    device.locator('.panel[data-player="bo"] [data-act="minus5"]').click()
    expect(life(device, "bo")).to_have_text("15")
    device.locator("#menu-btn").click()
    device.locator('[data-menu="reset"]').click()
    device.locator('[data-confirm="reset"]').click()
    expect(life(device, "bo")).to_have_text("20")
    expect(device.locator("#turn-text")).to_contain_text("Who plays first?")
    start_clock(device)
    active = device.locator("#tl-clock .tl-side.active")
    expect(active).to_have_attribute("data-side", "ana")
    device.wait_for_timeout(1500)  # nothing passes it on before a turn begins
    expect(active).to_have_attribute("data-side", "ana")
    device.context.close()


def test_in_italian_the_table_devices_change_is_dal_tavolo(base: str, browser: Browser) -> None:
    """Issue 25 item 14: undoing the table device's change says "Annullato: …, dal tavolo"
    (not "da il tavolo")."""
    table = post(base + "/api/tables", {"players": [{"name": n} for n in ("Ana", "Bo", "Di")]})
    table_id = table["id"]
    device = browser.new_context(
        viewport={"width": 1024, "height": 768}, has_touch=True, locale="it-IT"
    ).new_page()
    device.goto(f"{base}/t/{table_id}")
    device.locator('#picker button[data-seat="table"]').click()
    held(device, 3)
    device.wait_for_function("() => document.documentElement.lang === 'it'")
    device.locator('.panel[data-player="bo"] [data-act="minus5"]').click()
    expect(life(device, "bo")).to_have_text("15")
    device.wait_for_function(
        "() => !lifeledger.TAPS.run && lifeledger.S.pending.size === 0 && lifeledger.S.canUndo"
    )
    device.locator("#undo-btn").click()
    expect(life(device, "bo")).to_have_text("20")
    toast = device.locator("#toast")
    expect(toast).to_contain_text(", dal tavolo")
    expect(toast).not_to_contain_text("da il tavolo")
    device.context.close()

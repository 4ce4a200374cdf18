"""issue 17, item 2: open the app and the counter is there. From the start page to the first
life change in at most two taps — one starts a game on this device (two players at 20, four at
Commander 40, or the last setup this device started), the second changes a life total — on a
small phone (375×667) and a tablet; the start page fits a small phone's screen, reads no rule
numbers, and keeps the form (names, colours, variants, libraries) under "More options"; it lists
the tables this device played lately, offline too, so an installed app resumes one."""

from __future__ import annotations

import re
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    device_table,
    held,
    keep_start,
    kept_as_shown,
    life,
    more_options,
)
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

SMALL_PHONE: dict[str, Any] = {
    "viewport": {"width": 375, "height": 667},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
TABLET: dict[str, Any] = {"viewport": {"width": 1024, "height": 768}, "has_touch": True}


class Taps:
    """Counts the taps a player makes (each one a real tap on the screen's element)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def tap(self, selector: str) -> None:
        target = self.page.locator(selector)
        expect(target).to_be_in_viewport()  # a tap needs no scrolling first
        target.tap()
        self.count += 1


def in_view(page: Page, selector: str) -> None:
    expect(page.locator(selector)).to_be_in_viewport(ratio=1)


@pytest.mark.parametrize(
    ("device", "quick", "players", "life_before"),
    [
        pytest.param(SMALL_PHONE, "two", 2, "20", id="small-phone-two-players"),
        pytest.param(SMALL_PHONE, "commander", 4, "40", id="small-phone-commander"),
        pytest.param(TABLET, "commander", 4, "40", id="tablet-commander"),
    ],
)
def test_open_the_app_and_change_a_life_total_in_two_taps(
    base: str,
    browser: Browser,
    kept_start: dict[str, str],
    device: dict[str, Any],
    quick: str,
    players: int,
    life_before: str,
) -> None:
    page = browser.new_context(**device).new_page()
    taps = Taps(page)
    page.goto(base + "/")
    keep_start(page, kept_start)  # the app opened before: its engine's start kept
    in_view(page, f'[data-quick="{quick}"]')
    taps.tap(f'[data-quick="{quick}"]')  # 1: a game on this device
    device_table(page)
    held(page, players)
    panel = '.panel[data-player="player-1"]'
    expect(life(page, "player-1")).to_have_text(life_before)
    taps.tap(f'{panel} [data-act="minus"]')  # 2: the first life change
    expect(life(page, "player-1")).to_have_text(str(int(life_before) - 1))
    page.wait_for_function("() => lifeledger.S.pending.size === 0")
    assert taps.count <= 2, f"{taps.count} taps to the first life change"
    page.context.close()


def test_the_start_page_fits_a_small_phone_and_reads_no_rule_numbers(
    base: str, browser: Browser
) -> None:
    page = browser.new_context(**SMALL_PHONE).new_page()
    page.goto(base + "/")
    for selector in ('[data-quick="two"]', '[data-quick="commander"]', "#join-code", "#more"):
        in_view(page, selector)
    assert page.evaluate("document.documentElement.scrollHeight") <= 667
    # The form is there, under More options: no rule numbers, a placeholder that fits, and the
    # library fields only for players who count their cards.
    expect(page.locator("#create-form")).to_be_hidden()
    more_options(page)
    options = page.locator("#variant option, #format option, #best-of option")
    texts = options.evaluate_all("(els) => els.map((e) => e.textContent)")
    assert texts and not [t for t in texts if re.search(r"\(\d|\b\d{3}", t)], texts
    life_field = page.locator("#starting-life")
    assert life_field.evaluate("(e) => e.scrollWidth <= e.clientWidth")
    expect(page.locator(".player-row .p-library").first).to_be_hidden()
    page.locator("#count-library").check()
    expect(page.locator(".player-row .p-library").first).to_be_visible()
    page.context.close()


def test_the_last_setup_starts_in_one_tap_and_recent_tables_resume(
    base: str, browser: Browser, kept_start: dict[str, str]
) -> None:
    """A playgroup named under More options once: the next game is one tap, with their names;
    the start page then lists both tables with their life totals, and opens one again, with
    no network too (from the table's offline copy)."""
    page = browser.new_context(**SMALL_PHONE).new_page()
    page.goto(base + "/")
    keep_start(page, kept_start)
    more_options(page)
    names = page.locator(".player-row .p-name")
    names.nth(0).fill("Mia")
    names.nth(1).fill("Noor")
    page.locator("#open-table").click()
    page.locator("#one-device").click()
    page.wait_for_url("**/t/*")
    first = page.url.rsplit("/", 1)[1]
    held(page, 2)
    page.locator('.panel[data-player="noor"] [data-act="minus5"]').click()
    expect(life(page, "noor")).to_have_text("15")
    page.wait_for_function("() => lifeledger.S.pending.size === 0")
    kept_as_shown(page)

    page.goto(base + "/")
    again = page.locator('[data-quick="last"]')
    expect(again).to_contain_text("Mia, Noor")
    in_view(page, '[data-quick="last"]')
    again.tap()
    second = device_table(page)
    assert second != first
    held(page, 2)
    page.locator('.panel[data-player="mia"] [data-act="minus"]').tap()
    expect(life(page, "mia")).to_have_text("19")
    page.wait_for_function("() => lifeledger.S.pending.size === 0")
    kept_as_shown(page)

    page.goto(base + "/")
    recent = page.locator("#recent-list a")
    expect(recent).to_have_count(2)
    expect(recent.nth(0)).to_contain_text("Mia 19 · Noor 20")
    expect(recent.nth(1)).to_contain_text("Mia 20 · Noor 15")
    # An installed app with no network: the start page still lists them, and one opens.
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
    page.context.set_offline(True)
    page.reload()
    expect(recent.nth(1)).to_have_attribute("href", f"/t/{first}")
    recent.nth(1).click()
    page.wait_for_url(f"**/t/{first}")
    expect(life(page, "noor")).to_have_text("15")
    page.context.close()

"""issue 17, item 13: one turn, one clock. The chess clock starts with the player whose turn it
is (not the "who starts" pick's, once a turn has begun), and goes to the next turn's player when
a turn begins on the turn bar (Next ▶), on every phone; a pass by hand during a turn stays."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}
OTHER = {"ana": "bo", "bo": "ana"}


def clock_on(page: Page, side: str) -> None:
    """The clock runs for ``side`` on ``page`` (soon: a loaded machine is slow to show it)."""
    active = page.locator(f'#tl-clock .tl-side.active[data-side="{side}"]')
    expect(active).to_be_visible(timeout=15_000)


def test_the_clock_follows_the_turn_bar(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", TWO)
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    # The table picks who starts; the players then begin the first turn with the other one.
    ana.locator("#tools-btn").click()
    ana.locator("#tool-first").click()
    expect(ana.locator("#tool-recent li")).to_have_count(1)
    picked = ana.evaluate("lifeledger.T.tools.recent[lifeledger.T.tools.recent.length - 1].side")
    first = OTHER[picked]
    ana.locator('#tools-sheet [data-close="tools-sheet"]').click()
    ana.locator(f'#turn-bar [data-first="{first}"]').click()
    expect(bo.locator("#turn-text")).to_contain_text("Turn 1")
    # The clock starts with the turn's player.
    ana.locator("#tools-btn").click()
    ana.locator("#tool-clock-start").click()
    expect(ana.locator("#tool-clock-stop")).to_be_visible()
    ana.locator('#tools-sheet [data-close="tools-sheet"]').click()
    for page in (ana, bo):
        clock_on(page, first)
    # Next ▶ on the turn bar: the clock goes with the turn, on both phones.
    ana.locator("#turn-next").click()
    expect(bo.locator("#turn-text")).to_contain_text("Turn 2")
    for page in (ana, bo):
        clock_on(page, picked)
    ana.locator("#turn-next").click()
    expect(ana.locator("#turn-text")).to_contain_text("Turn 3")
    for page in (ana, bo):
        clock_on(page, first)
    # A pass by hand during the turn (answering a spell, say) is left alone.
    bo.locator("#tl-pass").click()
    for page in (ana, bo):
        clock_on(page, picked)
    ana.wait_for_timeout(2000)
    clock_on(ana, picked)
    clock = ana.evaluate("lifeledger.T.tools.clock")
    assert clock["turns"] == 3  # two turns followed, one pass by hand: no pass twice
    ana.context.close()
    bo.context.close()

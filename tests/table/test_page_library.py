"""The player sheet's library at a table that doesn't count it (docs/table.md, "What a player
can do"): the library is untracked (record version 2), "Library is empty now" states it empty
(``set_library`` 0, 121.4) and the sheet shows it counted from then on; "Draws from an empty
library" records the library stated empty and the draw as one group, and the player loses
(704.5b). In Debian's chromium, driven by Playwright (fixtures ``base`` and ``browser``)."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}


@pytest.mark.rule("704.5b")
def test_the_sheet_states_an_uncounted_library_empty_and_draws_from_it_121_4_704_5b(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", TWO)
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    page.locator('[data-player="bo"] [data-act="more"]').click()
    body = page.locator("#sheet-body")
    expect(body.locator('[data-sheet="draw"]')).to_have_text("Draws from an empty library")
    page.locator('[data-sheet="library-empty"]').click()
    # The engine tracks Bo's library now: the sheet shows it counted, with its draw button.
    expect(body).to_contain_text("0 cards in library")
    expect(body.locator('[data-sheet="library-empty"]')).to_have_count(0)
    expect(page.locator('section.panel[data-player="bo"]')).to_contain_text("library 0")
    page.locator('#sheet [data-close="sheet"]').click()
    page.locator('[data-player="ana"] [data-act="more"]').click()
    page.locator('[data-sheet="draw"]').click()
    expect(page.locator('section.panel[data-player="ana"]')).to_contain_text("704.5b")
    if page.locator("#sheet").is_visible():
        page.locator('#sheet [data-close="sheet"]').click()
    page.locator("#history-btn").click()
    history = page.locator("#history-list")
    expect(history).to_contain_text("Bo's library has 0 cards")
    expect(history).to_contain_text("Together: Ana's library has 0 cards; Ana draws 1 card")
    page.context.close()

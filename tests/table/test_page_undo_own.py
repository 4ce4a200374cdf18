"""Issue 25 item 4, the page's side: a seat's Undo takes back its own last change even when
other seats' changes came after it (Ana −3, Bo −2, Cy −1: Ana's Undo is "Undo: Cy −3", not
"Cy −1, by Cy"), nobody asked; the later changes are made again and the history says so. One
that would now do something else (704.5a: a loss at 0) is named on a card first, and "Undo
anyway" takes it back. In Debian's chromium, driven by Playwright, against a real server (the
fixtures ``base`` and ``browser`` are in conftest.py)."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import life, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = pytest.mark.browser

THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], "starting_life": 40}


def test_a_seat_takes_back_its_own_change_under_later_ones(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", THREE)["id"]
    ana, bo, cy = new_phone(browser), new_phone(browser), new_phone(browser)
    for page, who in ((ana, "ana"), (bo, "bo"), (cy, "cy")):
        sit(page, base, table, who)
    for page, amount in ((ana, 3), (bo, 2), (cy, 1)):
        page.evaluate(f"() => lifeledger.act({{do: 'lose_life', player: 'cy', amount: {amount}}})")
        expect(life(cy, "cy")).to_have_text(str(40 - {3: 3, 2: 5, 1: 6}[amount]))
    expect(ana.locator("#undo-btn")).to_have_text("↶ Undo: Cy −3")
    expect(bo.locator("#undo-btn")).to_have_text("↶ Undo: Cy −2")
    expect(cy.locator("#undo-btn")).to_have_text("↶ Undo: Cy −1")
    ana.locator("#undo-btn").click()
    for page in (ana, bo, cy):
        expect(life(page, "cy")).to_have_text("37")
    expect(cy.locator("#undo-ask")).to_have_count(0)  # nobody was asked
    expect(ana.locator("#toast")).to_contain_text("Undone: Cy loses 3 life, by Ana")
    # Ana has no change in effect: her Undo names the table's last (Cy's, asked of Cy).
    expect(ana.locator("#undo-btn")).to_have_text("↶ Undo: Cy −1, by Cy")
    bo.locator("#history-btn").click()
    rows = bo.locator("#history-list li")
    expect(rows.nth(0)).to_contain_text("Cy loses 1 life (made again: event 3)")
    expect(rows.nth(1)).to_contain_text("Cy loses 2 life (made again: event 2)")
    expect(rows.nth(2)).to_contain_text("↶ Undo: Cy loses 3 life, by Ana")
    expect(rows.nth(3)).to_contain_text("(made again, after an earlier change was undone)")
    expect(bo.locator("#history-list li.undo")).to_have_count(1)
    for page in (ana, bo, cy):
        page.context.close()


@pytest.mark.rule("704.5a")
def test_a_later_change_that_would_do_something_else_is_named_first(
    base: str, browser: Browser
) -> None:
    """704.5a: Ana's −38 brought Cy to 2, and Bo's −2 to 0: Cy lost. Without Ana's −38, Bo's
    −2 makes no one lose: Ana's Undo says so on a card first, and "Undo anyway" takes it back."""
    table = post(base + "/api/tables", THREE)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    ana.evaluate("() => lifeledger.act({do: 'lose_life', player: 'cy', amount: 38})")
    expect(life(bo, "cy")).to_have_text("2")
    bo.evaluate("() => lifeledger.act({do: 'lose_life', player: 'cy', amount: 2})")
    expect(life(ana, "cy")).to_have_text("0")
    expect(ana.locator("#undo-btn")).to_have_text("↶ Undo: Cy −38")
    ana.locator("#undo-btn").click()
    card = ana.locator("#undo-confirm")
    expect(card).to_be_visible()
    later = card.locator('li[data-seq="2"]')
    expect(later).to_contain_text("Cy loses 2 life, by Bo (event 2): Cy life 2 → 0")
    expect(later).to_contain_text("now Cy life 40 → 38")
    expect(life(ana, "cy")).to_have_text("0")  # nothing changed yet
    card.locator('[data-undo-confirm="yes"]').click()
    expect(card).to_be_hidden()
    for page in (ana, bo):
        expect(life(page, "cy")).to_have_text("38")
    ana.context.close()
    bo.context.close()

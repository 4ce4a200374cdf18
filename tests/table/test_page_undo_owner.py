"""Issue 17 items 10 and 11, the page's side: the Undo button names what it takes back and
whose it is; Undo of another seat's change asks that seat's phone, whose "Allow undo" takes it
back everywhere (and whose "Keep it" keeps it); the history says what sent each change, the
table device's as "by the table". In Debian's chromium, driven by Playwright, against a real
server (the fixtures ``base`` and ``browser`` are in conftest.py)."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import get, held, life, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = pytest.mark.browser

THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], "starting_life": 40}
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")], "starting_life": 40}


def server_life(base: str, table: str, player: str) -> int:
    state = get(f"{base}/api/tables/{table}")["state"]
    value: int = next(p["life"] for p in state["players"] if p["id"] == player)
    return value


def test_undo_names_its_change_and_asks_whose_it_is(base: str, browser: Browser) -> None:
    """Ana takes 7 from Cy. Bo's Undo says "Undo: Cy −7, by Ana"; a tap takes nothing back by
    itself but asks Ana's phone, which names it; Ana keeps it, then allows it: Cy is back to
    40 on every phone, and the history says who asked and who allowed."""
    table = post(base + "/api/tables", THREE)["id"]
    ana, bo, cy = new_phone(browser), new_phone(browser), new_phone(browser)
    for page, who in ((ana, "ana"), (bo, "bo"), (cy, "cy")):
        sit(page, base, table, who)
    ana.evaluate("() => lifeledger.act({do: 'lose_life', player: 'cy', amount: 7})")
    for page in (ana, bo, cy):
        expect(life(page, "cy")).to_have_text("33")
    undo = bo.locator("#undo-btn")
    expect(undo).to_have_text("↶ Undo: Cy −7, by Ana")
    asks = "Undo: Cy −7, by Ana: asks Ana (or the host) to allow it"
    expect(undo).to_have_attribute("aria-label", asks)
    expect(ana.locator("#undo-btn")).to_have_text("↶ Undo: Cy −7")  # her own change
    undo.click()
    expect(bo.locator("#toast")).to_contain_text("Ana's change")
    question = ana.locator("#undo-ask")
    expect(question).to_be_visible()
    expect(question).to_contain_text("Bo asks to take back your change: Cy −7.")
    assert server_life(base, table, "cy") == 33  # nothing taken back yet
    ana.locator('[data-undo-answer="refuse"]').click()
    expect(bo.locator("#toast")).to_contain_text("Not undone: Ana refused.")
    expect(life(cy, "cy")).to_have_text("33")
    undo.click()
    expect(question).to_be_visible()
    ana.locator('[data-undo-answer="allow"]').click()
    expect(question).to_be_hidden()
    for page in (ana, bo, cy):
        expect(life(page, "cy")).to_have_text("40")
    assert server_life(base, table, "cy") == 40
    cy.locator("#history-btn").click()
    newest = cy.locator("#history-list li").first
    expect(newest).to_contain_text("Undo: Cy loses 7 life, by Ana (allowed by Ana)")
    expect(newest).to_contain_text("by Bo")
    for page in (ana, bo, cy):
        page.context.close()


def test_a_seats_own_change_under_anothers_is_its_undo(base: str, browser: Browser) -> None:
    """Issue 25 item 4 (before, issue 17 item 10 refused it): Bo's own change is under Ana's,
    and Bo's Undo still names his own and takes it back; Ana's change stays, still hers."""
    table = post(base + "/api/tables", THREE)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    bo.evaluate("() => lifeledger.act({do: 'gain_life', player: 'bo', amount: 3})")
    expect(bo.locator("#undo-btn")).to_have_text("↶ Undo: Bo +3")
    ana.evaluate("() => lifeledger.act({do: 'lose_life', player: 'cy', amount: 7})")
    expect(life(bo, "cy")).to_have_text("33")
    expect(bo.locator("#undo-btn")).to_have_text("↶ Undo: Bo +3")
    bo.locator("#undo-btn").click()
    expect(life(ana, "bo")).to_have_text("40")
    assert server_life(base, table, "bo") == 40
    assert server_life(base, table, "cy") == 33
    expect(ana.locator("#undo-btn")).to_have_text("↶ Undo: Cy −7")
    ana.context.close()
    bo.context.close()


def test_the_table_devices_tap_is_the_tables_in_the_history(base: str, browser: Browser) -> None:
    """item 11: a tablet's tap on Cy's panel while Cy plays on her own phone is sent as a seat
    the tablet holds, but the history (on both) says the table sent it, not that seat's
    player; Cy's own change says "by Cy"."""
    table = post(base + "/api/tables", FOUR)["id"]
    phone = new_phone(browser)
    sit(phone, base, table, "cy")
    tablet = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True).new_page()
    tablet.goto(f"{base}/t/{table}")
    tablet.locator('#picker button[data-seat="table"]').click()
    held(tablet, 3)
    tablet.locator('.panel[data-player="cy"] [data-act="minus5"]').click()
    expect(life(phone, "cy")).to_have_text("35")
    phone.evaluate("() => lifeledger.act({do: 'gain_life', player: 'cy', amount: 1})")
    expect(life(tablet, "cy")).to_have_text("36")
    for page in (tablet, phone):
        page.locator("#history-btn").click()
        rows = page.locator("#history-list li")
        expect(rows.nth(0)).to_contain_text("by Cy")
        expect(rows.nth(1)).to_contain_text("Cy loses 5 life")
        expect(rows.nth(1)).to_contain_text("by the table")
    # The tablet's change is the tablet's to take back: Cy's phone names it and would ask.
    phone.locator('#history [data-close="history"]').click()
    phone.evaluate("() => lifeledger.request('undo', null, {target: lifeledger.S.undoTarget})")
    expect(phone.locator("#undo-btn")).to_have_text("↶ Undo: Cy −5, by the table")
    tablet.context.close()
    phone.context.close()

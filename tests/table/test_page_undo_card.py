"""Issue 25 item 5: the undo question does not block the table. A seat asked to allow an undo
of its change (or the host) is shown a card, not a full-screen dialog: the panels stay
tappable while it is up (a tap plays on, and the question, no longer about the last change,
goes away), no toast ever covers its Allow and Keep buttons, and on a table device the card
is turned to the seat asked. In Debian's chromium, driven by Playwright, against a real server
(the fixtures ``base`` and ``browser`` are in conftest.py)."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import held, life, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

THREE = {"players": [{"name": "Ana"}, {"name": "Bo"}, {"name": "Cy"}], "starting_life": 40}
FOUR = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy", "Di")], "starting_life": 40}

#: Whether the element a finger would land on at the centre of ``selector`` is inside it.
TAPPABLE = """(selector) => {
  const el = document.querySelector(selector);
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!hit && el.contains(hit);
}"""

#: Whether a toast shown now would be drawn over the card: it overlaps it and is above it.
COVERED = """() => {
  const card = document.getElementById("undo-ask"), toast = document.getElementById("toast");
  const a = card.getBoundingClientRect(), b = toast.getBoundingClientRect();
  const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const z = (el) => Number(getComputedStyle(el).zIndex) || 0;
  return overlap && z(toast) >= z(card);
}"""


def test_the_question_leaves_the_panels_tappable_and_no_toast_covers_it(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", THREE)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    ana.evaluate("() => lifeledger.act({do: 'lose_life', player: 'cy', amount: 3})")
    expect(bo.locator("#undo-btn")).to_have_text("↶ Undo: Cy −3, by Ana")
    bo.locator("#undo-btn").click()
    card = ana.locator("#undo-ask")
    expect(card).to_contain_text("Bo asks to take back your change: Cy −3.")
    minus = '.panel[data-player="cy"] [data-act="minus"]'
    assert ana.evaluate(TAPPABLE, minus), "the question covers the panels"
    assert ana.evaluate(TAPPABLE, "#undo-btn"), "the question covers the bar"
    # Play goes on: Ana's tap is taken, and the question (about a change no longer the last)
    # goes away; Bo is told why.
    ana.locator(minus).click()
    expect(life(bo, "cy")).to_have_text("36")
    expect(card).to_be_hidden()
    expect(bo.locator("#toast")).to_contain_text("Not undone")
    # Asked again: a toast on Ana's phone (a long one) never covers Allow or Keep.
    bo.locator("#undo-btn").click()
    expect(card).to_be_visible()
    ana.evaluate(
        "() => lifeledger.toast('Refused: a very long reason that wraps over several lines"
        " on a small phone, long enough to reach up the screen — 104.3a, and more words"
        " after it', 'bad')"
    )
    expect(ana.locator("#toast")).to_be_visible()
    assert not ana.evaluate(COVERED), "a toast covers the undo question"
    ana.locator('#undo-ask [data-undo-answer="allow"]').click()
    expect(card).to_be_hidden()
    for page in (ana, bo):
        expect(life(page, "cy")).to_have_text("37")
    ana.context.close()
    bo.context.close()


def tablet(browser: Browser, base: str, table: str, count: int) -> Page:
    page = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True).new_page()
    page.goto(f"{base}/t/{table}")
    page.locator('#picker button[data-seat="table"]').click()
    held(page, count)
    return page


def test_on_the_table_device_the_question_is_turned_to_the_seat_asked(
    base: str, browser: Browser
) -> None:
    """Di, on her own phone, asks to take back a change the table device made on a panel
    turned away from its bottom edge: the tablet's card lies over that panel, turned as it
    is, and every other panel stays tappable."""
    table = post(base + "/api/tables", FOUR)["id"]
    di = new_phone(browser)
    sit(di, base, table, "di")
    device = tablet(browser, base, table, 3)
    turned = device.evaluate(
        "() => [...document.querySelectorAll('#panels .panel')]"
        ".filter((p) => Number(p.dataset.facing || 0) && p.dataset.unit !== 'di')"
        ".map((p) => [p.dataset.unit, p.dataset.facing])"
    )
    assert turned, "no panel is turned on the table device"
    seat, facing = turned[0]
    device.locator(f'.panel[data-player="{seat}"] [data-act="minus5"]').click()
    expect(life(di, seat)).to_have_text("35")
    di.locator("#undo-btn").click()
    card = device.locator("#undo-ask")
    expect(card).to_be_visible()
    owner = device.evaluate("() => [...lifeledger.S.undoAsks.values()][0].owner")
    assert owner == seat
    expect(card).to_have_attribute("data-facing", facing)
    for other in ("ana", "bo", "cy", "di"):
        if other != seat:
            assert device.evaluate(TAPPABLE, f'.panel[data-player="{other}"] [data-act="minus"]')
    device.locator('#undo-ask [data-undo-answer="allow"]').click()
    expect(life(di, seat)).to_have_text("40")
    device.context.close()
    di.context.close()

"""Issue 17 item 3, the page's side: "Reset game" and "New game" in the table's menu, each asking
for one confirming tap, start over with the same players on every phone; the history says who
did it, the Undo button names it, and one Undo brings the game back as it was. In Debian's
chromium, driven by Playwright, against a real server (the fixtures ``base`` and ``browser``
are in conftest.py)."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import get, life, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}


def test_reset_and_new_game_ask_once_more_and_undo_brings_the_game_back(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", TWO)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    ana.evaluate("() => lifeledger.act({do: 'lose_life', player: 'bo', amount: 7})")
    for page in (ana, bo):
        expect(life(page, "bo")).to_have_text("13")
    # Reset: the menu's button asks first; "Keep playing" changes nothing.
    ana.locator("#menu-btn").click()
    ana.locator('[data-menu="reset"]').click()
    expect(ana.locator("#start-over-text")).to_contain_text("Start this game over")
    ana.locator('[data-menu="keep-playing"]').click()
    expect(ana.locator("#start-over-text")).to_have_count(0)
    assert get(f"{base}/api/tables/{table}")["seq"] == 1
    ana.locator('[data-menu="reset"]').click()
    ana.locator('[data-confirm="reset"]').click()
    expect(ana.locator("#menu")).to_be_hidden()
    for page in (ana, bo):
        expect(life(page, "bo")).to_have_text("20")
    expect(bo.locator("#score")).to_contain_text("Game 1")  # not scored: still the match's first
    # Bo's phone names it in the Undo button and the history, with who did it.
    expect(bo.locator("#undo-btn")).to_have_text("↶ Undo: Reset, by Ana")
    bo.locator("#history-btn").click()
    newest = bo.locator("#history-list li").first
    expect(newest).to_contain_text("Reset: the game starts over")
    expect(newest).to_contain_text("by Ana")
    bo.locator('[data-close="history"]').click()
    # Bo's Undo of Ana's reset asks Ana's phone, which names it; she keeps it.
    bo.locator("#undo-btn").click()
    question = ana.locator("#undo-ask")
    expect(question).to_contain_text("Bo asks to take back your change: Reset.")
    ana.locator('[data-undo-answer="refuse"]').click()
    expect(bo.locator("#toast")).to_contain_text("Not undone: Ana refused.")
    expect(life(bo, "bo")).to_have_text("20")
    # Ana's own Undo takes it back at once: Bo is at 13 again everywhere.
    expect(ana.locator("#undo-btn")).to_have_text("↶ Undo: Reset")
    ana.locator("#undo-btn").click()
    for page in (ana, bo):
        expect(life(page, "bo")).to_have_text("13")
    # New game from Bo's phone: the game so far is left unfinished, not scored.
    bo.locator("#menu-btn").click()
    bo.locator('[data-menu="new-game"]').click()
    expect(bo.locator("#start-over-text")).to_contain_text("End this game unfinished")
    bo.locator('[data-confirm="new_game"]').click()
    for page in (ana, bo):
        expect(life(page, "bo")).to_have_text("20")
    data = get(f"{base}/api/tables/{table}")
    assert data["score"]["game"] == 2 and data["score"]["finished"] == 0
    assert [e["kind"] for e in data["entries"]] == ["action", "reset", "undo", "new_game"]
    for page in (ana, bo):
        page.context.close()

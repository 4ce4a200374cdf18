"""The server's words in each phone's language (issue 20): a refusal the server sends is shown
in Italian on an Italian phone while an English phone at the same table reads it in English,
both from the one structured sentence the server sends."""

from __future__ import annotations

import json
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import PHONE, post, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"variant": "two-player", "format": "normal", "players": [{"name": "Ana"}, {"name": "Bo"}]}


def phone(browser: Browser, locale: str) -> Page:
    """A phone whose browser prefers ``locale``."""
    options: dict[str, Any] = {**PHONE, "locale": locale}
    return browser.new_context(**options).new_page()


def ready(page: Page, lang: str) -> None:
    """The page is drawn in ``lang`` and its socket is open."""
    page.wait_for_function(
        "(lang) => document.documentElement.lang === lang"
        " && (lang === 'en' || Object.keys(lifeledger.I18N.messages).length > 0)"
        " && lifeledger.S.connected",
        arg=lang,
    )


def send(page: Page, msg: dict[str, Any]) -> None:
    """Send a message on the page's own socket (what a stale or hostile page could send)."""
    page.evaluate("(text) => lifeledger.S.ws.send(text)", json.dumps(msg))


def test_a_refusal_reads_in_each_phones_language(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", TWO)
    ana = phone(browser, "it-IT")
    bo = phone(browser, "en-GB")
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    ready(ana, "it")
    ready(bo, "en")
    # Each concedes for the other: the server refuses (104.3a), naming the player.
    send(ana, {"type": "action", "id": "c-ana-1", "action": {"do": "concede", "player": "bo"}})
    send(bo, {"type": "action", "id": "c-bo-1", "action": {"do": "concede", "player": "ana"}})
    expect(ana.locator("#toast")).to_have_text("Solo Bo può concedere per sé. — 104.3a")
    expect(bo.locator("#toast")).to_have_text("Only Ana can concede for themselves. — 104.3a")
    # A sentence with no arguments, translated whole.
    send(ana, {"type": "undo", "id": "u-ana-1", "target": 99})
    expect(ana.locator("#toast")).to_have_text("In questa partita non c'è nulla da annullare.")
    send(bo, {"type": "undo", "id": "u-bo-1", "target": 99})
    expect(bo.locator("#toast")).to_have_text("There is nothing to undo in this game.")
    # The game goes on: nothing was changed by either.
    expect(ana.locator('[data-player="bo"] .life')).to_have_text("20")
    for page in (ana, bo):
        page.context.close()

"""issue 17, item 14: a table page reloaded with no connection shows the table as this phone last
saw it, and its strip says so plainly — "Offline", with the changes waiting to be sent — never
"Connecting…", whether the phone itself is offline or the server can't be reached."""

from __future__ import annotations

from pathlib import Path

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import PHONE, kept_as_shown, life, post, server, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}


def seated_with_the_shell(browser: Browser, base: str) -> Page:
    """A phone on Ana's seat of a new table, its app shell cached and the table kept offline."""
    table = post(base + "/api/tables", TWO)
    page = browser.new_context(**PHONE).new_page()
    sit(page, base, table["id"], "ana")
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
    page.locator('[data-player="bo"] [data-act="minus"]').click()
    page.wait_for_function("() => lifeledger.S.pending.size === 0")
    kept_as_shown(page)
    return page


def test_a_reload_with_the_phone_offline_says_offline_and_counts_the_waiting_changes(
    browser: Browser, tmp_path: Path
) -> None:
    with server(tmp_path / "t.db") as (base, _):
        page = seated_with_the_shell(browser, base)
        page.context.set_offline(True)
        page.locator('[data-player="bo"] [data-act="minus"]').click()
        expect(life(page, "bo")).to_have_text("18")
        page.wait_for_function("() => !lifeledger.TAPS.run")
        page.reload()
        expect(life(page, "bo")).to_have_text("18")
        strip = page.locator("#netstate")
        expect(strip).to_have_text(
            "Offline — taps are kept and sent when the connection returns"
            " · 1 change waiting to be sent"
        )
        page.context.close()


def test_a_reload_with_the_server_gone_says_offline_not_connecting(
    browser: Browser, tmp_path: Path
) -> None:
    with server(tmp_path / "t.db") as (base, proc):
        page = seated_with_the_shell(browser, base)
        proc.terminate()
        proc.wait()
        page.reload()  # the shell from the service worker; the API answers nothing
        expect(life(page, "bo")).to_have_text("19")
        strip = page.locator("#netstate")
        expect(strip).to_contain_text("Offline — taps are kept and sent")
        page.locator('[data-player="bo"] [data-act="minus"]').click()
        expect(strip).to_have_text(
            "Offline — taps are kept and sent when the connection returns"
            " · 1 change waiting to be sent"
        )
        page.context.close()

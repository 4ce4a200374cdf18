"""issue 17, item 1: a table whose links only the serving machine can open (a server listening on
127.0.0.1) says so under its link and QR code, on the start page and in the table's menu, and
says how to let phones on the same Wi-Fi in; a server on the LAN gives links phones open, and no
such note."""

from __future__ import annotations

from pathlib import Path

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import new_phone, server  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

from lifeledger_table.web.lan import lan_address  # noqa: E402

pytestmark = pytest.mark.browser

NOTE = "Only this computer can open this link and QR code: phones can't."


def open_from_the_form(page: Page, url: str) -> str:
    """Open a table with the start page's form (More options); the table's id."""
    page.goto(url + "/")
    more = page.locator("#more")
    if more.count() and not more.evaluate("(d) => d.open"):
        page.locator("#more > summary").click()
    page.locator("#open-table").click()
    expect(page.locator("#opened-code")).to_be_visible()
    return (page.locator("#opened-link").get_attribute("href") or "").split("/")[-1]


def test_links_only_this_machine_opens_say_so_and_how_to_fix_it(
    browser: Browser, tmp_path: Path
) -> None:
    with server(tmp_path / "t.db", host="127.0.0.1") as (url, _):
        page = new_phone(browser)
        table = open_from_the_form(page, url)
        note = page.locator("#opened .only-here")
        expect(note).to_contain_text(NOTE)
        expect(note).to_contain_text("make run")
        expect(note).to_contain_text("--host 0.0.0.0")
        page.goto(f"{url}/t/{table}")
        page.locator("#picker button.watch").click()
        page.locator("#menu-btn").click()
        expect(page.locator("#menu-body .only-here")).to_contain_text(NOTE)
        page.context.close()


def test_links_phones_can_open_have_no_such_note(browser: Browser, tmp_path: Path) -> None:
    if lan_address() is None:
        pytest.skip("this machine has no LAN address: every link stays on the loopback")
    with server(tmp_path / "t.db", host="0.0.0.0") as (url, _):
        page = new_phone(browser)
        table = open_from_the_form(page, url)
        expect(page.locator("#opened-link")).not_to_contain_text("127.0.0.1")
        expect(page.locator("#opened .only-here")).to_have_count(0)
        page.goto(f"{url}/t/{table}")
        page.locator("#picker button.watch").click()
        page.locator("#menu-btn").click()
        expect(page.locator("#menu-body .link-row").first).to_be_visible()
        expect(page.locator("#menu-body .only-here")).to_have_count(0)
        page.context.close()

"""Phones on the same Wi-Fi (issue 8), in the browser: a table opened on the serving machine
itself (``127.0.0.1``) shows the link and QR code the other phones can open — the server's LAN
address — on the home page and in the table's menu."""

from __future__ import annotations

from pathlib import Path

from browser_helpers import more_options, new_phone, server
from playwright.sync_api import Browser, expect

from lifeledger_table.web.lan import lan_address


def test_a_table_opened_on_localhost_shows_the_lan_link_to_the_other_phones(
    browser: Browser, tmp_path: Path
) -> None:
    with server(tmp_path / "t.db", host="0.0.0.0") as (url, _):
        port = url.rsplit(":", 1)[1]
        found = lan_address()
        origin = f"http://{found}:{port}" if found else url  # no LAN: the loopback stays
        page = new_phone(browser)
        page.goto(url + "/")
        more_options(page)
        page.locator("#open-table").click()
        expect(page.locator("#opened-code")).to_be_visible()
        table = (page.locator("#opened-link").get_attribute("href") or "").split("/")[-1]
        expect(page.locator("#opened-link")).to_have_text(f"{origin}/t/{table}")
        expect(page.locator("#opened-watch")).to_contain_text(f"{origin}/w/")
        # The same links in the table's menu, for a phone that joins later.
        page.goto(f"{url}/t/{table}")
        page.locator("#picker button.watch").click()  # no seat taken: just looking
        page.locator("#menu-btn").click()
        expect(page.locator("#menu-body .link-row a").first).to_have_text(f"{origin}/t/{table}")
        page.context.close()

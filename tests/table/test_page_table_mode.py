"""Table mode in a real browser (issue 8, "one shared device"): one phone or tablet in the
middle of the table holds every free seat, every panel is controllable and turned to face its
player, and it mixes with personal phones at the same table: a player who takes their seat on
their own phone asks for it, the table device allows it with one tap (issue 21 item 2: a seat
the device holds is in use), and the device goes on controlling that panel for effects."""

from __future__ import annotations

import re
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    PHONE,
    get,
    held,
    life,
    new_phone,
    post,
    screenshot,
    sit,
    table_device,
)
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = pytest.mark.browser

FOUR = {"players": [{"name": n} for n in ["Ana", "Bo", "Cy", "Di"]]}


def state_life(base: str, table: str, player: str) -> Any:
    data = get(f"{base}/api/tables/{table}")
    return next(p["life"] for p in data["state"]["players"] if p["id"] == player)


def test_one_device_for_everyone_controls_every_panel_facing_its_player(
    base: str, browser: Browser
) -> None:
    page, table = table_device(browser, base)
    expect(page.locator("#panels")).to_have_class("panels n4 table-mode placed")
    facing = page.locator("#panels .panel").evaluate_all("(ps) => ps.map((p) => p.dataset.facing)")
    assert facing == ["180", "180", "0", "0"]  # a landscape tablet: two players each side
    assert page.evaluate("localStorage.getItem(`lifeledger-device-${lifeledger.KEY}`)") == "table"
    assert sorted(page.evaluate("Object.keys(lifeledger.loadSeats(lifeledger.KEY))")) == [
        "ana",
        "bo",
        "cy",
        "di",
    ]
    expect(page.locator("#picker")).to_be_hidden()
    # Every panel is controllable; each change is sent as its panel's player (104.3a).
    page.locator('.panel[data-player="bo"] [data-act="minus"]').click()
    page.locator('.panel[data-player="di"] [data-act="plus5"]').click()
    expect(life(page, "bo")).to_have_text("39")
    expect(life(page, "di")).to_have_text("45")
    assert state_life(base, table, "bo") == 39
    page.locator("#history-btn").click()
    # What sent it (issue 17 item 11): the table device, not the seat it acted as.
    expect(page.locator("#history-list li").first).to_contain_text("by the table")
    page.locator('#history [data-close="history"]').click()
    # Only a player may concede (104.3a): the device holds each seat, so each can, here.
    page.locator('.panel[data-player="cy"] [data-act="more"]').click()
    expect(page.locator('[data-sheet="concede"]')).to_have_count(1)
    page.locator('#sheet [data-close="sheet"]').click()
    # A reload keeps table mode and the seats.
    page.reload()
    held(page, 4)
    expect(page.locator("#panels")).to_have_class("panels n4 table-mode placed")
    page.locator('.panel[data-player="ana"] [data-act="minus"]').click()
    expect(life(page, "ana")).to_have_text("39")
    page.context.close()


def test_a_personal_phone_asks_the_device_for_its_seat_one_tap_allows_it_and_it_still_deals_damage(
    base: str, browser: Browser
) -> None:
    """Issue 21 item 2: a phone opening the link took a device's seat at once (and could
    concede for its player), and the picker said "(taken)" of seats a tap took. The picker
    says the seat is on the table device and offers to ask; the device shows the request and
    one tap allows it."""
    device, table = table_device(browser, base)
    bo = new_phone(browser)
    bo.goto(f"{base}/t/{table}")
    seat_btn = bo.locator('#picker button[data-seat="bo"]')
    expect(seat_btn).to_have_text("Bo (taken)")
    seat_btn.click()
    note = bo.locator("#picker-note")
    expect(note).to_have_text(
        "Bo's seat is on the table device. Ask to take it? One tap on the table device allows it."
    )
    expect(seat_btn).to_have_text("Ask to take Bo's seat")
    assert sorted(device.evaluate("lifeledger.S.seats")) == [
        "ana",
        "bo",
        "cy",
        "di",
    ]  # nothing given
    seat_btn.click()
    expect(note).to_have_text("Waiting for the table device to allow it…")
    expect(device.locator("#ask")).to_be_visible()
    expect(device.locator("#ask-text")).to_have_text(
        "A phone asks for Bo's seat. Allow it if it is Bo's own phone."
    )
    device.locator('#ask [data-answer="allow"]').click()  # one tap
    expect(bo.locator("#picker")).to_be_hidden()
    expect(bo.locator('[data-player="bo"] .tag.you')).to_be_visible()
    expect(device.locator("#ask")).to_be_hidden()
    held(device, 3)
    panel = device.locator('.panel[data-player="bo"]')
    expect(panel.locator(".tag.phone")).to_have_text("on own phone")
    expect(device.locator("#toast")).to_contain_text("Bo is on their own phone now.")
    # The device still deals Bo damage (sent as a seat it holds), and Bo's phone sees it.
    panel.locator('[data-act="minus5"]').click()
    expect(life(bo, "bo")).to_have_text("35")
    expect(life(device, "bo")).to_have_text("35")
    # Bo's own phone changes Bo's total; the device sees it.
    bo.locator('.panel[data-player="bo"] [data-act="plus"]').click()
    expect(life(device, "bo")).to_have_text("36")
    # The others stay on the device.
    device.locator('.panel[data-player="cy"] [data-act="minus"]').click()
    expect(life(bo, "cy")).to_have_text("39")
    assert sorted(device.evaluate("lifeledger.S.seats")) == ["ana", "cy", "di"]
    device.evaluate("document.getElementById('toast').classList.add('hidden')")
    screenshot(device, "screens/layout-mixed.png")
    bo.context.close()
    device.context.close()


def test_a_device_joins_an_existing_table_as_the_table_device(base: str, browser: Browser) -> None:
    t = post(base + "/api/tables", FOUR)
    ana = new_phone(browser)
    sit(ana, base, t["id"], "ana")
    device = browser.new_context(**PHONE).new_page()
    device.goto(f"{base}/t/{t['id']}")
    device.locator('#picker button[data-seat="table"]').click()
    expect(device.locator("#picker")).to_be_hidden()
    held(device, 3)  # every seat but Ana's: she is on her own phone
    expect(device.locator('.panel[data-player="ana"] .tag.phone')).to_be_visible()
    expect(device.locator("#panels")).to_have_class("panels n4 table-mode placed")
    device.locator('.panel[data-player="di"] [data-act="minus"]').click()
    expect(life(ana, "di")).to_have_text("19")
    device.locator('.panel[data-player="ana"] [data-act="minus"]').click()
    expect(life(ana, "ana")).to_have_text("19")
    ana.context.close()
    device.context.close()


def test_the_table_device_becomes_a_personal_phone_again(base: str, browser: Browser) -> None:
    page, table = table_device(browser, base)
    page.locator("#menu-btn").click()
    page.locator('[data-menu="personal"]').click()
    expect(page.locator("#picker")).to_be_visible()
    page.wait_for_function(
        "() => lifeledger.S.connected && lifeledger.S.seats.length === 0"
    )  # connected again
    cy = page.locator('#picker button[data-seat="cy"]')
    cy.click()  # this device opened the table: it takes any seat, once confirmed
    expect(cy).to_have_text("Take Cy's seat (this phone opened the table)")
    cy.click()
    expect(page.locator("#picker")).to_be_hidden()
    expect(page.locator('.panel[data-player="cy"] .tag.you')).to_be_visible()
    expect(page.locator("#panels")).not_to_have_class(re.compile(r"table-mode"))
    assert page.evaluate("localStorage.getItem(`lifeledger-device-${lifeledger.KEY}`)") == "phone"
    held(page, 1)
    # The seats the device let go were held a moment ago: a phone asking for one is asked
    # about on the phone that opened the table, whose one tap allows it.
    di = new_phone(browser)
    di.goto(f"{base}/t/{table}")
    di.locator('#picker button[data-seat="di"]').click()
    expect(di.locator("#picker-note")).to_have_text(
        "Di's seat is taken by a phone that is here. Ask to take it?"
    )
    di.locator('#picker button[data-seat="di"]').click()
    expect(page.locator("#ask-text")).to_have_text("Someone wants to take Di's seat.")
    page.locator('#ask [data-answer="allow"]').click()
    expect(di.locator('[data-player="di"] .tag.you')).to_be_visible()
    page.locator('.panel[data-player="cy"] [data-act="minus"]').click()
    expect(life(di, "cy")).to_have_text("39")
    di.context.close()
    page.context.close()

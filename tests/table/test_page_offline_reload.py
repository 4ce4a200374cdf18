"""issue 25, item 1: a device keeps its seats and its queue across a reload made offline, and
every tap is kept and sent, or visibly refused. A table device reloaded with no connection
turned every panel read-only ("on own phone", "waiting"), its taps did nothing but say "Every
seat is held already", and the strip still said taps were kept: the taps made after the reload
were lost. Now the page plays from what it kept (its seats, its tokens, its queue, the table as
last seen) until the server's welcome, and sends the queue then, each change once (its id).
The rules named: 119.3 (a player loses life), 104.3a (a change is made as a seat the device
holds)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    PHONE,
    eventually,
    get,
    held,
    kept_as_shown,
    life,
    post,
    server,
    sit,
)
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}
OFFLINE = "Offline — taps are kept and sent when the connection returns"


def server_life(base: str, table: str) -> dict[str, Any]:
    """The life totals the server holds (its HTTP API), by player."""
    data = get(f"{base}/api/tables/{table}")
    return {p["id"]: p["life"] for p in data["state"]["players"]}


def server_seq(base: str, table: str) -> int:
    """How many events the server has written for the table."""
    seq: int = get(f"{base}/api/tables/{table}")["seq"]
    return seq


def tap(page: Page, player: str, total: str) -> None:
    """One −1 tap on ``player``'s panel, shown at once (``total``), closed as its own change."""
    page.locator(f'.panel[data-player="{player}"] [data-act="minus"]').click()
    expect(life(page, player)).to_have_text(total)
    page.wait_for_function("() => !lifeledger.TAPS.run")


def playable(page: Page, players: list[str]) -> None:
    """Every panel takes taps: none is read-only, none "on own phone"."""
    for player in players:
        panel = page.locator(f'.panel[data-player="{player}"]')
        expect(panel).to_have_attribute("data-key", f"{player}|act")
        expect(panel.locator(".tag.phone")).to_have_count(0)


def kept_for_offline(page: Page) -> None:
    """The app shell is cached (the service worker) and the table kept as last seen."""
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
    page.wait_for_function("() => lifeledger.S.pending.size === 0")
    kept_as_shown(page)


def test_a_table_device_reloaded_offline_keeps_its_seats_and_every_tap(
    browser: Browser, tmp_path: Path
) -> None:
    """Table device, two players: 2 taps online, offline, 5 taps, a reload still offline, 4
    taps: every panel stays playable and each tap shows at once as pending; back online, the 9
    queued changes are applied once each (119.3, each sent as its panel's seat, 104.3a)."""
    with server(tmp_path / "t.db") as (base, _):
        table = post(base + "/api/tables", TWO)["id"]
        page = browser.new_context(
            viewport={"width": 1024, "height": 768}, has_touch=True
        ).new_page()
        page.goto(f"{base}/t/{table}")
        page.locator('#picker button[data-seat="table"]').click()
        expect(page.locator("#picker")).to_be_hidden()
        held(page, 2)
        start = server_seq(base, table)
        tap(page, "ana", "19")
        tap(page, "bo", "19")
        kept_for_offline(page)
        assert server_life(base, table) == {"ana": 19, "bo": 19}

        page.context.set_offline(True)
        for player, total in [("ana", "18"), ("bo", "18"), ("ana", "17"), ("bo", "17")]:
            tap(page, player, total)
        tap(page, "ana", "16")
        page.reload()
        toast = page.locator("#toast")
        strip = page.locator("#netstate")
        expect(life(page, "ana")).to_have_text("16")
        expect(life(page, "bo")).to_have_text("17")
        expect(strip).to_have_text(f"{OFFLINE} · 5 changes waiting to be sent")
        playable(page, ["ana", "bo"])
        for player, total in [("bo", "16"), ("ana", "15"), ("bo", "15"), ("ana", "14")]:
            tap(page, player, total)
            expect(life(page, player)).to_have_class("life pending")
        playable(page, ["ana", "bo"])
        expect(toast).not_to_contain_text("Every seat is held already")
        expect(page.locator("#picker")).to_be_hidden()
        expect(strip).to_have_text(f"{OFFLINE} · 9 changes waiting to be sent")
        assert (
            page.evaluate(
                "JSON.parse(localStorage.getItem(`lifeledger-pending-${lifeledger.KEY}`)).length"
            )
            == 9
        )
        assert server_life(base, table) == {"ana": 19, "bo": 19}  # nothing went meanwhile

        page.context.set_offline(False)
        page.wait_for_function("() => lifeledger.S.connected && lifeledger.S.pending.size === 0")
        eventually(lambda: server_life(base, table), {"ana": 14, "bo": 15})
        assert server_seq(base, table) == start + 11  # 2 online, 9 queued: each once
        page.wait_for_timeout(1000)  # anything sent twice would have come by now
        assert server_life(base, table) == {"ana": 14, "bo": 15}
        assert server_seq(base, table) == start + 11
        expect(life(page, "ana")).to_have_text("14")
        expect(life(page, "bo")).to_have_text("15")
        expect(life(page, "ana")).to_have_class("life")
        expect(strip).to_be_hidden()
        assert sorted(page.evaluate("lifeledger.S.seats")) == ["ana", "bo"]
        playable(page, ["ana", "bo"])
        page.context.close()


def test_a_personal_phone_reloaded_offline_keeps_its_seat_and_every_tap(
    browser: Browser, tmp_path: Path
) -> None:
    """The same on a personal phone (Ana's seat): its seat and its queue survive the reload,
    and back online each queued change is applied once (119.3)."""
    with server(tmp_path / "t.db") as (base, _):
        table = post(base + "/api/tables", TWO)["id"]
        page = browser.new_context(**PHONE).new_page()
        sit(page, base, table, "ana")
        start = server_seq(base, table)
        tap(page, "ana", "19")
        tap(page, "bo", "19")
        kept_for_offline(page)

        page.context.set_offline(True)
        for player, total in [("ana", "18"), ("bo", "18"), ("ana", "17"), ("bo", "17")]:
            tap(page, player, total)
        tap(page, "ana", "16")
        page.reload()
        strip = page.locator("#netstate")
        expect(page.locator('[data-player="ana"] .tag.you')).to_be_visible()
        expect(life(page, "ana")).to_have_text("16")
        expect(strip).to_have_text(f"{OFFLINE} · 5 changes waiting to be sent")
        for player, total in [("bo", "16"), ("ana", "15"), ("bo", "15"), ("ana", "14")]:
            tap(page, player, total)
            expect(life(page, player)).to_have_class("life pending")
        expect(page.locator("#picker")).to_be_hidden()
        expect(strip).to_have_text(f"{OFFLINE} · 9 changes waiting to be sent")

        page.context.set_offline(False)
        page.wait_for_function("() => lifeledger.S.connected && lifeledger.S.pending.size === 0")
        eventually(lambda: server_life(base, table), {"ana": 14, "bo": 15})
        page.wait_for_timeout(1000)
        assert server_seq(base, table) == start + 11
        expect(life(page, "ana")).to_have_text("14")
        expect(life(page, "bo")).to_have_text("15")
        expect(page.locator('[data-player="ana"] .tag.you')).to_be_visible()
        page.context.close()


def test_a_reload_right_after_a_change_opens_the_table_as_it_was_then(
    browser: Browser, tmp_path: Path
) -> None:
    """The table kept for offline waits a second after a change; a page left before then keeps
    it as it goes: reloaded offline at once, it shows the change the server made (119.3)."""
    with server(tmp_path / "t.db") as (base, _):
        table = post(base + "/api/tables", TWO)["id"]
        page = browser.new_context(**PHONE).new_page()
        sit(page, base, table, "ana")
        kept_for_offline(page)
        tap(page, "bo", "19")
        page.wait_for_function("() => lifeledger.S.pending.size === 0")
        page.context.set_offline(True)
        page.reload()
        expect(life(page, "bo")).to_have_text("19")
        expect(life(page, "bo")).to_have_class("life")
        page.context.close()


FULL_STORAGE = """() => {
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    const full = new DOMException("full", "QuotaExceededError");
    if (String(key).startsWith("lifeledger-pending-")) throw full;
    return setItem.call(this, key, value);
  };
}"""
NOT_KEPT = (
    "Not kept: this browser can't store the change (storage is full or off) and there is no"
    " connection to send it. Nothing changed."
)


def test_a_change_that_cannot_be_kept_offline_is_refused_where_it_was_made(
    browser: Browser, tmp_path: Path
) -> None:
    """Offline, with the browser's storage full: a tap (and a counter's +) can't be kept, so it
    is refused at once (its total stays, the panel shakes, a toast says why), not shown as
    waiting and lost by the next reload. Back online, taps are sent again as usual (119.3)."""
    with server(tmp_path / "t.db") as (base, _):
        table = post(base + "/api/tables", TWO)["id"]
        page = browser.new_context(**PHONE).new_page()
        sit(page, base, table, "ana")
        kept_for_offline(page)
        page.context.set_offline(True)
        page.evaluate(FULL_STORAGE)
        toast = page.locator("#toast")
        strip = page.locator("#netstate")
        page.locator('.panel[data-player="bo"] [data-act="minus"]').click()
        expect(toast).to_have_text(NOT_KEPT)
        expect(toast).to_have_class("toast bad")
        expect(page.locator('.panel[data-player="bo"]')).to_have_class(re.compile("refused-flash"))
        expect(life(page, "bo")).to_have_text("20")
        expect(life(page, "bo")).to_have_class("life")
        assert page.evaluate("lifeledger.S.pending.size") == 0
        expect(strip).to_have_text(OFFLINE)
        page.evaluate("document.getElementById('toast').className = 'toast hidden'")
        poison = page.locator('.panel[data-player="bo"] .ctr[data-counter="poison"]')
        poison.locator(".ctr-plus").click()
        expect(toast).to_have_text(NOT_KEPT)
        expect(poison.locator(".ctr-n")).to_have_text("0")
        assert page.evaluate("lifeledger.S.pending.size") == 0
        expect(strip).to_have_text(OFFLINE)

        page.context.set_offline(False)
        page.wait_for_function("() => lifeledger.S.connected")
        tap(page, "bo", "19")  # online, a change is sent at once though it isn't stored
        page.wait_for_function("() => lifeledger.S.pending.size === 0")
        eventually(lambda: server_life(base, table), {"ana": 20, "bo": 19})
        page.context.close()

"""Device tables in Chromium (issue 27 item 1): a table kept and decided on the phone, by the
same Python a server runs, in Pyodide in the page's engine worker, written to IndexedDB before it
is shown as done. The server only served the page: it is stopped once the page has loaded, and
the game goes on, through reloads and a browser closed and opened again. The rules named:
119.3 (life lost), 704.5a (a player at 0 life loses)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    ARGS,
    CHROMIUM,
    ENGINE,
    PHONE,
    decided,
    device_table,
    engine_ready,
    first_page,
    get,
    keep_start,
    kept_as_shown,
    life,
    need_chromium,
    new_device_table,
    open_phone,
    server,
    tap_minus,
)
from playwright.sync_api import expect, sync_playwright  # noqa: E402

pytestmark = pytest.mark.browser


def test_a_whole_game_on_the_device_with_the_server_gone(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """One tap starts a game kept on the phone; the server that served the page stops; taps are
    decided on the phone (119.3) through a reload and a browser closed and opened again, until
    the rules end the game (704.5a)."""
    need_chromium()
    profile = tmp_path / "phone"
    with sync_playwright() as p:
        with server(tmp_path / "t.db") as (base, _proc):
            context = open_phone(profile, p)
            page = first_page(context)
            page.goto(base + "/")
            page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
            keep_start(page, kept_start)
            page.locator('[data-quick="two"]').click()
            device_table(page, ENGINE)
            engine_ready(page)
            table = page.evaluate("lifeledger.KEY")
            assert table.startswith("d-")
            # The engine and Pyodide are kept by the service worker for the next opening.
            page.wait_for_function(
                """async () => { const keys = await caches.keys();
                   for (const k of keys) { const c = await caches.open(k);
                     if ((await c.keys()).some((r) => r.url.endsWith("engine.zip"))) return true; }
                   return false; }""",
                timeout=30_000,
            )
            tap_minus(page, "player-1", "19")
            decided(page)
        # The server is gone: the phone decides alone.
        tap_minus(page, "player-1", "18")
        tap_minus(page, "player-2", "19")
        decided(page)
        page.reload()
        engine_ready(page)
        expect(life(page, "player-1")).to_have_text("18")
        expect(life(page, "player-2")).to_have_text("19")
        tap_minus(page, "player-2", "18")
        decided(page)
        context.close()
        # The phone restarted: the table is on the start page and opens as it was.
        context = open_phone(profile, p)
        page = first_page(context)
        page.goto(base + "/")
        page.locator(f'.recent-table[data-table="{table}"]').click()
        device_table(page, ENGINE)
        engine_ready(page)
        expect(life(page, "player-2")).to_have_text("18")
        # 18 damage at once: the rules end the game on the phone (704.5a).
        page.evaluate(
            """() => lifeledger.act({ do: "damage", to: "player-2", amount: 18,
                source: "player-1" })"""
        )
        decided(page)
        expect(life(page, "player-2")).to_have_text("0")
        result = page.evaluate("() => lifeledger.S.state.players.find((p) => p.id === 'player-2')")
        assert (result["status"], result["rule"]) == ("lost", "704.5a")
        # Undo on the device takes it back at once.
        page.locator("#undo-btn").click()
        expect(life(page, "player-2")).to_have_text("18")
        decided(page)
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


def test_taps_before_the_engine_is_ready_are_shown_at_once_and_decided_in_order(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """A reload: the panels come from the copy the page kept and take taps at once, before
    the engine has started; the engine then decides them, in order, each once."""
    need_chromium()
    with sync_playwright() as p, server(tmp_path / "t.db") as (base, _proc):
        context, page = new_device_table(p, tmp_path, base, kept_start)
        tap_minus(page, "player-1", "19")
        decided(page)
        kept_as_shown(page)
        page.reload()
        page.wait_for_function("() => !!lifeledger.S.state")
        assert not page.evaluate("lifeledger.S.connected")  # the engine is still starting
        tap_minus(page, "player-1", "18")
        tap_minus(page, "player-1", "17")
        decided(page)
        expect(life(page, "player-1")).to_have_text("17")
        assert page.evaluate("lifeledger.S.state.players[0].life") == 17
        assert page.evaluate("lifeledger.S.lastSeq") == 3
        context.close()


def test_a_device_table_is_shared_and_a_second_phone_joins(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """The phone in the middle shares its table: the server continues the same game (the
    totals, the log), the phone goes on as its table device, and a player's own phone takes
    their seat and plays on it (119.3)."""
    need_chromium()
    with sync_playwright() as p, server(tmp_path / "t.db") as (base, _proc):
        context, page = new_device_table(p, tmp_path, base, kept_start)
        tap_minus(page, "player-1", "19")
        tap_minus(page, "player-2", "19")
        tap_minus(page, "player-2", "18")
        decided(page)
        device = page.evaluate("lifeledger.KEY")
        page.locator("#menu-btn").click()
        page.locator('[data-menu="share"]').click()
        page.wait_for_function("() => location.pathname.startsWith('/t/')", timeout=30_000)
        page.wait_for_load_state()
        table = page.evaluate("lifeledger.KEY")
        assert not table.startswith("d-")
        page.wait_for_function(
            "() => lifeledger.S.connected && lifeledger.S.seats.length === 2", timeout=30_000
        )
        expect(life(page, "player-1")).to_have_text("19")
        expect(life(page, "player-2")).to_have_text("18")
        served = get(f"{base}/api/tables/{table}")
        assert served["seq"] == 3
        # The device keeps no copy of a table it shared.
        assert page.evaluate(f"lifeledger.DeviceStore.load({device!r})") is None
        phone = p.chromium.launch(executable_path=CHROMIUM, args=ARGS).new_page(**PHONE)
        phone.goto(f"{base}/t/{table}")
        seat_btn = phone.locator('#picker button[data-seat="player-2"]')
        seat_btn.click()  # the seat is on the table device: refused, and the phone offers to ask
        # The second tap once the refusal has come (under load, a tap before it is ignored: the
        # first claim is still under way).
        expect(seat_btn).to_have_attribute("data-ask", "1")
        seat_btn.click()
        page.locator('#ask [data-answer="allow"]').click()  # one tap on the table device
        expect(phone.locator('[data-player="player-2"] .tag.you')).to_be_visible()
        tap_minus(phone, "player-2", "17")
        expect(life(page, "player-2")).to_have_text("17")
        tap_minus(page, "player-1", "18")
        expect(life(phone, "player-1")).to_have_text("18")
        context.close()

"""Issue 27 item 4, offline in a shared table: a phone that loses the server decides its queued
taps with its own engine (Pyodide, in the page's engine worker) and shows the rules' result at
once, marked as not yet sent; the queue and the game it is foreseen from are kept, so a reload
with no network still shows it; back online the queue goes in order, and the server decides:
a queued change that another phone's change made wrong is refused, named with the server's
reason and rule, and the rest is kept. The rules named: 119.3 (life lost), 704.5a (a player at
0 life loses), 119.4 (a player can't pay more life than they have)."""

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
    kept_as_shown,
    life,
    post,
    server,
    sit,
)
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}
#: Pyodide's first start on a loaded machine's chromium can take many seconds.
ENGINE = 60_000


def phone(browser: Browser, locale: str = "en-GB") -> Page:
    options: dict[str, Any] = {**PHONE, "locale": locale}
    return browser.new_context(**options).new_page()


def server_life(base: str, table: str) -> dict[str, Any]:
    data = get(f"{base}/api/tables/{table}")
    return {p["id"]: (p["life"], p["status"]) for p in data["state"]["players"]}


def ready_for_offline(page: Page) -> None:
    """The app shell and the engine are cached (the service worker), the table kept as last
    seen, and the game the engine foresees with kept as of the page's last event."""
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
    page.wait_for_function("() => lifeledger.S.connected && lifeledger.S.pending.size === 0")
    page.wait_for_function(
        "() => !!lifeledger.FORESEE.game && lifeledger.FORESEE.game.seq === lifeledger.S.lastSeq",
        timeout=10_000,
    )
    kept_as_shown(page)


def tap(page: Page, player: str, act: str = "minus") -> None:
    """One tap (−1, or −5 with ``minus5``), closed as its own change."""
    page.locator(f'.panel[data-player="{player}"] [data-act="{act}"]').click()
    page.wait_for_function("() => !lifeledger.TAPS.run")


def foreseen(page: Page) -> None:
    """The phone's engine has foreseen the queue as it is now."""
    page.wait_for_function(
        "() => !!lifeledger.activeForesight() "
        "&& lifeledger.foreseenQueue().every((m) => lifeledger.isForeseen(m.id))",
        timeout=ENGINE,
    )


def test_704_5a_a_loss_is_foreseen_offline_marked_waiting_and_kept_through_a_reload(
    browser: Browser, tmp_path: Path
) -> None:
    """Ana's phone, offline, taps Bo down from 20 by 5s: at once the phone's engine says Bo
    lost (704.5a) — the panel as a served table shows a loss, the strip "waiting to send", the
    total 0 (counted once: not the queued deltas again on top). Reloaded with no network, the
    phone still foresees it from what it kept. Back online, the server decides the same."""
    with server(tmp_path / "t.db") as (base, _):
        table = post(base + "/api/tables", TWO)["id"]
        page = phone(browser)
        sit(page, base, table, "ana")
        ready_for_offline(page)
        page.context.set_offline(True)
        strip = page.locator("#netstate")
        bo = page.locator('.panel[data-player="bo"]')
        for _ in range(4):
            tap(page, "bo", "minus5")
        foreseen(page)
        expect(life(page, "bo")).to_have_text("0")
        expect(life(page, "bo")).to_have_class("life pending")
        expect(bo.locator(".status")).to_contain_text("(704.5a)")
        expect(bo).to_have_class(re.compile(r"\blost\b"))
        expect(strip).to_contain_text("4 changes waiting to be sent")
        expect(strip).to_contain_text(re.compile(r"Bo lost — .*\(704\.5a\), waiting to send"))
        expect(page.locator("#banner")).to_contain_text("Ana won")
        assert server_life(base, table) == {"ana": (20, "playing"), "bo": (20, "playing")}

        page.reload()
        expect(life(page, "bo")).to_have_text("0", timeout=ENGINE)
        foreseen(page)
        expect(life(page, "bo")).to_have_text("0")
        expect(strip).to_contain_text(re.compile(r"Bo lost — .*\(704\.5a\), waiting to send"))
        assert page.evaluate("lifeledger.S.pending.size") == 4

        page.context.set_offline(False)
        page.wait_for_function(
            "() => lifeledger.S.connected && lifeledger.S.pending.size === 0", timeout=15_000
        )
        eventually(lambda: server_life(base, table), {"ana": (20, "won"), "bo": (0, "lost")})
        expect(life(page, "bo")).to_have_text("0")
        expect(life(page, "bo")).to_have_class("life")
        expect(strip).to_be_hidden()
        page.context.close()


def test_back_online_a_change_another_phone_made_wrong_is_refused_named_and_the_rest_kept(
    browser: Browser, tmp_path: Path
) -> None:
    """Ana's phone, offline, queues Bo −1, Ana pays 5 life, Bo −1: foreseen at once (Ana 15,
    Bo 18). Meanwhile Bo's phone, online, makes Ana lose 17 (119.3): Ana is at 3. Back online
    the queue goes in order; the server refuses the payment (119.4: Ana has 3 life), and the
    phone says which change and why; both of Bo's −1 are kept (Bo 18)."""
    with server(tmp_path / "t.db") as (base, _):
        table = post(base + "/api/tables", TWO)["id"]
        ana = phone(browser)
        bo = phone(browser)
        sit(ana, base, table, "ana")
        sit(bo, base, table, "bo")
        ready_for_offline(ana)
        ana.context.set_offline(True)
        tap(ana, "bo")
        ana.evaluate("lifeledger.act({ do: 'pay_life', player: 'ana', amount: 5 })")
        tap(ana, "bo")
        foreseen(ana)
        expect(life(ana, "ana")).to_have_text("15")
        expect(life(ana, "bo")).to_have_text("18")
        strip = ana.locator("#netstate")
        expect(strip).to_contain_text("3 changes waiting to be sent")

        bo.evaluate("lifeledger.act({ do: 'lose_life', player: 'ana', amount: 17 })")
        eventually(lambda: server_life(base, table)["ana"], (3, "playing"))

        ana.context.set_offline(False)
        ana.wait_for_function(
            "() => lifeledger.S.connected && lifeledger.S.pending.size === 0", timeout=15_000
        )
        eventually(lambda: server_life(base, table), {"ana": (3, "playing"), "bo": (18, "playing")})
        refusal = re.compile(r"Refused when sent: Ana pays 5 life — .+ — 119\.4")
        expect(strip).to_contain_text(refusal)
        expect(ana.locator("#toast")).to_contain_text(refusal)
        expect(life(ana, "ana")).to_have_text("3")
        expect(life(ana, "bo")).to_have_text("18")
        strip.locator('[data-act="dismiss-refused"]').click()
        expect(strip).to_be_hidden()
        ana.context.close()
        bo.context.close()


def test_in_italian_a_change_the_rules_would_refuse_is_said_at_once_and_kept_queued(
    browser: Browser, tmp_path: Path
) -> None:
    """In Italian: offline, Ana pays 25 life with 20: the phone's engine says at once that it
    would be refused (119.4), in the phone's language, and it stays queued — the server
    decides, and back online it refuses it too, naming it."""
    with server(tmp_path / "t.db") as (base, _):
        table = post(base + "/api/tables", TWO)["id"]
        page = phone(browser, "it-IT")
        sit(page, base, table, "ana")
        page.wait_for_function("() => document.documentElement.lang === 'it'")
        ready_for_offline(page)
        page.context.set_offline(True)
        page.evaluate("lifeledger.act({ do: 'pay_life', player: 'ana', amount: 25 })")
        foreseen(page)
        strip = page.locator("#netstate")
        expect(strip).to_contain_text(re.compile(r"sarebbe rifiutat.*119\.4"))
        expect(life(page, "ana")).to_have_text("20")
        assert page.evaluate("lifeledger.S.pending.size") == 1
        page.context.set_offline(False)
        page.wait_for_function(
            "() => lifeledger.S.connected && lifeledger.S.pending.size === 0", timeout=15_000
        )
        expect(strip).to_contain_text(re.compile(r"Rifiutat.*119\.4"))
        assert server_life(base, table)["ana"] == (20, "playing")
        page.context.close()

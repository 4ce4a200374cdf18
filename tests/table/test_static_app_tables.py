"""The app as static files (issue 27, "Done means"): ``lifeledger app`` writes the app into a
folder that a plain file server serves (``python -m http.server``), with no lifeledger server
of its own. In Chromium: a whole game on the device from that folder, through a reload and a
browser closed mid-game, with the file server stopped once the page has loaded; the same in
Italian; and "Share this table" to a lifeledger server at another address (the page asks for
it), where a second phone joins by the table's link and both see the same totals, nothing
applied twice. The rules named: 119.3 (life lost), 119.4 (a player can't pay more life than
they have), 704.5a (a player at 0 life loses)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

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
    free_port,
    get,
    keep_start,
    life,
    need_chromium,
    open_phone,
    post,
    server,
    static_app,
    tap_minus,
)
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

pytestmark = pytest.mark.browser


def act(page: Page, action: str) -> None:
    """An action sent as the page's own taps send it (``lifeledger.act``)."""
    page.evaluate(f"() => lifeledger.act({action})")


def player(page: Page, who: str) -> dict[str, Any]:
    found: dict[str, Any] = page.evaluate(
        f"() => lifeledger.S.state.players.find((p) => p.id === {who!r})"
    )
    return found


def engine_cached(page: Page) -> None:
    """The service worker keeps the engine (and Pyodide) for openings with no network."""
    page.wait_for_function(
        """async () => { const keys = await caches.keys();
           for (const k of keys) { const c = await caches.open(k);
             if ((await c.keys()).some((r) => r.url.endsWith("engine.zip"))) return true; }
           return false; }""",
        timeout=30_000,
    )


def start_device_table(page: Page, url: str, start: dict[str, str]) -> str:
    """The static app's start page: one tap starts a two-player table on the device (a phone
    that kept the engine's start, ``start``)."""
    page.goto(url)
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
    keep_start(page, start)
    page.locator('[data-quick="two"]').click()
    table = device_table(page, ENGINE)
    engine_ready(page)
    return table


@pytest.mark.rule("119.3")
@pytest.mark.rule("704.5a")
def test_a_whole_game_on_the_device_from_the_static_folder(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """From the folder ``lifeledger app`` wrote, served by a plain file server: one tap starts
    a table on the phone; the file server stops once the page has loaded; taps are decided on
    the phone (119.3) through a reload and a browser closed mid-game and opened again, until
    the rules end the game (704.5a)."""
    need_chromium()
    profile = tmp_path / "phone"
    with sync_playwright() as p:
        with static_app(tmp_path / "site", "app") as url:
            context = open_phone(profile, p)
            page = first_page(context)
            table = start_device_table(page, url, kept_start)
            engine_cached(page)
            tap_minus(page, "player-1", "19")
            decided(page)
        # The file server is gone: the phone has the app and decides alone.
        tap_minus(page, "player-1", "18")
        tap_minus(page, "player-2", "19")
        decided(page)
        page.reload()
        engine_ready(page)
        expect(life(page, "player-1")).to_have_text("18")
        expect(life(page, "player-2")).to_have_text("19")
        tap_minus(page, "player-2", "18")
        decided(page)
        context.close()  # mid-game: the phone's browser closed
        context = open_phone(profile, p)
        page = first_page(context)
        page.goto(url)  # the app's start page, from the service worker's cache
        page.locator(f'.recent-table[data-table="{table}"]').click()
        device_table(page, ENGINE)
        engine_ready(page)
        expect(life(page, "player-1")).to_have_text("18")
        expect(life(page, "player-2")).to_have_text("18")
        # 18 damage at once: the rules end the game on the phone (704.5a).
        act(page, '{ do: "damage", to: "player-2", amount: 18, source: "player-1" }')
        decided(page)
        expect(life(page, "player-2")).to_have_text("0")
        lost = player(page, "player-2")
        assert (lost["status"], lost["rule"]) == ("lost", "704.5a")
        assert page.evaluate("lifeledger.S.lastSeq") == 5  # each change once
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.mark.rule("119.3")
@pytest.mark.rule("119.4")
@pytest.mark.rule("704.5a")
def test_in_italian_a_game_on_the_device_from_the_static_folder(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """The same app in Italian (the phone's language): its words and the rules' messages are
    Italian; a payment of more life than the player has is refused on the phone, saying why in
    Italian (119.4), and nothing changes; a reload keeps the game; a loss is said in Italian
    (704.5a)."""
    need_chromium()
    profile = tmp_path / "phone"
    with sync_playwright() as p, static_app(tmp_path / "site", "app") as url:
        context = open_phone(profile, p, locale="it-IT")
        page = first_page(context)
        page.goto(url)
        page.wait_for_function("() => document.documentElement.lang === 'it'")
        start_device_table(page, url, kept_start)
        page.wait_for_function("() => document.documentElement.lang === 'it'")
        one, two = page.evaluate(
            "lifeledger.S.state.players.map((p) => p.id)"
        )  # the names are Italian
        tap_minus(page, one, "19")
        decided(page)
        act(page, f'{{ do: "pay_life", player: "{one}", amount: 25 }}')
        decided(page)
        expect(page.locator(".toast").last).to_contain_text(re.compile(r"119\.4"))
        said = page.locator(".toast").last.inner_text()
        assert "pagare" in said, said  # the rule's sentence, in Italian
        expect(life(page, one)).to_have_text("19")
        page.reload()
        engine_ready(page)
        expect(life(page, one)).to_have_text("19")
        act(page, f'{{ do: "damage", to: "{two}", amount: 20, source: "{one}" }}')
        decided(page)
        status = page.locator(f'.panel[data-player="{two}"] .status')
        expect(status).to_contain_text("(704.5a)")
        assert "perso" in status.inner_text().lower()
        assert page.evaluate("lifeledger.S.lastSeq") == 2  # the refused payment is no change
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


def share_to(page: Page, address: str) -> None:
    """The device table's menu, "Share this table": the static app asks for a server's
    address (the last one typed is offered), and shares there."""
    page.locator("#menu-btn").click()
    page.locator('[data-menu="share"]').click()
    field = page.locator("#share-server")
    expect(field).to_be_visible()
    field.fill(address)
    page.locator("#share-go").click()


@pytest.mark.rule("119.3")
def test_shared_from_the_static_app_to_a_server_at_another_address(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """The static app has no server of its own: "Share this table" asks for one's address. A
    wrong address and a server that can't be reached are named, and the table stays on the
    device; then the game goes to the lifeledger server at another address (a cross-site
    POST), the phone opens the served table there as its table device (its host and seat
    tokens handed over in the address's fragment, gone from the address once read), a
    second phone joins by the table's link, and both see the same totals: every change
    applied once (119.3). The app's start page then lists the table there, a link to it."""
    need_chromium()
    with (
        sync_playwright() as p,
        static_app(tmp_path / "site", "app") as url,
        server(tmp_path / "t.db") as (base, _proc),
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(**PHONE).new_page()
        device = start_device_table(page, url, kept_start)
        tap_minus(page, "player-1", "19")
        tap_minus(page, "player-2", "19")
        tap_minus(page, "player-2", "18")
        decided(page)
        # Not an address: said, nothing sent, the table still here.
        share_to(page, "ftp://files.example")
        expect(page.locator("#toast")).to_contain_text("ftp://files.example")
        expect(page.locator("#share-server")).to_be_visible()  # to be typed again
        # An address where no server answers: said, and the table stays on this device.
        page.locator("#share-server").fill(f"http://127.0.0.1:{free_port()}")
        page.locator("#share-go").click()
        expect(page.locator("#toast")).to_contain_text("can't be reached")
        expect(page.locator("#toast")).to_contain_text("stays on this device")
        assert page.evaluate(f"() => location.search === '?t={device}'")
        page.locator('[data-close="sheet"]').click()
        tap_minus(page, "player-1", "18")  # the game goes on here meanwhile
        decided(page)
        # The server at another address: the game continues there.
        page.locator("#menu-btn").click()
        page.locator('[data-menu="share"]').click()
        expect(page.locator("#share-server")).to_have_value(re.compile(r"^http://127\.0\.0\.1:"))
        page.locator("#share-server").fill(base)
        # The share held at the server's door: a sheet says so and covers the table, with no
        # way to close it, so a tap meanwhile (decided here after the log was sent) can't be
        # made.
        held: list[Any] = []
        shared_at = f"{base}/api/tables/shared"
        page.route(
            shared_at,
            lambda route: (
                route.continue_() if route.request.method == "OPTIONS" else held.append(route)
            ),
        )
        page.locator("#share-go").click()
        expect(page.locator("#sharing")).to_be_visible()
        expect(page.locator('#sheet [data-close="sheet"]')).to_be_hidden()
        minus = page.locator('.panel[data-player="player-1"] [data-act="minus"]').bounding_box()
        assert minus is not None
        page.mouse.click(minus["x"] + minus["width"] / 2, minus["y"] + minus["height"] / 2)
        while not held:
            page.wait_for_timeout(50)
        assert page.evaluate("lifeledger.S.pending.size") == 0  # the sheet took the tap
        expect(life(page, "player-1")).to_have_text("18")
        held[0].continue_()
        page.unroute(shared_at)
        page.wait_for_url(f"{base}/t/*", timeout=30_000)
        page.wait_for_load_state()
        table = page.evaluate("lifeledger.KEY")
        assert not table.startswith("d-")
        page.wait_for_function("() => location.hash === ''")  # the tokens read, and gone
        page.wait_for_function(
            "() => lifeledger.S.connected && lifeledger.S.seats.length === 2", timeout=30_000
        )
        expect(life(page, "player-1")).to_have_text("18")
        expect(life(page, "player-2")).to_have_text("18")
        assert get(f"{base}/api/tables/{table}")["seq"] == 4  # each change once
        # A second phone joins by the table's link, and asks the table device for its seat.
        phone = browser.new_context(**PHONE).new_page()
        phone.goto(f"{base}/t/{table}")
        seat_btn = phone.locator('#picker button[data-seat="player-2"]')
        seat_btn.click()  # the seat is on the table device: refused, and the phone offers to ask
        # The second tap once the refusal has come (under load, a tap before it is ignored: the
        # first claim is still under way).
        expect(seat_btn).to_have_attribute("data-ask", "1")
        seat_btn.click()
        page.locator('#ask [data-answer="allow"]').click()
        expect(phone.locator('[data-player="player-2"] .tag.you')).to_be_visible()
        expect(life(phone, "player-1")).to_have_text("18")
        expect(life(phone, "player-2")).to_have_text("18")
        tap_minus(phone, "player-2", "17")
        expect(life(page, "player-2")).to_have_text("17")
        tap_minus(page, "player-1", "17")
        expect(life(phone, "player-1")).to_have_text("17")
        served = get(f"{base}/api/tables/{table}")
        assert served["seq"] == 6
        lives = {p["id"]: p["life"] for p in served["state"]["players"]}
        assert lives == {"player-1": 17, "player-2": 17}
        # The app's start page lists the table where it went, a link to it there (the app
        # can't read that site's storage: who plays, and where), and not the device table.
        page.goto(url)
        shared = page.locator(f'#recent-list a[data-table="{table}"]')
        expect(shared).to_have_attribute("href", f"{base}/t/{table}")
        expect(shared.locator(".recent-lives")).to_have_text("Player 1 · Player 2")
        host = base.split("://", 1)[1]
        expect(shared.locator(".recent-meta")).to_contain_text(f"shared to {host}")
        expect(page.locator(f'#recent-list a[data-table="{device}"]')).to_have_count(0)
        shared.click()  # back to it: still the table device, with the seat it kept
        page.wait_for_url(f"{base}/t/{table}")
        page.wait_for_function(
            "() => lifeledger.S.connected && lifeledger.S.seats.join() === 'player-1'",
            timeout=30_000,
        )
        expect(life(page, "player-2")).to_have_text("17")
        browser.close()


def test_a_handover_that_cannot_be_read_is_said_and_keeps_nothing(tmp_path: Path) -> None:
    """A served table's address with a fragment that is no share's tokens (mistyped, cut
    short): the page says so, takes it out of the address, keeps no seat, host or table
    device from it, and the phone takes a seat as any phone does."""
    need_chromium()
    with sync_playwright() as p, server(tmp_path / "t.db") as (base, _proc):
        table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})["id"]
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(**PHONE).new_page()
        page.goto(f"{base}/t/{table}#share=%7B%22tokens%22%3A%5B1%5D%7D")  # {"tokens": [1]}
        expect(page.locator("#toast")).to_contain_text("could not be read")
        assert page.evaluate("() => location.hash") == ""
        expect(page.locator('#picker button[data-seat="ana"]')).to_be_visible()
        assert page.evaluate("() => lifeledger.S.host") is None
        assert page.evaluate(f"() => lifeledger.loadSeats({table!r})") == {}
        browser.close()

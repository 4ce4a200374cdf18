"""A device table open in two pages of one phone (tabs, windows, the installed app beside the
browser): one page at a time decides it, and no change is ever written over another. In
Chromium, on the app as static files: the page opened last decides the table and the other
says so, takes no tap and offers to take it back; and where two pages decide at once all the
same (a browser without BroadcastChannel), the one whose copy fell behind reads the table
again and decides its change anew: every change kept (119.3)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    decided,
    device_table,
    engine_ready,
    first_page,
    keep_start,
    life,
    need_chromium,
    open_phone,
    static_app,
    tap_minus,
)
from playwright.sync_api import BrowserContext, Page, Playwright, expect, sync_playwright  # noqa: E402

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app as static files, served by a plain file server: its URL."""
    need_chromium()
    with static_app(tmp_path_factory.mktemp("site"), "app") as url:
        yield url


def new_table(
    p: Playwright, profile: Path, url: str, start: dict[str, str]
) -> tuple[BrowserContext, Page]:
    """A phone's two-player table on the device, its engine ready."""
    context = open_phone(profile, p)
    page = first_page(context)
    page.goto(url)
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
    keep_start(page, start)
    page.locator('[data-quick="two"]').click()
    device_table(page)
    engine_ready(page)
    return context, page


def opened_again_shows(page: Page, lives: dict[str, str]) -> None:
    """The table opened again in ``page``, from what the device kept, shows ``lives``."""
    page.reload()
    engine_ready(page)
    for player, total in lives.items():
        expect(life(page, player)).to_have_text(total)


def tap_through(page: Page, player: str) -> None:
    """A finger on the panel's −1 wherever the page lets it land (a click by coordinates: the
    panel may take no tap)."""
    box = page.locator(f'.panel[data-player="{player}"] [data-act="minus"]').bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


@pytest.mark.rule("119.3")
def test_the_page_opened_last_decides_a_device_table_and_the_other_gives_it_up(
    app: str, tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """Ana's tap on the first page (20 → 19, 119.3); the same table opened in a second page
    shows it, and the first page says the table is decided in another page, takes no tap, and
    offers "Use it here". Bo's tap on the second page; "Use it here" on the first takes it
    back with that tap in it, and the second page gives it up in turn. Every change kept."""
    with sync_playwright() as p:
        context, first = new_table(p, tmp_path / "phone", app, kept_start)
        tap_minus(first, "player-1", "19")
        decided(first)
        second = context.new_page()
        second.goto(first.url)
        engine_ready(second)
        expect(life(second, "player-1")).to_have_text("19")
        use_here = first.locator('#netstate [data-act="use-here"]')
        expect(use_here).to_be_visible()
        expect(first.locator("#netstate")).to_contain_text("another tab or window")
        tap_through(first, "player-1")  # the first page takes no tap now
        assert first.evaluate("lifeledger.S.pending.size") == 0
        expect(life(first, "player-1")).to_have_text("19")
        tap_minus(second, "player-2", "19")
        decided(second)
        use_here.click()  # the first page takes the table back, Bo's tap in it
        engine_ready(first)
        expect(life(first, "player-2")).to_have_text("19")
        expect(second.locator('#netstate [data-act="use-here"]')).to_be_visible()
        tap_minus(first, "player-1", "18")
        decided(first)
        opened_again_shows(first, {"player-1": "18", "player-2": "19"})
        context.close()


@pytest.mark.rule("119.3")
def test_two_pages_deciding_at_once_write_no_change_over_another(
    app: str, tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """A second page with no BroadcastChannel decides the table beside the first. Ana loses 1
    on the first page (the log's next change); Bo loses 1 on the second, whose copy is behind:
    its change is not written over Ana's but decided again after it. Both pages, and the table
    opened again, show 19 and 19 (119.3)."""
    with sync_playwright() as p:
        context, first = new_table(p, tmp_path / "phone", app, kept_start)
        second = context.new_page()
        second.add_init_script("delete window.BroadcastChannel")
        second.goto(first.url)
        engine_ready(second)
        tap_minus(first, "player-1", "19")
        decided(first)
        tap_minus(second, "player-2", "19")
        decided(second)
        expect(life(second, "player-1")).to_have_text("19")  # read again, Ana's change in it
        opened_again_shows(first, {"player-1": "19", "player-2": "19"})
        context.close()


@pytest.mark.rule("119.3")
def test_a_page_giving_the_table_up_hands_its_undecided_changes_to_the_page_that_took_it(
    app: str, tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """Bo's loss of 3 is in the first page's queue, a run of taps still open and not yet
    written to the device's queue as the second page opens the table (it read the queue before
    that). The first page gives the table up and hands the change over: the second decides it,
    Bo at 17 (119.3), and it is kept."""
    with sync_playwright() as p:
        context, first = new_table(p, tmp_path / "phone", app, kept_start)
        first.evaluate(
            """() => {
              const S = lifeledger.S;
              S.pending.set("bo-3", { type: "action", id: "bo-3", held: true,
                                      action: { do: "lose_life", player: "player-2", amount: 3 } });
              localStorage.removeItem("lifeledger-pending-" + lifeledger.KEY);
            }"""
        )
        second = context.new_page()
        second.goto(first.url)
        engine_ready(second)
        expect(first.locator('#netstate [data-act="use-here"]')).to_be_visible()
        expect(life(second, "player-2")).to_have_text("17")
        opened_again_shows(second, {"player-2": "17"})
        context.close()

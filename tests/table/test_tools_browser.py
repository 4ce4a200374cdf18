"""Starting and pacing the game in a real browser (Debian's chromium, driven by Playwright):
a roll seen on two phones, who starts in Two-Headed Giant (810.6), a running chess clock
passed between phones, the round timer on the table. Saves the screenshots docs/table.md
shows (docs/screens/tools-*.png)."""

from __future__ import annotations

import re

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import new_phone, post, screenshot, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser


def shot(page: Page, name: str) -> None:
    screenshot(page, f"screens/tools-{name}.png")


def inside(page: Page, selector: str, tall: bool = True) -> None:
    """Every button of ``selector`` lies in the viewport (and, with ``tall``, is at least
    44 px tall: a tap target)."""
    size = page.viewport_size
    assert size is not None
    for box in page.locator(f"{selector} button").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().toJSON())"
    ):
        assert box["left"] >= 0 and box["right"] <= size["width"] + 0.5, box
        assert box["top"] >= 0 and box["bottom"] <= size["height"] + 0.5, box
        assert not tall or box["height"] >= 44, box


def test_a_roll_on_one_phone_shows_on_both_and_a_clock_runs(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")

    # A d20 rolled by Ana: the server decides it, both phones show the same number.
    ana.locator("#tools-btn").click()
    expect(ana.locator("#tools-sheet")).to_be_visible()
    ana.locator('#tools-sheet [data-die="20"]').click()
    expect(ana.locator("#tool-recent li")).to_have_count(1)
    text = ana.locator("#tool-recent li").first.text_content() or ""
    assert re.fullmatch(r"Ana rolled a d20: (\d+)", text), text
    assert 1 <= int(text.rsplit(" ", 1)[1]) <= 20
    expect(bo.locator("#tools-result")).to_have_text(text)
    expect(ana.locator("#tools-result")).to_have_text(text)
    # Several dice at once, and the coin.
    ana.locator("#tool-count").fill("3")
    ana.locator('#tools-sheet [data-die="6"]').click()
    result = bo.locator("#tools-result")
    expect(result).to_contain_text(re.compile(r"rolled 3d6: \d \+ \d \+ \d = \d+"))
    ana.locator("#tool-coin").click()
    expect(result).to_contain_text(re.compile(r"flipped a coin: (heads|tails)"))
    ana.locator("#tool-first").click()
    expect(result).to_contain_text(re.compile(r"(Ana|Bo) takes the first turn"))
    expect(bo.locator("#tools-result")).to_contain_text("103.8a")
    # The planar die is offered only where the format is Planechase (901.9).
    expect(ana.locator("#tool-planar")).to_have_count(0)

    # A chess clock of 20 minutes each: it runs on both phones, and Pass hands it on.
    ana.locator("#tool-clock-min").fill("20")
    ana.locator("#tool-clock-start").click()
    expect(ana.locator("#tool-clock-stop")).to_be_visible()
    ana.locator("#tool-round-start").click()
    expect(ana.locator("#tool-round-stop")).to_be_visible()
    shot(ana, "sheet")
    ana.locator('#tools-sheet [data-close="tools-sheet"]').click()
    # The clock starts with the one the pick chose (who usually plays first).
    picked = "ana" if (result.text_content() or "").startswith("Ana") else "bo"
    other = "bo" if picked == "ana" else "ana"
    for page in (ana, bo):
        expect(page.locator("#tools-strip")).to_be_visible()
        expect(page.locator(f'#tl-clock .tl-side.active[data-side="{picked}"]')).to_be_visible()
        expect(page.locator("#tl-round-text")).to_contain_text(re.compile(r"Round 4\d:\d\d"))
    first = ana.locator(f'[data-side-time="{picked}"]').text_content()
    expect(ana.locator(f'[data-side-time="{picked}"]')).not_to_have_text(first or "", timeout=3000)
    expect(bo.locator(f'[data-side-time="{other}"]')).to_have_text("20:00")
    bo.locator("#tl-pass").click()
    for page in (ana, bo):
        expect(page.locator(f'#tl-clock .tl-side.active[data-side="{other}"]')).to_be_visible()
    expect(ana.locator(f'[data-side-time="{other}"]')).not_to_have_text("20:00", timeout=3000)
    expect(ana.locator(f'[data-side-time="{picked}"]')).to_have_text(re.compile(r"19:5\d"))
    inside(ana, "#tools-strip")
    inside(ana, "#panels", tall=False)  # the strip pushes no panel control off the screen
    shot(bo, "clock")
    # Landscape: the strip keeps to one row (the panels' own fit is the layouts' business).
    ana.set_viewport_size({"width": 844, "height": 390})
    strip = ana.locator("#tools-strip").bounding_box()
    assert strip is not None and strip["height"] <= 60, strip
    inside(ana, "#tools-strip")
    ana.context.close()
    bo.context.close()


def test_810_6_two_headed_giant_picks_a_team(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", THG)
    ana = new_phone(browser)
    ana.goto(f"{base}/t/{table['id']}")
    ana.locator('#picker button[data-seat="ana"]').click()
    expect(ana.locator("#picker")).to_be_hidden()
    ana.locator("#menu-btn").click()
    ana.locator("#menu-tools").click()
    expect(ana.locator("#tool-first")).to_have_text("Pick a team")
    ana.locator("#tool-first").click()
    result = ana.locator("#tools-result")
    expect(result).to_contain_text(
        re.compile(r"(North|South) take the first turn and skip the draw step of their first")
    )
    expect(result).to_contain_text("810.6")
    ana.context.close()


def test_901_9_the_planar_die_in_planechase(base: str, browser: Browser) -> None:
    form = {"players": [{"name": "Ana"}, {"name": "Bo"}], "format": "planechase"}
    table = post(base + "/api/tables", form)
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    ana.locator("#tools-btn").click()
    ana.locator("#tool-planar").click()
    expect(ana.locator("#tools-result")).to_contain_text(
        re.compile(r"rolled the planar die: (Planeswalker symbol|chaos symbol|blank) \(901\.9\)")
    )
    ana.context.close()


OVER = """() => lifeledger.toolsReceive({type: "tools", now: Date.now(),
  tools: {recent: [], clock: null,
  round: {minutes: 50, extra_turns: 5, started: 0, ends_at: 1, left_ms: null, turns_done: 6,
          phase: "over"}}})"""


def test_104_4i_after_the_extra_turns_each_player_records_the_draw(
    base: str, browser: Browser
) -> None:
    """The round timer's end as the server sends it once the additional turns are over (the
    WebSocket tests count them on the server's clock): each phone offers the draw, and the
    game is a draw once both players have recorded it (104.4i: all players agree)."""
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    for page in (ana, bo):
        page.evaluate(OVER)
        expect(page.locator("#tl-round-text")).to_contain_text("no winner, the game is a draw")
    ana.locator("#tl-draw").click()
    expect(ana.locator("#toast")).to_contain_text("104.4i")
    expect(ana.locator("#toast")).to_contain_text("Bo")
    shot(ana, "draw-offer")
    bo.locator("#tl-draw").click()
    for page in (ana, bo):
        expect(page.locator("#banner")).to_contain_text("Game over")
        expect(page.locator("#tl-draw")).to_have_count(0)
        expect(page.locator("#tl-round-text")).to_have_text("Additional turns are over")
    ana.context.close()
    bo.context.close()

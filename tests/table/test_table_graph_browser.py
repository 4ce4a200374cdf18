"""A picture of the game in a real browser (issue 8): a short game played to a 704.5a loss,
then its life graph (one SVG line per player or team, the right end points, the loss marker
with its rule) in the history drawer and from the banner, and the statistics sheet; on a
phone held upright and sideways. Screenshots for docs/table.md go to docs/screens/."""

from __future__ import annotations

import re

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import PHONE, life, post, screenshot, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser


def shot(page: Page, name: str) -> None:
    page.evaluate("document.getElementById('toast').classList.add('hidden')")
    screenshot(page, f"screens/graph-{name}.png")


def phone(browser: Browser, landscape: bool = False) -> Page:
    options = dict(PHONE)
    if landscape:
        options["viewport"] = {"width": 844, "height": 390}
    return browser.new_context(**options).new_page()  # type: ignore[arg-type]


def inside(page: Page, selector: str) -> None:
    """The element lies within the viewport's width (nothing cut off sideways)."""
    box = page.locator(selector).first.bounding_box()
    width = page.viewport_size["width"] if page.viewport_size else 0
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5


def path_end_x(page: Page, selector: str) -> float:
    d = page.locator(selector).get_attribute("d") or ""
    return float(re.findall(r"H(-?[\d.]+)", d)[-1])


def test_704_5a_graph_of_a_game_played_to_a_loss_and_the_statistics(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = phone(browser)
    sit(page, base, table["id"], "ana")
    for _ in range(3):
        page.locator('[data-player="bo"] [data-act="minus"]').click()
    page.locator('[data-player="ana"] [data-act="plus5"]').click()
    expect(life(page, "ana")).to_have_text("25")
    expect(life(page, "bo")).to_have_text("17")

    # The drawer's graph follows the game as it is played.
    page.locator("#history-btn").click()
    graph = page.locator("#graph-box svg.graph")
    expect(graph).to_be_visible()
    expect(graph.locator("path.gl")).to_have_count(2)
    expect(graph.locator('path.gl[data-unit="bo"]')).to_have_attribute("data-end", "17")
    page.locator('#history [data-close="history"]').click()

    page.locator('[data-player="bo"] [data-act="more"]').click()
    page.locator("#sh-damage").fill("17")
    page.locator("#sh-source").fill("Lava Axe")
    page.locator('[data-sheet="damage"]').click()
    page.locator('#sheet [data-close="sheet"]').click()
    expect(page.locator('[data-player="bo"] .status')).to_contain_text("704.5a")

    page.locator("#history-btn").click()
    # Three rapid taps on Bo are one change (taps.js): 3 actions in all.
    expect(graph).to_have_attribute("data-count", "3")
    expect(graph.locator("path.gl")).to_have_count(2)
    ana_line = graph.locator('path.gl[data-unit="ana"]')
    bo_line = graph.locator('path.gl[data-unit="bo"]')
    expect(ana_line).to_have_attribute("data-end", "25")
    expect(bo_line).to_have_attribute("data-end", "0")
    expect(bo_line).to_have_attribute("data-status", "lost")
    # Both lines run to the last action; the loss is marked there, with its rule.
    assert path_end_x(page, '#graph-box path.gl[data-unit="bo"]') == path_end_x(
        page, '#graph-box path.gl[data-unit="ana"]'
    )
    loss = graph.locator('g.gm[data-unit="bo"][data-status="lost"]')
    expect(loss).to_have_count(1)
    expect(loss).to_have_attribute("data-rule", "704.5a")
    expect(loss).to_have_attribute("data-x", "3")
    expect(loss.locator("text")).to_have_text("704.5a")
    expect(graph.locator('g.gm[data-unit="ana"][data-status="won"]')).to_have_count(1)
    # The text alternative: the SVG's title and description, and the table of totals.
    title = graph.locator("title")
    expect(title).to_have_text("Life totals of game 1, over 3 actions")
    expect(graph.locator("desc")).to_contain_text("Bo: 20 to 0")
    expect(graph.locator("desc")).to_contain_text("(704.5a)")
    row = page.locator('#graph-box .graph-table tr[data-unit="bo"]')
    expect(row.locator(".end")).to_have_text("0")
    expect(row.locator(".res")).to_have_text("lost 704.5a")
    inside(page, "#graph-box svg.graph")
    shot(page, "history")
    page.locator('#history [data-close="history"]').click()

    # The banner of the finished game offers its graph.
    page.locator('#banner [data-act="graph"]').click()
    sheet_graph = page.locator("#sheet svg.graph")
    expect(sheet_graph.locator("path.gl")).to_have_count(2)
    expect(sheet_graph.locator('g.gm[data-rule="704.5a"]')).to_have_count(1)
    page.locator('#sheet [data-close="sheet"]').click()

    # The next game; the statistics count the first (won by Ana, ended by life).
    page.locator('#banner [data-act="next-game"]').click()
    expect(page.locator("#banner")).to_be_hidden()
    page.locator('[data-player="ana"] [data-act="minus"]').click()
    page.locator("#menu-btn").click()
    page.locator('#menu [data-act="stats"]').click()
    wins = page.locator("#stats-wins")
    expect(wins.locator('tr[data-side="ana"] [data-of="table"]')).to_have_text("1")
    expect(wins.locator('tr[data-side="bo"] [data-of="table"]')).to_have_text("0")
    expect(wins.locator('tr[data-side="ana"] [data-of="match"]')).to_have_text("1")
    ended = page.locator('#stats-ended tr[data-ended="life"]')
    expect(ended.locator("th")).to_have_text("life (704.5a)")
    expect(ended.locator('[data-of="table"]')).to_have_text("1")
    expect(page.locator('.stats-games li[data-game="1"]')).to_contain_text("704.5a")
    shot(page, "stats")
    # An earlier game's graph, from the statistics.
    page.locator('.stats-games li[data-game="1"] [data-graph-game="1"]').click()
    expect(page.locator("#sheet-title")).to_have_text("Game 1 — life graph")
    expect(page.locator('#sheet path.gl[data-unit="bo"]')).to_have_attribute("data-end", "0")
    page.locator('#sheet [data-close="sheet"]').click()

    # The drawer picks among the games: game 2 now, game 1 before.
    page.locator("#history-btn").click()
    expect(page.locator('#graph-box [data-graph-game="2"]')).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(graph.locator('path.gl[data-unit="ana"]')).to_have_attribute("data-end", "19")
    page.locator('#graph-box [data-graph-game="1"]').click()
    expect(graph.locator('path.gl[data-unit="ana"]')).to_have_attribute("data-end", "25")
    expect(graph.locator('g.gm[data-rule="704.5a"]')).to_have_count(1)
    page.context.close()


def test_704_6a_two_headed_giant_graph_sideways(base: str, browser: Browser) -> None:
    """810.9a: a line per team (from 30); on a phone held sideways the graph fits."""
    thg = post(base + "/api/tables", THG)
    page = phone(browser, landscape=True)
    page.goto(f"{base}/t/{thg['id']}")
    page.locator('#picker button[data-seat="cy"]').click()
    expect(page.locator("#picker")).to_be_hidden()
    north = page.locator('[data-team="north"]')
    north.locator('[data-act="minus5"]').click()
    expect(north.locator(".life")).to_have_text("25")
    north.locator('[data-act="more"]').click()
    page.locator("#sh-damage").fill("25")
    page.locator('[data-sheet="damage"]').click()
    page.locator('#sheet [data-close="sheet"]').click()
    expect(page.locator("#banner")).to_contain_text("Game over")
    page.locator('#banner [data-act="graph"]').click()
    graph = page.locator("#sheet svg.graph")
    expect(graph.locator("path.gl")).to_have_count(2)
    expect(graph.locator('path.gl[data-unit="north"]')).to_have_attribute("data-end", "0")
    expect(graph.locator('path.gl[data-unit="south"]')).to_have_attribute("data-end", "30")
    expect(graph.locator('g.gm[data-unit="north"][data-status="lost"]')).to_have_attribute(
        "data-rule", "704.6a"
    )
    inside(page, "#sheet svg.graph")
    box = graph.bounding_box()
    assert box is not None and box["height"] <= 390
    shot(page, "landscape")
    page.context.close()

    # A spectator sees the same graph and statistics (the /api/watch/ twins).
    watcher = phone(browser)
    watcher.goto(f"{base}/w/{thg['watch']}")
    watcher.locator("#history-btn").click()
    seen = watcher.locator("#graph-box svg.graph")
    expect(seen.locator("path.gl")).to_have_count(2)
    expect(seen.locator('g.gm[data-rule="704.6a"]')).to_have_count(1)
    watcher.locator('#history [data-close="history"]').click()
    watcher.locator("#menu-btn").click()
    watcher.locator('#menu [data-act="stats"]').click()
    expect(watcher.locator('#stats-wins tr[data-side="south"] [data-of="table"]')).to_have_text("1")
    expect(watcher.locator('#stats-ended tr[data-ended="life"] [data-of="table"]')).to_have_text(
        "1"
    )
    watcher.context.close()


def test_107_1_a_huge_total_keeps_the_graph_readable(base: str, browser: Browser) -> None:
    """107.1: a total of 10^1000 puts the graph on a log scale and reads as a power of ten."""
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = phone(browser)
    sit(page, base, table["id"], "ana")
    page.locator('[data-player="ana"] [data-act="more"]').click()
    page.locator("#sh-amount").fill("1" + "0" * 1000)
    page.locator('[data-sheet="set"]').click()
    page.locator('#sheet [data-close="sheet"]').click()
    page.locator("#history-btn").click()
    graph = page.locator("#graph-box svg.graph")
    expect(graph.locator('path.gl[data-unit="ana"]')).to_have_attribute(
        "data-end", "1" + "0" * 1000
    )
    expect(graph).to_contain_text("log scale")
    expect(page.locator('#graph-box tr[data-unit="ana"] .end')).to_have_text("1.00×10^1000")
    d = graph.locator('path.gl[data-unit="ana"]').get_attribute("d") or ""
    assert "NaN" not in d and "Infinity" not in d
    inside(page, "#graph-box svg.graph")
    page.context.close()

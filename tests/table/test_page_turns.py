"""The turn tracker in a real browser (issue 11, "At the table"; docs/table.md, "Turns"):
the bar above the panels offers who may play first with the rule of the first draw (103.1,
103.8a, 810.6), the steps of the turn (500.1) and the next turn, both heads of a Two-Headed
Giant team (805.4a), the rad counters' count asked before the main phase (728.1), day and night
with the spells cast (731.2), and says when a Grand Melee can't take turns (807.4). Saves the
screenshots docs/table.md shows (docs/screens/turns-*.png)."""

from __future__ import annotations

import re
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import get, new_phone, post, screenshot, sit  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}
# Counted libraries: a turn's draw step draws from them (504.1; a library the table doesn't
# count is untracked, setup.py, and never runs out).
LIBRARIES = {"players": [{"name": "Ana", "library": 40}, {"name": "Bo", "library": 40}]}


def state(base: str, table: str) -> Any:
    return get(f"{base}/api/tables/{table}")["state"]


def wide_phone(browser: Browser) -> Page:
    """A tablet: every later step fits on the bar."""
    return browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True).new_page()


def bar(page: Page) -> Any:
    return page.locator("#turn-bar")


def test_who_plays_first_with_the_skip_note_and_the_picked_player_103_8a(
    base: str, browser: Browser
) -> None:
    """103.1: a button per player who may play first, the one the table's "who starts" tool
    picked highlighted; 103.8a: in a two-player game the player who plays first skips their
    first draw, said on the bar. Bo's phone then shows Ana's turn."""
    table = post(base + "/api/tables", TWO)
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    expect(bar(ana)).to_contain_text("Who plays first?")
    expect(ana.locator("#turn-skip")).to_have_attribute("data-rule", "103.8a")
    expect(ana.locator("#turn-skip")).to_contain_text("They skip their first draw (103.8a)")
    expect(ana.locator('#turn-bar [data-first="ana"]')).to_be_visible()
    expect(ana.locator('#turn-bar [data-first="bo"]')).to_be_visible()
    # The table's pick (tools.py, 103.1) is highlighted on every phone.
    ana.locator("#tools-btn").click()
    ana.locator("#tool-first").click()
    ana.locator('#tools-sheet [data-close="tools-sheet"]').click()
    expect(bo.locator("#turn-bar .tb-first.picked")).to_have_count(1)
    screenshot(ana, "screens/turns-first.png")
    ana.locator('#turn-bar [data-first="ana"]').click()
    expect(bo.locator("#turn-text")).to_have_text("Turn 1 · Ana · upkeep")
    assert state(base, table["id"])["turn"]["active"] == ["ana"]
    ana.context.close()
    bo.context.close()


def test_steps_and_the_next_turn_500_1(base: str, browser: Browser) -> None:
    """500.1: the later steps of the turn, each a button, then "Next" begins the next
    player's turn (the engine's next in turn order): the number goes up."""
    table = post(base + "/api/tables", LIBRARIES)
    ana = wide_phone(browser)
    sit(ana, base, table["id"], "ana")
    ana.locator('#turn-bar [data-first="ana"]').click()
    expect(ana.locator("#turn-text")).to_have_text("Turn 1 · Ana · upkeep")
    # 102.1: the panel of the player whose turn it is stands out, and says so.
    expect(ana.locator('.panel[data-player="ana"]')).to_have_class(re.compile("active-turn"))
    expect(ana.locator('.panel[data-player="ana"]')).to_have_attribute(
        "aria-label", "Ana, whose turn it is (102.1)"
    )
    expect(ana.locator('.panel[data-player="bo"]')).not_to_have_class(re.compile("active-turn"))
    steps = ana.locator("#turn-bar .tb-step:visible")
    expect(steps).to_have_text(["Draw", "Main", "End", "Cleanup"])
    ana.locator('#turn-bar [data-step="draw"]').click()
    expect(ana.locator("#turn-step")).to_have_text("draw step")
    expect(steps).to_have_text(["Main", "End", "Cleanup"])
    # The engine's note: Ana skipped the draw (103.8a), in the history.
    ana.locator('#turn-bar [data-step="end"]').click()
    expect(ana.locator("#turn-step")).to_have_text("end step")
    expect(ana.locator("#turn-next")).to_have_attribute("aria-label", "Next turn: Bo")
    # Next holds only at the turn the page shows (at_turn): two phones pressing it at once
    # begin one turn, not two (the server answers the second "stale").
    # (What the page's socket sends, kept as it is sent.)
    ana.evaluate(
        "() => { const ws = lifeledger.S.ws; const send0 = ws.send.bind(ws); window.sent = [];"
        " ws.send = (text) => { sent.push(JSON.parse(text)); send0(text); }; }"
    )
    ana.locator("#turn-next").click()
    expect(ana.locator("#turn-text")).to_have_text("Turn 2 · Bo · upkeep")
    sent = ana.evaluate("window.sent")
    assert [m.get("at_turn") for m in sent if m.get("type") == "action"] == [1], sent
    expect(ana.locator('.panel[data-player="bo"]')).to_have_class(re.compile("active-turn"))
    assert state(base, table["id"])["turn"]["number"] == 2
    # On a phone the bar keeps one line: the steps that don't fit are in the sheet.
    ana.set_viewport_size({"width": 390, "height": 844})
    box = bar(ana).bounding_box()
    assert box is not None and box["height"] <= 56, box
    ana.locator("#turn-more").click()
    expect(ana.locator('#turn-body [data-step="cleanup"]')).to_be_visible()
    ana.locator('#turn-body [data-step="main"]').click()
    expect(ana.locator("#turn-step")).to_have_text("main phase")
    ana.context.close()


def test_two_headed_giant_shows_both_heads_of_the_active_team_805_4_810_6(
    base: str, browser: Browser
) -> None:
    """805.4a: the team takes the turn, both heads active; 810.6: the team who plays first
    skips its first draw; the next turn is the other team's (810.2)."""
    table = post(base + "/api/tables", THG)
    ana = new_phone(browser)
    ana.goto(f"{base}/t/{table['id']}")
    ana.locator('#picker button[data-seat="ana"]').click()
    expect(ana.locator("#picker")).to_be_hidden()
    expect(ana.locator("#turn-skip")).to_have_attribute("data-rule", "810.6")
    expect(ana.locator("#turn-bar .tb-first")).to_have_text(["Ana & Bo", "Cy & Di"])
    ana.locator('#turn-bar .tb-first[data-first="cy"]').click()
    expect(ana.locator("#turn-text")).to_have_text("Turn 1 · Cy & Di · upkeep")
    expect(ana.locator('.panel[data-team="south"]')).to_have_class(re.compile("active-turn"))
    expect(ana.locator("#turn-next")).to_have_attribute("aria-label", "Next turn: Ana")
    screenshot(ana, "screens/turns-two-headed-giant.png")
    ana.locator("#turn-next").click()
    expect(ana.locator("#turn-text")).to_have_text("Turn 2 · Ana & Bo · upkeep")
    ana.context.close()


def test_rad_counters_are_asked_for_before_the_main_phase_728_1(
    base: str, browser: Browser
) -> None:
    """728.1: moving into the main phase while Ana has rad counters, the page asks how many
    of the cards she milled were nonland cards (0 to the cards milled) and sends them with the
    step; each costs 1 life and a rad counter. A wrong count is named, nothing sent."""
    table = post(base + "/api/tables", LIBRARIES)
    ana = wide_phone(browser)
    sit(ana, base, table["id"], "ana")
    ana.evaluate(
        '() => lifeledger.act({do: "add_counters", player: "ana", kind: "rad", amount: 3})'
    )
    ana.locator('#turn-bar [data-first="ana"]').click()
    expect(ana.locator("#turn-text")).to_have_text("Turn 1 · Ana · upkeep")
    ana.locator('#turn-bar [data-step="main"]').click()
    expect(ana.locator("#turn-sheet")).to_be_visible()
    field = ana.locator("#rad-ana")
    expect(field).to_have_attribute("max", "3")
    field.fill("4")
    ana.locator("#rad-go").click()
    expect(ana.locator("#toast")).to_contain_text("a whole number from 0 to 3")
    screenshot(ana, "screens/turns-rad.png")
    field.fill("2")
    ana.locator("#rad-go").click()
    expect(ana.locator("#turn-step")).to_have_text("main phase")
    player = state(base, table["id"])["players"][0]
    assert player["life"] == 18 and player["counters"] == {"rad": 1}
    # "Next" from before the main phase marks it first, with the count: 1 rad counter left.
    ana.locator("#turn-next").click()
    expect(ana.locator("#turn-text")).to_have_text("Turn 2 · Bo · upkeep")
    ana.locator("#turn-more").click()
    ana.locator('#turn-body [data-turn-for="ana"]').click()  # an extra turn (500.7)
    expect(ana.locator("#rad-ana")).to_have_count(0)  # Bo's turn had passed its main phase
    expect(ana.locator("#turn-text")).to_have_text("Turn 3 · Ana · upkeep")
    ana.locator("#turn-next").click()
    expect(ana.locator("#rad-ana")).to_have_attribute("max", "1")
    ana.locator("#rad-ana").fill("1")
    ana.locator("#rad-go").click()
    expect(ana.locator("#turn-text")).to_have_text("Turn 4 · Bo · upkeep")
    player = state(base, table["id"])["players"][0]
    assert player["life"] == 17 and player["counters"] == {}
    ana.context.close()


def test_day_and_night_with_the_spells_cast_this_turn_731_2(base: str, browser: Browser) -> None:
    """731.1: a device makes it night; 502.2, 731.2b: the spells Ana casts are counted on the
    bar, and at the next turn two of them make it day; the count starts again."""
    table = post(base + "/api/tables", TWO)
    ana, bo = wide_phone(browser), new_phone(browser)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    ana.locator('#turn-bar [data-first="ana"]').click()
    expect(ana.locator("#turn-daynight")).to_have_count(0)  # neither, yet
    ana.locator("#turn-more").click()
    ana.locator('#turn-body [data-day-night="night"]').click()
    expect(bo.locator("#turn-daynight")).to_have_text("☾ Night")
    cast = ana.locator("#turn-cast")
    expect(cast).to_have_text("✦ 0")
    cast.click()
    expect(cast).to_have_text("✦ 1")
    cast.click()
    expect(cast).to_have_text("✦ 2")
    expect(cast).to_have_attribute("aria-label", "Ana casts a spell (2 this turn)")
    screenshot(ana, "screens/turns-night.png")
    ana.locator("#turn-next").click()
    expect(bo.locator("#turn-daynight")).to_have_text("☀ Day")
    expect(bo.locator("#turn-text")).to_have_text("Turn 2 · Bo · upkeep")
    expect(ana.locator("#turn-cast")).to_have_text("✦ 0")
    # The history says why (502.2).
    bo.locator("#history-btn").click()
    expect(bo.locator("#history-list")).to_contain_text(re.compile(r"night becomes day"))
    ana.context.close()
    bo.context.close()


def test_grand_melee_of_eight_says_it_takes_no_turns_807_4(base: str, browser: Browser) -> None:
    """807.4: a Grand Melee game of eight has several turn markers, which version 2 can't
    record: the bar says so and offers no turn."""
    names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    table = post(
        base + "/api/tables", {"variant": "grand-melee", "players": [{"name": n} for n in names]}
    )
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    expect(bar(ana)).to_contain_text("807.4")
    expect(ana.locator("#turn-bar button")).to_have_count(0)
    ana.context.close()


def test_a_spectator_sees_the_turn_and_has_nothing_to_press(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", TWO)
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    ana.locator('#turn-bar [data-first="bo"]').click()
    watcher = new_phone(browser)
    watcher.goto(f"{base}/w/{table['watch']}")
    expect(watcher.locator("#turn-text")).to_have_text("Turn 1 · Bo · upkeep")
    expect(watcher.locator("#turn-bar button")).to_have_count(0)
    ana.context.close()
    watcher.context.close()

"""issue 11, "At the table": the designations on the panels (static/marks.js), in Debian's
chromium driven by Playwright against a real server. The monarch (725), the initiative (726) and
the city's blessing (702.131c) are given from a player's ⋯ sheet and shown on the panel of the
player who holds them, on every device (the table device's turned panels, compact panels,
personal phones), on the head who holds them under Two-Headed Giant; combat damage names its
controller, so the monarch and the initiative pass to it (725.2, 726.2); a monarch who leaves
the game passes the crown to the active player, or the next player in turn order (725.4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import PHONE, get, new_phone, post, screenshot, sit  # noqa: E402
from playwright.sync_api import Browser, Locator, Page, expect  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser

FOUR = {"players": [{"name": n} for n in ["Ana", "Bo", "Cy", "Di"]]}
# Libraries counted: a turn's draw step draws from them (an uncounted library is untracked,
# and never runs out, 504.1).
LIBRARIES = {"players": [{"name": n, "library": 40} for n in ["Ana", "Bo", "Cy", "Di"]]}
COMMANDER_FOUR = {
    "variant": "free-for-all",
    "format": "commander",
    "players": [
        {"name": "Ana", "commanders": ["Thrasios"]},
        {"name": "Bo", "commanders": ["Atraxa"]},
        {"name": "Cy", "commanders": ["Edgar"]},
        {"name": "Di", "commanders": ["Krenko"]},
    ],
}


# The checks of test_page_access.py and test_page_layouts.py, run in the page.
AUDIT = Path(__file__).with_name("page_audit.js").read_text()


def audit(page: Page, where: str, layout: bool = True) -> None:
    """No problem on the page as it is shown now: contrast (WCAG AA), 44x44 targets, names
    for screen readers and, unless a sheet is open, every control in view and uncovered."""
    found: list[str] = []
    checks = ["contrast", "targets", "names"]
    if layout:
        checks.append("layout")
    for check in checks:
        arg = page.evaluate("document.getElementById('panels').classList.contains('scrolls')")
        found += [
            f"{where} {check}: {p}"
            for p in page.evaluate(f"([name, arg]) => ({AUDIT})[name](arg)", [check, arg])
        ]
    assert found == []


def actions(base: str, table: str) -> list[dict[str, Any]]:
    """The table's recorded actions (not undos), in order."""
    entries = get(f"{base}/api/tables/{table}/history")["entries"]
    return [e["action"] for e in entries if e["kind"] == "action"]


def marks(base: str, table: str) -> dict[str, Any]:
    """The engine's designations, as the server has them."""
    found: dict[str, Any] = get(f"{base}/api/tables/{table}")["state"]["designations"]
    return found


def settled(page: Page) -> None:
    page.wait_for_function("() => lifeledger.S.pending.size === 0")


def table_device(browser: Browser, base: str, table: str, count: int, **size: Any) -> Page:
    """A device that joins ``table`` as the table device and holds its ``count`` seats."""
    options = dict(PHONE) if not size else {"viewport": size, "has_touch": True}
    page = browser.new_context(**options).new_page()
    page.goto(f"{base}/t/{table}")
    page.locator('#picker button[data-seat="table"]').click()
    expect(page.locator("#picker")).to_be_hidden()
    page.wait_for_function(f"() => lifeledger.S.connected && lifeledger.S.seats.length === {count}")
    return page


def panel(page: Page, player: str) -> Locator:
    return page.locator(f'.panel[data-player="{player}"]')


def sheet_for(page: Page, player: str) -> Locator:
    panel(page, player).locator('[data-act="more"]').click()
    sheet = page.locator("#sheet")
    expect(sheet).to_be_visible()
    return sheet


def close_sheet(page: Page) -> None:
    page.locator('#sheet [data-close="sheet"]').click()
    expect(page.locator("#sheet")).to_be_hidden()


def crown(page: Page, player: str) -> Locator:
    return panel(page, player).locator('.mark[data-mark="monarch"]')


def only_crown_on(page: Page, player: str, players: list[str]) -> None:
    """The crown shows on ``player``'s panel, and on no other."""
    expect(crown(page, player)).to_be_visible()
    said = f"{player.title()} is the monarch (725)"
    expect(crown(page, player)).to_have_attribute("aria-label", said)
    for other in players:
        if other != player:
            expect(crown(page, other)).to_have_count(0)


def inside(inner: Locator, outer: Locator) -> None:
    """``inner`` is drawn within ``outer``'s box (a turned panel's too)."""
    a, b = inner.bounding_box(), outer.bounding_box()
    assert a and b
    assert a["width"] > 0 and a["height"] > 0, a
    assert a["x"] >= b["x"] - 1 and a["y"] >= b["y"] - 1, (a, b)
    assert a["x"] + a["width"] <= b["x"] + b["width"] + 1, (a, b)
    assert a["y"] + a["height"] <= b["y"] + b["height"] + 1, (a, b)


def test_becoming_the_monarch_from_the_panel_shows_the_crown_on_every_device_725_1(
    base: str, browser: Browser
) -> None:
    """725.1: an effect makes Bo the monarch, recorded from Bo's ⋯ sheet on the table device;
    the crown shows on Bo's turned panel there and on Bo's own phone, and moves when Cy
    becomes the monarch (725.3: one at a time)."""
    table = post(base + "/api/tables", FOUR)["id"]
    bo_phone = new_phone(browser)
    sit(bo_phone, base, table, "bo")
    device = table_device(browser, base, table, 3, width=1024, height=768)
    players = ["ana", "bo", "cy", "di"]
    sheet = sheet_for(device, "bo")
    expect(sheet.locator(".designations")).to_contain_text("Bo has no designation.")
    sheet.locator('[data-sheet="monarch"]').click()
    expect(sheet.locator('[data-holds="bo"]')).to_have_text("Bo is the monarch (725).")
    audit(device, "the sheet", layout=False)
    # 725.3: becoming the monarch again changes nothing, so it isn't offered.
    expect(sheet.locator('[data-sheet="monarch"]')).to_have_count(0)
    close_sheet(device)
    settled(device)
    assert actions(base, table) == [{"do": "become_monarch", "player": "bo"}]
    only_crown_on(device, "bo", players)
    only_crown_on(bo_phone, "bo", players)
    # On the table device the panel is turned to face Bo, and the crown with it.
    assert panel(device, "bo").get_attribute("data-facing") != "0"
    inside(crown(device, "bo"), panel(device, "bo"))
    expect(crown(bo_phone, "bo").locator(".mark-text")).to_have_text("Monarch")
    audit(device, "table device")
    audit(bo_phone, "Bo's phone")
    # The history names it.
    bo_phone.locator("#history-btn").click()
    expect(bo_phone.locator("#history-list")).to_contain_text("Bo becomes the monarch")
    expect(bo_phone.locator("#history-list")).to_contain_text("Bo is the monarch")
    bo_phone.locator('#history [data-close="history"]').click()

    # 725.3: Cy becomes the monarch; Bo ceases to be.
    sheet_for(bo_phone, "cy").locator('[data-sheet="monarch"]').click()
    close_sheet(bo_phone)
    only_crown_on(device, "cy", players)
    only_crown_on(bo_phone, "cy", players)
    assert marks(base, table)["monarch"] == "cy"
    device.evaluate("document.getElementById('toast').classList.add('hidden')")
    screenshot(device, "screens/marks-monarch-table.png")
    device.context.close()
    bo_phone.context.close()


def test_combat_damage_from_a_commander_to_the_monarch_makes_its_controller_the_monarch_725_2(
    base: str, browser: Browser
) -> None:
    """725.2: Ana's commander deals combat damage to Bo, the monarch: Ana becomes the monarch.
    The chip's tap names the commander's controller (its owner, from the header), and the
    chip and the total still move at once (plain combat damage, 120.3a)."""
    table = post(base + "/api/tables", COMMANDER_FOUR)["id"]
    players = ["ana", "bo", "cy", "di"]
    bo = new_phone(browser)
    sit(bo, base, table, "bo")
    ana = new_phone(browser)
    sit(ana, base, table, "ana")
    sheet_for(bo, "bo").locator('[data-sheet="monarch"]').click()
    close_sheet(bo)
    only_crown_on(ana, "bo", players)

    chip = panel(bo, "bo").locator('[data-from="ana-thrasios"]')
    chip.click()
    expect(chip.locator(".cmd-total")).to_have_text("1")
    expect(panel(bo, "bo").locator(".life")).to_have_text("39")
    settled(bo)
    assert actions(base, table)[-1] == {
        "do": "damage",
        "source": "ana-thrasios",
        "to": "bo",
        "amount": 1,
        "combat": True,
        "controller": "ana",
    }
    only_crown_on(bo, "ana", players)
    only_crown_on(ana, "ana", players)
    assert marks(base, table)["monarch"] == "ana"
    ana.locator("#history-btn").click()
    expect(ana.locator("#history-list li").first).to_contain_text(
        "Thrasios: 1 damage to Bo (combat, controlled by Ana)"
    )
    expect(ana.locator("#history-list li").first).to_contain_text("Ana is the monarch")
    ana.locator('#history [data-close="history"]').click()

    # The ⋯ sheet's commander damage names the controller too: Edgar (Cy's) hits Ana, the
    # monarch, and Cy becomes the monarch.
    sheet = sheet_for(bo, "ana")
    sheet.locator('[data-commander="cy-edgar"] [data-cmd="5"]').click()
    close_sheet(bo)
    settled(bo)
    assert actions(base, table)[-1]["controller"] == "cy"
    only_crown_on(ana, "cy", players)
    # ... and the commander-damage sheet (a long press): Krenko (Di's) hits Cy.
    panel(bo, "cy").locator('[data-from="di-krenko"]').click(button="right")
    amounts = bo.locator("#cmd-sheet")
    expect(amounts).to_be_visible()
    expect(amounts.locator(".ctl-picks")).to_have_count(0)  # Di's commander: Di controls it
    amounts.locator('[data-amount="3"]').click()
    expect(amounts).to_be_hidden()
    settled(bo)
    assert actions(base, table)[-1] == {
        "do": "damage",
        "source": "di-krenko",
        "to": "cy",
        "amount": 3,
        "combat": True,
        "controller": "di",
    }
    only_crown_on(ana, "di", players)
    bo.context.close()
    ana.context.close()


def test_the_initiative_and_the_city_blessing_from_the_sheet_726_2_702_131c(
    base: str, browser: Browser
) -> None:
    """726.1: Cy takes the initiative; 702.131c: Ana and Cy get the city's blessing (any
    number of players), not offered again once they have it. Combat damage from the ⋯ sheet
    asks whose creature dealt it when no turn is being taken, and names it: 726.2 passes the
    initiative to Di. Once turns are taken, the sheet proposes the active player (Ana), and
    combat damage to Di passes the initiative to Ana."""
    table = post(base + "/api/tables", LIBRARIES)["id"]
    page = new_phone(browser)
    sit(page, base, table, "bo")
    other = new_phone(browser)
    sit(other, base, table, "di")

    sheet = sheet_for(page, "cy")
    sheet.locator('[data-sheet="initiative"]').click()
    expect(sheet.locator('[data-sheet="initiative"]')).to_have_text("⚔ Takes the initiative again")
    sheet.locator('[data-sheet="blessing"]').click()
    expect(sheet.locator('[data-sheet="blessing"]')).to_have_count(0)
    expect(sheet.locator('[data-holds="cy"]')).to_have_text(
        "Cy has the initiative (726). Cy has the city's blessing (702.131c)."
    )
    close_sheet(page)
    sheet_for(page, "ana").locator('[data-sheet="blessing"]').click()
    close_sheet(page)
    settled(page)
    for phone in (page, other):
        cy = panel(phone, "cy")
        expect(cy.locator('.mark[data-mark="initiative"]')).to_have_attribute(
            "aria-label", "Cy has the initiative (726)"
        )
        expect(cy.locator('.mark[data-mark="city_blessing"]')).to_have_attribute(
            "aria-label", "Cy has the city's blessing (702.131c)"
        )
        expect(panel(phone, "ana").locator('.mark[data-mark="city_blessing"]')).to_be_visible()
        expect(panel(phone, "ana").locator('.mark[data-mark="initiative"]')).to_have_count(0)
    assert marks(base, table) == {
        "monarch": None,
        "initiative": "cy",
        "day_night": None,
        "city_blessing": ["ana", "cy"],
    }

    # Combat damage from the sheet with no turn taken: whose creature? The page asks.
    sheet = sheet_for(page, "cy")
    expect(sheet.locator("#sh-controller")).to_have_value("")
    sheet.locator("#sh-damage").fill("2")
    sheet.locator("#sh-combat").check()
    sheet.locator('[data-sheet="damage"]').click()
    expect(page.locator("#toast")).to_contain_text("Controlled by: whose creature")
    sheet.locator("#sh-controller").select_option("di")
    sheet.locator('[data-sheet="damage"]').click()
    close_sheet(page)
    settled(page)
    assert actions(base, table)[-1] == {
        "do": "damage",
        "to": "cy",
        "amount": 2,
        "source": "damage",
        "combat": True,
        "controller": "di",
    }
    for phone in (page, other):
        expect(panel(phone, "di").locator('.mark[data-mark="initiative"]')).to_be_visible()
        expect(panel(phone, "cy").locator('.mark[data-mark="initiative"]')).to_have_count(0)

    # Turns: Ana's turn, in its main phase; the sheet proposes Ana as the controller (the
    # active player attacks), and 726.2 passes the initiative to her.
    page.evaluate(
        "() => { lifeledger.act({do: 'turn', player: 'ana'});"
        " lifeledger.act({do: 'step', step: 'main'}); }"
    )
    settled(page)
    sheet = sheet_for(page, "di")
    expect(sheet.locator("#sh-controller")).to_have_value("ana")
    sheet.locator("#sh-damage").fill("1")
    sheet.locator("#sh-combat").check()
    sheet.locator('[data-sheet="damage"]').click()
    close_sheet(page)
    settled(page)
    assert actions(base, table)[-1]["controller"] == "ana"
    expect(panel(other, "ana").locator('.mark[data-mark="initiative"]')).to_be_visible()
    assert marks(base, table)["initiative"] == "ana"
    expect(other.locator('.mark[data-mark="monarch"]')).to_have_count(0)  # no monarch here
    page.context.close()
    other.context.close()


def test_a_commander_whose_controller_is_unknown_asks_before_combat_damage_725_2(
    base: str, browser: Browser
) -> None:
    """A player's own commander shows on their panel once it has dealt them combat damage
    (a change of control): its controller is no longer its owner, so with no turn taken the
    chip's tap asks whose creature it is, and the damage names that player."""
    table = post(base + "/api/tables", COMMANDER_FOUR)["id"]
    page = new_phone(browser)
    sit(page, base, table, "bo")
    page.evaluate(
        "() => lifeledger.act({do: 'damage', source: 'bo-atraxa', to: 'bo', amount: 1,"
        " combat: true, controller: 'cy'})"
    )
    settled(page)
    own = panel(page, "bo").locator('[data-from="bo-atraxa"]')
    own.click()
    amounts = page.locator("#cmd-sheet")
    expect(amounts).to_be_visible()
    amounts.locator('[data-amount="2"]').click()
    expect(page.locator("#toast")).to_contain_text("Controlled by: pick whose creature")
    expect(amounts.locator('[data-controller="bo"]')).to_have_count(0)
    amounts.locator('[data-controller="di"]').click()
    expect(amounts.locator('[data-controller="di"]')).to_have_attribute("aria-pressed", "true")
    amounts.locator('[data-amount="2"]').click()
    expect(amounts).to_be_hidden()
    settled(page)
    assert actions(base, table)[-1] == {
        "do": "damage",
        "source": "bo-atraxa",
        "to": "bo",
        "amount": 2,
        "combat": True,
        "controller": "di",
    }
    page.context.close()


def test_the_monarch_leaving_the_game_passes_the_crown_725_4(base: str, browser: Browser) -> None:
    """725.4: the monarch concedes (104.3a). With a turn being taken, the active player
    becomes the monarch; with none, the next player in turn order does. The crown moves."""
    players = ["ana", "bo", "cy", "di"]
    table = post(base + "/api/tables", FOUR)["id"]
    device = table_device(browser, base, table, 4, width=1024, height=768)
    device.evaluate("() => lifeledger.act({do: 'turn', player: 'cy'})")
    sheet_for(device, "ana").locator('[data-sheet="monarch"]').click()
    close_sheet(device)
    only_crown_on(device, "ana", players)
    sheet = sheet_for(device, "ana")
    sheet.locator('[data-sheet="concede"]').click()
    sheet.locator('[data-sheet="concede"]').click()
    expect(device.locator("#sheet")).to_be_hidden()
    only_crown_on(device, "cy", players)  # Cy is the active player
    assert marks(base, table)["monarch"] == "cy"
    device.context.close()

    # No turn taken: the next player in turn order after Bo, who leaves.
    table = post(base + "/api/tables", FOUR)["id"]
    bo = new_phone(browser)
    sit(bo, base, table, "bo")
    watcher = new_phone(browser)
    sit(watcher, base, table, "di")
    sheet_for(bo, "bo").locator('[data-sheet="monarch"]').click()
    close_sheet(bo)
    only_crown_on(watcher, "bo", players)
    sheet = sheet_for(bo, "bo")
    sheet.locator('[data-sheet="concede"]').click()
    sheet.locator('[data-sheet="concede"]').click()
    only_crown_on(watcher, "cy", players)
    only_crown_on(bo, "cy", players)
    bo.context.close()
    watcher.context.close()


def test_a_compact_panel_still_shows_the_crown_725(base: str, browser: Browser) -> None:
    """Eight players on a 390x844 phone: the others' panels are compact (name, ⋯, −, total,
    +), and the monarch's still shows the crown, inside the panel, over no control's centre;
    on the table device too."""
    eight = {"players": [{"name": n} for n in ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]]}
    table = post(base + "/api/tables", eight)["id"]
    page = new_phone(browser)
    sit(page, base, table, "ana")
    sheet_for(page, "di").locator('[data-sheet="monarch"]').click()
    close_sheet(page)
    device = table_device(browser, base, table, 7)
    for phone in (page, device):
        di = panel(phone, "di")
        mark = crown(phone, "di")
        expect(mark).to_be_visible()
        expect(mark).to_have_attribute("aria-label", "Di is the monarch (725)")
        inside(mark, di)
        # The crown lets taps through (pointer-events: none) and covers no control's centre.
        covered = phone.evaluate(
            """() => {
                 const m = document.querySelector('.panel[data-player="di"] .mark')
                   .getBoundingClientRect();
                 return [...document.querySelectorAll('.panel[data-player="di"] button')]
                   .filter((b) => b.offsetParent)
                   .filter((b) => { const r = b.getBoundingClientRect();
                     const x = r.x + r.width / 2, y = r.y + r.height / 2;
                     return x >= m.left && x <= m.right && y >= m.top && y <= m.bottom; })
                   .map((b) => b.outerHTML.slice(0, 60));
               }"""
        )
        assert covered == [], covered
        audit(phone, "eight players")
    assert "compact" in (panel(page, "di").get_attribute("class") or "").split()
    screenshot(page, "screens/marks-compact.png")
    page.context.close()
    device.context.close()


def test_two_headed_giant_a_designation_is_a_heads_725_1(base: str, browser: Browser) -> None:
    """Under Two-Headed Giant the monarch is a player, not a team (725.1): the crown shows on
    Di's head in the South panel, not on Cy's; the city's blessing likewise (702.131c)."""
    table = post(base + "/api/tables", THG)["id"]
    page = new_phone(browser)
    page.goto(f"{base}/t/{table}")
    page.locator('#picker button[data-seat="ana"]').click()
    expect(page.locator("#picker")).to_be_hidden()
    south = page.locator('[data-team="south"]')
    south.locator('[data-head="di"]').click()
    south.locator('[data-act="more"]').click()
    expect(page.locator("#sheet-title")).to_contain_text("Di")
    page.locator('#sheet [data-sheet="monarch"]').click()
    page.locator('#sheet [data-sheet="blessing"]').click()
    close_sheet(page)
    settled(page)
    di = south.locator('[data-head="di"]')
    monarch = di.locator('.mark[data-mark="monarch"]')
    expect(monarch).to_have_attribute("aria-label", "the monarch (725)")
    expect(di).to_have_accessible_name("Di the monarch (725) the city's blessing (702.131c)")
    expect(di.locator('.mark[data-mark="city_blessing"]')).to_be_visible()
    expect(south.locator('[data-head="cy"] .mark')).to_have_count(0)
    expect(page.locator('[data-team="north"] .mark')).to_have_count(0)
    assert marks(base, table)["monarch"] == "di"
    audit(page, "Two-Headed Giant")
    page.context.close()

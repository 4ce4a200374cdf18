"""Accessible and friendly (issue 8), in a real browser: WCAG AA colour contrast of every
control and text (computed from the browser's computed styles), tap targets of at least 44x44
CSS px, a name for screen readers on every control, sixteen player colours that never repeat
before the sixteenth, and the last players' names and colours offered for the next table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import PHONE, life, more_options, post  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

# The checks run in the page (page_audit.js): "contrast" (WCAG 2.x, each shown text against
# its ancestors' backgrounds composited up to the page; disabled controls and panels of
# players out of the game exempt), "targets" (controls under 44x44 CSS px; a checkbox counts
# with its label, links in a sentence are exempt) and "names" (controls without a name a
# screen reader can say: words or digits, "⋯" alone is not one).
AUDIT = (Path(__file__).with_name("page_audit.js")).read_text()


def run(page: Page, check: str, arg: Any = None) -> Any:
    """The result of one of page_audit.js's checks."""
    return page.evaluate(f"([name, arg]) => ({AUDIT})[name](arg)", [check, arg])


def audit(page: Page, where: str) -> list[str]:
    """Every problem on the page as it is shown now, prefixed with ``where``."""
    found: list[str] = []
    for check in ("contrast", "targets", "names"):
        found += [f"{where}: {p}" for p in run(page, check)]
    return found


def seated(browser: Browser, base: str, table: dict[str, Any], seat: str, device: str) -> Page:
    page = browser.new_context(**PHONE).new_page()
    tid = table["id"]
    if device == "table":
        page.add_init_script(f'localStorage.setItem("lifeledger-device-{tid}", "table")')
    else:
        token = post(f"{base}/api/tables/{tid}/seats/{seat}", {})["token"]
        saved = json.dumps(json.dumps({"seat": seat, "token": token}))
        page.add_init_script(f'localStorage.setItem("lifeledger-seat-{tid}", {saved})')
    page.goto(f"{base}/t/{tid}")
    # Held seats first: the table device is welcomed again once it holds them (all panels
    # drawn anew), which must not happen in the middle of an audit.
    page.wait_for_function(
        "() => lifeledger.S.connected && !lifeledger.S.takingSeats"
        " && (lifeledger.S.device === 'table'"
        " ? lifeledger.S.seats.length > 0 : !!lifeledger.S.seat)"
    )
    page.wait_for_selector("#panels.placed .panel")
    return page


def test_every_screen_has_aa_contrast_44px_targets_and_names(base: str, browser: Browser) -> None:
    problems: list[str] = []
    page = browser.new_context(**PHONE).new_page()
    page.goto(base + "/")
    problems += audit(page, "start")
    more_options(page)
    page.get_by_role("button", name="Commander ×4").click()
    problems += audit(page, "open a table")
    page.locator("#open-table").click()
    expect(page.locator("#opened")).to_be_visible()
    problems += audit(page, "table opened")
    page.context.close()

    players = [{"name": n, "commanders": [f"{n}'s commander"]} for n in ["Ana", "Bo", "Cy", "Di"]]
    table = post(base + "/api/tables", {"format": "commander", "players": players})
    page = seated(browser, base, table, "ana", "phone")
    problems += audit(page, "personal phone")
    page.locator('.panel[data-player="bo"] [data-act="more"]').click()
    problems += audit(page, "action sheet")
    page.locator("#sh-amount").fill("0")
    page.locator('[data-sheet="set"]').click()
    page.locator('#sheet [data-close="sheet"]').click()
    expect(page.locator('.panel[data-player="bo"] .status')).to_contain_text("LOST")
    problems += audit(page, "a player lost")
    page.locator("#history-btn").click()
    problems += audit(page, "history")
    page.locator('#history [data-close="history"]').click()
    page.locator("#menu-btn").click()
    problems += audit(page, "menu")
    page.context.close()

    page = seated(browser, base, table, "ana", "table")
    page.evaluate("document.getElementById('toast').classList.add('hidden')")
    problems += audit(page, "table device")
    page.context.close()

    fresh = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{base}/t/{fresh['id']}")
    expect(page.locator("#picker")).to_be_visible()
    problems += audit(page, "seat picker")
    page.context.close()
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{base}/w/{fresh['watch']}")
    page.wait_for_selector("#panels.placed .panel")
    problems += audit(page, "spectator")
    page.context.close()
    assert not problems, "\n".join(problems)


def test_sixteen_colours_each_aa_never_repeated_before_sixteen(base: str, browser: Browser) -> None:
    page = browser.new_context(**PHONE).new_page()
    page.goto(base + "/")
    more_options(page)
    page.wait_for_selector(".player-row")
    found = page.evaluate(
        """() => {
          const lum = (hex) => {
            const v = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
              .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
            return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
          };
          const players = Array.from({ length: 16 }, (_, i) => ({ id: "p" + i }));
          return {
            colours: lifeledger.PALETTE.map((c) => c.bg.toLowerCase()),
            names: lifeledger.PALETTE.map((c) => c.name),
            contrast: lifeledger.PALETTE.map((c) => 1.05 / (lum(c.bg) + 0.05)),
            sixteen: Object.values(lifeledger.seatColours(players, {})),
            chosen: lifeledger.seatColours(players.slice(0, 3), { p0: 4, p1: 4, p2: 0 }),
          };
        }"""
    )
    assert len(found["colours"]) == 16 and len(set(found["colours"])) == 16
    assert len(set(found["names"])) == 16
    assert min(found["contrast"]) >= 4.5, found["contrast"]  # white text on each
    assert sorted(found["sixteen"]) == list(range(16))
    # A colour chosen twice goes to the first; the second gets a free one.
    assert found["chosen"] == {"p0": 4, "p1": 1, "p2": 0}
    page.context.close()


def test_our_playgroup_names_and_colours_are_offered_for_the_next_table(
    base: str, browser: Browser
) -> None:
    page = browser.new_context(**PHONE).new_page()
    page.goto(base + "/")
    more_options(page)
    rows = page.locator(".player-row")
    page.get_by_role("button", name="Free-for-all ×3").click()
    expect(rows).to_have_count(3)
    for i, name in enumerate(["Mia", "Noor", "Oli"]):
        rows.nth(i).locator(".p-name").fill(name)
    rows.nth(0).locator(".p-colour").select_option(label="Teal")
    rows.nth(2).locator(".p-colour").select_option(label="Rose")
    page.locator("#open-table").click()
    expect(page.locator("#opened")).to_be_visible()
    page.locator('#opened-seats button[data-seat="noor"]').click()
    expect(life(page, "noor")).to_have_text("20")
    # The table shows the chosen colours, on every page (a spectator's too).
    expect(page.locator('.panel[data-player="mia"]')).to_have_attribute("data-colour", "Teal")
    expect(page.locator('.panel[data-player="oli"]')).to_have_attribute("data-colour", "Rose")

    page.goto(base + "/")
    more_options(page)
    chip = page.locator('[data-preset="playgroup"]')
    expect(chip).to_have_text("Our playgroup: Mia, Noor, Oli")
    # Offered at once: the form holds the last players, their colours chosen as before.
    expect(rows).to_have_count(3)
    expect(rows.nth(0).locator(".p-name")).to_have_value("Mia")
    expect(rows.nth(2).locator(".p-name")).to_have_value("Oli")
    teal = page.evaluate("lifeledger.PALETTE.findIndex((c) => c.name === 'Teal')")
    expect(rows.nth(0).locator(".p-colour")).to_have_value(str(teal))
    page.get_by_role("button", name="Two players").click()
    expect(rows).to_have_count(2)
    chip.click()
    expect(rows).to_have_count(3)
    expect(rows.nth(1).locator(".p-name")).to_have_value("Noor")
    page.context.close()


def test_a_new_player_row_gets_a_colour_no_other_row_has(base: str, browser: Browser) -> None:
    page = browser.new_context(**PHONE).new_page()
    page.goto(base + "/")
    more_options(page)
    page.get_by_role("button", name="Commander ×4").click()
    for _ in range(4):
        page.locator("#add-player").click()
    values = page.locator(".p-colour").evaluate_all("(els) => els.map((e) => e.value)")
    assert len(values) == 8 and len(set(values)) == 8
    page.context.close()

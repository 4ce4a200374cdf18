"""Reading the numbers at a real table (issue 17, items 5, 6, 8, 9 and 16), in a real browser:
overlays turned to the player they are for on the table device, − and + set apart from the
total, negative totals that can't be taken for a control, what keeps a player in the game at
a losing total, no life taps once the game is over, whole names, tap runs, the graph's text
and the totals' labels. The layout grid (items 4 and 7) is test_page_grid.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import post, screenshot  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser

NAMES = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def commander(names: list[str]) -> dict[str, Any]:
    players = [{"name": n, "commanders": [f"{n}'s commander"]} for n in names]
    variant = "two-player" if len(names) == 2 else "free-for-all"
    return {"variant": variant, "format": "commander", "players": players}


def open_table(browser: Browser, base: str, form: dict[str, Any], size: tuple[int, int]) -> Page:
    """The table device (one device for everyone) of a new table with ``form``."""
    table = post(base + "/api/tables", form)
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, device_scale_factor=1, has_touch=True
    )
    page = context.new_page()
    tid = table["id"]
    page.add_init_script(f'localStorage.setItem("lifeledger-device-{tid}", "table")')
    page.goto(f"{base}/t/{tid}")
    page.wait_for_function(
        "() => lifeledger.S.connected && !lifeledger.S.takingSeats "
        "&& lifeledger.S.seats.length === lifeledger.header().players.length"
    )
    page.wait_for_selector("#panels.placed .panel")
    return page


def act(page: Page, action: dict[str, Any]) -> None:
    """Send ``action`` as the page sends a tap's, and wait for the server's answer."""
    before = page.evaluate("lifeledger.S.lastSeq")
    page.evaluate("(a) => lifeledger.act(a)", action)
    page.wait_for_function(
        "(n) => lifeledger.S.lastSeq > n && lifeledger.S.pending.size === 0", arg=before
    )


def facing(page: Page, unit: str) -> str:
    return page.locator(f'#panels .panel[data-unit="{unit}"]').get_attribute("data-facing") or "0"


def hugs(page: Page, selector: str, deg: str) -> bool:
    """Whether the element lies against the edge of the screen a panel facing ``deg`` faces."""
    return bool(
        page.evaluate(
            """([sel, deg]) => {
              const r = document.querySelector(sel).getBoundingClientRect();
              const gap = { 0: innerHeight - r.bottom, 90: r.left, 180: r.top,
                270: innerWidth - r.right }[deg];
              return gap <= 16; }""",
            [selector, int(deg)],
        )
    )


def test_overlays_face_the_player_they_are_for(base: str, browser: Browser) -> None:
    """Item 5: on the table device the ⋯ sheet, the commander-amount sheet, a choice, a loss's
    toast and the game-over banner are turned to the player they are for, at their edge."""
    page = open_table(browser, base, commander(NAMES[:4]), (375, 667))
    cy = facing(page, "cy")
    assert cy in ("90", "270")  # a player at a long side
    page.locator('[data-unit="cy"] [data-act="more"]').click()
    expect(page.locator("#sheet")).to_have_attribute("data-facing", cy)
    assert hugs(page, "#sheet .sheet-inner", cy)
    screenshot(page, "screens/reading-sheet-faces-cy.png")
    page.locator('#sheet [data-close="sheet"]').click()
    # Commander damage: one tap on the panel's ⚔ (compact) or a chip's long press (whole).
    opener = page.locator('[data-unit="cy"] [data-act="cmd-open"]')
    if opener.is_visible():
        opener.click()
    else:
        page.locator('[data-unit="cy"] .cmd').first.click(button="right")
    expect(page.locator("#cmd-sheet")).to_have_attribute("data-facing", cy)
    expect(page.locator("#cmd-sheet-body")).not_to_contain_text("null")
    assert hugs(page, "#cmd-sheet .sheet-inner", cy)
    page.locator('#cmd-sheet [data-close="cmd-sheet"]').click()
    # A choice: Sanguine Bond's target, asked of Cy (603.3d).
    act(page, {"do": "card", "id": "bond", "name": "Sanguine Bond", "controller": "cy"})
    expect(page.locator('#choices .choice-ask[data-player="cy"]')).to_be_visible()
    expect(page.locator("#choices")).to_have_attribute("data-facing", cy)
    assert hugs(page, "#choices", cy)
    page.locator('#choices [data-target="ana"]').click()
    expect(page.locator("#choices")).to_be_hidden()
    # Cy loses: the toast faces Cy.
    act(page, {"do": "lose_life", "player": "cy", "amount": 40})
    expect(page.locator("#toast.loss")).to_be_visible()
    expect(page.locator("#toast")).to_have_attribute("data-facing", cy)
    assert hugs(page, "#toast", cy)
    page.context.close()
    # Two players: Bo sits across the table (at the top); his win's banner faces him.
    page = open_table(browser, base, {"players": [{"name": "Ana"}, {"name": "Bo"}]}, (375, 667))
    assert facing(page, "bo") == "180"
    act(page, {"do": "lose_life", "player": "ana", "amount": 20})
    expect(page.locator("#banner")).to_be_visible()
    expect(page.locator("#banner")).to_have_attribute("data-facing", "180")
    assert hugs(page, "#banner", "180")
    screenshot(page, "screens/reading-banner-faces-bo.png")
    page.context.close()


def test_the_signs_stand_apart_and_a_negative_total_is_boxed(base: str, browser: Browser) -> None:
    """Item 6: − and + are small light signs well apart from the digits (Ana at 40 never reads
    "−40"), and a real −4 keeps its minus against its digits, in a box, with a label."""
    page = open_table(browser, base, commander(NAMES[:6]), (375, 667))
    act(page, {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "ana"})
    act(page, {"do": "lose_life", "player": "ana", "amount": 44})
    total = page.locator('[data-unit="ana"] .life')
    expect(total).to_have_text("\u22124")
    expect(total).to_have_class("life negative")
    expect(page.get_by_role("img", name="Ana: \u22124 life")).to_be_visible()
    found = page.evaluate(
        """() => [...document.querySelectorAll('#panels .panel')].map((p) => {
          const life = p.querySelector('.life');
          const range = document.createRange(); range.selectNodeContents(life);
          const d = range.getBoundingClientRect();
          const size = parseFloat(getComputedStyle(life).fontSize);
          return [...p.querySelectorAll('.life-row .tap span')].map((s) => {
            const r = s.getBoundingClientRect();
            const st = getComputedStyle(s);
            return { unit: p.dataset.unit, size, sign: parseFloat(st.fontSize),
              weight: Number(st.fontWeight),
              gap: Math.max(r.left - d.right, d.left - r.right, r.top - d.bottom, d.top - r.bottom),
            };
          });
        }).flat()"""
    )
    for s in found:
        assert s["gap"] >= max(8, 0.2 * s["size"]), s
        assert s["sign"] <= 0.6 * s["size"] and s["weight"] <= 400, s
    screenshot(page, "screens/reading-negative-total.png")
    page.context.close()


def test_what_keeps_a_player_in_the_game_is_shown(base: str, browser: Browser) -> None:
    """Item 8: Two-Headed Giant, Platinum Angel in play, the team at −4 (704.6a): the panel says
    what keeps the team in the game, its card and rule; so do poison at the team's 15 (704.6b)
    and 21 commander damage (704.6c) in a Commander game."""
    page = open_table(browser, base, THG, (768, 1024))
    team = page.locator('[data-heads~="ana"]')
    act(page, {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "ana"})
    expect(team.locator(".kept")).to_have_count(0)  # nothing to say above every threshold
    act(page, {"do": "lose_life", "player": "ana", "amount": 34})
    kept = team.locator(".kept")
    expect(kept).to_be_visible()
    expect(kept).to_contain_text("Platinum Angel (104.3)")
    expect(kept).to_contain_text("\u22124 life")
    assert "704.6a" in (kept.get_attribute("aria-label") or "")
    act(page, {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 15})
    expect(kept).to_contain_text("15 poison")
    assert "704.6b" in (kept.get_attribute("aria-label") or "")
    screenshot(page, "screens/reading-kept-in-the-game.png")
    page.context.close()
    page = open_table(browser, base, commander(NAMES[:3]), (768, 1024))
    act(page, {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "ana"})
    source = page.evaluate("lifeledger.header().players[1].commanders[0]")  # Bo's commander
    damage = {"source": source, "to": "ana", "amount": 21, "combat": True, "controller": "bo"}
    act(page, {"do": "damage", **damage})
    kept = page.locator('[data-unit="ana"] .kept')
    expect(kept).to_contain_text("Platinum Angel (104.3)")
    expect(kept).to_contain_text("21 from Bo's commander")
    assert "704.6c" in (kept.get_attribute("aria-label") or "")
    page.context.close()


def test_no_life_taps_once_the_game_is_over(base: str, browser: Browser) -> None:
    """Item 9: after the game is over the life buttons are dead (a tap showed 39, then 40)."""
    page = open_table(browser, base, {"players": [{"name": "Ana"}, {"name": "Bo"}]}, (375, 667))
    act(page, {"do": "lose_life", "player": "ana", "amount": 20})
    expect(page.locator("#banner")).to_be_visible()
    for step in ("minus", "plus"):
        expect(page.locator(f'[data-unit="bo"] [data-act="{step}"]')).to_be_disabled()
    page.locator('[data-unit="bo"] [data-act="minus"]').click(force=True)
    expect(page.locator('[data-unit="bo"] .life')).to_have_text("20")
    assert page.evaluate("lifeledger.S.pending.size") == 0
    page.context.close()


def test_names_runs_graph_text_and_total_labels(base: str, browser: Browser) -> None:
    """Item 16: a compact panel never breaks a name mid-word ("Benja/min"); two runs of taps
    are not "2 taps"; the graph's screen-reader text has no ", ."; a total has a label."""
    names = ["Benjamin", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
    page = open_table(browser, base, {"players": [{"name": n} for n in names]}, (375, 667))
    ben = page.locator('[data-unit="benjamin"]')
    expect(ben).to_have_class("panel compact")
    lines = page.evaluate(
        """() => { const el = document.querySelector('[data-unit="benjamin"] .pname');
        const range = document.createRange(); range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top * 10))).size; }"""
    )
    assert lines == 1, "the name is broken over lines"
    expect(page.get_by_role("img", name="Benjamin: 20 life")).to_be_visible()
    act(page, {"do": "lose_life", "player": "bo", "amount": 5})
    act(page, {"do": "lose_life", "player": "bo", "amount": 5})
    page.locator("#history-btn").click()
    first = page.locator("#history-list li").first
    expect(first).to_contain_text("Bo loses 10 life (5 + 5)")
    expect(first).not_to_contain_text("taps")
    act(page, {"do": "lose_life", "player": "cy", "amount": 20})  # a loss: a result to read
    desc = page.locator("svg.graph desc").first
    expect(desc).to_contain_text("Cy")
    text = desc.text_content() or ""
    assert ", ." not in text and "playing" in text, json.dumps(text)
    page.context.close()

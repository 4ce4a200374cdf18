"""Issue 25: the phone in the middle of a Commander table (items 2, 3, 9 and 12), in Chromium.

- Item 2: the one-tap "4 players · Commander" game gives each player a commander from the start
  ("Commander of Player 1"), so commander damage is tracked from the first tap (903.10a).
- Item 3: on a 375x667 phone and a 360x640 one, the damaged player's panel has a chip for each
  opposing commander, and one tap on it records 1 combat damage from that commander (903.10a,
  120.3: it costs that much life too).
- Item 12: the one-tap two-player game is one game (best of 1), and a phone joining a table
  is not pointed at "Use as the table device" (it takes every seat).
- Item 9: "+ Add player" makes "Two players" a free-for-all (806; 800.1: a multiplayer game
  has more than two players), so Open opens the table, and the colour select shows its name."""

from __future__ import annotations

from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    device_table,
    held,
    keep_start,
    more_options,
    post,
    screenshot,
)
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser


def phone(browser: Browser, width: int, height: int) -> Page:
    return browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=1, has_touch=True
    ).new_page()


def quick(page: Page, base: str, key: str, players: int, start: dict[str, str]) -> None:
    """A quick game on this device (a phone that kept the engine's start, ``start``)."""
    page.goto(base + "/")
    keep_start(page, start)
    page.locator(f'[data-quick="{key}"]').tap()
    device_table(page)
    held(page, players)


def taken(page: Page, pid: str) -> Any:
    return page.evaluate(f"() => lifeledger.playerState({pid!r}).commander_damage || {{}}")


@pytest.mark.parametrize("size", [(375, 667), (360, 640)], ids=["375x667", "360x640"])
def test_903_10a_the_quick_commander_game_counts_commander_damage_in_one_tap(
    base: str, browser: Browser, kept_start: dict[str, str], size: tuple[int, int]
) -> None:
    page = phone(browser, *size)
    quick(page, base, "commander", 4, kept_start)
    # Item 2: a commander each from the start, named after its player.
    players = page.evaluate("() => lifeledger.header().players")
    assert [p["commanders"] for p in players] == [
        [f"player-{n}-commander-of-player-{n}"] for n in range(1, 5)
    ]
    assert (
        page.evaluate("() => lifeledger.S.names.of('player-2-commander-of-player-2')")
        == "Commander of Player 2"
    )
    # Item 3: Player 1's panel has a chip for each of the three opposing commanders, on screen.
    panel = page.locator('.panel[data-player="player-1"]')
    chips = panel.locator('.cmd[data-to="player-1"]')
    expect(chips).to_have_count(3)
    for i in range(3):
        expect(chips.nth(i)).to_be_in_viewport(ratio=1)
    expect(panel.locator('[data-act="cmd-open"]')).to_be_hidden()
    # One tap: 1 combat damage from Player 2's commander (and 1 life, 120.3).
    chip = panel.locator('.cmd[data-from="player-2-commander-of-player-2"]')
    expect(chip).to_contain_text("Player 2")
    chip.tap()
    expect(chip.locator(".cmd-total")).to_have_text("1")
    page.wait_for_function("() => lifeledger.S.pending.size === 0")
    assert taken(page, "player-1") == {"player-2-commander-of-player-2": 1}
    expect(panel.locator(".life")).to_have_text("39")
    if size == (375, 667):  # docs/table.md's pictures (make screens)
        screenshot(page, "screens/commander-table-phone.png")
        # Another amount: a long press opens the sheet, turned to Player 1, every control on it.
        chip.click(button="right")
        expect(page.locator("#cmd-sheet [data-amount='10']")).to_be_in_viewport(ratio=1)
        expect(page.locator("#cmd-sheet [data-amount='typed']")).to_be_in_viewport(ratio=1)
        screenshot(page, "screens/commander-table-amount.png")
    page.context.close()


def test_the_quick_two_player_game_is_a_single_game(
    base: str, browser: Browser, kept_start: dict[str, str]
) -> None:
    """Item 12 (100.6a: a match's length is the players' to choose; one tap, one game)."""
    page = phone(browser, 375, 667)
    quick(page, base, "two", 2, kept_start)
    assert page.evaluate("() => lifeledger.S.score && lifeledger.S.score.best_of") == 1
    page.context.close()


def test_joining_does_not_point_at_the_table_device(base: str, browser: Browser) -> None:
    """Item 12: the join screen's "Use as the table device" is the quietest button of the
    seat list (taking every seat by mistake), not a highlighted one."""
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = phone(browser, 375, 667)
    page.goto(f"{base}/t/{table['id']}")
    device = page.locator('#picker button[data-seat="table"]')
    seat = page.locator('#picker button[data-seat="ana"]')
    expect(device).to_be_visible()
    style = (
        "(el) => { const s = getComputedStyle(el); return [s.backgroundColor, s.borderTopStyle]; }"
    )
    background, border = device.evaluate(style)
    assert background == "rgba(0, 0, 0, 0)" and border == "dashed"
    assert seat.evaluate(style)[0] != background  # a player's seat stands out more
    page.context.close()


def test_806_a_third_player_makes_a_free_for_all_and_opens(base: str, browser: Browser) -> None:
    """Item 9: "+ Add player" on "Two players" opened a red 400 (a two-player game has exactly
    2 players); the colour select showed "Crimsc"."""
    page = phone(browser, 375, 667)
    page.goto(base + "/")
    more_options(page)
    page.get_by_role("button", name="Two players").click()
    expect(page.locator("#variant")).to_have_value("two-player")
    page.locator("#add-player").click()
    expect(page.locator("#variant")).to_have_value("free-for-all")
    page.locator(".player-row").nth(2).locator(".p-name").fill("Cy")
    # Every colour's whole name is shown: the select is as wide as its longest option.
    for select in page.locator(".p-colour").all():
        fits = select.evaluate(
            """(el) => {
                 const c = document.createElement("canvas").getContext("2d");
                 const s = getComputedStyle(el);
                 c.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
                 const text = el.selectedOptions[0].textContent;
                 return c.measureText(text).width + 16 <= el.clientWidth; }"""
        )
        assert fits
    # Back to two players: a two-player game again.
    page.locator(".player-row").nth(2).locator(".remove").click()
    expect(page.locator("#variant")).to_have_value("two-player")
    page.locator("#add-player").click()
    page.locator(".player-row").nth(2).locator(".p-name").fill("Cy")
    page.locator("#open-table").click()
    expect(page.locator("#opened")).to_be_visible()
    expect(page.locator("#create-error")).to_have_text("")
    expect(page.locator("#opened-seats [data-seat]")).to_have_count(3)
    page.context.close()


def test_the_menus_loopback_warning_keeps_its_lines(base: str, browser: Browser) -> None:
    """Item 11: on a server only this machine reaches, the menu's warning (five lines on a
    phone) had a 19 px box and ran over the next paragraph."""
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = phone(browser, 375, 667)
    page.add_init_script(f'localStorage.setItem("lifeledger-device-{table["id"]}", "table")')
    page.goto(f"{base}/t/{table['id']}")
    held(page, 2)
    page.locator("#menu-btn").click()
    warning = page.locator("#menu .only-here")
    expect(warning).to_be_visible()
    box = warning.evaluate(
        """(el) => { const next = el.nextElementSibling.getBoundingClientRect();
             const r = el.getBoundingClientRect();
             return {whole: el.scrollHeight <= el.clientHeight + 1, lines: r.height / 19,
                     apart: next.top >= r.bottom}; }"""
    )
    assert box["whole"] and box["apart"] and box["lines"] > 2, box
    page.context.close()


def test_the_result_reads_from_both_sides_of_the_table(base: str, browser: Browser) -> None:
    """Item 6: on the table device the game-over banner and a loss's toast face the player they
    are for, and a copy of their words faces the opposite edge: in a two-player game the
    opponent reads the result the right way up; at four, both long sides read a loss."""
    from test_page_reading import act, commander, facing, hugs, open_table

    page = open_table(browser, base, commander(["Ana", "Bo", "Cy", "Di"]), (375, 667))
    cy = facing(page, "cy")
    other = str((int(cy) + 180) % 360)
    act(page, {"do": "lose_life", "player": "cy", "amount": 40})
    expect(page.locator("#toast.loss")).to_have_attribute("data-facing", cy)
    mirror = page.locator("#toast-mirror")
    expect(mirror).to_be_visible()
    expect(mirror).to_have_attribute("data-facing", other)
    expect(mirror).to_have_text(page.locator("#toast").inner_text())
    assert hugs(page, "#toast-mirror", other)
    page.context.close()
    # Two players: Bo (at the top) wins; the banner faces him, its copy faces Ana.
    page = open_table(browser, base, {"players": [{"name": "Ana"}, {"name": "Bo"}]}, (375, 667))
    act(page, {"do": "lose_life", "player": "ana", "amount": 20})
    expect(page.locator("#banner")).to_have_attribute("data-facing", "180")
    # Never two at one edge: Ana's toast says the result at her edge first, then the copy.
    expect(page.locator("#toast.loss")).to_be_visible()
    expect(page.locator("#toast-mirror")).to_be_hidden()
    copy = page.locator("#banner-mirror")
    expect(copy).to_be_hidden()
    page.evaluate("() => document.getElementById('toast').classList.add('hidden')")
    expect(copy).to_be_visible()
    expect(copy).to_have_attribute("data-facing", "0")
    expect(copy).to_contain_text("Game over — Bo won")
    assert hugs(page, "#banner-mirror", "0")
    assert copy.get_attribute("aria-hidden") == "true"  # said once, by the banner
    screenshot(page, "screens/commander-table-result-both-sides.png")
    page.context.close()

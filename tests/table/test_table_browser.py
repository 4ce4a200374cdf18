"""The table in a real browser (Debian's chromium, driven by Playwright): two phones at one
table, reloads, refusals, a lethal hit, undo, the timeline, spectators and replays. Saves
screenshots of the main screens under docs/ for the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    life,
    more_options,
    new_phone,
    post,
    replaying,
    screenshot,
    sit,
)
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "examples"


def shot(page: Page, name: str) -> None:
    screenshot(page, f"screen-{name}.png")


def test_open_a_table_and_take_a_seat(base: str, browser: Browser) -> None:
    page = new_phone(browser)
    page.goto(base + "/")
    shot(page, "start")
    more_options(page)
    page.get_by_role("button", name="Commander ×4").click()
    page.locator("#open-table").click()
    expect(page.locator("#opened-code")).to_have_text(
        re.compile(r"^[A-Z0-9]{4}(-[A-Z0-9]{1,4}){1,2}$")
    )
    expect(page.locator("#opened-qr")).to_be_visible()
    page.locator("#opened").scroll_into_view_if_needed()
    shot(page, "table-opened")
    page.locator('#opened-seats button[data-seat="ana"]').click()
    expect(page.locator('[data-player="ana"] .life')).to_have_text("40")
    expect(page.locator('[data-player="ana"] .tag.you')).to_be_visible()
    page.context.close()


def test_two_phones_one_table(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")

    # A tap on one phone shows on the other.
    for _ in range(3):
        ana.locator('[data-player="bo"] [data-act="minus"]').click()
    ana.locator('[data-player="ana"] [data-act="plus5"]').click()
    expect(life(bo, "bo")).to_have_text("17")
    expect(life(bo, "ana")).to_have_text("25")
    expect(life(ana, "bo")).to_have_text("17")
    shot(bo, "two-players")

    # A reload keeps the seat.
    bo.reload()
    expect(bo.locator('[data-player="bo"] .tag.you')).to_be_visible()
    expect(bo.locator("#picker")).to_be_hidden()
    expect(life(bo, "bo")).to_have_text("17")
    bo.locator('[data-player="bo"] [data-act="minus"]').click()
    expect(life(ana, "bo")).to_have_text("16")

    # A refused action shows its rule, and changes nothing.
    ana.locator('[data-player="ana"] [data-act="more"]').click()
    ana.locator("#sh-amount").fill("50")
    ana.locator('[data-sheet="pay"]').click()
    expect(ana.locator("#toast")).to_contain_text("119.4")
    expect(ana.locator("#toast")).to_contain_text("Refused")
    shot(ana, "refused")
    ana.locator('#sheet [data-close="sheet"]').click()
    expect(life(ana, "ana")).to_have_text("25")

    # A lethal hit shows the loss and the end of the game on both phones.
    ana.locator('[data-player="bo"] [data-act="more"]').click()
    ana.locator("#sh-damage").fill("16")
    ana.locator("#sh-source").fill("Fireball")
    ana.locator('[data-sheet="damage"]').click()
    ana.locator('#sheet [data-close="sheet"]').click()
    for page in (ana, bo):
        expect(page.locator('[data-player="bo"] .status')).to_contain_text("704.5a")
        expect(page.locator("#banner")).to_contain_text("Game over")
        expect(page.locator("#banner")).to_contain_text("Ana won")
    shot(bo, "game-over")

    # The timeline: who did what, from which seat, what it changed; rapid taps grouped.
    bo.locator("#history-btn").click()
    expect(bo.locator("#history-list")).to_contain_text("Fireball: 16 damage to Bo")
    # Three rapid taps are one change (taps.js gathers them: one Undo takes them back).
    expect(bo.locator("#history-list")).to_contain_text("Bo loses 3 life")
    expect(bo.locator("#history-list")).to_contain_text("Bo life 20 → 17")
    shot(bo, "history")
    bo.locator('#history [data-close="history"]').click()

    # Undo works on both screens. The Fireball is Ana's own last change: her Undo names it and
    # takes it back at once (issue 25 item 4: a seat's Undo takes back its own change); Bo's
    # names his own −1, under the Fireball.
    expect(bo.locator("#undo-btn")).to_contain_text("Bo −1")
    expect(ana.locator("#undo-btn")).to_contain_text("16")
    ana.locator("#undo-btn").click()
    for page in (ana, bo):
        expect(life(page, "bo")).to_have_text("16")
        expect(page.locator("#banner")).to_be_hidden()
        expect(page.locator('[data-player="bo"] .status')).to_have_text("")
    ana.context.close()
    bo.context.close()


def test_two_headed_giant_commander_damage_and_cards(base: str, browser: Browser) -> None:
    thg = post(base + "/api/tables", THG)
    page = new_phone(browser)
    sit_team(page, base, thg["id"], "cy")
    north = page.locator('[data-team="north"]')
    north.locator('[data-head="bo"]').click()
    north.locator('[data-act="minus5"]').click()
    expect(north.locator(".life")).to_have_text("25")
    north.locator('[data-act="more"]').click()
    page.locator("#sh-card").select_option("Platinum Angel")
    page.locator('[data-sheet="card"]').click()
    page.locator('#sheet [data-close="sheet"]').click()
    expect(north.locator(".badges")).to_contain_text("Platinum Angel")
    shot(page, "two-headed-giant")
    page.context.close()

    cmd = post(
        base + "/api/tables",
        {
            "variant": "free-for-all",
            "format": "commander",
            "players": [
                {"name": "Ana", "commanders": ["Thrasios", "Tymna"]},
                {"name": "Bo", "commanders": ["Atraxa"]},
                {"name": "Cy", "commanders": ["Edgar"]},
                {"name": "Di", "commanders": ["Krenko"]},
            ],
        },
    )
    page = new_phone(browser)
    sit(page, base, cmd["id"], "bo")
    page.locator('[data-player="bo"] [data-act="more"]').click()
    row = page.locator('[data-commander="ana-tymna"]')
    row.locator('[data-cmd="10"]').click()
    row.locator('[data-cmd="10"]').click()
    expect(row.locator(".cmd-total")).to_have_text("20")
    shot(page, "commander-damage")
    row.locator('[data-cmd="1"]').click()
    expect(page.locator("#toast")).to_contain_text("704.6c")
    page.locator('#sheet [data-close="sheet"]').click()
    expect(page.locator('[data-player="bo"] .status')).to_contain_text("commander damage")
    expect(life(page, "bo")).to_have_text("19")
    shot(page, "commander")
    page.context.close()


def sit_team(page: Page, base: str, table: str, player: str) -> None:
    page.goto(f"{base}/t/{table}")
    page.locator(f'#picker button[data-seat="{player}"]').click()
    expect(page.locator("#picker")).to_be_hidden()


def test_a_spectator_sees_but_cannot_act(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo <i>"[:2]}]})
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    watcher = new_phone(browser)
    watcher.goto(f"{base}/w/{table['watch']}")
    expect(life(watcher, "bo")).to_have_text("20")
    expect(watcher.locator('[data-player="bo"] [data-act="minus"]')).to_be_disabled()
    ana.locator('[data-player="bo"] [data-act="minus"]').click()
    expect(life(watcher, "bo")).to_have_text("19")
    ana.context.close()
    watcher.context.close()


def test_a_name_is_shown_as_text(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", {"players": [{"name": 'Ana & "Co"'}, {"name": "Bo's"}]})
    page = new_phone(browser)
    page.goto(f"{base}/t/{table['id']}")
    expect(page.locator("#picker")).to_contain_text('Ana & "Co"')
    page.locator("#picker button.watch").click()
    expect(page.locator('[data-player="bo-s"] .pname')).to_have_text("Bo's")
    page.context.close()


def test_a_record_replays_on_the_table_view(base: str, browser: Browser) -> None:
    page = replaying(browser, base, EXAMPLES / "13-pay-life-more-than-you-have.json")
    expect(page.locator("#rp-caption")).to_contain_text("119.4")
    shot(page, "replay")
    page.locator("#replay-file").set_input_files(str(EXAMPLES / "19-commander-damage.json"))
    expect(page.locator("#rp-pos")).to_have_text("0 / 2")
    page.locator("#rp-slider").fill("2")
    expect(page.locator('[data-player="bo"] .status')).to_contain_text("704.6c")
    page.context.close()


def test_ten_players_fit_a_phone_and_only_you_can_concede(base: str, browser: Browser) -> None:
    names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo"]
    table = post(base + "/api/tables", {"players": [{"name": n} for n in names]})
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    last = page.locator('.panel[data-player="jo"]')
    last.scroll_into_view_if_needed()
    for act in ("minus", "plus", "plus5", "more"):
        expect(last.locator(f'[data-act="{act}"]')).to_be_in_viewport()
    last.locator('[data-act="more"]').click()
    expect(page.locator('[data-sheet="concede"]')).to_have_count(0)
    expect(page.locator("#sheet-body")).to_contain_text("Only Jo can concede")
    page.locator('#sheet [data-close="sheet"]').click()
    page.locator('[data-player="ana"] [data-act="more"]').click()
    expect(page.locator('[data-sheet="concede"]')).to_have_count(1)
    page.context.close()

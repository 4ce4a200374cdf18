"""issue 8, "Commander damage and poison from the panel" (static/panel.js), in Debian's chromium
driven by Playwright against a real server: commander damage in one tap on the attacker's
commander (903.10a) with the per-commander total in view and 21 shown as the threshold
(704.6c), another amount by a long press, poison − and + (704.5c), counters of any kind pinned
to a panel (kept across a reload), a mistake taken back by undo and never by a negative amount,
Two-Headed Giant's commander damage per player (810.8a), and losses and the end of the game said
to screen readers (an aria-live region). Every new control has a name and is 44x44 CSS px."""

from __future__ import annotations

import re
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import Relay, box_of, get, life, new_phone, post, screenshot, sit  # noqa: E402
from playwright.sync_api import Browser, Locator, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser


COMMANDER_FOUR = {
    "variant": "free-for-all",
    "format": "commander",
    "players": [
        {"name": "Ana", "commanders": ["Thrasios", "Tymna"]},
        {"name": "Bo", "commanders": ["Atraxa, Praetors' Voice"]},
        {"name": "Cy", "commanders": ["Edgar"]},
        {"name": "Di", "commanders": ["Krenko"]},
    ],
}


def shot(page: Page, name: str) -> None:
    page.evaluate("() => document.getElementById('toast').classList.add('hidden')")
    screenshot(page, f"screens/panels-{name}.png", scale="css")


def history(base: str, table: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = get(f"{base}/api/tables/{table}/history")["entries"]
    return entries


def actions(base: str, table: str) -> list[dict[str, Any]]:
    """The table's recorded actions (not undos), in order."""
    return [e["action"] for e in history(base, table) if e["kind"] == "action"]


def state(base: str, table: str) -> dict[str, Any]:
    view: dict[str, Any] = get(f"{base}/api/tables/{table}")["state"]
    return view


def settled(page: Page) -> None:
    page.wait_for_function("() => lifeledger.S.pending.size === 0")


def long_press(page: Page, target: Locator) -> None:
    box = box_of(target)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.wait_for_timeout(800)
    page.mouse.up()


def big_and_named(page: Page, selector: str) -> int:
    """Every control matching ``selector`` is at least 44x44 CSS px and has a name for screen
    readers (its aria-label); returns how many were checked."""
    found = page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)].map((el) => {
             const r = el.getBoundingClientRect();
             return {w: r.width, h: r.height, label: el.getAttribute("aria-label") || "",
                     html: el.outerHTML.slice(0, 80)};
           })""",
        selector,
    )
    for el in found:
        assert el["w"] >= 44 and el["h"] >= 44, el
        assert el["label"].strip(), el
    return len(found)


def test_903_10a_one_tap_on_an_opposing_commander_records_its_combat_damage(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", COMMANDER_FOUR)
    page = new_phone(browser)
    sit(page, base, table["id"], "bo")
    bo = page.locator('[data-player="bo"]')
    # A row of the opposing commanders (partners apart), not Bo's own: name, owner, total, 21.
    chips = bo.locator(".parts .cmd")
    expect(chips).to_have_count(4)
    expect(bo.locator('[data-from="bo-atraxa-praetors-voice"]')).to_have_count(0)
    thrasios = bo.locator('[data-from="ana-thrasios"]')
    expect(thrasios.locator(".cmd-name")).to_have_text("Thrasios")
    expect(thrasios.locator(".cmd-owner")).to_have_text("Ana")
    expect(thrasios.locator(".cmd-total")).to_have_text("0")
    expect(thrasios.locator(".cmd-max")).to_have_text("/21")
    # A long name is cut at its comma on the chip, and said whole to screen readers.
    atraxa = page.locator('[data-player="ana"] [data-from="bo-atraxa-praetors-voice"]')
    expect(atraxa.locator(".cmd-name")).to_have_text("Atraxa")
    said = (
        "Atraxa, Praetors' Voice (Bo) deals 1 combat damage to Ana. Ana has taken 0 of 21"
        " combat damage from Atraxa, Praetors' Voice. Hold for another amount."
    )
    expect(atraxa).to_have_attribute("aria-label", said)

    # One tap: 1 combat damage from that commander (903.10a), which costs life too (120.3).
    thrasios.click()
    expect(thrasios.locator(".cmd-total")).to_have_text("1")
    expect(life(page, "bo")).to_have_text("39")
    settled(page)
    assert actions(base, table["id"]) == [
        {
            "do": "damage",
            "source": "ana-thrasios",
            "to": "bo",
            "amount": 1,
            "combat": True,
            "controller": "ana",  # 725.2, 726.2: combat damage names its controller
        }
    ]
    # Partners count apart (903.10a: "the same commander").
    expect(bo.locator('[data-from="ana-tymna"] .cmd-total')).to_have_text("0")

    # A long press opens the sheet for another amount, on the commander pressed.
    long_press(page, bo.locator('[data-from="cy-edgar"]'))
    sheet = page.locator("#cmd-sheet")
    expect(sheet).to_be_visible()
    expect(sheet.locator("#cmd-sheet-title")).to_have_text("Commander damage to Bo")
    expect(sheet.locator('[data-pick="cy-edgar"]')).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Escape")
    expect(sheet).to_be_hidden()
    long_press(page, bo.locator('[data-from="cy-edgar"]'))
    expect(sheet).to_be_visible()
    shot(page, "commander-amount")
    assert big_and_named(page, "#cmd-sheet [data-amount]:not([data-amount=typed])") == 10
    sheet.locator('[data-amount="7"]').click()
    expect(sheet).to_be_hidden()
    edgar = bo.locator('[data-from="cy-edgar"]')
    expect(edgar.locator(".cmd-total")).to_have_text("7")
    expect(life(page, "bo")).to_have_text("32")
    # ... and a typed amount; a bad one is named and sends nothing.
    long_press(page, edgar)
    sheet.locator("#cmd-amount").fill("-3")
    sheet.locator('[data-amount="typed"]').click()
    expect(page.locator("#toast")).to_contain_text("Amount")
    sheet.locator("#cmd-amount").fill("9")
    sheet.locator('[data-amount="typed"]').click()
    expect(edgar.locator(".cmd-total")).to_have_text("16")
    # Near 21 the chip is highlighted.
    expect(edgar).to_have_class("cmd near")
    settled(page)
    assert [a["amount"] for a in actions(base, table["id"])] == [1, 7, 9]

    # Every new control on the panels: a name for screen readers, 44x44 at least.
    assert big_and_named(page, ".panel .parts button") == (3 + 4 + 4 + 4) + 4 * 2
    shot(page, "commander-row")

    # A spectator sees the totals, with nothing to tap.
    watcher = new_phone(browser)
    watcher.goto(f"{base}/w/{table['watch']}")
    seen = watcher.locator('[data-player="bo"] [data-from="cy-edgar"]')
    expect(seen.locator(".cmd-total")).to_have_text("16")
    assert seen.evaluate("(el) => el.tagName") == "DIV"
    expect(watcher.locator(".panel .parts button")).to_have_count(0)
    watcher.context.close()
    page.context.close()


def test_704_6c_21_from_one_commander_loses_and_is_announced(base: str, browser: Browser) -> None:
    table = post(
        base + "/api/tables",
        {
            "variant": "two-player",
            "format": "commander",
            "players": [
                {"name": "Ana", "commanders": ["Thrasios"]},
                {"name": "Bo", "commanders": ["Atraxa"]},
            ],
        },
    )
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    region = page.locator("#announce")
    expect(region).to_have_attribute("aria-live", "assertive")
    chip = page.locator('[data-player="bo"] [data-from="ana-thrasios"]')
    long_press(page, chip)
    page.locator("#cmd-amount").fill("20")
    page.locator('#cmd-sheet [data-amount="typed"]').click()
    expect(chip.locator(".cmd-total")).to_have_text("20")
    expect(page.locator('[data-player="bo"] .status')).to_have_text("")
    chip.click()
    # 21 combat damage from the same commander: Bo loses (704.6c), shown on the panel, with
    # 19 life left; the chip shows the threshold reached.
    expect(page.locator('[data-player="bo"] .status')).to_contain_text("21 commander damage")
    expect(page.locator('[data-player="bo"] .status')).to_contain_text("704.6c")
    expect(life(page, "bo")).to_have_text("19")
    expect(chip.locator(".cmd-total")).to_have_text("21")
    expect(chip).to_have_class("cmd lethal")
    # Screen readers are told at once: the loss with its rule, and the end of the game.
    expect(region).to_have_text("Bo lost — 21 commander damage (704.6c). Game over: Ana won.")
    # The loss's toast shows it to the eye; screen readers hear it once, from the region.
    expect(page.locator("#toast")).to_have_attribute("aria-hidden", "")
    # An undo says nothing new to screen readers.
    page.locator("#undo-btn").click()
    expect(page.locator('[data-player="bo"] .status')).to_have_text("")
    expect(region).to_contain_text("Game over: Ana won.")
    page.context.close()


def test_903_12h_brawl_shows_commander_damage_without_a_threshold(
    base: str, browser: Browser
) -> None:
    table = post(
        base + "/api/tables",
        {
            "variant": "two-player",
            "format": "brawl",
            "players": [
                {"name": "Ana", "commanders": ["Thrasios"]},
                {"name": "Bo", "commanders": ["Atraxa"]},
            ],
        },
    )
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    chip = page.locator('[data-player="bo"] [data-from="ana-thrasios"]')
    chip.click()
    expect(chip.locator(".cmd-total")).to_have_text("1")
    expect(chip.locator(".cmd-max")).to_have_count(0)
    said = (
        "Thrasios (Ana) deals 1 combat damage to Bo. Bo has taken 1 combat damage from Thrasios."
        " Hold for another amount."
    )
    expect(chip).to_have_attribute("aria-label", said)
    long_press(page, chip)
    expect(page.locator("#cmd-sheet")).to_contain_text("903.12h")
    page.context.close()


def test_704_5c_poison_to_10_loses_and_minus_takes_a_mistake_back_by_undo(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    poison = page.locator('[data-player="bo"] .parts [data-counter="poison"]')
    plus, minus = poison.locator('[data-step="plus"]'), poison.locator('[data-step="minus"]')
    count = poison.locator(".ctr-n")
    expect(poison.locator(".ctr-max")).to_have_text("/10")
    expect(poison).to_have_attribute(
        "aria-label", "Bo: 0 poison counters; 10 lose the game (704.5c)"
    )
    # Nothing to remove at 0: − can't make a count negative.
    expect(minus).to_be_disabled()
    for n in (1, 2, 3):
        plus.click()
        expect(count).to_have_text(str(n))
    settled(page)
    # − right after your own +: the + was a mistake, and undo takes it back (the record keeps
    # no removal and no negative amount).
    expect(minus).to_have_attribute("aria-label", "Take back Bo's last poison counter (undo)")
    minus.click()
    expect(count).to_have_text("2")
    settled(page)
    entries = history(base, table["id"])
    assert entries[-1]["kind"] == "undo" and entries[-1]["target"] == entries[-2]["seq"]
    assert [a["do"] for a in actions(base, table["id"])] == ["add_counters"] * 3
    # Once something else happened, − records a real removal (an effect removes it, 122).
    page.locator('[data-player="ana"] [data-act="minus"]').click()
    expect(life(page, "ana")).to_have_text("19")
    settled(page)
    expect(minus).to_have_attribute("aria-label", "Bo loses 1 poison counter")
    minus.click()
    expect(count).to_have_text("1")
    settled(page)
    assert actions(base, table["id"])[-1] == {
        "do": "remove_counters", "player": "bo", "kind": "poison", "amount": 1
    }  # fmt: skip
    # Ten poison counters lose the game (704.5c), announced to screen readers.
    for n in range(2, 11):
        plus.click()
        expect(count).to_have_text(str(n))
    expect(page.locator('[data-player="bo"] .status')).to_contain_text("704.5c")
    expect(poison).to_have_class("ctr near")
    expect(page.locator("#announce")).to_contain_text("Bo lost — 10 poison counters (704.5c).")
    shot(page, "poison")
    settled(page)
    for a in actions(base, table["id"]):
        assert a.get("amount", 0) >= 0, a
    # The old "☠+" step and the poison badge are gone: the count lives on the panel's part.
    expect(page.locator(".badge.poison")).to_have_count(0)
    page.context.close()


def test_122_a_pinned_energy_counter_has_minus_and_plus_and_stays_after_a_reload(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    ana = page.locator('[data-player="ana"]')
    ana.locator('[data-act="more"]').click()
    # A kind the record doesn't allow is named, and nothing is pinned.
    page.locator("#sh-pin-kind").fill("Foo Bar")
    page.locator('[data-pin="typed"]').click()
    expect(page.locator("#toast")).to_contain_text("Counter kind")
    expect(page.locator("#toast")).to_contain_text("foo bar")
    page.locator('[data-pin="energy"]').click()
    expect(page.locator('[data-unpin="energy"]')).to_be_visible()
    page.locator('#sheet [data-close="sheet"]').click()
    energy = ana.locator('.parts [data-counter="energy"]')
    count = energy.locator(".ctr-n")
    expect(count).to_have_text("0")
    assert big_and_named(page, '[data-player="ana"] .parts [data-counter="energy"] button') == 2
    energy.locator('[data-step="plus"]').click()
    energy.locator('[data-step="plus"]').click()
    expect(count).to_have_text("2")
    # Another panel pins nothing: Bo's energy shows as a badge there.
    expect(page.locator('[data-player="bo"] [data-counter="energy"]')).to_have_count(0)
    expect(ana.locator(".badges")).not_to_contain_text("energy")
    settled(page)
    shot(page, "pinned")

    page.reload()
    energy = page.locator('[data-player="ana"] .parts [data-counter="energy"]')
    expect(energy.locator(".ctr-n")).to_have_text("2")
    assert page.evaluate("() => localStorage.getItem('lifeledger-pins-' + lifeledger.KEY)") == (
        '{"ana":["energy"]}'
    )
    # After the reload, − still takes back this phone's own last + (undo) ...
    energy.locator('[data-step="minus"]').click()
    expect(energy.locator(".ctr-n")).to_have_text("1")
    settled(page)
    assert history(base, table["id"])[-1]["kind"] == "undo"
    # ... and after another action it removes one (remove_counters); at 0 it can't.
    page.locator('[data-player="bo"] [data-act="minus"]').click()
    expect(life(page, "bo")).to_have_text("19")
    settled(page)
    energy.locator('[data-step="minus"]').click()
    expect(energy.locator(".ctr-n")).to_have_text("0")
    expect(energy.locator('[data-step="minus"]')).to_be_disabled()
    settled(page)
    assert actions(base, table["id"])[-1] == {
        "do": "remove_counters", "player": "ana", "kind": "energy", "amount": 1
    }  # fmt: skip
    # Unpinned, a count shows as a badge again.
    energy.locator('[data-step="plus"]').click()
    expect(energy.locator(".ctr-n")).to_have_text("1")
    page.locator('[data-player="ana"] [data-act="more"]').click()
    page.locator('[data-unpin="energy"]').click()
    page.locator('#sheet [data-close="sheet"]').click()
    expect(page.locator('[data-player="ana"] [data-counter="energy"]')).to_have_count(0)
    expect(page.locator('[data-player="ana"] .badges')).to_contain_text("energy 1")
    page.context.close()


def test_810_8a_two_headed_giant_commander_damage_is_per_player(
    base: str, browser: Browser
) -> None:
    """Two-Headed Giant with commanders (a house variant: its starting life is given) counts
    combat damage from a commander per player (704.6c, 903.10a) while the life it costs is the
    team's (810.9a); one head at 21 loses the whole team (810.8a). The team's panel has a row
    per head; its poison is the team's, 15 to lose (704.6b)."""
    table = post(
        base + "/api/tables",
        {
            "variant": "two-headed-giant",
            "format": "commander",
            "starting_life": 60,
            "players": [
                {"name": "Ana", "team": "North", "commanders": ["Thrasios"]},
                {"name": "Bo", "team": "North", "commanders": ["Atraxa"]},
                {"name": "Cy", "team": "South", "commanders": ["Edgar"]},
                {"name": "Di", "team": "South", "commanders": ["Krenko"]},
            ],
        },
    )
    page = new_phone(browser)
    page.goto(f"{base}/t/{table['id']}")
    page.locator('#picker button[data-seat="ana"]').click()
    expect(page.locator("#picker")).to_be_hidden()
    south = page.locator('[data-team="south"]')
    # A row for each head, each with the opposing team's commanders (not the teammate's).
    expect(south.locator("[data-cmd-to]")).to_have_count(2)
    cy_row, di_row = south.locator('[data-cmd-to="cy"]'), south.locator('[data-cmd-to="di"]')
    expect(cy_row.locator(".cmd")).to_have_count(2)
    expect(cy_row.locator('[data-from="di-krenko"]')).to_have_count(0)
    expect(cy_row.locator(".cmd-who")).to_have_text("Cy")
    di_row.locator('[data-from="ana-thrasios"]').click()
    expect(di_row.locator('[data-from="ana-thrasios"] .cmd-total')).to_have_text("1")
    expect(cy_row.locator('[data-from="ana-thrasios"] .cmd-total')).to_have_text("0")
    expect(south.locator(".life")).to_have_text("59")
    # 20 to each head is no loss: the count is each player's, not the team's.
    settled(page)
    for row, amount in ((cy_row, "20"), (di_row, "19")):
        long_press(page, row.locator('[data-from="ana-thrasios"]'))
        page.locator("#cmd-amount").fill(amount)
        page.locator('#cmd-sheet [data-amount="typed"]').click()
        expect(row.locator('[data-from="ana-thrasios"] .cmd-total')).to_have_text("20")
    expect(south.locator(".status")).to_have_text("")
    expect(south.locator(".life")).to_have_text("20")
    # The team's poison: shared, 15 to lose.
    expect(south.locator('[data-counter="poison"] .ctr-max')).to_have_text("/15")
    shot(page, "two-headed-giant")
    # The 21st point to one head: the team loses (704.6c, 810.8a).
    di_row.locator('[data-from="ana-thrasios"]').click()
    expect(south.locator(".status")).to_contain_text("704.6c")
    expect(page.locator("#announce")).to_contain_text("South lost — 21 commander damage (704.6c).")
    players = {p["id"]: p for p in state(base, table["id"])["players"]}
    assert players["di"]["commander_damage"] == {"ana-thrasios": 21}
    assert players["cy"]["commander_damage"] == {"ana-thrasios": 20}
    assert players["cy"]["status"] == "lost" and players["cy"]["rule"] == "810.8a"
    page.context.close()


def test_904_13c_archenemy_commander_heroes_share_life_not_poison(
    base: str, browser: Browser
) -> None:
    """Archenemy Commander: the heroes share a life total (904.13b) but not poison counters
    (904.13c), and the engine's state names their team where the header doesn't. Their panel
    has a row per hero, with the archenemy's commander only; poison is the selected hero's."""
    table = post(
        base + "/api/tables",
        {
            "variant": "archenemy",
            "format": "commander",
            "players": [
                {"name": "Ana", "commanders": ["Thrasios"], "archenemy": True},
                {"name": "Bo", "commanders": ["Atraxa"]},
                {"name": "Cy", "commanders": ["Edgar"]},
            ],
        },
    )
    page = new_phone(browser)
    page.goto(f"{base}/t/{table['id']}")
    page.locator('#picker button[data-seat="ana"]').click()
    expect(page.locator("#picker")).to_be_hidden()
    heroes = page.locator('[data-team="heroes"]')
    for head in ("bo", "cy"):
        expect(heroes.locator(f'[data-cmd-to="{head}"] .cmd')).to_have_count(1)
        expect(heroes.locator(f'[data-cmd-to="{head}"] [data-from="ana-thrasios"]')).to_be_visible()
    poison = heroes.locator('[data-counter="poison"]')
    expect(poison.locator(".ctr-max")).to_have_text("/10")
    poison.locator('[data-step="plus"]').click()
    expect(poison.locator(".ctr-n")).to_have_text("1")
    heroes.locator('[data-head="cy"]').click()
    expect(heroes.locator('[data-counter="poison"] .ctr-n')).to_have_text("0")
    page.context.close()


def test_903_10a_a_commander_tap_shows_at_once_pending_until_the_server_answers(
    base: str, browser: Browser
) -> None:
    """The chip's total and the player's life move at the tap (plain combat damage: as much
    life lost, 120.3a), marked pending, before the server's answer; the answer confirms them."""
    table = post(base + "/api/tables", COMMANDER_FOUR)
    page = new_phone(browser)
    relay = Relay(page)
    sit(page, base, table["id"], "bo")
    thrasios = page.locator('[data-player="bo"] [data-from="ana-thrasios"]')
    relay.hold_down = True
    thrasios.click()
    thrasios.click()
    expect(thrasios.locator(".cmd-total")).to_have_text("2")
    expect(life(page, "bo")).to_have_text("38")
    expect(life(page, "bo")).to_have_class(re.compile(r"\bpending\b"))
    relay.release()
    settled(page)
    expect(life(page, "bo")).not_to_have_class(re.compile(r"\bpending\b"))
    expect(thrasios.locator(".cmd-total")).to_have_text("2")
    assert state(base, table["id"])["players"][1]["commander_damage"] == {"ana-thrasios": 2}

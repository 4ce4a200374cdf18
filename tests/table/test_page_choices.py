"""Issue 11, "at the table": the catalogue's triggers resolved with the choices asked of the
right phone (603.3b, 603.3d), and a loop shown as the draw it is (104.4b). In Debian's
chromium, driven by Playwright, against a real server (fixtures ``base`` and ``browser`` in
conftest.py), with a page per player's phone."""

from __future__ import annotations

from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import get, life, new_phone, post, screenshot, sit, table_device  # noqa: E402
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from table_helpers import THG  # noqa: E402

pytestmark = pytest.mark.browser

THREE = {"players": [{"name": n} for n in ("Ana", "Bo", "Cy")]}
TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}


def enters(page: Page, player: str, name: str) -> None:
    """A catalogue card enters under ``player``'s control, from their panel's sheet."""
    page.locator(f'[data-player="{player}"] [data-act="more"]').click()
    page.locator("#sh-card").select_option(name)
    page.locator('[data-sheet="card"]').click()
    expect(page.locator(f'[data-player="{player}"] .badge.card', has_text=name)).to_be_visible()
    page.locator('#sheet [data-close="sheet"]').click()


def lives(base: str, table: str) -> dict[str, Any]:
    return {p["id"]: p["life"] for p in get(f"{base}/api/tables/{table}")["state"]["players"]}


def test_603_3d_the_controllers_phone_is_asked_the_target_and_a_waiting_tap_lands(
    base: str, browser: Browser
) -> None:
    """Three players, Ana's Sanguine Bond: Ana's phone asks which opponent loses life when she
    gains it (603.3d); Bo's phone says it waits for Ana. Cy taps +1 on Ana's panel before Ana
    chose: the server answers choice-needed, and Cy's phone keeps the tap (Ana shows 21,
    waiting for Ana's choice) rather than rolling it back. Ana taps Bo: the choice lands, Cy's
    tap is sent again with its id and applied once (Ana 21, Bo 19), and Ana's badge says
    "Sanguine Bond → Bo"."""
    table = post(base + "/api/tables", THREE)["id"]
    ana, bo, cy = new_phone(browser), new_phone(browser), new_phone(browser)
    for page, seat in ((ana, "ana"), (bo, "bo"), (cy, "cy")):
        sit(page, base, table, seat)
    enters(ana, "ana", "Sanguine Bond")
    ask = ana.locator('#choices .choice-ask[data-choice="targets"]')
    expect(ask).to_contain_text(
        "Sanguine Bond (Ana's): when Ana gains life, which opponent loses that much?"
    )
    expect(ask).to_contain_text("(603.3d)")
    expect(ask.locator("button[data-target]")).to_have_text(["Bo", "Cy"])
    for other in (bo, cy):
        expect(other.locator("#choices .choice-ask")).to_have_count(0)
        expect(other.locator("#choices .choice-wait")).to_have_text(
            "Waiting for Ana to choose the target of Sanguine Bond (603.3d)"
        )
    cy.locator('[data-player="ana"] [data-act="plus"]').click()
    expect(cy.locator("#netstate")).to_contain_text("1 change waiting for Ana's choice")
    expect(life(cy, "ana")).to_have_text("21")
    expect(cy.locator('[data-player="ana"] .tag.waiting')).to_be_visible()
    assert cy.evaluate("lifeledger.S.pending.size") == 1
    assert lives(base, table) == {"ana": 20, "bo": 20, "cy": 20}
    screenshot(ana, "screens/choices-target.png")
    ask.locator('button[data-target="bo"]').click()
    expect(ana.locator("#choices")).to_be_hidden()
    expect(bo.locator("#choices")).to_be_hidden()
    cy.wait_for_function("() => lifeledger.S.pending.size === 0")
    for page in (ana, bo, cy):
        expect(life(page, "ana")).to_have_text("21")
        expect(life(page, "bo")).to_have_text("19")
    assert lives(base, table) == {"ana": 21, "bo": 19, "cy": 20}
    expect(cy.locator("#netstate")).to_be_hidden()
    badge = ana.locator('[data-player="ana"] .badge.card.target')
    expect(badge).to_have_text("Sanguine Bond → Bo")
    expect(bo.locator('[data-player="ana"] .badge.card')).to_have_text("Sanguine Bond → Bo")
    expect(bo.locator('[data-player="ana"] .badge.card.target')).to_have_count(0)
    # Its controller taps the badge to choose again: Cy from now on.
    badge.click()
    ana.locator('#choices button[data-target="cy"]').click()
    expect(bo.locator('[data-player="ana"] .badge.card')).to_have_text("Sanguine Bond → Cy")
    for page in (ana, bo, cy):
        page.context.close()


def test_104_4b_bond_and_blood_against_platinum_angel_is_shown_as_a_draw(
    base: str, browser: Browser
) -> None:
    """Ana's Sanguine Bond and Exquisite Blood: Ana's phone asks their order (603.3b); Bo's
    Platinum Angel. Ana gains 1 life: the triggers loop with no way to stop and Bo can't lose,
    a loop of mandatory actions: the game is a draw (104.4b). Both phones say so with the
    rule, and the history shows the stack: what triggered, went on the stack and resolved,
    and the loop."""
    table = post(base + "/api/tables", TWO)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    enters(ana, "ana", "Sanguine Bond")
    expect(ana.locator("#choices")).to_be_hidden()  # one opponent: the only legal target
    enters(ana, "ana", "Exquisite Blood")
    ask = ana.locator('#choices .choice-ask[data-choice="order"]')
    expect(ask).to_contain_text(
        "Ana's triggered abilities at once: tap them in the order they go on the stack — "
        "the last resolves first (603.3b)"
    )
    expect(bo.locator("#choices .choice-wait")).to_contain_text(
        "Waiting for Ana to choose the order of Sanguine Bond and Exquisite Blood (603.3b)"
    )
    ask.locator("button[data-order]", has_text="Sanguine Bond").click()
    expect(ana.locator("#choices")).to_be_hidden()
    expect(bo.locator("#choices")).to_be_hidden()
    enters(bo, "bo", "Platinum Angel")
    ana.locator('[data-player="ana"] [data-act="plus"]').click()
    for page in (ana, bo):
        expect(page.locator("#banner .over-text")).to_have_text(
            "Game over — a draw: a loop of mandatory actions (104.4b)"
        )
        expect(page.locator('[data-player="bo"] .status')).to_have_text(
            "DREW — a loop of mandatory actions (104.4b)"
        )
    screenshot(ana, "screens/choices-loop-draw.png")
    ana.locator("#history-btn").click()
    history = ana.locator("#history-list")
    for line in (
        "Sanguine Bond triggers: Ana gains 1 life (603.2)",
        "Sanguine Bond (Ana's, 1) targeting Bo is put on the stack (603.3b)",
        "Sanguine Bond (Ana's, 1) targeting Bo resolves: Bo loses 1 life (608.2)",
        "Exquisite Blood (Ana's, 1) resolves: Ana gains 1 life (608.2)",
        "the triggered abilities of Sanguine Bond repeat with no way to stop and no player "
        "able to lose by them: a loop of mandatory actions (732.4)",
    ):
        expect(history).to_contain_text(line)
    expect(history).to_contain_text("Bo drew — a loop of mandatory actions (104.4b)")
    for page in (ana, bo):
        page.context.close()


def test_603_3d_the_table_device_holding_the_seat_is_asked_and_answers_as_it(
    base: str, browser: Browser
) -> None:
    """One device for everyone (table mode) holds every seat: it is the device the controller
    chooses on (603.3d). The prompt is shown there, and the choice is sent as that seat."""
    page, table = table_device(browser, base)
    first, *others = page.evaluate("lifeledger.header().players.map((p) => p.id)")
    page.evaluate(
        "(p) => lifeledger.act({do: 'card', id: 'vito',"
        " name: 'Vito, Thorn of the Dusk Rose', controller: p})",
        first,
    )
    ask = page.locator(f'#choices .choice-ask[data-player="{first}"]')
    expect(ask.locator("button[data-target]")).to_have_count(3)
    ask.locator(f'button[data-target="{others[1]}"]').click()
    expect(page.locator("#choices")).to_be_hidden()
    view = get(f"{base}/api/tables/{table}")
    assert view["choices"]["targets"]["vito"]["target"] == others[1]
    entries = get(f"{base}/api/tables/{table}")["entries"]
    assert entries[-1]["action"]["do"] == "choose" and entries[-1]["seat"] == first
    page.context.close()


def test_a_card_is_named_from_the_effects_when_its_entry_is_not_held(
    base: str, browser: Browser
) -> None:
    """A phone holds the newest 200 timeline entries: a card that entered before them is named
    by the effects the server sends (each names its card), so its badge says "Sanguine Bond"
    rather than the card's id."""
    table = post(base + "/api/tables", TWO)["id"]
    ana = new_phone(browser)
    sit(ana, base, table, "ana")
    ana.evaluate(
        """() => { lifeledger.takeEffects([{ id: "bond-x1", kind: "gain_drains_target",
                   controller: "ana", card: "Sanguine Bond" }]); lifeledger.render(); }"""
    )
    assert ana.evaluate("lifeledger.S.names.of('bond-x1')") == "Sanguine Bond"
    expect(ana.locator('[data-player="ana"] .badge.card')).to_contain_text("Sanguine Bond")
    ana.context.close()


def test_603_3d_a_change_waiting_for_a_choice_can_be_taken_back(
    base: str, browser: Browser
) -> None:
    """Ana may never choose Sanguine Bond's target (603.3d): Cy's tap waiting for it is not
    stuck. "Cancel" takes it back on Cy's phone (Ana's total shows 20 again, nothing is kept
    to send), and Ana's choice later applies nothing of it."""
    table = post(base + "/api/tables", THREE)["id"]
    ana, cy = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(cy, base, table, "cy")
    enters(ana, "ana", "Sanguine Bond")
    cy.locator('[data-player="ana"] [data-act="plus"]').click()
    expect(cy.locator("#netstate")).to_contain_text("1 change waiting for Ana's choice")
    expect(life(cy, "ana")).to_have_text("21")
    cy.locator('#netstate [data-act="cancel-waits"]').click()
    expect(cy.locator("#netstate")).to_be_hidden()
    expect(life(cy, "ana")).to_have_text("20")
    assert cy.evaluate("lifeledger.S.pending.size") == 0
    ana.locator('#choices button[data-target="bo"]').click()
    expect(ana.locator("#choices")).to_be_hidden()
    cy.wait_for_timeout(500)
    assert lives(base, table) == {"ana": 20, "bo": 20, "cy": 20}
    for page in (ana, cy):
        page.context.close()


def test_616_1_the_player_gaining_life_orders_the_remedy_and_the_doubler(
    base: str, browser: Browser
) -> None:
    """Ana's Rhox Faithmender and Bo's Tainted Remedy: when Ana gains life both apply, and the
    order is Ana's, the affected player's (616.1), though the Remedy is Bo's. Ana's phone asks
    it; Bo's says it waits. Bo's +1 on Ana waits too; Ana taps the doubler first, and Bo's tap
    lands as a loss of 2 (the 1 doubled, then turned into a loss)."""
    table = post(base + "/api/tables", TWO)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    sit(ana, base, table, "ana")
    sit(bo, base, table, "bo")
    enters(ana, "ana", "Rhox Faithmender")
    enters(bo, "bo", "Tainted Remedy")
    ask = ana.locator('#choices .choice-ask[data-choice="replacements"]')
    expect(ask).to_contain_text(
        "When Ana gains life, Tainted Remedy and Rhox Faithmender all apply: tap them in the "
        "order they apply"
    )
    expect(ask).to_contain_text("(616.1)")
    expect(bo.locator("#choices .choice-ask")).to_have_count(0)
    expect(bo.locator("#choices .choice-wait")).to_have_text(
        "Waiting for Ana to choose the order in which Tainted Remedy and Rhox Faithmender "
        "apply to Ana's gains of life (616.1)"
    )
    bo.locator('[data-player="ana"] [data-act="plus"]').click()
    expect(bo.locator("#netstate")).to_contain_text("1 change waiting for Ana's choice")
    screenshot(ana, "screens/choices-replacements.png")
    remedy, rhox = get(f"{base}/api/tables/{table}")["choices"]["open"][0]["ids"]
    ask.locator(f'button[data-order="{rhox}"]').click()
    expect(ana.locator("#choices")).to_be_hidden()
    bo.wait_for_function("() => lifeledger.S.pending.size === 0")
    for page in (ana, bo):
        expect(life(page, "ana")).to_have_text("18")
    assert lives(base, table) == {"ana": 18, "bo": 20}
    entries = get(f"{base}/api/tables/{table}")["entries"]
    chosen = [e["action"] for e in entries if e["action"]["do"] == "choose"]
    assert chosen == [{"do": "choose", "player": "ana", "replacements": [rhox, remedy]}]
    for page in (ana, bo):
        page.context.close()


def test_616_1_the_first_head_picks_which_lichs_mirror_replaces_the_teams_loss(
    base: str, browser: Browser
) -> None:
    """Two-Headed Giant, a Lich's Mirror on each head of North: which one replaces the team's
    loss (614.1a, 810.8a) is asked on Ana's phone, the first seated head (616.1), each Mirror
    named with its controller; one tap answers it (only the first listed applies). Bo's phone
    says it waits."""
    table = post(base + "/api/tables", THG)["id"]
    ana, bo = new_phone(browser), new_phone(browser)
    for page, who in ((ana, "ana"), (bo, "bo")):
        page.goto(f"{base}/t/{table}")  # a team's panel: sit() looks for a player's
        page.locator(f'#picker button[data-seat="{who}"]').click()
        expect(page.locator("#picker")).to_be_hidden()
        page.evaluate(
            "(p) => lifeledger.act({do: 'card', id: p + '-m', name: \"Lich's Mirror\", "
            "controller: p})",
            who,
        )
    ask = ana.locator('#choices .choice-ask[data-choice="replacements"]')
    expect(ask).to_contain_text(
        "If North would lose the game, Lich's Mirror and Lich's Mirror could each replace it: "
        "tap the one that does (616.1)"
    )
    expect(ask.locator("button[data-order]")).to_have_text(
        ["Lich's Mirror (Ana's)", "Lich's Mirror (Bo's)"]
    )
    expect(bo.locator("#choices .choice-wait")).to_have_text(
        "Waiting for Ana to choose which of Lich's Mirror and Lich's Mirror replaces a loss of "
        "the game (616.1)"
    )
    screenshot(ana, "screens/choices-mirrors.png")
    ask.locator('button[data-order="bo-m"]').click()
    expect(ana.locator("#choices")).to_be_hidden()
    expect(bo.locator("#choices")).to_be_hidden()
    entries = get(f"{base}/api/tables/{table}")["entries"]
    assert entries[-1]["action"] == {
        "do": "choose",
        "player": "ana",
        "replacements": ["bo-m", "ana-m"],
    }
    for page in (ana, bo):
        page.context.close()

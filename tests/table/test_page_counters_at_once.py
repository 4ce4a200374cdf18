"""Issue 17 item 15: a poison (or pinned counter) tap shows at once, as life and commander
damage do, underlined as pending until the server's answer; a Two-Headed Giant team's shared
poison moves at once from a head's tap. In Debian's chromium, driven by Playwright, against a
real server; the socket is relayed so that the test can hold the server's answers."""

from __future__ import annotations

import re
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import Relay, eventually, get, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402
from table_helpers import THG, TWO  # noqa: E402

pytestmark = pytest.mark.browser

PENDING = re.compile(r"\bpending\b")

# Tap + and read the count in the next frame: what the player sees before any answer.
TAP_AND_READ = """async ([unit, step]) => {
  const group = document.querySelector(`[data-unit="${unit}"] [data-counter="poison"]`);
  const t0 = performance.now();
  group.querySelector(step === "plus" ? ".ctr-plus" : ".ctr-minus").click();
  await new Promise((r) => requestAnimationFrame(() => r()));
  const n = document.querySelector(`[data-unit="${unit}"] [data-counter="poison"] .ctr-n`);
  return {text: n.textContent, ms: performance.now() - t0};
}"""


def poison_of(page: Any, unit: str) -> Any:
    return page.locator(f'[data-unit="{unit}"] [data-counter="poison"] .ctr-n')


def server_poison(base: str, table: str, player: str) -> Any:
    state = get(f"{base}/api/tables/{table}")["state"]
    return next(p["poison"] for p in state["players"] if p["id"] == player)


def test_a_poison_tap_shows_at_once_and_is_pending_until_the_answer(
    base: str, browser: Browser
) -> None:
    table = post(base + "/api/tables", TWO)["id"]
    page = new_phone(browser)
    relay = Relay(page)
    sit(page, base, table, "ana")
    relay.hold_down = True  # the server's answers wait: a slow round trip, made endless
    seen = page.evaluate(TAP_AND_READ, ["bo", "plus"])
    assert seen["text"] == "1", seen  # before: "0" until the answer came
    print(f"poison + shown after {seen['ms']:.1f} ms, answers held")
    expect(poison_of(page, "bo")).to_have_class(PENDING)
    seen = page.evaluate(TAP_AND_READ, ["bo", "plus"])
    assert seen["text"] == "2", seen
    page.wait_for_function("() => [...lifeledger.S.pending.values()].every((m) => !m.held)")
    # The server has them (once it has read the socket); the page hasn't heard.
    eventually(lambda: server_poison(base, table, "bo"), 2)
    expect(poison_of(page, "bo")).to_have_class(PENDING)
    relay.release()
    expect(poison_of(page, "bo")).not_to_have_class(PENDING)
    expect(poison_of(page, "bo")).to_have_text("2")
    # A removal (not the undo of this page's own +: another phone's + came last) at once too.
    other = new_phone(browser)
    sit(other, base, table, "bo")
    other.evaluate(
        "() => lifeledger.act({do: 'add_counters', player: 'bo', kind: 'poison', amount: 1})"
    )
    expect(poison_of(page, "bo")).to_have_text("3")
    relay.hold_down = True
    seen = page.evaluate(TAP_AND_READ, ["bo", "minus"])
    assert seen["text"] == "2", seen
    expect(poison_of(page, "bo")).to_have_class(PENDING)
    relay.release()
    expect(poison_of(page, "bo")).not_to_have_class(PENDING)
    eventually(lambda: server_poison(base, table, "bo"), 2)
    page.context.close()
    other.context.close()


def test_a_heads_poison_tap_moves_the_teams_count_at_once(base: str, browser: Browser) -> None:
    """810.10: a Two-Headed Giant team shares its poison; a head's + moves the team's count."""
    table = post(base + "/api/tables", THG)["id"]
    page = new_phone(browser)
    relay = Relay(page)
    page.goto(f"{base}/t/{table}")
    page.locator('#picker button[data-seat="ana"]').click()
    expect(page.locator('[data-team="north"] .tag.you')).to_be_visible()
    relay.hold_down = True
    seen = page.evaluate(TAP_AND_READ, ["south", "plus"])
    assert seen["text"] == "1", seen
    relay.release()
    expect(poison_of(page, "south")).not_to_have_class(PENDING)
    expect(poison_of(page, "south")).to_have_text("1")
    page.context.close()

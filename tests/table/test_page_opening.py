"""issue 27, item 5: a tap made while a device table's page is still opening is painted at
once, never waiting on the engine. The page is drawn at once from the copy it kept, and the
engine's answers (its welcome, then the taps made meanwhile, decided in order) are drawn once
a frame: an answer's own task draws nothing, and answers that come together are one render
(one layout of the panels), so a tap is never behind a render of each. The rule named: 119.3
(a player loses life)."""

from __future__ import annotations

from pathlib import Path

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    decided,
    engine_ready,
    kept_as_shown,
    life,
    need_chromium,
    new_device_table,
    server,
    tap_minus,
)
from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

pytestmark = pytest.mark.browser

#: In one task, as the engine's answers come together: its welcome (asked for again, since 0)
#: given twice to the page's socket, a total's digits spoiled before each (a render writes them
#: again). What the task drew (the digits as left after each) and how many frames it asked for;
#: then whether the next frame drew it.
TWICE = """async () => {
  const L = window.lifeledger;
  const hello = { type: "hello", token: L.S.token, since: 0 };
  if (L.S.device === "table") { hello.tokens = Object.values(L.S.tokens); hello.device = "table"; }
  const out = L.parseJSON(await L.Engine.call("message", L.KEY, L.toJSON(hello)));
  const welcome = out.send.find((m) => L.parseJSON(m).type === "welcome");
  const total = document.querySelector("#panels .panel .life");
  const raf = window.requestAnimationFrame;
  let asked = 0;
  window.requestAnimationFrame = (fn) => { asked += 1; return raf.call(window, fn); };
  const texts = [];
  try {
    for (let i = 0; i < 2; i++) {
      total.textContent = "x";
      L.S.ws.emit("message", { data: welcome });
      texts.push(total.textContent);
    }
  } finally {
    window.requestAnimationFrame = raf;
  }
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return { texts, asked, drawn: total.textContent !== "x", connected: L.S.connected };
}"""


def opened_again(page: Page) -> None:
    """The device table's page reloaded, drawn from its kept copy, the engine not yet ready."""
    kept_as_shown(page)
    page.reload()
    page.wait_for_function("() => !!lifeledger.S.state")


def test_a_device_table_opened_again_is_drawn_at_once_and_its_answers_once_a_frame(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """A reload: the panels come at once from the kept copy; a tap made before the engine is
    ready shows at once and is decided (119.3); the engine's answers that come together are
    drawn once, after their task (the turn bar, with the welcome)."""
    need_chromium()
    with sync_playwright() as p, server(tmp_path / "t.db") as (base, _proc):
        context, page = new_device_table(p, tmp_path, base, kept_start)
        expect(page.locator("#turn-bar")).to_be_visible()
        tap_minus(page, "player-1", "19")
        decided(page)
        opened_again(page)
        first = page.evaluate(
            """() => ({ connected: lifeledger.S.connected,
                placed: document.getElementById("panels").classList.contains("placed") })"""
        )
        assert first == {"connected": False, "placed": True}  # the engine is still starting
        tap_minus(page, "player-1", "18")
        decided(page)
        expect(life(page, "player-1")).to_have_text("18")
        assert page.evaluate("lifeledger.S.state.players[0].life") == 18
        expect(page.locator('#turn-bar [data-first="player-1"]')).to_be_visible()
        drawn = page.evaluate(TWICE)
        assert drawn == {"texts": ["x", "x"], "asked": 1, "drawn": True, "connected": True}
        expect(life(page, "player-1")).to_have_text("18")
        context.close()


#: The panels' boxes, the turn bar's and the engine's line's as the page shows them.
BOXES = """() => ({
  connected: lifeledger.S.connected,
  panels: [...document.querySelectorAll("#panels .panel")].map((el) => {
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height].map(Math.round);
  }),
  bar: !document.getElementById("turn-bar").classList.contains("hidden"),
  line: (() => {
    const el = document.getElementById("netstate");
    const cs = getComputedStyle(el);
    if (el.classList.contains("hidden")) return null;
    return { text: el.textContent, position: cs.position, pointer: cs.pointerEvents };
  })(),
})"""


def test_the_engines_welcome_moves_no_panel_of_a_table_opened_again(
    tmp_path: Path, kept_start: dict[str, str]
) -> None:
    """A reload: the table is drawn from its kept copy with its turn bar, and the engine's line
    floats over the panels, letting taps through; when the engine is ready (its welcome) the
    line goes and no panel moves or changes size: a tap aimed at a total then lands where it
    was aimed (119.3, a player loses life, as it was aimed)."""
    need_chromium()
    with sync_playwright() as p, server(tmp_path / "t.db") as (base, _proc):
        context, page = new_device_table(p, tmp_path, base, kept_start)
        opened_again(page)
        before = page.evaluate(BOXES)
        assert before["connected"] is False  # the engine is still starting
        assert before["bar"] is True
        assert before["line"] == {
            "text": "Starting the rules engine…",
            "position": "fixed",
            "pointer": "none",
        }
        engine_ready(page)
        page.wait_for_function(
            "() => document.getElementById('netstate').classList.contains('hidden')"
        )
        after = page.evaluate(BOXES)
        assert after["line"] is None and after["bar"] is True
        assert after["panels"] == before["panels"]
        tap_minus(page, "player-1", "19")
        decided(page)
        context.close()

"""Issue 25 items 7, 8 and 13, in a real browser (the table device of a Commander table on the
phones of the issue's audit, 375x667 and 360x640):

- item 7: the top bar cuts no label (every label of it: scrollWidth <= clientWidth, and its
  wrapped words within their box), what Undo takes back read whole, in English and in
  Italian, and the bar takes less than the 95 px it took of a 667 px phone;
- item 8: a toast never lies over a control waiting for its confirming tap (the concession's
  "Tap again: Di concedes…"): it waits until the confirm is answered or gone, and one showing
  when such a control appears under it steps aside; the running bubble ("−1") lies beside the
  total's digits, not over them, on an upright panel and a turned one;
- item 13: the same player count sits the same way on both phones (eight players around the
  edges of each, facing their seats), the totals within 15% of each other."""

from __future__ import annotations

from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser, Page, expect  # noqa: E402
from test_page_grid import commander  # noqa: E402
from test_page_layouts import open_page, settle  # noqa: E402

pytestmark = pytest.mark.browser

PHONES = {"375x667": (375, 667), "360x640": (360, 640)}

# Every label of the top bar (the header and the turn bar) that is cut: wider than its box,
# or its wrapped words taller than a box that hides what overflows (a button's words showing
# out of it count as cut too).
CUT_LABELS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('#bar *, #turn-bar *')) {
    if (!el.getClientRects().length || !el.textContent.trim()) continue;
    const st = getComputedStyle(el);
    const clips = st.overflowX !== 'visible' || st.overflowY !== 'visible'
      || el.tagName === 'BUTTON';
    const label = `${el.id || el.className || el.tagName} "${el.textContent.trim().slice(0, 40)}"`;
    const [sw, cw, sh, ch] = [el.scrollWidth, el.clientWidth, el.scrollHeight, el.clientHeight];
    if (sw > cw + 1) out.push(`${label}: ${sw} px in ${cw}`);
    else if (clips && sh > ch + 1) out.push(`${label}: ${sh} px high in ${ch}`);
  }
  return out;
}"""
BAR_HEIGHT = "() => Math.round(document.getElementById('panels').getBoundingClientRect().top)"


def table_page(browser: Browser, base: str, count: int, lang: str, monkeypatch: Any) -> Page:
    import test_page_layouts

    monkeypatch.setattr(test_page_layouts, "form", lambda n: commander(n))
    return open_page(browser, base, "table", count, lang)


def ids(page: Page) -> list[str]:
    found: list[str] = page.evaluate("lifeledger.header().players.map((p) => p.id)")
    return found


def tap_minus(page: Page, pid: str) -> None:
    page.locator(f'#panels [data-unit="{pid}"] [data-act="minus"]').click()


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_top_bar_cuts_no_label_and_takes_less_room(
    base: str, browser: Browser, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 7: "↶…" with 70 px of text in a 43 px button, the table's code cut to
    "DM9…", "Who plays first? No one…", and ~95 px of a 667 px phone."""
    page = table_page(browser, base, 4, lang, monkeypatch)
    first = ids(page)[0]
    tap_minus(page, first)
    page.wait_for_function(
        "() => lifeledger.S.pending.size === 0 && !lifeledger.TAPS.run && lifeledger.S.canUndo"
    )
    text = page.locator("#undo-btn").text_content() or ""
    assert ":" in text, text  # it names what it takes back ("↶ Undo: Ana −1")
    problems = []
    for name, (width, height) in {**PHONES, "667x375": (667, 375), "640x360": (640, 360)}.items():
        settle(page, width, height)
        problems += [f"{name}: {p}" for p in page.evaluate(CUT_LABELS)]
        if height > width:
            top = page.evaluate(BAR_HEIGHT)
            if top >= 92:
                problems.append(f"{name}: the top bar takes {top} px")
    page.context.close()
    assert not problems, "\n".join(problems)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return bool(
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def box(page: Page, selector: str) -> dict[str, float] | None:
    found: dict[str, float] | None = page.evaluate(
        """(sel) => { const el = document.querySelector(sel);
        if (!el || !el.getClientRects().length || el.classList.contains('hidden')) return null;
        const r = el.getBoundingClientRect();
        return {x: r.left, y: r.top, width: r.width, height: r.height}; }""",
        selector,
    )
    return found


def test_a_toast_waits_while_a_confirm_lies_under_it(
    base: str, browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 8: the concession's confirm (104.3a: only a player concedes, and it is
    final, so it asks for a second tap) was under "Cy lost — 10 poison counters"."""
    page = table_page(browser, base, 4, "en", monkeypatch)
    settle(page, 375, 667)
    players = ids(page)
    di, cy = players[3], players[2]
    page.evaluate("(pid) => lifeledger.openSheet(pid)", di)
    concede = page.locator('#sheet [data-sheet="concede"]')
    concede.scroll_into_view_if_needed()
    concede.click()
    expect(concede).to_have_attribute("data-armed", "1")
    armed = '#sheet [data-sheet="concede"]'
    # A toast for Di's edge (where the sheet lies) and one for Cy's: neither over the confirm.
    for pid in (di, cy):
        page.evaluate(
            "(pid) => lifeledger.toast('Cy lost — 10 poison counters (704.5c)', 'loss', pid)", pid
        )
        page.wait_for_timeout(300)
        shown = box(page, "#toast")
        there = box(page, armed)
        assert there is not None
        assert shown is None or not overlap(shown, there), f"the toast covers the confirm ({pid})"
    # Once the sheet is closed, the toast that waited shows.
    page.evaluate("lifeledger.close('sheet')")
    expect(page.locator("#toast")).to_be_visible()
    expect(page.locator("#toast")).to_contain_text("Cy lost")
    # A toast showing when a confirm appears under it steps aside.
    page.evaluate("(pid) => lifeledger.toast('Bo gains 3 life', '', pid)", di)
    page.evaluate("(pid) => lifeledger.openSheet(pid)", di)
    concede.scroll_into_view_if_needed()
    concede.click()
    page.wait_for_timeout(400)
    shown = box(page, "#toast")
    there = box(page, armed)
    assert there is not None
    assert shown is None or not overlap(shown, there), "the toast stayed over the confirm"
    page.context.close()


DIGITS_AND_BUBBLE = """(pid) => {
  const panel = document.querySelector(`#panels [data-unit="${pid}"]`);
  const range = document.createRange();
  range.selectNodeContents(panel.querySelector('.life'));
  const d = range.getBoundingClientRect();
  const b = panel.querySelector('.bubble').getBoundingClientRect();
  const p = panel.getBoundingClientRect();
  return {digits: [d.left, d.top, d.right, d.bottom], bubble: [b.left, b.top, b.right, b.bottom],
    panel: [p.left, p.top, p.right, p.bottom], facing: panel.dataset.facing};
}"""


@pytest.mark.parametrize("count", [2, 4, 8])
def test_the_bubble_lies_beside_the_digits(
    base: str, browser: Browser, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 8: the −1 bubble lay over a total's digits (it was centred at the top of
    the row the digits fill)."""
    page = table_page(browser, base, count, "en", monkeypatch)
    problems = []
    for name, (width, height) in {**PHONES, "667x375": (667, 375)}.items():
        settle(page, width, height)
        for pid in ids(page)[:2]:  # the first two face different edges (or one turned 180°)
            tap_minus(page, pid)
            page.wait_for_selector(f'#panels [data-unit="{pid}"] .bubble')
            page.wait_for_timeout(100)
            found = page.evaluate(DIGITS_AND_BUBBLE, pid)
            dl, dt, dr, db = found["digits"]
            bl, bt, br, bb = found["bubble"]
            if bl < dr - 1 and dl < br - 1 and bt < db - 1 and dt < bb - 1:
                where = f"{count} {name}: {pid}'s bubble ({found['facing']}°)"
                problems.append(f"{where} over its digits: {found}")
            page.evaluate("(pid) => lifeledger.dropBubble(pid)", pid)
    page.context.close()
    assert not problems, "\n".join(problems)


SEATING = """() => [...document.querySelectorAll('#panels .panel')].map((p) =>
  [p.dataset.unit, Number(p.dataset.facing || 0),
   parseFloat(p.querySelector('.life').style.fontSize)])"""


@pytest.mark.parametrize("count", [3, 5, 8])
def test_the_same_count_sits_alike_on_near_identical_phones(
    base: str, browser: Browser, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 13: eight players sat around the edges of a 375x667 phone (39 px totals)
    but in a grid on a 360x640 one (59 px); three players had 57/63/57 px and 88/55/88."""
    page = table_page(browser, base, count, "en", monkeypatch)
    seen = {}
    for name, (width, height) in PHONES.items():
        settle(page, width, height)
        seen[name] = page.evaluate(SEATING)
    page.context.close()
    big, small = seen["375x667"], seen["360x640"]
    assert [(u, f) for u, f, _ in big] == [(u, f) for u, f, _ in small], seen
    for (unit, _, a), (_, _, b) in zip(big, small, strict=True):
        assert min(a, b) >= 0.85 * max(a, b), f"{unit}: {a} px on 375x667, {b} px on 360x640"

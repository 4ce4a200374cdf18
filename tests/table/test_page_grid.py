"""The layout grid (issue 17, items 4 and 7): a Commander table of 2, 3, 4, 5, 6, 8 and 12
players on a 375x667 phone and an iPad Mini (768x1024), upright and turned, on the table device
and on a personal phone, measured in the real page (grid_audit.js, getBoundingClientRect):

- no control off-screen, covered, under 44x44 px, cut off by its panel, no label overflowing
  its button (the header's included), up to eight players on the phone and at every count on
  the tablet;
- no total clipped, and the − and + apart from the digits (a fifth of their size at least);
- totals at least 44 CSS px up to six players, 32 px at eight;
- on the table device every panel faces its own seat (its foot on the edge of the table it
  faces; in the dense grid of twelve, the nearer edge); on a personal phone none is turned;
- commander damage one tap from every panel (a chip, or the panel's ⚔ that opens the amounts);
  up to six players a chip for every commander whose damage the panel's player may take (issue
  25 item 3; TWO_TAPS: the layouts with no room for them);
- the ⋯ sheet and the commander-amount sheet, turned to a player at each edge, have every
  control on the screen and no label cut (issue 25 item 3);
- on a personal phone its own total is the biggest number on the screen; on the table device
  no total is less than 60% of the biggest (the iPad Mini's five players, issue 17).

Each in English and in Italian (issue 20: longer words, the same grid). One browser, one page
per device, count and language, the viewport resized rather than relaunched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import screenshot  # noqa: E402
from playwright.sync_api import Browser  # noqa: E402
from test_page_layouts import open_page, settle  # noqa: E402

pytestmark = pytest.mark.browser

AUDIT = Path(__file__).with_name("grid_audit.js").read_text()
SIZES = {
    "phone-portrait": (375, 667),
    "phone-landscape": (667, 375),
    "phone-small-portrait": (360, 640),
    "phone-small-landscape": (640, 360),
    "tablet-portrait": (768, 1024),
    "tablet-landscape": (1024, 768),
}
COUNTS = [2, 3, 4, 5, 6, 8, 12]
# The screenshots docs/table.md shows: (device, players, size).
SHOTS = {
    ("table", 6, "phone-portrait"),
    ("table", 5, "tablet-landscape"),
    ("phone", 6, "phone-portrait"),
}
# The same in Italian, for docs/table.md's Languages.
SHOTS_IT = {("phone", 4, "phone-portrait"), ("table", 4, "tablet-landscape")}


# Issue 25 item 3: commander damage from a given commander is one tap from the damaged
# player's panel (a chip per opposing commander, 903.10a) up to six players, but for these:
# a turned phone (667x375) with five or six players has 134 px of panel under the header, no
# room for a row of chips and a 44 px total; its panels keep the ⚔ (two taps: ⚔, then +1).
CHIPS_UP_TO = 6
TWO_TAPS = {
    (device, count, size)
    for device in ["table"]
    for count in [5, 6]
    for size in ["phone-landscape", "phone-small-landscape"]
}
# Issue 25 item 13: near-identical phones seat the same count alike (which way each panel
# faces), their totals within EVEN_ACROSS of each other (eight players sat around the edges
# of a 375x667 phone, 39 px, but in a grid on a 360x640 one, 59 px). The table device upright
# and turned; a personal phone upright (turned, 667x375 keeps three players' whole panels on
# one screen and 640x360 scrolls them: docs/table.md).
ALIKE = {
    "table": [
        ("phone-portrait", "phone-small-portrait"),
        ("phone-landscape", "phone-small-landscape"),
    ],
    "phone": [("phone-portrait", "phone-small-portrait")],
}
EVEN_ACROSS = 0.85


def least_total(count: int) -> int:
    return 44 if count <= 6 else 32 if count <= 8 else 0


def audit(page: Any, device: str, count: int, size: str, seen: dict[str, Any]) -> list[str]:
    """What is wrong with one layout, in words (``seen``: each size's facing and totals)."""
    found = page.evaluate(f"(arg) => ({AUDIT})(arg)", {"device": device})
    seen[size] = found
    phone = size.startswith("phone")
    problems = [] if phone and count > 8 else list(found["problems"])
    if count <= CHIPS_UP_TO and (device, count, size) not in TWO_TAPS:
        problems += found["oneTap"]
    sizes: dict[str, float] = found["sizes"]
    least = least_total(count)
    problems += [f"{u}'s total is {s:g} px (< {least})" for u, s in sizes.items() if s < least]
    if device == "phone":
        own, *others = sizes.values()
        problems += [f"the own total ({own:g} px) <= {s:g} px" for s in others if s >= own]
    elif max(sizes.values()) and min(sizes.values()) < 0.6 * max(sizes.values()) and count <= 8:
        problems.append(f"totals from {min(sizes.values()):g} to {max(sizes.values()):g} px")
    return [f"{device} {count} {size}: {p}" for p in problems]


def commander(count: int) -> dict[str, Any]:
    names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kim", "Lu"][:count]
    players = [{"name": n, "commanders": [f"{n}'s commander"]} for n in names]
    variant = "two-player" if count == 2 else "free-for-all"  # 800.1: free-for-all is 3+
    return {"variant": variant, "format": "commander", "players": players}


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("device", ["table", "phone"])
@pytest.mark.parametrize("lang", ["en", "it"])
def test_layout_grid(
    base: str, browser: Browser, lang: str, device: str, count: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import test_page_layouts

    monkeypatch.setattr(test_page_layouts, "form", lambda n: commander(n))
    page = open_page(browser, base, device, count, lang)
    # A change, so that Undo names what it takes back (issue 25 item 7: "↶…").
    page.locator("#panels .panel [data-act=minus]").first.click()
    page.wait_for_function(
        "() => lifeledger.S.pending.size === 0 && !lifeledger.TAPS.run && lifeledger.S.canUndo"
    )
    problems: list[str] = []
    seen: dict[str, Any] = {}
    for size, (width, height) in SIZES.items():
        settle(page, width, height)
        problems += [f"{lang} {p}" for p in audit(page, device, count, size, seen)]
        if lang == "en" and (device, count, size) in SHOTS:
            screenshot(page, f"screens/grid-{device}-{count}-{size}.png")
        if lang == "it" and (device, count, size) in SHOTS_IT:
            screenshot(page, f"screens/it-grid-{device}-{count}-{size}.png")
    page.context.close()
    if count <= 8:
        problems += [f"{lang} {device} {count}: {p}" for p in alike(seen, ALIKE[device])]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)


def alike(seen: dict[str, Any], pairs: list[tuple[str, str]]) -> list[str]:
    """Issue 25 item 13: how near-identical phones differ (seating, totals), in words."""
    out = []
    for big, small in pairs:
        a, b = seen[big], seen[small]
        if a["facing"] != b["facing"]:
            out.append(f"seated {a['facing']} on {big} but {b['facing']} on {small}")
        for unit, x in a["sizes"].items():
            y = b["sizes"][unit]
            if min(x, y) < EVEN_ACROSS * max(x, y):
                out.append(f"{unit}'s total is {x:g} px on {big} but {y:g} px on {small}")
    return out

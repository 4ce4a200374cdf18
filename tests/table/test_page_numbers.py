"""The page's numbers (static/i18n.js ``formatNumber``), as the locale writes them: a whole
number under 1,000 is written without making an ``Intl.NumberFormat`` (making the page's first
one costs some 80 ms on a phone, issue 27 item 5: a device table's counter drawn within
300 ms), and must read exactly as Intl would write it in each of the page's languages."""

from __future__ import annotations

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from playwright.sync_api import Browser  # noqa: E402

#: Each number, as the page writes it and as Intl does, in each language the page speaks.
COMPARE = """() => {
  const L = lifeledger;
  const numbers = [0, 1, -1, 7, -7, 40, -40, 999, -999, 1000, -1000, 12345, -1234567,
                   2 ** 53 - 1, 0.5, -2.25];
  for (let n = -1000; n <= 1000; n += 37) numbers.push(n);
  const out = [];
  const was = L.I18N.lang;
  for (const lang of ["en", "it"]) {
    L.I18N.lang = lang;
    for (const n of numbers) {
      out.push([lang, n, L.formatNumber(n), new Intl.NumberFormat(lang).format(n)]);
      // A whole number may come as its decimal text (exact JSON: common.js parseJSON).
      const text = String(n);
      if (Number.isInteger(n)) out.push([lang, text, L.formatNumber(text), out.at(-1)[3]]);
    }
  }
  L.I18N.lang = was;
  return out;
}"""


@pytest.mark.browser
def test_whole_numbers_are_written_as_the_locale_writes_them(base: str, browser: Browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(base + "/replay")
    page.wait_for_function("() => !!window.lifeledger")
    rows = page.evaluate(COMPARE)
    assert len(rows) > 100
    wrong = [row for row in rows if row[2] != row[3]]
    assert wrong == []
    # And the languages whose numbers are written so are the page's own.
    assert page.evaluate("() => lifeledger.formatNumber(-999)") == "-999"
    context.close()

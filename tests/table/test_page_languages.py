"""The table speaks the players' language (issue 20): the page follows the browser's languages,
a language chosen on the page is remembered on the device, each phone at one table reads the
same history in its own language, plural forms and numbers are the language's, and the
service worker keeps the catalogue for offline use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    PHONE,
    device_table,
    held,
    keep_start,
    post,
    screenshot,
    sit,
)
from playwright.sync_api import Browser, Page, expect  # noqa: E402

pytestmark = pytest.mark.browser

TWO = {"variant": "two-player", "format": "normal", "players": [{"name": "Ana"}, {"name": "Bo"}]}


def phone(browser: Browser, locale: str | None = None) -> Page:
    """A phone whose browser prefers ``locale`` (Playwright's default: en-US)."""
    options: dict[str, Any] = dict(PHONE)
    if locale:
        options["locale"] = locale
    return browser.new_context(**options).new_page()


def ready(page: Page, lang: str) -> None:
    """The page is drawn in ``lang`` (its catalogue fetched, for a language but English)."""
    page.wait_for_function(
        "(lang) => document.documentElement.lang === lang"
        " && (lang === 'en' || Object.keys(lifeledger.I18N.messages).length > 0)",
        arg=lang,
    )


def history(page: Page) -> Any:
    page.locator("#history-btn").click()
    return page.locator("#history-list")


def test_the_page_follows_the_browsers_language(
    base: str, browser: Browser, kept_start: dict[str, str]
) -> None:
    italian = phone(browser, "it-IT")
    italian.goto(base + "/")
    ready(italian, "it")
    expect(italian.locator("#start-title")).to_have_text("Nuova partita su questo dispositivo")
    expect(italian.locator("[data-quick=two]")).to_contain_text("2 giocatori")
    expect(italian.locator("[data-quick=two]")).to_contain_text("20 punti vita")
    expect(italian.locator("#lang-select")).to_have_value("it")
    screenshot(italian, "screens/languages-it-start.png")
    # Each language in its own name.
    assert italian.locator("#lang-select option").all_inner_texts() == ["English", "Italiano"]
    keep_start(italian, kept_start)
    italian.locator("[data-quick=two]").click()
    device_table(italian)
    ready(italian, "it")
    held(italian, 2)  # the device's engine has answered
    expect(italian.locator("#history-btn")).to_have_text("Storico")
    expect(italian.locator("#undo-btn")).to_have_text("↶ Annulla")
    # A quick game's players are named in the language of the page that started it.
    expect(italian.locator(".panel .pname").first).to_have_text("Giocatore 1")
    expect(italian.locator("#turn-text")).to_contain_text("Chi gioca per primo?")
    italian.context.close()

    # No preference (Playwright's en-US), or one the app doesn't speak: English.
    for locale in (None, "de-DE"):
        english = phone(browser, locale)
        english.goto(base + "/")
        ready(english, "en")
        expect(english.locator("#start-title")).to_have_text("New game on this device")
        expect(english.locator("[data-quick=two]")).to_contain_text("2 players")
        english.context.close()


def test_a_language_chosen_on_the_page_is_remembered(base: str, browser: Browser) -> None:
    page = phone(browser)
    page.goto(base + "/")
    ready(page, "en")
    page.locator("#lang-select").select_option("it")
    ready(page, "it")
    expect(page.locator("#start-title")).to_have_text("Nuova partita su questo dispositivo")
    assert page.evaluate("localStorage.getItem('lifeledger-lang')") == "it"
    page.reload()
    ready(page, "it")
    expect(page.locator("#join-btn")).to_have_text("Entra")
    # The table's menu switches it too, at once, and back to English.
    table = post(base + "/api/tables", TWO)
    sit(page, base, table["id"], "ana")
    ready(page, "it")
    expect(page.locator("#history-btn")).to_have_text("Storico")
    page.locator("#menu-btn").click()
    expect(page.locator("#menu-body h3").first).to_be_visible()
    page.locator("#menu-lang").select_option("en")
    ready(page, "en")
    expect(page.locator("#history-btn")).to_have_text("History")
    expect(page.locator('[data-player="ana"] .tag.you')).to_have_text("you")
    page.reload()
    ready(page, "en")
    expect(page.locator("#history-btn")).to_have_text("History")
    page.context.close()


def test_two_phones_read_one_history_each_in_its_language(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", TWO)
    ana = phone(browser, "it-IT")
    bo = phone(browser, "en-GB")
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    ready(ana, "it")
    ready(bo, "en")
    # Ana gives Bo one poison counter, then another; Bo takes 3 from Ana.
    plus = ana.locator('[data-player="bo"] .ctr[data-counter="poison"] .ctr-plus')
    plus.click()
    expect(bo.locator('[data-player="bo"] .ctr[data-counter="poison"] .ctr-n')).to_have_text("1")
    bo.locator('[data-player="ana"] [data-act="minus"]').click()
    expect(ana.locator('[data-player="ana"] .life')).to_have_text("19")
    plus.click()
    expect(bo.locator('[data-player="bo"] .ctr[data-counter="poison"] .ctr-n')).to_have_text("2")
    italian, english = history(ana), history(bo)
    expect(italian.locator("li").nth(2)).to_contain_text("Bo riceve 1 segnalino veleno")
    expect(italian.locator("li").nth(1)).to_contain_text("Ana perde 1 punto vita")
    expect(italian.locator("li").nth(0)).to_contain_text("Bo riceve 1 segnalino veleno")
    expect(italian.locator("li").nth(0)).to_contain_text("Bo veleno 1 → 2")
    expect(english.locator("li").nth(2)).to_contain_text("Bo gets 1 poison counter")
    expect(english.locator("li").nth(1)).to_contain_text("Ana loses 1 life")
    expect(english.locator("li").nth(0)).to_contain_text("Bo poison 1 → 2")
    # The counter's own words: one, then two (Italian's plural, and English's).
    expect(ana.locator('[data-player="bo"] .ctr[data-counter="poison"]')).to_have_attribute(
        "aria-label", "Bo: 2 segnalini veleno; a 10 si perde la partita (704.5c)"
    )
    expect(bo.locator('[data-player="bo"] .ctr[data-counter="poison"]')).to_have_attribute(
        "aria-label", "Bo: 2 poison counters; 10 lose the game (704.5c)"
    )
    screenshot(ana, "screens/languages-it-history.png")
    screenshot(bo, "screens/languages-en-history.png")
    # A refusal is the server's sentence, written in each phone's language, the name the table's.
    for page, said in (
        (ana, "Solo Bo può pagare i propri punti vita."),
        (bo, "Only Ana can pay their own life."),
    ):
        page.locator("[data-close=history]").click()
        other = "bo" if page is ana else "ana"
        page.locator(f'[data-player="{other}"] [data-act="more"]').click()
        page.locator('[data-sheet="pay"]').click()
        expect(page.locator("#toast")).to_contain_text(said)
    for page in (ana, bo):
        page.context.close()


def test_plurals_and_numbers_are_the_languages(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", TWO)
    page = phone(browser, "it-IT")
    sit(page, base, table["id"], "ana")
    ready(page, "it")
    # One poison counter, then two, in the ⋯ sheet's summary.
    page.locator('[data-player="bo"] .ctr[data-counter="poison"] .ctr-plus').click()
    page.locator('[data-player="bo"] [data-act="more"]').click()
    expect(page.locator("#sh-counts")).to_have_text("1 segnalino veleno")
    page.locator("#sh-kind").select_option("poison")
    page.locator("#sh-counters").fill("1")
    page.locator('[data-sheet="add-counters"]').click()
    expect(page.locator("#sh-counts")).to_have_text("2 segnalini veleno")
    # Numbers grouped as Italian groups them; a total beyond 2^53 digit by digit.
    page.locator("#sh-amount").fill("12345")
    page.locator('[data-sheet="gain"]').click()
    expect(page.locator("#sheet-title")).to_have_text("Bo — 12.365 punti vita")
    page.locator("#sh-amount").fill("1" + "0" * 30)
    page.locator('[data-sheet="set"]').click()
    page.locator("[data-close=sheet]").click()
    lines = history(page)
    expect(lines.locator("li").nth(1)).to_contain_text("Bo guadagna 12.345 punti vita")
    expect(lines.locator("li").nth(0)).to_contain_text(
        "Il totale di punti vita di Bo diventa 1" + ".000" * 10
    )
    # The forms of a plural by the catalogue's own rule (Italian's: one, many, other), and a
    # rule of another language (Polish's three forms), evaluated with no eval.
    forms = page.evaluate(
        """() => [1, 2, 1000000, 5].map((n) => lifeledger.tn("{n} life", "{n} life", n, { n }))"""
    )
    assert forms == ["1 punto vita", "2 punti vita", "1.000.000 di punti vita", "5 punti vita"]
    polish = page.evaluate(
        "(rule) => [1, 2, 5, 12, 22, 25, 102].map(lifeledger.compilePlural(rule))",
        "(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2)",
    )
    assert polish == [0, 1, 2, 2, 1, 2, 1]
    # A structured sentence from the server: ids named, numbers and lists in the language.
    said = page.evaluate(
        """() => lifeledger.sentence({msg: "{name} loses {amount} life",
            plural: "{name} loses {amount} life", count: "amount",
            args: {name: {id: "bo"}, amount: {n: "2000000"}}}, lifeledger.S.names)"""
    )
    assert said == "Bo perde 2.000.000 di punti vita"
    page.context.close()


def test_the_catalogue_is_kept_for_offline_use(base: str, browser: Browser) -> None:
    table = post(base + "/api/tables", TWO)
    page = phone(browser, "it-IT")
    sit(page, base, table["id"], "ana")
    ready(page, "it")
    page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
    page.wait_for_function(
        "() => caches.keys().then((keys) => Promise.all(keys.map((k) => caches.open(k)"
        ".then((c) => c.match('/i18n/it.json'))))).then((hits) => hits.some(Boolean))",
        timeout=15_000,
    )
    # Offline, with the page's own copy gone too: the service worker's answers.
    page.context.set_offline(True)
    page.evaluate("localStorage.removeItem('lifeledger-i18n-it')")
    page.reload()
    ready(page, "it")
    expect(page.locator("#history-btn")).to_have_text("Storico")
    page.context.set_offline(False)
    page.context.close()


AUDIT = (Path(__file__).with_name("grid_audit.js")).read_text()


@pytest.mark.parametrize("device", ["phone", "table"])
def test_the_turn_bar_and_clocks_fit_in_italian(
    base: str, browser: Browser, device: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The grid's checks (grid_audit.js: every control whole, uncovered, its label within it)
    with what a game in progress adds: the turn bar's steps and Next, a running clock."""
    import test_page_layouts
    from test_page_grid import commander
    from test_page_layouts import open_page, settle

    monkeypatch.setattr(test_page_layouts, "form", commander)
    page = open_page(browser, base, device, 4, "it")
    page.locator("[data-first]").first.click()
    expect(page.locator("#turn-text")).to_contain_text("Turno 1")
    page.evaluate("lifeledger.toolSend('clock', {op: 'start', mode: 'chess', seconds: 1200})")
    expect(page.locator("#tl-clock")).to_be_visible()
    problems: list[str] = []
    for width, height in ((375, 667), (667, 375), (768, 1024), (1024, 768)):
        settle(page, width, height)
        found = page.evaluate(f"(arg) => ({AUDIT})(arg)", {"device": device})
        problems += [f"{width}x{height}: {p}" for p in found["problems"]]
    page.context.close()
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", ["en", "it"])
def test_the_widest_table_codes_fit_the_header(
    base: str, browser: Browser, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CI run found "QM5B-YP5B-DQ" cut in the table device's header (48 px in 46, 375×667,
    Italian): the browser sized the title by less than its widest line when the code broke
    after a hyphen. The codes of the widest letters, in both languages, at every size."""
    import test_page_layouts
    from test_page_grid import commander
    from test_page_layouts import open_page, settle

    monkeypatch.setattr(test_page_layouts, "form", commander)
    page = open_page(browser, base, "table", 4, lang)
    page.locator("[data-first]").first.click()
    page.evaluate("lifeledger.toolSend('clock', {op: 'start', mode: 'chess', seconds: 1200})")
    expect(page.locator("#tl-clock")).to_be_visible()
    problems: list[str] = []
    for code in ("QM5BYP5BDQ", "MMMMWWWWMM", "WWWWMMMMQQ"):
        for width, height in ((375, 667), (360, 640), (667, 375)):
            settle(page, width, height)
            page.evaluate(f"lifeledger.S.info.code = {code!r}; lifeledger.render()")
            expect(page.locator("#title")).to_have_text("-".join([code[:4], code[4:8], code[8:]]))
            found = page.evaluate(f"(arg) => ({AUDIT})(arg)", {"device": "table"})
            problems += [f"{code} {width}x{height}: {p}" for p in found["problems"]]
    page.context.close()
    assert not problems, "\n".join(problems)

"""The page, hardened (issue 7 item 16, and the page side of items 2, 6 and 12): toasts that
don't take taps, a lost connection said plainly, taken seats asked for, names as typed, exact
numbers, game numbers within the match, the replay's figures, plurals, the favicon, codes of 8
to 12 characters, undo naming its target, and the history a page at a time. In Debian's
chromium, driven by Playwright (the fixtures ``base`` and ``browser`` are in conftest.py)."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import (  # noqa: E402
    get,
    life,
    more_options,
    new_phone,
    post,
    replaying,
    server,
    sit,
)
from playwright.sync_api import Browser, WebSocketRoute, expect  # noqa: E402

from lifeledger_table.decide.setup import build_setup  # noqa: E402
from lifeledger_table.store.records import Event, TableRow  # noqa: E402
from lifeledger_table.store.sqlite import SQLiteStore  # noqa: E402

pytestmark = pytest.mark.browser

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "examples"
TWO = {"players": [{"name": "Ana"}, {"name": "Bo"}]}


def centred_in(a: Any, b: Any) -> bool:
    """Whether box ``a``'s centre (where a tap lands) lies inside box ``b``."""
    x, y = a["x"] + a["width"] / 2, a["y"] + a["height"] / 2
    return bool(b["x"] <= x <= b["x"] + b["width"] and b["y"] <= y <= b["y"] + b["height"])


def test_a_toast_does_not_take_taps(base: str, browser: Browser) -> None:
    """issue 7 item 16: a refusal's toast covered the bottom panel's buttons for 5 s and
    swallowed their taps. A button under the toast is tapped while the toast shows."""
    table = post(base + "/api/tables", TWO)
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    page.locator('[data-player="ana"] [data-act="more"]').click()
    page.locator("#sh-amount").fill("50")
    page.locator('[data-sheet="pay"]').click()
    toast = page.locator("#toast")
    expect(toast).to_contain_text("Refused")
    page.locator('#sheet [data-close="sheet"]').click()
    box = toast.bounding_box()
    under = [
        b
        for b in page.locator('[data-player="bo"] button').all()
        if b.is_visible() and b.is_enabled() and centred_in(b.bounding_box(), box)
    ]
    assert under, "no button of the bottom panel lies under the toast"
    button = under[0]
    which = button.get_attribute("data-act")
    expect(toast).to_be_visible()
    if which == "more":
        button.click(timeout=2000)
        expect(page.locator("#sheet")).to_be_visible()
    elif button.get_attribute("data-step") == "plus":  # poison + (panel.js)
        count = page.locator('[data-player="bo"] [data-counter="poison"] .ctr-n')
        button.click(timeout=2000)
        expect(count).to_have_text("1")
    else:
        before = life(page, "bo").inner_text()
        button.click(timeout=2000)
        expect(life(page, "bo")).not_to_have_text(before)
    expect(toast).to_be_visible()  # it was tapped through while the toast showed
    page.context.close()


def test_a_stalled_connection_is_said_plainly_and_taps_wait(
    browser: Browser, tmp_path: Path
) -> None:
    """issue 7 item 16: behind a stalled connection the page stayed green and taps landed
    later all at once. Now a change that gets no answer (and a heartbeat every 10 s) shows the
    lost connection within 5 s, says so plainly, marks the changes that wait, and sends them
    once when the connection is back."""
    with server(tmp_path / "tables.db") as (url, proc):
        table = post(url + "/api/tables", TWO)
        page = new_phone(browser)
        sit(page, url, table["id"], "ana")
        netstate = page.locator("#netstate")
        expect(netstate).to_be_hidden()
        os.kill(proc.pid, signal.SIGSTOP)  # a stall: the socket stays open, nothing answers
        try:
            for _ in range(3):
                page.locator('[data-player="bo"] [data-act="minus"]').click()
            expect(netstate).to_contain_text("Connection lost — reconnecting…", timeout=9000)
            # The three rapid taps are one change (issue 8: taps.js), shown at once, pending.
            expect(netstate).to_contain_text("1 change waiting to be sent")
            expect(page.locator('.panel[data-player="bo"]')).to_have_class(
                re.compile(r"\bpending\b")
            )
            expect(page.locator('[data-player="bo"] .tag.waiting')).to_be_visible()
            expect(life(page, "bo")).to_have_text("17")
            expect(life(page, "bo")).to_have_class(re.compile(r"\bpending\b"))
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        expect(life(page, "bo")).to_have_text("17", timeout=20000)
        expect(netstate).to_be_hidden(timeout=10000)
        expect(page.locator('.panel[data-player="bo"]')).not_to_have_class(
            re.compile(r"\bpending\b")
        )
        page.wait_for_timeout(500)
        state = get(f"{url}/api/tables/{table['id']}")["state"]
        assert [p["life"] for p in state["players"]] == [20, 17]  # each tap applied once

        # A closed socket (the server gone) says so at once.
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait()
        expect(netstate).to_contain_text("Connection lost — reconnecting…", timeout=5000)
        page.locator('[data-player="bo"] [data-act="minus"]').click()
        expect(netstate).to_contain_text("1 change waiting to be sent")
        page.context.close()


def test_a_heartbeat_finds_a_stalled_connection_without_taps(
    browser: Browser, tmp_path: Path
) -> None:
    """issue 7 item 16 (heartbeats): with nothing sent, a ping every 10 s finds a stalled
    connection when no answer comes within 5 s. (The page's clock is Playwright's.)"""
    with server(tmp_path / "tables.db") as (url, proc):
        table = post(url + "/api/tables", TWO)
        page = new_phone(browser)
        page.clock.install()
        sit(page, url, table["id"], "ana")
        netstate = page.locator("#netstate")

        def seconds(n: int) -> None:  # the page's clock runs n seconds, the network runs too
            for _ in range(n):
                page.clock.run_for(1_000)
                page.wait_for_timeout(50)

        seconds(30)  # three pings, answered: nothing to say
        expect(netstate).to_be_hidden()
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            seconds(16)  # a ping within 10 s, its answer awaited 5 s
            expect(netstate).to_have_text("Connection lost — reconnecting…")
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        for _ in range(40):
            page.clock.run_for(1_000)
            if netstate.is_hidden():
                break
            page.wait_for_timeout(100)
        expect(netstate).to_be_hidden()
        page.context.close()


def test_i_m_ana_on_a_taken_seat_asks_for_it(base: str, browser: Browser) -> None:
    """issue 7 item 16, item 12: "I'm Ana" on a seat another phone took did nothing (an
    uncaught 409). It offers to take the seat back; this browser opened the table (it holds the
    host token), so the seat is given at once; and the host's phone is asked for other seats."""
    page = new_phone(browser)
    page.goto(base + "/")
    more_options(page)
    page.locator("#open-table").click()
    expect(page.locator("#opened-code")).to_be_visible()
    table = page.locator("#opened-link").get_attribute("href").split("/")[-1]
    post(f"{base}/api/tables/{table}/seats/ana", {})  # another phone takes Ana's seat
    seat = page.locator('#opened-seats button[data-seat="ana"]')
    seat.click()
    expect(seat).to_have_text("Ask to take Ana's seat")
    expect(page.locator("#opened-note")).to_contain_text("Another phone has taken Ana's seat")
    seat.click()
    expect(page).to_have_url(re.compile(f"/t/{table}$"))
    expect(page.locator('[data-player="ana"] .tag.you')).to_be_visible()

    # The host's phone is asked too, for any seat: Bo's phone is here, a third phone asks.
    bo, third = new_phone(browser), new_phone(browser)
    sit(bo, base, table, "bo")
    third.goto(f"{base}/t/{table}")
    ask = third.locator('#picker button[data-seat="bo"]')
    ask.click()
    ask.click()
    expect(third.locator("#picker-note")).to_have_text("Waiting for Bo's phone to allow it…")
    expect(page.locator("#ask-text")).to_have_text("Someone wants to take Bo's seat.")
    expect(bo.locator("#ask-text")).to_have_text("Someone wants to take your seat (Bo).")
    page.locator('#ask [data-answer="allow"]').click()
    expect(third.locator('[data-player="bo"] .tag.you')).to_be_visible()
    expect(bo.locator("#ask")).to_be_hidden()  # answered on the host's phone
    for phone in (page, bo, third):
        phone.context.close()


def test_a_taken_seat_is_asked_for_and_its_phone_allows_it(base: str, browser: Browser) -> None:
    """issue 7 item 12 (the page side): a seat whose phone is here is asked for; that phone
    shows "Someone wants to take your seat (Ana)" with Allow and Refuse; the asking phone waits,
    is told of a refusal, asks again, and once allowed plays from the seat."""
    table = post(base + "/api/tables", TWO)
    ana, other = new_phone(browser), new_phone(browser)
    sit(ana, base, table["id"], "ana")
    other.goto(f"{base}/t/{table['id']}")
    seat = other.locator('#picker button[data-seat="ana"]')
    expect(seat).to_contain_text("(taken)")
    seat.click()
    expect(seat).to_have_text("Ask to take Ana's seat")
    seat.click()
    note = other.locator("#picker-note")
    expect(note).to_have_text("Waiting for Ana's phone to allow it…")
    expect(ana.locator("#ask")).to_be_visible()
    expect(ana.locator("#ask-text")).to_have_text("Someone wants to take your seat (Ana).")
    ana.locator('#ask [data-answer="refuse"]').click()
    expect(ana.locator("#ask")).to_be_hidden()
    expect(note).to_have_text("Ana's phone refused to give the seat.")
    seat.click()  # ask again
    expect(note).to_have_text("Waiting for Ana's phone to allow it…")
    expect(ana.locator("#ask")).to_be_visible()
    ana.locator('#ask [data-answer="allow"]').click()
    expect(ana.locator("#ask")).to_be_hidden()
    expect(other.locator("#picker")).to_be_hidden()
    expect(other.locator('[data-player="ana"] .tag.you')).to_be_visible()
    expect(ana.locator('[data-player="ana"] .tag.you')).to_have_count(0)
    ana.context.close()
    other.context.close()


def test_names_with_joiners_are_text_and_errors_show_no_escapes(
    base: str, browser: Browser
) -> None:
    """issue 7 item 16: "🧙‍♂️ Gandalf" and Persian "می‌خواهم" (a zero-width joiner, a
    non-joiner) were refused as control characters, the message showing ``\\u200d``. They open a
    table; a name with a bidi override is still refused, named by its code point, unescaped."""
    page = new_phone(browser)
    page.goto(base + "/")
    more_options(page)
    names = page.locator(".player-row .p-name")
    names.nth(0).fill("🧙\u200d♂️ Gandalf")
    names.nth(1).fill("Ana\u202eX")
    page.locator("#open-table").click()
    error = page.locator("#create-error")
    expect(error).to_contain_text("U+202E")
    assert "\\u" not in error.inner_text()
    names.nth(1).fill("می\u200cخواهم")
    page.locator("#open-table").click()
    seats = page.locator("#opened-seats")
    expect(seats).to_contain_text("I'm 🧙\u200d♂️ Gandalf")
    expect(seats).to_contain_text("I'm می\u200cخواهم")
    page.context.close()


def test_a_player_named_life_does_not_rewrite_sentences(base: str, browser: Browser) -> None:
    """issue 7 item 16: with a player named "Life", ids were replaced as words: "Life can't
    pay 99 Life with 20 Life". Only the parts of the engine's sentence that are ids are named."""
    table = post(base + "/api/tables", {"players": [{"name": "Life"}, {"name": "Bo"}]})
    page = new_phone(browser)
    sit(page, base, table["id"], "life")
    page.locator('[data-player="life"] [data-act="more"]').click()
    page.locator("#sh-amount").fill("99")
    page.locator('[data-sheet="pay"]').click()
    expect(page.locator("#toast")).to_have_text(
        "Refused: Life can't pay 99 life with 20 life — 119.4"
    )
    page.context.close()


def test_number_fields_are_exact_and_every_error_names_its_field(
    base: str, browser: Browser
) -> None:
    """issue 7 item 16: number fields used Number() (10^30 became 1e+30, digits above 2^53
    rounded) and "-3" got a bare error naming no field. The digits are sent exactly, shown
    exactly, and a wrong field is named."""
    table = post(base + "/api/tables", TWO)
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    page.locator('[data-player="bo"] [data-act="more"]').click()
    page.locator("#sh-amount").fill("1" + "0" * 30)
    page.locator('[data-sheet="gain"]').click()
    expect(life(page, "bo")).to_have_text("1" + "0" * 28 + "20")
    page.locator("#sh-amount").fill("9007199254740993")  # 2^53 + 1
    page.locator('[data-sheet="set"]').click()
    expect(life(page, "bo")).to_have_text("9007199254740993")
    page.locator("#sh-amount").fill("-3")
    page.locator('[data-sheet="lose"]').click()
    expect(page.locator("#toast")).to_have_text("Amount can't be negative (“-3”).")
    page.locator("#sh-damage").fill("lots")
    page.locator('[data-sheet="damage"]').click()
    expect(page.locator("#toast")).to_have_text("Damage: “lots” is not a whole number (0 or more).")
    page.locator('#sheet [data-close="sheet"]').click()
    expect(life(page, "bo")).to_have_text("9007199254740993")
    page.context.close()

    page = new_phone(browser)
    page.goto(base + "/")
    more_options(page)
    page.locator("#starting-life").fill("-3")
    page.locator("#open-table").click()
    expect(page.locator("#create-error")).to_have_text("Starting life: at least 1 (not “-3”).")
    page.locator("#starting-life").fill("")
    page.locator("#count-library").check()
    page.locator(".player-row .p-library").nth(1).fill("4O")
    page.locator("#open-table").click()
    expect(page.locator("#create-error")).to_have_text(
        "Bo's library: “4O” is not a whole number (0 or more)."
    )
    page.context.close()


def test_the_game_number_counts_within_the_match(base: str, browser: Browser) -> None:
    """issue 7 item 16: game numbers ran on across matches ("Match 2 · Game 4 · best of 3").
    The score line counts the games of the current match."""
    table = post(base + "/api/tables", TWO)
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    score = page.locator("#score")
    expect(score).to_contain_text("Game 1 · best of 3")
    for game in (1, 2):
        page.locator('[data-player="ana"] [data-act="more"]').click()
        page.locator('[data-sheet="concede"]').click()
        page.locator('[data-sheet="concede"]').click()
        expect(page.locator("#banner")).to_contain_text("Game over")
        expect(score).to_contain_text(f"Game {game} · best of 3")
        page.locator('[data-act="next-game"]').click()
        expect(page.locator("#banner")).to_be_hidden()
    expect(score).to_contain_text("Match 2 · Game 1 · best of 3")
    page.context.close()


def test_the_replay_figures_agree_and_a_new_file_stops_playback(
    base: str, browser: Browser
) -> None:
    """issue 7 item 16: the slider said "5 / 7" while the caption said "#4", and loading a new
    file didn't stop playback."""
    page = replaying(browser, base, EXAMPLES / "13-pay-life-more-than-you-have.json")
    total = page.locator("#rp-pos").inner_text().split(" / ")[1]
    expect(page.locator("#rp-pos")).to_have_text(f"2 / {total}")
    expect(page.locator("#rp-caption")).to_contain_text(f"Action 2 of {total}:")
    page.locator("#rp-first").click()
    page.locator("#rp-play").click()
    expect(page.locator("#rp-pos")).to_have_text(f"1 / {total}", timeout=3000)
    page.locator("#replay-file").set_input_files(str(EXAMPLES / "19-commander-damage.json"))
    expect(page.locator("#rp-pos")).to_have_text("0 / 2")
    expect(page.locator("#rp-play")).to_have_text("▶ Play")
    page.wait_for_timeout(2000)
    expect(page.locator("#rp-pos")).to_have_text("0 / 2")
    page.context.close()


def test_counts_agree_with_their_nouns(base: str, browser: Browser) -> None:
    """issue 7 item 16: "1 poison counters". Every count on the page agrees with its noun."""
    table = post(base + "/api/tables", {"players": [{"name": "Ana", "library": 1}, {"name": "Bo"}]})
    page = new_phone(browser)
    sit(page, base, table["id"], "ana")
    page.locator('[data-player="bo"] [data-counter="poison"] [data-step="plus"]').click()
    expect(page.locator('[data-player="bo"] [data-counter="poison"] .ctr-n')).to_have_text("1")
    page.locator('[data-player="bo"] [data-act="more"]').click()
    expect(page.locator("#sh-counts")).to_have_text("1 poison counter")
    page.locator("#sh-counters").fill("2")
    page.locator('[data-sheet="add-counters"]').click()
    expect(page.locator("#sh-counts")).to_have_text("3 poison counters")
    page.locator('#sheet [data-close="sheet"]').click()
    page.locator('[data-player="ana"] [data-act="more"]').click()
    expect(page.locator("#sheet-body")).to_contain_text("1 card in library")
    page.locator('#sheet [data-close="sheet"]').click()
    page.locator("#history-btn").click()
    expect(page.locator("#history-list")).to_contain_text("Bo gets 1 poison counter")
    expect(page.locator("#history-list")).to_contain_text("Bo gets 2 poison counters")
    page.context.close()


def test_the_favicon_is_served(base: str) -> None:
    """issue 7 item 16: /favicon.ico answered 404. Now an ICO (issue 8: icons and a favicon,
    drawn by lifeledger_table.web.icons)."""
    with urllib.request.urlopen(base + "/favicon.ico") as res:
        assert res.status == 200
        assert res.headers["Content-Type"] in ("image/vnd.microsoft.icon", "image/x-icon")
        assert res.read()[:4] == b"\0\0\1\0"


def test_codes_of_8_to_12_characters_are_joined(base: str, browser: Browser) -> None:
    """The plan's table codes (issue 7 item 10): 8 to 12 characters, spaces, dashes and case
    ignored; a code that can't be one is said so on the page, without asking the server."""
    table = post(base + "/api/tables", TWO)
    page = new_phone(browser)
    page.goto(base + "/")
    code = table["code"]
    typed = " ".join(code[i : i + 2] for i in range(0, len(code), 2)).lower()
    page.locator("#join-code").fill(typed)
    page.locator("#join-form button").click()
    expect(page).to_have_url(re.compile(f"/t/{table['id']}$"))
    page.goto(base + "/")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/code/" in r.url else None)
    page.locator("#join-code").fill("abcd-efgh-jkmn")
    with page.expect_response(re.compile(r"/api/code/")) as answer:
        page.locator("#join-form button").click()
    assert answer.value.url.endswith("/api/code/ABCDEFGHJKMN")
    expect(page.locator("#join-error")).to_contain_text("No table has this code")
    page.locator("#join-code").fill("ABC-DEF")
    page.locator("#join-form button").click()
    expect(page.locator("#join-error")).to_have_text("A table code has 8 to 12 letters and digits.")
    page.locator("#join-code").fill("ABCD-EFGO")
    page.locator("#join-form button").click()
    expect(page.locator("#join-error")).to_contain_text("no “O”")
    assert len(asked) == 1
    page.context.close()


def test_undo_names_its_target_and_a_lost_race_is_quiet(base: str, browser: Browser) -> None:
    """issue 7 item 2 (the page side): Undo sends the view's ``undo_target``; when the other
    phone's undo took that action back first, the answer "already undone" is shown as nothing
    (the other phone's undo is shown), and only one action is undone."""
    table = post(base + "/api/tables", TWO)
    ana, bo = new_phone(browser), new_phone(browser)
    held: list[str] = []
    holding = {"on": False}
    sent: list[dict[str, Any]] = []
    routes: list[WebSocketRoute] = []

    def relay(ws: WebSocketRoute) -> None:
        srv = ws.connect_to_server()
        routes.append(ws)

        def down(message: str | bytes) -> None:
            if holding["on"]:
                held.append(str(message))
            else:
                ws.send(message)

        def up(message: str | bytes) -> None:
            sent.append(json.loads(message))
            srv.send(message)

        srv.on_message(down)
        ws.on_message(up)

    bo.route_web_socket(re.compile(r"/ws/t/"), relay)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    ana.locator('[data-player="bo"] [data-act="minus"]').click()
    ana.wait_for_function(
        "() => lifeledger.S.pending.size === 0"
    )  # two changes, not one run of taps
    ana.locator('[data-player="bo"] [data-act="minus5"]').click()
    expect(life(bo, "bo")).to_have_text("14")
    target = get(f"{base}/api/tables/{table['id']}")["undo_target"]
    holding["on"] = True  # Bo's phone doesn't hear of Ana's undo yet
    ana.locator("#undo-btn").click()
    expect(life(ana, "bo")).to_have_text("19")
    bo.locator("#undo-btn").click()
    deadline = time.monotonic() + 3
    while not any("already-undone" in m for m in held) and time.monotonic() < deadline:
        bo.wait_for_timeout(50)
    undo = [m for m in sent if m.get("type") == "undo"]
    assert undo and undo[-1]["target"] == target
    assert any("already-undone" in m for m in held)
    holding["on"] = False
    for message in held:
        routes[-1].send(message)
    expect(life(bo, "bo")).to_have_text("19")
    expect(bo.locator("#toast")).to_contain_text("Undone")
    bo.wait_for_timeout(300)
    expect(bo.locator("#toast")).not_to_contain_text("already")
    assert get(f"{base}/api/tables/{table['id']}")["state"]["players"][1]["life"] == 19
    ana.context.close()
    bo.context.close()


def _stored_table(db: Path, actions: int) -> str:
    """A table with ``actions`` actions in its log, written to the store before the server
    starts; returns its id."""
    store = SQLiteStore(str(db))
    row = TableRow(
        id=secrets.token_urlsafe(24),
        watch=secrets.token_urlsafe(24),
        code="ABCDEFGH",
        setup=build_setup(TWO),
        created=time.time(),
    )
    store.create_table(row)
    start = time.time() - 10 * actions
    store.append(
        [
            Event(
                table=row.id,
                seq=n,
                kind="action",
                body={"action": {"do": "gain_life", "player": "ana", "amount": n}},
                client_id=f"c{n}",
                seat="ana",
                time=start + 10 * n,
            )
            for n in range(1, actions + 1)
        ]
    )
    store.close()
    return row.id


def test_the_history_loads_earlier_entries_a_page_at_a_time(
    browser: Browser, tmp_path: Path
) -> None:
    """issue 7 item 6 (the page side): the welcome carries the last 200 entries; the history
    shows those, and "Load earlier" asks for the older ones while there are more. Undo takes
    back the action the server names, not one the page computes from what it holds."""
    db = tmp_path / "tables.db"
    table = _stored_table(db, 230)
    with server(db) as (url, _):
        page = new_phone(browser)
        sit(page, url, table, "ana")
        page.locator("#history-btn").click()
        rows = page.locator("#history-list li[data-seq]")
        expect(rows).to_have_count(200)
        expect(rows.first).to_have_attribute("data-seq", "230")
        earlier = page.locator("#load-earlier")
        expect(earlier).to_be_visible()
        earlier.click()
        expect(rows).to_have_count(230)
        expect(rows.last).to_have_attribute("data-seq", "1")
        expect(page.locator("#history-list")).to_contain_text("Ana gains 1 life")
        expect(earlier).to_have_count(0)
        page.locator('#history [data-close="history"]').click()
        before = int(life(page, "ana").inner_text())
        page.locator("#undo-btn").click()
        expect(life(page, "ana")).to_have_text(str(before - 230))
        page.context.close()


#: The engine's notes and refusals as they were written before they were kept as sentences
#: (lifeledger.sentences): a table's log written then holds them as text alone, and the page
#: names the ids in them by their shapes (common.js, SENTENCES). Each is written out twice:
#: with the player id ``life`` (and ``life and bo``) where ids go, and as the page should show
#: it (``Life``); the word "life" elsewhere stays.
LEGACY = Path(__file__).resolve().parent / "data" / "legacy_sentences.json"


def _engine_sentences() -> list[tuple[str, str]]:
    found = [(raw, shown) for raw, shown in json.loads(LEGACY.read_text(encoding="utf-8"))]
    assert len(found) > 15
    return found


def test_every_engine_sentence_is_named_by_its_parts(base: str, browser: Browser) -> None:
    """issue 7 item 16: the page names the ids of every sentence the engine writes (refusals
    and notes, read from the modules of lifeledger) by the sentence's shape, never as words; a
    new shape in the engine fails here until the page knows it (common.js, SENTENCES)."""
    table = post(base + "/api/tables", {"players": [{"name": "Life"}, {"name": "Bo"}]})
    page = new_phone(browser)
    page.goto(f"{base}/t/{table['id']}")
    page.locator("#picker button.watch").click()
    sentences = _engine_sentences()
    shown = page.evaluate(
        "(raw) => raw.map((s) => lifeledger.S.names.text(s))", [r for r, _ in sentences]
    )
    assert [(r, s) for (r, _), s in zip(sentences, shown, strict=True)] == sentences
    page.context.close()


def test_603_3b_a_trigger_is_named_by_its_card_controller_and_target(
    base: str, browser: Browser
) -> None:
    """A trigger on the stack is written "card (controller's, amount) targeting player"
    (lifeledger.stack.Trigger): the page names its card, its controller and its target."""
    table = post(base + "/api/tables", {"players": [{"name": "Life"}, {"name": "Bo"}]})
    page = new_phone(browser)
    page.goto(f"{base}/t/{table['id']}")
    page.locator("#picker button.watch").click()
    page.evaluate('() => { lifeledger.S.names.map["bond"] = "Sanguine Bond"; }')
    raw = [
        "bond (life's, 3) targeting bo is put on the stack",
        "bond (life's, 3) targeting bo resolves: bo loses 3 life",
        "bond (life's, 1) resolves: life gains 1 life",
    ]
    shown = page.evaluate("(raw) => raw.map((s) => lifeledger.S.names.text(s))", raw)
    assert shown == [
        "Sanguine Bond (Life's, 3) targeting Bo is put on the stack",
        "Sanguine Bond (Life's, 3) targeting Bo resolves: Bo loses 3 life",
        "Sanguine Bond (Life's, 1) resolves: Life gains 1 life",
    ]
    page.context.close()


def test_732_2a_a_computed_loop_names_its_cards_and_each_players_change(
    base: str, browser: Browser
) -> None:
    """A loop the engine computes (732.2a) names its cards, then each player's change of life:
    the page names the players in that list too ("Bo -4,000 life"), not only the cards."""
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = new_phone(browser)
    page.goto(f"{base}/t/{table['id']}")
    page.locator("#picker button.watch").click()
    page.evaluate(
        '() => { lifeledger.S.names.map["bond"] = "Sanguine Bond";'
        ' lifeledger.S.names.map["blood"] = "Exquisite Blood"; }'
    )
    raw = (
        "the loop of bond, blood repeats 2,000 more times at once (computed): "
        "ana +4,000 life, bo -4,000 life"
    )
    assert page.evaluate("(raw) => lifeledger.S.names.text(raw)", raw) == (
        "the loop of Sanguine Bond, Exquisite Blood repeats 2,000 more times at once "
        "(computed): Ana +4,000 life, Bo -4,000 life"
    )
    page.context.close()

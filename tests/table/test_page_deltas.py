"""issue 9 (the page side): an event message carries what changed (``entry.changes``), not the
whole state; the page applies it to its copy (common.js, ``applyChanges``), and asks for the
whole state again (a hello with ``since``) only when a sequence number is missing or a change
can't be applied. In Debian's chromium, driven by Playwright, against a real server (the
fixtures ``base`` and ``browser`` are in conftest.py); ``applyChanges`` is also checked against
the server's reference, ``lifeledger_table.decide.changes.apply_changes``."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import get, life, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, Page, WebSocketRoute, expect  # noqa: E402
from table_helpers import THG, TWO  # noqa: E402

from lifeledger_table.decide import engine  # noqa: E402
from lifeledger_table.decide.changes import apply_changes, changes  # noqa: E402
from lifeledger_table.decide.setup import build_setup  # noqa: E402

pytestmark = pytest.mark.browser


# ---------------------------------------------------------------- a phone's socket, relayed


class Wire:
    """A page's WebSocket, relayed through Playwright: every message each way (parsed), and
    the means to lose the next ``drop`` events or to garble the next ``garble`` ones."""

    def __init__(self, page: Page) -> None:
        self.up: list[dict[str, Any]] = []
        self.down: list[dict[str, Any]] = []
        self.drop = 0
        self.garble = 0
        self.dropped: list[int] = []
        page.route_web_socket(re.compile(r"/ws/"), self._relay)

    def _relay(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            msg = json.loads(message)
            self.down.append(msg)
            if msg.get("type") == "event" and self.drop:
                self.drop -= 1
                self.dropped.append(msg["seq"])
                return
            if msg.get("type") == "event" and self.garble:
                self.garble -= 1
                msg["entry"]["changes"].insert(0, {"player": "nobody", "what": "life", "to": 1})
                message = json.dumps(msg)
            ws.send(message)

        def up(message: str | bytes) -> None:
            self.up.append(json.loads(message))
            server.send(message)

        server.on_message(down)
        ws.on_message(up)

    def events(self) -> list[dict[str, Any]]:
        return [m for m in self.down if m.get("type") == "event"]

    def hellos(self) -> list[dict[str, Any]]:
        return [m for m in self.up if m.get("type") == "hello"]


# ---------------------------------------------------------------- acting and comparing


def server_view(base: str, table: str) -> dict[str, Any]:
    view: dict[str, Any] = get(f"{base}/api/tables/{table}")
    return view


def do(phone: Page, base: str, table: str, step: Any) -> None:
    """One change from ``phone`` (seated): an action (a dict), "undo" or "next_game"; it must
    be accepted (the table's sequence number moves on by one)."""
    seq = server_view(base, table)["seq"]
    if step == "undo":
        phone.evaluate("() => lifeledger.request('undo', null, {target: lifeledger.S.undoTarget})")
    elif step == "next_game":
        phone.evaluate("() => lifeledger.request('next_game')")
    else:
        phone.evaluate("(a) => lifeledger.act(a)", step)
    phone.wait_for_function("() => lifeledger.S.pending.size === 0")
    said = phone.locator("#toast").inner_text()
    assert server_view(base, table)["seq"] == seq + 1, f"not accepted: {step} ({said})"


def page_view(page: Page) -> dict[str, Any]:
    view: dict[str, Any] = page.evaluate(
        """() => { const S = lifeledger.S;
                   return {seq: S.lastSeq, state: S.state, score: S.score, effects: S.effects,
                   can_undo: S.canUndo,
                   undo_target: S.undoTarget === undefined ? null : S.undoTarget,
                   seqs: S.entries.map((e) => e.seq)}; }"""
    )
    return view


def agrees(page: Page, base: str, table: str) -> dict[str, Any]:
    """Wait for ``page`` to hold the table's last event; its state, score, effects and undo
    equal the server's (GET /api/tables/{id}), and its panels show that state."""
    server = server_view(base, table)
    page.wait_for_function("(n) => lifeledger.S.lastSeq === n", arg=server["seq"])
    mine = page_view(page)
    assert mine["state"] == server["state"]
    for key in ("score", "effects", "can_undo", "undo_target"):
        assert mine[key] == server[key], key
    if mine["seqs"]:  # the timeline holds every event from its first on
        assert mine["seqs"] == list(range(mine["seqs"][0], server["seq"] + 1))
    state = server["state"]
    shared = {t["id"]: t for t in state["teams"] if t["life"] is not None}
    for team in shared.values():
        expect(page.locator(f'[data-team="{team["id"]}"] .life')).to_have_text(str(team["life"]))
    for p in state["players"]:
        if p["team"] not in shared:
            expect(life(page, p["id"])).to_have_text(str(p["life"]))
    banner = page.locator("#banner")
    (expect(banner).to_be_visible if state["over"] else expect(banner).to_be_hidden)()
    return server


def watching(browser: Browser, base: str, table: dict[str, Any]) -> tuple[Page, Wire]:
    page = new_phone(browser)
    wire = Wire(page)
    page.goto(f"{base}/w/{table['watch']}")
    page.wait_for_function("() => lifeledger.S.state !== null")
    return page, wire


def only_deltas(wire: Wire) -> None:
    """The events were deltas, and each was applied: no event carried the state, and the page
    never asked for the state again (one hello, as it connected)."""
    events = wire.events()
    assert events
    carried = [m["seq"] for m in events if "state" in m]
    assert not carried, f"events {carried} carry the whole state"
    assert len(wire.hellos()) == 1, wire.hellos()


def test_a_page_applies_mixed_changes_and_agrees_with_the_server(
    base: str, browser: Browser
) -> None:
    """Damage, infect, counters added and removed (a count at 0 leaves its key), a card that
    triggers (effects and triggered), draws from a counted library, a game-ending action, its
    undo (over becomes false), the next game (a new game number, totals back, the score):
    after each, the watching page's copy equals the server's."""
    table = post(
        base + "/api/tables", {"players": [{"name": "Ana", "library": 40}, {"name": "Bo"}]}
    )
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    watcher, wire = watching(browser, base, table)
    steps: list[Any] = [
        {"do": "damage", "source": "Shock", "to": "bo", "amount": 2},
        {"do": "damage", "source": "Blight", "to": "bo", "amount": 2, "infect": True},
        {"do": "add_counters", "player": "ana", "kind": "energy", "amount": 3},
        {"do": "remove_counters", "player": "ana", "kind": "energy", "amount": 3},
        {"do": "card", "id": "pridemate", "name": "Ajani's Pridemate", "controller": "ana"},
        {"do": "gain_life", "player": "ana", "amount": 2},
        {"do": "draw", "player": "ana", "count": 2},
        {"do": "end", "id": "pridemate"},
        {"do": "card", "id": "angel", "name": "Platinum Angel", "controller": "bo"},
        {"do": "end", "id": "angel"},
        {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 8},
    ]
    for step in steps:
        do(ana, base, table["id"], step)
        agrees(watcher, base, table["id"])
    expect(watcher.locator('[data-player="bo"] .status')).to_contain_text("704.5c")
    do(ana, base, table["id"], "undo")
    server = agrees(watcher, base, table["id"])
    assert not server["state"]["over"]
    expect(watcher.locator('[data-player="bo"] .status')).to_have_text("")
    watcher.locator("#history-btn").click()
    expect(watcher.locator("#history-list")).to_contain_text("the game is no longer over")
    expect(watcher.locator("#history-list")).to_contain_text("Bo poison 2 → 10")
    watcher.locator('#history [data-close="history"]').click()
    do(
        ana,
        base,
        table["id"],
        {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 8},
    )
    agrees(watcher, base, table["id"])
    expect(watcher.locator("#banner")).to_contain_text("Ana won")
    do(ana, base, table["id"], "next_game")
    server = agrees(watcher, base, table["id"])
    assert server["score"]["game"] == 2 and not server["state"]["over"]
    expect(watcher.locator("#score")).to_contain_text("Game 2")
    expect(watcher.locator("#score")).to_contain_text("Ana 1–0–0")
    do(ana, base, table["id"], {"do": "lose_life", "player": "ana", "amount": 1})
    agrees(watcher, base, table["id"])
    only_deltas(wire)
    ana.context.close()
    watcher.context.close()


def test_a_page_applies_commander_damage_and_agrees_with_the_server(
    base: str, browser: Browser
) -> None:
    """Commander damage (a count per commander, shown on the panel's row), the 21st point that
    ends the game (704.6c), its undo, and the next: the watching page agrees with the server."""
    table = post(
        base + "/api/tables",
        {
            "variant": "two-player",
            "format": "commander",
            "players": [
                {"name": "Ana", "commanders": ["Thrasios", "Tymna"]},
                {"name": "Bo", "commanders": ["Atraxa"]},
            ],
        },
    )
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    watcher, wire = watching(browser, base, table)
    hit = {"do": "damage", "to": "bo", "combat": True}
    for source, amount in (("ana-thrasios", 10), ("ana-tymna", 7), ("ana-thrasios", 10)):
        do(ana, base, table["id"], {**hit, "source": source, "amount": amount})
        agrees(watcher, base, table["id"])
    thrasios = watcher.locator('[data-player="bo"] [data-from="ana-thrasios"] .cmd-total')
    expect(thrasios).to_have_text("20")
    expect(watcher.locator('[data-player="bo"] [data-from="ana-tymna"] .cmd-total')).to_have_text(
        "7"
    )
    do(ana, base, table["id"], {**hit, "source": "ana-thrasios", "amount": 1})
    agrees(watcher, base, table["id"])
    expect(watcher.locator('[data-player="bo"] .status')).to_contain_text("704.6c")
    expect(thrasios).to_have_text("21")
    do(ana, base, table["id"], "undo")
    agrees(watcher, base, table["id"])
    expect(thrasios).to_have_text("20")
    do(ana, base, table["id"], {**hit, "source": "bo-atraxa", "to": "ana", "amount": 5})
    agrees(watcher, base, table["id"])
    do(ana, base, table["id"], "undo")
    agrees(watcher, base, table["id"])
    # Bo's commander's damage to Ana, undone: its chip on Ana's panel is back to 0.
    expect(watcher.locator('[data-player="ana"] [data-from="bo-atraxa"] .cmd-total')).to_have_text(
        "0"
    )
    only_deltas(wire)
    ana.context.close()
    watcher.context.close()


def test_a_page_applies_a_shared_team_total_to_its_heads(base: str, browser: Browser) -> None:
    """Two-Headed Giant: a team's shared life and poison are also each head's (810.9a); the
    team's loss is a team status change, shown like a player's; its undo brings them back."""
    table = post(base + "/api/tables", THG)
    cy = new_phone(browser)
    sit_anywhere(cy, base, table["id"], "cy")
    watcher, wire = watching(browser, base, table)
    for step in (
        {"do": "lose_life", "player": "ana", "amount": 5},
        {"do": "gain_life", "player": "bo", "amount": 2},
        {"do": "damage", "source": "Blight", "to": "bo", "amount": 3, "infect": True},
        {"do": "add_counters", "player": "cy", "kind": "energy", "amount": 2},
        {"do": "lose_life", "player": "bo", "amount": 27},
    ):
        do(cy, base, table["id"], step)
        server = agrees(watcher, base, table["id"])
    assert server["state"]["over"]
    north = next(t for t in server["state"]["teams"] if t["id"] == "north")
    assert north["status"] == "lost"
    expect(watcher.locator('[data-team="north"] .status')).to_contain_text("LOST")
    expect(watcher.locator("#banner")).to_contain_text("Cy & Di won")
    toast = watcher.locator("#toast")  # the team's loss, said once (not again for each head)
    expect(toast).to_contain_text("North lost")
    expect(toast).not_to_contain_text("Ana lost")
    watcher.locator("#history-btn").click()
    expect(watcher.locator("#history-list")).to_contain_text("North lost")
    watcher.locator('#history [data-close="history"]').click()
    do(cy, base, table["id"], "undo")
    server = agrees(watcher, base, table["id"])
    assert [p["life"] for p in server["state"]["players"]][:2] == [27, 27]
    expect(watcher.locator('[data-team="north"] .status')).to_have_text("")
    only_deltas(wire)
    cy.context.close()
    watcher.context.close()


def sit_anywhere(page: Page, base: str, table: str, player: str) -> None:
    """Take a seat in a game whose panels are teams (``sit`` looks for a player's panel)."""
    page.goto(f"{base}/t/{table}")
    page.locator(f'#picker button[data-seat="{player}"]').click()
    expect(page.locator("#picker")).to_be_hidden()
    page.wait_for_function("(p) => lifeledger.S.seat === p", arg=player)


# ---------------------------------------------------------------- a missing sequence number


def test_a_page_that_missed_a_sequence_number_recovers(base: str, browser: Browser) -> None:
    """issue 9 (done means): an event lost on the way; the next one's sequence number is not the
    page's last plus one, so the page asks for the state after the last event it holds (a hello
    with ``since``); the welcome replaces its state, and its timeline holds the lost event."""
    table = post(base + "/api/tables", TWO)
    ana, bo = new_phone(browser), new_phone(browser)
    wire = Wire(bo)
    sit(ana, base, table["id"], "ana")
    sit(bo, base, table["id"], "bo")
    do(ana, base, table["id"], {"do": "lose_life", "player": "bo", "amount": 1})
    agrees(bo, base, table["id"])
    held = page_view(bo)["seq"]
    hellos = len(wire.hellos())
    wire.drop = 1
    do(ana, base, table["id"], {"do": "damage", "source": "Shock", "to": "bo", "amount": 3})
    assert wire.dropped == [held + 1]
    bo.wait_for_timeout(200)
    expect(life(bo, "bo")).to_have_text("19")  # it didn't hear of it
    assert page_view(bo)["seq"] == held
    do(
        ana,
        base,
        table["id"],
        {"do": "add_counters", "player": "bo", "kind": "poison", "amount": 2},
    )
    server = agrees(bo, base, table["id"])
    expect(life(bo, "bo")).to_have_text("16")
    assert server["state"]["players"][1]["poison"] == 2
    asked = wire.hellos()[hellos:]
    assert [m["since"] for m in asked] == [held]
    assert asked[0]["token"]  # still seated
    assert page_view(bo)["seqs"][-3:] == [held, held + 1, held + 2]
    bo.locator("#history-btn").click()
    expect(bo.locator(f'#history-list li[data-seq="{held + 1}"]')).to_contain_text(
        "Shock: 3 damage to Bo"
    )
    bo.locator('#history [data-close="history"]').click()
    # And it goes on applying deltas, and can act.
    bo.locator('[data-player="ana"] [data-act="minus"]').click()
    bo.wait_for_function("() => lifeledger.S.pending.size === 0")
    agrees(bo, base, table["id"])
    agrees(ana, base, table["id"])
    assert len(wire.hellos()) == hellos + 1
    ana.context.close()
    bo.context.close()


def test_a_page_whose_seq_fell_behind_asks_again(base: str, browser: Browser) -> None:
    """The page's own count set back by one (as if it had missed an event): the next event is
    two ahead, and the page asks for the state again rather than apply it twice."""
    table = post(base + "/api/tables", TWO)
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    watcher, wire = watching(browser, base, table)
    do(ana, base, table["id"], {"do": "lose_life", "player": "bo", "amount": 2})
    agrees(watcher, base, table["id"])
    watcher.evaluate("() => { lifeledger.S.lastSeq -= 1; }")
    do(ana, base, table["id"], {"do": "lose_life", "player": "bo", "amount": 2})
    agrees(watcher, base, table["id"])
    expect(life(watcher, "bo")).to_have_text("16")
    assert len(wire.hellos()) == 2
    ana.context.close()
    watcher.context.close()


def test_a_change_the_page_cannot_apply_asks_for_the_state(base: str, browser: Browser) -> None:
    """An event whose changes name a player the page doesn't know (a page out of step with
    the server) is not half applied: the page asks for the whole state again."""
    table = post(base + "/api/tables", TWO)
    ana = new_phone(browser)
    sit(ana, base, table["id"], "ana")
    watcher, wire = watching(browser, base, table)
    wire.garble = 1
    do(ana, base, table["id"], {"do": "lose_life", "player": "bo", "amount": 4})
    agrees(watcher, base, table["id"])
    expect(life(watcher, "bo")).to_have_text("16")
    assert len(wire.hellos()) == 2
    assert wire.hellos()[1]["since"] == 0
    ana.context.close()
    watcher.context.close()


# ---------------------------------------------------------------- applyChanges vs the reference


@pytest.fixture(scope="module")
def blank(base: str, browser: Browser) -> Iterator[Page]:
    """A page with common.js loaded (the table opener's)."""
    page = new_phone(browser)
    page.goto(base + "/")
    page.wait_for_function("() => typeof lifeledger.applyChanges === 'function'")
    yield page
    page.context.close()


APPLY = """(cases) => cases.map(([stateText, changesText]) => {
  const state = lifeledger.parseJSON(stateText);
  const before = lifeledger.toJSON(state);
  let out;
  try { out = lifeledger.toJSON(lifeledger.applyChanges(state,
      lifeledger.parseJSON(changesText))); }
  catch (e) { out = "error: " + e.message; }
  return [out, lifeledger.toJSON(state) === before];
})"""


def js_apply(page: Page, cases: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> list[Any]:
    """``applyChanges`` on each (state, changes), given and read back as JSON text (parsed by
    the page's parseJSON: integers beyond 2^53 stay exact); each input must be left as it was."""
    answers = page.evaluate(APPLY, [[json.dumps(s), json.dumps(c)] for s, c in cases])
    out = []
    for text, untouched in answers:
        assert untouched, "applyChanges changed the state it was given"
        assert not text.startswith("error:"), text
        out.append(json.loads(text))
    return out


COUNT = st.one_of(st.integers(0, 40), st.integers(-(10**30), 10**30))
KEYS = st.sampled_from(["poison", "energy", "experience", "rad", "ana-thrasios", "x"])


@st.composite
def states(draw: st.DrawFn) -> dict[str, Any]:
    """A state of the spec's shape: players, some in teams (whose players list agrees)."""
    n = draw(st.integers(1, 6))
    ids = [f"p{i}" for i in range(n)]
    team_of = {p: draw(st.sampled_from([None, "t0", "t1"])) for p in ids}
    shared = draw(st.booleans())
    teams = []
    for tid in sorted({t for t in team_of.values() if t}):
        teams.append(
            {
                "id": tid,
                "players": [p for p in ids if team_of[p] == tid],
                "life": draw(COUNT) if shared else None,
                "poison": draw(st.integers(0, 15)) if shared else None,
                "status": "playing",
                "reason": None,
                "rule": None,
            }
        )
    counts = st.dictionaries(KEYS, COUNT.filter(bool), max_size=3)
    players = [
        {
            "id": p,
            "team": team_of[p],
            "life": draw(COUNT),
            "poison": draw(st.integers(0, 12)),
            "counters": draw(counts),
            "commander_damage": draw(counts),
            "library": draw(st.integers(0, 60)),
            "status": "playing",
            "reason": None,
            "rule": None,
        }
        for p in ids
    ]
    return {
        "record": 1,
        "game": draw(st.integers(1, 3)),
        "over": draw(st.booleans()),
        "players": players,
        "teams": teams,
        "refused": [],
        "triggered": draw(st.dictionaries(st.sampled_from(["a", "b", "c"]), COUNT, max_size=2)),
    }


STANDING = st.sampled_from(
    [
        ("playing", None, None),
        ("lost", "life", "704.5a"),
        ("won", "last-standing", "104.2a"),
        ("lost", "team-life", "810.8a"),
        ("drew", "intentional", "104.4a"),
    ]
)


@st.composite
def change_lists(draw: st.DrawFn, state: dict[str, Any]) -> list[dict[str, Any]]:
    """Changes of every kind, naming the state's players and teams."""
    out: list[dict[str, Any]] = []
    pids = st.sampled_from([p["id"] for p in state["players"]])
    tids = [t["id"] for t in state["teams"]]
    count_or_zero = st.one_of(st.just(0), COUNT)
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["player", "count", "status", "team", "game", "triggered"]))
        item: dict[str, Any]
        if kind == "team" and tids:
            what = draw(st.sampled_from(["life", "poison", "status"]))
            item = {"team": draw(st.sampled_from(tids)), "what": what, "from": 0}
            if what == "status":
                status, reason, rule = draw(STANDING)
                item.update(to=status, reason=reason, rule=rule)
            else:
                item["to"] = draw(COUNT)
        elif kind == "player":
            what = draw(st.sampled_from(["life", "poison", "library"]))
            item = {"player": draw(pids), "what": what, "from": 0, "to": draw(COUNT)}
        elif kind == "count":
            what = draw(st.sampled_from(["counters", "commander_damage"]))
            item = {"player": draw(pids), "what": what, "key": draw(KEYS), "from": 1}
            item["to"] = draw(count_or_zero)
        elif kind == "status":
            status, reason, rule = draw(STANDING)
            item = {"player": draw(pids), "what": "status", "from": "playing", "to": status}
            item.update(reason=reason, rule=rule)
        elif kind == "game":
            what = draw(st.sampled_from(["game", "over"]))
            to = draw(st.integers(1, 9)) if what == "game" else draw(st.booleans())
            item = {"what": what, "from": state[what], "to": to}
        else:
            key = draw(st.sampled_from(["a", "b", "d"]))
            to = draw(st.one_of(st.none(), count_or_zero))
            item = {"what": "triggered", "key": key, "from": state["triggered"].get(key), "to": to}
        out.append(item)
    return out


@given(data=st.data())
def test_apply_changes_in_the_page_agrees_with_the_servers_reference(
    blank: Page, data: st.DataObject
) -> None:
    """The page's applyChanges and the server's apply_changes, on the same random states and
    changes of every kind (huge totals included): the same state, and the input untouched."""
    cases = []
    for _ in range(8):
        state = data.draw(states())
        cases.append((state, data.draw(change_lists(state))))
    assert js_apply(blank, cases) == [apply_changes(s, c) for s, c in cases]


# Random games played by the engine itself: the changes the server computes between two states,
# applied by the page to the first, give the second.
FORMS = [
    {"players": [{"name": "Ana", "library": 6}, {"name": "Bo"}]},
    {
        "variant": "free-for-all",
        "format": "commander",
        "players": [
            {"name": "Ana", "commanders": ["Thrasios"]},
            {"name": "Bo", "commanders": ["Atraxa"]},
            {"name": "Cy", "commanders": ["Edgar"]},
        ],
    },
    THG,
]
CARDS = ["Ajani's Pridemate", "Platinum Angel", "Erebos, God of the Dead", "Rhox Faithmender",
         "Phyrexian Unlife", "Felidar Sovereign", "Tainted Remedy"]  # fmt: skip


def random_action(rng: random.Random, header: dict[str, Any], active: list[str]) -> dict[str, Any]:
    pids = [p["id"] for p in header["players"]]
    commanders = [c for p in header["players"] for c in p.get("commanders", [])]
    who = rng.choice(pids)
    kind = rng.choice(
        ["damage"] * 5 + ["lose_life", "gain_life", "add_counters", "remove_counters", "draw"] * 2
        + ["set_life", "card", "end", "upkeep", "concede", "restart", "exchange_life"]
    )  # fmt: skip
    if kind == "damage":
        action: dict[str, Any] = {"do": "damage", "to": who, "amount": rng.randint(0, 12)}
        action["source"] = rng.choice([*commanders, "Shock"]) if commanders else "Shock"
        if rng.random() < 0.4:
            action["combat"] = True
        if rng.random() < 0.2:
            action["infect"] = True
        if rng.random() < 0.2:
            action.update(lifelink=True, controller=rng.choice(pids))
        return action
    if kind in ("lose_life", "gain_life"):
        return {"do": kind, "player": who, "amount": rng.randint(0, 9)}
    if kind in ("add_counters", "remove_counters"):
        counter = rng.choice(["poison", "energy", "rad"])
        return {"do": kind, "player": who, "kind": counter, "amount": rng.randint(0, 6)}
    if kind == "draw":
        return {"do": "draw", "player": who, "count": rng.randint(0, 3)}
    if kind == "set_life":
        return {"do": "set_life", "player": who, "to": rng.randint(-3, 30)}
    if kind == "card":
        cid = f"c{rng.randint(0, 10**9)}"
        return {"do": "card", "id": cid, "name": rng.choice(CARDS), "controller": who}
    if kind == "end" and active:
        return {"do": "end", "id": rng.choice(active)}
    if kind == "exchange_life" and len(pids) > 1:
        return {"do": "exchange_life", "players": rng.sample(pids, 2)}
    if kind == "restart" and rng.random() < 0.3:
        return {"do": "restart", "controller": who}
    if kind == "concede" and rng.random() < 0.3:
        return {"do": "concede", "player": who}
    return {"do": "upkeep", "player": who}


def played(rng: random.Random) -> list[tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]]:
    """(state before, the server's changes, state after) for each accepted action of a game."""
    header = build_setup(rng.choice(FORMS))["header"]
    game = engine.new_game(header)
    before = engine.state_of(game)
    active: list[str] = []
    out = []
    for position in range(rng.randint(1, 30)):
        action = random_action(rng, header, active)
        try:
            engine.apply(game, action, position)
        except engine.LifeledgerError:
            continue
        if action["do"] == "card":
            active.append(action["id"])
        elif action["do"] == "end":
            active.remove(action["id"])
        elif action["do"] == "restart":
            active.clear()
        after = engine.state_of(game)
        out.append((before, changes(before, after), after))
        before = after
    return out


@given(rng=st.randoms(use_true_random=False))
def test_apply_changes_in_the_page_follows_real_games(blank: Page, rng: random.Random) -> None:
    """Random games played by the engine: for each action, the changes the server reports,
    applied by the page to the state before, give the state after (and what the server's
    reference gives)."""
    steps = played(rng)
    cases = [(before, items) for before, items, _ in steps]
    assert js_apply(blank, cases) == [after for _, _, after in steps]
    assert [apply_changes(b, c) for b, c in cases] == [after for _, _, after in steps]

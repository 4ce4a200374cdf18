"""issue 21 item 4 (the page side): a change the server wrote, whose answer was lost when the
server was killed, is sent again by the page's offline queue to the server started anew, and
is acknowledged: the page keeps it, and never says "Refused" for something that happened. In
Debian's chromium, driven by Playwright, against a real server process killed with SIGKILL."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import Relay, free_port, get, life, need_chromium, new_phone, post, sit  # noqa: E402
from playwright.sync_api import Browser, WebSocketRoute, expect  # noqa: E402

pytestmark = pytest.mark.browser


class Server:
    """``python -m lifeledger_table`` on one port and one SQLite file, killed and started
    again."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lifeledger_table",
                "--port",
                str(self.port),
                "--db",
                str(self.db),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(600):
            try:
                with urllib.request.urlopen(self.url + "/api/catalogue") as res:
                    if res.status == 200:
                        return
            except OSError:
                assert self.proc.poll() is None, "the server exited"
                time.sleep(0.05)
        raise AssertionError("the server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@pytest.fixture
def killed(tmp_path: Path) -> Iterator[Server]:
    need_chromium()
    server = Server(tmp_path / "tables.db")
    server.start()
    yield server
    server.kill()


def test_resent_change_after_restart_is_acked_by_the_page(killed: Server, browser: Browser) -> None:
    """Bo at 5 life; Ana's phone taps −5: the server writes it (Bo loses, the game is over),
    and is killed before its answer reaches the page. Started again, it is sent the change
    again (the same id, from the page's queue): `ack`, not "Refused: the game is over"; the
    page keeps Bo at 0 and its queue empties."""
    base = killed.url
    table = post(
        base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}], "starting_life": 5}
    )
    page = new_phone(browser)
    relay = Relay(page)
    sit(page, base, table["id"], "ana")
    relay.hold_down = True
    page.locator('[data-player="bo"] [data-act="minus5"]').click()
    page.wait_for_function("() => !lifeledger.TAPS.run")
    deadline = time.monotonic() + 10
    while not relay.held:  # written, and its answer held (Playwright calls the relay meanwhile)
        assert time.monotonic() < deadline, "the change was never answered"
        page.wait_for_timeout(50)
    assert get(f"{base}/api/tables/{table['id']}")["seq"] == 1
    assert page.evaluate("() => lifeledger.S.pending.size") == 1
    cid = relay.actions()[-1]["id"]
    killed.kill()
    relay.held.clear()  # the answer is lost with the server
    relay.hold_down = False
    killed.start()
    page.wait_for_function("() => lifeledger.S.pending.size === 0", timeout=30_000)
    answers = [m for m in relay.down if m.get("id") == cid]
    assert [m["type"] for m in answers][-1:] == ["ack"], answers
    assert not [m for m in answers if m["type"] == "error"], answers
    expect(life(page, "bo")).to_have_text("0")
    expect(page.locator(".toast", has_text="Refused")).to_have_count(0)
    view = get(f"{base}/api/tables/{table['id']}")
    assert view["seq"] == 1  # applied once
    assert next(p for p in view["state"]["players"] if p["id"] == "bo")["life"] == 0
    page.context.close()


@pytest.mark.parametrize("error", ["storage", "throttled", "busy"])
def test_a_change_refused_storage_is_kept_and_sent_again(
    base: str, browser: Browser, error: str
) -> None:
    """issue 21 item 5 (the page side): the server could not save a change (its store can't be
    reached: `storage`) or did not take it (`throttled`; `busy`, its table's share of the
    server spent for now: issue 21 item 1): nothing changed. The page keeps it
    pending (its total shown, not rolled back) and sends it again with its id; it applies
    once."""
    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = new_phone(browser)
    sent: list[dict[str, Any]] = []

    def relay(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def up(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "action":
                sent.append(msg)
                if len(sent) == 1:  # the first try: answered as the server would, not sent
                    answer = {
                        "type": "error",
                        "id": msg["id"],
                        "error": error,
                        "message": "The change could not be saved; nothing changed.",
                    }
                    ws.send(json.dumps(answer))
                    return
            server.send(message)

        ws.on_message(up)
        server.on_message(ws.send)

    page.route_web_socket(re.compile(r"/ws/"), relay)
    sit(page, base, table["id"], "ana")
    page.locator('[data-player="bo"] [data-act="minus"]').click()
    expect(life(page, "bo")).to_have_text("19")
    page.wait_for_timeout(1000)
    expect(life(page, "bo")).to_have_text("19")  # kept, not rolled back
    assert page.evaluate("() => lifeledger.S.pending.size") == 1
    page.wait_for_function("() => lifeledger.S.pending.size === 0", timeout=15_000)
    assert len(sent) == 2 and sent[0]["id"] == sent[1]["id"]  # sent again, the same id
    expect(life(page, "bo")).to_have_text("19")
    view = get(f"{base}/api/tables/{table['id']}")
    assert view["seq"] == 1
    page.context.close()


def test_a_change_waiting_for_the_database_is_said_in_the_strip_and_kept(
    base: str, browser: Browser
) -> None:
    """issue 26 item 7 (the page side): the server says a change waits for its database
    (`waiting`, as its writer words it): the page keeps the change pending (its total shown)
    and says "Waiting for the database" in its connection strip, until the change is
    acknowledged; then the strip is gone and the change applied once."""
    from lifeledger_table.live.writer import waiting_message

    table = post(base + "/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
    page = new_phone(browser)
    held: list[str] = []

    def relay(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def up(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "action" and not held:
                held.append(str(message))  # the database is away: kept, not yet written
                ws.send(json.dumps(waiting_message(msg["id"])))
                return
            server.send(message)

        ws.on_message(up)
        server.on_message(ws.send)

    page.route_web_socket(re.compile(r"/ws/"), relay)
    sit(page, base, table["id"], "ana")
    page.locator('[data-player="bo"] [data-act="minus"]').click()
    strip = page.locator("#netstate")
    expect(strip).to_contain_text("Waiting for the database", timeout=3000)
    expect(life(page, "bo")).to_have_text("19")
    assert page.evaluate("() => lifeledger.S.pending.size") == 1
    page.evaluate(
        "(m) => lifeledger.S.ws.send(m)", held[0]
    )  # the database is back: written, acknowledged
    page.wait_for_function("() => lifeledger.S.pending.size === 0", timeout=10_000)
    expect(strip).not_to_contain_text("Waiting for the database")
    expect(life(page, "bo")).to_have_text("19")
    assert get(f"{base}/api/tables/{table['id']}")["seq"] == 1
    page.context.close()

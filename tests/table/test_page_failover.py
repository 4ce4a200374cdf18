"""issue 10 (the page side): a page stays with its table when the server process it was on
dies. Two `lifeledger serve` processes on one PostgreSQL database behind a small TCP proxy (as
a reverse proxy would send a phone to another process); the page's process is killed with
SIGKILL, the proxy sends the page's reconnection to the other one, and the page resumes from
its last sequence number: a change made while it was cut off is sent again and applied once.
In Debian's chromium, driven by Playwright."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import get, life, new_phone, post, server, sit  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402

pytestmark = pytest.mark.browser


class Proxy:
    """A TCP proxy on loopback that sends each new connection to ``target`` (a port), which
    the test may change: a reverse proxy passing phones to another process."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                client, _ = self.listener.accept()
                try:
                    upstream = socket.create_connection(("127.0.0.1", self.target))
                except OSError:
                    client.close()
                    continue
                for src, dst in ((client, upstream), (upstream, client)):
                    threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for end in (src, dst):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def two_processes(pg_url: str) -> Iterator[list[tuple[str, Any]]]:
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(server(pg_url)) for _ in range(2)]  # type: ignore[arg-type]


def test_a_page_resumes_on_another_process_when_its_own_dies(
    two_processes: list[tuple[str, Any]], browser: Browser
) -> None:
    (first, victim), (second, _) = two_processes
    proxy = Proxy(int(first.rsplit(":", 1)[1]))
    try:
        base = f"http://127.0.0.1:{proxy.port}"
        table = post(f"{first}/api/tables", {"players": [{"name": "Ana"}, {"name": "Bo"}]})
        ana = new_phone(browser)
        sit(ana, base, table["id"], "ana")
        minus = ana.locator('[data-player="bo"] [data-act="minus"]')
        confirmed = (
            "() => lifeledger.S.pending.size === 0"  # shown at once; confirmed by the server
        )
        minus.click()
        expect(life(ana, "bo")).to_have_text("19")
        ana.wait_for_function(confirmed)
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        proxy.target = int(second.rsplit(":", 1)[1])
        minus.click()  # while cut off: it waits, and is sent again once the page is back
        expect(life(ana, "bo")).to_have_text("18")
        ana.wait_for_function(confirmed, timeout=20_000)
        minus.click()
        expect(life(ana, "bo")).to_have_text("17")
        ana.wait_for_function(confirmed)
        data = get(f"{second}/api/tables/{table['id']}")
        assert data["seq"] == 3  # each change applied once
        assert next(p for p in data["state"]["players"] if p["id"] == "bo")["life"] == 17
    finally:
        proxy.close()

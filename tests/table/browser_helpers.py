"""Helpers for the browser tests: a real server process on loopback, Debian's chromium driven
by Playwright, phones (mobile browser contexts), seats and life totals. The fixtures ``base``
(a server for the module) and ``browser`` are in conftest.py."""

from __future__ import annotations

import base64
import functools
import gzip
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    FloatRect,
    Locator,
    Page,
    Playwright,
    WebSocketRoute,
    expect,
)

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


#: Where docs/table.md's screenshots are (the browser tests take them: ``make screens``).
DOCS = Path(__file__).resolve().parents[2] / "docs"


def screenshot(page: Page, name: str, **options: Any) -> None:
    """A screenshot for the docs (``name`` under docs/), taken only when LIFELEDGER_SCREENSHOTS
    is set (``make screens``): a test run leaves the tree as it found it."""
    if os.environ.get("LIFELEDGER_SCREENSHOTS"):
        page.screenshot(path=str(DOCS / name), **options)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def need_chromium() -> None:
    """Skip (or, on CI, fail) when chromium is missing."""
    if not os.path.exists(CHROMIUM):
        # CI must drive the real browser: there a missing chromium is a failure, not a skip.
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed at /usr/bin/chromium")
        pytest.skip("chromium is not installed (make test installs it)")


@contextmanager
def server(db: Path, host: str = "127.0.0.1") -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A real server process serving ``db`` (listening on ``host``): its URL on loopback and
    its process."""
    # The free port found can be taken by another process before the server binds it (tests
    # run beside other servers): a server that exits at its start is started on another port.
    for attempt in range(5):
        port = free_port()
        command = ["-m", "lifeledger_table", "--host", host, "--port", str(port), "--db", str(db)]
        proc = subprocess.Popen(
            [sys.executable, *command],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        if _started(url, proc) or attempt == 4:
            break
    try:
        assert proc.poll() is None, "the server exited"
        yield url, proc
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGCONT)  # in case a test stopped it
            os.kill(proc.pid, signal.SIGTERM)
        proc.wait()


@contextmanager
def static_app(top: Path, under: str) -> Iterator[str]:
    """The app as static files, written by ``lifeledger app`` into ``top/under`` and served by
    a plain file server (``python -m http.server``) over ``top``: its URL."""
    from lifeledger_table.web.staticapp import write_app

    write_app(top / under)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "-d", str(top), str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/{under}/"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(url).close()
                break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait()


def _started(url: str, proc: subprocess.Popen[bytes]) -> bool:
    """Whether the server answers (``False``: it exited first)."""
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/api/catalogue") as res:
                if res.status == 200:
                    return True
        except OSError:
            if proc.poll() is not None:
                return False
            time.sleep(0.05)
    return proc.poll() is None


def post(url: str, body: Any) -> Any:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read())


def get(url: str) -> Any:
    with urllib.request.urlopen(url) as res:
        return json.loads(res.read())


def eventually(read: Any, wanted: Any, timeout: float = 5.0) -> None:
    """``read()`` comes to equal ``wanted`` within ``timeout`` seconds. A page has sent a message
    once it is off its queue, but the server may not have applied it yet: a test that reads the
    server right after must wait for it, as another phone would see it a moment later."""
    deadline = time.monotonic() + timeout
    while (seen := read()) != wanted:
        assert time.monotonic() < deadline, f"{seen!r} never became {wanted!r}"
        time.sleep(0.05)


def new_phone(browser: Browser) -> Page:
    context = browser.new_context(**PHONE)
    return context.new_page()


def sit(page: Page, base: str, table: str, player: str) -> None:
    page.goto(f"{base}/t/{table}")
    page.locator(f'#picker button[data-seat="{player}"]').click()
    expect(page.locator("#picker")).to_be_hidden()
    expect(page.locator(f'[data-player="{player}"] .tag.you')).to_be_visible()


def kept_as_shown(page: Page) -> None:
    """The table's copy for opening it again (taps.js's keepForOffline: written at most once a
    second after a render, and as the page is left) holds the change the page shows last: no
    write waits, and the copy's event is the page's."""
    page.wait_for_function(
        """() => {
          const L = lifeledger;
          if (L.TAPS.offlineTimer || !L.S.state) return false;
          const seq = L.S.lastSeq || L.S.keptSeq || 0;
          return Object.keys(localStorage).some((k) => k.startsWith("lifeledger-offline-")
            && k.endsWith("-" + L.KEY) && JSON.parse(localStorage.getItem(k)).seq === seq);
        }"""
    )


def box_of(target: Locator, timeout: float = 5.0) -> FloatRect:
    """``target``'s box once it is drawn. The server's answer redraws the panels, so the element
    found can be detached before it is measured, which Playwright reports as no box: measure
    again, as a user's finger would land on the redrawn element in the same place."""
    expect(target).to_be_visible()
    deadline = time.monotonic() + timeout
    while (found := target.bounding_box()) is None:
        assert time.monotonic() < deadline, f"{target} is never drawn"
        time.sleep(0.05)
    return found


def life(page: Page, player: str) -> Any:
    return page.locator(f'[data-player="{player}"] .life')


def replaying(browser: Browser, base: str, record: Path) -> Page:
    """A phone on /replay with ``record`` loaded and stepped twice."""
    page = new_phone(browser)
    page.goto(base + "/replay")
    page.locator("#replay-file").set_input_files(str(record))
    expect(page.locator("#rp-pos")).to_contain_text("0 /")
    page.locator("#rp-next").click()
    page.locator("#rp-next").click()
    return page


class Relay:
    """A page's WebSocket relayed through Playwright: the messages each way (parsed); while
    ``hold_down`` the server's answers to the page's changes (an ``event``, ``ack`` or
    ``error`` with an id) are held back; while ``hold_up`` the page's changes never reach the
    server (as on a dead network); ``drop_down`` loses the held answers with their socket."""

    def __init__(self, page: Page) -> None:
        self.up: list[dict[str, Any]] = []
        self.down: list[dict[str, Any]] = []
        self.hold_down = False
        self.hold_up = False
        self.held: list[tuple[WebSocketRoute, str]] = []
        page.route_web_socket(re.compile(r"/ws/"), self._relay)

    def _relay(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            msg = json.loads(message)
            self.down.append(msg)
            if self.hold_down and msg.get("id") and msg.get("type") in ("event", "ack", "error"):
                self.held.append((ws, str(message)))
                return
            ws.send(message)

        def up(message: str | bytes) -> None:
            msg = json.loads(message)
            self.up.append(msg)
            if self.hold_up and msg.get("type") == "action":
                return
            server.send(message)

        server.on_message(down)
        ws.on_message(up)

    def release(self) -> None:
        self.hold_down = False
        for ws, message in self.held:
            ws.send(message)
        self.held.clear()

    def actions(self) -> list[dict[str, Any]]:
        return [m for m in self.up if m.get("type") == "action"]


def held(page: Page, count: int) -> None:
    """Wait until the page's socket holds ``count`` seats (a device table's engine, Pyodide,
    may take many seconds to start on a loaded machine)."""
    page.wait_for_function(
        f"() => lifeledger.S.connected && lifeledger.S.seats.length === {count}", timeout=60_000
    )


def device_table(page: Page, timeout: float = 30_000) -> str:
    """Wait for the page of a table kept on this device (one tap on the start page opens one:
    ``table.html?t=d-...``) and return its id."""
    page.wait_for_function("() => location.search.startsWith('?t=d-')", timeout=timeout)
    page.wait_for_load_state()
    table: str = page.evaluate("new URLSearchParams(location.search).get('t')")
    return table


#: Pyodide's first start in a loaded CI machine's chromium can take many seconds.
ENGINE = 60_000


def open_phone(profile: Path, playwright: Playwright, locale: str | None = None) -> BrowserContext:
    """A phone whose storage lasts (a closed browser opened again keeps IndexedDB, the
    service worker's cache and localStorage)."""
    extra = {} if locale is None else {"locale": locale}
    return playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=ARGS, headless=True, **PHONE, **extra
    )


def first_page(context: BrowserContext) -> Page:
    """The page a phone opened again shows (a persistent context may open with one)."""
    return context.pages[0] if context.pages else context.new_page()


def engine_ready(page: Page) -> None:
    """The engine has answered the page: the table's welcome came from the device."""
    page.wait_for_function("() => lifeledger.S.connected && !!lifeledger.S.state", timeout=ENGINE)


def decided(page: Page) -> None:
    """Every tap decided by the device's engine and kept (nothing waits)."""
    page.wait_for_function(
        "() => lifeledger.S.connected && lifeledger.S.pending.size === 0", timeout=ENGINE
    )


def tap_minus(page: Page, player: str, total: str) -> None:
    """Tap a panel's −1 and see its total become ``total`` (the tap run over)."""
    page.locator(f'.panel[data-player="{player}"] [data-act="minus"]').click()
    expect(life(page, player)).to_have_text(total)
    page.wait_for_function("() => !lifeledger.TAPS.run")


def more_options(page: Page) -> None:
    """Open the start page's "More options": the whole form (presets, names, colours, variants)
    and a table for everyone's own phone, with its code and QR code."""
    page.locator("#more > summary").click()
    expect(page.locator("#open-table")).to_be_visible()


def table_device(browser: Browser, base: str) -> tuple[Page, str]:
    """A tablet that opened a four-player table as "one device for everyone"."""
    page = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True).new_page()
    page.goto(base + "/")
    more_options(page)
    page.get_by_role("button", name="Commander ×4").click()
    page.locator("#open-table").click()
    page.locator("#one-device").click()
    page.wait_for_url("**/t/*")
    table = page.url.rsplit("/", 1)[1]
    held(page, 4)
    return page, table


def new_device_table(
    p: Playwright, tmp_path: Path, base: str, start: dict[str, str]
) -> tuple[BrowserContext, Page]:
    """A phone's new two-player table on the device (the start page's quick game), its engine
    ready: a phone that kept the engine's start (``start``, the ``kept_start`` fixture)."""
    context = open_phone(tmp_path / "phone", p)
    page = first_page(context)
    page.goto(base + "/")
    keep_start(page, start)
    page.locator('[data-quick="two"]').click()
    device_table(page, ENGINE)
    engine_ready(page)
    return context, page


#: Starts the engine worker (``static/engine-worker.js`` from the page's address), makes the
#: calls ``[[call, args], ...]`` at once (they wait for the engine), and answers the ready
#: message, each call's answer, and, after a full start, the "kept" message.
START = """async (calls) => {
  const worker = new Worker("static/engine-worker.js", { type: "module" });
  const out = { answers: [], ready: null, kept: null };
  try {
    await new Promise((resolve, reject) => {
      let left = calls.length;
      const check = () => {
        if (left === 0 && out.ready && (out.ready.start !== "full" || out.kept)) resolve();
      };
      worker.onmessage = ({ data }) => {
        if (data.type === "failed") reject(new Error(data.error));
        else if (data.type === "ready") out.ready = data;
        else if (data.type === "kept") out.kept = data;
        else { out.answers[data.id] = data; left--; }
        check();
      };
      calls.forEach(([call, args], id) => worker.postMessage({ id, call, args }));
    });
  } finally {
    worker.terminate();
  }
  return out;
}"""

#: The engine worker's kept start (docs/table.md, "Device tables"), read or written by a page
#: of its origin: ``[what, record]`` with what "get" (answers the record, or null) or "put"; a
#: record is ``{key, digest, files, bytes}``, its bytes (kept as a Blob) here gzipped, in
#: base64: a start's 30 MB pass between the test and the browser as 8 MB (see kept_record).
KEPT = """async ([what, record]) => {
  const db = await new Promise((resolve, reject) => {
    const req = indexedDB.open("lifeledger-engine", 1);
    req.onupgradeneeded = () => req.result.createObjectStore("starts");
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  let bytes = null;
  if (what === "put") {
    const gzipped = new Blob([Uint8Array.from(atob(record.bytes), (c) => c.charCodeAt(0))]);
    const unzipped = gzipped.stream().pipeThrough(new DecompressionStream("gzip"));
    bytes = await new Response(unzipped).blob();
  }
  const tx = db.transaction("starts", what === "get" ? "readonly" : "readwrite");
  const store = tx.objectStore("starts");
  let found = null;
  if (what === "get") {
    const req = store.get("start");
    req.onsuccess = () => { found = req.result; };
  } else {
    store.put({ key: record.key, digest: record.digest, files: record.files, bytes }, "start");
  }
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve;
    tx.onerror = () => reject(tx.error);
  });
  db.close();
  if (!found) return null;
  const gzipped = found.bytes.stream().pipeThrough(new CompressionStream("gzip"));
  const out = new Uint8Array(await new Response(gzipped).arrayBuffer());
  let text = "";
  for (let i = 0; i < out.length; i += 0x8000) {
    text += String.fromCharCode(...out.subarray(i, i + 0x8000));
  }
  return { key: found.key, digest: found.digest, files: found.files, bytes: btoa(text) };
}"""


@functools.lru_cache(maxsize=2)
def _gzipped(data: str) -> str:
    return base64.b64encode(gzip.compress(base64.b64decode(data), 1)).decode()


def kept_record(page: Page) -> dict[str, str] | None:
    """The kept start on ``page``'s origin (its bytes in base64), or None."""
    found: dict[str, str] | None = page.evaluate(KEPT, ["get", None])
    if found is not None:
        found["bytes"] = base64.b64encode(gzip.decompress(base64.b64decode(found["bytes"])))
        found["bytes"] = found["bytes"].decode()
    return found


def keep_start(page: Page, start: dict[str, str]) -> None:
    """The phone keeps ``start`` (a record as kept_record reads it: the ``kept_start``
    fixture's, for a phone that opened the app before) as its engine's start: its next engine
    starts from it, in a second or two, instead of a full start of Pyodide (issue 27 item 5; a
    full start and what makes, checks and refuses a kept one are test_engine_kept_start.py's).
    ``page`` is on the app's origin, its engine not yet started."""
    page.evaluate(KEPT, ["put", {**start, "bytes": _gzipped(start["bytes"])}])


def write_kept_start(out: str) -> None:
    """Write to ``out`` (JSON) the kept start of this build's engine: one full start of the
    engine worker in chromium, on the app written as static files. Run in a process of its
    own by the ``kept_start`` fixture (a test may already drive Playwright, which runs once a
    thread)."""
    import tempfile

    from playwright.sync_api import sync_playwright

    with (
        tempfile.TemporaryDirectory() as top,
        static_app(Path(top), "app") as url,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_context(service_workers="block").new_page()
        page.goto(url)
        made = page.evaluate(START, [])
        assert made["ready"]["start"] == "full", made["ready"]
        assert made["kept"] and "error" not in made["kept"], made["kept"]
        record = kept_record(page)
        assert record is not None
        browser.close()
    Path(out).write_text(json.dumps(record), "utf-8")

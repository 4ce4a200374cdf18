"""A device table on a phone (issue 27 item 5), measured in Chromium with and without 4x CPU
throttling (CDP's ``Emulation.setCPUThrottlingRate``, the stand-in for a mid-range phone).

Run by hand: ``.venv/bin/python benchmarks/device.py [--runs 3]`` (Debian's chromium).

It writes the app as static files (``lifeledger app``) into a temporary folder and serves it on
loopback with a file server that counts the bytes it sends. For each rate (1x, then 4x), a
fresh phone (a new browser profile: nothing cached, nothing kept):

- **First visit**: the start page, one tap for a two-player device table, until its engine is
  ready (its welcome): the time, and what the server sent until the service worker had kept
  the whole app (its transfer: Chromium asks for no file twice).
- **Opened again**, ``--runs`` times, the app cached (the service worker's) and the engine's
  start kept (engine-worker.js), from the navigation's start: the counter drawn (a panel's
  minus button in the page; and, the same run's floor, a bare page with the app's style and
  one module adding a total and a minus button: the counter's ratio to it); a tap in its
  first instant painted (a script's click as the counter is drawn, to the next frame after
  it: before the engine is ready, so it must never wait on it; and the bare page's tap, made
  and timed the same way: the ratio to it); a finger's tap (Playwright's trusted click
  just after) from its input to the next paint, as the browser's Event Timing API gives it
  (first input; rounded to 8 ms); the engine ready (the table's welcome, which decides the
  taps first) and whether it came from the kept start, with when the page started the worker
  and how long its start took; then, once the taps are decided and kept, a usual change (a
  life loss) decided on the device (the median of 20, asked of the engine itself: not kept,
  and the next open is a fresh engine), and the page's memory: its JavaScript heap (CDP
  ``Performance.getMetrics``) and the resident memory of its renderer process, which holds
  the engine worker and its WebAssembly memory.

CPU throttling slows the page's thread by the rate; Chromium applies it to the renderer and
cannot throttle a dedicated worker on its own ("only supported for pages"), so the worker is
slowed less. It prints min/median/max of each figure, with the load average before and after.
"""

from __future__ import annotations

import argparse
import http.server
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "table"))
from browser_helpers import ARGS, CHROMIUM

from lifeledger_table.web.staticapp import write_app
from spread import summary


class _Counting(http.server.SimpleHTTPRequestHandler):
    sent = 0
    files = 0

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def copyfile(self, source: Any, outputfile: Any) -> None:
        data = source.read()
        type(self).sent += len(data)
        type(self).files += 1
        outputfile.write(data)


#: The same run's floor: a bare page of the same folder (not the app's: written here only),
#: with the app's style and one module script that adds a total and a minus button taking one
#: from it. The counter drawn and the tap painted are given as ratios of the time this page
#: takes to draw its button and to paint its tap, opened and tapped the same way.
FLOOR_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="static/style.css"></head><body><script type="module">
const total = document.createElement("span"); total.textContent = "20";
const b = document.createElement("button"); b.dataset.act = "minus"; b.textContent = "\u2212";
b.addEventListener("click", () => { total.textContent = String(Number(total.textContent) - 1); });
document.body.append(total, b);
</script></body></html>"""
FLOOR_DRAWN = """async () => {
  const minus = () => document.querySelector('[data-act="minus"]');
  await new Promise((resolve) => {
    const look = () => (minus() ? resolve() : requestAnimationFrame(look));
    look();
  });
  const drawn = performance.now();
  minus().click();
  const painted = await new Promise((resolve) =>
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - drawn), 0)));
  return { drawn, painted };
}"""


@contextmanager
def counting_app(top: Path) -> Iterator[str]:
    """The app as static files in ``top/app`` (and the floor's bare page beside its pages),
    served on loopback: its URL."""
    write_app(top / "app")
    (top / "app" / "floor.html").write_text(FLOOR_PAGE)

    def handler(*a: Any, **k: Any) -> _Counting:
        return _Counting(*a, directory=str(top), **k)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/app/"
    finally:
        server.shutdown()


#: A device table's page opened again: the counter drawn, a tap in its first instant painted,
#: and the engine's readiness watched (from the navigation's start).
DRAWN = """async () => {
  const minus = () => document.querySelector('.panel [data-act="minus"]');
  await new Promise((resolve) => {
    const look = () => (minus() && window.lifeledger ? resolve() : requestAnimationFrame(look));
    look();
  });
  const drawn = performance.now();
  const L = window.lifeledger;
  const waited = !L.S.connected;
  window.benchReady = (async () => {
    while (!L.S.connected) await new Promise((r) => setTimeout(r, 5));
    return performance.now();
  })();
  const t0 = performance.now();
  minus().click();
  const painted = await new Promise((resolve) =>
    requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0)));
  return { drawn, painted, waited };
}"""

#: Then, after a finger's tap (a trusted click): its input-to-paint time (the Event Timing
#: API's first input: from the input to the next paint after its handlers, which the browser
#: rounds to 8 ms), the engine ready, and a usual change decided once it is.
AFTER = """async () => {
  const L = window.lifeledger;
  const first = await new Promise((resolve) => new PerformanceObserver((list) => resolve(
    list.getEntries()[0])).observe({ type: "first-input", buffered: true }));
  const ready = await window.benchReady;
  // The taps decided and kept before the changes below, which go to the engine itself, are
  // made: else one of them may take a tap's place in the log, and the tap, kept, leaves a
  // hole the next open refuses ("event 2 is out of order").
  while (L.S.pending.size) await new Promise((r) => setTimeout(r, 5));
  const msg = (i) => L.toJSON({
    type: "action", id: "bench" + i + Math.random().toString(36).slice(2), as: L.S.seats[0],
    action: { do: "lose_life", player: L.S.seats[1], amount: 1 } });
  const spans = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await L.Engine.call("message", L.KEY, msg(i));
    spans.push(performance.now() - t);
  }
  spans.sort((a, b) => a - b);
  return { finger: first.duration, fingerAt: first.startTime, ready, started: L.Engine.started,
           worker: L.Engine.readyMs, how: L.Engine.readyHow, change: spans[10] };
}"""


def renderer_rss(context: BrowserContext) -> float:
    """The largest renderer process's resident memory (MB): the page's, with its workers."""
    browser = context.browser
    assert browser is not None
    cdp = browser.new_browser_cdp_session()
    info = cdp.send("SystemInfo.getProcessInfo")
    cdp.detach()
    sizes = []
    for proc in info["processInfo"]:
        if proc["type"] != "renderer":
            continue
        try:
            status = Path(f"/proc/{proc['id']}/status").read_text()
        except OSError:
            continue
        rss = next(line for line in status.splitlines() if line.startswith("VmRSS:"))
        sizes.append(int(rss.split()[1]) / 1024)
    return max(sizes, default=0.0)


def throttle(context: BrowserContext, page: Page, rate: float) -> None:
    if rate != 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})


def phone(p: Any, url: str, rate: float, runs: int) -> dict[str, Any]:
    """A phone's first visit, then ``runs`` opens of the device table it made."""
    with tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=ARGS, headless=True
        )
        page = context.pages[0] if context.pages else context.new_page()
        throttle(context, page, rate)
        _Counting.sent = _Counting.files = 0
        started = time.monotonic()
        page.goto(url)
        page.locator('[data-quick="two"]').click()
        page.wait_for_function("() => location.search.startsWith('?t=d-')", timeout=60_000)
        connected = "() => window.lifeledger && lifeledger.S && lifeledger.S.connected"
        page.wait_for_function(connected, timeout=180_000)
        first_ready = time.monotonic() - started
        page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=120_000)
        page.wait_for_timeout(3000)  # the engine's start kept, the table kept for opening at once
        first = {"ready": first_ready, "bytes": _Counting.sent, "files": _Counting.files}
        table_url = page.url
        page.close()
        opens = []
        for _ in range(runs):
            page = context.new_page()
            throttle(context, page, rate)
            page.goto(table_url, wait_until="commit")
            got = page.evaluate(DRAWN)
            page.locator('.panel [data-act="minus"]').first.click()
            got.update(page.evaluate(AFTER))
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            got["heap"] = metrics["JSHeapUsedSize"] / 1e6
            got["rss"] = renderer_rss(context)
            page.close()
            page = context.new_page()
            throttle(context, page, rate)
            page.goto(url + "floor.html", wait_until="commit")
            floor = page.evaluate(FLOOR_DRAWN)
            got["floor"], got["floor_painted"] = floor["drawn"], floor["painted"]
            page.close()
            opens.append(got)
        context.close()
    return {"first": first, "opens": opens}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, counting_app(Path(tmp)) as url:
        print(f"load average before: {os.getloadavg()[0]:.2f}")
        got = {}
        with sync_playwright() as p:
            for rate in (1, 4):
                got[rate] = phone(p, url, rate, args.runs)
        print(f"load average after: {os.getloadavg()[0]:.2f}")
        for rate, result in got.items():
            label = "no throttling" if rate == 1 else f"CPU throttled {rate:g}x"
            first, opens = result["first"], result["opens"]
            print(f"{label}")
            print(
                f"  first visit: engine ready after {first['ready']:.1f} s;"
                f" {first['bytes'] / 1e6:.2f} MB sent in {first['files']} files"
            )
            print(f"  a device table opened again, the app cached ({args.runs} runs):")
            print(f"    counter drawn   {summary([g['drawn'] for g in opens])}")
            print(f"      a bare page   {summary([g['floor'] for g in opens])}")
            ratios = [g["drawn"] / g["floor"] for g in opens]
            print(f"      ratio         {summary(ratios, 'x', 2)}")
            print(f"    tap painted     {summary([g['painted'] for g in opens], 'ms', 1)}")
            print(f"      a bare page's {summary([g['floor_painted'] for g in opens], 'ms', 1)}")
            ratios = [g["painted"] / g["floor_painted"] for g in opens]
            print(f"      ratio         {summary(ratios, 'x', 2)}")
            print(f"    a finger's tap  {summary([g['finger'] for g in opens], 'ms', 1)}")
            print(f"      made at       {summary([g['fingerAt'] for g in opens])}")
            print(f"    engine ready    {summary([g['ready'] for g in opens])}")
            print(f"      the worker started at {summary([g['started'] for g in opens])}")
            print(f"      its start took {summary([g['worker'] for g in opens])}")
            hows = sorted({g["how"] for g in opens})
            waited = sum(g["waited"] for g in opens)
            print(f"      (start: {', '.join(map(str, hows))}; tapped before it: {waited})")
            print(f"    a life change   {summary([g['change'] for g in opens], 'ms', 1)}")
            print(f"    page JS heap    {summary([g['heap'] for g in opens], 'MB', 1)}")
            print(f"    renderer RSS    {summary([g['rss'] for g in opens], 'MB')}")
        for name in ("pyodide.asm.wasm", "python_stdlib.zip"):
            size = (Path(tmp) / "app" / "pyodide" / name).stat().st_size
            print(f"  {name:20} {size / 1e6:6.2f} MB")
        engine = (Path(tmp) / "app" / "engine" / "engine.zip").stat().st_size
        print(f"  {'engine.zip':20} {engine / 1e6:6.2f} MB")


if __name__ == "__main__":
    main()

"""The engine in the browser: how long Pyodide takes to boot and import the engine in Chromium,
and what a first visit transfers (issue 27 items 2 and 5: the engine ready within 2 s).

Run by hand: ``.venv/bin/python benchmarks/device.py [--runs 3]`` (Debian's chromium).

It writes the app as static files (``lifeledger app``) into a temporary folder, serves it with
``python -m http.server`` on loopback, and, ``--runs`` times, in a fresh browser context each
time (a first visit: nothing cached), opens the app, starts the engine worker and waits for its
``ready``: the worker's own figure (``ms``: from the worker's start to the engine imported) and
the page's (from ``new Worker`` to ``ready``). Once with no throttling and once with CDP's
``Emulation.setCPUThrottlingRate`` at 4x, taking turns. Then the first visit's transfer: the
sum of the files the service worker keeps (the app shell, the engine and Pyodide, which is
what a first visit fetches so that the app works offline), and of the engine and Pyodide
alone. It prints min/median/max of each, with the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "table"))
from browser_helpers import ARGS, CHROMIUM, static_app

from lifeledger_table.web.pages import build_id

BOOT = """async () => {
  const started = performance.now();
  const worker = new Worker("static/engine-worker.js");
  const ready = await new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) =>
      data.type === "ready" ? resolve(data) : reject(new Error(data.error));
  });
  const page = performance.now() - started;
  worker.terminate();
  return { worker: ready.ms, page };
}"""


def boot(browser: Browser, url: str, rate: float) -> tuple[float, float]:
    context = browser.new_context(service_workers="block")  # the engine from the network
    page = context.new_page()
    page.goto(url)
    if rate != 1:
        context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
    got = page.evaluate(BOOT)
    context.close()
    return float(got["worker"]), float(got["page"])


#: A device table's page opened again with the app cached (the service worker's): when its
#: counter is drawn and takes taps, when the engine is ready (both from the navigation's start),
#: and what the engine takes to decide a usual change (a life loss) once ready.
REOPENED = """async () => {
  await new Promise((resolve) => {
    const drawn = () => document.querySelector('.panel [data-act="minus"]');
    const look = () => (drawn() ? resolve() : requestAnimationFrame(look));
    look();
  });
  const drawn = performance.now();
  // lifeledger: the page's inspection surface (docs/table.md, "The page's scripts").
  while (!(typeof lifeledger === "object" && lifeledger.S.connected)) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const ready = performance.now();
  const msg = (i) => JSON.stringify({
    type: "action", id: "bench" + i + Math.random().toString(36).slice(2),
    as: lifeledger.S.seats[0],
    action: { do: "lose_life", player: lifeledger.S.seats[1], amount: 1 } });
  const spans = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await lifeledger.Engine.call("message", lifeledger.KEY, msg(i));
    spans.push(performance.now() - t0);
  }
  spans.sort((a, b) => a - b);
  return { drawn, ready, change: spans[10] };
}"""


def reopen(browser_type: object, url: str, rate: float, runs: int) -> list[dict[str, float]]:
    """A phone that started a device table once (the app cached), then opens it ``runs`` times."""
    with tempfile.TemporaryDirectory() as profile:
        context = browser_type.launch_persistent_context(  # type: ignore[attr-defined]
            profile, executable_path=CHROMIUM, args=ARGS, headless=True
        )
        page = context.pages[0] if context.pages else context.new_page()
        page.goto(url)
        page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=60_000)
        page.locator('[data-quick="two"]').click()
        page.wait_for_function("() => location.search.startsWith('?t=d-')", timeout=60_000)
        page.wait_for_function("() => lifeledger.S.connected", timeout=120_000)
        page.wait_for_timeout(1500)  # the table kept for opening at once
        table_url = page.url
        out = []
        for _ in range(runs):
            page = context.new_page()
            if rate != 1:
                context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": rate})
            page.goto(table_url, wait_until="commit")
            out.append(page.evaluate(REOPENED))
            page.close()
        context.close()
    return out


def summary(values: list[float], unit: str = "ms") -> str:
    return (
        f"min {min(values):8.0f} {unit}  median {statistics.median(values):8.0f} {unit}"
        f"  max {max(values):8.0f} {unit}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "app"
        with static_app(Path(tmp), "app") as url:
            print(f"load average before: {os.getloadavg()[0]:.2f}")
            times: dict[float, tuple[list[float], list[float]]] = {1: ([], []), 4: ([], [])}
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for _ in range(args.runs):
                    for rate, (worker, page) in times.items():
                        w, g = boot(browser, url, rate)
                        worker.append(w)
                        page.append(g)
                browser.close()
            reopened = {}
            with sync_playwright() as p:
                for rate in (1, 4):
                    reopened[rate] = reopen(p.chromium, url, rate, args.runs)
            print(f"load average after: {os.getloadavg()[0]:.2f}")
            for rate, got in reopened.items():
                label = "no throttling" if rate == 1 else f"CPU throttled {rate:g}x"
                print(f"a device table opened again, the app cached, {label} ({args.runs} runs)")
                print(f"  counter drawn   {summary([g['drawn'] for g in got])}")
                print(f"  engine ready    {summary([g['ready'] for g in got])}")
                print(f"  a life change   {summary([g['change'] for g in got], 'ms')}")
            for rate, (worker, page) in times.items():
                label = "no throttling" if rate == 1 else f"CPU throttled {rate:g}x"
                print(f"boot + engine import, {label} ({args.runs} runs, first visits)")
                print(f"  in the worker   {summary(worker)}")
                print(f"  seen by page    {summary(page)}")
            _, shell = build_id()
            sizes = {u: (folder / u).stat().st_size for u in shell}
            engine = {u: s for u, s in sizes.items() if u.startswith(("engine/", "pyodide/"))}
            print(f"first visit: {sum(sizes.values()) / 1e6:.2f} MB in {len(sizes)} files", end="")
            print(f" (the engine and Pyodide: {sum(engine.values()) / 1e6:.2f} MB)")
            for u, s in sorted(engine.items(), key=lambda x: -x[1]):
                print(f"  {u:32} {s / 1e6:6.2f} MB")


if __name__ == "__main__":
    main()

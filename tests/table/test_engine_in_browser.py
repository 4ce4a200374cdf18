"""issue 27 items 2 and 6: one engine, proven the same. The app written as static files
(``lifeledger app``) is served by a plain ``python -m http.server``; Debian's chromium opens
it, starts the engine worker (Pyodide, the app's own copy), and replays every record of
``examples/`` and of the shared examples through ``lifeledger_table.device.replaying`` in the
worker. Each outcome is compared, field by field, with what ``lifeledger replay --json``
prints for the same file; a record the command line rejects is rejected in the browser with
the same words. Then, offline, the page opens again from the service worker's cache and its
engine starts again: the app works offline after one visit."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lifeledger import cli

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import static_app  # noqa: E402
from playwright.sync_api import Browser, Page  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
#: The shared examples, beside the repository (as make examples finds them: ../shared).
SHARED = ROOT.parent / "shared" / "examples"


def records() -> list[Path]:
    found = []
    for folder in (ROOT / "examples", SHARED):
        found += sorted(
            p for p in folder.glob("*.json*") if ".expected." not in p.name and p.is_file()
        )
    return found


def command_line(path: Path) -> tuple[int, str, str]:
    """``lifeledger replay --json PATH``: its exit status, standard output and error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(["replay", "--json", "--lang", "en", str(path)])
    return status, out.getvalue(), err.getvalue()


def differences(cli_value: Any, browser_value: Any, where: str) -> list[str]:
    """Every field where the two differ, named by its path in the state."""
    if isinstance(cli_value, dict) and isinstance(browser_value, dict):
        out = []
        for key in sorted(set(cli_value) | set(browser_value)):
            if key not in browser_value or key not in cli_value:
                out.append(
                    f"{where}.{key}: only in {'the CLI' if key in cli_value else 'the browser'}"
                )
            else:
                out += differences(cli_value[key], browser_value[key], f"{where}.{key}")
        return out
    if isinstance(cli_value, list) and isinstance(browser_value, list):
        if len(cli_value) != len(browser_value):
            return [
                f"{where}: {len(cli_value)} items from the CLI, {len(browser_value)} in the browser"
            ]
        pairs = zip(cli_value, browser_value, strict=True)
        return [d for i, (a, b) in enumerate(pairs) for d in differences(a, b, f"{where}[{i}]")]
    if cli_value != browser_value or type(cli_value) is not type(browser_value):
        return [f"{where}: the CLI says {cli_value!r}, the browser {browser_value!r}"]
    return []


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The static app, written by lifeledger app and served by python -m http.server under a
    sub-path (/sub/app/): its URL."""
    from browser_helpers import need_chromium

    need_chromium()
    with static_app(tmp_path_factory.mktemp("static"), "sub/app") as url:
        yield url


#: Starts the engine worker and makes the calls at once (before it is ready: they wait and
#: run in order), answering each call's {result} or {error}, the ready message, and in what
#: order the messages came.
RUN = """async ([calls]) => {
  const worker = new Worker("static/engine-worker.js");
  const seen = [];
  const answers = new Array(calls.length);
  const done = new Promise((resolve, reject) => {
    let left = calls.length;
    worker.onmessage = ({ data }) => {
      seen.push(data.type || data.id);
      if (data.type === "failed") reject(new Error(data.error));
      if (data.type) return;
      answers[data.id] = data;
      if (--left === 0) resolve();
    };
  });
  calls.forEach(([call, args], id) => worker.postMessage({ id, call, args }));
  await done;
  worker.terminate();
  return { answers, seen };
}"""


def run(page: Page, calls: list[tuple[str, list[str]]]) -> tuple[list[dict[str, Any]], list[Any]]:
    got = page.evaluate(RUN, [calls])
    return got["answers"], got["seen"]


REPLAY = "lifeledger_table.device.replaying:replay_json"


@pytest.mark.browser
def test_every_record_replays_in_the_browser_as_on_the_command_line(
    browser: Browser, app: str
) -> None:
    paths = records()
    assert len(paths) >= 60 and any(SHARED in p.parents for p in paths)
    context = browser.new_context()
    page = context.new_page()
    page.goto(app)
    calls: list[tuple[str, list[str]]] = [
        (REPLAY, [p.read_bytes().decode("utf-8"), p.name]) for p in paths
    ]
    # Only lifeledger_table.device's functions may be called, with strings.
    calls += [("lifeledger.cli:main", ["--help"]), ("lifeledger_table.device.replaying:nope", [])]
    answers, seen = run(page, calls)
    assert seen[0] == "ready" and seen[1:] == list(range(len(calls)))  # queued, then in order
    problems = []
    rejected = 0
    for path, answer in zip(paths, answers, strict=False):
        status, out, err = command_line(path)
        if status == 2:
            rejected += 1
            said = f"lifeledger: {path}: {answer.get('error')}"
            if "error" not in answer or err.strip() != said:
                problems.append(
                    f"{path.name}: the CLI says {err.strip()!r}, the browser {answer!r}"
                )
            continue
        assert status == 0, (path.name, err)
        if "error" in answer:
            problems.append(f"{path.name}: the browser rejects it: {answer['error']}")
            continue
        problems += [
            f"{path.name}: {d}"
            for d in differences(json.loads(out), json.loads(answer["result"]), "$")
        ]
        if not problems and answer["result"] != out:
            problems.append(f"{path.name}: the same fields, but not the same text")
    assert problems == []
    assert rejected >= 1  # the malformed examples are among them
    outside, missing = answers[len(paths) :]
    assert "only functions of lifeledger_table.device" in outside["error"]
    assert "no such function" in missing["error"]

    # The service worker kept the app and its engine: offline, the page opens and the engine
    # starts again (one record, the first, gives the same state).
    page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=30_000)
    kept = page.evaluate(
        """() => caches.keys().then((k) => caches.open(k[0])).then((c) => c.keys())
             .then((r) => r.map((x) => x.url))"""
    )
    for url in ("engine/engine.zip", "pyodide/pyodide.asm.wasm", "static/engine-worker.js"):
        assert app + url in kept
    context.set_offline(True)
    page.reload()
    again, _ = run(page, [calls[0]])
    assert again[0] == answers[0]
    context.close()

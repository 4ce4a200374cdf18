"""issue 8, "an app you can install": a web app manifest (name, icons 192/512 and maskable,
start URL, standalone display, theme colour), icons and a favicon drawn by
``lifeledger_table.web.icons``, and a service worker at /sw.js that keeps the app shell in a cache
named by the build, so the app opens with no network; a newer build's worker replaces the
older cache. The API and the WebSocket are never cached. The browser half runs in Debian's
chromium (Playwright) behind a TCP proxy, so that the server can go away and come back at the
same address."""

from __future__ import annotations

import json
import re
import struct
import urllib.request
import zlib
from pathlib import Path
from typing import Any

import pytest

from lifeledger_table.web import icons
from lifeledger_table.web.pages import STATIC, build_id


def fetch(url: str) -> tuple[str, bytes, Any]:
    with urllib.request.urlopen(url) as res:
        return res.headers.get("Content-Type", ""), res.read(), res.headers


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, after checking its signature and every chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at = 8
    size = (0, 0)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        body = data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + body) & 0xFFFFFFFF == crc, kind
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        at += 12 + length
    return size


# ---------------------------------------------------------------- icons (no browser)


def test_the_committed_icons_are_what_icons_py_draws() -> None:
    drawn = {
        "icon-192.png": icons.png(icons.draw(192)),
        "favicon.ico": icons.ico([(n, icons.png(icons.draw(n))) for n in (16, 32, 48)]),
    }
    for name, data in drawn.items():
        assert (STATIC / name).read_bytes() == data, (
            f"{name}: run python -m lifeledger_table.web.icons"
        )
    for name, side in (
        ("icon-192.png", 192),
        ("icon-512.png", 512),
        ("icon-maskable-512.png", 512),
        ("apple-touch-icon.png", 180),
    ):
        assert png_size((STATIC / name).read_bytes()) == (side, side), name


def test_the_maskable_icon_is_full_bleed_and_the_other_has_round_corners() -> None:
    maskable = icons.draw(64, maskable=True)
    plain = icons.draw(64)
    assert maskable[0][3] == 255  # the corner pixel is opaque: the launcher cuts the shape
    assert plain[0][3] == 0  # transparent outside the rounded square


def test_the_build_changes_with_any_static_file(tmp_path: Path) -> None:
    static, bundles = tmp_path / "static", tmp_path / "bundles"
    static.mkdir()
    bundles.mkdir()
    (static / "a.css").write_text("1")
    (static / "sw.js").write_text("worker")
    (static / "table.js").write_text("module")  # a page's module: in its bundle only
    (bundles / "table.bundle.js").write_text("bundle")
    first, shell = build_id.__wrapped__(static, bundles)
    assert re.fullmatch(r"[0-9a-f]{12}", first)
    # Relative to the app's root (the server's /, a static folder's own).
    assert "static/a.css" in shell and "static/sw.js" not in shell
    assert "static/table.bundle.js" in shell and "static/table.js" not in shell
    assert {"index.html", "table.html", "engine/engine.zip", "pyodide/pyodide.asm.wasm"} <= set(
        shell
    )
    (static / "a.css").write_text("2")
    second = build_id.__wrapped__(static, bundles)[0]
    assert second != first
    (bundles / "table.bundle.js").write_text("bundle again")
    assert build_id.__wrapped__(static, bundles)[0] != second


# ---------------------------------------------------------------- the browser

playwright_sync = pytest.importorskip("playwright.sync_api")
from browser_helpers import PHONE, get, kept_as_shown, life, post, server, sit  # noqa: E402
from playwright.sync_api import Browser, expect  # noqa: E402
from table_helpers import TWO  # noqa: E402
from test_page_failover import Proxy  # noqa: E402


@pytest.mark.browser
def test_the_manifest_icons_and_service_worker_are_served(base: str) -> None:
    kind, body, _ = fetch(base + "/manifest.webmanifest")
    assert kind.startswith("application/manifest+json")
    manifest = json.loads(body)
    assert manifest["name"] and manifest["short_name"] == "lifeledger"
    # Relative to the manifest, so that a static folder's is its own (lifeledger app).
    assert manifest["start_url"] == "./" and manifest["scope"] == "./"
    assert manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    seen = set()
    for icon in manifest["icons"]:
        kind, data, _ = fetch(f"{base}/{icon['src']}")
        if icon["type"] == "image/png":
            assert kind == "image/png"
            side = int(icon["sizes"].split("x")[0])
            assert png_size(data) == (side, side)
            seen.add((side, icon["purpose"]))
    assert {(192, "any"), (512, "any"), (512, "maskable")} <= seen
    kind, data, headers = fetch(base + "/sw.js")
    assert kind.startswith("text/javascript")
    assert headers["Cache-Control"] == "no-cache"
    build, shell = build_id()
    text = data.decode()
    assert f'const BUILD = "{build}";' in text
    assert "__SHELL__" not in text and '"static/table.bundle.js"' in text
    assert set(json.loads(re.search(r"const SHELL = (\[.*?\]);", text)[1])) == set(shell)  # type: ignore[index]


@pytest.mark.browser
def test_the_app_installs_and_opens_offline_and_queued_taps_apply_once(
    browser: Browser, tmp_path: Path
) -> None:
    db = tmp_path / "tables.db"
    with server(db) as (first, first_proc):
        proxy = Proxy(int(first.rsplit(":", 1)[1]))
        try:
            base = f"http://127.0.0.1:{proxy.port}"
            table = post(base + "/api/tables", TWO)
            context = browser.new_context(**PHONE)
            page = context.new_page()
            # An older build's cache, left by a previous version of the app.
            page.goto(base + "/api/catalogue")
            page.evaluate(
                "caches.open('lifeledger-000000000000')"
                ".then((c) => c.put('/x', new Response('old')))"
            )
            sit(page, base, table["id"], "ana")
            page.wait_for_function("() => !!navigator.serviceWorker.controller", timeout=15_000)
            worker = page.evaluate("() => navigator.serviceWorker.controller.scriptURL")
            assert worker == base + "/sw.js"
            build, shell = build_id()
            page.wait_for_function(
                "(name) => caches.keys().then((k) => k.length === 1 && k[0] === name)",
                arg=f"lifeledger-{build}",
            )
            cached = page.evaluate(
                "(name) => caches.open(name).then((c) => c.keys())"
                ".then((r) => r.map((x) => new URL(x.url).pathname))",
                f"lifeledger-{build}",
            )
            # The shell, the languages' catalogues (i18n.js, issue 20), and nothing of the API.
            assert {p for p in cached if not p.startswith("/i18n/")} == {"/" + u for u in shell}
            page.locator('[data-player="bo"] [data-act="minus"]').click()
            page.wait_for_function("() => lifeledger.S.pending.size === 0")
            kept_as_shown(page)
        finally:
            first_proc.terminate()
            first_proc.wait()

        # No server and no network: the app shell still opens, with the table as last seen.
        context.set_offline(True)
        page.reload()
        expect(life(page, "bo")).to_have_text("19")
        expect(page.locator("#netstate")).to_contain_text("Offline")
        page.locator('[data-player="bo"] [data-act="minus"]').click()
        page.locator('[data-player="bo"] [data-act="minus"]').click()
        expect(life(page, "bo")).to_have_text("17")
        page.wait_for_function("() => !lifeledger.TAPS.run")
        # Even a reload while offline keeps the taps.
        page.reload()
        expect(life(page, "bo")).to_have_text("17")
        expect(page.locator("#netstate")).to_contain_text("1 change waiting to be sent")

        # The server is back (another process, same store, same address), and so is the network.
        with server(db) as (second, _):
            proxy.target = int(second.rsplit(":", 1)[1])
            context.set_offline(False)
            page.wait_for_function(
                "() => lifeledger.S.connected && lifeledger.S.pending.size === 0", timeout=20_000
            )
            expect(life(page, "bo")).to_have_text("17")
            data = get(f"{second}/api/tables/{table['id']}")
            assert data["seq"] == 2  # the tap before, and the two offline taps as one change
            assert data["entries"][-1]["action"] == {"do": "lose_life", "player": "bo", "amount": 2}
            context.close()
        proxy.close()

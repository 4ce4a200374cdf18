"""The pages and the static files: the pages' HTML, the service worker (with this build's id
and app shell written in), the web app manifest, ``/static/`` and the languages' catalogues
(``/i18n/<lang>.json``: :mod:`.languages`). The files are the package data of
``lifeledger_table/static/``."""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path

from aiohttp import web

from lifeledger.sentences import N_

from .languages import catalogue, known, words

__all__ = ["STATIC", "add_pages", "build_id", "page", "service_worker", "web_manifest"]

STATIC = Path(str(resources.files("lifeledger_table"))) / "static"


def page(name: str) -> Callable[[web.Request], Awaitable[web.FileResponse]]:
    async def handler(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / name)

    handler.__doc__ = f"The page {name}."
    return handler


#: Static files that are not part of the app shell the service worker keeps: itself (a
#: template, served filled in at /sw.js).
NOT_SHELL = frozenset({"sw.js"})


@functools.cache
def build_id(directory: Path = STATIC) -> tuple[str, tuple[str, ...]]:
    """The build of the static files: a digest of every file's name and bytes (12 hex
    digits), and the app shell's URLs. A change to any file is a new build: a new service
    worker, which replaces the cached shell."""
    digest = hashlib.sha256()
    names = sorted(p.name for p in directory.iterdir() if p.is_file())
    for name in names:
        digest.update(name.encode() + b"\0" + (directory / name).read_bytes() + b"\0")
    shell = [f"/static/{n}" for n in names if n not in NOT_SHELL]
    return digest.hexdigest()[:12], ("/manifest.webmanifest", "/favicon.ico", *shell)


async def service_worker(request: web.Request) -> web.Response:
    """GET /sw.js: the service worker, with this build's id and app shell written in. Served
    from the root so that its scope covers every page (/, /t/, /w/, /replay); never cached
    by HTTP (the browser compares it byte for byte to find a new build)."""
    build, shell = build_id()
    text = (
        (STATIC / "sw.js")
        .read_text()
        .replace('"__BUILD__"', json.dumps(build))
        .replace("__SHELL__", json.dumps(list(shell)))
    )
    return web.Response(
        text=text,
        content_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


#: The app's name and description as an installed app shows them (the manifest's words).
APP_NAME = N_("lifeledger — life totals by the rules")
APP_DESCRIPTION = N_(
    "Life totals for Magic: The Gathering, decided by the rules, on every phone at the table."
)


@functools.cache
def _manifest(lang: str) -> bytes:
    manifest = json.loads((STATIC / "manifest.webmanifest").read_text(encoding="utf-8"))
    said = words(lang)
    manifest.update(lang=lang, name=said(APP_NAME), description=said(APP_DESCRIPTION))
    return json.dumps(manifest, ensure_ascii=False, indent=2).encode()


async def web_manifest(request: web.Request) -> web.Response:
    """GET /manifest.webmanifest: the web app manifest (name, icons, start URL), its words in
    the language ``?lang=`` names (the page links the one of its language), else English."""
    return web.Response(
        body=_manifest(known(request.query.get("lang", "en"))),
        headers={"Content-Type": "application/manifest+json", "Cache-Control": "no-cache"},
    )


def add_pages(router: web.UrlDispatcher) -> None:
    """The pages, the service worker, the manifest, the static files and the catalogues."""
    router.add_get("/", page("index.html"))
    router.add_get("/t/{table}", page("table.html"))
    router.add_get("/w/{watch}", page("table.html"))
    router.add_get("/replay", page("table.html"))
    router.add_get("/favicon.ico", page("favicon.ico"))  # drawn by web/icons.py
    router.add_get("/sw.js", service_worker)
    router.add_get("/manifest.webmanifest", web_manifest)
    router.add_static("/static/", STATIC)
    router.add_get("/i18n/{lang}.json", catalogue)

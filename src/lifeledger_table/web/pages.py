"""The pages and the static files: the pages' HTML, the service worker (with this build's id
and app shell written in), the web app manifest, ``/static/`` and the languages' catalogues
(``/i18n/<lang>.json``: :mod:`.languages`). The files are the package data of
``lifeledger_table/static/``, whose pages' ES modules are not served themselves: each page loads
its bundle, which ``make`` builds from them with esbuild into ``lifeledger_table/bundles/``
(package data too) and which is served beside them, at ``/static/<page>.bundle.js``
(docs/table.md, "The page's scripts").

Every answer here is built once per build (issue 26 item 1): the static files are read into
memory once (:func:`warm`, at start-up, in a thread), and each answer a client can ask for (a
page, a file, the service worker, a language's manifest or catalogue) is made once, kept as
bytes with an ``ETag`` (``If-None-Match`` with it is answered 304, without a body) and sent
from memory. What is kept is bounded by the files and the languages, whatever a request names
(a name that is no file is not kept; an unknown language is the default's). Like every other
answer, each is charged to the client that asked: the request by :func:`.answers.fair_share`,
its bytes by :func:`send` (:meth:`.answers.Answers.spend`), so that a flood of them from one
client, or from many addresses, is that client's to pay and holds up no table.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import mimetypes
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path

from aiohttp import web

from lifeledger.language import LANGUAGES
from lifeledger.sentences import N_

from .answers import ANSWERS_KEY, BYTE_SECONDS, Answer
from .engine import engine_parts
from .languages import catalogue_body, known, words

__all__ = [
    "BUNDLES",
    "BUNDLE_FILES",
    "STATIC",
    "add_pages",
    "build_id",
    "catalogue",
    "catalogue_answer",
    "file_answer",
    "fill_worker",
    "manifest_answer",
    "missing_bundles",
    "page",
    "page_modules",
    "send",
    "served",
    "service_worker",
    "static_file",
    "warm",
    "web_manifest",
    "worker_answer",
]

STATIC = Path(str(resources.files("lifeledger_table"))) / "static"
#: Where the pages' bundles are (package data, built by ``make`` with esbuild from the pages'
#: modules in :data:`STATIC`; gitignored).
BUNDLES = Path(str(resources.files("lifeledger_table"))) / "bundles"
#: Each page's bundle, the one script it loads: index.html's (from index.js) and table.html's
#: (from table.js, whose first import is boot.js). Served as ``static/<name>``, beside the
#: engine worker, which device.js finds beside itself.
BUNDLE_FILES = ("index.bundle.js", "table.bundle.js")
#: The scripts in :data:`STATIC` that are no page's module: loaded as they are, not bundled.
NOT_BUNDLED = frozenset({"sw.js", "engine-worker.js"})

#: How every answer here is cached by HTTP: kept, and asked again with its ETag each time
#: (answered 304, with no body, while the build is the same).
REVALIDATE = "no-cache"


def kept(body: bytes, content_type: str) -> Answer:
    """``body`` as an answer kept in memory, with its ETag."""
    return Answer(body, f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"', content_type)


def send(
    request: web.Request, found: Answer, headers: dict[str, str] | None = None
) -> web.Response:
    """The answer ``found`` (bytes kept): 304 when the request's ``If-None-Match`` names its
    ETag, else its body, whose bytes are charged to the client as a kept API answer's are
    (the request itself is charged by :func:`.answers.fair_share`)."""
    headers = {"ETag": found.etag, "Cache-Control": REVALIDATE, **(headers or {})}
    asked = request.headers.get("If-None-Match")
    if asked is not None:
        tags = {tag.strip().removeprefix("W/") for tag in asked.split(",")}
        if found.etag in tags or "*" in tags:
            return web.Response(status=304, headers=headers)
    if request.method != "HEAD":
        spent = len(found.body) * BYTE_SECONDS
        request.app[ANSWERS_KEY].spend(request.remote or "?", spent)
    return web.Response(body=found.body, headers={**headers, "Content-Type": found.content_type})


def page_modules(directory: Path = STATIC) -> list[str]:
    """The pages' ES modules in ``directory``, by name: the bundles' sources, which no page
    loads (and so neither served nor kept by the service worker)."""
    return sorted(
        p.name
        for p in directory.iterdir()
        if p.is_file() and p.suffix == ".js" and p.name not in NOT_BUNDLED
    )


def missing_bundles(directory: Path = BUNDLES) -> list[str]:
    """The pages' bundles missing from ``directory`` (none: the pages can be served)."""
    return [name for name in BUNDLE_FILES if not (directory / name).is_file()]


def served(static: Path = STATIC, bundles: Path = BUNDLES) -> dict[str, Path]:
    """The files served as ``static/<name>``, by name, sorted: the static files other than
    the pages' modules, and the pages' bundles there are."""
    modules = set(page_modules(static))
    found = {p.name: p for p in static.iterdir() if p.is_file() and p.name not in modules}
    found.update((n, bundles / n) for n in BUNDLE_FILES if (bundles / n).is_file())
    return dict(sorted(found.items()))


@functools.cache
def _files() -> dict[str, bytes]:
    """The static files' bytes, by name, read once (a running server's build never changes)."""
    return {name: path.read_bytes() for name, path in served().items()}


@functools.cache
def _file(name: str) -> Answer:
    body = _files()[name]
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if kind.startswith("text/") or kind.endswith(("json", "+xml")):
        kind += "; charset=utf-8"
    return kept(body, kind)


def file_answer(name: str) -> Answer | None:
    """The static file ``name`` as an answer kept (``None``: no such file; nothing is kept
    for a name that is no file)."""
    return _file(name) if name in _files() else None


def page(name: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handler(request: web.Request) -> web.Response:
        found = file_answer(name)
        if found is None:
            raise web.HTTPNotFound()
        return send(request, found)

    handler.__doc__ = f"The page {name}."
    return handler


async def static_file(request: web.Request) -> web.Response:
    """GET /static/{name}: a static file (404 for a name that is none)."""
    found = file_answer(request.match_info["name"])
    if found is None:
        raise web.HTTPNotFound()
    return send(request, found)


#: Static files that are not part of the app shell the service worker keeps: itself (a
#: template, served filled in at /sw.js).
NOT_SHELL = frozenset({"sw.js"})


@functools.cache
def build_id(directory: Path = STATIC, bundles: Path = BUNDLES) -> tuple[str, tuple[str, ...]]:
    """The build of the static files: a digest of every file served (:func:`served`: the
    pages' bundles, not their modules) by name and bytes (12 hex digits), and the app shell's
    URLs. A change to any file is a new build: a new service worker, which replaces the cached
    shell. The engine (engine/engine.zip) and the Pyodide
    files are part of both: the engine worker works offline, and a new engine is a new build.
    The shell's URLs are relative to the app's root (where sw.js is), so the same shell works
    at a server's / and in a static folder at any path (``lifeledger app``)."""
    digest = hashlib.sha256()
    files = served(directory, bundles)
    for name, path in files.items():
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    shell = [f"static/{n}" for n in files if n not in NOT_SHELL]
    engine = engine_parts()
    for url, data in engine:
        digest.update(url.encode() + b"\0" + data + b"\0")
    pages = ("index.html", "table.html", "manifest.webmanifest", "favicon.ico")
    return digest.hexdigest()[:12], (*pages, *shell, *(url for url, _ in engine))


def fill_worker(template: str) -> str:
    """The service worker's text (static/sw.js) with this build's id and shell written in."""
    build, shell = build_id()
    return template.replace('"__BUILD__"', json.dumps(build)).replace(
        "__SHELL__", json.dumps(list(shell))
    )


@functools.cache
def worker_answer() -> Answer:
    """The service worker with this build's id and app shell written in, made once."""
    text = fill_worker(_files()["sw.js"].decode())
    return kept(text.encode(), "text/javascript; charset=utf-8")


async def service_worker(request: web.Request) -> web.Response:
    """GET /sw.js: the service worker, with this build's id and app shell written in. Served
    from the root so that its scope covers every page (/, /t/, /w/, /replay); never cached
    by HTTP without asking (the browser compares it byte for byte to find a new build)."""
    return send(request, worker_answer(), {"Service-Worker-Allowed": "/"})


#: The app's name and description as an installed app shows them (the manifest's words).
APP_NAME = N_("lifeledger — life totals by the rules")
APP_DESCRIPTION = N_(
    "Life totals for Magic: The Gathering, decided by the rules, on every phone at the table."
)


@functools.cache
def _manifest(lang: str) -> Answer:
    manifest = json.loads(_files()["manifest.webmanifest"].decode("utf-8"))
    said = words(lang)
    manifest.update(lang=lang, name=said(APP_NAME), description=said(APP_DESCRIPTION))
    body = json.dumps(manifest, ensure_ascii=False, indent=2).encode()
    return kept(body, "application/manifest+json")


def manifest_answer(lang: str) -> Answer:
    """The manifest in ``lang`` (English for a language the app doesn't speak: the kept
    manifests are one per language, whatever a request names)."""
    return _manifest(known(lang))


async def web_manifest(request: web.Request) -> web.Response:
    """GET /manifest.webmanifest: the web app manifest (name, icons, start URL), its words in
    the language ``?lang=`` names (the page links the one of its language), else English."""
    return send(request, manifest_answer(request.query.get("lang", "en")))


@functools.cache
def _catalogue(lang: str) -> Answer:
    return kept(catalogue_body(lang), "application/json")


def catalogue_answer(lang: str) -> Answer:
    """The catalogue of ``lang`` (:mod:`.languages`), kept: one per language the app speaks;
    a name it doesn't speak is the default language's (never a new entry)."""
    return _catalogue(known(lang))


async def catalogue(request: web.Request) -> web.Response:
    """GET /i18n/{lang}.json: the language's catalogue (304 when the page has it already);
    the default language's for a language the app doesn't speak."""
    return send(request, catalogue_answer(request.match_info["lang"]))


def _build_all() -> None:
    for name in _files():
        _file(name)
    build_id()
    worker_answer()
    for lang in LANGUAGES:
        _manifest(lang)
        _catalogue(lang)


async def warm(app: web.Application) -> None:
    """Build every answer of this module (files, service worker, manifests, catalogues) at
    start-up, in a thread: the first phones don't wait for them, nor the event loop."""
    await asyncio.to_thread(_build_all)


def add_pages(router: web.UrlDispatcher) -> None:
    """The pages, the service worker, the manifest, the static files and the catalogues."""
    router.add_get("/", page("index.html"))
    # The pages by their names too, as a static folder serves them (``lifeledger app``).
    router.add_get("/index.html", page("index.html"))
    router.add_get("/table.html", page("table.html"))
    router.add_get("/t/{table}", page("table.html"))
    router.add_get("/w/{watch}", page("table.html"))
    router.add_get("/replay", page("table.html"))
    router.add_get("/favicon.ico", page("favicon.ico"))  # drawn by web/icons.py
    router.add_get("/sw.js", service_worker)
    router.add_get("/manifest.webmanifest", web_manifest)
    router.add_get("/static/{name}", static_file)
    router.add_get("/i18n/{lang}.json", catalogue)

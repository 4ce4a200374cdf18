"""The engine in the browser: the Python a device table needs, as one zip the page's engine
worker (``static/engine-worker.js``) unpacks into Pyodide, and Pyodide's own files.

``GET /engine/engine.zip``: the rules package (its ``.py`` files and compiled catalogues), the
table's decisions and store interface, the SQLite store, :mod:`lifeledger_table.device` and
the table's catalogues, read from the installed package's files (never imported here), built
once per process. ``GET /pyodide/<file>``: the Pyodide files ``make`` copies from the pinned
npm package into ``lifeledger_table/pyodide/`` (package data): nothing is fetched from
elsewhere at run time. ``lifeledger app`` writes the same files into a static folder."""

from __future__ import annotations

import functools
import hashlib
import io
import zipfile
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from aiohttp import web

__all__ = [
    "ENGINE_URL",
    "PYODIDE",
    "PYODIDE_FILES",
    "add_engine",
    "content_type",
    "engine_files",
    "engine_parts",
    "engine_zip",
    "missing_pyodide",
]

#: Where the Pyodide files are (package data, copied by ``make`` from node_modules/pyodide).
PYODIDE = Path(str(resources.files("lifeledger_table"))) / "pyodide"
#: The Pyodide files the browser needs: the loader, the runtime, the standard library and
#: the lock file (which names the packages: the engine needs none of them).
PYODIDE_FILES = (
    "pyodide.js",
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
#: The engine's URL, relative to the app's root.
ENGINE_URL = "engine/engine.zip"

#: The parts of ``lifeledger_table`` a device table needs: files, and folders taken whole
#: (their ``.py`` files, at any depth).
TABLE_FILES = ("__init__.py", "store/__init__.py", "store/records.py", "store/sqlite.py")
TABLE_FOLDERS = ("decide", "device")

_TYPES = {
    ".wasm": "application/wasm",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".json": "application/json",
    ".zip": "application/zip",
}


def content_type(name: str) -> str:
    """The MIME type a Pyodide or engine file is served with."""
    return _TYPES.get(Path(name).suffix, "application/octet-stream")


def missing_pyodide(directory: Path = PYODIDE) -> list[str]:
    """The Pyodide files missing from ``directory`` (none: the engine can be served)."""
    return [name for name in PYODIDE_FILES if not (directory / name).is_file()]


def _walk(folder: Traversable, prefix: str, keep: tuple[str, ...]) -> Iterator[tuple[str, bytes]]:
    for item in sorted(folder.iterdir(), key=lambda t: t.name):
        if item.name == "__pycache__":
            continue
        name = f"{prefix}/{item.name}"
        if item.is_dir():
            yield from _walk(item, name, keep)
        elif item.name.endswith(keep):
            yield name, item.read_bytes()


def engine_files() -> list[tuple[str, bytes]]:
    """The engine's files, each as its path in the zip (as on ``sys.path``) and its bytes."""
    rules = resources.files("lifeledger")
    table = resources.files("lifeledger_table")
    files = list(_walk(rules, "lifeledger", (".py", ".mo")))
    for name in TABLE_FILES:
        files.append((f"lifeledger_table/{name}", table.joinpath(name).read_bytes()))
    for folder in TABLE_FOLDERS:
        files += _walk(table.joinpath(folder), f"lifeledger_table/{folder}", (".py",))
    files += _walk(table.joinpath("locale"), "lifeledger_table/locale", (".mo",))
    return files


@functools.cache
def engine_zip() -> bytes:
    """The engine as a zip, built once per process: the same files give the same bytes (every
    entry dated alike), so its digest names the engine."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in engine_files():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return out.getvalue()


def engine_parts() -> list[tuple[str, bytes]]:
    """What the engine worker loads, each as its URL relative to the app's root and its bytes:
    the engine and the Pyodide files there are (the service worker keeps them all)."""
    found = [(ENGINE_URL, engine_zip())]
    for name in PYODIDE_FILES:
        if (PYODIDE / name).is_file():
            found.append((f"pyodide/{name}", (PYODIDE / name).read_bytes()))
    return found


@functools.cache
def engine_etag() -> str:
    return '"' + hashlib.sha256(engine_zip()).hexdigest()[:32] + '"'


async def engine(request: web.Request) -> web.Response:
    """GET /engine/engine.zip: the engine (304 when the page has it; asked again each time, so
    a new build's engine is seen)."""
    etag = engine_etag()
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if request.headers.get("If-None-Match") == etag:
        return web.Response(status=304, headers=headers)
    return web.Response(body=engine_zip(), content_type="application/zip", headers=headers)


#: Pyodide's files change only with the pinned version: the browser may keep them a year.
PYODIDE_CACHE = "public, max-age=31536000"


async def pyodide(request: web.Request) -> web.StreamResponse:
    """GET /pyodide/{file}: one of the Pyodide files, with its MIME type (application/wasm for
    the runtime, which the browser compiles as it streams in)."""
    name = request.match_info["file"]
    if name not in PYODIDE_FILES:
        raise web.HTTPNotFound()
    return web.FileResponse(
        PYODIDE / name,
        headers={"Content-Type": content_type(name), "Cache-Control": PYODIDE_CACHE},
    )


def add_engine(router: web.UrlDispatcher) -> None:
    """The engine and the Pyodide files."""
    router.add_get("/" + ENGINE_URL, engine)
    router.add_get("/pyodide/{file}", pyodide)

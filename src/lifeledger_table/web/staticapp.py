"""The app as static files (``lifeledger app DIR``): the pages, the static files, the service
worker, the manifest, the languages' catalogues, the engine and Pyodide, written into a folder
that any static web host serves at any path (GitHub Pages, a NAS, ``python -m http.server``).
The phone decides its tables there with the engine worker: no server is needed.

The folder holds what ``lifeledger serve`` answers at the same URLs, relative to the app's
root: ``index.html``, ``table.html``, ``static/*`` (the pages' bundles, not their modules),
``sw.js``, ``manifest.webmanifest``, ``favicon.ico``, ``i18n/<lang>.json``,
``engine/engine.zip``, ``pyodide/*``. The pages' ``<base href="/">`` becomes ``<base
href="./">``: their URLs, all relative, then name the folder; and they say that no lifeledger
server is behind them (:data:`NO_SERVER`), so "Share this table" asks for the address of one."""

from __future__ import annotations

import shutil
from pathlib import Path

from lifeledger.language import LANGUAGES

from .engine import ENGINE_URL, PYODIDE, PYODIDE_FILES, engine_zip, missing_pyodide
from .languages import catalogue_body
from .pages import BUNDLES, NOT_SHELL, STATIC, fill_worker, manifest_answer, missing_bundles, served

__all__ = ["NO_SERVER", "PAGES", "AppError", "write_app"]

#: The pages, at the app's root as at the server's.
PAGES = ("index.html", "table.html")
#: The pages' base on the server, and in a static folder.
SERVER_BASE = '<base href="/">'
FOLDER_BASE = '<base href="./">'
#: What the folder's pages say beside their base: no lifeledger server serves them (the page
#: reads it: share.js, hasServer), so a table is shared with a server whose address the
#: player types, across sites (web/middleware.py, CROSS_SITE).
NO_SERVER = '<meta name="lifeledger-server" content="none">'
#: What a folder written before holds: it may be written again (its files replaced).
WRITTEN = ("index.html", "sw.js", ENGINE_URL)


class AppError(Exception):
    """The app can't be written there: the message says where and what (nothing was written)."""


def _page(name: str) -> bytes:
    text = (STATIC / name).read_text(encoding="utf-8")
    if text.count(SERVER_BASE) != 1:
        raise AppError(f"{STATIC / name}: no {SERVER_BASE} to make relative")
    return text.replace(SERVER_BASE, f"{FOLDER_BASE}\n{NO_SERVER}").encode()


def app_files() -> dict[str, bytes]:
    """Every file of the static app, by its path in the folder."""
    missing = missing_pyodide()
    if missing:
        raise AppError(
            f"{PYODIDE}: Pyodide's files are missing ({', '.join(missing)}); run make in the"
            " source tree (npm ci, then the copy), or install a built lifeledger package"
        )
    missing = missing_bundles()
    if missing:
        raise AppError(
            f"{BUNDLES}: the pages' bundles are missing ({', '.join(missing)}); run make"
            " bundles in the source tree (esbuild bundles static/'s modules), or install a"
            " built lifeledger package"
        )
    files: dict[str, bytes] = {name: _page(name) for name in PAGES}
    for name, path in served().items():
        if name not in NOT_SHELL:
            files[f"static/{name}"] = _page(name) if name in PAGES else path.read_bytes()
    files["sw.js"] = fill_worker((STATIC / "sw.js").read_text(encoding="utf-8")).encode()
    files["manifest.webmanifest"] = manifest_answer("en").body
    files["favicon.ico"] = (STATIC / "favicon.ico").read_bytes()
    for lang in LANGUAGES:
        files[f"i18n/{lang}.json"] = catalogue_body(lang)
    files[ENGINE_URL] = engine_zip()
    for name in PYODIDE_FILES:
        files[f"pyodide/{name}"] = (PYODIDE / name).read_bytes()
    return files


def write_app(directory: Path) -> list[str]:
    """Write the static app into ``directory`` (made if missing; else empty, or holding an app
    written before, whose files are replaced). Returns the paths written, sorted. Raises
    :class:`AppError`, having written nothing, for a folder it may not write into."""
    if directory.exists() and not directory.is_dir():
        raise AppError(f"{directory}: not a folder")
    if (
        directory.is_dir()
        and any(directory.iterdir())
        and not all((directory / name).is_file() for name in WRITTEN)
    ):
        raise AppError(
            f"{directory}: a folder with other files in it; name a new or empty folder (or one"
            " lifeledger app wrote before)"
        )
    files = app_files()
    for name in ("static", "i18n", "engine", "pyodide"):
        if (directory / name).is_dir():
            shutil.rmtree(directory / name)  # files of an older build go with it
    for name, data in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return sorted(files)

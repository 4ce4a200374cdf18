"""issue 27 item 2: the engine and Pyodide as the server serves them (``/engine/engine.zip``,
``/pyodide/<file>``, with their MIME types and caching), the pages at a sub-path (``<base>``,
relative URLs), and the app as static files (``lifeledger app DIR``). The browser half is
tests/table/test_engine_in_browser.py."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from lifeledger import cli
from lifeledger_table.web import engine
from lifeledger_table.web.pages import build_id
from lifeledger_table.web.staticapp import AppError, write_app


def names_in(data: bytes) -> set[str]:
    return set(zipfile.ZipFile(io.BytesIO(data)).namelist())


def test_the_engine_holds_the_python_a_device_table_needs_and_no_more() -> None:
    names = names_in(engine.engine_zip())
    assert {
        "lifeledger/__init__.py",
        "lifeledger/cli.py",
        "lifeledger/locale/it/LC_MESSAGES/lifeledger.mo",
        "lifeledger_table/__init__.py",
        "lifeledger_table/decide/table.py",
        "lifeledger_table/store/__init__.py",
        "lifeledger_table/store/records.py",
        "lifeledger_table/store/sqlite.py",
        "lifeledger_table/device/__init__.py",
        "lifeledger_table/device/replaying.py",
        "lifeledger_table/locale/it/LC_MESSAGES/page.mo",
        "lifeledger_table/locale/it/LC_MESSAGES/lifeledger_table.mo",
    } <= names
    # No server, web, live or worker layer, no PostgreSQL store, no cached bytecode.
    for name in names:
        assert not name.startswith(
            tuple(f"lifeledger_table/{p}" for p in ("web/", "live/", "workers/", "server"))
        ), name
        assert "postgres" not in name and "__pycache__" not in name, name
    # The same files give the same bytes (so its digest names the engine).
    assert engine.engine_zip.__wrapped__() == engine.engine_zip()


def test_the_build_and_the_shell_take_in_the_engine_and_pyodide() -> None:
    _, shell = build_id()
    assert engine.ENGINE_URL in shell
    assert {f"pyodide/{n}" for n in engine.PYODIDE_FILES} <= set(shell)
    assert not any(url.startswith("/") for url in shell)  # relative to the app's root


@pytest.mark.asyncio
async def test_the_server_serves_the_engine_and_pyodide_with_their_types(
    client: TestClient[Any, Any],
) -> None:
    res = await client.get("/engine/engine.zip")
    assert res.status == 200 and res.content_type == "application/zip"
    assert names_in(await res.read()) == names_in(engine.engine_zip())
    again = await client.get("/engine/engine.zip", headers={"If-None-Match": res.headers["ETag"]})
    assert again.status == 304
    for name, kind in (
        ("pyodide.asm.wasm", "application/wasm"),
        ("pyodide.js", "text/javascript"),
        ("pyodide.mjs", "text/javascript"),
        ("pyodide.asm.mjs", "text/javascript"),
        ("python_stdlib.zip", "application/zip"),
        ("pyodide-lock.json", "application/json"),
    ):
        res = await client.get(f"/pyodide/{name}")
        assert res.status == 200 and res.content_type == kind, name
        assert "max-age=31536000" in res.headers["Cache-Control"]
        assert await res.read() == (engine.PYODIDE / name).read_bytes()
    assert (await client.get("/pyodide/pyodide.js.map")).status == 404
    assert (await client.get("/pyodide/..%2fserver.py")).status == 404


@pytest.mark.asyncio
async def test_the_pages_answer_by_name_and_their_urls_are_relative_to_a_base(
    client: TestClient[Any, Any],
) -> None:
    for path in ("/", "/index.html", "/table.html", "/t/ABCD"):
        res = await client.get(path)
        text = await res.text()
        assert res.status == 200 and '<base href="/">' in text, path
        assert 'src="/' not in text and 'href="/' not in text.replace('<base href="/">', "")


def test_lifeledger_app_writes_a_folder_any_static_host_serves(tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert cli.main(["app", str(out)]) == 0
    for name in ("index.html", "table.html", "sw.js", "manifest.webmanifest", "favicon.ico"):
        assert (out / name).is_file(), name
    for name in ("static/engine-worker.js", "i18n/it.json", "i18n/en.json", engine.ENGINE_URL):
        assert (out / name).is_file(), name
    for name in engine.PYODIDE_FILES:
        assert (out / "pyodide" / name).read_bytes() == (engine.PYODIDE / name).read_bytes()
    index = (out / "index.html").read_text()
    assert '<base href="./">' in index and '<base href="/">' not in index
    # The folder's pages know no lifeledger server is behind them: sharing asks for one.
    for page in ("index.html", "table.html"):
        assert '<meta name="lifeledger-server" content="none">' in (out / page).read_text()
    build, shell = build_id()
    assert f'const BUILD = "{build}";' in (out / "sw.js").read_text()
    for url in shell:  # every file the service worker keeps is there
        assert (out / url).is_file(), url
    # A folder it wrote is written again.
    assert cli.main(["app", str(out)]) == 0


def test_lifeledger_app_refuses_a_folder_of_other_files_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    assert cli.main(["app", str(tmp_path)]) == 2
    assert f"lifeledger app: {tmp_path}: a folder with other files in it" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    with pytest.raises(AppError, match="not a folder"):
        write_app(tmp_path / "notes.txt")


def test_serve_says_in_one_line_that_pyodide_is_missing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    monkeypatch.setattr(engine, "missing_pyodide", lambda: ["pyodide.asm.wasm"])
    assert cli.main(["serve", "--port", "0", "--db", "/nonexistent/x.db"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(
        "lifeledger serve: Pyodide's files are missing (pyodide.asm.wasm); run make"
    )
    assert engine.missing_pyodide.__module__ != engine.__name__  # the patch was used

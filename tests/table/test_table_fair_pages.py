"""No request freezes the tables (issue 26 item 1): ``/i18n/<lang>.json`` kept two catalogues
and any language name, so each made-up name pushed the real ones out and the next ``it`` or
``en`` built some 115 kB again on the event loop, and neither it nor a page, a static file or
the manifest was charged to the client. Now every answer a client can ask for is built once
per build, sent from memory with an ETag, and charged to that client like every other
answer (the request, and its bytes)."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from lifeledger.language import LANGUAGES
from lifeledger_table.decide.limits import CostShares, Limits
from lifeledger_table.web import languages, pages
from lifeledger_table.web.answers import ANSWERS_KEY, REQUEST_SECONDS

Client = TestClient[Any, Any]

#: Every kind of answer a client can ask for outside the API.
ASKED = [
    "/",
    "/t/abc",
    "/w/abc",
    "/replay",
    "/favicon.ico",
    "/sw.js",
    "/manifest.webmanifest?lang=it",
    "/static/table.bundle.js",
    "/static/style.css",
    "/static/icon-192.png",
    "/i18n/it.json",
    "/i18n/en.json",
]


def builds() -> dict[str, int]:
    """How many times each kind of answer was built in this process."""
    return {
        "catalogue": languages.catalogue_body.cache_info().misses,
        "kept catalogue": pages._catalogue.cache_info().misses,
        "manifest": pages._manifest.cache_info().misses,
        "file": pages._file.cache_info().misses,
        "worker": pages.worker_answer.cache_info().misses,
        "words": languages._words.cache_info().misses,
    }


@pytest.mark.asyncio
async def test_unknown_language_names_are_the_default_catalogue_never_a_new_entry(
    client: Client,
) -> None:
    """Rule (issue 26 item 1): an unknown language name maps to the default catalogue's
    kept bytes: a flood of made-up names builds nothing and keeps nothing new, and the real
    catalogues are never built again."""
    answers = client.app[ANSWERS_KEY]
    answers.address = CostShares(1.0, 1e6)  # this flood is charged, but not refused here
    answers.network = CostShares(1.0, 1e6)
    italian = await client.get("/i18n/it.json")
    english = await client.get("/i18n/en.json")
    before = builds()
    for n in range(300):
        res = await client.get(f"/i18n/x{n}.json")
        assert res.status == 200 and res.headers["ETag"] == english.headers["ETag"]
        res = await client.get(f"/manifest.webmanifest?lang=x{n}")
        assert res.status == 200
    again = await client.get("/i18n/it.json")
    assert await again.read() == await italian.read()
    assert again.headers["ETag"] == italian.headers["ETag"]
    assert builds() == before
    assert languages.catalogue_body.cache_info().currsize <= len(LANGUAGES)
    assert pages._catalogue.cache_info().currsize <= len(LANGUAGES)
    assert pages._manifest.cache_info().currsize <= len(LANGUAGES)
    assert languages._words.cache_info().currsize <= len(LANGUAGES)
    with pytest.raises(ValueError, match="no catalogue"):
        languages.catalogue_body("xx")  # only ever asked through the mapping


@pytest.mark.asyncio
async def test_every_page_file_manifest_and_catalogue_is_built_once_with_an_etag(
    client: Client,
) -> None:
    """Rule (issue 26 item 1): every catalogue, manifest, page and file is built once per
    build (at start-up: the app builds them in a thread), served from memory with an ETag,
    and answered 304 without a body when the client has it; a name that is no file is a
    404 and keeps nothing."""
    first = {path: await client.get(path) for path in ASKED}
    before = builds()
    for path, res in first.items():
        assert res.status == 200, path
        etag = res.headers["ETag"]
        assert res.headers["Cache-Control"] == "no-cache", path
        body = await res.read()
        again = await client.get(path)
        assert again.headers["ETag"] == etag and await again.read() == body, path
        kept = await client.get(path, headers={"If-None-Match": etag})
        assert kept.status == 304 and await kept.read() == b"", path
    assert first["/sw.js"].headers["Service-Worker-Allowed"] == "/"
    assert first["/static/table.bundle.js"].content_type == "text/javascript"
    assert first["/static/icon-192.png"].content_type == "image/png"
    assert first["/manifest.webmanifest?lang=it"].content_type == "application/manifest+json"
    # The pages' modules are not served: each page loads its bundle (made of them).
    for missing in ("/static/nope.js", "/static/table.js", "/static/..%2Fserver.py", "/static/"):
        assert (await client.get(missing)).status == 404, missing
    assert builds() == before
    assert pages._file.cache_info().currsize == len(pages._files())


@pytest.mark.asyncio
# A refusal waits a few seconds (Limits.error_delay, each 429 here): not this test's subject.
@pytest.mark.parametrize("limits", [Limits(error_delay=0.01)])
async def test_pages_files_and_catalogues_are_charged_to_the_client(client: Client) -> None:
    """Rule (issue 26 item 1): every answer a client can ask for, pages and static files
    included, spends that client's budget as the API's answers do (the request, and its
    bytes): a client past its share is answered 429 ``throttled`` for them too, and a 304
    costs only the request."""
    answers = client.app[ANSWERS_KEY]
    shares = answers.address = CostShares(1e-9, 1e6)  # nothing drains while it is read
    for path in ASKED:
        before = shares.debt("127.0.0.1")
        res = await client.get(path)
        size = len(await res.read())
        spent = shares.debt("127.0.0.1") - before
        assert spent >= REQUEST_SECONDS * 0.9 + size * 1e-3 / 50_000 * 0.9, path
    catalogue = await client.get("/i18n/it.json")
    before = shares.debt("127.0.0.1")
    headers = {"If-None-Match": catalogue.headers["ETag"]}
    assert (await client.get("/i18n/it.json", headers=headers)).status == 304
    assert shares.debt("127.0.0.1") - before < REQUEST_SECONDS * 1.5
    answers.address = CostShares(Limits().answer_share, 0.0)
    answers.address.spend("127.0.0.1", 100.0)  # past its share, however slow the test
    for path in ("/i18n/it.json", "/manifest.webmanifest?lang=xx", "/static/table.bundle.js", "/"):
        res = await client.get(path)
        assert res.status == 429, path
        assert (await res.json())["error"] == "throttled"

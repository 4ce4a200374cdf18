"""Fair share of the answers (issue 18 item 1): what a table's answer costs is paid once per
change of the table, and what each client's requests cost is counted against its share.

- An answer that depends only on its table's state (``GET /api/tables/{id}``,
  ``/api/watch/{watch}``, a history page over HTTP or the socket, a QR code) is kept, keyed by
  the table, its sequence number and whatever else it depends on (the seats taken, the link's
  origin, the page's ``before`` and ``limit``): an unchanged table's is built once. Answers
  carry an ``ETag``; ``If-None-Match`` with it is answered 304, without a body. The answers
  kept are bounded (:data:`CACHED` answers, :data:`CACHED_BYTES` bytes: the least recently
  used go first), and a table's go when it leaves memory.
- Every HTTP request (``/api/``, and since issue 26 item 1 the pages, static files, manifests
  and catalogues too: :mod:`.pages`; not a socket's upgrade, whose messages have budgets of
  their own) is charged to its client's address and network (:func:`.limits
  .network_of`): :data:`REQUEST_SECONDS` for the request itself, and the time its answer took
  to build when it was not kept. Past a share (``Limits.answer_share`` of a core beyond a
  burst of ``Limits.answer_burst`` seconds; a network's ``answer_network_share``,
  ``answer_network_burst``), its requests are answered 429 ``throttled`` until the debt drains:
  late (a few seconds, as :class:`.middleware.ErrorPacer` slows errors: a sleeping request
  costs nothing, one answered at once is asked again at once), and the connection closes
  after the refusal.
  A socket's history pages are charged to its address the same way.
- A QR code (pure Python, some 8 ms) is drawn in a worker process (:mod:`.drawing`).
- A history page older than the entries a table holds in memory is read from the store in a
  thread (the table raises :class:`.logreads.NeedsLog` naming the read: :func:`built`), never
  on the event loop.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import random
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from aiohttp import web

from lifeledger.sentences import Sentence

from ..decide.limits import CostShares, Limits, network_of
from ..decide.table import Table
from ..live.hub import HUB_KEY
from ..live.writer import settled
from ..store.records import Store
from ..workers.drawing import Drawing, DrawingBusy
from .requests import error_json

__all__ = [
    "ANSWERS_KEY",
    "BYTE_SECONDS",
    "CACHED",
    "CACHED_BYTES",
    "REQUEST_SECONDS",
    "Answer",
    "Answers",
    "answer",
    "close_drawing",
    "fair_share",
    "history_text",
]

#: What a request costs the server besides building its answer (reading it, routing it,
#: writing the answer): charged to every HTTP request, kept or not, and for every byte
#: of an answer's body (measured on a loaded 2-core machine: a kept answer of 53 kB took
#: 1.5 ms of the server's processor time).
REQUEST_SECONDS = 0.001
BYTE_SECONDS = 1e-3 / 50_000
#: How many answers a server keeps, and their bytes at most (an answer larger than a
#: sixteenth of it is not kept).
CACHED = 4096
CACHED_BYTES = 64 * 1024 * 1024
#: A page the store could not give (a database server restarting).
UNREACHABLE = Sentence("The table's storage can't be reached now; nothing changed. Try again.")
#: The most reads of the log one answer waits for (a page needs one: the table changing
#: while it is read asks for it again).
READS = 4
#: Threads reading such pages from the store at once (more wait their turn).
PAGE_READERS = 2


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer kept: its body, its ``ETag`` and its content type."""

    body: bytes
    etag: str
    content_type: str


class Answers:
    """The answers a server keeps, the cost shares of its clients, and how many answers it
    has built (:attr:`built`, for the tests)."""

    def __init__(self, limits: Limits) -> None:
        self.kept: OrderedDict[tuple[str, Hashable], Answer] = OrderedDict()
        self.size = 0
        #: The keys kept for each table in memory (dropped when its table object goes).
        self.by_table: dict[str, set[tuple[str, Hashable]]] = {}
        self.address = CostShares(limits.answer_share, limits.answer_burst)
        self.network = CostShares(limits.answer_network_share, limits.answer_network_burst)
        self.built = 0
        #: QR codes are drawn in a worker process; one asked for while it is being drawn
        #: waits for the same.
        self.drawing = Drawing()
        #: History pages older than a table's memory are read from the store in threads of
        #: their own: a flood of them never holds up the tables' writes (in the default pool).
        self.pages = ThreadPoolExecutor(max_workers=PAGE_READERS, thread_name_prefix="pages")
        self.drawn: dict[tuple[str, Hashable], asyncio.Future[Answer]] = {}

    def get(self, table: Table, key: Hashable) -> Answer | None:
        """The answer kept for ``table`` and ``key``, if any."""
        found = self.kept.get((table.id, key))
        if found is not None:
            self.kept.move_to_end((table.id, key))
        return found

    def keep(self, table: Table, key: Hashable, body: bytes, content_type: str) -> Answer:
        """Keep ``body`` as the answer for ``table`` and ``key`` (and count a build)."""
        self.built += 1
        etag = f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'
        found = Answer(body, etag, content_type)
        if len(body) > CACHED_BYTES // 16:
            return found
        full = (table.id, key)
        self._drop(full)
        self.kept[full] = found
        self.size += len(body)
        keys = self.by_table.get(table.id)
        if keys is None:
            keys = self.by_table[table.id] = set()
            weakref.finalize(table, self.forget, table.id)
        keys.add(full)
        while len(self.kept) > CACHED or self.size > CACHED_BYTES:
            self._drop(next(iter(self.kept)))
        return found

    def _drop(self, full: tuple[str, Hashable]) -> None:
        old = self.kept.pop(full, None)
        if old is not None:
            self.size -= len(old.body)
            keys = self.by_table.get(full[0])
            if keys is not None:
                keys.discard(full)

    def forget(self, table_id: str) -> None:
        """Drop every answer kept for a table (its table object left memory)."""
        for full in self.by_table.pop(table_id, set()):
            old = self.kept.pop(full, None)
            if old is not None:
                self.size -= len(old.body)

    def refusal(self, who: str) -> str | None:
        """Why ``who``'s request is refused now (it is past its share), or ``None``."""
        wait = max(self.address.wait(who), self.network.wait(network_of(who)))
        if wait <= 0:
            return None
        return Sentence(
            "Your requests have taken more than their share of the server lately; ask again "
            "in {n} s.",
            n=max(1, round(wait)),
        )

    def spend(self, who: str, seconds: float) -> None:
        """Answering ``who`` took ``seconds``: counted against its address and network."""
        self.address.spend(who, seconds)
        self.network.spend(network_of(who), seconds)


ANSWERS_KEY = web.AppKey("answers", Answers)
"""The answers the app keeps (one :class:`Answers` a server, made by the composition root)."""


#: The seconds spent building the current request's answers (set by :func:`fair_share`).
_SPENT: contextvars.ContextVar[list[float] | None] = contextvars.ContextVar(
    "lifeledger_spent", default=None
)


def _metered(seconds: float) -> None:
    spent = _SPENT.get()
    if spent is not None:
        spent[0] += seconds


@web.middleware
async def fair_share(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Every HTTP request (a socket's upgrade aside) is charged to its address and network
    (:class:`Answers`): past their share it is answered 429 ``throttled``."""
    if request.path.startswith("/ws/"):
        return await handler(request)
    answers = request.app[ANSWERS_KEY]
    who = request.remote or "?"
    refused = answers.refusal(who)
    if refused is not None:
        answers.spend(who, REQUEST_SECONDS)
        wait = min(answers.address.wait(who), request.app[HUB_KEY].limits.error_delay)
        await asyncio.sleep(wait * (0.5 + random.random()))  # spreading, not secrecy
        # The connection closes after the refusal: requests sent behind it on the same
        # connection (pipelined, and perhaps never read) are not answered one by one.
        response = web.json_response(error_json("throttled", refused), status=429)
        response.force_close()
        return response
    spent = [REQUEST_SECONDS]
    token = _SPENT.set(spent)
    try:
        return await handler(request)
    finally:
        _SPENT.reset(token)
        answers.spend(who, spent[0])


def _timed(build: Callable[[], bytes]) -> tuple[bytes, float]:
    start = time.perf_counter()
    body = build()
    return body, time.perf_counter() - start


async def built(
    answers: Answers, store: Store, table: Table, build: Callable[[], bytes]
) -> tuple[bytes, float]:
    """``build()`` and what it cost: its time on the event loop, and that of each read of the
    log it needs (:class:`NeedsLog`: a history page older than the entries in memory), made
    first in a thread of :attr:`Answers.pages`. A read that fails, or a table that keeps
    changing under its reads, is refused ``storage`` (:class:`TableError`)."""
    (body, seconds), read = await settled(
        table, lambda: _timed(build), store, answers.pages, reads=READS, refusal=UNREACHABLE
    )
    return body, seconds + read


def _matches(request: web.Request, etag: str) -> bool:
    header = request.headers.get("If-None-Match")
    if header is None:
        return False
    tags = {tag.strip().removeprefix("W/") for tag in header.split(",")}
    return etag in tags or "*" in tags


def _busy() -> web.Response:
    message = Sentence("Too many pictures are being drawn; try again shortly.")
    return web.json_response(error_json("busy", message), status=503)


async def answer(
    request: web.Request,
    table: Table,
    key: Hashable,
    build: Callable[[], bytes] | None = None,
    content_type: str = "application/json",
    *,
    draw: Callable[[Drawing], Awaitable[tuple[bytes, float]]] | None = None,
) -> web.Response:
    """The answer for ``table`` and ``key``: the one kept, or ``build()`` on the event loop
    (or ``draw(drawing)``, in the worker process: 503 ``busy`` when too many wait), its time
    charged to the request's client; 304 when the request's ``If-None-Match`` names its
    ``ETag``."""
    answers = request.app[ANSWERS_KEY]
    found = answers.get(table, key)
    if found is None and draw is not None:
        full = (table.id, key)
        drawn = answers.drawn.get(full)
        if drawn is None:
            drawn = answers.drawn[full] = asyncio.get_running_loop().create_future()
            try:
                body, seconds = await draw(answers.drawing)
            except BaseException as exc:
                drawn.cancel()  # those waiting for it are answered busy
                if not isinstance(exc, DrawingBusy):
                    raise
                return _busy()
            finally:
                del answers.drawn[full]
            _metered(seconds)
            drawn.set_result(answers.keep(table, key, body, content_type))
        try:
            found = await asyncio.shield(drawn)
        except asyncio.CancelledError:
            if not drawn.cancelled():
                raise
            return _busy()
    elif found is None:
        assert build is not None
        body, seconds = await built(answers, request.app[HUB_KEY].store, table, build)
        _metered(seconds)
        found = answers.keep(table, key, body, content_type)
    headers = {"ETag": found.etag}
    if _matches(request, found.etag):
        return web.Response(status=304, headers=headers)
    _metered(len(found.body) * BYTE_SECONDS)
    return web.Response(body=found.body, content_type=found.content_type, headers=headers)


async def close_drawing(app: web.Application) -> None:
    """Stop the worker that draws QR codes and the threads that read history pages (the
    server is stopping)."""
    answers = app[ANSWERS_KEY]
    answers.drawing.close()
    answers.pages.shutdown(wait=False, cancel_futures=True)


async def history_text(
    answers: Answers, store: Store, table: Table, before: int, limit: int, who: str
) -> str:
    """A page of ``table``'s history as the socket's ``history`` message (the one kept, or
    built: its time charged to ``who``; what it reads of the log read in a thread). Raises
    :class:`.errors.TableError` as :meth:`.table.Table.history_text` does."""
    table.check()
    key = ("history", table.committed, min(before, table.committed + 1), limit)
    found = answers.get(table, key)
    if found is None:
        body, seconds = await built(
            answers, store, table, lambda: table.history_text(before, limit).encode()
        )
        answers.spend(who, seconds)
        found = answers.keep(table, key, body, "application/json")
    return found.body.decode()

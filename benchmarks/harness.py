"""What the table benchmarks share: server processes, phones that count every receipt, tables
grown through the real server, and the machine's figures (CPU, memory, load, GC pauses).

Honest by construction:

- every change sent in the measuring window is followed to its receipt on each other phone of
  its table; a receipt that comes after the window is *late* (counted, with its real latency),
  and one that has not come by the end of a bounded drain is *lost* (reported);
- a change is recognised by its sequence number (``ack`` to the sender, ``seq`` of the event
  on the others), never by anything of the server's state, so the event message is exactly
  what a real phone receives (nothing added to it to measure it);
- the server's CPU (``/proc/PID/stat`` utime + stime) over the window and the drain, divided by
  the changes sent, is reported next to the machine's load (``os.getloadavg``).

``python benchmarks/harness.py serve --port P --db FILE [--relaxed] [--gc-file FILE]`` runs the
real ``lifeledger serve`` (``lifeledger_table.server.run``) in this process, optionally with
relaxed per-client limits (to grow long tables quickly over one socket: the default limits let
a table take 30 changes a second) and a probe timing every garbage collection (``gc.callbacks``):
on SIGUSR1 it writes the figures to the file, on SIGUSR2 it times one full collection of every
object (unfrozen) and writes that too. ``--trace`` adds tracemalloc's largest holders of memory
to the file; ``--profile FILE`` runs the server under cProfile, every thread of it (the event
loop's to FILE, each other thread's to FILE@NAME: :class:`ThreadProfiles`), written on exit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import aiohttp

HERE = Path(__file__).resolve().parent
#: The phones of a table share a loopback address, as at a real table behind one Wi-Fi: 48
#: phones (12 tables) an address, under the app's limits per address (docs/table.md, Limits).
PHONES_PER_ADDRESS = 48
SEATS = ("ana", "bo", "cy", "di")
NAMES = ("Ana", "Bo", "Cy", "Di")
Socket = aiohttp.ClientWebSocketResponse


# -- small figures ------------------------------------------------------------------------------


def free_port() -> int:
    """A free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def raise_fd_limit() -> None:
    """Allow enough open sockets for the phones (and their server ends)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank) of seconds, in milliseconds."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k] * 1000


def spread(values: Iterable[float], digits: int = 1) -> str:
    """``min / median / max`` of some figures."""
    vals = [v for v in values if v == v]  # not NaN
    if not vals:
        return "n/a"
    return " / ".join(f"{v:.{digits}f}" for v in (min(vals), statistics.median(vals), max(vals)))


def median(values: Iterable[float]) -> float:
    vals = [v for v in values if v == v]
    return statistics.median(vals) if vals else float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def load() -> float:
    """The machine's 1-minute load average now."""
    return os.getloadavg()[0]


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def rss_mb(pid: int) -> float:
    """A process's resident memory (VmRSS), in MiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def thread_cpu(pid: int, tid: int | None = None) -> float:
    """CPU seconds one thread has used so far (``/proc/PID/task/TID/schedstat``, in ns); the
    main thread by default: a server's event loop, whose time is what every table waits for."""
    with open(f"/proc/{pid}/task/{tid or pid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# -- server processes ---------------------------------------------------------------------------


class Server:
    """A server process on a port: ``lifeledger_table`` as ``lifeledger serve`` runs it, or this
    module's wrapper of it (relaxed limits, GC probe), or any other command (the echo floor)."""

    def __init__(
        self,
        cmd: list[str],
        base: str,
        probe: str,
        log: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.cmd = cmd
        self.base = base
        self.probe = probe
        self.log = log
        #: The process's environment, if not this one's.
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.gc_file: str | None = None
        self._gc_seen = 0

    @classmethod
    def table_app(
        cls,
        db: str,
        *,
        relaxed: bool = False,
        gc_file: str | None = None,
        trace: bool = False,
        limits: dict[str, float] | None = None,
        profile: str | None = None,
        port: int | None = None,
        log: str | None = None,
        src: str | None = None,
    ) -> Server:
        """The table app on ``db``. Plain (``python -m lifeledger_table``, the default limits)
        unless ``relaxed``, ``gc_file`` or ``profile`` ask for the wrapper. ``src``: the app
        of another source tree's ``src`` directory (a baseline measured beside this one)."""
        port = port or free_port()
        base = f"http://127.0.0.1:{port}"
        if relaxed or gc_file or profile or limits:
            cmd = [sys.executable, str(HERE / "harness.py"), "serve"]
            cmd += ["--port", str(port), "--db", db]
            cmd += ["--relaxed"] if relaxed else []
            cmd += ["--gc-file", gc_file] if gc_file else []
            cmd += ["--trace"] if trace else []
            for name, value in (limits or {}).items():
                cmd += ["--limit", f"{name}={value}"]
            cmd += ["--profile", profile] if profile else []
        else:
            cmd = [sys.executable, "-m", "lifeledger_table", "--host", "127.0.0.1"]
            cmd += ["--port", str(port), "--db", db]
        env = None
        if src is not None:
            env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
        server = cls(cmd, base, base + "/api/catalogue", log, env)
        server.gc_file = gc_file
        return server

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self) -> Server:
        """Start the process and wait (bounded) until it answers."""
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(self.cmd, stdout=out, stderr=out, env=self.env)
        finally:
            if self.log:
                out.close()  # type: ignore[union-attr]
        async with aiohttp.ClientSession() as session:
            for _ in range(600):
                try:
                    async with session.get(self.probe) as res:
                        if res.status < 500:
                            return self
                except aiohttp.ClientError:
                    pass
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited ({self.proc.returncode}): {self.cmd}")
                await asyncio.sleep(0.05)
        self.stop()
        raise RuntimeError("server did not start")

    def stop(self) -> None:
        """Stop the process (SIGTERM, then SIGKILL after 20 s)."""
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    async def restart(self) -> None:
        self.stop()
        await self.start()

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def loop_cpu(self) -> float:
        """CPU seconds of the server's main thread (its event loop) so far."""
        return thread_cpu(self.pid)

    def threads_cpu(self) -> float:
        """CPU seconds of all the server's threads now alive, in ns resolution (work moved to
        a thread still holds the GIL most of the time it runs: the event loop waits for it)."""
        total = 0.0
        for tid in os.listdir(f"/proc/{self.pid}/task"):
            with contextlib.suppress(OSError):
                total += thread_cpu(self.pid, int(tid))
        return total

    def rss(self) -> float:
        return rss_mb(self.pid)

    async def gc_stats(self, full: bool = False, timeout: float = 120.0) -> dict[str, Any]:
        """The GC probe's figures (the wrapper with ``gc_file`` only): the longest pause since
        the last call, and in all; with ``full``, also the time of one full collection now."""
        assert self.gc_file is not None
        os.kill(self.pid, signal.SIGUSR2 if full else signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                data: dict[str, Any] = json.loads(Path(self.gc_file).read_text())
                if data["dumps"] > self._gc_seen:
                    self._gc_seen = data["dumps"]
                    return data
            await asyncio.sleep(0.05)
        raise RuntimeError("the GC probe did not answer")


async def start(cmd: list[str], url: str) -> subprocess.Popen[bytes]:
    """Start a server process and wait (bounded) until ``url`` answers (a bare process)."""
    server = Server(cmd, url, url)
    await server.start()
    assert server.proc is not None
    return server.proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a server process started by :func:`start`."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Measured(Protocol):
    """What the CPU of a server is read from: one process, or several."""

    def cpu(self) -> float: ...


class Servers:
    """Several server processes on one store (a PostgreSQL database), measured as one: their
    CPU is the sum of theirs."""

    def __init__(self, servers: list[Server]) -> None:
        self.servers = servers

    @property
    def bases(self) -> list[str]:
        return [s.base for s in self.servers]

    async def start(self) -> Servers:
        """Start them one after the other (the first creates the schema)."""
        try:
            for server in self.servers:
                await server.start()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def cpu(self) -> float:
        return sum(s.cpu() for s in self.servers)


class Database(Protocol):
    """A database server the table app's processes share: its CPU, and how many writes it
    refused as duplicates (a process that lost a race for a table's next sequence number)."""

    def cpu(self) -> float: ...

    def conflicts(self) -> int: ...


class PostgresServer:
    """A running PostgreSQL server (``postmaster.pid`` in ``data``; its log at ``log``): the
    CPU of the postmaster and every process of it (live ones, and those it reaped), and the
    duplicate-key errors on the log of events it logged (each one a conflict between two
    table app processes, which the loser then decides again)."""

    DUPLICATE = "duplicate key value violates unique constraint"

    def __init__(self, data: Path, log: Path) -> None:
        self.data = data
        self.log = log
        self._read = 0
        self._conflicts = 0

    @property
    def postmaster(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def cpu(self) -> float:
        main = self.postmaster
        with open(f"/proc/{main}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        total = sum(int(fields[k]) for k in (11, 12, 13, 14))  # its own, and reaped children's
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            with contextlib.suppress(OSError):
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rpartition(")")[2].split()
                if int(fields[1]) == main:
                    total += int(fields[11]) + int(fields[12])
        return total / _TICK

    def conflicts(self) -> int:
        """Duplicate keys on ``events`` logged so far."""
        with contextlib.suppress(OSError), open(self.log, "rb") as f:
            f.seek(self._read)
            chunk = f.read()
            complete = chunk.rfind(b"\n") + 1
            self._read += complete
            for line in chunk[:complete].decode(errors="replace").splitlines():
                if self.DUPLICATE in line and '"events_' in line:
                    self._conflicts += 1
        return self._conflicts


def phones_per_address(rate: float) -> int:
    """Phones a loopback address, sending ``rate`` changes a second each: 48 (12 tables) at
    one a second, fewer (whole tables) at higher rates, so that an address keeps under the
    app's 200 messages a second (docs/table.md, Limits)."""
    fits = int(160 / rate) // len(SEATS) * len(SEATS)
    return max(len(SEATS), min(PHONES_PER_ADDRESS, fits))


@contextlib.asynccontextmanager
async def running(server: Server) -> Any:
    await server.start()
    try:
        yield server
    finally:
        server.stop()


# -- the wrapper: the real server, with relaxed limits and a GC probe ------------------------------

#: For growing tables quickly over one socket (``--relaxed``): rates and budgets per socket,
#: address and table out of the way. Everything else (the work per change) is the real server's.
RELAXED = {
    "rate": 1e6,
    "burst": 1e6,
    "address_rate": 1e6,
    "address_burst": 1e6,
    "table_rate": 1e6,
    "table_burst": 1e6,
    "tables_opened": 1_000_000,
    "sockets_opened": 1_000_000,
    "queue": 1_000_000,
    "queue_bytes": 1 << 30,
    "errors_per_address": 1_000_000,
}


def relax_limits(values: dict[str, float]) -> None:
    """Make ``Limits()`` (wherever it is made) take ``values``: the defaults of its
    ``__init__``. A name ``Limits`` does not have is an error."""
    from lifeledger_table.decide.limits import Limits

    names = [f.name for f in dataclasses.fields(Limits) if f.init]
    init: Any = Limits.__init__
    defaults = list(init.__defaults__ or ())
    offset = len(names) - len(defaults)
    for name, value in values.items():
        if name not in names or names.index(name) < offset:
            raise SystemExit(f"harness.py serve: Limits has no {name!r} with a default")
        k = names.index(name) - offset
        defaults[k] = type(defaults[k])(value)
    init.__defaults__ = tuple(defaults)
    got = Limits()
    assert all(getattr(got, k) == v for k, v in values.items()), got


class GcProbe:
    """Times every collection of the cyclic GC (``gc.callbacks``) in this process: wall time
    (what a phone waits) and the thread's CPU time (what the collection itself costs, whatever
    else the machine does); with ``trace``, tracemalloc's largest holders of memory too."""

    def __init__(self, path: str, trace: bool = False) -> None:
        self.path = path
        self.trace = trace
        self.started = (0.0, 0.0)
        self.dumps = 0
        self.total = 0.0
        self.counts = [0, 0, 0]
        self.max_by_gen = [0.0, 0.0, 0.0]
        self.max_all = self.max_all_cpu = 0.0
        self.full: tuple[float, float, int] | None = None
        self._since()

    def _since(self) -> None:
        self.max_since = self.max_since_cpu = 0.0
        self.max_gen_since = -1
        self.max_collected_since = 0

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = (time.perf_counter(), time.thread_time())
            return
        pause = time.perf_counter() - self.started[0]
        cpu = time.thread_time() - self.started[1]
        gen = int(info.get("generation", 2))
        self.counts[gen] += 1
        self.total += pause
        self.max_by_gen[gen] = max(self.max_by_gen[gen], pause)
        self.max_all = max(self.max_all, pause)
        self.max_all_cpu = max(self.max_all_cpu, cpu)
        self.max_since_cpu = max(self.max_since_cpu, cpu)
        if pause > self.max_since:
            self.max_since, self.max_gen_since = pause, gen
            self.max_collected_since = int(info.get("collected", 0))

    def dump(self, *_: Any) -> None:
        self.dumps += 1
        data: dict[str, Any] = {
            "dumps": self.dumps,
            "max_since": self.max_since,
            "max_since_cpu": self.max_since_cpu,
            "max_gen_since": self.max_gen_since,
            "max_collected_since": self.max_collected_since,
            "max_all": self.max_all,
            "max_all_cpu": self.max_all_cpu,
            "max_by_gen": self.max_by_gen,
            "counts": self.counts,
            "total": self.total,
            "frozen": gc.get_freeze_count(),
            "tracked": len(gc.get_objects()) + gc.get_freeze_count(),
            "full": self.full[0] if self.full else None,
            "full_cpu": self.full[1] if self.full else None,
            "full_collected": self.full[2] if self.full else 0,
        }
        if self.trace:
            import tracemalloc

            snapshot = tracemalloc.take_snapshot()
            data["top"] = [
                f"{stat.size / 2**20:8.2f} MiB {stat.count:>9} blocks  {stat.traceback}"
                for stat in snapshot.statistics("lineno")[:15]
            ]
            data["traced_mb"] = tracemalloc.get_traced_memory()[0] / 2**20
        self._since()
        self.full = None
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, self.path)

    def collect_all(self, *_: Any) -> None:
        """One full collection of every object, frozen ones included (what a full collection
        costs without ``gc.freeze``), timed; the frozen set is restored after."""
        frozen = gc.get_freeze_count()
        gc.unfreeze()
        wall, cpu = time.perf_counter(), time.thread_time()
        freed = gc.collect()
        self.full = (time.perf_counter() - wall, time.thread_time() - cpu, freed)
        if frozen:
            gc.freeze()
        self.dump()


def serve_main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="harness.py serve")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--relaxed", action="store_true")
    parser.add_argument(
        "--limit", action="append", default=[], metavar="NAME=VALUE", help="a Limits default"
    )
    parser.add_argument("--gc-file")
    parser.add_argument(
        "--profile", help="profile every thread (cProfile): the event loop's to here, others' @NAME"
    )
    parser.add_argument("--trace", action="store_true", help="tracemalloc (with --gc-file)")
    args = parser.parse_args(argv)
    values: dict[str, float] = dict(RELAXED) if args.relaxed else {}
    for item in args.limit:
        name, _, value = item.partition("=")
        values[name] = float(value)
    if values:
        relax_limits(values)
    if args.gc_file:
        if args.trace:
            import tracemalloc

            tracemalloc.start()
        probe = GcProbe(args.gc_file, args.trace)
        gc.callbacks.append(probe.callback)
        signal.signal(signal.SIGUSR1, probe.dump)
        signal.signal(signal.SIGUSR2, probe.collect_all)
    from lifeledger_table import server

    if not args.profile:
        server.run(args.host, args.port, args.db)
        return
    profiles = ThreadProfiles()
    profiles.start()
    try:
        server.run(args.host, args.port, args.db)
    finally:
        profiles.dump(args.profile)


class ThreadProfiles:
    """cProfile in every thread of the server: the event loop's (the main thread) from the
    start, and each thread started later (the writer's ``asyncio.to_thread``, the log reads'
    pool, ...) from its first call, through :func:`threading.setprofile`'s hook, which puts a
    profiler of its own in its place. Each counts its thread's CPU time
    (:func:`time.thread_time`), not the wall clock's: a thread's waits (for the interpreter's
    lock, the disk, the network, a busy machine) are not its work. :meth:`dump` writes each
    thread's stats apart: the main thread's to ``PATH``, another's to ``PATH@NAME``."""

    def __init__(self) -> None:
        self.profiles: dict[str, Any] = {}
        self.lock = threading.Lock()

    def start(self) -> None:
        import cProfile

        main = cProfile.Profile(time.thread_time)
        self.profiles[""] = main
        threading.setprofile(self._hook)
        main.enable()

    def _hook(self, frame: Any, event: str, arg: Any) -> None:
        """A new thread's first call: its own profiler from now on (this hook is replaced)."""
        import cProfile

        profile = cProfile.Profile(time.thread_time)
        with self.lock:
            name = threading.current_thread().name
            key, n = name, 1
            while key in self.profiles:
                n += 1
                key = f"{name}~{n}"
            self.profiles[key] = profile
        profile.enable()

    def dump(self, path: str) -> None:
        threading.setprofile(None)
        with self.lock:
            profiles = dict(self.profiles)
        for key, profile in profiles.items():
            profile.disable()
            with contextlib.suppress(TypeError):  # a thread's profiler that saw no call
                profile.dump_stats(f"{path}@{key}" if key else path)


# -- tables -------------------------------------------------------------------------------------


def session(address: str, timeout: float = 120.0) -> aiohttp.ClientSession:
    """A client session whose connections come from ``address`` (a loopback address)."""
    connector = aiohttp.TCPConnector(local_addr=(address, 0), limit=0)
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=timeout))


@dataclass
class TableRef:
    """A table opened through the API, with a token for each of its four seats."""

    id: str
    tokens: dict[str, str]
    events: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "tokens": self.tokens, "events": self.events}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableRef:
        return cls(data["id"], data["tokens"], data.get("events", 0))


async def open_table(http: aiohttp.ClientSession, base: str) -> TableRef:
    """Open a four-player table and take every seat."""
    form = {"players": [{"name": n} for n in NAMES], "best_of": None}
    async with http.post(base + "/api/tables", json=form) as res:
        table = await res.json()
        if res.status != 201:
            raise RuntimeError(f"could not open a table: {res.status} {table}")
    tokens = {}
    for seat in SEATS:
        async with http.post(f"{base}/api/tables/{table['id']}/seats/{seat}", json={}) as res:
            tokens[seat] = (await res.json())["token"]
    return TableRef(table["id"], tokens)


async def open_tables(base: str, count: int, first_address: int = 2) -> list[TableRef]:
    """Open ``count`` tables; one address opens at most 50 (the app allows 60 in 10 minutes),
    so they come from 127.0.0.{first_address}, the next address, ..."""
    tables: list[TableRef] = []
    for start in range(0, count, 50):
        address = f"127.0.{first_address}.{1 + start // 50}"
        async with session(address) as http:
            for _ in range(start, min(count, start + 50)):
                tables.append(await open_table(http, base))
    return tables


def life_change(n: int, seat: str) -> dict[str, Any]:
    """The n-th change of a seat: alternately a gain and a loss of 1 life (no game ends)."""
    return {"do": "gain_life" if n % 2 else "lose_life", "player": seat, "amount": 1}


async def hello(ws: Socket, token: str | None, since: int = 0) -> tuple[str, float]:
    """Say hello; the welcome's text and the seconds it took."""
    started = time.perf_counter()
    await ws.send_json({"type": "hello", "token": token, "since": since})
    async for msg in ws:
        if msg.type != aiohttp.WSMsgType.TEXT:
            break
        text: str = msg.data
        if text.startswith('{"type": "welcome"') or json.loads(text).get("type") == "welcome":
            return text, time.perf_counter() - started
        if json.loads(text).get("type") == "error":
            raise RuntimeError(f"hello refused: {text[:300]}")
    raise RuntimeError("the socket closed before the welcome")


async def grow(
    base: str, table: TableRef, events: int, window: int = 64, address: str = "127.0.2.1"
) -> float:
    """Play ``events`` changes on ``table`` through the real server over one socket, keeping up
    to ``window`` unacknowledged (pipelined). Needs the relaxed limits (else the socket is
    throttled to 20 a second). The four seats' life totals go up and down by 1 in turn.
    Returns the seconds it took."""
    tag = f"g{random.getrandbits(32):x}"
    started = time.perf_counter()
    async with session(address, timeout=3600) as http:
        ws = await http.ws_connect(
            f"{base}/ws/t/{table.id}?token={table.tokens['ana']}", max_msg_size=0
        )
        await hello(ws, table.tokens["ana"])
        free = asyncio.Semaphore(window)
        failed: list[str] = []
        done = asyncio.Event()
        acked = 0

        async def read() -> None:
            nonlocal acked
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                text: str = msg.data
                if text.startswith('{"type": "event"') and not text.endswith('"}'):
                    continue  # one's own change comes back with its id: the ack
                data = json.loads(text)
                kind = data.get("type")
                if kind == "ack" or (kind == "event" and "id" in data):
                    acked += 1
                    free.release()
                elif kind == "error":
                    failed.append(text[:300])
                    free.release()
                if acked + len(failed) >= events:
                    done.set()
            done.set()

        reader = asyncio.create_task(read())
        for n in range(events):
            await free.acquire()
            if done.is_set():
                break
            seat = SEATS[n % 4]
            action = life_change(n // 4, seat)
            await ws.send_str(json.dumps({"type": "action", "id": f"{tag}-{n}", "action": action}))
        await done.wait()
        reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await reader
        await ws.close()
    if failed:
        raise RuntimeError(f"{len(failed)} changes refused while growing, e.g. {failed[0]}")
    table.events += events
    return time.perf_counter() - started


async def grow_all(
    base: str, jobs: list[tuple[TableRef, int]], parallel: int = 4, window: int = 64
) -> float:
    """Grow several tables, ``parallel`` at a time; the seconds it took."""
    started = time.perf_counter()
    gate = asyncio.Semaphore(parallel)

    async def one(k: int, table: TableRef, events: int) -> None:
        async with gate:
            await grow(base, table, events, window, address=f"127.0.2.{1 + k % 200}")

    await asyncio.gather(*(one(k, t, n) for k, (t, n) in enumerate(jobs)))
    return time.perf_counter() - started


# -- phones that count every receipt ---------------------------------------------------------


@dataclass
class Phone:
    ws: Socket
    group: str  # the table (or the echo server's group)
    seat: str
    index: int
    #: The newest sequence number this phone was sent (an event, or a welcome's entries).
    last: int = 0


@dataclass
class Figures:
    """One measuring window of a fleet of phones."""

    phones: int
    seconds: float
    sent: int = 0
    expected: int = 0
    received: int = 0
    late: int = 0
    lost: int = 0
    unacked: int = 0
    refused: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    p50: float = float("nan")
    p99: float = float("nan")
    worst: float = float("nan")
    mean: float = float("nan")
    ack_p50: float = float("nan")
    ack_p99: float = float("nan")
    event_bytes: float = float("nan")
    events_seen: int = 0
    server_cpu: float = float("nan")
    cpu_per_change_ms: float = float("nan")
    client_cpu: float = float("nan")
    load: float = float("nan")
    drain: float = 0.0
    #: Acknowledgements that arrived in the window (of any change): changes written per second.
    acked_in_window: int = 0
    #: Welcomes sent anew in the window (a table shown again after a conflict between servers).
    resyncs: int = 0
    #: The database server's CPU (PostgreSQL: every process of it) over the window and the drain.
    db_cpu: float = float("nan")
    db_cpu_per_change_ms: float = float("nan")
    #: Writes a server lost to another's over the window and the drain (PostgreSQL's log).
    conflicts: int = 0

    @property
    def server_busy(self) -> float:
        """The server's CPU over the window and the drain, in % of one core."""
        return 100 * self.server_cpu / (self.seconds + self.drain)

    @property
    def throughput(self) -> float:
        """Changes acknowledged per second in the window."""
        return self.acked_in_window / self.seconds if self.seconds else float("nan")

    @property
    def client_busy(self) -> float:
        """This process's (the phones') CPU over the window and the drain, in % of one core."""
        return 100 * self.client_cpu / (self.seconds + self.drain)

    def line(self) -> str:
        errors = ",".join(f"{k}:{v}" for k, v in sorted(self.errors.items())) or "0"
        return (
            f"sent {self.sent:>6}  receipts {self.received:>6}/{self.expected:<6}"
            f" late {self.late:>5}  lost {self.lost:>4}  unacked {self.unacked:>4}"
            f"  p50 {self.p50:7.2f}  p99 {self.p99:7.2f}"
            f"  max {self.worst:7.1f} ms  ack p50 {self.ack_p50:.2f} p99 {self.ack_p99:.2f}"
            f"  cpu/change {self.cpu_per_change_ms:6.3f} ms"
            f"  B/event {self.event_bytes:6.0f}  errors {errors}"
            f"  CPU% server {self.server_busy:3.0f}"
            f" phones {self.client_busy:3.0f}  load {self.load:.2f}"
            f"  acked/s {self.throughput:6.0f}"
            + (
                f"  db cpu/change {self.db_cpu_per_change_ms:6.3f} ms"
                f"  conflicts {self.conflicts}  resyncs {self.resyncs}"
                if self.db_cpu == self.db_cpu
                else ""
            )
        )


class Fleet:
    """Phones in tables, each sending a change ``rate`` times a second (``mode`` "table": the
    table app's protocol; "echo": the relay floor, where a message is its own receipt), from
    loopback addresses of ``per_address`` phones each (see :func:`phones_per_address`)."""

    def __init__(
        self,
        base: str,
        mode: str = "table",
        rate: float = 1.0,
        per_address: int = PHONES_PER_ADDRESS,
        compress: int = 0,
    ) -> None:
        self.base = base
        self.rate = rate
        #: Each phone's socket asks for permessage-deflate with this window (bits; 15 is what a
        #: browser asks for), 0 for none: a server that accepts compresses what it sends each.
        self.compress = compress
        self.per_address = per_address
        self.window_start = 0.0
        self.per_group: Counter[str] = Counter()
        self.mode = mode
        self.tag = f"f{random.getrandbits(32):x}"
        self.phones: list[Phone] = []
        self.sessions: list[aiohttp.ClientSession] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.sending = False
        self.measuring = False
        self.recording = False
        self.window_end = 0.0
        self._reset()

    def _reset(self) -> None:
        #: cid -> (send time, group) of the changes sent in the window
        self.sent: dict[str, tuple[float, str]] = {}
        self.acked: dict[str, int] = {}
        #: cid -> when its ack came (the sender's own answer: decided and written)
        self.ack_times: dict[str, float] = {}
        self.refused: set[str] = set()
        self.errors: Counter[str] = Counter()
        #: (group, seq) (table) or cid (echo) -> receipt times on the other phones
        self.receipts: dict[Any, list[float]] = {}
        self.event_bytes = 0
        self.events_seen = 0
        self.acked_in_window = 0
        self.relayed: set[str] = set()
        self.resyncs = 0

    # connecting ------------------------------------------------------------------------------

    async def connect_tables(
        self, tables: list[TableRef], first_address: int = 1, bases: list[str] | None = None
    ) -> None:
        """Four phones on each table (one per seat, with its token). With ``bases`` (several
        servers on one store), each table's phones are split over them in seat order: with
        two, the first two seats on the first server and the other two on the second, so that
        every change reaches phones on both."""
        bases = bases or [self.base]
        seats = [
            (t.id, s, t.tokens[s], bases[k * len(bases) // len(SEATS)])
            for t in tables
            for k, s in enumerate(SEATS)
        ]

        async def one(i: int, http: aiohttp.ClientSession) -> Phone:
            table_id, seat, token, base = seats[i]
            ws = await http.ws_connect(
                f"{base}/ws/t/{table_id}?token={token}",
                max_msg_size=0,
                heartbeat=None,
                compress=self.compress,
            )
            await hello(ws, token)
            return Phone(ws, table_id, seat, i)

        await self._connect(len(seats), one, first_address)

    async def connect_echo(self, phones: int, first_address: int = 1) -> None:
        async def one(i: int, http: aiohttp.ClientSession) -> Phone:
            ws = await http.ws_connect(
                f"{self.base}/echo/{i // 4}", max_msg_size=0, compress=self.compress
            )
            return Phone(ws, str(i // 4), f"p{i}", i)

        await self._connect(phones, one, first_address)

    async def _connect(self, count: int, one: Any, first_address: int) -> None:
        for k in range((count + self.per_address - 1) // self.per_address):
            address = f"127.0.{first_address + k // 250}.{1 + k % 250}"
            self.sessions.append(session(address, timeout=3600))
        gate = asyncio.Semaphore(50)

        async def gated(i: int) -> Phone:
            async with gate:
                phone: Phone = await one(i, self.sessions[i // self.per_address])
                return phone

        self.phones = list(
            await asyncio.wait_for(asyncio.gather(*(gated(i) for i in range(count))), 300)
        )
        self.per_group = Counter(p.group for p in self.phones)
        self.tasks = [asyncio.create_task(self._read(p)) for p in self.phones]

    async def close(self) -> None:
        self.sending = False
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.gather(*(p.ws.close() for p in self.phones), return_exceptions=True)
        for http in self.sessions:
            await http.close()
        self.tasks, self.phones, self.sessions = [], [], []

    # sending and reading ----------------------------------------------------------------------

    async def _read(self, phone: Phone) -> None:
        echo = self.mode == "echo"
        async for msg in phone.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            now = time.perf_counter()
            text: str = msg.data
            data = json.loads(text)
            if echo:
                if self.recording:
                    self.event_bytes += len(text)
                    self.events_seen += 1
                    self.receipts.setdefault(data["id"], []).append(now)
                if self.measuring and data["id"] not in self.relayed:
                    self.relayed.add(data["id"])  # the floor's "acknowledged": relayed
                    self.acked_in_window += 1
                continue
            kind = data.get("type")
            if kind == "event":
                if self.recording:
                    self.event_bytes += len(text)
                    self.events_seen += 1
                    if (data.get("entry") or {}).get("seat") != phone.seat:
                        self.receipts.setdefault((phone.group, data["seq"]), []).append(now)
                phone.last = max(phone.last, data["seq"])
            elif kind == "welcome":
                self._welcomed(phone, data, now)
            if kind == "ack" or (kind == "event" and "id" in data):  # one's own: the ack
                self.acked[data["id"]] = data["seq"]
                if data["id"] in self.sent:
                    self.ack_times[data["id"]] = now
                if self.measuring:
                    self.acked_in_window += 1
            elif kind == "error":
                self.errors[str(data.get("error"))] += 1
                if data.get("id"):
                    self.refused.add(data["id"])

    def _welcomed(self, phone: Phone, data: dict[str, Any], now: float) -> None:
        """A welcome after the first (several servers on one store: a table shown anew after
        a conflict): the entries in it the phone had not been sent are its receipts."""
        if self.recording:
            self.resyncs += 1
            for entry in data.get("entries") or ():
                if entry["seq"] > phone.last and entry.get("seat") != phone.seat:
                    self.receipts.setdefault((phone.group, entry["seq"]), []).append(now)
        phone.last = max(phone.last, data.get("seq") or 0)

    async def _send(self, phone: Phone) -> None:
        gap = 1.0 / self.rate
        await asyncio.sleep(random.random() * gap)
        n = 0
        next_at = time.perf_counter()
        while self.sending:
            n += 1
            cid = f"{self.tag}-{phone.index}-{n}"
            # Each change names the seat it acts as ("as", issue 8's table devices): the app
            # checks it on every change; the floor relays it as it would any text.
            change = {"type": "action", "id": cid, "as": phone.seat}
            text = json.dumps({**change, "action": life_change(n, phone.seat)})
            now = time.perf_counter()
            if self.measuring:
                self.sent[cid] = (now, phone.group)
            try:
                await phone.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return
            next_at += gap
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))

    def start_sending(self) -> None:
        self.sending = True
        self.tasks += [asyncio.create_task(self._send(p)) for p in self.phones]

    def begin(self) -> None:
        """Start the measuring window."""
        self._reset()
        self.recording = True
        self.measuring = True
        self.window_start = time.perf_counter()

    def end(self) -> None:
        """End the window: changes sent from now on are not measured."""
        self.measuring = False
        self.window_end = time.perf_counter()

    def _outstanding(self) -> int:
        missing = 0
        for cid, (_, group) in self.sent.items():
            if cid in self.refused:
                continue
            key: Any = cid if self.mode == "echo" else (group, self.acked.get(cid))
            want = self.per_group[group] - 1
            missing += max(0, want - len(self.receipts.get(key, ())))
        return missing

    async def drain(self, timeout: float) -> float:
        """Wait (at most ``timeout`` seconds) for every receipt of the window's changes."""
        started = time.perf_counter()
        while time.perf_counter() - started < timeout and self._outstanding():
            await asyncio.sleep(0.05)
        self.recording = False
        return time.perf_counter() - started

    def figures(self) -> Figures:
        lat: list[float] = []
        out = Figures(len(self.phones), self.window_end - self.window_start)
        for cid, (sent_at, group) in self.sent.items():
            out.sent += 1
            want = self.per_group[group] - 1
            if cid in self.refused:
                out.refused += 1
                continue
            out.expected += want
            if self.mode == "echo":
                times = self.receipts.get(cid, [])
            else:
                seq = self.acked.get(cid)
                if seq is None:
                    out.unacked += 1
                times = self.receipts.get((group, seq), []) if seq is not None else []
            times = times[:want]
            out.received += len(times)
            out.late += sum(1 for t in times if t > self.window_end)
            lat.extend(t - sent_at for t in times)
        out.lost = out.expected - out.received
        out.errors = dict(self.errors)
        acks = [self.ack_times[c] - t for c, (t, _) in self.sent.items() if c in self.ack_times]
        if acks:
            out.ack_p50, out.ack_p99 = percentile(acks, 50), percentile(acks, 99)
        if lat:
            out.p50, out.p99 = percentile(lat, 50), percentile(lat, 99)
            out.worst, out.mean = max(lat) * 1000, statistics.fmean(lat) * 1000
        if self.events_seen:
            out.event_bytes = self.event_bytes / self.events_seen
        out.events_seen = self.events_seen
        out.acked_in_window = self.acked_in_window
        out.resyncs = self.resyncs
        return out

    async def measure(
        self,
        seconds: float,
        drain: float,
        server: Measured | None = None,
        during: Any = None,
        database: Database | None = None,
    ) -> Figures:
        """One window of ``seconds`` (the phones already sending), then the drain; with
        ``server`` (one or several processes), its CPU over both, per change sent; with
        ``database``, the database server's too, and the writes lost to conflicts; ``during``:
        a coroutine function run with the window (its result is awaited before the window
        ends)."""
        cpu0 = server.cpu() if server else 0.0
        db0 = database.cpu() if database else 0.0
        conflicts0 = database.conflicts() if database else 0
        self.begin()
        own0 = own_cpu()
        if during is not None:
            task = asyncio.create_task(during())
            await asyncio.sleep(seconds)
            await task
        else:
            await asyncio.sleep(seconds)
        self.end()
        drained = await self.drain(drain)
        out = self.figures()
        out.drain = drained
        out.client_cpu = own_cpu() - own0
        if server is not None:
            out.server_cpu = server.cpu() - cpu0
            out.cpu_per_change_ms = out.server_cpu / out.sent * 1000 if out.sent else float("nan")
        if database is not None:
            out.db_cpu = database.cpu() - db0
            out.db_cpu_per_change_ms = out.db_cpu / out.sent * 1000 if out.sent else float("nan")
            out.conflicts = database.conflicts() - conflicts0
        out.load = load()
        return out


@contextlib.asynccontextmanager
async def fleet_on(base: str, tables: list[TableRef], first_address: int = 1) -> Any:
    fleet = Fleet(base)
    try:
        await fleet.connect_tables(tables, first_address)
        fleet.start_sending()
        yield fleet
    finally:
        await fleet.close()


def chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "serve":
        serve_main(sys.argv[2:])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()

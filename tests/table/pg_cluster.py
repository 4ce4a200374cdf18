"""A throwaway PostgreSQL server for the tests: a cluster made with ``initdb`` in a temporary
directory, started with ``pg_ctl`` on a free loopback port, stopped and removed afterwards.

PostgreSQL refuses to run as root: a test run as root runs the server as an unprivileged system
user (``$LIFELEDGER_PG_USER``, else Debian's ``postgres``, else ``lifeledger-pg``, created with
``useradd --system`` when missing), and the temporary directory is given to that user. The
binaries are found in ``$LIFELEDGER_PG_BIN``, Debian's ``/usr/lib/postgresql/<version>/bin``
(the newest) or on ``PATH``; ``make test`` installs Debian's ``postgresql`` when they are missing.

The server trusts every local connection (it listens on 127.0.0.1 only, and its socket is in the
temporary directory, which only that user and root can enter).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

__all__ = ["Cluster", "Unavailable", "cluster", "find_binaries"]

#: The server's superuser (made by initdb; not a system user).
SUPERUSER = "lifeledger"
#: The system user that runs the server when the tests run as root, if none is named.
SYSTEM_USER = "lifeledger-pg"


class Unavailable(Exception):
    """PostgreSQL's binaries are not installed here (the message says how to get them)."""


def find_binaries() -> Path:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``."""
    candidates: list[Path] = []
    if os.environ.get("LIFELEDGER_PG_BIN"):
        candidates.append(Path(os.environ["LIFELEDGER_PG_BIN"]))

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(n) for n in re.findall(r"\d+", path.parent.name))

    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)
    on_path = shutil.which("pg_ctl")
    if on_path is not None:
        candidates.append(Path(on_path).resolve().parent)
    for directory in candidates:
        if all((directory / name).is_file() for name in ("initdb", "pg_ctl", "postgres")):
            return directory
    raise Unavailable(
        "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: "
        "`make test` installs them (apt-get install postgresql), "
        "or set LIFELEDGER_PG_BIN to the directory holding them"
    )


def _system_user() -> pwd.struct_passwd | None:
    """The user to run the server as (``None``: the current user, who is not root)."""
    if os.geteuid() != 0:
        return None
    names = [os.environ["LIFELEDGER_PG_USER"]] if os.environ.get("LIFELEDGER_PG_USER") else []
    names += ["postgres", SYSTEM_USER]
    for name in names:
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    shell = "/usr/sbin/nologin"
    subprocess.run(
        ["useradd", "--system", "--user-group", "--no-create-home", "--shell", shell, SYSTEM_USER],
        check=True,
        capture_output=True,
    )
    return pwd.getpwnam(SYSTEM_USER)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _temporary_directory(user: pwd.struct_passwd | None) -> Path:
    """A new directory the server's user owns, whose parents it can pass through."""
    base = Path(tempfile.mkdtemp(prefix="lifeledger-pg-"))
    if user is not None:
        for parent in base.parents:
            if not os.stat(parent).st_mode & 0o001:  # others may not pass through
                shutil.rmtree(base)
                base = Path(tempfile.mkdtemp(prefix="lifeledger-pg-", dir="/tmp"))
                break
        os.chown(base, user.pw_uid, user.pw_gid)
    return base


@dataclass
class Cluster:
    """A running throwaway server: ``url(name)`` is a database's URL."""

    bindir: Path
    base: Path
    port: int
    user: pwd.struct_passwd | None
    fsync: bool = True
    host: str = "127.0.0.1"
    made: int = 0
    databases: set[str] = field(default_factory=set)

    @property
    def data(self) -> Path:
        return self.base / "data"

    @property
    def log(self) -> Path:
        return self.base / "server.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@{self.host}:{self.port}/{database}"

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run one of the binaries as the server's user, in the cluster's directory."""
        extra: dict[str, Any] = {}
        if self.user is not None:
            extra = {"user": self.user.pw_uid, "group": self.user.pw_gid, "extra_groups": []}
        return subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            cwd=self.base,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=check,
            **extra,
        )

    def create_database(self, name: str | None = None) -> str:
        """A new empty database (``name``, else the next of ``db_1``, ``db_2``, ...); returns
        its URL. Takes 0.1 to 0.4 s: :meth:`create_schema` is as good for most tests."""
        if name is None:
            self.made += 1
            name = f"db_{self.made}"
        # A file copy is the faster way without fsync; with it, logging the copy is.
        strategy = sql.SQL("WAL_LOG" if self.fsync else "FILE_COPY")
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(
                sql.SQL("CREATE DATABASE {} STRATEGY {}").format(sql.Identifier(name), strategy)
            )
        return self.url(name)

    def create_schema(self, database: str = "tests") -> str:
        """The URL of a new empty schema (``test_1``, ``test_2``, ...) of ``database`` (made
        the first time), which the URL's connections create their tables in (their
        ``search_path``): a fresh store for a test in a millisecond."""
        if database not in self.databases:
            self.create_database(database)
            self.databases.add(database)
        self.made += 1
        name = f"test_{self.made}"
        with psycopg.connect(self.url(database), autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        return f"{self.url(database)}?options=-csearch_path%3D{name}"

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"

    def stop(self) -> None:
        """Stop the server at once (no shutdown checkpoint: its files are thrown away), else
        kill it."""
        done = self.run("pg_ctl", "stop", "-w", "-t", "30", "-m", "immediate", "-D", str(self.data))
        if done.returncode == 0 or not (self.data / "postmaster.pid").exists():
            return
        with contextlib.suppress(OSError, ValueError, IndexError):
            pid = int((self.data / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)

    def running(self) -> bool:
        return self.run("pg_ctl", "status", "-D", str(self.data), check=False).returncode == 0


@contextlib.contextmanager
def cluster(*, fsync: bool = True) -> Iterator[Cluster]:
    """A new server, running for the block's length; stopped and removed afterwards, also
    when the block (or the start) fails. Raises :class:`Unavailable` without the binaries."""
    bindir = find_binaries()
    user = _system_user()
    base = _temporary_directory(user)
    made = Cluster(bindir, base, 0, user, fsync)
    started = False
    try:
        done = made.run(
            "initdb",
            "--pgdata",
            str(made.data),
            "--username",
            SUPERUSER,
            "--auth",
            "trust",
            "--encoding",
            "UTF8",
            "--locale",
            "C",
            "--no-sync",
            "--no-instructions",
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{done.stdout}\n{done.stderr}")
        for attempt in range(3):  # a free port may be taken before the server binds it
            made.port = _free_port()
            settings = {
                "listen_addresses": "'127.0.0.1'",
                "port": str(made.port),
                "unix_socket_directories": f"'{base}'",
                "fsync": "on" if fsync else "off",
                "max_connections": "200",
                "shared_buffers": "32MB",
            }
            with (made.data / "postgresql.conf").open("a") as conf:
                conf.write("".join(f"{k} = {v}\n" for k, v in settings.items()))
            done = made.run(
                *("pg_ctl", "start", "-w", "-t", "60", "-D", str(made.data), "-l", str(made.log)),
                check=False,
            )
            if done.returncode == 0:
                started = True
                break
            if attempt == 2 or "already in use" not in made.log_tail(200):
                raise RuntimeError(
                    f"pg_ctl start failed:\n{done.stdout}\n{done.stderr}\n{made.log_tail()}"
                )
            time.sleep(0.2)
        yield made
    finally:
        try:
            if started or (made.data / "postmaster.pid").exists():
                made.stop()
        finally:
            shutil.rmtree(base, ignore_errors=True)

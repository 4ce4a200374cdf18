"""The app's limits on what one client may send, and the counters that enforce them."""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["Bucket", "Limits", "Throttle"]


@dataclass(frozen=True, slots=True)
class Limits:
    """The app's limits on what one client may send."""

    #: Largest WebSocket message, in bytes.
    message_bytes: int = 16 * 1024
    #: Largest HTTP request body (a record to replay), in bytes.
    body_bytes: int = 1024 * 1024
    #: Messages per second a socket may send, on average ...
    rate: float = 20.0
    #: ... and in one burst.
    burst: float = 40.0
    #: Messages turned away for flooding before the socket is closed.
    flood_close: int = 200
    #: Failed short-code lookups per client address in ``code_window`` seconds.
    code_failures: int = 30
    code_window: float = 600.0
    #: Tables opened, and records replayed, per client address in ``work_window`` seconds.
    tables_opened: int = 60
    replays: int = 60
    work_window: float = 600.0
    #: Messages queued for a slow client before it is dropped (it resumes on reconnect).
    queue: int = 2000


class Throttle:
    """How often each client address did something lately: ``allow`` is true while an
    address stays under ``limit`` times in ``window`` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
        self.window = window
        self.times: dict[str, list[float]] = {}

    def allow(self, who: str) -> bool:
        """Whether ``who`` may do it once more now (counting this time, if so)."""
        if not self.blocked(who):
            self.count(who)
            return True
        return False

    def blocked(self, who: str) -> bool:
        """Whether ``who`` has reached the limit (counting nothing)."""
        now = time.monotonic()
        if len(self.times) > 10_000:  # forget the addresses that have gone quiet
            self.times = {k: v for k, v in self.times.items() if v and now - v[-1] < self.window}
        recent = [t for t in self.times.get(who, ()) if now - t < self.window]
        if recent:
            self.times[who] = recent
        else:
            self.times.pop(who, None)
        return len(recent) >= self.limit

    def count(self, who: str) -> None:
        """Count one more time for ``who``."""
        self.times.setdefault(who, []).append(time.monotonic())


class Bucket:
    """A token bucket: ``take`` is true while the socket keeps under its rate."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

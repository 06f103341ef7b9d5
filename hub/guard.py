"""What keeps one careless or hostile client from starving the tables: connection limits, a deadline for
request headers, bounded logging of repeated errors, and enough file descriptors.

uvicorn closes idle keep-alive connections and can cap requests in flight, but it gives a connection
that never finishes its request headers all the time in the world: a thousand such connections from
one laptop use up the hub's file descriptors and a real table's POST waits until they go. The
:class:`GuardedH11Protocol` (uvicorn's own h11 protocol, subclassed) adds what is missing:

* **a header deadline**: a connection that has not sent a whole request head within
  ``header_timeout`` seconds of connecting (or of starting its next request) is closed;
* **a cap per client address** and **a cap on all connections**: a new connection over either is
  closed at once, before it costs anything, and counted.

The request *body* deadline lives in the ASGI middleware (:class:`hub.server.BodyLimit`), which sees
the body arrive. :class:`RepeatFilter` keeps a log from growing without bound when the same error
repeats (a flood of malformed requests): the first few of a kind per minute are written, then one
line that says how many were left out.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import resource
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import h11
from uvicorn.config import LOGGING_CONFIG
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("hub")


@dataclass(frozen=True, slots=True)
class GuardSettings:
    header_timeout: float = 10.0
    #: 0 = no cap per address (behind a reverse proxy every table has the proxy's address)
    max_connections_per_client: int = 64
    max_connections: int = 900


def raise_file_limit() -> int:
    """Raise this process's open-file limit to its hard maximum; returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):  # pragma: no cover - a container that forbids it
            pass
    return soft


class _Book:
    """Per server process: open connections per client address, and how many were refused."""

    def __init__(self) -> None:
        self.per_client: Counter[str] = Counter()
        self.refused = 0
        self.timed_out = 0


_BOOKS: dict[int, _Book] = {}


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a header deadline and connection caps (settings from
    ``config.hub_guard``, a :class:`GuardSettings`)."""

    def __init__(self, config: Any, server_state: Any, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.guard: GuardSettings = getattr(config, "hub_guard", None) or GuardSettings()
        self.book = _BOOKS.setdefault(id(server_state), _Book())
        self.counted_as: str | None = None
        self.head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        host = self.client[0] if self.client else "?"
        cap = self.guard.max_connections_per_client
        if len(self.connections) > self.guard.max_connections or (cap and self.book.per_client[host] >= cap):
            self.book.refused += 1
            log.warning("connection refused: too many open connections (client %s)", host)
            transport.abort()
            return
        self.book.per_client[host] += 1
        self.counted_as = host
        self._arm_head_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.counted_as is not None:
            self.book.per_client[self.counted_as] -= 1
            if self.book.per_client[self.counted_as] <= 0:
                del self.book.per_client[self.counted_as]
            self.counted_as = None
        self._disarm_head_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.head_deadline is None and self._waiting_for_head():
            self._arm_head_deadline()  # a keep-alive connection starts its next request
        super().data_received(data)
        if not self._waiting_for_head():
            self._disarm_head_deadline()

    def _waiting_for_head(self) -> bool:
        idle = self.cycle is None or self.cycle.response_complete
        return idle and self.conn.their_state in (h11.IDLE, h11.DONE)

    def _arm_head_deadline(self) -> None:
        self._disarm_head_deadline()
        self.head_deadline = self.loop.call_later(self.guard.header_timeout, self._head_too_slow)

    def _disarm_head_deadline(self) -> None:
        if self.head_deadline is not None:
            self.head_deadline.cancel()
            self.head_deadline = None

    def _head_too_slow(self) -> None:
        self.head_deadline = None
        if self._waiting_for_head() and not self.transport.is_closing():
            self.book.timed_out += 1
            log.warning("connection closed: no complete request headers within %.0f s", self.guard.header_timeout)
            self.transport.abort()


class RepeatFilter(logging.Filter):
    """Let through at most ``burst`` records of one kind (logger, level, message template) per
    ``window`` seconds; the first record after a window says how many of its kind were left out."""

    def __init__(self, burst: int = 5, window: float = 60.0, clock: Any = time.monotonic) -> None:
        super().__init__()
        self.burst = burst
        self.window = window
        self.clock = clock
        self._seen: dict[tuple[str, int, str], list[float]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING and not _is_error_access(record):
            return True
        key = (record.name, record.levelno, str(record.msg) if not _is_error_access(record) else _access_kind(record))
        now = self.clock()
        entry = self._seen.get(key)
        if entry is None or now - entry[0] >= self.window:
            left_out = 0 if entry is None else int(entry[2])
            self._seen[key] = [now, 1, 0]
            if left_out:
                record.msg = f"{record.msg} [{left_out} more like this were not logged in the last minute]"
            if len(self._seen) > 10_000:  # never grow without bound either
                self._seen.clear()
            return True
        entry[1] += 1
        if entry[1] <= self.burst:
            return True
        entry[2] += 1
        return False


def _is_error_access(record: logging.LogRecord) -> bool:
    if record.name != "uvicorn.access" or not isinstance(record.args, tuple) or len(record.args) < 5:
        return False
    status = record.args[4]
    return isinstance(status, int) and status >= 400


def _access_kind(record: logging.LogRecord) -> str:
    args = record.args if isinstance(record.args, tuple) else ()
    path = str(args[2]).split("?")[0] if len(args) > 2 else ""
    return f"{args[1] if len(args) > 1 else ''} {path} {args[4] if len(args) > 4 else ''}"


def log_config() -> dict[str, Any]:
    """uvicorn's logging set-up with :class:`RepeatFilter` on every handler."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"repeat": {"()": "hub.guard.RepeatFilter"}}
    for handler in config["handlers"].values():
        handler["filters"] = ["repeat"]
    config["loggers"]["hub"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config

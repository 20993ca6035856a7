"""Per-endpoint concurrency limits, shared by LLM runs executing at once."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping

from bizsim.simcore.errors import ConfigError

__all__ = ["EndpointLimiter"]


class EndpointLimiter:
    """At most ``limit`` requests in flight per endpoint (API base or provider).

    CPU work has its own workers (process pools for sweeps); this bounds what
    a provider sees, whatever the number of threads running episodes.

    Args:
        limit: the default limit for every endpoint.
        per_endpoint: limits for particular endpoints.

    >>> limiter = EndpointLimiter(2)
    >>> with limiter.slot("openai"):
    ...     limiter.in_flight("openai")
    1
    """

    def __init__(self, limit: int = 8, per_endpoint: Mapping[str, int] | None = None) -> None:
        if limit < 1:
            raise ConfigError(f"limit(={limit}) must be >= 1")
        self.limit = int(limit)
        self.per_endpoint = {k: int(v) for k, v in (per_endpoint or {}).items()}
        for key, value in self.per_endpoint.items():
            if value < 1:
                raise ConfigError(f"per_endpoint[{key!r}](={value}) must be >= 1")
        self._lock = threading.Lock()
        self._sems: dict[str, threading.BoundedSemaphore] = {}
        self._busy: dict[str, int] = {}
        self.peak: dict[str, int] = {}

    def _sem(self, key: str) -> threading.BoundedSemaphore:
        with self._lock:
            sem = self._sems.get(key)
            if sem is None:
                sem = self._sems[key] = threading.BoundedSemaphore(self.per_endpoint.get(key, self.limit))
            return sem

    @contextlib.contextmanager
    def slot(self, key: str) -> Iterator[None]:
        """Hold one of ``key``'s slots for the duration of a request."""
        sem = self._sem(key)
        sem.acquire()
        with self._lock:
            self._busy[key] = self._busy.get(key, 0) + 1
            self.peak[key] = max(self.peak.get(key, 0), self._busy[key])
        try:
            yield
        finally:
            with self._lock:
                self._busy[key] -= 1
            sem.release()

    def in_flight(self, key: str) -> int:
        """Requests to ``key`` running now."""
        with self._lock:
            return self._busy.get(key, 0)

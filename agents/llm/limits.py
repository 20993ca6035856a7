"""What LLM runs executing at once share: a limit on requests in flight per endpoint, and a spending cap."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping

from bizsim.simcore.errors import ConfigError

__all__ = ["EndpointLimiter", "RunStopped"]


class RunStopped(BaseException):
    """A run told to stop before its next model call: the sweep's cost cap was reached, or the sweep is ending.

    A ``BaseException``, as ``KeyboardInterrupt`` is: a stop from outside the run, not a model failure, so no
    fallback for failed calls (the freelance auditor's, the agent's own) may turn it into a result. The run
    directory keeps every call answered so far; the run stays to do and resumes from it.
    """


class EndpointLimiter:
    """At most ``limit`` requests in flight per endpoint (API base or provider), and a shared spending cap.

    CPU work has its own workers (process pools for sweeps); this bounds what
    a provider sees, whatever the number of threads running episodes.

    Args:
        limit: the default limit for every endpoint.
        per_endpoint: limits for particular endpoints.
        max_cost_usd: no request starts once the model dollars charged (:meth:`charge`) reach this; a request
            asked for then raises :class:`RunStopped`. The requests already in flight finish, so the spend can
            pass the cap by at most their cost.
        spent_usd: dollars already spent before this limiter (a resumed sweep's finished runs).

    >>> limiter = EndpointLimiter(2)
    >>> with limiter.slot("openai"):
    ...     limiter.in_flight("openai")
    1
    """

    def __init__(self, limit: int = 8, per_endpoint: Mapping[str, int] | None = None, *,
                 max_cost_usd: float | None = None, spent_usd: float = 0.0) -> None:
        if limit < 1:
            raise ConfigError(f"limit(={limit}) must be >= 1")
        self.limit = int(limit)
        self.per_endpoint = {k: int(v) for k, v in (per_endpoint or {}).items()}
        for key, value in self.per_endpoint.items():
            if value < 1:
                raise ConfigError(f"per_endpoint[{key!r}](={value}) must be >= 1")
        if max_cost_usd is not None and max_cost_usd < 0:
            raise ConfigError(f"max_cost_usd(={max_cost_usd}) must be >= 0")
        self.max_cost_usd = max_cost_usd
        self._spent = float(spent_usd)
        self._stopped: str | None = None
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
        """Hold one of ``key``'s slots for the duration of a request.

        Raises:
            RunStopped: the cap is reached or :meth:`stop` was called (checked again once a slot is free, so a
                request that waited for its slot does not start after the cap).
        """
        self.check()
        sem = self._sem(key)
        sem.acquire()
        with self._lock:
            stop = self._reason()
            if stop is None:
                self._busy[key] = self._busy.get(key, 0) + 1
                self.peak[key] = max(self.peak.get(key, 0), self._busy[key])
        if stop is not None:
            sem.release()
            raise RunStopped(stop)
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

    def charge(self, cost_usd: float | None) -> None:
        """Count an answered request's dollars toward ``max_cost_usd`` (an unpriced one counts nothing)."""
        if cost_usd:
            with self._lock:
                self._spent += float(cost_usd)

    @property
    def spent_usd(self) -> float:
        """Dollars spent: ``spent_usd`` at the start plus every charge since."""
        with self._lock:
            return self._spent

    def stop(self, reason: str = "the sweep is ending") -> None:
        """Let no request start any more (the ones in flight finish)."""
        with self._lock:
            self._stopped = self._stopped or reason

    def check(self) -> None:
        """Raise :class:`RunStopped` if no request may start now."""
        with self._lock:
            stop = self._reason()
        if stop is not None:
            raise RunStopped(stop)

    def _reason(self) -> str | None:
        if self._stopped is not None:
            return self._stopped
        if self.max_cost_usd is not None and self._spent >= self.max_cost_usd:
            return f"the sweep's model dollars reached max_cost_usd={self.max_cost_usd} (${self._spent:.4f} spent)"
        return None

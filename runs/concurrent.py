"""Runs that wait on I/O (model calls), many at once on threads of the sweep's own process.

A run whose agent declares :data:`~bizsim.agents.declare.WAITS_ON_IO` (the
LLM agent) spends its time waiting for a model endpoint; one run per worker
process would leave the endpoint idle and import litellm in every worker. So
a sweep runs them here, on threads, each still through
:func:`bizsim.runs._worker.record_run` (the one run path), all sharing one
:class:`~bizsim.agents.llm.limits.EndpointLimiter`: at most ``concurrency``
requests in flight per endpoint, and the sweep's spending cap.

Why the sweep's process and not the workers: it has imported litellm already
(the pre-flight call), the limiter sees every request and the cap every
dollar without talking across processes, and a record reaches
``results.jsonl`` the moment its run ends. CPU-bound runs keep the backend's
workers.

An arena with LLM seats goes here too (one arena a thread): its seats take turns, so it keeps at most one request
in flight, and a sweep of arenas keeps the endpoint busy only when many arenas play at once, which one arena per
worker process would not do. Arenas with built-in seats only stay on the workers. The price: the harness's own work per call (litellm's parsing,
about 10 ms a call on a 2-core laptop) shares one core, so one sweep serves
roughly a hundred calls a second.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_all
from typing import TYPE_CHECKING, Any

from bizsim.runs._worker import record_run_encoded
from bizsim.runs.runspec import RunSpec, agent_capabilities

if TYPE_CHECKING:
    from bizsim.agents.llm.limits import EndpointLimiter  # the LLM harness is imported only by sweeps that use it

__all__ = ["DEFAULT_CONCURRENCY", "EPISODES_PER_SLOT", "ConcurrentRuns", "waits_on_io"]

#: Requests in flight per endpoint when a sweep is not told (``--concurrency``): what hosted APIs serve an account
#: at once without rate-limit errors on small tiers; a local server with fewer slots queues the rest itself.
DEFAULT_CONCURRENCY = 8

#: Runs kept going per request slot of an endpoint: while one waits for its answer, another has its next request
#: ready, so a slot is never idle while a run does its own (simulation, parsing) work between calls.
EPISODES_PER_SLOT = 2


def waits_on_io(spec: RunSpec) -> bool:
    """The spec's agent declares that its runs wait on I/O (for an arena: some seat's agent does): a sweep runs
    them concurrently on threads."""
    return bool(_waiting_options(spec))


def _waiting_options(spec: RunSpec) -> list[dict]:
    """The options of each agent of ``spec`` that waits on I/O: the run's agent, or an arena's seats' agents (of
    its base world) in seat order."""
    from bizsim.agents.declare import WAITS_ON_IO

    if not spec.roster:
        return [spec.agent_options] if WAITS_ON_IO in agent_capabilities(spec.world_spec, spec.agent) else []
    from bizsim.simcore.registry import world_spec

    base = world_spec(str(spec.world_spec.base))
    return [seat.options for seat in spec.roster if WAITS_ON_IO in agent_capabilities(base, seat.agent)]


def _endpoint(spec: RunSpec) -> str:
    """Where the spec's model requests go (the limiter's key), without building a client; an arena's are its first
    waiting seat's (the seats take turns, so an arena has one request in flight at a time, whichever seat's: each is
    counted against its own endpoint by the seat's gateway)."""
    from bizsim.agents.llm.client import endpoint_key

    options = (_waiting_options(spec) or [{}])[0]
    model, base = options.get("model"), options.get("api_base")
    return endpoint_key(str(model), base if isinstance(base, str) else None)


class ConcurrentRuns:
    """Run specs at once on threads, each through ``execute``; hand every record to ``on_record`` as it ends.

    Args:
        specs: the runs (each agent waits on I/O).
        limiter: requests in flight per endpoint and the spending cap, shared by the runs.
        on_record: called with ``{"run_id", "status", "line"}`` in the thread whose run ended; must be
            thread-safe.
        options: for :func:`~bizsim.runs._worker.record_run` (``events``, ``run_dirs``, ``keep_run_dirs``).

    A run stopped before a model call (the cap, or :meth:`stop`) gives no record: it is not finished, and its
    run directory resumes it. :attr:`held` counts those and the runs never started.
    """

    def __init__(self, specs: Sequence[RunSpec], limiter: EndpointLimiter, on_record: Callable[[dict], None],
                 **options: Any) -> None:
        self.limiter = limiter
        self.on_record = on_record
        self.options = options
        groups: dict[str, list[RunSpec]] = {}
        for spec in specs:
            groups.setdefault(_endpoint(spec), []).append(spec)
        # Endpoints take turns in the queue, so one endpoint's runs never fill every thread while another's wait.
        self.specs = [s for batch in itertools.zip_longest(*groups.values()) for s in batch if s is not None]
        self.threads = sum(min(len(g), EPISODES_PER_SLOT * limiter.per_endpoint.get(key, limiter.limit))
                           for key, g in groups.items())
        self.held = 0
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._futures: list[Future] = []

    def start(self) -> ConcurrentRuns:
        """Queue every run; at most :attr:`threads` go at once."""
        if self.specs:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="bizsim-io-run")
            self._futures = [self._pool.submit(self._one, spec.to_dict()) for spec in self.specs]
        return self

    def _one(self, spec: dict) -> None:
        from bizsim.agents.llm.limits import RunStopped

        try:
            self.limiter.check()  # past the cap, a run not yet begun is not begun (no run directory for nothing)
            item = record_run_encoded(spec, llm_options={"limiter": self.limiter}, **self.options)
        except RunStopped:
            with self._lock:
                self.held += 1
            return
        try:
            self.on_record(item)
        except BaseException:
            self.stop()  # the sweep cannot record runs any more: the others stop at their next call, to do
            raise

    def wait(self) -> int:
        """Wait for every run; the runs held back (not started, or stopped by the cap). Re-raises what failed
        outside a run (``on_record``'s own error) once the others have ended."""
        try:
            wait_all(self._futures)
            for future in self._futures:
                future.result()
        finally:
            self.close()
        return self.held

    def stop(self) -> None:
        """Start no run and no model call any more; the calls in flight finish (their runs stay to do)."""
        self.limiter.stop()
        for future in self._futures:
            if future.cancel():
                with self._lock:
                    self.held += 1

    def close(self) -> None:
        """Stop, then wait for the threads (a call in flight ends within its endpoint's answer time)."""
        if self._pool is not None:
            self.stop()
            self._pool.shutdown(wait=True)
            self._pool = None

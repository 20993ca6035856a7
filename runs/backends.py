"""Where a sweep's runs execute: in this process, on a local process pool, or on Ray.

A backend is anything with ``run(specs, job) -> iterator of dicts`` that
yields ``job(spec)`` as soon as each run finishes (in any order) and cleans up
when the iterator is closed early (an interrupted sweep). ``job`` is a
picklable function ``spec dict -> dict`` that never raises for a failing run
(the sweep's job returns the record already encoded: ``{"run_id", "status",
"line"}``). A backend that loses a run (a dead worker) yields a full error
record for it instead.

A sweep hands a backend only the runs that need a CPU: the runs of an agent
that waits on I/O (the LLM agent) run at once on threads of the sweep's own
process, whatever the backend (:mod:`bizsim.runs.concurrent`).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, runtime_checkable

from bizsim.simcore.errors import BizSimError, ConfigError

__all__ = ["BACKENDS", "Backend", "ProcessBackend", "RayBackend", "SerialBackend", "make_backend"]

Job = Callable[[dict], dict]


@runtime_checkable
class Backend(Protocol):
    """Runs jobs and yields their records as they finish."""

    def run(self, specs: Sequence[dict], job: Job) -> Iterator[dict]:
        """Yield ``job(spec)`` for every spec, in completion order."""
        ...


class SerialBackend:
    """Every run in this process, one after another (debugging, notebooks, tiny grids)."""

    def run(self, specs: Sequence[dict], job: Job) -> Iterator[dict]:
        """Yield ``job(spec)`` for every spec, in order."""
        for spec in specs:
            yield job(spec)


#: The error type and message of a run whose worker process died, the same whichever backend ran it.
WORKER_DIED = ("WorkerDied", "the worker process died running this run")


def _crash_record(spec: dict, exc: BaseException) -> dict:
    """The failure record of a run that took its worker down; the backend's own words go in ``traceback``."""
    from bizsim.runs._worker import record_version
    from bizsim.runs.runspec import RunSpec

    rs = RunSpec.from_dict(spec)
    kind, message = WORKER_DIED
    return {
        "v": record_version, "run_id": rs.run_id, "status": "error",
        "error": {"type": kind, "message": message, "traceback": f"{type(exc).__name__}: {exc}".strip()},
        "benchmark_id": rs.benchmark_id, "spec": rs.to_dict(), "preset_label": rs.preset_label, "wall_s": None,
    }


class ProcessBackend:
    """A local ``ProcessPoolExecutor``.

    Args:
        workers: worker processes (default: the CPUs this process may use).
        mp_context: a multiprocessing context or start method name (default
            ``forkserver`` where available, else ``spawn``: safe with threads,
            and nothing global is changed).
        in_flight: tasks submitted ahead per worker (bounds memory on huge grids).
        chunk: most runs per task. A task's runs go to a worker together and
            come back together, which saves the sweep's process (sharing the
            CPUs with the workers) most of its per-run work; grids too small to
            keep every worker busy that way get smaller tasks.
    """

    def __init__(
        self, workers: int | None = None, mp_context: Any = None, in_flight: int = 4, chunk: int = 8
    ) -> None:
        if workers is not None and workers < 1:
            raise ConfigError(f"workers(={workers}) must be >= 1")
        if chunk < 1:
            raise ConfigError(f"chunk(={chunk}) must be >= 1")
        self.workers = workers or _cpus()
        if mp_context is None or isinstance(mp_context, str):
            methods = multiprocessing.get_all_start_methods()
            name = mp_context or ("forkserver" if "forkserver" in methods else "spawn")
            mp_context = multiprocessing.get_context(name)
        self.mp_context = mp_context
        self.in_flight = max(1, in_flight)
        self.chunk = chunk

    def run(self, specs: Sequence[dict], job: Job) -> Iterator[dict]:
        """Yield records as workers finish them.

        A worker that dies (killed, out of memory, a crash in C code) breaks the
        pool. The runs that were in flight become suspects and a new pool
        starts; suspects then run one at a time with nothing else in flight,
        so a suspect that breaks the pool again is the culprit for certain: it
        is recorded as failed (``WorkerDied``) and the others run normally.
        """
        queue = list(reversed(specs))
        suspects: list[dict] = []
        while queue or suspects:
            pool = self._start_pool(len(queue) + len(suspects))
            pending: dict[Future, list[dict]] = {}
            isolated = False
            try:
                while queue or suspects or pending:
                    if suspects and not pending:
                        isolated = True
                        self._submit(pool, job, suspects, pending, 1)
                    elif not suspects:
                        isolated = False
                        capacity = self.workers * self.in_flight
                        # Whole chunks only while every worker still gets ``in_flight`` tasks of them.
                        size = max(1, min(self.chunk, len(queue) // capacity))
                        while queue and len(pending) < capacity:
                            self._submit(pool, job, queue, pending, size)
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    broken = False
                    for fut in done:
                        try:
                            records = fut.result()
                        except BrokenProcessPool:
                            broken = True
                            continue
                        del pending[fut]
                        yield from records
                    if broken:
                        break
            except BrokenProcessPool:  # the pool broke while a run was being submitted
                pass
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
            lost = [spec for chunk in pending.values() for spec in chunk]
            if isolated and len(lost) == 1:
                yield _crash_record(lost[0], BrokenProcessPool("the worker process died running this run"))
            else:
                suspects.extend(lost)

    @staticmethod
    def _submit(
        pool: ProcessPoolExecutor, job: Job, source: list[dict], pending: dict[Future, list[dict]], size: int
    ) -> None:
        chunk = [source.pop() for _ in range(min(size, len(source)))]
        try:
            pending[pool.submit(_call_chunk, job, chunk)] = chunk
        except BrokenProcessPool:
            source.extend(reversed(chunk))
            raise

    def _start_pool(self, runs: int) -> ProcessPoolExecutor:
        """A pool whose workers are known to start (a failing start raises at once instead of failing every run)."""
        pool = ProcessPoolExecutor(
            max_workers=max(1, min(self.workers, runs)), mp_context=self.mp_context, initializer=_exit_with_parent
        )
        try:
            pool.submit(os.getpid).result()
        except BrokenProcessPool as exc:
            pool.shutdown(wait=False, cancel_futures=True)
            raise BizSimError(
                f"the sweep's worker processes cannot start ({exc}). In a script, put the sweep under "
                "`if __name__ == \"__main__\":` (each worker imports the script again); from stdin, use a script "
                "file or a notebook; or use backend='serial' to see the error"
            ) from None
        return pool


class RayBackend:
    """Ray tasks, on a local instance or an existing cluster.

    Args:
        address: a cluster address (``ray://host:10001`` or ``auto``); ``None``
            starts a local instance with ``workers`` CPUs unless Ray is already
            initialised in this process.
        workers: CPUs of a local instance (default: the CPUs this process may use).
        in_flight: tasks submitted ahead per CPU.

    Ray is the optional extra ``ray``; it is imported only here.
    A local instance this backend started is shut down when the sweep ends.
    On a cluster every node needs bizsim (and the module of any agent given
    as ``module:function``); to pass a ``runtime_env`` or other settings,
    call ``ray.init(...)`` yourself first: an initialised Ray is used as it is.
    Run directories (with ``run_dirs=True``) are written by the node that
    runs them, under the sweep directory: across several nodes, that
    directory must be on a filesystem they all share. (A sweep's runs of
    agents that wait on I/O, the LLM agent's, never come here: they run on
    threads of the sweep's process.)
    """

    def __init__(self, address: str | None = None, workers: int | None = None, in_flight: int = 4) -> None:
        self.address = address
        self.workers = workers
        self.in_flight = max(1, in_flight)

    def run(self, specs: Sequence[dict], job: Job) -> Iterator[dict]:
        """Yield records as Ray tasks finish."""
        try:
            import ray
        except ImportError:
            from bizsim.simcore.extras import install_hint

            raise ConfigError(f"backend 'ray' needs Ray: {install_hint('ray')}") from None
        started = False
        if not ray.is_initialized():
            if self.address:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(num_cpus=self.workers or _cpus(), include_dashboard=False, log_to_driver=False)
            started = True
        pending: dict[Any, dict] = {}
        try:
            remote = ray.remote(num_cpus=1, max_retries=0)(_call)
            capacity = max(1, int(ray.cluster_resources().get("CPU", 1))) * self.in_flight
            queue = list(reversed(specs))
            while queue or pending:
                while queue and len(pending) < capacity:
                    spec = queue.pop()
                    pending[remote.remote(job, spec)] = spec
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    spec = pending.pop(ref)
                    try:
                        record = ray.get(ref)
                    except Exception as exc:  # noqa: BLE001 - a lost worker or node: the run failed, the sweep goes on
                        record = _crash_record(spec, exc)
                    yield record
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
            if started:
                ray.shutdown()


def _call(job: Job, spec: dict) -> dict:
    return job(spec)


_frozen = False
#: Allocations between collections of the youngest generation in a pool worker
#: (CPython's default: 700 before 3.13, 2000 since).
_GEN0_THRESHOLD = 10_000


def _call_chunk(job: Job, specs: list[dict]) -> list[dict]:
    """In a pool worker: run a task's specs; after the first task, freeze what the runs imported.

    Modules, worlds' presets and agents stay for the worker's life; frozen,
    the cyclic garbage collector stops walking them on every full collection.
    A run allocates far more than it leaves as cyclic garbage (a world is
    closed when its record is made), so the youngest generation is collected
    less often too: a startup year then spends about 0.1 ms in the collector
    instead of 0.5 ms.
    """
    global _frozen
    records = [job(spec) for spec in specs]
    if not _frozen:
        _frozen = True
        gc.collect()
        gc.freeze()
        gc.set_threshold(_GEN0_THRESHOLD, *gc.get_threshold()[1:])
    return records


def _exit_with_parent() -> None:
    """In a pool worker: exit as soon as the sweep's process is gone.

    A sweep killed with SIGKILL runs no cleanup; without this its idle workers
    (and the forkserver they keep alive) would wait on the task queue forever.
    """
    import threading
    from multiprocessing.connection import wait as wait_for

    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return

    def watch() -> None:
        wait_for([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="bizsim-orphan-guard", daemon=True).start()


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


#: backend name -> class
BACKENDS: dict[str, type] = {"serial": SerialBackend, "process": ProcessBackend, "ray": RayBackend}


def make_backend(backend: str | Backend, *, workers: int | None = None, ray_address: str | None = None) -> Backend:
    """A backend from its name (``serial``, ``process``, ``ray``) or a backend object as it is."""
    if not isinstance(backend, str):
        if not isinstance(backend, Backend):
            raise ConfigError(
                f"backend(={backend!r}) must be one of {', '.join(BACKENDS)} or have a run(specs, job) method"
            )
        return backend
    if backend not in BACKENDS:
        raise ConfigError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if ray_address is not None and backend != "ray":
        raise ConfigError(f"ray_address goes with backend 'ray', not {backend!r}")
    if backend == "serial":
        return SerialBackend()
    if backend == "process":
        return ProcessBackend(workers)
    return RayBackend(ray_address, workers)

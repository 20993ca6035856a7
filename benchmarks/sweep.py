"""How many startup greedy years per minute does a sweep run, serially and on the local process pool?

Run: ``python benchmarks/sweep.py [--years 500] [--repeats 2] [--workers N] [--target 10000] [--pool-only]``.

Each measurement runs ``--years`` greedy episodes (preset ``default``, distinct
seeds) through :func:`bizsim.runs.sweep` into a fresh directory: full
records (summary, series, every command and event, task staffing), streamed
to ``results.jsonl``. Each is repeated ``--repeats`` times on new seeds and
the best rate is kept (other processes on the machine only ever slow a
measurement down). For reference it also measures the bare simulation
(worlds run in a loop, nothing recorded) in one process and in ``--workers``
processes at once: the second is the ceiling a pool can reach on this
machine. It prints years per minute, the time ``--target`` years take at that
rate, the pool's start-up and the Parquet compaction time.
``--years 10000 --repeats 1 --pool-only`` times the target directly.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from bizsim.agents import greedy
from bizsim.analysis import compact
from bizsim.runs import grid, sweep
from bizsim.runs.backends import _cpus
from bizsim.models.startup import StartupWorld

from calibration import machine_line  # benchmarks/calibration.py


def bare(years: int, first_seed: int) -> float:
    """Seconds to simulate ``years`` greedy years in this process with no recording."""
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + years):
        world = StartupWorld("default", seed)
        world.run(greedy)
        world.close()  # as the sweep's workers do
    return time.perf_counter() - start


def bare_parallel(years: int, first_seed: int, workers: int) -> float:
    """Seconds for ``workers`` processes to simulate ``years`` greedy years between them, nothing recorded."""
    share = -(-years // workers)
    with ProcessPoolExecutor(workers, mp_context=get_context("forkserver")) as pool:
        list(pool.map(bare, [1] * workers, [0] * workers))  # start the workers before timing
        start = time.perf_counter()
        list(pool.map(bare, [share] * workers, [first_seed + i * share for i in range(workers)]))
        return time.perf_counter() - start


def timed_sweep(
    years: int, first_seed: int, backend: str, workers: int | None, events: bool, root: Path
) -> tuple[float, Path]:
    """Seconds for a sweep of ``years`` greedy years (no compaction), and its directory."""
    out = root / f"{backend}-{workers}-{events}-{first_seed}"
    specs = grid("startup", "default", "greedy", f"{first_seed}-{first_seed + years - 1}")
    start = time.perf_counter()
    summary = sweep(specs, out, backend=backend, workers=workers, progress=False, events=events, compact=False)
    elapsed = time.perf_counter() - start
    assert summary.ran == years and summary.failed == 0, summary
    return elapsed, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--years", type=int, default=500, help="episodes per measurement (default 500)")
    parser.add_argument("--repeats", type=int, default=2, help="repeats per measurement; the best counts (default 2)")
    parser.add_argument("--workers", type=int, default=None, help="pool processes (default: every CPU available)")
    parser.add_argument("--target", type=int, default=10_000, help="project the time for this many years")
    parser.add_argument("--pool-only", action="store_true", help="measure only the process pool with full records")
    parser.add_argument("--keep", action="store_true", help="keep the sweep directories (printed)")
    args = parser.parse_args()
    workers = args.workers or _cpus()
    n, reps = args.years, max(1, args.repeats)
    root = Path(tempfile.mkdtemp(prefix="bizsim-bench-sweep-"))
    print(f"{n} startup greedy years per measurement, best of {reps}; {workers} pool workers; {os.cpu_count()} CPUs")
    seed = iter(range(1, 10**9, n))
    try:
        # The first pool of a process starts the forkserver and imports bizsim: timed once, apart.
        start = time.perf_counter()
        timed_sweep(2 * workers, 10**9, "process", workers, True, root)
        t_start = time.perf_counter() - start
        rows: list[tuple[str, float]] = []
        small = min(n, 200)
        rows.append(("bare simulation, 1 process", max(small / bare(small, next(seed)) for _ in range(reps))))
        rows.append((f"bare simulation, {workers} processes (ceiling)",
                     max(n / bare_parallel(n, next(seed), workers) for _ in range(reps))))
        configs = [("process", workers, True, f"sweep, process pool x{workers}")]
        if not args.pool_only:
            configs = [("serial", None, True, "sweep, serial"), *configs,
                       ("process", workers, False, f"sweep, process pool x{workers}, no events")]
        out = None
        for backend, w, events, label in configs:
            best = 0.0
            for _ in range(reps):
                elapsed, out_dir = timed_sweep(n, next(seed), backend, w, events, root)
                best = max(best, n / elapsed)
                if backend == "process" and events:
                    out = out_dir
            rows.append((label, best))
        print(f"{'':46s} {'years/min':>10s} {args.target:>7,d} years in")
        for label, per_s in rows:
            print(f"{label:46s} {per_s * 60:10,.0f} {args.target / per_s / 60:6.1f} min")
        rates = dict(rows)
        pool = rates[f"sweep, process pool x{workers}"]
        ceiling = rates[f"bare simulation, {workers} processes (ceiling)"]
        print(f"pool against the ceiling: {pool / ceiling:.0%}", end="")
        if not args.pool_only:
            print(f"; pool against serial: {pool / rates['sweep, serial']:.2f}x", end="")
        print(f"\nfirst pool start-up (forkserver, imports, {2 * workers} runs): {t_start:.1f} s")
        if out is not None:
            start = time.perf_counter()
            compact(out)
            t_compact = time.perf_counter() - start
            size = sum(p.stat().st_size for p in out.glob("*.parquet"))
            jsonl = (out / "results.jsonl").stat().st_size
            print(f"compaction of {n} runs to Parquet: {t_compact:.1f} s "
                  f"(results.jsonl {jsonl / 1e6:.1f} MB -> Parquet {size / 1e6:.1f} MB)")
        print(machine_line())
        if args.keep:
            print(f"sweep directories kept in {root}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

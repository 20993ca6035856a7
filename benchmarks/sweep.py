"""How many startup greedy years per minute does a sweep run, serially and on the local process pool?

Run: ``python benchmarks/sweep.py [--years 1000] [--workers N] [--target 10000] [--pool-only]``.

Each measurement runs ``--years`` greedy episodes (preset ``default``, distinct
seeds) through :func:`bizsim.analysis.sweep` into a fresh directory: full
records (summary, series, every command and event, task staffing), streamed
to ``results.jsonl``. It prints years per minute, the time ``--target`` years
would take at that rate, the pool's speed-up over serial, and for reference
the bare simulation rate (worlds run in a loop, nothing recorded) and the
Parquet compaction time. Pass ``--years 10000`` to time the target directly.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from bizsim.agents import greedy
from bizsim.analysis import compact, grid, sweep
from bizsim.analysis.backends import _cpus
from bizsim.models.startup import StartupWorld


def bare(years: int, first_seed: int) -> float:
    """Seconds to simulate ``years`` greedy years in this process with no recording."""
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + years):
        StartupWorld("default", seed).run(greedy)
    return time.perf_counter() - start


def timed_sweep(years: int, first_seed: int, backend: str, workers: int | None, events: bool, root: Path) -> tuple[float, Path]:
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
    parser.add_argument("--years", type=int, default=1000, help="episodes per measurement (default 1000: under 2 minutes in all)")
    parser.add_argument("--workers", type=int, default=None, help="pool processes (default: every CPU available)")
    parser.add_argument("--target", type=int, default=10_000, help="project the time for this many years")
    parser.add_argument("--pool-only", action="store_true", help="measure only the process pool with full records")
    parser.add_argument("--keep", action="store_true", help="keep the sweep directories (printed)")
    args = parser.parse_args()
    workers = args.workers or _cpus()
    root = Path(tempfile.mkdtemp(prefix="bizsim-bench-sweep-"))
    print(f"{args.years} startup greedy years per measurement; {workers} pool workers; {os.cpu_count()} CPUs on this machine")
    try:
        t_bare = bare(min(args.years, 200), 1)
        rate_bare = min(args.years, 200) / t_bare * 60
        rows = [("bare simulation, 1 process (reference)", rate_bare, None)]
        if not args.pool_only:
            t_serial, _ = timed_sweep(args.years, 1, "serial", None, True, root)
            rows.append(("sweep serial", args.years / t_serial * 60, t_serial))
        t_pool, out = timed_sweep(args.years, 1, "process", workers, True, root)
        rows.append((f"sweep process pool x{workers}", args.years / t_pool * 60, t_pool))
        if not args.pool_only:
            t_lean, _ = timed_sweep(args.years, 1, "process", workers, False, root)
            rows.append((f"sweep process pool x{workers}, no events", args.years / t_lean * 60, t_lean))
        start = time.perf_counter()
        compact(out)
        t_compact = time.perf_counter() - start
        size = sum(p.stat().st_size for p in out.glob("*.parquet"))
        jsonl = (out / "results.jsonl").stat().st_size
        print(f"{'':44s} {'years/min':>10s} {'wall s':>8s} {args.target:>7,d} years in")
        for label, rate, wall in rows:
            wall_text = f"{wall:8.1f}" if wall is not None else f"{'':8s}"
            print(f"{label:44s} {rate:10,.0f} {wall_text} {args.target / rate:6.1f} min")
        if not args.pool_only:
            print(f"pool speed-up over serial: {t_serial / t_pool:.2f}x; recording overhead (serial vs bare): "
                  f"{rate_bare / (args.years / t_serial * 60):.2f}x")
        print(f"pool against {workers} x bare (no recording, no IPC): {(args.years / t_pool * 60) / (workers * rate_bare):.0%}")
        print(f"compaction of {args.years} runs to Parquet: {t_compact:.1f} s "
              f"(results.jsonl {jsonl / 1e6:.1f} MB -> Parquet {size / 1e6:.1f} MB)")
        if args.keep:
            print(f"sweep directories kept in {root}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()

"""startup-v2's difficulty ladder: the greedy floor and the planner on every preset, mean final funds over seeds.

Run: ``nice python benchmarks/startup_v2_ladder.py [--seeds 20] [--jobs 2]``. It prints the rows of the results
table in docs/worlds/startup-v2.md (mean, median and bankruptcies per agent and preset) and whether the ladder
holds: the planner's mean falls from ``easy`` to ``nightmare`` and stays above greedy's on every rung. About 160
episodes at the default 20 seeds, a few minutes of CPU.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import pairwise

from calibration import machine_line  # benchmarks/calibration.py

PRESETS = ("easy", "default", "hard", "nightmare")
AGENTS = ("greedy", "planner")


def final_funds(job: tuple[str, str, int]) -> tuple[int, bool]:
    """Final funds in cents of one episode, and whether it went bankrupt."""
    from bizsim.runs import run_episode

    preset, agent, seed = job
    result = run_episode("startup-v2", preset, agent, seed=seed)
    return result.final_funds_cents, result.terminal_reason != "horizon_end"


def _money(cents: float) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20, help="seeds 1..N of each preset")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args()
    jobs = [(p, a, s) for p in PRESETS for a in AGENTS for s in range(1, args.seeds + 1)]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = dict(zip(jobs, pool.map(final_funds, jobs, chunksize=4)))
    elapsed = time.perf_counter() - start
    means: dict[tuple[str, str], float] = {}
    print("| preset | greedy: mean final funds | median | bankrupt | planner: mean final funds | median | bankrupt |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for p in PRESETS:
        cells = []
        for a in AGENTS:
            runs = [results[(p, a, s)] for s in range(1, args.seeds + 1)]
            funds = [f for f, _ in runs]
            means[(p, a)] = statistics.fmean(funds)
            cells += [_money(means[(p, a)]), _money(statistics.median(funds)),
                      f"{sum(b for _, b in runs)}/{args.seeds}"]
        print(f"| `{p}` | " + " | ".join(cells) + " |")
    falls = all(means[(a, "planner")] > means[(b, "planner")] for a, b in pairwise(PRESETS))
    above = all(means[(p, "planner")] > means[(p, "greedy")] for p in PRESETS)
    print(f"planner's mean falls from easy to nightmare: {falls}; above greedy's on every rung: {above}")
    print(f"{len(jobs)} episodes in {elapsed:.0f} s on {args.jobs} processes")
    print(machine_line())


if __name__ == "__main__":
    main()

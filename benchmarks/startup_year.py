"""How fast does the startup world run? Greedy years and commands per second, one core.

Run: ``python benchmarks/startup_year.py [--years 200] [--repeats 5] [--world startup-v2]``.
``--world startup-v2`` times startup-v2's greedy on its ``default`` preset beside startup-v1's and prints the
ratio of their milliseconds per year (v2 must cost at most twice v1).
Each repeat runs ``--years`` episodes on distinct seeds (cold: every world
is generated afresh) and reports the median over repeats. Each world is
closed once its year is over (``World.close()``), as a loop over many worlds
should: it frees the world at once instead of leaving it to the cyclic
garbage collector.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bizsim.agents import greedy, greedy_reference
from bizsim.models.startup import StartupWorld

from calibration import machine_line  # benchmarks/calibration.py


def measure(preset: str, agent, years: int, first_seed: int, cls=StartupWorld) -> tuple[float, float, float]:
    """Years per second, commands per second, and mean milliseconds per year."""
    commands = 0
    start = time.perf_counter()
    for seed in range(first_seed, first_seed + years):
        world = cls(preset, seed)
        world.run(agent)
        commands += world.trajectory.count("cmd")
        world.close()
    elapsed = time.perf_counter() - start
    return years / elapsed, commands / elapsed, 1000 * elapsed / years


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--years", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--world", choices=("startup", "startup-v2"), default="startup",
                        help="startup-v2: also time v2's greedy year and print v2/v1")
    args = parser.parse_args()
    cases = [("greedy / default", "default", greedy, StartupWorld),
             ("greedy-reference / reference", "reference", greedy_reference, StartupWorld)]
    if args.world == "startup-v2":
        from bizsim.agents import planner
        from bizsim.agents.startup.v2 import greedy as greedy_v2
        from bizsim.agents.startup.v2 import planner as planner_v2
        from bizsim.models.startup.v2 import StartupV2World

        # The greedy floor goes bankrupt more often on v2 (shorter years); the planner plays every year to its end.
        cases += [("startup-v2 greedy / default", "default", greedy_v2, StartupV2World),
                  ("planner / default", "default", planner, StartupWorld),
                  ("startup-v2 planner / default", "default", planner_v2, StartupV2World)]
    per_year = {}
    for label, preset, agent, cls in cases:
        measure(preset, agent, 1, 10**6, cls)  # untimed: first-use costs (lazy imports, per-config caches) stay out
        runs = [measure(preset, agent, args.years, 1 + r * args.years, cls) for r in range(args.repeats)]
        yps = statistics.median(r[0] for r in runs)
        cps = statistics.median(r[1] for r in runs)
        ms = statistics.median(r[2] for r in runs)
        per_year[label] = ms
        print(f"{label:30s} {yps:8.1f} years/s  {cps:10.0f} commands/s  {ms:6.2f} ms/year  (median of {args.repeats} x {args.years} seeds)")
    init = []
    for r in range(args.repeats):
        t = time.perf_counter()
        for seed in range(1, 101):
            StartupWorld("default", seed)
        init.append((time.perf_counter() - t) * 10)
    print(f"{'world generation':30s} {statistics.median(init):8.2f} ms/world (median)")
    if args.world == "startup-v2":
        for agent in ("greedy", "planner"):
            ratio = per_year[f"startup-v2 {agent} / default"] / per_year[f"{agent} / default"]
            print(f"{'startup-v2 / startup-v1':30s} {ratio:8.2f} x the milliseconds of a {agent} year on default")
    print(machine_line())


if __name__ == "__main__":
    main()

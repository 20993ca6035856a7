"""How fast do the EcoGym worlds run? Simulated years per second with their baseline agents, one core.

Run: ``python benchmarks/ecogym_year.py [--years 50] [--repeats 5]``.
Each repeat runs ``--years`` episodes on distinct seeds, cold (every world
and catalog generated afresh: seeds do not repeat within a row), each world
closed once its year is over (``World.close()``, as a loop over many worlds
should), and the medians over repeats are printed:
wall-clock years per second, CPU-time years per second (``process_time``:
less sensitive to other load on the machine) and milliseconds per year.
Targets: operation >= 200 years/s, vending ``large`` >= 20 years/s, freelance >= 50 years/s.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from bizsim.agents import make_agent
from bizsim.models.freelance import FreelanceWorld
from bizsim.models.operation import OperationWorld
from bizsim.models.vending import VendingWorld

from calibration import machine_line  # benchmarks/calibration.py


def idle(world):
    """Only ``task_done``: the floor a day costs (kernel, dynamics, report)."""
    while not world.done:
        yield world.advance()


def measure(make_world: Callable[[int], object], agent: Callable, years: int, first_seed: int) -> tuple[float, float]:
    """Wall and CPU seconds for ``years`` episodes on consecutive seeds."""
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in range(first_seed, first_seed + years):
        world = make_world(seed)
        world.run(agent)
        world.close()  # as a loop over many worlds should: freed now, not by the cyclic garbage collector
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--years", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    cases = [
        ("operation / default / threshold", lambda s: OperationWorld("default", s),
         make_agent("operation", "threshold"), 200),
        ("operation / default / round-robin", lambda s: OperationWorld("default", s),
         make_agent("operation", "round-robin"), 200),
        ("operation / default / task_done only", lambda s: OperationWorld("default", s), idle, None),
        ("vending / large / markup", lambda s: VendingWorld("large", s), make_agent("vending", "markup"), 20),
        ("vending / medium / markup", lambda s: VendingWorld("medium", s), make_agent("vending", "markup"), None),
        ("vending / small / markup", lambda s: VendingWorld("small", s), make_agent("vending", "markup"), None),
        ("freelance / default / cautious", lambda s: FreelanceWorld("default", s), make_agent("freelance", "cautious"),
         50),
        ("freelance / default / oracle", lambda s: FreelanceWorld("default", s), make_agent("freelance", "oracle"),
         None),
    ]
    print(f"{'world / preset / agent':38s} {'years/s':>9s} {'cpu y/s':>9s} {'ms/year':>8s}  target")
    for label, factory, agent, target in cases:
        measure(factory, agent, 1, 10**6)  # untimed: first-use costs (lazy imports, caches) stay out of the figures
        runs = [measure(factory, agent, args.years, 1 + r * args.years) for r in range(args.repeats)]
        wall = statistics.median(args.years / w for w, _ in runs)
        cpu = statistics.median(args.years / c for _, c in runs)
        ms = statistics.median(1000 * w / args.years for w, _ in runs)
        goal = f">= {target}" if target else ""
        print(f"{label:38s} {wall:9.1f} {cpu:9.1f} {ms:8.2f}  {goal}")
    print(f"(medians of {args.repeats} repeats x {args.years} seeds; one process, one core)")
    
    print(machine_line())


if __name__ == "__main__":
    main()

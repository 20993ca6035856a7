"""How fast is an arena? A 4-seat vending-arena year of planners against one vending year of the planner.

Run: ``python benchmarks/arena_year.py [--years 10] [--repeats 5] [--preset large] [--seats 4]``.
Each repeat plays ``--years`` episodes on distinct seeds (cold: every world and catalog generated afresh), once as
one vending world played by the planner and then as a ``--seats`` vending arena with a planner in every seat on the
same seeds, each world closed once its year is over. Printed, for wall-clock and CPU time (``process_time``, less
sensitive to other load on a shared machine): the medians over repeats of milliseconds per year for each, and the
median of the repeats' ratios arena / vending (target: under 4 for 4 seats, issue 46 item 7: four machines'
agents and books and one shared market a day cost less than four vending years). For a measurement from outside the process, run one case alone:
``--only vending`` or ``--only arena`` (what ``farm-bench --vs`` compares).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from bizsim.agents.vending import planner
from bizsim.models.vending import VendingWorld
from bizsim.models.vending.arena import VendingArena

from calibration import machine_line  # benchmarks/calibration.py


def vending_year(preset: str, seed: int) -> None:
    world = VendingWorld(preset, seed)
    world.run(planner)
    world.close()


def arena_year(preset: str, seed: int, seats: int) -> None:
    arena = VendingArena(preset, seed, seats=seats)
    arena.run([planner] * seats)
    arena.close()


def measure(one: Callable[[int], None], years: int, first_seed: int) -> tuple[float, float]:
    """Wall and CPU seconds for ``years`` episodes on consecutive seeds."""
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in range(first_seed, first_seed + years):
        one(seed)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--years", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--preset", default="large")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--only", choices=("vending", "arena"))
    args = parser.parse_args()
    cases = {"vending": lambda s: vending_year(args.preset, s),
             "arena": lambda s: arena_year(args.preset, s, args.seats)}
    if args.only:
        measure(cases[args.only], args.years, 1)
        return
    for one in cases.values():
        measure(one, 1, 10**6)  # untimed: first-use costs (imports, caches) stay out of the figures
    # Vending and arena take turns on the same seeds, and the ratio is taken repeat by repeat: the machine's speed
    # drifting during the call then moves both sides of a ratio alike.
    rows = []
    for r in range(args.repeats):
        first = 1 + r * args.years
        rows.append((measure(cases["vending"], args.years, first), measure(cases["arena"], args.years, first)))
    for label, k in (("wall", 0), ("cpu", 1)):
        vending = statistics.median(1000 * v[k] / args.years for v, _ in rows)
        arena = statistics.median(1000 * a[k] / args.years for _, a in rows)
        ratio = statistics.median(a[k] / v[k] for v, a in rows)
        print(f"{label:4s}  vending / {args.preset} / planner {vending:8.1f} ms/year   vending-arena / {args.preset} / "
              f"{args.seats} x planner {arena:8.1f} ms/year   ratio {ratio:.2f} (target < {args.seats})")
    print(f"(medians of {args.repeats} paired repeats x {args.years} seeds; one process, one core; quote cpu when "
          "the machine is shared)")
    print(machine_line())


if __name__ == "__main__":
    main()

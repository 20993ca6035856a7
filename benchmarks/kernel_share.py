"""How much of an operation day is the world's own work, and how much the kernel's?

Run: ``python benchmarks/kernel_share.py [--years 100] [--repeats 5]``.
Three ways through the same year (preset ``default``, the ``threshold``
agent's rule, the same seeds), in microseconds a day (medians of repeats):

- **whole**: ``world.run(threshold)``, as ``ecogym_year.py`` measures it;
- **world's work only**: the same actions and day transitions called as
  plain methods (``creator_incentive()``, ``end_day()``...): no SimPy, no
  command validation, no trajectory, no budget. The benchmark checks that it
  ends in the same state as the whole run, so both do the same work;
- **SimPy floor**: one process that waits for one timed event a day and
  does nothing else.

The gap between the first two is what the kernel costs (commands, records
for replay, the day's event, the agent's process). The operation target,
200 years a second, leaves 13.7 us a day for everything.
"""

from __future__ import annotations

import argparse
import statistics
import time

import simpy

from bizsim.agents import make_agent
from bizsim.models.operation import OperationWorld
from bizsim.simcore.calendar import US_PER_DAY

from calibration import machine_line  # benchmarks/calibration.py

THRESHOLD = 0.45  # the threshold agent's default rule: moderate below this quality, else fund creators


def whole(seed: int) -> list:
    """A year through the kernel; returns the transitions."""
    world = OperationWorld("default", seed)
    world.run(make_agent("operation", "threshold"))
    history = world.dau_history
    world.close()
    return history


def work_only(seed: int) -> list:
    """The same year as plain method calls: the world's arithmetic and the results it hands the agent."""
    world = OperationWorld("default", seed)
    quality = None
    for day in range(world.horizon_days):
        if quality is not None and quality < THRESHOLD:
            world.moderation_tighten()
        else:
            world.creator_incentive()
        world.day = day + 1
        world._now_us += US_PER_DAY
        report = world.end_day(day)
        if world.finished_status() is not None and world.day < world.horizon_days:
            break  # collapsed
        quality = report["current_state"]["content_quality"]
    history = world.dau_history
    world.close()
    return history


def simpy_floor(seed: int) -> None:
    """One timed event a day in a bare SimPy environment."""
    env = simpy.Environment()

    def days():
        for _ in range(365):
            yield env.timeout(24)

    env.run(env.process(days()))


def per_day(run, seeds: range) -> float:
    """Microseconds a day over ``seeds``."""
    t = time.perf_counter()
    for seed in seeds:
        run(seed)
    return (time.perf_counter() - t) / len(seeds) / 365 * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--years", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for seed in (1, 2, 3):
        if whole(seed) != work_only(seed):
            raise SystemExit(f"seed {seed}: the plain-method year differs from the whole run; the comparison is void")
    rows = [("whole (world.run, threshold agent)", whole), ("world's work only (plain method calls)", work_only),
            ("SimPy floor (one timed event a day)", simpy_floor)]
    figures = {}
    for label, run in rows:
        run(10**6)  # untimed warm-up
        figures[label] = statistics.median(
            per_day(run, range(1 + r * args.years, 1 + (r + 1) * args.years)) for r in range(args.repeats))
        print(f"{label:42s} {figures[label]:6.2f} us/day  {1e6 / (figures[label] * 365):7.1f} years/s")
    kernel = figures[rows[0][0]] - figures[rows[1][0]]
    print(f"{'kernel share of a day':42s} {kernel:6.2f} us/day  ({kernel / figures[rows[0][0]]:.0%} of the whole)")
    print(f"{'target (200 years/s)':42s} {1e6 / (200 * 365):6.2f} us/day")
    print(f"(medians of {args.repeats} repeats x {args.years} seeds; one process, one core)")
    print(machine_line())


if __name__ == "__main__":
    main()

"""The vending planner: restocks ahead of lead time, searches prices per group, beats every baseline."""

from __future__ import annotations

import statistics

from bizsim.agents import AGENTS
from bizsim.agents.vending.planner import LADDER
from bizsim.runs import run_episode

SEEDS = range(1, 11)


def test_planner_beats_every_baseline_on_ten_seeds():
    """On preset default, seeds 1-10, the planner's mean net worth beats every baseline's."""
    means = {name: statistics.mean(run_episode("vending", "default", name, seed=s).summary["metric_value"]
                                   for s in SEEDS)
             for name in AGENTS["vending"] if name != "llm"}  # llm needs a model
    for name, mean in sorted(means.items(), key=lambda kv: kv[1]):
        print(f"{name:10s} ${mean / 100:12,.2f}")
    best_baseline = max(v for k, v in means.items() if k != "planner")
    assert means["planner"] > best_baseline


def test_planner_searches_prices_and_keeps_the_rules():
    """It tries several price multiples of one product, never overspends, and leaves a sound world."""
    r = run_episode("vending", "small", "planner", seed=2)
    world = r.final_world
    assert [] == world.invariants()
    prices: dict[str, set[float]] = {}
    for _, name, data in world.trajectory.of_kind("cmd"):
        if name == "price_set" and "result" in data:
            prices.setdefault(data["args"]["product_name"], set()).add(data["args"]["price"])
    assert max(len(v) for v in prices.values()) >= 3
    refused = [d for _, n, d in world.trajectory.of_kind("cmd") if "error" in d]
    assert [] == refused
    assert LADDER == tuple(sorted(LADDER))

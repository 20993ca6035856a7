"""What a run's score reads against: the planner's and the world's default agent's figures on the same seed.

``bizsim run`` prints them under its result, so a first run has something to be judged by. They are the figures of
the README's results table (preset ``default``, seeds 1-10; startup-v2, which that table leaves out, has the
first ten seeds of the ``default`` row of its page's results table), kept per benchmark version: a change to a
world's dynamics bumps its version, and a version this table lacks gets no figures, never stale ones. A test replays
seed 1 of each (``tests/test_episode_cli.py``). Remake the table with ``python -m bizsim.analysis.reference_figures``.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

__all__ = ["FIGURES", "SEEDS", "beside"]

#: The seeds the table holds, in order.
SEEDS = range(1, 11)

#: benchmark id -> agent -> the metric's value on preset ``default``, seeds 1-10.
FIGURES: dict[str, dict[str, list[float]]] = {
    "startup-v1": {
        "greedy": [42029521, 27129705, -1630305, 4759246, 36214464, 25523557, 45743483, 6001149, -784058, -2697099],
        "planner": [283290566, 287293630, 285063213, 274853320, 294027136, 280424205, 295138638, 269758168, 299408279, 276011386],
    },
    "startup-v2": {
        "greedy": [39627551, 11131651, -1630305, 4886555, 37885078, 20182734, 114341562, 7422309, 38450972, -2535205],
        "planner": [351224205, 261511315, 342957870, 328434205, 332179763, 299099128, 312376313, 307546513, 279588059, 315947104],
    },
    "vending-v1": {
        "markup": [908443, 1021731, 727575, 840770, 862610, 1119109, 841547, 937310, 1023803, 1067034],
        "planner": [6166150, 6075941, 7918531, 8346288, 9160024, 10824464, 8465691, 9562955, 7665679, 7657690],
    },
    "freelance-v1": {
        "cautious": [196701, 194190, 221845, 195697, 174499, 167916, 237036, 209367, 239256, 210394],
        "planner": [1076554, 1091926, 1084740, 1131183, 1143764, 1087049, 1075573, 1109841, 1092551, 1091414],
    },
    "operation-v1": {
        "threshold": [1573.531507, 1590.753425, 1563.624658, 1587.117808, 1598.071233, 1610.676712, 1589.539726, 1573.868493, 1598.183562, 1564.424658],
        "planner": [1651.687671, 1657.758904, 1618.10137, 1656.265753, 1658.775342, 1687.208219, 1681.441096, 1648.441096, 1668.005479, 1660.657534],
    },
}


def beside(benchmark_id: str, preset: str, seed: int, agent: str, shown: Callable[[float], str]) -> list[str]:
    """The lines to print under a run's result: the table's agents on this seed and over the ten seeds, with
    ``shown(value)`` formatting a value; for a preset or version the table lacks, how to make the figure.

    >>> beside("startup-v1", "default", 1, "llm", lambda v: f"${v / 100:,.0f}")[0]
    'beside it on this seed: planner $2,832,906, greedy (the default agent) $420,295'
    """
    table = FIGURES.get(benchmark_id)
    from bizsim.simcore.registry import registered

    # A later version registers under its versioned name (startup-v2): that name, not its base, runs it.
    world = benchmark_id if benchmark_id in registered() else benchmark_id.rsplit("-v", 1)[0]
    if table is None or preset != "default":
        spec = registered().get(world)
        # Only an agent the world has, and never the run just made: the strongest the world offers, else its default.
        offered = [a for a in ("planner", spec.default_agent if spec else "") if spec and a in spec.agents and a != agent]
        if not offered:
            return [f"beside it: no reference figures for {benchmark_id} preset {preset}"]
        return [f"beside it: no reference figures for {benchmark_id} preset {preset}; "
                f"`bizsim run {world} --preset {preset} --agent {offered[0]} --seed {seed}` gives the {offered[0]}'s"]
    names = {a: a if a == "planner" else f"{a} (the default agent)" for a in table}
    ordered = sorted(table, key=lambda a: a == "planner", reverse=True)
    lines = []
    if seed in SEEDS:
        lines.append("beside it on this seed: " + ", ".join(
            f"{names[a]} {shown(table[a][seed - 1])}" for a in ordered if a != agent))
    lines.append(f"over seeds {SEEDS[0]}-{SEEDS[-1]}: " + ", ".join(
        f"{a} mean {shown(statistics.fmean(table[a]))}" for a in ordered))
    return lines


def _main() -> None:  # pragma: no cover -- regenerates the table by hand
    from bizsim.runs import run_episode
    from bizsim.simcore.registry import world_names, world_spec

    for name in world_names():
        spec = world_spec(name)
        agents = [spec.default_agent] + (["planner"] if "planner" in spec.agents else [])
        for agent in agents:
            values = [run_episode(name, "default", agent, s).summary["metric_value"] for s in SEEDS]
            print(f"{spec.benchmark_id} {agent}: {values}")


if __name__ == "__main__":
    _main()

"""A result's figures as the command line prints them for people: money in dollars."""

from __future__ import annotations

from typing import Any

__all__ = ["context_lines", "metric_line", "money", "tally_lines"]


def money(cents: int) -> str:
    """Cents as dollars: ``-$1,234.50``."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


def metric_line(d: dict) -> str | None:
    """A result's headline figure for people, named in words: ``final funds: $420,295.21``, ``net worth:
    $9,084.43``, ``mean daily active users: 1,573.5``; money in dollars."""
    if "final_funds_cents" in d:
        return f"final funds: {money(d['final_funds_cents'])}"
    if "metric" not in d:
        return None
    from bizsim.analysis.labels import words

    value = d["metric_value"]
    metric = str(d["metric"])
    if metric.endswith("_cents"):
        shown = money(value)
        metric = metric.removesuffix("_cents")  # the dollar sign says the unit; a cent name over dollars would not
    else:
        shown = f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"
    name = words(metric)
    return f"{name[0].lower() + name[1:]}: {shown}"


def _shown(metric: str, value: float) -> str:
    if metric.endswith("_cents"):
        return money(round(value))
    return f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"


def context_lines(d: dict) -> list[str]:
    """What a newcomer judges a score by: the metric when the run started, and the planner's and the world's
    default agent's figures on the same seed (``bizsim.analysis.reference_figures``)."""
    from bizsim.analysis.reference_figures import beside
    from bizsim.simcore.registry import world_spec

    metric = str(d.get("metric") or "")
    if not metric or not isinstance(d.get("seed"), int):
        return []
    lines = []
    try:  # a fresh world of the run's world, preset and seed: its metric before the first turn
        start = world_spec(d["world"]).make(d["preset"], d["seed"]).summary().get("metric_value")
    except Exception:  # noqa: BLE001 -- a preset given as an object or a file moved since: no start figure
        start = None
    if isinstance(start, (int, float)):
        lines.append(f"at the start: {_shown(metric, start)}")
    lines += beside(str(d.get("benchmark_id")), str(d.get("preset")), d["seed"], str(d.get("agent")),
                    lambda v: _shown(metric, v))
    return lines


def tally_lines(world: str, worlds: Any) -> list[str]:
    """The world's declared tallies (its registry entry's ``tallies``) counted over the episodes' worlds, a line
    each: ``staff: hired 4, started 4, fired 0, resigned 0``; none for a world that declares none."""
    from bizsim.simcore.registry import world_spec
    from bizsim.simcore.tallies import count_tallies

    try:
        declared = world_spec(world).tallies
    except Exception:  # noqa: BLE001 -- a world this install cannot find has nothing to count
        return []
    if not declared:
        return []
    rows = ((kind, name, data) for w in worlds for _, kind, name, data in w.trajectory)
    return [f"{line}: " + ", ".join(f"{label} {n:,}" for label, n in counts.items())
            for line, counts in count_tallies(declared, rows).items()]

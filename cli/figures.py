"""A result's figures as the command line prints them for people: money in dollars."""

from __future__ import annotations

__all__ = ["metric_line", "money"]


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

"""The startup world's own figure: why tasks failed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizsim.analysis import plots

from bizsim.analysis.worlds.startup.metrics import CAUSE_WORDS, CAUSES, failure_cause_counts

__all__ = ["failure_causes"]


def failure_causes(
    events: Any, runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None, primary: bool = False
) -> Any:
    """Bars: the share of each group's failed tasks with each cause (startup; causes overlap unless ``primary``)."""
    ax = ax if ax is not None else plots.new_axes()
    cols = plots.columns_for(runs, by)
    table = failure_cause_counts(events, runs, cols)
    groups = list(table.groupby(cols, sort=True))
    width = 0.8 / max(1, len(groups))
    column = "primary_share" if primary else "share"
    for i, (key, g) in enumerate(groups):
        g = g.set_index("cause").reindex(list(CAUSES))
        xs = [j + (i - (len(groups) - 1) / 2) * width for j in range(len(CAUSES))]
        ax.bar(xs, g[column].fillna(0), width=width, label=f"{plots.group_label(key)} ({int(g['failed_tasks'].max())} failed)")
    ax.set_xticks(range(len(CAUSES)), [CAUSE_WORDS[c] for c in CAUSES], rotation=20, ha="right")
    ax.set_ylabel("share of failed tasks" + (" (primary cause)" if primary else ""))
    ax.set_ylim(0, 1.05)
    ax.set_title("Why tasks failed")
    if groups:
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, "no failed tasks", ha="center", va="center", transform=ax.transAxes)
    return ax

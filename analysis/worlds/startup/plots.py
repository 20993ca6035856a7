"""The startup world's own figure: why tasks failed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizsim.analysis import plots

from bizsim.analysis.worlds.startup.metrics import CAUSE_WORDS, CAUSES, failure_cause_counts

__all__ = ["failure_causes", "final_funds", "metric_against"]


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
        ax.bar(xs, g[column].fillna(0), width=width, label=f"{plots.group_label(key, cols)} ({int(g['failed_tasks'].max())} failed)")
    ax.set_xticks(range(len(CAUSES)), [CAUSE_WORDS[c] for c in CAUSES], rotation=20, ha="right")
    ax.set_ylabel("share of failed tasks" + (" (primary cause)" if primary else ""))
    ax.set_ylim(0, 1.05)
    ax.set_title("Why tasks failed")
    if groups:
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, "no failed tasks", ha="center", va="center", transform=ax.transAxes)
    return ax


def metric_against(
    runs: Any, field: str = "history_rounds", value: str = "metric_value", by: str | Sequence[str] | None = None, *,
    ax: Any = None,
) -> Any:
    """The YC-Bench paper's Figure 10: a per-run figure against an agent option (the context length K), the mean
    over seeds with the seeds' range as error bars, one line per group (:func:`.paper.metric_against`'s table)."""
    from bizsim.analysis.labels import words

    from bizsim.analysis.worlds.startup.paper import metric_against as table_of

    ax = ax if ax is not None else plots.new_axes()
    cols = [c for c in plots.columns_for(runs, by) if c != field]
    table = table_of(runs, field, value, cols)
    cents = value.endswith("_cents") or (value == "metric_value" and "metric" in runs.columns
                                         and runs["metric"].dropna().astype(str).str.endswith("_cents").all())
    div = 100.0 if cents else 1.0
    plots.mean_and_range(ax, table, field, cols, div)
    ax.set_xlabel(words(field))
    metric = str(runs["metric"].dropna().iloc[0]) if value == "metric_value" and "metric" in runs.columns and \
        runs["metric"].notna().any() else value
    ax.set_ylabel(words(metric))
    if cents:
        plots.money_axis(ax)
    ax.set_title(f"{words(metric)} against {words(field).lower()}")  # the caption says what the bars are
    if len(table):
        ax.legend(fontsize="small")
    return ax


def final_funds(runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None) -> Any:
    """The YC-Bench paper's Figure 7: a bar per group at its mean final funds (a bankruptcy as $0, as the
    leaderboard counts it), a dot per seed (:func:`.paper.final_funds_per_seed`'s table)."""
    from bizsim.analysis.worlds.startup.paper import final_funds_per_seed

    ax = ax if ax is not None else plots.new_axes()
    cols = plots.columns_for(runs, by)
    table = final_funds_per_seed(runs, cols)
    groups = list(table.groupby(cols, sort=True, dropna=False))
    for i, (key, g) in enumerate(groups):
        ax.bar([i], [g["group_mean"].iloc[0] / 100], width=0.6, alpha=0.6)
        ax.scatter([i] * len(g), g["value"] / 100, color="black", s=14, zorder=3)
    ax.set_xticks(range(len(groups)), [plots.group_label(k, cols) for k, _ in groups], rotation=20, ha="right")
    ax.axhline(0, color="grey", linewidth=0.8)
    plots.money_axis(ax)
    ax.set_ylabel("Final funds (dollars)")
    ax.set_title("Final funds: mean over seeds (bars), each seed (dots)")
    if not groups:
        ax.text(0.5, 0.5, "no final funds", ha="center", va="center", transform=ax.transAxes)
    return ax

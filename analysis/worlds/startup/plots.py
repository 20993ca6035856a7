"""The startup world's figures: why tasks failed (bizsim's reading), and the YC-Bench paper's figures as the paper
draws them (bars a model with its seeds, the trust heat map, the failure-mode breakdown)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizsim.analysis import plots

from bizsim.analysis.worlds.startup.metrics import CAUSE_WORDS, CAUSES, failure_cause_counts

__all__ = [
    "adversarial_share", "failure_causes", "failure_modes", "final_funds", "final_trust_heatmap", "metric_against",
    "revenue_per_dollar", "trust_gated_share",
]


def failure_causes(
    events: Any, runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None, primary: bool = False
) -> Any:
    """Bars: the share of each group's failed tasks with each cause (startup; causes overlap unless ``primary``)."""
    ax = ax if ax is not None else plots.new_axes()
    cols = plots.columns_for(runs, by)
    table = failure_cause_counts(events, runs, cols)
    groups = list(table.groupby(cols, sort=True, dropna=False))
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
    over seeds with the seeds' range as error bars, one line per group (:func:`.paper.metric_against`'s table).
    A group whose runs lack the option (greedy beside LLM runs) is a dashed level line at its mean, for reference."""
    import pandas as pd

    from bizsim.analysis.labels import words
    from bizsim.analysis.metrics import ok_runs

    from bizsim.analysis.worlds.startup.paper import metric_against as table_of

    ax = ax if ax is not None else plots.new_axes()
    cols = [c for c in plots.columns_for(runs, by) if c != field]
    table = table_of(runs, field, value, cols)
    cents = value.endswith("_cents") or (value == "metric_value" and "metric" in runs.columns
                                         and runs["metric"].dropna().astype(str).str.endswith("_cents").all())
    div = 100.0 if cents else 1.0
    plots.mean_and_range(ax, table, field, cols, div)
    ok = ok_runs(runs)
    without = ok[ok[field].isna()] if field in ok.columns else ok.iloc[0:0]
    import matplotlib

    levels = matplotlib.colormaps["Dark2"]  # a colour a level line: three grey baselines read as one
    for i, (key, g) in enumerate(without.groupby(cols, sort=True, dropna=False) if cols and len(without) else []):
        mean = float(pd.to_numeric(g[value], errors="coerce").mean()) / div
        ax.axhline(mean, color=levels((i + 1) % levels.N), linestyle="--", linewidth=1.2,
                   label=f"{plots.group_label(key, cols)} (no {words(field).lower()}; mean of {len(g)})")
    ax.set_xlabel(words(field))
    metric = str(runs["metric"].dropna().iloc[0]) if value == "metric_value" and "metric" in runs.columns and \
        runs["metric"].notna().any() else value
    ax.set_ylabel(words(metric))
    if cents:
        plots.money_axis(ax)
    ax.set_title(f"{words(metric)} against {words(field).lower()}")  # the caption says what the bars are
    if len(table) or len(without):
        ax.legend(fontsize="small")
    return ax


def final_funds(runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None) -> Any:
    """The YC-Bench paper's Figure 7: a bar per group at its mean final funds (a bankruptcy as $0, as the
    leaderboard counts it), a dot per seed, sorted highest first (:func:`.paper.final_funds_per_seed`'s table)."""
    from bizsim.analysis.worlds.startup.paper import final_funds_per_seed

    cols = plots.columns_for(runs, by)
    return plots.seed_bars(final_funds_per_seed(runs, cols), cols, "value", ax=ax, scale=0.01, money=True,
                           xlabel="Final funds (dollars; a bankruptcy as $0)",
                           title="Final funds: mean over seeds (bars), each seed (dots)")


def trust_gated_share(events: Any, runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None) -> Any:
    """The YC-Bench paper's Figure 3(a): each group's share of completed tasks that required client trust, in
    percent, the mean over seeds (bar) with each seed (dots) (:func:`.paper.trust_gated_completions`)."""
    from bizsim.analysis.worlds.startup import paper

    cols = plots.columns_for(runs, by)
    return plots.seed_bars(paper.trust_gated_completions(events, runs, cols, per_run=True), cols, "share", ax=ax,
                           scale=100.0, xlabel="trust-required tasks / successful tasks (%)",
                           title="Completed tasks that required client trust")


def adversarial_share(events: Any, runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None) -> Any:
    """The YC-Bench paper's Figure 4(a): each group's share of accepted tasks from adversarial clients, in
    percent, mean over seeds with each seed, and the adversarial clients' share of the market as a dashed line
    (:func:`.paper.adversarial_acceptance_per_seed`)."""
    import math

    from bizsim.analysis.worlds.startup import paper

    cols = plots.columns_for(runs, by)
    per = paper.adversarial_acceptance_per_seed(events, runs, cols, per_run=True)
    share = per["market_share"].astype(float).mean() if len(per) else math.nan
    return plots.seed_bars(per, cols, "rate", ax=ax, scale=100.0, xlabel="adversarial tasks / all accepted tasks (%)",
                           title="Accepted tasks from adversarial clients",
                           reference=None if math.isnan(share) else 100.0 * share,
                           reference_label=f"market share ({100.0 * share:.0f} %)")


def revenue_per_dollar(runs: Any, llm_calls: Any = None, by: str | Sequence[str] | None = None, *,
                       ax: Any = None) -> Any:
    """The YC-Bench paper's Figure 5(b): each group's in-game revenue per dollar of model API cost, mean over
    seeds with each seed (:func:`.paper.revenue_per_api_dollar`)."""
    from bizsim.analysis.worlds.startup import paper

    cols = plots.columns_for(runs, by)
    return plots.seed_bars(paper.revenue_per_api_dollar(runs, llm_calls, cols, per_run=True), cols, "ratio", ax=ax,
                           xlabel="in-game revenue (dollars) / API cost (dollars)", title="Revenue per API dollar")


#: Figure 5(a)'s colour of each failure mode.
_MODE_COLORS = {"adversarial_client": "#e8884d", "incapable_employees": "#6b645e",
                "over_committed_employees": "#8f9e98", "other": "#d9d9d9"}


def failure_modes(events: Any, runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None) -> Any:
    """The YC-Bench paper's Figure 5(a): a bar a group, its failed tasks split 100 % over the failure modes
    (:func:`.paper.failed_task_causes`; ``other`` only where a task fits none of the paper's three)."""
    from bizsim.analysis.worlds.startup import paper

    cols = plots.columns_for(runs, by)
    table = paper.failed_task_causes(events, runs, cols)
    groups = list(table.groupby(cols, sort=True, dropna=False)) if len(table) else []
    ax = ax if ax is not None else plots.new_axes((9.0, max(2.5, 1.0 + 0.45 * len(groups))))
    shown = [m for m in paper.FAILURE_MODES if m != "other" or bool((table["count"][table["mode"] == m] > 0).any())]
    n = len(groups)
    left = [0.0] * n
    for mode in shown:
        widths = []
        for _, g in groups:
            row = g.set_index("mode").loc[mode]
            widths.append(100.0 * float(row["share"]) if row["failed_tasks"] else 0.0)
        ax.barh([n - 1 - i for i in range(n)], widths, left=left, height=0.6, color=_MODE_COLORS[mode],
                label=paper.FAILURE_MODE_WORDS[mode])
        left = [a + b for a, b in zip(left, widths)]
    labels = [f"{plots.group_label(k, cols)} ({int(g['failed_tasks'].iloc[0])} failed)" for k, g in groups]
    ax.set_yticks([n - 1 - i for i in range(n)], labels)
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of failed tasks")
    ax.set_title("Why tasks failed: failure modes")
    if n:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    else:
        ax.text(0.5, 0.5, "no runs", ha="center", va="center", transform=ax.transAxes)
    return ax


def final_trust_heatmap(series: Any, runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None) -> Any:
    """The YC-Bench paper's Figure 3(b): the final trust level per client averaged across seeds, a row a group and
    a column a client (adversarial clients first, marked ADV), each cell's value written in it
    (:func:`.paper.final_trust_levels`)."""
    import numpy as np

    from bizsim.analysis.worlds.startup import paper

    cols = plots.columns_for(runs, by)
    table = paper.final_trust_levels(series, runs, cols)
    clients = list(dict.fromkeys(table["client"])) if len(table) else []
    adversarial = set(table.loc[table["adversarial"].astype(bool), "client"]) if len(table) else set()
    groups = list(table.groupby(cols, sort=True, dropna=False)) if len(table) else []
    ax = ax if ax is not None else plots.new_axes((max(6.0, 1.6 + 1.1 * len(clients)), max(2.5, 1.6 + 0.5 * len(groups))))
    if not groups:
        ax.text(0.5, 0.5, "no final trust recorded", ha="center", va="center", transform=ax.transAxes)
        return ax
    grid = np.full((len(groups), len(clients)), np.nan)
    for i, (_, g) in enumerate(groups):
        for client, mean in zip(g["client"], g["mean"]):
            grid[i, clients.index(client)] = float(mean)
    top = max(1.0, float(np.nanmax(grid)) if np.isfinite(grid).any() else 1.0)
    image = ax.imshow(grid, cmap="Oranges", vmin=0.0, vmax=top, aspect="auto")
    for i in range(len(groups)):
        for j in range(len(clients)):
            v = grid[i, j]
            if v == v:
                ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize="small",
                        color="white" if v > 0.6 * top else "black")
    ax.set_xticks(range(len(clients)), [c + (" (ADV)" if c in adversarial else "") for c in clients], rotation=30,
                  ha="right")
    ax.set_yticks(range(len(groups)), [plots.group_label(k, cols) for k, _ in groups])
    ax.figure.colorbar(image, ax=ax, label="final trust, mean over seeds")
    ax.set_title("Final trust level per client")
    return ax

"""Figures of the papers' analyses, from the result tables.

Every function takes DataFrames (as :func:`bizsim.analysis.load` returns them)
and an optional matplotlib ``ax``, draws, and returns the axis. Without an
``ax`` a new figure is made: through pyplot when pyplot is already in use (so
notebooks show it), otherwise as a bare ``matplotlib.figure.Figure`` that
touches no backend and no global state (save it with ``ax.figure.savefig``).
matplotlib is imported only when a function is called (the ``plot`` extra).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from bizsim.analysis import metrics
from bizsim.analysis.labels import kind_color, words

__all__ = [
    "action_frequency",
    "fork_metric",
    "mean_and_range",
    "funds_over_time",
    "new_axes",
    "per_seed_trajectories",
    "plotted_series",
    "score_vs_cost",
    "seed_bars",
    "series_over_time",
]


def new_axes(figsize: tuple[float, float] = (7.0, 4.0)) -> Any:
    """A fresh axis (see the module docstring for which kind of figure)."""
    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=figsize)
        return ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    return fig.subplots()


def columns_for(runs: Any, by: str | Sequence[str] | None) -> list[str]:
    """The runs columns that make a line: ``by``, or by default the agent plus every other grouping column
    (:func:`bizsim.analysis.grouping.label_columns`: a line never pools presets, worlds or an ablation's arms)."""
    if by is not None:
        return [by] if isinstance(by, str) else list(by)
    from bizsim.analysis.grouping import label_columns

    return label_columns(runs)


def group_label(key: Any, cols: Sequence[str] | None = None) -> str:
    """A group key as legend text; given the key's ``cols``, an agent option's value comes with its name.

    >>> group_label(("hard", "llm", 20), ["preset_label", "agent", "history_rounds"])
    'hard / llm / history rounds 20'
    >>> group_label(("llm", ""), ["agent", "stopped"]), group_label(("llm", "stopped: turn cap"), ["agent", "stopped"])
    ('llm', 'llm / stopped: turn cap')
    """
    values = key if isinstance(key, tuple) else (key,)
    if cols is None or len(cols) != len(values):
        return " / ".join(str(k) for k in values)
    from bizsim.analysis.grouping import group_name

    # One naming rule with the tables: a value a run does not have (a baseline's missing agent option, the empty
    # stop of a run that went to the world's end) is left out, never drawn as "memory nan".
    return group_name(dict(zip(cols, values)), cols) or " / ".join(str(v) for v in values)


def _scale(name: str, cents: bool | None) -> tuple[float, str]:
    if cents is None:
        cents = name.endswith("_cents")
    return (100.0, " ($)") if cents else (1.0, "")


def _label(name: str, cents: bool | None) -> str:
    """A series' name in words with its unit: ``month_end_funds_cents`` -> ``Month-end funds (dollars)``."""
    if cents is None or cents == name.endswith("_cents"):
        return words(name)
    return words(name) + " (dollars)" if cents else words(name.removesuffix("_cents"))


def _last_steps(series: Any, runs: Any, name: str, cols: list[str]) -> dict[tuple, int]:
    """The last step with real data of any run of each group (a stub month after the end is not data)."""
    from bizsim.analysis.series import run_series

    s = metrics.with_groups(run_series(series, runs, name, extend=False)[["run_id", "step"]], runs, cols)
    if not len(s):
        return {}
    found = s.groupby(cols, sort=False, dropna=False)["step"].max()
    return {(k if isinstance(k, tuple) else (k,)): int(v) for k, v in found.items()}


def money_axis(ax: Any, axis: str = "y") -> None:
    """Tick labels in dollars with thousands separators (``$2,500,000``), never a ``1e6`` offset."""
    from matplotlib.ticker import FuncFormatter

    def fmt(v: float, _pos: Any) -> str:
        sign = "-" if v < 0 else ""
        return f"{sign}${abs(v):,.0f}" if abs(v) >= 10 or v == 0 else f"{sign}${abs(v):,.2f}"

    getattr(ax, f"{axis}axis").set_major_formatter(FuncFormatter(fmt))


def _plain_axis(ax: Any) -> None:
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.3g}"))


def _x(table: Any) -> tuple[list[int], list[str] | None]:
    """The x positions of a series (steps) and, for month keys, tick labels."""
    keys = table.drop_duplicates("step").sort_values("step")
    labels = keys["key"].astype(str).tolist()
    if labels and all(len(k) == 7 and k[4] == "-" for k in labels):
        return keys["step"].tolist(), labels
    return keys["step"].tolist(), None


def _months(ax: Any, steps: list[int], labels: list[str] | None) -> None:
    if labels:
        every = max(1, len(labels) // 12)
        ax.set_xticks(steps[::every], labels[::every], rotation=45, ha="right")


def plotted_series(
    series: Any, runs: Any, name: str, by: str | Sequence[str] | None = None, *, fill: str | None = "auto"
) -> Any:
    """The numbers :func:`series_over_time` draws: :func:`bizsim.analysis.metrics.series_over_time`'s table, each
    group's rows stopping at the last step any of its runs has data for (steps filled after every run of a
    group ended say nothing)."""
    cols = columns_for(runs, by)
    table = metrics.series_over_time(series, runs, name, cols, fill=fill)
    last = _last_steps(series, metrics.ok_runs(runs), name, cols)
    if not len(table) or not last:
        return table
    ends = [last.get(tuple(k)) for k in table[cols].itertuples(index=False, name=None)]
    keep = [e is not None and s <= e for s, e in zip(table["step"].tolist(), ends)]
    return table[keep].reset_index(drop=True)


def series_over_time(
    series: Any, runs: Any, name: str, by: str | Sequence[str] | None = None, *, ax: Any = None, band: bool = True,
    cents: bool | None = None, fill: str | None = "auto", table: Any = None,
) -> Any:
    """The mean of a series over each group's runs (seeds), step by step, with its 95 % bootstrap band.

    Args:
        name: the series, e.g. ``month_end_funds_cents``, ``daily_dau``, ``daily_net_worth_cents``.
        by: runs columns that make a line (default: the agent, and the world and preset variant where the runs
            have several).
        band: shade the 95 % percentile bootstrap interval of the mean (for groups with 3 or more runs; it stays
            within the runs' range: :mod:`bizsim.analysis.intervals`).
        cents: show cents as dollars (default: when the name ends in ``_cents``).
        fill: how runs that ended early count (see :func:`bizsim.analysis.metrics.series_over_time`).
        table: :func:`plotted_series`'s table for these arguments, when the caller has it already (the report
            shows it beside the figure): the bootstrap bands are not computed twice.
    """
    ax = ax if ax is not None else new_axes()
    cols = columns_for(runs, by)
    table = plotted_series(series, runs, name, cols, fill=fill) if table is None else table
    div, unit = _scale(name, cents)
    steps: list[int] = []
    labels: list[str] | None = None
    shaded = False
    for key, g in table.groupby(cols, sort=True, dropna=False):
        g = g.sort_values("step")
        line, = ax.plot(g["step"], g["mean"] / div, label=f"{group_label(key, cols)} (n={int(g['n'].max())})")
        if band and (g["n"] > 2).any():  # two seeds give a t-band 13 standard errors wide: noise, not a finding
            shaded = True
            ax.fill_between(
                g["step"], g["ci_low"] / div, g["ci_high"] / div, color=line.get_color(), alpha=0.2, linewidth=0
            )
        if len(g) > len(steps):
            steps, labels = _x(g)
    _months(ax, steps, labels)
    ax.set_ylabel(_label(name, cents))
    money_axis(ax) if unit else _plain_axis(ax)
    ax.set_xlabel("month" if labels else ("day" if name.startswith("daily_") else "step"))
    ax.set_title(f"{_label(name, cents)}: mean over seeds" + (" with 95 % bootstrap band" if shaded else ""))
    if len(table):
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, f"no {name} series", ha="center", va="center", transform=ax.transAxes)
    return ax


def funds_over_time(
    series: Any, runs: Any, by: str | Sequence[str] | None = None, *, ax: Any = None, band: bool = True
) -> Any:
    """Month-end funds (startup) averaged over seeds per group; a bankrupt seed counts 0 from its bankruptcy."""
    ax = series_over_time(series, runs, "month_end_funds_cents", by, ax=ax, band=band)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_ylabel("Funds (dollars)")
    ax.set_title("Funds at month end, mean over seeds (a bankrupt seed counts 0)")
    return ax


def per_seed_trajectories(
    series: Any, runs: Any, name: str = "month_end_funds_cents", by: str | Sequence[str] | None = None, *,
    ax: Any = None, cents: bool | None = None,
) -> Any:
    """One thin line per run, coloured by group: each run's points as every table counts them (a bankrupt run at 0
    from its bankruptcy; :mod:`bizsim.analysis.series`), not carried on after its end."""
    from bizsim.analysis.series import run_series

    ax = ax if ax is not None else new_axes()
    cols = columns_for(runs, by)
    ok = metrics.ok_runs(runs)
    s = metrics.with_groups(run_series(series, ok, name, extend=False), ok, cols)
    div, unit = _scale(name, cents)
    import matplotlib

    colors = matplotlib.rcParams["axes.prop_cycle"].by_key().get("color") or [None]
    steps: list[int] = []
    labels: list[str] | None = None
    for n, (key, g) in enumerate(s.groupby(cols, sort=True, dropna=False)):
        color = colors[n % len(colors)]
        for i, (_, r) in enumerate(g.groupby("run_id", sort=True)):
            r = r.sort_values("step")
            ax.plot(r["step"], r["value"] / div, color=color, alpha=0.5, linewidth=0.9,
                    label=group_label(key, cols) if i == 0 else None)
        if g["step"].nunique() > len(steps):
            steps, labels = _x(g)
    _months(ax, steps, labels)
    ax.set_ylabel(_label(name, cents))
    money_axis(ax) if unit else _plain_axis(ax)
    ax.set_xlabel("month" if labels else ("day" if name.startswith("daily_") else "step"))
    ax.set_title(f"{_label(name, cents)}: every seed")
    if len(s):
        ax.legend(fontsize="small")
    else:
        ax.text(0.5, 0.5, f"no {name} series", ha="center", va="center", transform=ax.transAxes)
    return ax


def action_frequency(
    events: Any, runs: Any, *, ax: Any = None, bin_days: int = 7, exclude: Sequence[str] = ("task_done", "sim resume"),
) -> Any:
    """Stacked shares of the actions taken over time, over all the given runs (filter ``runs`` to one agent)."""
    ax = ax if ax is not None else new_axes()
    runs = runs.assign(_all="all")
    table = metrics.action_frequencies(events, runs, "_all", bin_days=bin_days, exclude=exclude)
    if table.empty:
        ax.text(0.5, 0.5, "no actions", ha="center", va="center", transform=ax.transAxes)
        return ax
    wide = table.pivot_table(index="day", columns="action", values="share", aggfunc="sum", fill_value=0.0).sort_index()
    # Each action in its colour everywhere (the viewer's too), not the next of a cycle: one agent's figure and the
    # next, and the run pages, agree.
    ax.stackplot(wide.index, *[wide[c] for c in wide.columns], labels=list(wide.columns), alpha=0.85,
                 colors=[kind_color(str(c)) for c in wide.columns])
    ax.set_xlabel(f"day of the run (bins of {bin_days} days)")
    ax.set_ylabel("share of the actions taken")
    ax.set_ylim(0, 1)
    ax.set_title("Actions over time")
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax


def score_vs_cost(runs: Any, llm_calls: Any = None, by: str | Sequence[str] | None = None, *, ax: Any = None) -> Any:
    """Each group's mean score (``metric_value``) against its mean model cost per run (LLM runs)."""
    ax = ax if ax is not None else new_axes()
    cols = columns_for(runs, by)
    table = metrics.cost_per_dollar(runs, llm_calls, cols)
    if table.empty:
        ax.text(0.5, 0.5, "no LLM cost recorded", ha="center", va="center", transform=ax.transAxes)
    metric = runs["metric"].dropna().unique() if "metric" in runs else []
    div = 100.0 if len(metric) and all(str(m).endswith("_cents") for m in metric) else 1.0
    for _, row in table.iterrows():
        key = tuple(row[c] for c in cols)
        x = row["cost_usd"] / row["runs"]
        ax.scatter([x], [row["mean_score"] / div], label=group_label(key, cols))
    ax.set_xlabel("model cost per run (dollars)")
    ax.set_ylabel(", ".join(words(str(m)) for m in metric) or "metric")
    if len(metric) and all(str(m).endswith("_cents") for m in metric):
        money_axis(ax)
    ax.set_title("Score against model cost")
    if not table.empty:
        ax.legend(fontsize="small")
    return ax


def fork_metric(series: Any, *, metric: str = "metric", cents: bool | None = None, ax: Any = None) -> Any:
    """A parent run and its forks: the metric over simulated days from the fork point, one line each (the
    parent dashed). ``series`` is :func:`bizsim.analysis.fork_compare.fork_series`'s table; ``metric`` names
    the metric on the axis (``final_funds_cents`` is shown in dollars)."""
    ax = ax if ax is not None else new_axes()
    div, unit = _scale(metric, cents)
    for n, (label, g) in enumerate(series.groupby("run", sort=False)):
        g = g.sort_values("day")
        ax.step(g["day"], g["metric"] / div, where="post", label=label, linestyle="--" if n == 0 else "-",
                linewidth=1.6 if n == 0 else 1.1)
    ax.set_xlabel("days since the fork point")
    ax.set_ylabel(metric + unit)
    ax.set_title("Parent and forks from the fork point")
    if len(series):
        ax.legend(fontsize="small")
    return ax


def mean_and_range(ax: Any, table: Any, field: str, cols: Sequence[str], div: float = 1.0) -> None:
    """One line a group of ``table`` (columns ``field``, ``mean``, ``min``, ``max``, and the group's ``cols``): the
    mean against ``field``, the runs' range as bars; values divided by ``div`` (100 for cents)."""
    for key, g in table.groupby(list(cols), sort=True, dropna=False) if cols else [("all", table)]:
        g = g.sort_values(field)
        mean = g["mean"] / div
        ax.errorbar(g[field].astype(float), mean, yerr=[mean - g["min"] / div, g["max"] / div - mean], marker="o",
                    capsize=3, label=group_label(key, cols) if cols else "all runs")


#: The bars of a figure drawn as the YC-Bench paper draws its per-model figures.
BAR_COLOR = "#eda87c"


def seed_bars(
    per_run: Any, cols: Sequence[str], value: str, *, ax: Any = None, scale: float = 1.0, xlabel: str = "",
    title: str = "", reference: float | None = None, reference_label: str = "", money: bool = False,
) -> Any:
    """Horizontal bars, one a group of ``per_run`` (one row a run): the bar at the mean over its runs of ``value``
    (times ``scale``), a dot a run and a line over the runs' range, the groups sorted by their mean, highest on
    top (the YC-Bench paper's per-model figures). A run without a value is no dot and not in the mean.

    Args:
        reference: a value (already scaled) drawn as a dashed vertical line, named ``reference_label``.
        money: the values are dollars (the axis says so).
    """
    import math

    ax = ax if ax is not None else new_axes((7.0, max(2.5, 0.9 + 0.45 * max(1, per_run[list(cols)].drop_duplicates().shape[0]))))
    groups = []
    for key, g in per_run.groupby(list(cols), sort=True, dropna=False) if len(per_run) else []:
        xs = [float(v) * scale for v in g[value] if v is not None and v == v]
        groups.append((math.fsum(xs) / len(xs) if xs else math.nan, group_label(key, cols), xs))
    groups.sort(key=lambda t: (math.isnan(t[0]), -t[0] if not math.isnan(t[0]) else 0.0))
    n = len(groups)
    for i, (mean, _, xs) in enumerate(groups):
        y = n - 1 - i
        if xs:
            ax.barh([y], [mean], height=0.6, color=BAR_COLOR, zorder=2)
            ax.plot([min(xs), max(xs)], [y, y], color="0.3", linewidth=1.2, zorder=3)
            ax.scatter(xs, [y] * len(xs), color="0.2", s=16, alpha=0.7, zorder=4)
    ax.set_yticks(range(n), [label + ("" if xs else " (no value)") for _, label, xs in reversed(groups)])
    shown = [x for _, _, xs in groups for x in xs] + [m for m, _, _ in groups if not math.isnan(m)]
    shown += [reference] if reference is not None else []
    low, high = min([0.0, *shown]), max([0.0, *shown])
    if high == low:  # every value 0 (every run bankrupt at $0): an axis of its own, not -0.04 to 0.04
        high = 1.0
        ax.text(0.98, 0.02, "every value is 0", ha="right", va="bottom", transform=ax.transAxes, fontsize="small")
    pad = (high - low) * 0.05
    ax.set_xlim(low - (pad if low < 0 else 0), high + pad)
    if low < 0:
        ax.axvline(0, color="grey", linewidth=0.8)
    if reference is not None:
        ax.axvline(reference, color="#d9773f", linestyle="--", linewidth=1.5, zorder=5)
        ax.text(reference, n - 0.5, f" {reference_label}", color="#d9773f", va="bottom", fontsize="small")
    ax.set_ylim(-0.6, n - 0.4 + (0.5 if reference is not None else 0))
    ax.grid(axis="x", linestyle=":", linewidth=0.6, zorder=0)
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(6))
    if money:
        money_axis(ax, "x")
    else:  # 2,500,000 rather than 2.5 with a 1e6 beside the axis
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.3g}"))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    if not n:
        ax.text(0.5, 0.5, "no runs", ha="center", va="center", transform=ax.transAxes)
    return ax

"""The papers' analyses, computed from the result tables (so they work on loaded results).

Every function takes the DataFrames :func:`bizsim.analysis.load` returns (or
hand-built ones with the same columns) and returns a DataFrame. Groups are
given by ``by``: columns of the ``runs`` table, by default world, preset
variant and agent; figures are averaged over the runs of a group (its seeds).

Generic (every world): :func:`summarize` (mean, 95 % interval: Student's t or the percentile bootstrap), :func:`outcomes`
(final funds, net worth, income, mean DAU, the headline metric), :func:`rates`
(bankruptcy, collapse, error), :func:`series_over_time` (month-end funds, daily
DAU, ...), :func:`action_frequencies` (EcoGym: what agents do, over time),
:func:`cost_per_dollar` (LLM cost per dollar earned).

A world's own analyses live with its analysis hooks (the startup world's, YC-Bench's failure causes,
adversarial clients, trust and tool use: :mod:`bizsim.analysis.worlds.startup`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = [
    "figures_of",
    "GROUP",
    "group_columns",
    "varied_columns",
    "ok_runs",
    "action_frequencies",
    "cost_per_dollar",
    "run_cost_and_income",
    "mean_ci",
    "outcomes",
    "rates",
    "series_over_time",
    "summarize",
    "wilson",
    "with_groups",
]

#: Default grouping: the runs of one world, preset variant and agent (i.e. its seeds).
GROUP = ("world", "preset_label", "agent")


def figures_of(runs: Any) -> list[str]:
    """The per-run figures :func:`outcomes` reports by default: the headline metric, then each world's own
    (its registration's ``figures``), for the worlds in ``runs``."""
    from bizsim.simcore.errors import ConfigError
    from bizsim.simcore.registry import world_spec

    out = ["metric_value"]
    worlds = sorted(runs["world"].dropna().unique()) if "world" in runs.columns else []
    for world in worlds:
        try:
            figures = world_spec(str(world)).figures
        except ConfigError:  # a world this install no longer has: its metric still shows
            continue
        out += [f for f in figures if f not in out]
    return out
#: Columns that measure income, in order of preference.
INCOME = ("income_cents", "total_revenue_cents")


def mean_ci(values: Sequence[float] | Any, confidence: float = 0.95) -> tuple[float, float, float, int]:
    """Mean and two-sided Student-t confidence interval of ``values`` (NaNs dropped).

    Returns:
        ``(mean, low, high, n)``; the interval is NaN with fewer than two values.

    >>> [round(x, 4) for x in mean_ci([1.0, 2.0, 3.0])]
    [2.0, -0.4841, 4.4841, 3]
    """
    from scipy.special import stdtrit  # the t quantile, without importing all of scipy.stats

    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = math.fsum(xs) / n  # correctly rounded, so the same on every Python version
    if n < 2:
        return mean, math.nan, math.nan, n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(stdtrit(n - 1, (1 + confidence) / 2)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half, n


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (NaN for ``n == 0``).

    >>> [round(x, 4) for x in wilson(0, 10)]
    [0.0, 0.2775]
    """
    from statistics import NormalDist

    if n == 0:
        return math.nan, math.nan
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def varied_columns(runs: Any) -> list[str]:
    """The grouping columns of ``runs`` besides :data:`GROUP`: the model, then each agent option
    (``history_rounds``, ``memory``, ``temperature``, ...) in name order, each where it takes more than one value
    among the runs of one agent (:func:`bizsim.analysis.grouping.grouping_columns`: an option a baseline lacks
    beside LLM runs is not varied)."""
    from bizsim.analysis.grouping import grouping_columns

    return [c for c in grouping_columns(runs) if c not in GROUP]


def group_columns(by: str | Sequence[str] | None, runs: Any = None) -> list[str]:
    """The grouping columns ``by`` names; by default :data:`GROUP` plus, given ``runs``, every other spec field
    that varies in them (:func:`varied_columns`), so an ablation's arms are never pooled."""
    if by is None:
        return list(GROUP) + (varied_columns(runs) if runs is not None else [])
    return [by] if isinstance(by, str) else list(by)


def with_groups(table: Any, runs: Any, by: str | Sequence[str] | None = None) -> Any:
    """``table`` (with a ``run_id`` column) joined to the ``by`` columns of ``runs``."""
    cols = group_columns(by, runs)
    missing = [c for c in cols if c in table.columns]
    extra = table.drop(columns=missing) if missing else table
    return extra.merge(runs[["run_id", *cols]], on="run_id", how="inner")


def ok_runs(runs: Any) -> Any:
    """The runs that finished (``status == "ok"``)."""
    return runs[runs["status"] == "ok"] if "status" in runs.columns else runs


def summarize(
    runs: Any, value: str = "metric_value", by: str | Sequence[str] | None = None, confidence: float = 0.95,
    interval: str = "t",
) -> Any:
    """Mean ± confidence interval of one per-run column, per group (finished runs only).

    ``interval`` is ``"t"`` (Student's t, symmetric about the mean) or ``"bootstrap"`` (the seeded percentile
    bootstrap of :mod:`bizsim.analysis.intervals`, within the seeds' range: what the report shows).

    Returns:
        columns ``by...``, ``n``, ``mean``, ``std``, ``ci_low``, ``ci_high``.
    """
    import pandas as pd

    if interval not in ("t", "bootstrap"):
        raise ValueError(f"interval(={interval!r}) must be 't' or 'bootstrap'")
    from bizsim.analysis.intervals import bootstrap_ci

    how = mean_ci if interval == "t" else bootstrap_ci
    cols = group_columns(by, runs)
    rows = []
    ok = ok_runs(runs)
    if value not in ok.columns:
        return pd.DataFrame(columns=[*cols, "n", "mean", "std", "ci_low", "ci_high"])
    for key, group in ok.groupby(cols, sort=True, dropna=False):
        vals = pd.to_numeric(group[value], errors="coerce").dropna()
        mean, lo, hi, n = how(vals.tolist(), confidence)
        std = float(vals.std(ddof=1)) if n > 1 else math.nan
        rows.append({**dict(zip(cols, key if isinstance(key, tuple) else (key,))), "n": n, "mean": mean, "std": std,
                     "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows, columns=[*cols, "n", "mean", "std", "ci_low", "ci_high"])


def outcomes(
    runs: Any, by: str | Sequence[str] | None = None, figures: Sequence[str] | None = None, confidence: float = 0.95,
    interval: str = "t",
) -> Any:
    """The headline metric and each world's own figures: mean ± CI over seeds, per group.

    ``figures`` defaults to :func:`figures_of` the runs; a figure is listed for a group when its runs have it
    (startup: final funds, the same with a bankrupt run counted as 0 as YC-Bench's leaderboard averages them,
    and income; vending: net worth, final money and revenue; operation: mean DAU; freelance: final money,
    income and career score). ``interval`` as :func:`summarize`'s.

    Returns:
        long format: ``by...``, ``figure``, ``n``, ``mean``, ``std``, ``ci_low``, ``ci_high``.
    """
    import pandas as pd

    parts = []
    for fig in figures_of(runs) if figures is None else figures:
        if fig not in runs.columns:
            continue
        s = summarize(runs, fig, group_columns(by, runs), confidence, interval)
        s = s[s["n"] > 0]
        if len(s):
            parts.append(s.assign(figure=fig))
    cols = [*group_columns(by, runs), "figure", "n", "mean", "std", "ci_low", "ci_high"]
    if not parts:
        return pd.DataFrame(columns=cols)
    return pd.concat(parts, ignore_index=True)[cols]


def rates(runs: Any, by: str | Sequence[str] | None = None, confidence: float = 0.95) -> Any:
    """Bankruptcy, collapse and error rates per group, with Wilson intervals for bankruptcy and collapse.

    Bankruptcy and collapse rates are over finished runs; the error rate is over all runs.

    Returns:
        ``by...``, ``runs``, ``finished``, ``bankruptcies``, ``bankruptcy_rate``, ``bankruptcy_low``,
        ``bankruptcy_high``, ``collapses``, ``collapse_rate``, ``collapse_low``, ``collapse_high``,
        ``errors``, ``error_rate``.
    """
    import pandas as pd

    cols = group_columns(by, runs)
    rows = []
    for key, g in runs.groupby(cols, sort=True, dropna=False):
        ok = ok_runs(g)
        n = len(ok)
        bank = int(ok["bankrupt"].fillna(False).astype(bool).sum()) if "bankrupt" in ok else 0
        coll = int(ok["collapsed"].fillna(False).astype(bool).sum()) if "collapsed" in ok else 0
        errors = len(g) - n
        b_lo, b_hi = wilson(bank, n, confidence)
        c_lo, c_hi = wilson(coll, n, confidence)
        rows.append({
            **dict(zip(cols, key if isinstance(key, tuple) else (key,))), "runs": len(g), "finished": n,
            "bankruptcies": bank, "bankruptcy_rate": bank / n if n else math.nan, "bankruptcy_low": b_lo,
            "bankruptcy_high": b_hi, "collapses": coll, "collapse_rate": coll / n if n else math.nan,
            "collapse_low": c_lo, "collapse_high": c_hi, "errors": errors, "error_rate": errors / len(g),
        })
    return pd.DataFrame(rows)


def series_over_time(
    series: Any, runs: Any, name: str, by: str | Sequence[str] | None = None, *, fill: str | None = "auto",
    confidence: float = 0.95,
) -> Any:
    """One series (``month_end_funds_cents``, ``daily_dau``, ...) averaged over the runs of each group, step by step.

    Each run's points are :func:`bizsim.analysis.series.run_series`'s: the one definition every table, figure
    and the viewer use (no stub month after a run's end; a bankrupt run counts 0 from its bankruptcy on, the
    month before keeping its figures).

    Args:
        fill: what a run that ended early contributes: ``"auto"`` — the
            rules of :mod:`bizsim.analysis.series` (a bankrupt run 0 from
            its bankruptcy; after another early end a flow 0, a stock its
            last value, users of a collapsed platform 0); ``"last"`` — its
            last raw value after its last point; ``None`` — nothing (means
            over the runs still going).
            With a fill every group runs to the last step any group of the
            series reaches (an all-bankrupt group's funds stay at 0 as far
            as another group's runs go; alone, it ends at its last point).

    Returns:
        ``by...``, ``step``, ``key``, ``n``, ``mean``, ``ci_low``, ``ci_high`` (the 95 % percentile bootstrap
        interval of the mean: within the runs' range, so never below $0 where no run is), ``min``, ``max``.
    """
    import pandas as pd

    from bizsim.analysis.series import run_series

    cols = group_columns(by, runs)
    out_cols = [*cols, "step", "key", "n", "mean", "ci_low", "ci_high", "min", "max"]
    ok = ok_runs(runs)
    s = with_groups(run_series(series, ok, name, fill=fill), ok, cols)
    if s.empty:
        return pd.DataFrame(columns=out_cols)
    keys = s.drop_duplicates("step").set_index("step")["key"]
    rows = []
    for key, g in s.groupby(cols, sort=True, dropna=False):
        wide = g.pivot_table(index="step", columns="run_id", values="value", aggfunc="first").sort_index()
        stats = _row_stats(wide, confidence)
        stats.insert(0, "key", keys.reindex(stats.index).to_numpy())
        stats.insert(0, "step", stats.index.astype(int))
        for c, v in reversed(list(zip(cols, key if isinstance(key, tuple) else (key,)))):
            stats.insert(0, c, v)
        rows.append(stats)
    return pd.concat(rows, ignore_index=True)[out_cols]


def _row_stats(wide: Any, confidence: float) -> Any:
    """Per row of ``wide`` (steps x runs): n, mean, the percentile bootstrap interval of the mean (within the runs'
    range: :mod:`bizsim.analysis.intervals`), min, max."""
    import pandas as pd

    from bizsim.analysis.intervals import bootstrap_rows

    n = wide.count(axis=1)
    mean = wide.mean(axis=1)
    low, high = bootstrap_rows(wide.to_numpy(dtype=float), confidence)
    return pd.DataFrame({"n": n.astype(int), "mean": mean, "ci_low": low, "ci_high": high,
                         "min": wide.min(axis=1), "max": wide.max(axis=1)})


def action_frequencies(
    events: Any, runs: Any, by: str | Sequence[str] | None = None, *, bin_days: int = 7,
    exclude: Sequence[str] = ("task_done", "sim resume"), only_ok: bool = True,
) -> Any:
    """How often each command was issued, per group and time bin (EcoGym's action frequencies over time).

    Args:
        bin_days: width of a time bin in simulated days (bin ``b`` covers days ``b*bin_days`` to
            ``(b+1)*bin_days - 1``).
        exclude: commands left out (by default the advance commands).
        only_ok: count only accepted commands.

    Returns:
        ``by...``, ``bin``, ``day``, ``action``, ``count``, ``per_run`` (count over the group's runs),
        ``share`` (of the group's counted actions in that bin).
    """
    import pandas as pd

    if bin_days < 1:
        raise ValueError(f"bin_days(={bin_days}) must be >= 1")
    cols = group_columns(by, runs)
    e = events[(events["kind"] == "cmd") & (~events["name"].isin(list(exclude)))]
    if only_ok:
        e = e[e["ok"].fillna(False).astype(bool)]
    e = with_groups(e[["run_id", "day", "name"]], ok_runs(runs), cols)
    out_cols = [*cols, "bin", "day", "action", "count", "per_run", "share"]
    if e.empty:
        return pd.DataFrame(columns=out_cols)
    e = e.assign(bin=e["day"] // bin_days)
    counts = e.groupby([*cols, "bin", "name"], dropna=False).size().rename("count").reset_index()
    n_runs = ok_runs(runs).groupby(cols, dropna=False).size().rename("group_runs").reset_index()
    counts = counts.merge(n_runs, on=cols, how="left")
    totals = counts.groupby([*cols, "bin"], dropna=False)["count"].transform("sum")
    counts["per_run"] = counts["count"] / counts["group_runs"]
    counts["share"] = counts["count"] / totals
    counts["day"] = counts["bin"] * bin_days
    counts = counts.rename(columns={"name": "action"})
    return counts[out_cols].sort_values([*cols, "bin", "action"]).reset_index(drop=True)


def run_cost_and_income(runs: Any, llm_calls: Any = None) -> Any:
    """The finished runs with a known model cost, each with ``cost_usd`` (the agent's model dollars:
    ``llm_cost_usd``, else the sum of its answered calls in ``llm_calls``; a world role's calls are not the
    agent's) and ``earned_usd`` (its income, ``income_cents`` else ``total_revenue_cents``, in dollars)."""
    import pandas as pd

    r = ok_runs(runs).copy()
    cost = r["llm_cost_usd"] if "llm_cost_usd" in r else pd.Series(math.nan, index=r.index)
    if llm_calls is not None and len(llm_calls):
        if "role" in llm_calls:
            llm_calls = llm_calls[llm_calls["role"].isna()]
        summed = llm_calls.groupby("run_id")["cost_usd"].sum(min_count=1)
        answered = llm_calls["ok"].fillna(False).astype(bool)
        unknown = llm_calls[llm_calls["cost_usd"].isna() & answered]["run_id"].unique()
        summed[summed.index.isin(unknown)] = math.nan
        cost = cost.fillna(r["run_id"].map(summed))
    r["cost_usd"] = pd.to_numeric(cost, errors="coerce")
    earned = pd.Series(math.nan, index=r.index)
    for col in INCOME:  # per run: a mixed sweep has each world's income column, null on the other worlds' rows
        if col in r.columns:
            earned = earned.fillna(pd.to_numeric(r[col], errors="coerce").astype("float64"))
    r["earned_usd"] = earned / 100
    return r[r["cost_usd"].notna()]


def cost_per_dollar(runs: Any, llm_calls: Any = None, by: str | Sequence[str] | None = None) -> Any:
    """Model dollars spent per dollar earned, per group (LLM runs with a known cost).

    Cost is the agent's: ``runs.llm_cost_usd`` (else the sum of the agent's
    ``llm_calls.cost_usd`` per run); a world role's calls (the freelance
    auditor's) are in ``runs.llm_role_cost_usd``, apart. Earned is each run's
    income (``income_cents``, else ``total_revenue_cents``) in dollars. Runs
    with an unknown cost are left out.

    Returns:
        ``by...``, ``runs``, ``cost_usd``, ``earned_usd``, ``cost_per_dollar``
        (ratio of the sums; NaN when nothing was earned), ``mean_score`` (mean metric_value),
        ``cached_share`` (prompt tokens read from a provider's prompt cache over all prompt tokens; NaN when
        the runs do not say).
    """
    import pandas as pd

    cols = group_columns(by, runs)
    r = run_cost_and_income(runs, llm_calls)
    out_cols = [*cols, "runs", "cost_usd", "earned_usd", "cost_per_dollar", "mean_score", "cached_share"]
    rows = []
    for key, g in r.groupby(cols, sort=True, dropna=False):
        c, e = float(g["cost_usd"].sum()), float(g["earned_usd"].fillna(0).sum())
        rows.append({**dict(zip(cols, key if isinstance(key, tuple) else (key,))), "runs": len(g), "cost_usd": c,
                     "earned_usd": e, "cost_per_dollar": c / e if e > 0 else math.nan,
                     "mean_score": float(g["metric_value"].mean()), "cached_share": _cached_share(g)})
    return pd.DataFrame(rows, columns=out_cols)


def _cached_share(runs: Any) -> float:
    """Prompt tokens read from a prompt cache over all prompt tokens of ``runs`` (NaN when they do not say)."""
    if "llm_cache_read_tokens" not in runs or "llm_prompt_tokens" not in runs:
        return math.nan
    import pandas as pd

    # Nullable integer columns sum to pd.NA when no run says: unknown, not zero.
    read, prompt = runs["llm_cache_read_tokens"].sum(min_count=1), runs["llm_prompt_tokens"].sum(min_count=1)
    if pd.isna(read) or pd.isna(prompt) or float(prompt) <= 0:
        return math.nan
    return float(read) / float(prompt)


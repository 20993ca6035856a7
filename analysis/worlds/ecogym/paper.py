"""The EcoGym paper's analyses (arXiv 2602.09514), from the result tables of any set of vending, freelance and
operation runs.

Each function names the table or figure of the paper it lays out; where the paper leaves a definition open, the
docstring says the reading chosen and how to get the other one (``docs/paper-analyses.md`` gathers them):

- :func:`table2` — Table 2, each world's headline figure per group: Vending's net worth, Freelance's income,
  Operation's daily active users; the mean over runs with its spread (the paper repeats Vending five times, the
  most stochastic world); :func:`table2_wide` lays it out as the paper does, a row a group and a column a world.
- :func:`context_length` — the context-length analysis: the Table 2 figure against the messages the agent keeps
  (``history_messages``).
- :func:`memory_modules` — the memory-module analysis: the Table 2 figure with each memory module against the
  same group without one.
- :func:`actions_over_time` — the actions-over-time analysis: how often the agent calls each action, phase by
  phase of the year.

Groups are :func:`bizsim.analysis.metrics.group_columns`' (every spec field that varies, by default) without
``world``: each function splits by world itself. Every function takes ``by=`` as the others do.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from bizsim.analysis.intervals import bootstrap_ci
from bizsim.analysis.metrics import group_columns, ok_runs

__all__ = [
    "PAPER_RUNS", "TABLE2_FIGURES", "WORLDS", "actions_over_time", "context_length", "memory_modules", "table2",
    "table2_wide",
]

#: The EcoGym worlds, in the order of the paper's Table 2.
WORLDS = ("vending", "freelance", "operation")
#: Table 2's figure of each world: net worth (cents), income (cents, the auditor's payments over the run), mean
#: daily active users over the days the platform ran.
TABLE2_FIGURES: dict[str, str] = {"vending": "net_worth_cents", "freelance": "income_cents", "operation": "mean_dau"}
#: Runs a group the paper averages over for each world's Table 2 entry.
PAPER_RUNS: dict[str, int] = {"vending": 5, "freelance": 1, "operation": 1}
#: The action EcoGym's budget does not count (the day's end); the actions-over-time analysis leaves it out.
FREE_ACTIONS = ("task_done",)


def _key(cols: list[str], key: Any) -> dict:
    return dict(zip(cols, key if isinstance(key, tuple) else (key,)))


def _cols(by: str | Sequence[str] | None, runs: Any, *drop: str) -> list[str]:
    return [c for c in group_columns(by, runs) if c not in ("world", *drop)]


def _stats(values: Any) -> dict:
    """Mean, sample standard deviation (n - 1), standard error, 95 % percentile bootstrap interval and range of a
    group's per-run figures."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    mean, low, high, n = bootstrap_ci(xs)
    sd = float(sum((x - mean) ** 2 for x in xs) / (n - 1)) ** 0.5 if n > 1 else math.nan
    return {"n": n, "mean": mean, "sd": sd, "se": sd / n ** 0.5 if n > 1 else math.nan, "ci_low": low,
            "ci_high": high,
            "min": min(xs) if xs else math.nan, "max": max(xs) if xs else math.nan}


_STATS = ["n", "mean", "sd", "se", "ci_low", "ci_high", "min", "max"]


def _figure_of(world: str, figures: Mapping[str, str] | None) -> str:
    return dict(TABLE2_FIGURES, **(figures or {})).get(world, "metric_value")


def _world_runs(runs: Any, figures: Mapping[str, str] | None) -> list[tuple[str, str, Any]]:
    """(world, figure, its finished runs with the figure as ``value``) for each EcoGym world in ``runs``."""
    import pandas as pd

    ok = ok_runs(runs)
    out = []
    for world in WORLDS:
        r = ok[ok["world"] == world] if "world" in ok.columns else ok.iloc[0:0]
        if r.empty:
            continue
        figure = _figure_of(world, figures)
        source = r[figure] if figure in r.columns else pd.Series(math.nan, index=r.index)
        out.append((world, figure, r.assign(value=pd.to_numeric(source, errors="coerce").astype(float))))
    return out


def table2(runs: Any, by: str | Sequence[str] | None = None, *, figures: Mapping[str, str] | None = None) -> Any:
    """Table 2: each EcoGym world's headline figure per group, the mean over its runs with their spread.

    The figures are :data:`TABLE2_FIGURES`: Vending's net worth at the end (cash, stock at wholesale, orders paid
    for), Freelance's income (what the auditor paid over the run; the reference code's own metric is the final
    money, $1,000 start included: ``figures={"freelance": "final_money_cents"}``), Operation's mean daily active
    users over the days the platform ran (``figures={"operation": "horizon_mean_dau"}`` counts a collapsed
    platform's remaining days as 0). ``sd`` is the sample standard deviation over the group's runs (n - 1);
    ``min`` and ``max`` give the range reading; ``paper_runs`` is how many runs the paper averages (5 for
    Vending), so a group with fewer shows it.

    Returns:
        ``world``, ``by...``, ``figure``, ``runs``, ``paper_runs``, ``n`` (runs with the figure), ``mean``, ``sd``, ``se``,
        ``ci_low``, ``ci_high``, ``min``, ``max`` (the figure's unit: cents for ``_cents``).
    """
    import pandas as pd

    cols = _cols(by, runs)
    rows = []
    for world, figure, r in _world_runs(runs, figures):
        for key, g in r.groupby(cols, sort=True, dropna=False) if cols else [((), r)]:
            rows.append({"world": world, **_key(cols, key), "figure": figure, "runs": len(g),
                         "paper_runs": PAPER_RUNS[world], **_stats(g["value"])})
    return pd.DataFrame(rows, columns=["world", *cols, "figure", "runs", "paper_runs", *_STATS])


def _cell(mean: float, sd: float, cents: bool) -> str:
    if math.isnan(mean):
        return ""
    div, fmt = (100.0, "${:,.2f}") if cents else (1.0, "{:,.1f}")
    text = fmt.format(mean / div)
    return text if math.isnan(sd) else f"{text} ± {fmt.format(sd / div)}"


def table2_wide(runs: Any, by: str | Sequence[str] | None = None, *, figures: Mapping[str, str] | None = None) -> Any:
    """:func:`table2` laid out as the paper does: a row a group, a column a world, each cell ``mean ± sd`` (money in
    dollars; no ``±`` for a group of one run), then the standard error of that mean and the runs behind the cell."""
    import pandas as pd

    long = table2(runs, by, figures=figures)
    cols = _cols(by, runs)
    if long.empty:
        return pd.DataFrame(columns=cols)
    long = long.assign(cell=[_cell(m, s, str(f).endswith("_cents"))
                             for m, s, f in zip(long["mean"], long["sd"], long["figure"])],
                       se_cell=[_cell(s, math.nan, str(f).endswith("_cents")) for s, f in zip(long["se"], long["figure"])])
    worlds = [w for w in WORLDS if w in set(long["world"])]
    index = cols or ["_all"]
    long = long.assign(_all="all") if not cols else long
    for c in cols:  # a baseline beside LLM runs has no agent option: a blank, not a row the pivot drops
        long[c] = long[c].astype(object).where(long[c].notna(), "")
    cells = long.pivot_table(index=index, columns="world", values="cell", aggfunc="first")
    counts = long.pivot_table(index=index, columns="world", values="runs", aggfunc="first")
    errors = long.pivot_table(index=index, columns="world", values="se_cell", aggfunc="first")
    out = pd.DataFrame(index=cells.index)
    for w in worlds:
        out[f"{w}: {words_of(_figure_of(w, figures))}"] = cells[w].fillna("")
        out[f"{w} standard error"] = errors[w].fillna("") if w in errors.columns else ""
        out[f"{w} runs"] = counts[w].fillna(0).astype(int)
    out = out.reset_index()
    return out.drop(columns=["_all"]) if not cols else out


def words_of(figure: str) -> str:
    """A figure's name as the paper's column says it."""
    return {"net_worth_cents": "net worth", "income_cents": "income", "mean_dau": "DAU",
            "final_money_cents": "final money", "horizon_mean_dau": "DAU over the year"}.get(figure, figure)


def _against(runs: Any, field: str, by: str | Sequence[str] | None, figures: Mapping[str, str] | None) -> Any:
    """Per world, group and value of ``field``: the Table 2 figure's statistics (rows without ``field`` left out)."""
    import pandas as pd

    from bizsim.simcore.errors import ConfigError

    if field not in runs.columns:
        raise ConfigError(f"the runs have no column {field!r}; agent options the runs were given are columns "
                          "(history_messages, memory, temperature, ...): sweep the option, e.g. --agent-opt "
                          f"{field}=..., or pass one of those as field=")
    cols = _cols(by, runs, field)
    rows = []
    for world, figure, r in _world_runs(runs, figures):
        r = r[r[field].notna()]
        for key, g in r.groupby([*cols, field], sort=True, dropna=False):
            rows.append({"world": world, **_key([*cols, field], key), "figure": figure, "runs": len(g),
                         **_stats(g["value"])})
    return pd.DataFrame(rows, columns=["world", *cols, field, "figure", "runs", *_STATS]), cols


def context_length(
    runs: Any, field: str = "history_messages", by: str | Sequence[str] | None = None, *,
    figures: Mapping[str, str] | None = None,
) -> Any:
    """The context-length analysis: each world's Table 2 figure against the context the agent keeps, per group.

    The context is ``history_messages``, the messages of the conversation the agent keeps besides the system
    prompt (128 by default, as the reference code keeps; the paper speaks of 128 *steps*, and a step is two
    messages or more: ``field="history_rounds"`` for a YC-Bench-style window of rounds). A run that was not given
    the option (a baseline) is no point of the figure.

    Returns:
        ``world``, ``by...``, ``field``, ``figure``, ``runs``, ``n``, ``mean``, ``sd``, ``se``, ``ci_low``, ``ci_high``,
        ``min``, ``max``, one row a value of ``field`` within each group, in increasing order.

    Raises:
        ConfigError: the runs have no column ``field``.
    """
    return _against(runs, field, by, figures)[0]


def _no_memory(value: Any) -> bool:
    return str(value).strip().lower() in ("none", "", "nan", "()", "[]")


def memory_modules(
    runs: Any, field: str = "memory", by: str | Sequence[str] | None = None, *,
    figures: Mapping[str, str] | None = None,
) -> Any:
    """The memory-module analysis: each world's Table 2 figure with each memory module (``memory`` of the runs,
    ``none`` without one), and its change against the same group without a module.

    ``change`` is the arm's mean minus the mean of the group's ``none`` arm, ``change_pct`` that change over the
    ``none`` arm's mean (NaN where the group has no ``none`` arm or its mean is 0): the paper reports the figure
    with each module added to the same model. A run without the option in a group that set it elsewhere is the
    ``none`` arm (no module is the option's default); a group that never set it (a baseline agent) is left out.

    Returns:
        ``world``, ``by...``, ``memory``, ``figure``, ``runs``, ``n``, ``mean``, ``sd``, ``se``, ``ci_low``, ``ci_high``,
        ``min``, ``max``, ``change``, ``change_pct``.
    """
    if field in runs.columns:
        # A run of a group that set the option elsewhere, left without it, had no module (the option's default).
        cols = _cols(by, runs, field)
        import pandas as pd

        named = runs.groupby(cols, dropna=False)[field].transform(lambda s: s.notna().any()).astype(bool) if cols \
            else pd.Series(bool(runs[field].notna().any()), index=runs.index)
        runs = runs.assign(**{field: runs[field].where(runs[field].notna() | ~named, "none")})
    table, cols = _against(runs, field, by, figures)
    if table.empty:
        return table.assign(change=[], change_pct=[])
    table[field] = table[field].map(lambda v: "none" if _no_memory(v) else v)
    keys = ["world", *cols]
    base = table[table[field] == "none"].set_index(keys)["mean"]
    ref = table.set_index(keys).index.map(lambda k: base.get(k, math.nan)).to_numpy(dtype=float)
    table["change"] = table["mean"].to_numpy(dtype=float) - ref
    with_base = [r if r != 0 else math.nan for r in ref]
    table["change_pct"] = [c / r * 100.0 if not math.isnan(r) else math.nan for c, r in zip(table["change"], with_base)]
    return table.reset_index(drop=True)


def actions_over_time(
    events: Any, runs: Any, by: str | Sequence[str] | None = None, *, phase_days: int = 30, only_ok: bool = False,
    exclude: Sequence[str] = FREE_ACTIONS,
) -> Any:
    """The actions-over-time analysis: how often each action was called, phase by phase of the run.

    A phase is ``phase_days`` simulated days (phase ``p`` covers days ``p*phase_days`` to ``(p+1)*phase_days - 1``;
    the last may be shorter). Calls are counted as EcoGym's budget counts them, refused ones included
    (``only_ok=True`` counts what the world accepted); the day's end (``task_done``) is free and left out.
    ``per_run_day`` is the group's calls over the days its runs spent in the phase, so a phase cut short by the
    horizon or an early end is not read as idle.

    Returns:
        ``world``, ``by...``, ``phase``, ``first_day``, ``action``, ``calls``, ``per_run`` (calls over the group's
        runs), ``per_run_day``, ``share`` (of the group's calls in that phase).

    Raises:
        ValueError: ``phase_days`` is below 1.
    """
    import pandas as pd

    if phase_days < 1:
        raise ValueError(f"phase_days(={phase_days}) must be >= 1: a phase is a whole number of simulated days")
    cols = _cols(by, runs)
    keys = ["world", *cols]
    out_cols = [*keys, "phase", "first_day", "action", "calls", "per_run", "per_run_day", "share"]
    ok = ok_runs(runs)
    ok = ok[ok["world"].isin(WORLDS)] if "world" in ok.columns else ok.iloc[0:0]
    e = events[events["run_id"].isin(ok["run_id"])]
    if ok.empty or e.empty:
        return pd.DataFrame(columns=out_cols)
    # The days a run's agent acted: to its last command's day (the day's end included). Its world's own last
    # event falls on the day after (the horizon's end), a day no one acted in.
    run_days = e[e["kind"] == "cmd"].groupby("run_id")["day"].max() + 1
    calls = e[(e["kind"] == "cmd") & ~e["name"].isin(list(exclude))]
    if only_ok:
        calls = calls[calls["ok"].fillna(False).astype(bool)]
    calls = calls.merge(ok[["run_id", *keys]], on="run_id").assign(phase=lambda d: d["day"] // phase_days)
    if calls.empty:
        return pd.DataFrame(columns=out_cols)
    counts = calls.groupby([*keys, "phase", "name"], dropna=False).size().rename("calls").reset_index()
    group_runs = ok.groupby(keys, dropna=False)["run_id"].agg(list).rename("members").reset_index()
    counts = counts.merge(group_runs, on=keys, how="left")

    def days_in(row: Any) -> int:
        start = int(row["phase"]) * phase_days
        return sum(max(0, min(phase_days, int(run_days.get(r, 0)) - start)) for r in row["members"])

    counts["per_run"] = counts["calls"] / counts["members"].map(len)
    counts["per_run_day"] = counts["calls"] / counts.apply(days_in, axis=1).replace(0, math.nan)
    counts["share"] = counts["calls"] / counts.groupby([*keys, "phase"], dropna=False)["calls"].transform("sum")
    counts["first_day"] = counts["phase"] * phase_days
    counts = counts.rename(columns={"name": "action"})
    return counts[out_cols].sort_values([*keys, "phase", "action"]).reset_index(drop=True)

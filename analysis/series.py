"""One definition of a run's series over time, which every table, figure and page of bizsim draws from.

A run's ``month_end_funds_cents`` (or any series of the ``series`` table) is
read through :func:`run_series`, by these rules:

- **No stub month.** A run that ends on the 1st (a year from 1 January 09:00
  ends on the next 1 January 09:00) records a point for a month it entered
  less than a day before it ended. For a run that did not go bankrupt that
  point holds no business hour, so it is not a month of the run: it is folded
  into the month before, to which the run's last instant belongs. A stock
  takes the stub's value (the run's end: a late payment landing at the
  horizon counts in December's month-end funds, which then equal the final
  funds), a flow adds the stub's amount (that payment is December's
  revenue). Where nothing happened at that instant, the month before is
  unchanged.
- **A bankrupt run counts 0 from its bankruptcy on.** Its stocks (funds,
  money, net worth, users) are 0 at the point of the bankruptcy (the month
  or day it happened in) and at every later point, as the YC-Bench
  leaderboard counts a bankrupt seed. The month before keeps its figures: a
  bankruptcy at the payroll of 1 April leaves March's month-end funds as they
  were. Its flows (revenue, cost, income) keep the bankruptcy's own point, as
  that money did move (the payroll that broke it), and count 0 after it.
- **After an early end that was not a bankruptcy** a flow counts 0, a stock
  its last value (a career that ended keeps its money), and the users of a
  collapsed platform 0.

``fill="last"`` and ``fill=None`` are the other readings, for those who want
them: a run's raw last value carried on, or nothing after a run's end.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "FLOW_SERIES", "GONE_WITH_COLLAPSE", "ending", "fold_stub_months", "metric_stem", "month_ends", "run_series", "stub_months",
    "tracking_series",
]

#: Series of amounts per period: a run that ended adds nothing more to them.
FLOW_SERIES = frozenset({"daily_income_cents", "daily_revenue_cents", "month_revenue_cents", "month_cost_cents"})
#: Series a collapse wipes out (a collapsed platform has no users left).
GONE_WITH_COLLAPSE = frozenset({"daily_dau"})
_MONTH = r"\d{4}-\d{2}"
_COLUMNS = ["run_id", "step", "key", "value"]


def _flag(v: Any) -> bool:
    return v is not None and not (isinstance(v, float) and math.isnan(v)) and bool(v)


def metric_stem(metric: str) -> str:
    """What a metric's series are named after: the metric without its ``final_``, ``mean_``, ``horizon_`` or ``total_``.

    >>> metric_stem("final_funds_cents"), metric_stem("mean_dau")
    ('funds_cents', 'dau')
    """
    for prefix in ("final_", "mean_", "horizon_", "total_"):
        metric = metric.removeprefix(prefix)
    return metric


def tracking_series(names: Any, metric: str) -> str | None:
    """The series among ``names`` that tracks ``metric`` over time (its name ends with :func:`metric_stem`; the
    shortest such), the one the report draws first; None if none does.

    >>> tracking_series(["month_cost_cents", "month_end_funds_cents"], "final_funds_cents")
    'month_end_funds_cents'
    """
    stem = metric_stem(metric)
    found = sorted((str(n) for n in names if str(n).endswith(stem)), key=lambda n: (len(n), n))
    return found[0] if found else None


def ending(runs: Any) -> dict[str, str | None]:
    """run id -> ``"bankrupt"``, ``"collapsed"`` or None (the run did not end either way)."""
    out: dict[str, str | None] = {}
    cols = [c for c in ("bankrupt", "collapsed") if c in runs.columns]
    for row in runs[["run_id", *cols]].itertuples(index=False):
        values = dict(zip(["run_id", *cols], row))
        out[str(values["run_id"])] = next((c for c in cols if _flag(values[c])), None)
    return out


def stub_months(series: Any, runs: Any) -> Any:
    """A boolean mask over ``series``: month-keyed rows of a month its run entered less than a day before it
    ended without going bankrupt (see the module docstring)."""
    import pandas as pd

    none = pd.Series(False, index=series.index)
    if series is None or len(series) == 0 or "end_time" not in runs.columns:
        return none
    keys = series["key"].astype(str)
    monthly = keys.str.fullmatch(_MONTH)
    if not bool(monthly.any()):
        return none
    by_run = runs.drop_duplicates("run_id").set_index("run_id")
    end = pd.to_datetime(series["run_id"].map(by_run["end_time"]), errors="coerce")
    bankrupt = series["run_id"].map(by_run["bankrupt"]).map(_flag) if "bankrupt" in by_run.columns else none
    start = pd.to_datetime(keys.where(monthly) + "-01", errors="coerce", format="%Y-%m-%d")
    return monthly & start.notna() & end.notna() & (start > end - pd.Timedelta(days=1)) & ~bankrupt.astype(bool)


def month_ends(months: dict[str, Any], end_time: str | None, bankrupt: bool) -> dict[str, Any]:
    """One run's month-end figures (``{"2025-01": ...}``, a stock) with the stub month of the module's first rule
    folded into the month before, for showing a single run (its values as booked: a bankrupt run's last month keeps
    its negative balance).

    >>> month_ends({"2025-11": 5, "2025-12": 7, "2026-01": 7}, "2026-01-01T09:00:00", bankrupt=False)
    {'2025-11': 5, '2025-12': 7}
    >>> month_ends({"2025-11": 5, "2025-12": 7, "2026-01": 9}, "2026-01-01T09:00:00", bankrupt=False)
    {'2025-11': 5, '2025-12': 9}
    >>> month_ends({"2025-03": 5, "2025-04": -1}, "2025-04-01T09:00:00", bankrupt=True)
    {'2025-03': 5, '2025-04': -1}
    """
    from datetime import datetime, timedelta

    if bankrupt or not end_time or not months:
        return dict(months)
    try:
        end = datetime.fromisoformat(end_time)
    except ValueError:
        return dict(months)
    out: dict[str, Any] = {}
    for key, value in months.items():
        try:
            start = datetime.strptime(f"{key}-01", "%Y-%m-%d")
        except ValueError:
            start = None
        if out and start is not None and start > end - timedelta(days=1):
            out[next(reversed(out))] = value  # the run's last instant belongs to the month before
            continue
        out[key] = value
    return out


def fold_stub_months(series: Any, runs: Any, *, flow: bool) -> Any:
    """One series' rows (``run_id``, ``step``, ``key``, ``value``) with each run's stub month (the module's first
    rule) folded into the run's month before: a stock takes the stub's value, a flow (``flow=True``) adds it. A
    stub with no month before it in the run is its only month and stays."""
    stub = stub_months(series, runs)
    if not bool(stub.any()):
        return series
    s = series.assign(_stub=stub).sort_values(["run_id", "step"], kind="stable")
    by_run = s.groupby("run_id", sort=False)
    has_before = by_run.cumcount() > 0
    folded = s["_stub"] & has_before
    into = folded.groupby(s["run_id"], sort=False).shift(-1, fill_value=False).astype(bool)
    later = by_run["value"].shift(-1)
    s.loc[into, "value"] = (s.loc[into, "value"] + later[into]) if flow else later[into]
    return s[~folded].drop(columns="_stub").sort_index()


def run_series(series: Any, runs: Any, name: str, *, fill: str | None = "auto", extend: bool = True) -> Any:
    """Each run's points of the series ``name``, by the rules of this module.

    Args:
        series: the ``series`` table (``run_id``, ``name``, ``step``, ``key``, ``value``).
        runs: the runs to take (``run_id``; ``bankrupt``, ``collapsed``, ``end_time`` when known).
        fill: ``"auto"`` (the module's rules), ``"last"`` (a run's last raw value carried on) or None (raw values,
            nothing after a run's end).
        extend: carry every run on to the last step any run of ``runs`` reaches (as ``fill`` says); without it a
            run's points stop at its end.

    Returns:
        ``run_id``, ``step``, ``key``, ``value``, sorted by run and step.

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"run_id": ["a", "b"], "bankrupt": [True, False],
    ...                      "end_time": ["2025-03-03T09:00:00", "2025-04-01T09:00:00"]})
    >>> s = pd.DataFrame({"run_id": ["a"] * 3 + ["b"] * 4, "name": "month_end_funds_cents",
    ...                   "step": [0, 1, 2, 0, 1, 2, 3], "key": ["2025-01", "2025-02", "2025-03"] * 2 + ["2025-04"],
    ...                   "value": [50.0, 20.0, -5.0, 50.0, 60.0, 70.0, 70.0]})
    >>> run_series(s, runs, "month_end_funds_cents").groupby("run_id")["value"].apply(list).to_dict()
    {'a': [50.0, 20.0, 0.0], 'b': [50.0, 60.0, 70.0]}
    """
    import pandas as pd

    if fill not in ("auto", "last", None):
        raise ValueError(f"fill(={fill!r}) must be 'auto', 'last' or None")
    s = series[(series["name"] == name) & series["run_id"].isin(runs["run_id"])][_COLUMNS]
    s = fold_stub_months(s, runs, flow=name in FLOW_SERIES)
    if s.empty:
        return pd.DataFrame(columns=_COLUMNS)
    ended = ending(runs)
    keys = s.drop_duplicates("step").set_index("step")["key"].sort_index()
    flow = name in FLOW_SERIES
    wide = s.pivot_table(index="step", columns="run_id", values="value", aggfunc="first").sort_index()
    wide = wide.reindex(keys.index)
    last_steps = {rid: wide[rid].last_valid_index() for rid in wide.columns}
    for rid, last in last_steps.items():
        col = wide[rid]
        after = col.index > last
        how = ended.get(str(rid))
        if fill == "auto" and how == "bankrupt":
            if not flow:
                wide.loc[col.index == last, rid] = 0.0
            wide.loc[after, rid] = 0.0
        elif fill == "auto" and (flow or (how == "collapsed" and name in GONE_WITH_COLLAPSE)):
            wide.loc[after, rid] = 0.0
        elif fill is not None:
            wide.loc[after, rid] = col[last]
    long = wide.melt(ignore_index=False, var_name="run_id", value_name="value").reset_index()
    long["key"] = long["step"].map(keys)
    if not extend or fill is None:
        reach = long["run_id"].map(last_steps)
        long = long[long["step"] <= reach]
    long = long.dropna(subset=["value"])
    long["step"] = long["step"].astype(int)
    return long.sort_values(["run_id", "step"]).reset_index(drop=True)[_COLUMNS]

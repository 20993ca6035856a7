"""A run's series end where its final figures do: run_series, the report's tables, the viewer and `bizsim run`."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

from bizsim.analysis import load
from bizsim.analysis.series import FLOW_SERIES, fold_stub_months, run_series, tracking_series
from bizsim.runs import RunSpec, execute
from bizsim.simcore.registry import registered
from bizsim.view.run_data import run_data

from ._shared_runs import V2_HARD_PLANNER, played_once

# One worker runs this module: the late-payment year's tables are loaded once for its two tests (a run directory is
# read by replaying its command log: seconds for this one).
pytestmark = pytest.mark.xdist_group("series_horizon")

#: startup-v2, hard, planner, seed 1: a late payment of $12,966.09 lands at the horizon (1 January 2026 09:00).
V2_LATE = V2_HARD_PLANNER
V2_FINAL = 258_319_542


def _stocks(res) -> list[tuple[str, str]]:
    """(figure, the series that tracks it) for each final figure of the run that is a stock with a series."""
    run = res.runs.iloc[0]
    names = set(res.series["name"])
    out = []
    for figure in res.runs.columns:
        if not (figure.startswith("final_") or figure == run["metric"]) or figure.startswith(("mean_", "total_")):
            continue
        name = tracking_series(names, figure)
        if name is not None and name not in FLOW_SERIES and pd.notna(run[figure]):
            out.append((figure, name))
    return out


def _cases() -> list[tuple[str, str, str, int]]:
    every = [(name, "default", spec.default_agent, 1) for name, spec in sorted(registered().items())]
    return every + [V2_LATE, ("startup", "hard", "greedy", 1)]  # and a bankruptcy at a payroll on the 1st


@pytest.fixture(scope="module")
def v2_late(tmp_path_factory):
    """The late-payment year (tests/_shared_runs.py: read only): its run directory, what `bizsim run` printed, and
    its tables (read them; never change them)."""
    run_dir, printed = played_once(tmp_path_factory, V2_LATE)
    return run_dir, printed, load(run_dir)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: "-".join(map(str, c)))
def test_the_last_point_of_each_series_is_its_final_figure(request, tmp_path, case):
    """Wherever a world records a final figure and a series that tracks it, the series' last point, as every table
    and figure reads it, is that figure (as booked; a bankrupt run's counts 0), and so is the viewer's."""
    if case == V2_LATE:
        run_dir, _, res = request.getfixturevalue("v2_late")
    else:
        run_dir = tmp_path / "run"
        execute(RunSpec(*case), out=run_dir)
        res = load(run_dir)
    run = res.runs.iloc[0]
    pairs = _stocks(res)
    if case[0].startswith("startup"):
        assert ("final_funds_cents", "month_end_funds_cents") in pairs
    for figure, name in pairs:
        booked = run_series(res.series, res.runs, name, fill=None)
        counted = run_series(res.series, res.runs, name)
        assert float(run[figure]) == booked["value"].iloc[-1], (figure, name)
        assert (0.0 if run["bankrupt"] else float(run[figure])) == counted["value"].iloc[-1], (figure, name)
    reported = run_data(run_dir)["reported"]
    if (run["metric"], reported and reported["name"]) in pairs:
        assert (0.0 if run["bankrupt"] else float(run["metric_value"])) == reported["values"][-1]


def test_a_late_payment_at_the_horizon_counts_in_the_last_month(v2_late):
    """startup-v2's late payment booked at the horizon instant is December's: the month-end funds `bizsim run`
    prints, the viewer and the report's series end at the final funds, and the month's revenue holds it."""
    run_dir, printed, res = v2_late  # `bizsim run ... --out DIR`, what it printed, and its tables
    raw = res.series[res.series["name"] == "month_end_funds_cents"].set_index("key")["value"]
    assert V2_FINAL == raw["2026-01"] != raw["2025-12"]  # the case this test is about still happens
    funds = run_series(res.series, res.runs, "month_end_funds_cents").set_index("key")["value"]
    assert "2026-01" not in funds.index and V2_FINAL == funds["2025-12"] and 12 == len(funds)
    assert raw.drop(["2025-12", "2026-01"]).tolist() == funds.drop("2025-12").tolist()
    revenue = res.series[res.series["name"] == "month_revenue_cents"].set_index("key")["value"]
    counted = run_series(res.series, res.runs, "month_revenue_cents").set_index("key")["value"]
    assert revenue["2026-01"] > 0 and revenue["2025-12"] + revenue["2026-01"] == counted["2025-12"]
    assert revenue.sum() == counted.sum()
    assert V2_FINAL == run_data(run_dir)["reported"]["values"][-1]
    line = next(x for x in printed.splitlines() if "month-end funds" in x)
    assert line.endswith("2025-12 $2,583,195.42") and "2026-01" not in line and 12 == line.count("$")


def test_a_stub_month_folds_into_the_month_before():
    """A stock takes the stub's value, a flow adds it; a bankrupt run and a run's only month keep theirs."""
    runs = pd.DataFrame({"run_id": ["a", "b", "c"], "bankrupt": [False, True, False],
                         "end_time": ["2026-01-01T09:00:00", "2026-01-01T09:00:00", "2025-01-01T12:00:00"]})
    series = pd.DataFrame({"run_id": ["a", "a", "a", "b", "b", "c"], "step": [0, 1, 2, 0, 1, 0],
                           "key": ["2025-11", "2025-12", "2026-01", "2025-12", "2026-01", "2025-01"],
                           "value": [5.0, 7.0, 9.0, 7.0, -1.0, 3.0]})
    stock = fold_stub_months(series, runs, flow=False)
    assert [("a", "2025-11", 5.0), ("a", "2025-12", 9.0), ("b", "2025-12", 7.0), ("b", "2026-01", -1.0),
            ("c", "2025-01", 3.0)] == list(stock[["run_id", "key", "value"]].itertuples(index=False, name=None))
    flow = fold_stub_months(series, runs, flow=True)
    assert [5.0, 16.0, 7.0, -1.0, 3.0] == flow["value"].tolist()

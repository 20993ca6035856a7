"""The single-run viewer draws a run's series as the report counts it (analysis.series), not only as booked."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

from bizsim.analysis import load
from bizsim.runs import RunSpec, execute
from bizsim.analysis.plots import plotted_series
from bizsim.view.run_data import run_data


@pytest.mark.parametrize(("world", "preset", "agent", "name"), [
    ("startup", "hard", "greedy", "month_end_funds_cents"),  # bankrupt at the payroll of 1 April
    ("operation", "default", "threshold", "daily_dau"),
])
def test_the_viewers_plotted_values_are_the_reports(tmp_path, world, preset, agent, name):
    """Point for point, the viewer plots the values the report's figure of the same run plots; for a bankrupt run
    its last month is $0 there, where the booked balance is negative."""
    execute(RunSpec(world, preset, agent, 1), out=tmp_path / "run")
    data = run_data(tmp_path / "run")
    reported = data["reported"]
    res = load(tmp_path / "run")
    figure = plotted_series(res.series, res.runs, name, ["agent"])
    assert name == reported["name"]
    assert figure["key"].astype(str).tolist() == reported["keys"]
    assert figure["mean"].tolist() == reported["values"] == [p[1] for p in reported["points"]]
    if world == "startup":
        assert res.runs["bankrupt"].iloc[0]
        assert 0.0 == reported["values"][-1] and min(v for _, v in data["timeline"]) < 0

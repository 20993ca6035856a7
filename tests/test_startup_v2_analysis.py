"""startup-v2's report section: hires, fires and disruptions per group of runs, from the sweep's tables."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")

from bizsim.analysis.worlds.startup.v2 import HOOKS, MECHANIC_EVENTS, mechanics_table  # noqa: E402
from bizsim.simcore.registry import world_spec  # noqa: E402


def test_the_mechanics_table_counts_successes_and_events_per_run():
    """Means per run of each group: a refused hire does not count, a run without any counts zero, other events and
    commands are left out."""
    runs = pd.DataFrame({"run_id": ["a", "b", "c"], "agent": ["planner", "planner", "greedy"]})
    rows = [("a", "cmd", "employee hire", True), ("a", "cmd", "employee hire", False),
            ("a", "event", "employee_started", None), ("a", "event", "client_collapsed", None),
            ("b", "event", "client_collapsed", None), ("b", "event", "client_collapsed", None),
            ("c", "cmd", "task accept", True), ("c", "event", "task_completed", None)]
    events = pd.DataFrame(rows, columns=["run_id", "kind", "name", "ok"])
    table = mechanics_table(events, runs, ["agent"]).set_index("agent")
    assert {"employee hire": 0.5, "employee_started": 0.5, "client_collapsed": 1.5} == {
        n: v for n, v in table.loc["planner", list(MECHANIC_EVENTS)].items() if v}
    assert (2, 1) == (table.loc["planner", "runs"], table.loc["greedy", "runs"])
    assert not table.loc["greedy", list(MECHANIC_EVENTS)].any()


def test_startup_v2_registers_its_report_section():
    """The registration names v2's hooks, which keep v1's extractor and add the table to v1's report section."""
    hooks = world_spec("startup-v2").hooks()
    assert hooks is HOOKS and hooks.extractor is world_spec("startup").hooks().extractor

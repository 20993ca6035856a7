"""The advance command issued from plain Python code is a clear error, not a bare SimPy event (issue 21)."""

from __future__ import annotations

import pytest

from bizsim.models.operation import OperationWorld
from bizsim.models.startup import StartupWorld
from bizsim.simcore import NotInProcessError
from bizsim.simcore.driver import Driver


def test_sim_resume_outside_a_process_raises_and_changes_nothing():
    """`world.execute("sim resume")` from a script names world.run and Driver, and records nothing."""
    world = StartupWorld("default", seed=3)
    before, records = world.snapshot(), len(world.trajectory)
    with pytest.raises(NotInProcessError, match=r"world\.run\(agent\).*Driver\(world\)\.send\('sim resume'\)"):
        world.execute("yc-bench sim resume")
    assert (before, records) == (world.snapshot(), len(world.trajectory))
    assert "error" in world.execute("task accept --task-id Task-99999")  # other commands still answer in JSON


def test_task_done_as_a_tool_call_outside_a_process_raises():
    """The day-based worlds' advance tool is refused the same way."""
    world = OperationWorld("default", seed=1)
    with pytest.raises(NotInProcessError, match="task_done"):
        world.execute_tool("task_done", {})
    assert world.now_us == 0


def test_the_same_command_works_inside_a_process_and_through_a_driver():
    """An agent yields the event; a Driver runs to the stop; both give the same report."""
    reports = []

    def agent(world):
        reports.append((yield world.execute("task_done")))

    native = OperationWorld("default", seed=3)
    native.run(agent)
    driven = OperationWorld("default", seed=3)
    assert reports == [Driver(driven).send("task_done")]
    assert "dau" in str(reports[0])
    assert native.trajectory.to_jsonl() == driven.trajectory.to_jsonl()

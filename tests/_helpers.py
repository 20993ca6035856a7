"""Small helpers that drive a startup world from a test, outside any agent process."""

from __future__ import annotations

from typing import Any

import simpy

ALL_EMPLOYEES = ",".join(f"Emp_{i}" for i in range(1, 9))


def ok(result: Any) -> dict:
    """``result`` if it is a successful command result, else fail the test with the error."""
    assert isinstance(result, dict), f"expected a result dict, got {result!r}"
    assert "error" not in result, result
    return result


def start(world: Any, task_id: str, employees: str = ALL_EMPLOYEES) -> dict:
    """Accept, assign and dispatch a task through the command lines; the accept result."""
    accepted = ok(world.execute(f"task accept --task-id {task_id}", driven=True))
    ok(world.execute(f"task assign --task-id {task_id} --employees {employees}", driven=True))
    ok(world.execute(f"task dispatch --task-id {task_id}", driven=True))
    return accepted


def wait(world: Any, event: simpy.Event) -> dict:
    """Run the simulation until ``event`` (an advance) fires; its report."""
    assert isinstance(event, simpy.Event), f"expected a SimPy event, got {event!r}"
    world.env.run(until=event)
    return event.value


def resume(world: Any) -> dict:
    """``sim resume`` and run to the stop; the stop report."""
    return wait(world, world.execute("sim resume", driven=True))


def inspect(world: Any, task_id: str) -> dict:
    """``task inspect`` of a task."""
    return ok(world.execute(f"task inspect --task-id {task_id}", driven=True))

"""Baseline agents for the startup world, written as SimPy processes."""

from __future__ import annotations

import numpy as np

from bizsim.agents.declare import Process, agent
from bizsim.models.startup import StartupWorld
from bizsim.simcore import CommandError, stable_hash

__all__ = ["greedy", "greedy_reference", "random_agent"]


def _start_task(world: StartupWorld, task_id: str, names: list[str]) -> bool:
    try:
        world.call("task accept", task_id=task_id)
        world.call("task assign", task_id=task_id, employees=",".join(names))
        world.call("task dispatch", task_id=task_id)
    except CommandError:
        return False
    return True


@agent
def greedy(world: StartupWorld) -> Process:
    """The paper's greedy floor, through the real commands.

    One task at a time: accept the highest-reward task ``market browse``
    lists, assign every employee, dispatch, ``sim resume``; it learns that
    its task ended from the resume report, as an LLM would.
    """
    names = [e["name"] for e in world.call("employee list")["employees"]]
    current = None
    while not world.done:
        if current is None:
            listing = world.call("market browse", limit=1)["tasks"]
            if not listing or not _start_task(world, listing[0]["task_id"], names):
                return
            current = listing[0]["task_id"]
        report = yield world.advance()
        if "error" in report:
            return
        if any(e["type"] == "task_completed" and e["task_title"] == current for e in report["wake_events"]):
            current = None


@agent
def greedy_reference(world: StartupWorld) -> Process:
    """The reference's ``bot_runner`` greedy, exactly (for preset ``reference``).

    It reads the whole market directly, accepts inline with the scope creep
    applied twice and its own replacement stream, assigns everyone, and
    advances to the next event.
    """
    while not world.done:
        if world.funds_cents < 0 or world.now_us >= world.horizon_us:
            return
        if not world.active:
            for task in world.market:
                if any(float(world.prestige[d]) < task.required_prestige for d in task.required):
                    continue
                if task.required_trust > 0 and float(task.client.trust) < task.required_trust:
                    continue
                world.call("bot take", task_id=task.uid)
                break
        yield world.call("sim resume") if world.active else world.call("bot wait")


def _check_random(seed: int | None, max_parallel: int) -> str | None:
    if seed is not None and seed < 0:
        return f"seed(={seed}) must be >= 0"
    if max_parallel < 0:
        return f"max_parallel(={max_parallel}) must be >= 0"
    return None


@agent(name="random", check=_check_random)
def random_agent(world: StartupWorld, seed: int | None = None, max_parallel: int = 2) -> Process:
    """Uniform choices among what the commands show: tasks, teams, concurrency.

    Args:
        seed: the agent's own seed (default: the world's).
        max_parallel: at most this many tasks accepted per turn.
    """
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        world.seed if seed is None else int(seed), spawn_key=(stable_hash("agent:random"),))))
    names = [e["name"] for e in world.call("employee list")["employees"]]
    while not world.done:
        listing = world.call("market browse")["tasks"]
        for _ in range(int(rng.integers(0, int(max_parallel) + 1))):
            if not listing:
                break
            pick = listing.pop(int(rng.integers(len(listing))))
            team = rng.choice(names, size=int(rng.integers(1, len(names) + 1)), replace=False)
            _start_task(world, pick["task_id"], [str(n) for n in team])
        if world.call("company status")["tasks"]["active"] == 0 and listing:
            _start_task(world, listing[0]["task_id"], names)
        report = yield world.advance()
        if "error" in report:
            return


"""Baseline agents of the startup world: the paper's greedy through real commands, random, the registry."""

from __future__ import annotations

import pytest

from bizsim.agents import agent_names, make_agent
from bizsim.models.startup import StartupWorld
from bizsim.models.startup.commands import COMMANDS
from bizsim.simcore import ConfigError


# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("startup_agents")


def owned(world: StartupWorld) -> list:
    """Accepted tasks in acceptance order."""
    return sorted((t for t in world.tasks if t.accepted_at is not None), key=lambda t: (t.accepted_at, t.serial))


@pytest.fixture(scope="module")
def greedy_year() -> StartupWorld:
    """The paper's greedy agent run for a year on seed 1, preset default."""
    w = StartupWorld("default", 1)
    w.run(make_agent("startup", "greedy"))
    return w


def test_greedy_runs_to_the_end(greedy_year):
    """Greedy plays until the episode ends and leaves a sound world."""
    assert greedy_year.done
    assert [] == greedy_year.invariants()


def test_greedy_uses_only_agent_commands(greedy_year):
    """Greedy acts through the visible commands: browse, accept, assign, dispatch, resume."""
    used = {r[2] for r in greedy_year.trajectory if r[1] == "cmd"}
    assert {"market browse", "task accept", "task assign", "task dispatch", "sim resume"} <= used
    assert used <= {s.name for s in COMMANDS.visible()}


def test_greedy_takes_the_top_listed_task_with_everyone_one_at_a_time(greedy_year):
    """Each task is the top of ``market browse`` when taken, staffed by all eight, and finished before the next."""
    tasks = owned(greedy_year)
    assert "Task-10" == tasks[0].title
    assert all(len(t.assignees) == 8 for t in tasks)
    for a, b in zip(tasks, tasks[1:]):
        assert a.completed_at is not None and a.completed_at <= b.accepted_at
    browses = [r[3]["result"]["tasks"][0]["task_id"] for r in greedy_year.trajectory
               if r[1] == "cmd" and r[2] == "market browse"]
    assert [t.title for t in tasks] == browses[: len(tasks)]


def test_greedy_final_report_is_terminal(greedy_year):
    """The last stop the agent received reports the end of the episode."""
    last = [r[3] for r in greedy_year.trajectory if r[1] == "stop"][-1]
    reason = {"horizon_reached": "horizon_end", "bankrupt": "bankruptcy"}[greedy_year.status.value]
    assert reason == last["terminal_reason"]


def test_random_agent_is_reproducible():
    """The random agent with one seed plays the same game twice; another seed plays differently."""
    def play(agent_seed: int) -> str:
        w = StartupWorld("default", 2)
        w.run(make_agent("startup", "random", {"seed": agent_seed}))
        assert [] == w.invariants()
        return w.trajectory.to_jsonl()

    assert play(7) == play(7)
    assert play(7) != play(8)


def test_agent_registry():
    """Agents are listed per world; unknown agents or options are refused with the known ones."""
    assert {"greedy", "greedy-reference", "random"} <= set(agent_names("startup"))
    with pytest.raises(ConfigError, match="unknown agent 'smart'"):
        make_agent("startup", "smart")
    with pytest.raises(ConfigError, match=r"has no option\(s\) speed; its options: seed, max_parallel"):
        make_agent("startup", "random", {"speed": 2})

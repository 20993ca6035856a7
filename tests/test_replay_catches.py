"""Replay refuses a log that runs past the episode's end and replays the built-in agents' hidden commands."""

from __future__ import annotations

import attrs
import pytest

from bizsim.agents import greedy_reference
from bizsim.models.operation import OperationWorld
from bizsim.models.operation.presets import PRESETS
from bizsim.models.startup import StartupWorld
from bizsim.simcore import ReplayError, Status
from bizsim.simcore.replay import replay

ONE_DAY = attrs.evolve(PRESETS["default"], horizon_days=1)


def test_replay_refuses_a_command_after_the_end():
    """A logged command issued after the episode ended is a ReplayError naming the command and the status."""
    world = OperationWorld(ONE_DAY, 1)
    world.env.run(until=world.execute("task_done"))
    assert Status.HORIZON == world.status
    assert "error" in world.execute("creator_incentive")
    log = world.command_log()
    assert [(0, "task_done"), (world.now_us, "creator_incentive")] == log
    with pytest.raises(ReplayError, match=r"command 1 \('creator_incentive'\) comes after the episode ended "
                                          r"\(horizon_reached\)"):
        replay(lambda: OperationWorld(ONE_DAY, 1), log)


def test_replay_reissues_hidden_commands():
    """A log with the reference bot's hidden commands replays to the same state and trajectory."""
    world = StartupWorld("reference", 1)
    world.run(greedy_reference)
    log = world.command_log()
    hidden = next(line for _, line in log if line.startswith("bot take "))
    assert "Unknown command 'bot take'." == StartupWorld("reference", 1).execute(hidden)["error"]
    again = replay(lambda: StartupWorld("reference", 1), log)
    assert world.snapshot() == again.snapshot()
    assert world.trajectory.to_jsonl() == again.trajectory.to_jsonl()

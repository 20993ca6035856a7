"""Replay re-issues every logged line (refusals after the end, the built-in agents' hidden commands) and refuses a
line at the wrong instant."""

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


def test_replay_reissues_a_refusal_after_the_end_and_a_foreign_line_shows():
    """A command refused after the episode ended is replayed as the same refusal (the trajectories are equal); a
    line appended to the log that the run never saw adds a record the recording lacks."""
    world = OperationWorld(ONE_DAY, 1)
    world.env.run(until=world.execute("task_done"))
    assert Status.HORIZON == world.status
    assert "error" in world.execute("creator_incentive")
    log = world.command_log()
    assert [(0, "task_done"), (world.now_us, "creator_incentive")] == log
    again = replay(lambda: OperationWorld(ONE_DAY, 1), log)
    assert world.trajectory.to_jsonl() == again.trajectory.to_jsonl()
    tampered = replay(lambda: OperationWorld(ONE_DAY, 1), [*log, (world.now_us, "moderation_tighten")])
    assert world.trajectory.to_jsonl() != tampered.trajectory.to_jsonl()
    with pytest.raises(ReplayError, match=r"command 1 \('creator_incentive'\) was recorded at t_us=0"):
        replay(lambda: OperationWorld(ONE_DAY, 1), [log[0], (0, "creator_incentive")])


def test_replay_reissues_hidden_commands():
    """A log with the reference bot's hidden commands replays to the same state and trajectory."""
    world = StartupWorld("reference", 1)
    world.run(greedy_reference)
    log = world.command_log()
    hidden = next(line for _, line in log if line.startswith("bot take "))
    assert "Unknown command 'bot take'." == StartupWorld("reference", 1).execute(hidden)["error"]
    again = replay(lambda: StartupWorld("reference", 1), log)
    assert world.state() == again.state()
    assert world.trajectory.to_jsonl() == again.trajectory.to_jsonl()

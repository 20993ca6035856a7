"""Replay, the outside driver, and check_world on the startup world."""

from __future__ import annotations

import pytest

from bizsim.agents import greedy, random_agent
from bizsim.models.startup import StartupWorld
from bizsim.simcore import ReplayError, Status
from bizsim.simcore.check import check_world
from bizsim.simcore.driver import Driver
from bizsim.simcore.replay import play_commands, replay


def test_replay_reproduces_final_state():
    """Re-issuing a recorded command log rebuilds the exact final state and trajectory."""
    world = StartupWorld("default", 4)
    world.run(random_agent)
    again = replay(lambda: StartupWorld("default", 4), world.command_log())
    assert world.state() == again.state()
    assert world.trajectory.to_jsonl() == again.trajectory.to_jsonl()


def test_replay_refuses_a_log_from_another_seed():
    """A log replayed onto another seed's world is caught, not silently diverged."""
    world = StartupWorld("default", 1)
    world.run(greedy)
    with pytest.raises(ReplayError, match="recorded at"):
        replay(lambda: StartupWorld("default", 2), world.command_log())


def test_driver_gives_the_native_trajectory():
    """Stepping from outside SimPy with the same commands gives the same trajectory as the agent process."""
    native = StartupWorld("default", 2)
    native.run(greedy)
    lines = [line for _, line in native.command_log()]
    outside = StartupWorld("default", 2)
    play_commands(outside, lines)
    assert native.trajectory.to_jsonl() == outside.trajectory.to_jsonl()


def test_driver_send_and_step():
    """send() answers at once or at the next stop; step() runs a queue until time moves."""
    driver = Driver(StartupWorld("default", 1))
    assert driver.send("company status")["funds_cents"] == 20_000_000
    assert "error" in driver.send("sim resume")
    for line in ("task accept --task-id Task-8", "task assign --task-id Task-8 --employees Emp_4,Emp_6,Emp_7,Emp_8",
                 "task dispatch --task-id Task-8", "sim resume", "company status"):
        driver.push(line)
    results = driver.step()
    assert 4 == len(results)
    assert "task_completed" == results[-1]["wake_events"][0]["type"]
    assert ["company status"] == [x if isinstance(x, str) else x[0] for x in driver.inbox]
    assert driver.world.now_us > 0


def test_check_world_passes_for_startup():
    """The kernel contract holds for the startup world with greedy and random agents."""
    check_world(lambda s: StartupWorld("default", s), greedy, seeds=(3,))
    check_world(lambda s: StartupWorld("tutorial", s), random_agent, seeds=(5,))


def test_check_world_catches_nondeterminism():
    """check_world fails a world whose runs differ under the same seed."""
    calls = []

    def flaky(world):
        calls.append(1)
        if len(calls) % 2:
            world.call("scratchpad write", content=f"run {len(calls)}")
        yield world.advance()

    with pytest.raises(AssertionError, match="two runs of the same seed and agent part at trajectory record"):
        check_world(lambda s: StartupWorld("default", s), flaky, seeds=(1,))


def test_commands_after_the_end_are_refused():
    """Once an episode ends, every command is a JSON error and nothing changes."""
    world = StartupWorld("reference", 1)
    from bizsim.agents import greedy_reference

    world.run(greedy_reference)
    assert Status.BANKRUPT == world.status
    before = world.state()
    out = world.execute("task accept --task-id Task-1", driven=True)
    assert "episode has ended" in out["error"]
    assert before == world.state()

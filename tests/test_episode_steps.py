"""One Episode for every way in: it records like a live episode and resets, steps and rewards like the text env."""

from __future__ import annotations

import pytest

from bizsim.runs.live import Episode
from bizsim.runs.verify import verify_run_dir
from bizsim.simcore.errors import BizSimError, ConfigError
from bizsim.surfaces.textenv import TextEnv


def test_a_recorded_episode_steps_rewards_and_verifies(tmp_path):
    """Stepped with out=, the episode's rewards sum to the metric's change and its run directory verifies."""
    lines = ["creator_incentive", "task_done", "content_push", "task_done", "task_done"]
    with Episode("operation", "default", 1, out=tmp_path / "run", surface="python") as ep:
        ep.reset()
        rewards = [ep.step(line)[1] for line in lines]
        assert pytest.approx(ep.metric - ep.start_metric) == sum(rewards)
        assert 3 == ep.turns
        with pytest.raises(ConfigError, match="a recorded episode is one run"):
            ep.reset()
    assert verify_run_dir(tmp_path / "run").ok


def test_stepping_a_recorded_episode_equals_the_text_env():
    """The same lines through an unrecorded TextEnv and a recorded Episode give the same observations and rewards."""
    lines = ["company status", "market browse --limit 3", "sim resume", "task accept --task-id nope", "sim resume"]
    env = TextEnv("startup", "default", seed=2)
    env.reset()
    ep = Episode("startup", "default", 2)
    assert [env.step(line)[:3] for line in lines] == [ep.step(line)[:3] for line in lines]


def test_an_unrecorded_episode_resets_on_another_seed():
    """Without out=, reset starts a fresh world as often as asked, on the seed given."""
    ep = Episode("vending", "small", 1)
    ep.step(ep.advance_command)
    ep.reset(seed=3)
    assert (3, 0, 0) == (ep.world.seed, ep.turns, ep.calls)


def test_a_finished_window_refuses_the_next_step():
    """A window of one turn ends the episode at the first advance; the next step is refused with a clear error."""
    ep = Episode("operation", "default", 1, window=1)
    *_, done, info = ep.step("task_done")
    assert done and info["truncated"]
    with pytest.raises(BizSimError, match="its window is over"):
        ep.step("task_done")


def test_an_episode_on_a_config_object_is_labelled_custom():
    """A config object (not a preset's name) plays unrecorded, and the episode's record calls its preset custom."""
    from bizsim.simcore.registry import world_spec

    config = world_spec("operation").preset_table().preset("easy")
    assert "custom" == Episode("operation", config, 1).record().preset
    with pytest.raises(ConfigError, match="a recorded episode takes a preset name"):
        Episode("operation", config, 1, out="never-written")

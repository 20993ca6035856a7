"""The stepping drivers' arguments are refused with one ConfigError naming them (load_environment's: in
test_verifiers_env.py, beside the other verifiers tests, so verifiers is imported once)."""

from __future__ import annotations

import pytest

from bizsim.agents.start import Window
from bizsim.simcore.errors import ConfigError
from bizsim.surfaces.textenv import TextEnv


@pytest.mark.parametrize(("seed", "match"), [
    (-1, r"seed\(=-1\) must be an integer from 0"), ("x", r"seed\(='x'\) must be an integer"),
    (1.5, r"seed\(=1.5\) must be an integer"), (True, r"seed\(=True\) must be an integer .* a bool is not one"),
    (2**64, r"seed\(=an integer of 65 bits\)"),
])
def test_text_and_gymnasium_envs_refuse_bad_seeds(seed, match):
    """Seeds are integers in [0, 2^63 - 1], refused when given to the constructor, to reset, or to Gymnasium's
    reset (whose own error would name no rule)."""
    with pytest.raises(ConfigError, match=match):
        TextEnv("operation", seed=seed)
    with pytest.raises(ConfigError, match=match):
        TextEnv("operation").reset(seed=seed)
    gym = pytest.importorskip("bizsim.surfaces.gym")
    with pytest.raises(ConfigError, match=match):
        gym.BizSimEnv("operation").reset(seed=seed)


@pytest.mark.parametrize("bad", [{"turns": 0}, {"turns": True}, {"days": float("nan")}, {"days": -2}])
def test_windows_refuse_lengths_that_never_end_or_never_start(bad):
    """A window's turns are an integer >= 1 and its days a finite number > 0."""
    with pytest.raises(ConfigError, match="must be"):
        Window(**bad)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"reward": "dense"}, r"reward\(='dense'\) must be one of delta, terminal, shaped"),
    ({"reward_weights": {"dau": 1}}, r"reward_weights weigh the sub-metrics of reward='shaped'; reward is 'delta'"),
    ({"reward": "shaped", "reward_weights": {"users": 1}},
     (r"reward_weights\['users'\] is not a sub-metric of operation; its sub-metrics are dau, content_quality, "
      r"creator_activity")),
    ({"reward": "shaped", "reward_weights": {"dau": float("nan")}},
     r"reward_weights\['dau'\]\(=nan\) must be a finite number from -1e12 to 1e12"),
    ({"reward": "shaped", "reward_weights": {"dau": True}}, r"reward_weights\['dau'\]\(=True\) must be a finite"),
    ({"reward": "shaped", "reward_weights": {"dau": "2"}}, r"reward_weights\['dau'\]\(='2'\) must be a finite"),
    ({"reward": "shaped", "reward_weights": {"dau": 1e13}},
     r"reward_weights\['dau'\]\(=10000000000000.0\) must be a finite"),
    ({"reward": "shaped", "reward_weights": {"dau": 10**400}},  # too large for a float: no OverflowError
     r"reward_weights\['dau'\]\(=an integer of 1,329 bits\) must be a finite"),
    ({"reward": "shaped", "reward_weights": [("dau", 1)]}, r"reward_weights\(=.*\) must be a table of sub-metric"),
])
def test_reward_modes_and_weights_are_refused_with_one_line_naming_the_allowed_ones(kwargs, match):
    """An unknown mode, weights without ``shaped``, an unknown sub-metric, a weight that is not a finite number in
    range: one ConfigError where the env is made (text, Gymnasium, the episode under both), naming what is allowed."""
    from bizsim.runs.live import Episode

    with pytest.raises(ConfigError, match=match):
        TextEnv("operation", **kwargs)
    with pytest.raises(ConfigError, match=match):
        Episode("operation", **kwargs)
    gym = pytest.importorskip("bizsim.surfaces.gym")
    with pytest.raises(ConfigError, match=match):
        gym.BizSimEnv("operation", **kwargs)


def test_a_shaped_reward_on_a_world_that_declares_no_sub_metrics_is_refused():
    """A world registered without ``sub_metrics`` offers delta and terminal rewards; ``shaped`` names the gap."""
    import attrs
    from bizsim.simcore.registry import register, unregister, world_spec

    register(attrs.evolve(world_spec("operation"), name="operation_plain", sub_metrics=()))
    try:
        with pytest.raises(ConfigError, match=r"reward='shaped' weighs the world's sub-metrics and world "
                                              r"'operation_plain' declares none \(WorldSpec.sub_metrics\)"):
            TextEnv("operation_plain", reward="shaped")
        TextEnv("operation_plain", reward="terminal").reset()
    finally:
        unregister("operation_plain")


def test_a_shaped_step_is_the_metric_change_plus_the_weighted_sub_metric_changes():
    """One operation day, shaped with weights given for two sub-metrics (the third keeps its default): the reward
    is the mean DAU's change plus each weight times its figure's change, read from the world's summary."""
    env = TextEnv("operation", reward="shaped", reward_weights={"dau": 0.5, "content_quality": -200})
    env.reset(seed=3)
    before = env.world.summary()
    reward = env.step("creator_incentive")[1]
    reward2 = env.step(env.world.advance_command)[1]
    after = env.world.summary()
    expected = (after["mean_dau"] - before["mean_dau"] + 0.5 * (after["final_dau"] - before["final_dau"])
                - 200 * (after["final_content_quality"] - before["final_content_quality"])
                + 60 * (after["final_creator_activity"] - before["final_creator_activity"]))
    assert after["final_dau"] != before["final_dau"] and after["final_creator_activity"] != before[
        "final_creator_activity"]
    assert expected == pytest.approx(reward + reward2, rel=1e-12)


def test_the_reward_modules_examples_run():
    """The examples in ``bizsim.runs.rewards`` run and hold."""
    import doctest

    import bizsim.runs.rewards

    failed, tried = doctest.testmod(bizsim.runs.rewards)
    assert (0, True) == (failed, tried > 0)


def test_the_argument_checks_examples_run():
    """The examples in ``bizsim.surfaces._rl_args`` (split_seeds') run and hold."""
    import doctest

    from bizsim.surfaces import _rl_args

    failed, tried = doctest.testmod(_rl_args)
    assert (0, True) == (failed, tried > 0)


def test_text_env_refuses_a_start_state_of_another_world():
    """TextEnv refuses a start state of another world when built (a ConfigError that says what to give), not at the
    first reset."""
    from bizsim.agents.start import StartState

    with pytest.raises(ConfigError, match=r"start is a start state of startup, not operation; make one of operation"):
        TextEnv("operation", start=StartState("startup"))

"""Every argument of the RL entry points is refused with one ConfigError naming it, before anything is built."""

from __future__ import annotations

import pytest

from bizsim.agents.start import Window
from bizsim.simcore.errors import ConfigError
from bizsim.surfaces.textenv import TextEnv

vf_env = pytest.importorskip("bizsim.surfaces.verifiers_env")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"reward_scale": "nan"}, r"reward_scale\(='nan'\) must be a finite number > 0"),
    ({"reward_scale": "x"}, r"reward_scale\(='x'\) must be a finite number > 0"),
    ({"reward_scale": float("nan")}, r"reward_scale\(=nan\)"),
    ({"reward_scale": float("inf")}, r"reward_scale\(=inf\)"),
    ({"reward_scale": 0}, r"reward_scale\(=0\)"),
    ({"reward_scale": True}, r"reward_scale\(=True\)"),
    ({"max_turns": -1}, r"max_turns\(=-1\) must be an integer from 1 to 100,000"),
    ({"max_turns": 1.5}, r"max_turns\(=1.5\) must be an integer"),
    ({"max_turns": "10"}, r"max_turns\(='10'\) must be an integer"),
    ({"seeds": "1-10000000"}, r"10,000,000 seeds or more, past the limit of 100,000"),
    ({"seeds": "1-5", "eval_seeds": "x"}, r"seeds: 'x' is not a seed"),
    ({"window": {"days": float("inf")}}, r"days\(=inf\) must be a finite number > 0"),
    ({"window": {"turns": 1.5}}, r"turns\(=1.5\) must be an integer >= 1"),
    ({"window": {"weeks": 1}}, r"window\(=\{'weeks': 1\}\)"),
    ({"preset": "nope"}, r"unknown operation preset 'nope'"),
    ({"world": 3}, r"world\(=3\) must be a registered world's name"),
    ({"max_turn": 5}, r"unknown argument\(s\) \['max_turn'\]"),
    ({"system_prompt": "hi"}, r"unknown argument\(s\) \['system_prompt'\]"),
])
def test_load_environment_refuses_each_bad_argument_with_one_config_error(kwargs, match):
    """A bad value is a ConfigError naming the argument and the rule, not a raw ValueError, a MemoryError or
    a reward that is silently NaN."""
    kwargs = {"world": "operation", **kwargs}
    with pytest.raises(ConfigError, match=match):
        vf_env.load_environment(**kwargs)


def test_load_environment_takes_verifiers_own_arguments():
    """An argument verifiers' environment takes is passed on, and good values of ours are kept."""
    env = vf_env.load_environment(world="operation", seeds="1-2", eval_seeds="9", max_turns=3, reward_scale=2,
                                  max_workers=4)
    assert (3, 2.0, 4) == (env.max_turns, env.reward_scale, env.max_workers)


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

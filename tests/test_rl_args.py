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

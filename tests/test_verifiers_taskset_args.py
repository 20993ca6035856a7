"""The verifiers 0.4 taskset's arguments are checked without verifiers 0.4, each with one ConfigError naming it.

Its rollouts run in test_verifiers_v04_native.py, where verifiers 0.4 is installed (never beside the test extra).
"""

from __future__ import annotations

import pytest

from bizsim.simcore.errors import ConfigError
from bizsim.surfaces.verifiers_taskset import taskset_settings


@pytest.mark.parametrize(("given", "match"), [
    ({"world": "nowhere"}, r"unknown world 'nowhere'"),
    ({"world": 3}, r"world\(=3\) must be a registered world's name"),
    ({"preset": "nightmare"}, r"nightmare"),
    ({"seeds": "1-10000000"}, r"10,000,000 seeds or more, past the limit of 100,000"),
    ({"seeds": []}, r"seeds\(=\[\]\) name no seed"),
    ({"seeds": True}, r"seeds\(=True\) must name seeds"),
    ({"window": {"days": float("nan")}}, r"days\(=nan\) must be a finite number > 0"),
    ({"window": {"weeks": 1}}, r"must be N turns or a table"),
    ({"max_turns": -1}, r"max_turns\(=-1\) must be an integer from 1 to 100,000"),
    ({"max_turns": 2.5}, r"max_turns\(=2.5\) must be an integer"),
    ({"reward": "sparse"}, r"reward\(='sparse'\) must be one of delta, terminal, shaped"),
    ({"reward_weights": {"dau": 1}}, r"reward_weights weigh the sub-metrics of reward='shaped'"),
    ({"reward": "shaped", "reward_weights": {"funds": 1}}, r"'funds'.*dau"),
    ({"reward": "shaped", "reward_weights": {"dau": float("nan")}}, r"nan"),
    ({"reward_scale": "nan"}, r"reward_scale\(='nan'\) must be a finite number > 0 .* not str"),
    ({"reward_scale": float("inf")}, r"reward_scale\(=inf\) must be a finite number > 0"),
    ({"out": 7}, r"out\(=7\) must be a folder path"),
    ({"out": ""}, r"out\(=''\) must be a folder path"),
    ({"start_agent": "threshold"}, r"start_agent\(='threshold'\) and start_until\(=None\) go together"),
    ({"start_agent": "nobody", "start_until": 5}, r"unknown agent 'nobody' for world 'operation'"),
    ({"start_agent": 5, "start_until": 5}, r"start_agent\(=5\) must be an agent's name of operation"),
])
def test_each_bad_argument_is_refused_naming_it_and_its_rule(given, match):
    """A bad argument is one ConfigError naming the argument, its value and the rule (seed sets counted first)."""
    with pytest.raises(ConfigError, match=match):
        taskset_settings(**{"world": "operation", **given})


def test_arguments_are_kept_as_a_rollout_uses_them():
    """Seeds are listed, a TOML window's float turns become an integer, the world's id becomes its name, and a
    policy start is one start state (seed s starts at point s mod the points' count)."""
    settings = taskset_settings("operation-v1", seeds="2,5-6", window={"turns": 2.0}, reward_scale=1e-2, out="runs")
    assert ("operation", (2, 5, 6), {"turns": 2}, 0.01) == (
        settings.world, settings.seeds, settings.window, settings.reward_scale)
    assert isinstance(settings.window["turns"], int) and "runs" == str(settings.out) and settings.start is None
    started = taskset_settings("operation", start_agent="threshold", start_until=[{"day": 5}, {"day": 9}]).start
    assert ("threshold", {"day": 9}) == (started.agent, started.point_for(3))
    assert taskset_settings("operation").reward_weights is None
    shaped = taskset_settings("operation", reward="shaped", reward_weights={"dau": 0.5}).reward_weights
    assert {"dau": 0.5, "content_quality": 60.0, "creator_activity": 60.0} == shaped  # the others keep their defaults


def test_the_alias_module_verifiers_loads_is_the_taskset_module():
    """``bizsim_verifiers`` (the id verifiers 0.4 imports) exports what the taskset module does."""
    import bizsim_verifiers

    from bizsim.surfaces import verifiers_taskset

    assert verifiers_taskset.__all__ == bizsim_verifiers.__all__
    assert verifiers_taskset.taskset_settings is bizsim_verifiers.taskset_settings
    assert "bizsim-verifiers" == bizsim_verifiers.TASKSET_ID


def test_without_verifiers_04_its_classes_say_how_to_install_it():
    """Beside verifiers 0.1 (or none), the taskset's verifiers classes raise an ImportError that names the fix."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("verifiers")
    except PackageNotFoundError:
        installed = "none"
    if installed.startswith("0.4"):
        pytest.skip("verifiers 0.4 is installed here")
    import bizsim_verifiers

    with pytest.raises(ImportError, match=r"needs verifiers 0.4 .* pip install 'verifiers\[openenv\]==0.4.0'"):
        bizsim_verifiers.BizSimTaskset  # noqa: B018 - the attribute access is the test

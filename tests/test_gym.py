"""The Gymnasium adapters: registration, check_env, and the native trajectory from outside."""

from __future__ import annotations

import doctest
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.simcore.registry import registered, world_names
from bizsim.simcore.errors import ConfigError

from .test_textenv import PRESETS, line_source, native_run, world_and_actions

gymnasium = pytest.importorskip("gymnasium")
bizgym = pytest.importorskip("bizsim.surfaces.gym")


@pytest.mark.parametrize("world", sorted(world_names()))
def test_check_env_passes(world):
    """Gymnasium's own checker accepts every registered world's adapter."""
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(bizgym.env_id(world), preset=PRESETS.get(world, "default"))
    check_env(env.unwrapped, skip_render_check=False)


def test_every_world_is_registered_with_its_version():
    """Each world of the registry has an id ``bizsim/<name>-v<version>`` (``bizsim/startup-v1``,
    ``bizsim/startup_v2-v2``) with a lazy entry point, and no two worlds share a Gymnasium name: Gymnasium would take
    one for a newer version of the other."""
    names = {}
    for name, world in registered().items():
        eid = bizgym.env_id(name)
        spec = gymnasium.spec(eid)
        assert "bizsim.surfaces.gym:BizSimEnv" == spec.entry_point
        assert {"world": name} == spec.kwargs
        assert (spec.namespace, spec.version) == ("bizsim", world.version)
        assert spec.name not in names, f"{name} and {names[spec.name]} share the Gymnasium name {spec.name}"
        names[spec.name] = name


def test_the_startup_id_builds_yc_benchs_world_without_a_warning():
    """``bizsim/startup-v1`` builds startup-v1 (YC-Bench's world) without a warning (it warned that v1 "is out of
    date", pointing to startup-v2); unversioned ``bizsim/startup`` builds startup-v1 too, Gymnasium saying only that
    it took the latest version, v1; startup-v2 has an id of its own."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        env = gymnasium.make("bizsim/startup-v1")
        assert "startup-v1" == _benchmark_of(env)
        env.close()
        assert [] == [str(w.message) for w in seen]
        env = gymnasium.make("bizsim/startup")
        assert "startup-v1" == _benchmark_of(env)
        env.close()
    (said,) = [str(w.message) for w in seen]
    assert "Using the latest versioned environment `bizsim/startup-v1`" in said
    env = gymnasium.make("bizsim/startup_v2-v2")
    assert "startup-v2" == _benchmark_of(env)
    env.close()


def test_import_bizsim_registers_nothing():
    """Only importing bizsim.surfaces.gym registers environments (no side effects at ``import bizsim``)."""
    code = ("import gymnasium, bizsim.agents, bizsim.models, bizsim.analysis; "
            "print(sum(i.startswith('bizsim/') for i in gymnasium.registry))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "0" == out.stdout.strip()


def test_operation_has_discrete_actions():
    """Operation's actions are Discrete(5): the four interventions, then task_done."""
    env = gymnasium.make("bizsim/operation-v1").unwrapped
    assert gymnasium.spaces.Discrete(5) == env.action_space
    assert ("acquisition_boost", "engagement_tune", "creator_incentive", "moderation_tighten",
            "task_done") == env.action_names
    text_env = gymnasium.make("bizsim/operation-v1", actions="text").unwrapped
    assert isinstance(text_env.action_space, gymnasium.spaces.Text)
    with pytest.raises(ConfigError, match="not offered"):
        bizgym.BizSimEnv("vending", actions="discrete")


@settings(max_examples=25)
@given(world_and_actions())
def test_adapter_gives_the_native_trajectory(case):
    """Driving any world through the Gymnasium adapter with command lines leaves the native trajectory."""
    world, seed, actions = case
    native, lines = native_run(world, seed, actions, line_source(world)[1])
    env = bizgym.BizSimEnv(world, PRESETS.get(world, "default"), actions="text")
    obs, _ = env.reset(seed=seed)
    assert env.observation_space.contains(obs)
    for line in lines:
        obs, _, terminated, truncated, _ = env.step(line)
        assert env.observation_space.contains(obs)
        assert not truncated
    assert native.trajectory.to_jsonl() == env.world.trajectory.to_jsonl()
    assert native.done == terminated if lines else True


@settings(max_examples=15)
@given(st.integers(0, 50), st.lists(st.integers(0, 4), max_size=60))
def test_discrete_actions_give_the_native_trajectory(seed, indices):
    """Operation driven by Discrete actions leaves the trajectory of a native agent issuing the same commands."""
    env = bizgym.BizSimEnv("operation")
    names = [env.action_names[i] for i in indices]
    native, lines = native_run("operation", seed, names, lambda w, line: [line])
    env.reset(seed=seed)
    for i in indices[:len(lines)]:
        env.step(i)
    assert native.trajectory.to_jsonl() == env.world.trajectory.to_jsonl()


def test_rewards_sum_to_the_metric_and_render_shows_the_last_observation():
    """Rewards add up to the metric's change; ansi render returns the last observation."""
    env = gymnasium.make("bizsim/operation-v1", render_mode="ansi")
    obs, info = env.reset(seed=2)
    total = 0.0
    for _ in range(20):
        obs, reward, _, _, info = env.step(2)
        total += reward
        obs, reward, _, _, info = env.step(4)
        total += reward
    assert info["metric"] - env.unwrapped.text.metric == 0
    assert pytest.approx(total) == info["metric"] - 1000.0  # operation starts at 1000 DAU
    assert obs == env.render()


def test_close_frees_the_world_and_reset_starts_again():
    """Gymnasium's close() frees the episode's world; the env can be reset and played again."""
    import weakref

    from bizsim.simcore.errors import BizSimError

    env = gymnasium.make("bizsim/operation-v1")
    env.reset(seed=3)
    env.step(2)
    world = weakref.ref(env.unwrapped.world)
    env.close()
    assert world() is None  # freed at once, nothing left for the cyclic collector
    with pytest.raises(BizSimError, match="reset"):
        env.unwrapped.world  # noqa: B018
    env.reset(seed=3)
    assert env.step(2)[4]["error"] is False


def test_doctests():
    """The module's examples run."""
    assert 0 == doctest.testmod(bizgym).failed


def test_reset_frees_the_previous_world_and_the_constructor_seed_seeds_what_follows():
    """A reset frees the last episode's world at once; envs built with one seed give one sequence of episodes."""
    import weakref

    env = gymnasium.make("bizsim/startup-v1", seed=4)
    env.reset()
    world = weakref.ref(env.unwrapped.world)
    env.reset()
    assert world() is None  # freed, not left to the cyclic garbage collector
    a, b = (gymnasium.make("bizsim/operation-v1", seed=1) for _ in range(2))
    seeds = [a.reset()[1]["seed"] for _ in range(3)]
    assert 1 == seeds[0] and len(set(seeds)) == 3 and seeds == [b.reset()[1]["seed"] for _ in range(3)]


def test_registered_ids_truncate_a_policy_that_never_advances():
    """Only the advance command moves the clock; the registered step limit ends an endless episode as truncated."""
    assert bizgym.MAX_EPISODE_STEPS == gymnasium.spec("bizsim/startup-v1").max_episode_steps
    env = gymnasium.make("bizsim/startup-v1", max_episode_steps=5)
    env.reset(seed=1)
    flags = [env.step("help")[2:4] for _ in range(5)]
    assert [(False, False)] * 4 + [(False, True)] == flags


def test_async_vector_env_needs_shared_memory_off_and_then_steps():
    """Gymnasium's shared memory would serve stale text: it is refused with its own error; without it, fresh text."""
    import numpy as np

    with pytest.raises(ValueError, match="shared_memory=False") as info:
        gymnasium.make_vec("bizsim/operation-v1", num_envs=2, vectorization_mode="async")
    assert "vector_kwargs" in str(info.value.__cause__)
    venv = gymnasium.make_vec("bizsim/operation-v1", num_envs=2, vectorization_mode="async",
                              vector_kwargs={"shared_memory": False})
    try:
        venv.reset(seed=[1, 2])
        first, *_ = venv.step(np.array([4, 4]))
        second, *_ = venv.step(np.array([4, 4]))
    finally:
        venv.close()
    assert '"current_day":1' in first[0] and '"current_day":2' in second[0] and first[0] != first[1]


def _benchmark_of(env) -> str:
    env.reset()
    return env.unwrapped.text.world.benchmark_id

"""The text stepping API: reset/step on every registered world, and the native trajectory from outside."""

from __future__ import annotations

import doctest
import weakref
from collections.abc import Callable
from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.surfaces import textenv
from bizsim.surfaces.textenv import TextEnv
from bizsim.models import make_world, world_class, world_names
from bizsim.simcore.errors import BizSimError

from . import strategies
from ._ecogym import operation_lines, render_vending, vending_actions

#: A short preset per world keeps each example quick (any preset a world offers works).
PRESETS = {"startup": "default", "operation": "default", "vending": "small"}


def _generic_lines(world: str) -> st.SearchStrategy[str]:
    cls = world_class(world)
    names = [spec.name for spec in cls.commands.visible()]
    return st.one_of(st.sampled_from(names), st.just(cls.advance_command), st.text(max_size=20))


def line_source(world: str) -> tuple[st.SearchStrategy[list[Any]], Callable[[Any, Any], list[str]]]:
    """Abstract action sequences for a world and how each becomes command lines against the live world.

    Worlds without their own strategies get their command names (no arguments), the advance command and noise.
    """
    if world == "startup":
        return strategies.action_sequences(max_size=20), strategies.render
    if world == "vending":
        return st.lists(vending_actions(), max_size=30), render_vending
    if world == "operation":
        return st.lists(operation_lines(), max_size=40), lambda w, line: [line]
    return st.lists(_generic_lines(world), max_size=40), lambda w, line: [line]


def native_run(world: str, seed: int, actions: list[Any], render: Callable) -> tuple[Any, list[str]]:
    """Run a native agent process that issues the rendered lines; return the world and the lines it issued."""
    w = make_world(world, PRESETS.get(world, "default"), seed)
    lines: list[str] = []

    def agent(w: Any):
        for action in actions:
            for line in render(w, action):
                if w.done:
                    return
                lines.append(line)
                out = w.execute(line, driven=True)
                if isinstance(out, simpy.Event):
                    yield out

    w.run(agent)
    return w, lines


def world_and_actions() -> st.SearchStrategy[tuple[str, int, list[Any]]]:
    """A registered world, a seed and an action sequence for it."""
    def for_world(name: str) -> st.SearchStrategy:
        actions, _ = line_source(name)
        return st.tuples(st.just(name), st.integers(0, 50), actions)
    return st.sampled_from(sorted(world_names())).flatmap(for_world)


@settings(max_examples=30)
@given(world_and_actions())
def test_text_api_gives_the_native_trajectory(case):
    """Stepping any world through TextEnv with a command sequence leaves the native agent's trajectory."""
    world, seed, actions = case
    native, lines = native_run(world, seed, actions, line_source(world)[1])
    env = TextEnv(world, PRESETS.get(world, "default"), seed=0)
    env.reset(seed=seed)
    for line in lines:
        obs = env.step(line)[0]
        assert isinstance(obs, str) and obs.isascii()
    assert native.trajectory.to_jsonl() == env.world.trajectory.to_jsonl()
    assert native.done == env.done


@pytest.mark.parametrize("world", sorted(world_names()))
def test_rewards_sum_to_the_change_of_the_metric(world):
    """The rewards of an episode add up to the final metric minus the initial one."""
    env = TextEnv(world, PRESETS.get(world, "default"), seed=3)
    env.reset()
    start = env.metric
    total = 0.0
    advance = world_class(world).advance_command
    for _ in range(30):
        _, reward, done, info = env.step(advance)
        total += reward
        assert info["metric"] == env.metric
        if done:
            break
    assert env.metric - start == pytest.approx(total)


def test_refusals_are_observations_and_change_nothing():
    """A bad line comes back as an error observation with zero reward."""
    env = TextEnv("vending", "small", seed=1)
    env.reset()
    obs, reward, done, info = env.step("order_place --items 'not json'")
    assert info["error"] and '"error"' in obs
    assert (0.0, False) == (reward, done)


def test_reset_replays_the_same_episode_and_seeds_change_it():
    """reset() without a seed repeats the last seed given (the constructor's at first); reset(seed) starts that
    seed's world and frees the previous one at once."""
    env = TextEnv("operation", seed=5)
    env.reset()
    a = [env.step(line)[0] for line in ("creator_incentive", "task_done", "task_done")]
    env.reset()
    b = [env.step(line)[0] for line in ("creator_incentive", "task_done", "task_done")]
    before = weakref.ref(env.world)
    env.reset(seed=6)
    assert before() is None
    c = [env.step(line)[0] for line in ("creator_incentive", "task_done", "task_done")]
    env.reset()
    assert 6 == env.seed and c == [env.step(line)[0] for line in ("creator_incentive", "task_done", "task_done")]
    assert a == b
    assert a != c


def test_step_before_reset_and_after_the_end_is_refused():
    """Stepping without an episode, or past its end, raises with the fix in the message."""
    env = TextEnv("operation", "default", seed=1)
    with pytest.raises(BizSimError, match="call reset"):
        env.step("task_done")
    env.reset()
    env.world.status = env.world.status.COLLAPSED  # end it without running a year
    with pytest.raises(BizSimError, match="call reset"):
        env.step("task_done")


def test_unknown_world_is_refused_at_construction():
    """A world name that is not registered fails at once, listing the registered ones."""
    with pytest.raises(BizSimError, match="choose one of"):
        TextEnv("nope")


def test_doctests():
    """The module's examples run."""
    assert 0 == doctest.testmod(textenv).failed


def test_a_world_without_a_prompt_of_its_own_is_introduced_by_its_role_and_commands():
    """prompt_text: a world whose system_prompt() is None opens with its agent_role, then its command help."""
    from bizsim.models.operation import OperationWorld

    class Plain(OperationWorld):
        agent_role = "You run a small test platform."

        def system_prompt(self):
            return None

    world = Plain("default", 1)
    text = textenv.prompt_text(world)
    assert text.startswith("You run a small test platform.\n\n") and world.commands.help_text() in text

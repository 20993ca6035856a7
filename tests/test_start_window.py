"""Start states and windows: where episodes begin, how long they last, and what their rewards add up to (every
reward mode of ``bizsim.runs.rewards``, the shaped one with each world's declared sub-metrics)."""

from __future__ import annotations

import pytest
from bizsim.agents.start import StartState, Window
from bizsim.runs.live import REWARDS
from bizsim.surfaces.textenv import TextEnv, metric_of
from bizsim.runs import run_episode
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.points import cut
from bizsim.simcore.snapshot import restore
from bizsim.simcore.registry import world_names, world_spec
from hypothesis import given, settings
from hypothesis import strategies as st

from .strategies import QUICK_AGENTS, reward_weights, script_lines, seeds, start_states, windows, world_scripts


def _potential(subs, weights, world):
    return sum(weights[s.name] * s.read(world) for s in subs)


@pytest.mark.parametrize("mode", REWARDS)
@pytest.mark.parametrize("name", world_names())
@settings(max_examples=3, deadline=None)
@given(data=st.data(), seed=seeds(30))
def test_a_windows_rewards_sum_to_the_metric_change_and_it_ends_on_time(name, mode, data, seed):
    """From any start state, any commands, any reward: the rewards of a window add up to the metric at its end
    minus the metric at its start (``terminal``: all of it on the last step; ``shaped``: plus ``sum_i w_i x`` the
    change of each sub-metric the world declares), the window ends at its length in turns or days (or when the world
    does), and ``shaped`` with every weight 0 is ``delta`` step for step."""
    subs = world_spec(name).sub_metrics
    start = data.draw(start_states(name), label="start")
    window = data.draw(windows(), label="window")
    given_weights = data.draw(reward_weights(name), label="weights") if mode == "shaped" else None
    weights = {s.name: s.weight for s in subs} | (given_weights or {})
    env = TextEnv(name, start.preset, seed, start=start, window=window, reward=mode, reward_weights=given_weights)
    try:
        env.reset()
    except ConfigError as exc:
        # Refused only where the policy's own run has ended by the point: no turn would be left to play.
        assert "no turn left to play" in str(exc) and start.snapshot_for(seed).log is not None
        assert restore(start.snapshot_for(seed)).done
        return
    # Beside every delta episode, its twin shaped with every weight 0, stepped with the same lines.
    twin = TextEnv(name, start.preset, seed, start=start, window=window, reward="shaped",
                   reward_weights=dict.fromkeys(weights, 0)) if mode == "delta" else None
    if twin is not None:
        twin.reset()
    assert not env.done  # an episode that resets is live: its first step is played, never "the episode has ended"
    first, rewards, done, info = env.metric, [], env.done, {"turns": 0, "truncated": False}
    first_potential = _potential(subs, weights, env.world)
    twin_rewards = []
    lines = script_lines(name, data.draw(world_scripts(name, max_turns=4), label="script"))
    # A startup world with no task refuses to advance, so a window in days may never end: the steps are capped.
    for line in lines + [env.world.advance_command] * 60:
        _, reward, done, info = env.step(line)
        rewards.append(reward)
        if twin is not None:
            twin_rewards.append(twin.step(line)[1])
        if done:
            break
    change = env.metric - first
    if mode == "delta" or (mode == "terminal" and done):  # paid when the episode ends, not while steps are capped
        assert sum(rewards) == pytest.approx(change, rel=1e-9, abs=1e-6)
    if mode == "delta":
        assert rewards == twin_rewards
    if mode == "terminal":
        assert [0.0] * (len(rewards) - 1) == rewards[:-1]
        assert rewards[-1] == pytest.approx(change if done else 0.0, rel=1e-9, abs=1e-6)
    if mode == "shaped":
        shaping = _potential(subs, weights, env.world) - first_potential
        # Each step adds rounding of the magnitudes it subtracts (cents, weights up to 1e6).
        scale = max(abs(first), abs(env.metric), abs(first_potential), abs(shaping), 1.0)
        assert sum(rewards) == pytest.approx(change + shaping, rel=1e-9, abs=1e-6 + 1e-14 * len(rewards) * scale)
    assert env.metric == metric_of(env.world)
    days = window.days_since(env.start_us, env.world.now_us)
    assert info["truncated"] == (done and not env.world.done)
    if info["truncated"]:
        assert (info["turns"] == window.turns) if window.turns else (days >= window.days)


@pytest.mark.parametrize("name", world_names())
def test_each_shaped_step_pays_the_metric_change_plus_the_weighted_sub_metric_changes(name):
    """Every world, after its default agent's first ten days: each shaped step (advances only) is the metric change
    plus each default weight times its sub-metric's change, and over the window the sub-metrics do move (so the
    property test above is not vacuous where its drawn scripts leave them still)."""
    spec = world_spec(name)
    start = StartState(name, agent=spec.default_agent, until={"day": 10})
    env = TextEnv(name, "default", 3, start=start, window={"days": 10}, reward="shaped")
    env.reset()
    first = [s.read(env.world) for s in spec.sub_metrics]
    subs = first
    for _ in range(60):
        metric = env.metric
        _, reward, done, _ = env.step(env.world.advance_command)
        now = [s.read(env.world) for s in spec.sub_metrics]
        shaping = sum(s.weight * (b - a) for s, a, b in zip(spec.sub_metrics, subs, now, strict=True))
        assert env.metric - metric + shaping == pytest.approx(reward, rel=1e-9, abs=1e-9)
        subs = now
        if done:
            break
    assert any(s.weight * (b - a) for s, a, b in zip(spec.sub_metrics, first, subs, strict=True))


@pytest.mark.parametrize("name", world_names())
def test_a_policy_start_is_the_policys_own_run_cut_at_the_point(name):
    """``StartState(agent=A, until=P)`` on seed s is A's whole run on s, cut at the first turn at or after P."""
    preset, agent = QUICK_AGENTS.get(name, (("default", world_spec(name).default_agent),))[0]
    full = run_episode(name, preset, agent, 3).final_world.snapshot()
    for point in ({"day": 20}, 7):
        start = StartState(name, preset=preset, agent=agent, until=point)
        k, _ = cut(full, point)
        assert full.log[:k] == start.snapshot_for(3).log
        assert full.prefix(k) == start.world(3).snapshot()


def test_several_points_spread_over_seeds_and_a_recorded_start_ignores_the_seed():
    """Seed s starts at point s % n; a recorded start is the same world whatever the seed."""
    start = StartState("operation", agent="round-robin", until=[{"day": 10}, {"day": 40}])
    assert [10, 40, 10] == [start.world(s).day for s in (2, 3, 4)]
    snap = start.snapshot_for(3)
    recorded = StartState.recorded(snap)
    assert snap == recorded.world(99).snapshot() == recorded.world(1).snapshot()


def test_bad_start_states_and_windows_are_refused_with_one_line():
    """A policy without a point, an unknown agent, an empty window: ConfigError naming the rule."""
    with pytest.raises(ConfigError, match="both agent and until"):
        StartState("startup", agent="planner")
    with pytest.raises(ConfigError, match="unknown agent"):
        StartState("startup", agent="nobody", until=3)
    with pytest.raises(ConfigError, match="one of them"):
        Window()
    with pytest.raises(ConfigError, match=">= 1"):
        Window(turns=0)


def test_the_gymnasium_driver_takes_the_same_start_state_and_window():
    """``BizSimEnv(start=..., window=...)`` starts at the point, truncates after the window, and its rewards sum
    to the metric change."""
    pytest.importorskip("gymnasium")
    from bizsim.surfaces.gym import BizSimEnv

    start = StartState("operation", agent="planner", until={"day": 100})
    env = BizSimEnv("operation", start=start, window={"days": 5})
    _, info = env.reset(seed=7)
    assert 100 == env.world.day
    total, truncated, steps = 0.0, False, 0
    while not truncated:
        _, reward, terminated, truncated, info = env.step(steps % 5)
        total += reward
        steps += 1
        assert not terminated
    assert 105 == env.world.day and total == pytest.approx(info["metric"] - metric_of(start.world(7)))


def test_a_start_at_the_worlds_end_is_refused_where_it_is_made():
    """A policy played to the horizon before its point reset into an episode that looked live and whose first step
    raised "the episode has ended (horizon_reached)"; the start is refused in one line at reset instead."""
    start = StartState("operation", agent="round-robin", until=[{"day": 10}, {"day": 100_000}])
    env = TextEnv("operation", "default", 3, start=start, window=Window(turns=1))
    with pytest.raises(ConfigError, match="reaches the world's end .horizon_reached. before .'day': 100000.*no turn "
                                          "left to play"):
        env.reset()
    env.reset(seed=2)  # seed 2 starts at day 10: a live episode
    assert not env.done and env.step(env.world.advance_command)[2] in (True, False)

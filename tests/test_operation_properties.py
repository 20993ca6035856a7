"""Properties of the operation world under arbitrary command sequences: determinism, replay, invariants."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bizsim.models.operation import PRESETS, OperationWorld
from bizsim.simcore.replay import replay

from ._ecogym import budget_respected, operation_lines, play, play_checked

SEEDS = st.integers(0, 10_000)
PRESET_NAMES = st.sampled_from(sorted(PRESETS))


def run_lines(preset: str, seed: int, lines: list[str]) -> OperationWorld:
    """A fresh world after ``lines``, checking invariants and refusals after each."""
    w = OperationWorld(preset, seed)
    for line in lines:
        if w.done:
            break
        play_checked(w, line)
    return w


@given(preset=PRESET_NAMES, seed=SEEDS, lines=st.lists(operation_lines(), max_size=40))
@settings(max_examples=40)
def test_same_seed_and_commands_give_the_same_trajectory(preset, seed, lines):
    """Two runs of the same lines on the same seed write byte-identical trajectories."""
    a, b = run_lines(preset, seed, lines), run_lines(preset, seed, lines)
    assert a.trajectory.to_jsonl() == b.trajectory.to_jsonl()
    assert a.state() == b.state()


@given(preset=PRESET_NAMES, seed=SEEDS, lines=st.lists(operation_lines(), max_size=40))
@settings(max_examples=40)
def test_replaying_the_command_log_reproduces_the_state(preset, seed, lines):
    """``replay(factory, command_log())`` ends in the same state, with the same accepted commands and reports."""
    w = run_lines(preset, seed, lines)
    again = replay(lambda: OperationWorld(preset, seed), w.command_log())
    assert w.state() == again.state()
    assert accepted(w) == accepted(again)


def accepted(world: OperationWorld) -> list:
    """Every record but the refusals of unparseable lines (the log keeps those lines only approximately)."""
    return [r for r in world.trajectory if r[2] != "?"]


@given(seed=SEEDS, lines=st.lists(operation_lines(), max_size=60))
@settings(max_examples=30)
def test_daily_budget_is_respected(seed, lines):
    """No day holds more than one accepted action, whatever is sent."""
    w = run_lines("default", seed, lines)
    assert budget_respected(w)
    assert w.actions_today <= 1


POLICY_DAY = st.sampled_from(["acquisition_boost", "engagement_tune", "creator_incentive", "moderation_tighten", None])


@given(seed=SEEDS, actions=st.lists(POLICY_DAY, min_size=365, max_size=365))
@settings(max_examples=10)
def test_a_whole_year_of_any_policy_keeps_the_bounds(seed, actions):
    """Any daily policy for a year keeps DAU >= 0 and the rates in [0, 1]; the year ends at the horizon or collapses."""
    w = OperationWorld("default", seed)
    for action in actions:
        if w.done:
            break
        if action:
            w.call(action)
        play(w, "task_done")
        assert [] == w.invariants()
        assert 0.1 <= w.content_quality <= 1 and 0.1 <= w.creator_activity <= 1 and w.content_volume >= 10
    assert w.done and w.status.value in ("horizon_reached", "collapsed")
    assert w.summary()["days"] == w.day

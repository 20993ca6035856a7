"""Properties of the freelance world under arbitrary command sequences: determinism, replay, invariants."""

from __future__ import annotations

import shlex

import attrs
from bizsim.models.freelance import PRESETS, FreelanceWorld
from bizsim.simcore import Status
from bizsim.simcore.replay import replay
from hypothesis import given, settings
from hypothesis import strategies as st

from ._ecogym import budget_respected, play_checked

SEEDS = st.integers(0, 10_000)
PRESET_NAMES = st.sampled_from(sorted(PRESETS))


def actions() -> st.SearchStrategy[tuple]:
    """One abstract freelance action; :func:`render` makes it a command line for the current pool."""
    return st.one_of(
        st.tuples(st.just("discover"), st.sampled_from(["free", "paid", "FREE", ""])),
        st.tuples(st.just("browse")),
        st.tuples(st.just("inspect"), st.integers(0, 12)),
        st.tuples(st.just("submit"), st.integers(0, 12), st.sampled_from(["right", "wrong", "empty", "code", "long"])),
        st.tuples(st.just("submit"), st.integers(0, 12), st.just("right")),
        st.tuples(st.just("rest"), st.sampled_from(["low", "medium", "high", "max"])),
        st.tuples(st.just("done"), st.integers(1, 6)),
        st.tuples(st.just("raw"), st.sampled_from(["help", "help --command solution_submit", "task_inspect --task-id 99999",
                                                   "solution_submit --task-id 1", "tasks_browse --all", "status", ""])),
        st.tuples(st.just("raw"), st.text(max_size=15)),
    )


def render(world: FreelanceWorld, action: tuple) -> list[str]:
    """The command lines an abstract action stands for (reads the pool; issues nothing)."""
    kind = action[0]
    pool = world.pool
    if kind == "discover":
        return [f"tasks_discover --refresh-type {shlex.quote(action[1])}"]
    if kind == "browse":
        return ["tasks_browse"]
    if kind in ("inspect", "submit"):
        tid = str(pool[action[1] % len(pool)]) if pool else "7"
        if kind == "inspect":
            return [f"task_inspect --task-id {tid}"]
        text = {"right": world.answer_of(tid) if tid.isdigit() else "1", "wrong": "-123456.5", "empty": " ",
                "code": "__import__('os').getcwd()", "long": "x" * 20_001}[action[2]]
        return [f"solution_submit --task-id {tid} --solution-text {shlex.quote(text)}"]
    if kind == "rest":
        return [f"energy_restore --level {action[1]}"]
    if kind == "done":
        return ["task_done"] * action[1]
    return [action[1]]


def run_actions(preset: str, seed: int, acts: list[tuple], **changes) -> FreelanceWorld:
    """A fresh world after ``acts``, checking invariants and refusals after each line."""
    w = FreelanceWorld(attrs.evolve(PRESETS[preset], **changes) if changes else preset, seed)
    for act in acts:
        for line in render(w, act):
            if w.done:
                return w
            play_checked(w, line)
    return w


@given(preset=PRESET_NAMES, seed=SEEDS, acts=st.lists(actions(), max_size=30))
@settings(max_examples=25, deadline=None)
def test_same_seed_and_commands_give_the_same_trajectory(preset, seed, acts):
    """Two runs of the same actions on the same seed write byte-identical trajectories."""
    a, b = run_actions(preset, seed, acts), run_actions(preset, seed, acts)
    assert a.trajectory.to_jsonl() == b.trajectory.to_jsonl()
    assert a.state() == b.state()


@given(preset=PRESET_NAMES, seed=SEEDS, acts=st.lists(actions(), max_size=30))
@settings(max_examples=25, deadline=None)
def test_replaying_the_command_log_reproduces_the_state(preset, seed, acts):
    """``replay(factory, command_log())`` ends in the same state."""
    w = run_actions(preset, seed, acts)
    again = replay(lambda: FreelanceWorld(preset, seed), w.command_log())
    assert w.state() == again.state()


@given(preset=PRESET_NAMES, seed=SEEDS, acts=st.lists(actions(), max_size=60),
       energy=st.integers(1, 100), stress=st.integers(0, 99), money=st.integers(1, 5000))
@settings(max_examples=40, deadline=None)
def test_invariants_hold_from_any_start(preset, seed, acts, energy, stress, money):
    """From any start, energy and stress stay in bounds while the career runs, cash is conserved, at most three
    submissions a day, the pool never exceeds its cap, and the budget is respected; an ended career names its
    reason."""
    w = run_actions(preset, seed, acts, initial_energy=energy, initial_stress=stress, initial_money_cents=money * 100)
    assert budget_respected(w)
    if w.done:
        assert w.status in (Status.BANKRUPT, Status.COLLAPSED, Status.HORIZON)
        assert w.terminal_detail in ("bankruptcy", "exhaustion", "burnout", "horizon_reached")
    else:
        assert 0 < w.energy <= 100 and 0 <= w.stress < 100 and w.money_cents > 0


@given(seed=SEEDS, acts=st.lists(actions(), max_size=30))
@settings(max_examples=20, deadline=None)
def test_different_tasks_for_different_seeds_same_for_task_seed(seed, acts):
    """A fixed ``task_seed`` gives every episode seed the same task bank."""
    cfg = attrs.evolve(PRESETS["default"], task_seed=11)
    a, b = FreelanceWorld(cfg, seed), FreelanceWorld(cfg, seed + 1)
    assert [a.tasks[i].question for i in range(5)] == [b.tasks[i].question for i in range(5)]

"""Properties of the startup world under arbitrary agent input: robustness, invariants, determinism."""

from __future__ import annotations

import json

import simpy
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from bizsim.models.startup import StartupWorld
from bizsim.simcore import Status

from ._helpers import start
from .strategies import action_sequences, actions, command_lines, presets, render, seeds


def check_result(world: StartupWorld, line: str, before: dict) -> None:
    """Run ``line``; a refusal is {"error", "hint"?} and changes nothing; a result is JSON; an advance completes."""
    out = world.execute(line)
    if isinstance(out, simpy.Event):
        t0 = world.now_us
        world.env.run(until=out)
        report = out.value
        assert isinstance(report, dict)
        assert world.now_us >= t0
        json.dumps(report, allow_nan=False)
        return
    assert isinstance(out, dict)
    if "error" in out:
        assert set(out) <= {"error", "hint"}
        assert isinstance(out["error"], str) and out["error"]
        assert before == world.state()
    else:
        json.dumps(out, allow_nan=False)


@given(line=command_lines())
@settings(max_examples=150)
def test_any_text_is_answered_on_a_fresh_world(line):
    """Any text (random, near-miss or well-shaped) gets a result or an error and never raises."""
    w = StartupWorld("default", 1)
    check_result(w, line, w.state())
    assert [] == w.invariants()


@given(line=command_lines())
@settings(max_examples=100)
def test_any_text_is_answered_on_a_busy_world(line):
    """With a task in progress too, any text is answered, resumes included, and the world stays sound."""
    w = StartupWorld("default", 1)
    start(w, "Task-42", "Emp_1,Emp_4,Emp_7")
    check_result(w, line, w.state())
    assert [] == w.invariants()


@given(lines=st.lists(command_lines(), max_size=6), seed=seeds(20))
@settings(max_examples=40)
def test_text_sequences_keep_the_world_sound(lines, seed):
    """A sequence of arbitrary lines never raises and keeps every invariant."""
    w = StartupWorld("default", seed)
    for line in lines:
        check_result(w, line, w.state())
        assert [] == w.invariants()


class StartupMachine(RuleBasedStateMachine):
    """An agent issuing valid-ish commands (from what the world shows) interleaved with resumes."""

    def __init__(self) -> None:
        super().__init__()
        self.world = StartupWorld("default", 1)
        self.last_us = 0

    @initialize(preset=presets(), seed=seeds(50))
    def build(self, preset: str, seed: int) -> None:
        self.world = StartupWorld(preset, seed)

    @rule(action=actions())
    def act(self, action: tuple) -> None:
        for line in render(self.world, action):
            check_result(self.world, line, self.world.state())

    @rule(pick=st.integers(0, 5), team=st.sets(st.integers(1, 10), min_size=1), times=st.integers(1, 12))
    def work(self, pick: int, team: set[int], times: int) -> None:
        """Start one of the best acceptable tasks, then resume a few times."""
        for line in render(self.world, ("start", pick, sorted(team), True)):
            check_result(self.world, line, self.world.state())
        self.resume(times)

    @rule(times=st.integers(1, 12))
    def resume(self, times: int) -> None:
        for _ in range(times):
            out = self.world.execute("sim resume")
            if not isinstance(out, simpy.Event):
                assert "error" in out
                return
            self.world.env.run(until=out)
            assert {"ok", "new_sim_time", "wake_events", "terminal_reason"} <= set(out.value)
            assert (out.value["terminal_reason"] is not None) == self.world.done

    @invariant()
    def sound(self) -> None:
        assert [] == self.world.invariants()

    @invariant()
    def time_moves_forward(self) -> None:
        assert self.world.now_us >= self.last_us
        self.last_us = self.world.now_us

    @invariant()
    def payroll_on_every_month_start_so_far(self) -> None:
        w = self.world
        rows: dict[int, int] = {}
        for e in w.ledger:
            if e.category == "monthly_payroll":
                rows[e.t_us] = rows.get(e.t_us, 0) + 1
        # Every first-weekday 09:00 up to and including now (+1 µs: month_starts stops before a 1st at opening).
        assert w.calendar.month_starts(0, w.now_us + 1) == sorted(rows)
        assert all(n == len(w.employees) for n in rows.values())

    @invariant()
    def observations_agree_with_the_state(self) -> None:
        w = self.world
        if w.done:
            return
        status = w.execute("company status")
        by_status = {s: sum(1 for t in w.tasks if t.status == s) for s in ("planned", "active", "cancelled")}
        done = sum(1 for t in w.tasks if t.status in ("completed_success", "completed_fail"))
        assert {**by_status, "completed": done} == status["tasks"]
        assert (w.funds_cents, w.monthly_payroll_cents) == (status["funds_cents"], status["monthly_payroll_cents"])
        listed = w.execute("task list")
        owned = sorted(t.title for t in w.tasks if t.accepted_at is not None)
        assert owned == sorted(r["task_id"] for r in listed["tasks"])

    @invariant()
    def the_end_is_final(self) -> None:
        w = self.world
        if w.done:
            assert w.status in (Status.BANKRUPT, Status.HORIZON)
            assert (w.funds_cents < 0) == (w.status is Status.BANKRUPT)
            assert "error" in w.execute("company status")


TestStartupMachine = StartupMachine.TestCase
TestStartupMachine.settings = settings(max_examples=25, stateful_step_count=30)


def play(preset: str, seed: int, sequence: list[tuple]) -> tuple[StartupWorld, list[str]]:
    """Run a sequence of actions on a fresh world; the world and the lines sent."""
    w = StartupWorld(preset, seed)
    sent = []
    for action in sequence:
        for line in render(w, action):
            sent.append(line)
            out = w.execute(line)
            if isinstance(out, simpy.Event):
                w.env.run(until=out)
    return w, sent


@given(preset=presets(), seed=seeds(50), sequence=action_sequences())
@settings(max_examples=20)
def test_same_seed_and_commands_give_the_same_episode(preset, seed, sequence):
    """Same preset, seed and commands give byte-identical trajectories and equal states."""
    a, sent_a = play(preset, seed, sequence)
    b, sent_b = play(preset, seed, sequence)
    assert sent_a == sent_b
    assert a.trajectory.to_jsonl().encode() == b.trajectory.to_jsonl().encode()
    assert a.state() == b.state()
    json.dumps(a.state(), allow_nan=False)


@given(sequence=action_sequences(min_size=5))
@settings(max_examples=10)
def test_command_lines_replay_to_the_same_episode(sequence):
    """Sending the recorded lines alone to a fresh world reproduces the episode (no hidden state in rendering)."""
    a, sent = play("default", 1, sequence)
    b = StartupWorld("default", 1)
    for line in sent:
        out = b.execute(line)
        if isinstance(out, simpy.Event):
            b.env.run(until=out)
    assert a.trajectory.to_jsonl() == b.trajectory.to_jsonl()
    assert a.state() == b.state()


_RUN_YEAR = """
import hashlib
from bizsim.agents import make_agent
from bizsim.models.startup import StartupWorld
w = StartupWorld("default", 3)
w.run(make_agent("startup", "random", {"seed": 11}))
print(hashlib.sha256(w.trajectory.to_jsonl().encode()).hexdigest(), w.funds_cents)
"""


def test_episodes_do_not_depend_on_the_process():
    """Two interpreters with different hash seeds play the same episode to the byte (no set or dict-order leaks)."""
    import os
    import subprocess
    import sys

    def run(hash_seed: str) -> str:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", _RUN_YEAR], env=env, capture_output=True, text=True, timeout=120)
        assert 0 == done.returncode, done.stderr
        return done.stdout

    assert run("1") == run("2")

"""The startup planner: strong play on ``default``, only visible commands, deterministic, sane everywhere."""

from __future__ import annotations

import doctest
import importlib
import itertools
import json
import statistics
from collections.abc import Callable
from typing import Any

import pytest

import bizsim.agents.startup.planner
from bizsim.agents import make_agent, planner
from bizsim.runs import run_episode
from bizsim.models.startup import StartupWorld
from bizsim.models.startup.commands import COMMANDS
from bizsim.simcore import CommandError, ConfigError, Status
from bizsim.simcore.driver import Driver

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("startup_planner")


SEEDS = range(1, 11)
VISIBLE = {spec.name for spec in COMMANDS.visible()}


class OutsideView:
    """All an outside agent has: command lines in, JSON out, and whether the episode ended.

    Built on the kernel's :class:`Driver`, so the planner runs here without SimPy; any attribute other than
    ``call``, ``execute``, ``advance`` and ``done`` does not exist.
    """

    __slots__ = ("_driver", "lines")

    def __init__(self, world: StartupWorld) -> None:
        self._driver = Driver(world)
        self.lines: list[str] = []

    @property
    def done(self) -> bool:
        return self._driver.done

    def execute(self, line: str) -> dict:
        self.lines.append(line)
        return json.loads(json.dumps(self._driver.send(line)))

    def call(self, name: str, **kwargs: Any) -> dict:
        spec = COMMANDS[name]
        out = self.execute(spec.to_line(spec.bind_json(kwargs)))
        if "error" in out:
            raise CommandError(out["error"], out.get("hint"))
        return out

    def advance(self) -> dict:
        return self.execute("sim resume")


def drive_from_outside(world: StartupWorld, agent: Callable[[Any], Any]) -> OutsideView:
    """Run ``agent`` on ``world`` through an :class:`OutsideView`, feeding each resume report back to it."""
    view = OutsideView(world)
    gen = agent(view)
    report = None
    while True:
        try:
            report = gen.send(report)
        except StopIteration:
            return view


@pytest.fixture(scope="module")
def ten_seeds() -> dict[int, tuple[Any, Any]]:
    """Greedy and the planner on preset ``default``, seeds 1-10: ``seed -> (greedy, planner)`` results."""
    runs = {s: (run_episode("startup", "default", "greedy", s), run_episode("startup", "default", "planner", s))
            for s in SEEDS}
    print("\nseed      greedy $     planner $")
    for s, (g, p) in runs.items():
        print(f"{s:>4} {g.final_funds_cents / 100:>12,.2f} {p.final_funds_cents / 100:>13,.2f}")
    return runs


def test_planner_clears_a_million_and_beats_greedy_on_every_seed(ten_seeds):
    """On ``default``, seeds 1-10: never bankrupt, mean final funds >= $1,000,000, above greedy on each seed."""
    assert [] == [s for s, (_, p) in ten_seeds.items() if p.bankrupt or p.terminal_reason != "horizon_end"]
    assert statistics.mean(p.final_funds_cents for _, p in ten_seeds.values()) >= 100_000_000
    assert [] == [s for s, (g, p) in ten_seeds.items() if p.final_funds_cents <= g.final_funds_cents]


def test_planner_misses_no_deadline_and_never_splits_anyone(ten_seeds):
    """Every task it dispatches succeeds, teams stay within four, and nobody works on two tasks at once."""
    for _, p in ten_seeds.values():
        world = p.final_world
        assert 0 == p.tasks_failed
        done = [t for t in world.tasks if t.status == "completed_success"]
        assert all(1 <= len(t.assignees) <= 4 for t in done)
        for e in world.employees:
            spans = sorted((at, t.completed_at) for t in done for x, at in zip(t.assignees, t.assigned_at) if x is e)
            assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans))


def test_planner_drops_adversarial_work_at_once(ten_seeds):
    """What it cancels is an adversarial client's inflated task, cancelled the instant it was accepted."""
    for _, p in ten_seeds.values():
        cancelled = [t for t in p.final_world.tasks if t.status == "cancelled"]
        assert cancelled and all(t.client.adversarial and not t.assignees for t in cancelled)
        assert not [t for t in p.final_world.tasks if t.client.adversarial and t.status.startswith("completed")]


@pytest.mark.parametrize("seed", [3, 8])
def test_planner_sees_only_command_output(ten_seeds, seed):
    """Driven from outside with JSON copies of command output, it plays exactly its native game.

    So it reads no hidden state: the outside view has nothing else to read.
    """
    outside = StartupWorld("default", seed)
    view = drive_from_outside(outside, planner)
    assert ten_seeds[seed][1].final_world.trajectory.to_jsonl() == outside.trajectory.to_jsonl()
    assert {COMMANDS.parse(line)[0].name for line in view.lines} <= VISIBLE


@pytest.mark.parametrize("preset", ["tutorial", "easy", "hard", "nightmare", "reference"])
def test_planner_plays_every_preset_to_the_end(preset):
    """On every preset it runs until the horizon or a bankruptcy, leaving a sound world and using visible commands."""
    result = run_episode("startup", preset, "planner", 1)
    world = result.final_world
    assert world.status in (Status.HORIZON, Status.BANKRUPT)
    assert [] == world.invariants()
    assert {r[2] for r in world.trajectory if r[1] == "cmd"} <= VISIBLE


def test_planner_is_deterministic(ten_seeds):
    """The same seed and options give the same trajectory; other options give another game."""
    def play(**options: Any) -> str:
        world = StartupWorld("default", 5)
        world.run(make_agent("startup", "planner", options))
        return world.trajectory.to_jsonl()

    first = ten_seeds[5][1].final_world.trajectory.to_jsonl()
    assert first == play()
    assert first != play(max_concurrent=8)


def test_planner_options_are_checked():
    """Out-of-range options are refused with the value and the rule; unknown ones list the known ones."""
    world = StartupWorld("default", 1)
    with pytest.raises(ConfigError, match=r"max_concurrent\(=0\) must be >= 1"):
        planner(world, max_concurrent=0)
    with pytest.raises(ConfigError, match=r"safety_margin\(=1.5\) must be in \[0, 1\)"):
        planner(world, safety_margin=1.5)
    with pytest.raises(ConfigError, match=r"pad_teams\(='yes'\) must be true or false"):
        planner(world, pad_teams="yes")
    with pytest.raises(ConfigError, match="its options: max_concurrent, safety_margin, max_team, pad_teams"):
        make_agent("startup", "planner", {"speed": 2})


def test_planner_doctests():
    """The module's examples run."""
    failed, tried = doctest.testmod(importlib.import_module("bizsim.agents.startup.planner"))
    assert 0 == failed and tried > 0

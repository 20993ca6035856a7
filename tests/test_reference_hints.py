"""The hint under a run without reference figures names only an agent the world has, and never the run just made."""

from __future__ import annotations

import attrs
import pytest
from bizsim.analysis.reference_figures import beside
from bizsim.simcore import registry


def _shown(value: float) -> str:
    return f"{value:.0f}"


@pytest.fixture
def world_without_a_planner():
    spec = attrs.evolve(registry.world_spec("operation"), name="noplanner",
                        agents={"threshold": "bizsim.agents.operation:threshold"}, default_agent="threshold")
    registry.register(spec)
    yield spec
    registry.unregister("noplanner")


def test_a_world_without_a_planner_is_not_told_to_run_one(world_without_a_planner):
    (line,) = beside("noplanner-v1", "default", 1, "llm", _shown)
    assert "--agent threshold" in line and "--agent planner" not in line
    assert ["beside it: no reference figures for noplanner-v1 preset default"] == beside(
        "noplanner-v1", "default", 1, "threshold", _shown)


def test_the_hint_never_repeats_the_run_just_made():
    (planner_run,) = beside("startup-v2", "hard", 1, "planner", _shown)
    assert "--agent greedy" in planner_run and "--agent planner" not in planner_run
    (greedy_run,) = beside("startup-v2", "hard", 1, "greedy", _shown)
    assert "`bizsim run startup-v2 --preset hard --agent planner --seed 1`" in greedy_run

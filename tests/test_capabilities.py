"""Agents declare what a run must do for them (capabilities); the run pipeline reads those, never an agent's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from bizsim.agents import agent
from bizsim.agents.declare import CAPABILITIES
from bizsim.runs.runspec import RunSpec, agent_capabilities, records_calls
from bizsim.simcore.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent


def test_the_llm_agent_declares_every_capability_and_a_baseline_none():
    """The LLM agent records calls, plays roles and takes run options; greedy needs nothing of the run."""
    assert CAPABILITIES == agent_capabilities("freelance", "llm")
    assert frozenset() == agent_capabilities("startup", "greedy")
    assert records_calls(RunSpec("startup", "default", "llm", 1))
    assert not records_calls(RunSpec("startup", "default", "planner", 1))


def test_an_unknown_capability_is_refused():
    """A misspelt capability is a ConfigError naming the known ones, not a silently ignored flag."""
    with pytest.raises(ConfigError, match="unknown agent capabilities records_call; known: has_roles, records_calls"):
        agent(lambda world: iter(()), name="x", capabilities={"records_call"})


def test_an_unknown_agent_declares_nothing():
    """A name the world does not offer has no capabilities; the run's own check names the problem."""
    assert frozenset() == agent_capabilities("startup", "no-such-agent")
    with pytest.raises(ConfigError, match="unknown agent 'no-such-agent'"):
        RunSpec("startup", "default", "no-such-agent", 1).check()


def test_the_run_pipeline_names_no_agent():
    """runs/ and the commands decide by capability: no module compares an agent with the name 'llm'."""
    found = []
    for path in sorted([*(ROOT / "runs").rglob("*.py"), *(ROOT / "cli").rglob("*.py")]):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if "agent" in line and ('== "llm"' in line or '!= "llm"' in line):
                found.append(f"{path.relative_to(ROOT)}:{i}")
    assert [] == found

"""A run builds its world once: an LLM run (and a fork of one) plays on the world it records in run.json."""

from __future__ import annotations

import pytest

from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.models.startup import StartupWorld
from bizsim.runs import RunSpec, run_episode, run_llm

from .llm_policies import greedy_policy


@pytest.fixture
def built(monkeypatch):
    """Counts every StartupWorld constructed."""
    count = [0]
    init = StartupWorld.__init__

    def counting(self, *args, **kwargs):
        count[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(StartupWorld, "__init__", counting)
    return count


def test_an_llm_run_builds_one_world(built, tmp_path):
    """A whole LLM startup year, recorded to a run directory, constructs exactly one world."""
    spec = RunSpec("startup", "default", "llm", 1, agent_options=LLMAgentConfig(model="scripted"))
    result = run_llm(spec, out=tmp_path / "run", client=ScriptedClient(greedy_policy))
    assert (1, 42029521) == (built[0], result.episode.final_funds_cents)


def test_a_baseline_run_builds_one_world(built, tmp_path):
    """The baseline path too: one world for one episode, written out."""
    run_episode("startup", "default", "greedy", 1, out=tmp_path / "run")
    assert 1 == built[0]

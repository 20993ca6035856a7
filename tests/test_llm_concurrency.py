"""Many LLM episodes at once: a per-endpoint limit on requests in flight, results as if run one by one."""

from __future__ import annotations

import pytest
from bizsim.agents.llm import EndpointLimiter, LLMAgentConfig, ScriptedClient
from bizsim.runs import RunSpec, run_llm, run_llm_episodes
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy


def _spec(seed: int) -> RunSpec:
    return RunSpec("startup", agent="llm", seed=seed, agent_options=LLMAgentConfig(model="scripted", max_turns=12))


def test_concurrent_runs_respect_the_endpoint_limit_and_match_sequential_runs(tmp_path):
    """Six runs on one endpoint, at most two requests in flight; each result equals its run alone."""
    clients = [ScriptedClient(greedy_policy, endpoint="shared", delay_s=0.01) for _ in range(6)]
    limiter = EndpointLimiter(2)
    specs = [_spec(seed) for seed in range(1, 7)]
    results = run_llm_episodes(specs, outs=[tmp_path / f"run{seed}" for seed in range(1, 7)], clients=clients,
                               limiter=limiter)
    alone = [run_llm(_spec(seed), client=ScriptedClient(greedy_policy)) for seed in range(1, 7)]
    assert [r.record() for r in alone] == [r.record() for r in results]
    assert [1, 2, 3, 4, 5, 6] == [r.episode.seed for r in results]
    assert 1 <= limiter.peak["shared"] <= 2
    assert all((tmp_path / f"run{seed}" / "result.json").exists() for seed in range(1, 7))


def test_endpoints_have_separate_limits():
    """Runs on different endpoints do not wait for each other's slots."""
    limiter = EndpointLimiter(1)
    clients = [ScriptedClient(greedy_policy, endpoint=f"ep{i % 2}", delay_s=0.01) for i in range(4)]
    run_llm_episodes([_spec(s) for s in range(1, 5)], clients=clients, limiter=limiter)
    assert {"ep0": 1, "ep1": 1} == limiter.peak


def test_runs_need_their_own_directories(tmp_path):
    """Two runs writing one directory are refused before anything starts."""
    with pytest.raises(ConfigError, match="share output directories"):
        run_llm_episodes([_spec(1), _spec(2)], outs=[tmp_path, str(tmp_path)])

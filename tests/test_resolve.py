"""A run is resolved once: one registry lookup and one seed check per run, whichever way it is started."""

from __future__ import annotations

import collections
import subprocess
import sys

import pytest
from bizsim.runs import runspec
from bizsim.runs.pipeline import execute
from bizsim.runs.recorder import NullRecorder, RunDirRecorder
from bizsim.runs.resolve import resolve
from bizsim.runs.runspec import RunSpec
from bizsim.simcore import registry
from bizsim.simcore.errors import ConfigError


@pytest.fixture
def counted(monkeypatch):
    """Counts of registry lookups (every lookup goes through ``_discover``) and of seed checks."""
    counts: collections.Counter[str] = collections.Counter()
    discover, check_seed = registry._discover, runspec.check_seed

    def looked_up() -> None:
        counts["lookups"] += 1
        discover()

    def seed_checked(seed: int) -> None:
        counts["seeds"] += 1
        check_seed(seed)

    monkeypatch.setattr(registry, "_discover", looked_up)
    monkeypatch.setattr(runspec, "check_seed", seed_checked)
    return counts


def test_the_cli_run_looks_the_world_up_once_and_checks_the_seed_once(counted, tmp_path, capsys):
    from bizsim.cli.main import main

    # --json: the summary's comparison with the world's reference figures reads the registry after the run
    assert 0 == main(["run", "startup", "--agent", "greedy", "--seed", "2", "--out", str(tmp_path / "r"),
                      "--no-progress", "--json"])
    assert {"lookups": 1, "seeds": 1} == dict(counted)
    assert '"terminal_reason": "horizon_end"' in capsys.readouterr().out


def test_a_sweep_worker_looks_the_world_up_once_and_checks_the_seed_once(counted):
    from bizsim.runs._worker import record_run as run_in_worker

    spec = RunSpec("vending", "default", "markup", 3).to_dict()
    counted.clear()
    record = run_in_worker(spec)
    assert "ok" == record["status"]
    assert {"lookups": 1, "seeds": 1} == dict(counted)


def test_a_resolved_run_is_not_looked_up_again(counted):
    spec = RunSpec("operation", "default", "threshold", 1)
    counted.clear()
    result = execute(resolve(spec), NullRecorder())
    assert "horizon_end" == result.terminal_reason
    assert {} == dict(counted)


def test_roles_are_data_any_world_may_declare():
    run = resolve(RunSpec("freelance", "default", "llm", 1,
                          agent_options={"model": "openai/x", "auditor": "llm", "max_episodes": 2}))
    assert ({"auditor": "llm"}, {"model": "openai/x"}, 2) == (run.roles, run.agent_options, run.max_episodes)
    left = resolve(RunSpec("freelance", "default", "llm", 1, agent_options={"model": "openai/x",
                                                                              "auditor": "deterministic"}))
    assert {} == left.roles
    with pytest.raises(ConfigError, match="auditor role; world 'startup' has none"):
        resolve(RunSpec("startup", "default", "llm", 1, agent_options={"model": "openai/x", "auditor": "llm"}))
    with pytest.raises(ConfigError, match="must be one of deterministic, llm"):
        resolve(RunSpec("freelance", "default", "llm", 1, agent_options={"model": "openai/x", "auditor": "gpt"}))
    with pytest.raises(ConfigError, match="has no option"):  # a role's player is a run setting of agents that declare them
        resolve(RunSpec("freelance", "default", "cautious", 1, agent_options={"auditor": "llm"}))


def test_budgets_are_read_from_the_agents_options():
    run = resolve(RunSpec("startup", "default", "llm", 1,
                          agent_options={"model": "openai/x", "max_turns": 7, "max_cost_usd": 1.5}))
    assert (7, None, 1.5) == (run.budgets.max_turns, run.budgets.max_tokens_total, run.budgets.max_cost_usd)


def test_resolving_a_model_run_builds_no_agent_and_loads_no_litellm(monkeypatch):
    from bizsim.agents.llm import LLMAgent

    def refuse(*args, **kwargs):
        raise AssertionError("resolve built an LLMAgent")

    monkeypatch.setattr(LLMAgent, "__init__", refuse)
    assert {"model": "openai/x"} == resolve(RunSpec("startup", "default", "llm", 1,
                                                    agent_options={"model": "openai/x"})).agent_options
    code = ("import sys; from bizsim.runs.resolve import resolve; from bizsim.runs.runspec import RunSpec;"
            "resolve(RunSpec('startup', 'default', 'llm', 1, agent_options={'model': 'openai/x', 'max_turns': 3}));"
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert "False" == out.stdout.strip()


def test_a_bad_option_is_refused_when_resolved_not_when_run():
    with pytest.raises(ConfigError, match="max_turns"):
        resolve(RunSpec("startup", "default", "llm", 1, agent_options={"model": "openai/x", "max_turns": 0}))
    with pytest.raises(ConfigError, match="no option"):
        resolve(RunSpec("startup", "default", "greedy", 1, agent_options={"nope": 1}))


def test_a_recorder_refuses_an_occupied_directory_before_the_run(tmp_path):
    execute(resolve(RunSpec("startup", "default", "greedy", 1)), RunDirRecorder(tmp_path / "r"))
    with pytest.raises(ConfigError, match="already holds a run"):
        execute(resolve(RunSpec("startup", "default", "random", 1)), RunDirRecorder(tmp_path / "r"))
    again = execute(resolve(RunSpec("startup", "default", "random", 1)), RunDirRecorder(tmp_path / "r", overwrite=True))
    assert "random" == again.agent

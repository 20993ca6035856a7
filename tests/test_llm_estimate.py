"""Knowing the bill before paying it: --estimate, and --max-cost-usd across a whole sweep."""

from __future__ import annotations

import json

import pytest

from .llm_server import needs_litellm

pytestmark = pytest.mark.xdist_group("llm_estimate")

needs_litellm()

from bizsim.runs import RunSpec, run_llm, sweep
from bizsim.runs.llm_estimate import estimate_run
from bizsim.cli.main import main
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy
from .llm_server import LoopbackLLMServer

MODEL = "openai/gpt-4o-mini"
KEY_ENV = "BIZSIM_LOOPBACK_KEY"


def test_the_estimate_of_a_scripted_year_is_within_20_percent_of_what_the_run_uses(tmp_path, monkeypatch):
    """The estimate for a YC-Bench year, made offline, is within 20 % of the tokens the same run then reports
    through litellm and HTTP (played by the tests' own greedy policy, not the estimator's), and the run's calls
    fall in the estimate's range; its dollars are the price map's for those tokens."""
    monkeypatch.setenv(KEY_ENV, "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, lifetime_s=240) as server:
        spec = RunSpec("startup", "default", "llm", 2, agent_options={
            "model": MODEL, "api_base": server.url, "api_key_env": KEY_ENV})
        estimate = estimate_run(spec)
        assert 0 == server.requests  # the estimate calls no model
        result = run_llm(spec, out=tmp_path / "run")
    used = result.llm["total"]
    assert abs(estimate.tokens - used["total_tokens"]) <= 0.2 * used["total_tokens"]
    assert estimate.calls_low <= used["turns"] <= estimate.calls_high
    assert estimate.tokens_low <= estimate.tokens <= estimate.tokens_high
    assert pytest.approx(used["cost_usd"], rel=0.2) == estimate.cost_usd
    assert "litellm" == estimate.price_source


def test_run_estimate_prints_and_runs_nothing(tmp_path, capsys, monkeypatch):
    """`bizsim run --agent llm --estimate` needs no key, calls nothing, writes nothing, and prints calls, tokens
    and dollars with their range; --max-turns caps the range."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    rc = main(["run", "startup", "--agent", "llm", "--model", MODEL, "--max-turns", "30", "--estimate",
               "--out", str(tmp_path / "run"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert 0 == rc and not (tmp_path / "run").exists()
    assert (30, 30, 30) == (out["calls"], out["calls_low"], out["calls_high"]) and out["cost_usd"] > 0
    rc = main(["run", "startup", "--agent", "llm", "--model", "openai/loopback-unpriced", "--estimate"])
    text = capsys.readouterr().out
    assert 0 == rc and "unknown (unknown-unknown)" in text and "calls (" in text


def test_a_sweep_cap_stops_new_calls_and_a_raised_cap_goes_on(tmp_path, monkeypatch, capsys):
    """With --max-cost-usd no model call starts once the sweep has paid that much (over by at most the one call in
    flight with --concurrency 1); the runs it stopped stay to do, and the same sweep with a higher cap finishes them
    from their run directories, every call answered once."""
    monkeypatch.setenv(KEY_ENV, "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, lifetime_s=240) as server:
        args = ["sweep", "--world", "startup", "--agent", "llm", "--seeds", "1-4", "--out", str(tmp_path / "sw"),
                "--backend", "serial", "--no-progress", "--no-preflight", "--concurrency", "1",
                "--agent-opt", f"model={MODEL}", "--agent-opt", f"api_base={server.url}",
                "--agent-opt", f"api_key_env={KEY_ENV}", "--agent-opt", "max_turns=3",
                "--agent-opt", 'prices={"openai/gpt-4o-mini": [100, 100]}']
        assert 0 == main([*args, "--max-cost-usd", "0.5"])
        first = capsys.readouterr().out
        paid = [(u["prompt_tokens"] + u["completion_tokens"]) * 100 / 1e6 for u in server.usages]
        assert 0.5 <= sum(paid) <= 0.5 + max(paid)  # the cap stopped new calls, no sooner, over by one call at most
        lines = (tmp_path / "sw" / "results.jsonl").read_text().splitlines()
        held = 4 - len(lines)
        assert held > 0 and f"{held} runs held back" in first
        assert 0 == main([*args, "--max-cost-usd", "100"])
        second = capsys.readouterr().out
        assert 12 == server.policy_calls  # 4 runs x 3 turns: the calls paid before the cap were not paid again
    assert f"{held} run now (0 failed), {len(lines)} already done" in second
    assert lines == (tmp_path / "sw" / "results.jsonl").read_text().splitlines()[:len(lines)]


def test_a_sweep_cap_needs_priced_models(tmp_path, monkeypatch):
    """A cap over a model no price map knows is refused before anything runs."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the key check comes first; the price is what this test is about
    spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "openai/loopback-unpriced"})
    with pytest.raises(ConfigError, match=r"max_cost_usd\(=5.0\) needs a price for model 'openai/loopback-unpriced'"):
        sweep([spec], tmp_path, backend="serial", progress=False, preflight=False, max_cost_usd=5.0)
    assert not (tmp_path / "results.jsonl").read_text()

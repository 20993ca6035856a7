"""LLM runs in the result tables: a sweep of the LLM agent over loopback HTTP, and an LLM run directory."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

from .llm_server import needs_litellm

needs_litellm()

from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.analysis import load, metrics
from bizsim.runs import RunSpec, run_llm, sweep
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy
from .llm_server import LoopbackLLMServer

MODEL = "openai/gpt-4o-mini"


def test_a_sweep_of_the_llm_agent_records_its_calls_and_cost(tmp_path, monkeypatch):
    """agent "llm" in a sweep goes through run_llm: run directory, llm_calls table, cost columns; a rerun skips it."""
    monkeypatch.setenv("BIZSIM_LOOPBACK_KEY", "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, lifetime_s=120) as server:
        spec = RunSpec("startup", "default", "llm", 1, agent_options={
            "model": MODEL, "api_base": server.url, "api_key_env": "BIZSIM_LOOPBACK_KEY", "max_turns": 12,
        })
        summary = sweep([spec], tmp_path, backend="serial", progress=False)
        assert (1, 0) == (summary.ran, summary.failed)
        assert 0 == sweep([spec], tmp_path, backend="serial", progress=False).ran
    res = load(tmp_path)
    run = res.runs.iloc[0]
    assert (12, 12) == (run.turns, run.llm_turns)
    assert run.llm_cost_usd > 0 and run.llm_prompt_tokens > 0
    assert (tmp_path / "runs" / spec.run_id / "llm_calls.jsonl").exists()
    calls = res.llm_calls
    assert 12 == (calls.kind == "chat").sum() and {spec.run_id} == set(calls.run_id)
    assert pytest.approx(run.llm_cost_usd) == calls.cost_usd.sum()
    assert (res.events.kind == "task").sum() >= 1
    cost = metrics.cost_per_dollar(res.runs, res.llm_calls, by="agent")
    assert pytest.approx(run.llm_cost_usd) == cost.cost_usd.item()


def test_an_llm_run_directory_loads_with_its_calls(tmp_path):
    """load(run directory of run_llm): one run, its model calls, and task rows recovered by replaying the log."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=20, prices={"scripted": (1.0, 2.0)}))
    result = run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))
    res = load(tmp_path)
    run = res.runs.iloc[0]
    assert ("llm", 20, result.final_world.funds_cents) == (run.agent, run.llm_turns, run.final_funds_cents)
    assert pytest.approx(result.llm["total"]["cost_usd"]) == run.llm_cost_usd
    assert 20 == len(res.llm_calls) and res.llm_calls.tool_calls.gt(0).all()
    accepted = sum(1 for _, name, data in result.final_world.trajectory.of_kind("cmd") if name == "task accept" and "error" not in data)
    assert accepted == (res.events.kind == "task").sum()


def test_a_sweep_gives_the_freelance_auditor_the_agents_model(tmp_path, monkeypatch):
    """agent option auditor=llm: the auditor's calls go over HTTP too, and the record holds the audited run's figures."""
    from .test_freelance_llm_run import freelancer

    monkeypatch.setenv("BIZSIM_LOOPBACK_KEY", "sk-loopback-0123456789")
    with LoopbackLLMServer(freelancer, lifetime_s=120) as server:
        spec = RunSpec("freelance", "default", "llm", 3, agent_options={
            "model": "hosted_vllm/freelancer", "api_base": server.url, "api_key_env": "BIZSIM_LOOPBACK_KEY",
            "max_turns": 16, "auditor": "llm", "prices": {"hosted_vllm/freelancer": [1.0, 2.0]},
        })
        summary = sweep([spec], tmp_path, backend="serial", progress=False)
        assert (1, 0) == (summary.ran, summary.failed)
        answered = server.policy_calls
    res = load(tmp_path)
    run = res.runs.iloc[0]
    assert ("llm", 16) == (run.auditor, run.llm_turns)
    assert run.auditor_model_calls == (res.llm_calls.role == "auditor").sum() > 0
    assert answered == len(res.llm_calls)
    audit = res.llm_calls[(res.llm_calls.role == "auditor") & res.llm_calls.ok.astype(bool)]
    assert run.llm_role_calls == len(audit) and 0 < run.llm_role_cost_usd == pytest.approx(audit.cost_usd.sum())
    agent = res.llm_calls[res.llm_calls.role.isna()]
    assert run.llm_cost_usd == pytest.approx(agent.cost_usd.sum())  # the agent's own dollars, the auditor's apart
    for world, auditor, why in [("startup", "llm", "auditor role; world 'startup' has none"), ("freelance", "gpt", "must be one of")]:
        bad = RunSpec(world, "default", "llm", 1, agent_options={"model": "openai/x", "auditor": auditor})
        with pytest.raises(ConfigError, match=why):  # refused up front, like an unknown option
            sweep([bad], tmp_path / "bad", backend="serial", progress=False)


def test_an_llm_run_cut_short_by_an_outage_is_failed_and_retry_failed_resumes_it(tmp_path, monkeypatch):
    """The API fails for good at turn 4: the run is recorded as failed (not as the agent's result); once the
    endpoint is back, retry_failed resumes it from its run directory, replaying the recorded answers."""
    monkeypatch.setenv("BIZSIM_LOOPBACK_KEY", "sk-loopback-0123456789")
    outage = [True]
    with LoopbackLLMServer(greedy_policy, faults=lambda i: "500" if outage[0] and i >= 3 else None) as server:
        spec = RunSpec("startup", "default", "llm", 1, agent_options={
            "model": MODEL, "api_base": server.url, "api_key_env": "BIZSIM_LOOPBACK_KEY", "max_turns": 8,
            "max_api_failures": 2, "backoff_base_s": 0.0,
        })
        cut = sweep([spec], tmp_path, backend="serial", progress=False)
        assert (1, 1) == (cut.ran, cut.failed)
        record = load(tmp_path).runs.iloc[0]
        assert ("error", "RunAborted") == (record.status, record.error_type)
        assert "api_failures" in record.error and "retry_failed" in record.error
        assert 0 == sweep([spec], tmp_path, backend="serial", progress=False).ran  # failed runs wait to be asked
        log = (tmp_path / "runs" / spec.run_id / "llm_calls.jsonl").read_text().splitlines()
        answered = sum(1 for line in log if json.loads(line).get("ok") and json.loads(line).get("kind") == "chat")
        assert 0 < answered < 8
        outage[0] = False
        before = server.policy_calls
        again = sweep([spec], tmp_path, backend="serial", progress=False, retry_failed=True)
        assert (1, 0) == (again.ran, again.failed)
        resumed_calls = server.policy_calls - before
    run = load(tmp_path).runs.iloc[0]
    assert ("ok", 8, "max_turns") == (run.status, run.llm_turns, run.terminal_detail)
    assert 8 - answered == resumed_calls  # the turns answered before the outage were replayed, not asked again


def test_a_sweep_checks_each_llm_endpoint_once_before_anything_runs(tmp_path, monkeypatch):
    """A bad key fails the sweep at once (one request for three runs); without the check every run fails on its own."""
    from bizsim.agents.llm.errors import PreflightError

    monkeypatch.setenv("BIZSIM_LOOPBACK_KEY", "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, faults=lambda i: "401") as server:
        specs = [RunSpec("startup", "default", "llm", seed, agent_options={
            "model": MODEL, "api_base": server.url, "api_key_env": "BIZSIM_LOOPBACK_KEY", "max_turns": 4,
        }) for seed in (1, 2, 3)]
        with pytest.raises(PreflightError, match="did not start"):
            sweep(specs, tmp_path / "checked", backend="serial", progress=False)
        assert 1 == server.requests
        assert not (tmp_path / "checked" / "results.jsonl").read_text()
        unchecked = sweep(specs, tmp_path / "unchecked", backend="serial", progress=False, preflight=False)
        assert (3, 3) == (unchecked.ran, unchecked.failed) and 4 == server.requests
    assert {"api_error"} == {e.split(")")[0].split("(")[-1] for e in load(tmp_path / "unchecked").runs.error}


def test_a_sweep_runs_yc_bench_restarts_with_max_episodes(tmp_path, monkeypatch):
    """Agent option max_episodes sets the run: after a bankruptcy it starts again, as `bizsim run --max-episodes`."""
    monkeypatch.setenv("BIZSIM_LOOPBACK_KEY", "sk-loopback-0123456789")
    options = {"model": MODEL, "api_key_env": "BIZSIM_LOOPBACK_KEY", "max_turns": 50}
    with LoopbackLLMServer(greedy_policy) as server:
        options["api_base"] = server.url
        spec = RunSpec("startup", "nightmare", "llm", 1, agent_options={**options, "max_episodes": 2})
        assert (1, 0) == (lambda s: (s.ran, s.failed))(sweep([spec], tmp_path, backend="serial", progress=False))
    run = load(tmp_path).runs.iloc[0]
    saved = json.loads((tmp_path / "runs" / spec.run_id / "result.json").read_text())
    assert [1, 2] == [e["episode"] for e in saved["episodes"]]
    assert ("bankruptcy", saved["turns"], saved["llm"]["turns"]) == (run.terminal_reason, run.turns, run.llm_turns)
    with pytest.raises(ConfigError, match="max_episodes"):
        sweep([RunSpec("startup", "default", "llm", 1, agent_options={**options, "max_episodes": 0})], tmp_path / "bad",
              backend="serial", progress=False)


def test_a_history_rounds_ablation_keeps_its_three_arms_apart(tmp_path, monkeypatch):
    """K = 5, 20, 30 over two seeds: 3 rows in the tables, the report, the viewer's sweep page and the sweep's table."""
    import html
    import re

    from bizsim.analysis.report import write_report
    from bizsim.view.sweep_data import sweep_data
    from bizsim.cli.sweep import group_table

    monkeypatch.setenv("BIZSIM_LOOPBACK_KEY", "sk-loopback-0123456789")
    with LoopbackLLMServer(greedy_policy, lifetime_s=120) as server:
        specs = [RunSpec("startup", "default", "llm", seed, agent_options={
            "model": MODEL, "api_base": server.url, "api_key_env": "BIZSIM_LOOPBACK_KEY", "max_turns": 4,
            "history_rounds": k}) for k in (5, 20, 30) for seed in (1, 2)]
        assert (6, 0) == (lambda s: (s.ran, s.failed))(sweep(specs, tmp_path, backend="serial", progress=False))
    res = load(tmp_path)
    assert [5, 5, 20, 20, 30, 30] == sorted(res.runs.history_rounds.tolist())
    assert {MODEL} == set(res.runs.model)
    summary = metrics.summarize(res.runs)
    assert [5, 20, 30] == summary.history_rounds.tolist() and [2, 2, 2] == summary.n.tolist()
    assert 3 == len(metrics.rates(res.runs)) == len(metrics.outcomes(res.runs, figures=["metric_value"]))
    text = write_report(tmp_path).read_text(encoding="utf-8")
    headline = text[text.index("Headline number"):]
    headline = headline[:headline.index("</table>")]
    assert "history rounds" in headline
    for part in ("Tool use, the paper's Table 3", "Figure 3(a)", "Figure 4(a)", "Figure 4(b)", "Figure 5(a)", "Figure 5(b)", "Table 4",
                 "startup-metric-against-k.png"):
        assert part in html.unescape(text), part
    assert 3 == headline.count("<tr>") - 1  # the header, then one row an arm
    assert [5, 20, 30] == [g["options"]["history_rounds"] for g in sweep_data(tmp_path)["groups"]]
    assert "history_rounds" in sweep_data(tmp_path)["columns"]
    lines = group_table(tmp_path).splitlines()
    assert 4 == len(lines) and [f"history_rounds={k}" for k in (5, 20, 30)] == [
        re.search(r"history_rounds=\d+", line).group(0) for line in lines[1:]]
    # Every run stopped at its turn cap: each arm says so and counts them as ended early (issue 42: not "0 of 2").
    assert all(re.search(r"\(stopped: turn cap\) .*\b2 of 2$", line) for line in lines[1:])


def test_where_a_model_is_served_is_no_column_and_no_group(tmp_path):
    """api_base and api_key_env stay in agent_options: two endpoints are not two arms, and no table shows them."""
    from bizsim.analysis.tables import _run_row
    from bizsim.view.sweep_data import _options

    rec = {"run_id": "r", "spec": {"world": "startup", "agent": "llm", "seed": 1, "agent_options": {
        "model": MODEL, "api_base": "http://user:pw@10.0.0.1:8000/v1", "api_key_env": "MY_KEY", "history_rounds": 5}}}
    row = _run_row(rec)
    assert (MODEL, 5) == (row["model"], row["history_rounds"]) and "api_base" not in row and "api_key_env" not in row
    assert {"history_rounds": 5} == _options(rec)


def test_a_report_shows_a_local_models_tokens_cache_and_time_and_marks_its_capped_runs(tmp_path):
    """A model without a price (a local one, behind the loopback server billing a prompt cache as OpenAI's does):
    the report's model section shows its tokens per turn and cached share as the server counted them, and seconds
    per turn, instead of "(nothing to show)"; its turn-capped runs are marked stopped, counted as ended early and
    said in words, never as an "error"."""
    import math

    from bizsim.analysis.grouping import with_stops
    from bizsim.analysis.model_use import model_use
    from bizsim.analysis.report import write_report

    with LoopbackLLMServer(greedy_policy, cache="auto", lifetime_s=120) as server:
        specs = [RunSpec("startup", "default", "llm", seed, agent_options={
            "model": "hosted_vllm/local", "api_base": server.url, "max_turns": 4}) for seed in (1, 2)]
        summary = sweep(specs, tmp_path, backend="serial", progress=False, preflight=False)
        usages = list(server.usages)
    assert (2, 0, 8) == (summary.ran, summary.failed, len(usages))  # one usage an answered call, no pre-flight
    prompt = sum(u["prompt_tokens"] for u in usages)
    read = sum(u["cache_read_tokens"] for u in usages)
    assert 0 < read < prompt
    res = load(tmp_path)
    use = model_use(with_stops(res.runs), res.llm_calls)
    row = use.iloc[0]
    assert (1, 2, 8, "stopped: turn cap") == (len(use), row.runs, row.turns, row.stopped)
    assert pytest.approx(prompt / 8) == row.prompt_tokens_per_turn
    assert pytest.approx(sum(u["completion_tokens"] for u in usages) / 8) == row.completion_tokens_per_turn
    assert pytest.approx(read / prompt) == row.cached_share
    assert pytest.approx(res.runs.wall_s.sum() / 8) == row.seconds_per_turn
    assert pytest.approx(res.llm_calls.latency_s.sum() / 8) == row.model_seconds_per_turn
    assert math.isnan(row.cost_usd)  # no price: unknown, not $0
    text = write_report(tmp_path).read_text()
    cost = text[text.index('id="cost"'):text.index('id="runs"')]
    assert "(nothing to show)" not in cost and "No run&#x27;s model has a price" in cost
    assert f"<td class=\"n\">{100 * read / prompt:.1f} %</td>" in cost and "<td>stopped: turn cap</td>" in cost
    headline = text[text.index("Headline number"):text.index('id="world-startup"')]
    assert "<td>stopped: turn cap</td>" in headline and "2 of 2 (100 %)" in headline
    assert "stopped by its turn cap (max_turns), as asked" in text and "<td>error</td>" not in text
    from bizsim.view.sweep_data import sweep_data

    group = sweep_data(tmp_path)["groups"][0]  # the viewer's sweep page: stopped, ended early, not failed
    assert ("stopped: turn cap", 2, 0, "llm / stopped: turn cap") == (
        group["stopped"], group["ended_early"], group["failed"], group["name"])

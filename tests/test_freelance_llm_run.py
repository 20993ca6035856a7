"""`--auditor llm`: the freelance auditor plays its roles through the llm agent's model, recorded and resumable."""

from __future__ import annotations

import json

import pytest

from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.agents.llm.errors import FatalModelError
from bizsim.simcore.jsonl import read_jsonl
from bizsim.runs import RunSpec, resume_llm, run_llm
from bizsim.cli import main
from bizsim.simcore.errors import ConfigError

from .llm_server import LoopbackLLMServer, require_litellm
from .test_freelance_llm import auditor_policy

DAY = ("tasks_discover", "tasks_browse", "solution_submit", "task_done")


def freelancer(messages: list[dict], tools: list[dict] | None) -> dict:
    """Auditor prompts (no tools) by role; as the agent, each day: discover, browse, answer the first task "42", done."""
    if not tools:
        return auditor_policy()(messages, tools)
    turn = sum(1 for m in messages if m.get("role") == "assistant" and m.get("tool_calls"))
    name = DAY[turn % len(DAY)]
    args: dict = {}
    if name == "tasks_discover":
        args = {"refresh_type": "free"}
    elif name == "solution_submit":
        listing = json.loads(next(m["content"] for m in reversed(messages) if m.get("role") == "tool"))
        if not listing.get("tasks"):
            name = "task_done"
        else:
            args = {"task_id": listing["tasks"][0]["task_id"], "solution_text": "42"}
    return {"content": None, "tool_calls": [{"name": name, "arguments": args}]}


def _spec(turns: int = 24, auditor: str = "llm") -> RunSpec:
    return RunSpec("freelance", agent="llm", seed=3,
                   agent_options={**LLMAgentConfig(model="scripted", max_turns=turns).to_dict(), "auditor": auditor})


def test_the_auditor_uses_the_agents_model_and_its_calls_are_recorded(tmp_path):
    """Pricing votes, judging and negotiation go through the agent's client, tagged ``auditor`` in the run log."""
    client = ScriptedClient(freelancer)
    result = run_llm(_spec(), out=tmp_path, client=client)
    summary = result.episode.summary
    rows = read_jsonl(tmp_path / "llm_calls.jsonl")
    audit_rows = [r for r in rows if r.get("role") == "auditor"]
    assert "llm" == summary["auditor"]
    assert summary["auditor_model_calls"] == len(audit_rows) > 0
    assert 24 == sum(1 for r in rows if "turn" in r) == result.to_dict()["llm"]["turns"]
    assert len(rows) == client.answered
    assert len(audit_rows) == result.to_dict()["llm_roles"]["auditor"]["turns"]


def test_a_resumed_run_replays_the_auditors_answers_too(tmp_path):
    """Cut the log after some auditor calls: the resume asks the model only for what was not recorded."""
    whole = run_llm(_spec(), out=tmp_path / "whole", client=ScriptedClient(freelancer))
    rows = (tmp_path / "whole" / "llm_calls.jsonl").read_text().splitlines(keepends=True)
    keep = 1 + max(i for i, r in enumerate(rows[: len(rows) // 2]) if '"auditor"' in r)
    cut = tmp_path / "cut"
    cut.mkdir()
    recorded = json.loads((tmp_path / "whole" / "run.json").read_text())
    assert "llm" == recorded["spec"]["agent_options"]["auditor"]
    (cut / "run.json").write_text(json.dumps(recorded))
    (cut / "llm_calls.jsonl").write_text("".join(rows[:keep]))
    client = ScriptedClient(freelancer)
    again = resume_llm(cut, client=client)
    assert keep == again.replayed_calls and len(rows) - keep == client.answered
    assert whole.episode.summary == again.episode.summary and whole.record() == again.record()


def test_a_failing_model_makes_the_auditor_fall_back(tmp_path):
    """Every auditor call fails: quotes fall back to $5.00, every verdict to "fail"; the agent plays on."""
    agent_only = ScriptedClient(freelancer)

    class AuditorDown:
        endpoint = "scripted"

        def complete(self, messages, tools=None, **params):
            if not tools:
                raise FatalModelError("auditor endpoint down")
            return agent_only.complete(messages, tools, **params)

    result = run_llm(_spec(), out=tmp_path, client=AuditorDown())
    s = result.episode.summary
    assert s["auditor_fallbacks"]["price"] > 0 and s["auditor_fallbacks"]["judge"] == s["submissions"] > 0
    assert 0 == s["accepted"] and "max_turns" in result.terminal_detail
    assert 24 == agent_only.answered


def test_the_auditor_is_a_freelance_setting():
    """Any other world, or an unknown auditor, is refused up front."""
    with pytest.raises(ConfigError, match="auditor role; world 'startup' has none"):
        RunSpec("startup", agent="llm", agent_options={"auditor": "llm"}).check()
    with pytest.raises(ConfigError, match="must be one of"):
        RunSpec("freelance", agent="llm", agent_options={"auditor": "gpt"}).check()


def test_cli_auditor_flag_needs_the_llm_agent(capsys):
    """The auditor borrows the agent's model: without --agent llm there is none to borrow (exit 2)."""
    assert 2 == _exit_code(["run", "freelance", "--agent", "cautious", "--auditor", "llm"])
    assert "goes with --agent llm" in capsys.readouterr().err
    assert 2 == _exit_code(["run", "startup", "--agent", "llm", "--model", "openai/x", "--auditor", "llm"])
    assert "auditor role; world 'startup' has none" in capsys.readouterr().err


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:
        return int(exc.code)


def test_cli_llm_auditor_end_to_end_over_http(tmp_path, capsys):
    """`bizsim run freelance --agent llm --auditor llm` against a loopback server: the auditor's calls are real HTTP."""
    require_litellm()
    out = tmp_path / "run"
    with LoopbackLLMServer(freelancer) as server:
        code = main(["run", "freelance", "--agent", "llm", "--model", "hosted_vllm/freelancer", "--api-base", server.url,
                     "--auditor", "llm", "--max-turns", "12", "--seed", "3", "--out", str(out), "--no-progress",
                     "--no-preflight", "--json"])
        answered = server.policy_calls
    result = json.loads(capsys.readouterr().out)
    rows = read_jsonl(out / "llm_calls.jsonl")
    assert 0 == code and "max_turns" in result["terminal_detail"]  # the run stops at its turn cap, as asked: exit 0
    assert "llm" == result["auditor"] and result["auditor_model_calls"] > 0
    assert answered == len(rows) > 12
    assert {"auditor"} == {r["role"] for r in rows if "role" in r}


def _flaky(agent: ScriptedClient, every: int = 3):
    """The agent's answers from ``agent``; every ``every``-th auditor call fails outright."""

    class Flaky:
        endpoint = "scripted"
        asked = 0

        def complete(self, messages, tools=None, **params):
            if not tools:
                Flaky.asked += 1
                if Flaky.asked % every == 0:
                    raise FatalModelError("auditor endpoint hiccup")
            return agent.complete(messages, tools, **params)

    return Flaky()


def _copy_run(src, dst, rows: list[str]) -> None:
    dst.mkdir()
    (dst / "run.json").write_bytes((src / "run.json").read_bytes())  # the spec names no directory: it moves as is
    (dst / "llm_calls.jsonl").write_text("".join(rows))


def test_a_resume_fails_the_auditor_where_it_failed_and_calls_no_model(tmp_path):
    """Failed auditor calls are replayed as failures (the auditor falls back again), so the resume fits the log."""
    whole = run_llm(_spec(turns=40), out=tmp_path / "whole", client=_flaky(ScriptedClient(freelancer)))
    rows = (tmp_path / "whole" / "llm_calls.jsonl").read_text().splitlines(keepends=True)
    assert any(not json.loads(r)["ok"] for r in rows) and whole.episode.summary["auditor_fallbacks"]["judge"] > 0
    _copy_run(tmp_path / "whole", tmp_path / "again", rows)
    client = ScriptedClient(freelancer)
    again = resume_llm(tmp_path / "again", client=client)
    assert 0 == client.answered and len(rows) == again.replayed_calls
    assert whole.record() == again.record()


def test_load_rebuilds_an_llm_audited_run_with_the_recorded_answers(tmp_path):
    """The tables of a run directory hold the run's own figures (not a replay judged by the deterministic auditor)."""
    pd = pytest.importorskip("pandas")  # noqa: F841 - load needs it
    from bizsim.analysis import load

    result = run_llm(_spec(turns=60), out=tmp_path / "run", client=_flaky(ScriptedClient(freelancer), every=4))
    s = result.episode.summary
    run = load(tmp_path / "run").runs.iloc[0]
    got = (run.final_money_cents, run.submissions, run.accepted, run.auditor, run.auditor_model_calls)
    assert (s["final_money_cents"], s["submissions"], s["accepted"], "llm", s["auditor_model_calls"]) == got
    calls = load(tmp_path / "run").llm_calls
    assert (calls.role == "auditor").sum() == s["auditor_model_calls"] > 0
    assert run.llm_role_calls == result.to_dict()["llm_roles"]["auditor"]["turns"] == (calls.role == "auditor").sum() - (
        ~calls.ok.astype(bool)).sum()
    assert calls.role.isna().sum() == result.to_dict()["llm"]["turns"] > 0


def test_load_refuses_an_auditor_log_that_does_not_fit(tmp_path):
    """One auditor answer missing from the log: rebuilding the run cannot go on, and says why."""
    from bizsim.analysis import load
    from bizsim.simcore.errors import ReplayError

    run_llm(_spec(turns=40), out=tmp_path / "run", client=ScriptedClient(freelancer))
    path = tmp_path / "run" / "llm_calls.jsonl"
    rows = path.read_text().splitlines(keepends=True)
    last = max(i for i, r in enumerate(rows) if '"auditor"' in r)
    path.write_text("".join(rows[:last] + rows[last + 1:]))
    with pytest.raises(ReplayError, match="auditor call"):
        load(tmp_path / "run")


def _spender(messages: list[dict], tools: list[dict] | None) -> dict:
    """Auditor prompts by role; as the agent: a paid discovery, then end the day; again (bankrupt by day 84)."""
    if not tools:
        return auditor_policy()(messages, tools)
    last = next((m for m in reversed(messages) if m.get("role") == "assistant" and m.get("tool_calls")), None)
    name = "task_done" if last and last["tool_calls"][0]["function"]["name"] == "tasks_discover" else "tasks_discover"
    return {"content": None, "tool_calls": [{"name": name, "arguments": {"refresh_type": "paid"} if name != "task_done" else {}}]}


def test_a_restarted_run_has_a_fresh_auditor_per_episode_and_loads_from_its_last(tmp_path):
    """After a bankruptcy the next episode's auditor counts only its own calls; load rebuilds the last episode."""
    from bizsim.analysis import load

    spec = RunSpec("freelance", agent="llm", seed=3, agent_options={"model": "scripted", "max_turns": 400, "auditor": "llm"},
                   max_episodes=2)
    result = run_llm(spec, out=tmp_path, client=ScriptedClient(_spender))
    first, second = result.episode.episodes
    assert ("bankruptcy", "bankruptcy") == (first["terminal_reason"], second["terminal_reason"])
    rows = read_jsonl(tmp_path / "llm_calls.jsonl")
    per_episode = [sum(1 for r in rows if r.get("role") == "auditor" and r["episode"] == e) for e in (1, 2)]
    assert per_episode == [first["auditor_model_calls"], second["auditor_model_calls"]] and min(per_episode) > 0
    run = load(tmp_path).runs.iloc[0]
    assert (second["final_money_cents"], second["days"], second["auditor_model_calls"]) == (
        run.final_money_cents, run.days, run.auditor_model_calls)

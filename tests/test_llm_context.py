"""Real servers' shapes through litellm and HTTP: context windows (learned, checked, overflowed, trimmed), the
default max_tokens, and a server that drops tools, each played by the loopback server."""

from __future__ import annotations

import json

import attrs
import pytest

from .llm_server import needs_litellm

needs_litellm()

from bizsim.agents.llm import LLMAgent, LLMAgentConfig, ScriptedClient
from bizsim.agents.llm.context_window import TRIM_MARGIN
from bizsim.agents.llm.errors import PreflightError
from bizsim.runs import RunSpec, resume_llm, run_llm
from bizsim.cli import main
from bizsim.runs.llm_estimate import estimate_run, format_estimates
from bizsim.runs.rundir import RunDir
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.registry import world_spec

from .llm_policies import calls, chatty_policy, greedy_policy
from .llm_server import LoopbackLLMServer

pytestmark = pytest.mark.xdist_group("llm_context")

MODEL = "hosted_vllm/loopback"
#: A context the chatty policy's YC-Bench prompts outgrow within a dozen turns (at 4 characters a token).
CONTEXT = 9000


def _wordy_policy(messages: list[dict], tools: list[dict] | None) -> dict:
    """Greedy, with a paragraph of thought and a status check every turn: prompts grow, and (unlike
    ``chatty_policy``) the answer depends on the request alone, so a resumed run gets the same answers."""
    answer = greedy_policy(messages, tools)
    thought = "Funds and deadlines look manageable; checking the status before acting again. " * 4
    return {"content": thought, "tool_calls": calls("yc-bench company status")["tool_calls"] + answer["tool_calls"]}


def _run(server, tmp_path, name="run", preflight=False, **options):
    spec = RunSpec("startup", "default", "llm", 1,
                   agent_options={"model": MODEL, "api_base": server.url, "max_turns": 40, **options})
    return run_llm(spec, out=tmp_path / name, preflight=preflight)


@pytest.mark.parametrize("flavor", ["llama.cpp", "vllm", "openai"])
def test_a_servers_context_refusal_ends_the_run_as_context_window_never_api_error(flavor, tmp_path):
    """The 400 each server sends for a prompt past its context (llama.cpp, vLLM and OpenAI wording) stops the run
    with its own reason, naming the server's sizes and the fixes; the refused call is in the log, marked failed."""
    with LoopbackLLMServer(chatty_policy(3), flavor=flavor, context_tokens=CONTEXT, lifetime_s=120) as server:
        # A window this large passes bizsim's own check, so the server is the one to refuse.
        result = _run(server, tmp_path, context_window=10**6)
        assert 1 == server.overflows
    assert ("error", "context_window") == (result.terminal_reason, result.terminal_detail)
    message = result.llm["episodes"][-1]["message"]
    assert "refused the prompt" in message and f"{CONTEXT}" in message and "history_rounds (now 20)" in message
    assert 0 == result.llm["total"]["api_errors"]
    last = RunDir(tmp_path / "run").read_calls()[-1]
    assert (False, result.llm["total"]["turns"] + 1) == (last["ok"], last["turn"])


@pytest.mark.parametrize(("flavor", "source"), [("llama.cpp", "llama.cpp /props"), ("vllm", "vLLM /v1/models")])
def test_the_context_is_learned_from_the_server_and_an_overflow_is_caught_before_sending(flavor, source, tmp_path):
    """llama.cpp's /props and vLLM's /v1/models give the context; the pre-flight records it, and the prompt that
    would not fit (with room for max_tokens) is never sent."""
    with LoopbackLLMServer(chatty_policy(3), flavor=flavor, context_tokens=CONTEXT, lifetime_s=120) as server:
        result = _run(server, tmp_path, preflight=True)
        assert 0 == server.overflows
    assert ("error", "context_window") == (result.terminal_reason, result.terminal_detail)
    assert {"tokens": CONTEXT, "source": source} == result.llm["context_window"]
    preflight = [r for r in RunDir(tmp_path / "run").read_calls() if r["kind"] == "preflight"]
    message = result.llm["episodes"][-1]["message"]
    assert {"tokens": CONTEXT, "source": source} == preflight[0]["context_window"]
    assert f"context window of {CONTEXT} tokens (from {source})" in message
    assert "max_tokens (now 4096)" in message and "history_rounds (now 20)" in message
    assert all(r["ok"] for r in RunDir(tmp_path / "run").read_calls())


def test_a_context_smaller_than_the_first_prompt_stops_before_the_first_call(tmp_path, capsys):
    """Behind a 1,024-token llama.cpp context the first prompt does not fit: 0 turns, and the summary names the
    sizes and the fix instead of blaming the API."""
    with LoopbackLLMServer(greedy_policy, flavor="llama.cpp", context_tokens=1024, lifetime_s=120) as server:
        code = main(["run", "startup", "--agent", "llm", "--model", MODEL, "--api-base", server.url,
                     "--out", str(tmp_path / "run"), "--no-progress"])
        assert 1 == server.requests  # the pre-flight only
    out = capsys.readouterr().out
    assert 3 == code  # a guard stopped it (docs/cli.md#exit-status)
    assert "stopped by the model's context window" in out and "API failing" not in out
    assert "context window: 1024 tokens (from llama.cpp /props)" in out
    assert "0 turns" in out and "lower history_rounds" in out


def test_trim_drops_the_oldest_rounds_records_it_and_a_resume_replays_it(tmp_path):
    """With context_overflow=trim the run goes on where it would stop; each trimmed call says what it dropped,
    every prompt fits, and a resume from half the log replays the trimming to the same result."""
    with LoopbackLLMServer(_wordy_policy, flavor="llama.cpp", context_tokens=CONTEXT, lifetime_s=120) as server:
        whole = _run(server, tmp_path, "whole", context_overflow="trim")
        assert 0 == server.overflows
        rows = [r for r in RunDir(tmp_path / "whole").read_calls() if r["kind"] == "chat"]
        trimmed = [r for r in rows if "context" in r]
        assert whole.terminal_detail == "max_turns" and 40 == len(rows)
        assert trimmed and all(r["context"]["dropped"] >= 1 for r in trimmed)
        limit = (CONTEXT - 4096) / (1 + TRIM_MARGIN)  # room for max_tokens, and the count's margin
        assert all(r["context"]["prompt_tokens"] <= limit < r["context"]["untrimmed_tokens"] for r in trimmed)
        assert "trim" == json.loads((tmp_path / "whole" / "run.json").read_text())["protocol"]["context_overflow"]
        cut = tmp_path / "cut"
        cut.mkdir()
        (cut / "run.json").write_bytes((tmp_path / "whole" / "run.json").read_bytes())
        lines = (tmp_path / "whole" / "llm_calls.jsonl").read_text().splitlines(True)
        (cut / "llm_calls.jsonl").write_text("".join(lines[:30]))
        again = resume_llm(cut, confirm_endpoint=(server.url, None))
    assert 30 == again.replayed_calls
    assert whole.record().to_dict() | {"wall_s": 0} == again.record().to_dict() | {"wall_s": 0}
    assert [r["request"] for r in rows] == [r["request"] for r in RunDir(cut).read_calls() if r["kind"] == "chat"]


@pytest.mark.parametrize("world", ["startup", "vending"])
def test_trim_is_refused_on_preset_reference(world):
    """The reference presets reproduce the benchmarks' own windows: trimming them is refused, naming the fix."""
    with pytest.raises(ConfigError, match="preset reference"):
        LLMAgent(client=ScriptedClient(greedy_policy), context_overflow="trim").settings(
            world_spec(world).make("reference", 1))


def test_a_server_that_drops_tools_is_refused_by_the_preflight_in_one_line(tmp_path):
    """llama.cpp with a template that declares no tools renders none: the pre-flight says so, with the fix, and no
    run directory is left; the same server with tools passes."""
    with LoopbackLLMServer(greedy_policy, flavor="llama.cpp", drops_tools=True, lifetime_s=60) as server:
        with pytest.raises(PreflightError, match="dropped the tools") as caught:
            _run(server, tmp_path, preflight=True)
        assert "\n" not in str(caught.value) and "--jinja" in str(caught.value)
        assert not (tmp_path / "run").exists()
    with LoopbackLLMServer(greedy_policy, flavor="llama.cpp", lifetime_s=60) as server:
        agent = LLMAgent(model=MODEL, api_base=server.url)
        assert {"tokens": 4096, "source": "llama.cpp /props"} == agent.preflight()["context_window"]


def test_every_call_carries_the_default_max_tokens_and_zero_sends_none(tmp_path):
    """max_tokens unset sends 4096 (32768 for a model asked to reason); 0 sends none, as the references do."""
    with LoopbackLLMServer(greedy_policy, lifetime_s=60) as server:
        for options, expected in (({}, 4096), ({"max_tokens": 0}, None), ({"max_tokens": 300}, 300),
                                  ({"model_params": {"reasoning_effort": "low",
                                                     "allowed_openai_params": ["reasoning_effort"]}}, 32768)):
            name = f"run{expected}"
            _run(server, tmp_path, name, max_turns=2, **options)
            params = RunDir(tmp_path / name).read_calls()[0]["sent"]["params"]
            assert expected == params.get("max_tokens")


@pytest.mark.parametrize("with_sent", [True, False])
def test_a_run_recorded_without_max_tokens_still_resumes(tmp_path, with_sent):
    """A run recorded before the default max_tokens (its options leave max_tokens unset, its calls sent none)
    replays its recorded calls and goes on live without it, as it began: told by its first call's recorded params,
    or by the request hash where a record holds none."""
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=8, max_tokens=0))
    whole = run_llm(spec, out=tmp_path / "whole", client=ScriptedClient(greedy_policy))
    old = json.loads((tmp_path / "whole" / "run.json").read_text())
    old["spec"]["agent_options"]["max_tokens"] = None  # as every run before the default recorded it
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "run.json").write_text(json.dumps(old))
    rows = [json.loads(line) for line in (tmp_path / "whole" / "llm_calls.jsonl").read_text().splitlines()[:3]]
    if not with_sent:
        rows = [{k: v for k, v in r.items() if k != "sent"} for r in rows]
    (cut / "llm_calls.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    again = resume_llm(cut, client=ScriptedClient(greedy_policy))
    assert (3, 5) == (again.replayed_calls, again.live_calls)
    assert [r["request"] for r in RunDir(tmp_path / "whole").read_calls()] == \
        [r["request"] for r in RunDir(cut).read_calls()]
    assert whole.final_world.state() == again.final_world.state()


def test_a_timeout_is_a_transient_failure_retried_then_reported_as_such(tmp_path):
    """timeout_s bounds every call: a server slower than it fails the call, retried up to max_api_failures."""
    with LoopbackLLMServer(greedy_policy, delay_s=0.5, lifetime_s=60) as server:
        result = _run(server, tmp_path, timeout_s=0.1, max_api_failures=2, backoff_base_s=0.0, backoff_max_s=0.0)
    assert ("error", "api_failures") == (result.terminal_reason, result.terminal_detail)
    assert "Timeout" in result.llm["episodes"][-1]["message"]


def test_the_estimate_warns_when_the_largest_prompt_will_not_fit():
    """--estimate names the call from which the prompts outgrow the window, and stays quiet when they fit."""
    small = RunSpec("startup", "default", "llm", 1, agent_options={"model": MODEL, "context_window": 8192})
    large = RunSpec("startup", "default", "llm", 1, agent_options={"model": MODEL, "context_window": 200_000})
    tight, roomy = estimate_run(small), estimate_run(large)
    assert tight.overflow_call is not None and tight.largest_prompt_tokens + 4096 > 8192
    assert "warning" in format_estimates([tight]) and f"from call {tight.overflow_call}" in format_estimates([tight])
    assert roomy.overflow_call is None and "warning" not in format_estimates([roomy])


def test_trim_on_an_ecogym_world_drops_the_oldest_messages_and_counts_without_a_tokenizer(tmp_path):
    """On vending, trimming drops the oldest messages (never leaving a tool result without its call), counted at
    2.5 characters a token by a client without a tokenizer; without trim the same run stops at its window."""
    sent = []

    def policy(messages, tools):
        sent.append(messages)
        return {"content": "Checking the shop before ending the day. " * 5,
                "tool_calls": [{"name": "task_done", "arguments": "{}"}]}

    options = {"model": "scripted", "max_turns": 60, "context_window": 9000}
    stopped = run_llm(RunSpec("vending", "small", "llm", 1, agent_options=options), out=tmp_path / "stop",
                      client=ScriptedClient(policy))
    assert ("error", "context_window") == (stopped.terminal_reason, stopped.terminal_detail)
    assert "2.5 characters a token" in stopped.llm["episodes"][-1]["message"]
    assert "history_messages (now 128)" in stopped.llm["episodes"][-1]["message"]
    sent.clear()
    trimmed = run_llm(RunSpec("vending", "small", "llm", 1, agent_options={**options, "context_overflow": "trim"}),
                      out=tmp_path / "trim", client=ScriptedClient(policy))
    assert "max_turns" == trimmed.terminal_detail and 60 == len(sent)
    rows = [r for r in RunDir(tmp_path / "trim").read_calls() if r["kind"] == "chat"]
    assert any("context" in r for r in rows)
    assert all(r["context"]["counted_with"] == "2.5 characters a token" for r in rows if "context" in r)
    assert all(m[1]["role"] != "tool" for m in sent)


@pytest.mark.parametrize("name", ["bizsim.agents.llm.config", "bizsim.agents.llm.context_fit",
                                  "bizsim.agents.llm.context_window", "bizsim.agents.llm.tool_probe"])
def test_doctests(name):
    """The examples in the context modules' docstrings run and hold."""
    import doctest
    import importlib

    failed, tried = doctest.testmod(importlib.import_module(name))
    assert (0, True) == (failed, tried > 0)


def test_the_default_max_tokens_never_exceeds_what_litellm_says_the_model_may_answer():
    """A model whose output limit litellm knows to be lower than the default gets its limit, not a refusal."""
    from bizsim.agents.llm import LiteLLMClient

    class Small(LiteLLMClient):
        def output_limit(self):
            return 2048

    config = LLMAgentConfig(model="openai/gpt-4o-mini")
    assert 2048 == LLMAgent.request_params(config, Small("openai/gpt-4o-mini", api_key="k"))["max_tokens"]
    assert 4096 == LLMAgent.request_params(config, LiteLLMClient("openai/gpt-4o-mini", api_key="k"))["max_tokens"]
    assert 300 == LLMAgent.request_params(attrs.evolve(config, max_tokens=300), Small("m", api_key="k"))["max_tokens"]


def test_a_run_stopped_by_its_context_window_resumes_once_the_server_has_a_larger_one(tmp_path):
    """The stop is no failure to retry blindly: resumed against the same small context it stops at the same call;
    once the server reports a larger context, the resume replays every recorded call and plays on."""
    with LoopbackLLMServer(_wordy_policy, flavor="llama.cpp", context_tokens=CONTEXT, lifetime_s=120) as server:
        first = _run(server, tmp_path)
        turns = first.llm["total"]["turns"]
        assert "context_window" == first.terminal_detail and turns > 0
        again = resume_llm(tmp_path / "run", confirm_endpoint=(server.url, None))
        assert ("context_window", turns, 0) == (again.terminal_detail, again.replayed_calls, again.live_calls)
        server.context_tokens = 100_000
        more = resume_llm(tmp_path / "run", confirm_endpoint=(server.url, None))
    assert ("max_turns", turns) == (more.terminal_detail, more.replayed_calls)
    assert 40 == more.llm["total"]["turns"]


def test_a_server_that_refuses_tools_fails_the_preflight_with_its_own_words(tmp_path):
    """vLLM without tool calling refuses any request with tools: the pre-flight (which carries one) says so in
    one line, in the server's words naming the flags, before a run directory exists."""
    with LoopbackLLMServer(greedy_policy, flavor="vllm", refuses_tools=True, lifetime_s=60) as server:
        with pytest.raises(PreflightError, match="--enable-auto-tool-choice") as caught:
            _run(server, tmp_path, preflight=True)
        assert 0 == server.policy_calls
    assert "\n" not in str(caught.value) and not (tmp_path / "run").exists()


def test_an_inspect_model_keeps_its_own_answer_cap():
    """Played from Inspect, the answer's cap is Inspect's (its --max-tokens): the harness sends no default over it."""
    pytest.importorskip("inspect_ai")
    from bizsim.surfaces.inspect_eval.harness import InspectModelClient

    assert "max_tokens" not in LLMAgent.request_params(LLMAgentConfig(), InspectModelClient.__new__(InspectModelClient))
    assert 300 == LLMAgent.request_params(LLMAgentConfig(max_tokens=300),
                                          InspectModelClient.__new__(InspectModelClient))["max_tokens"]


def test_the_viewer_rebuilds_the_requests_of_a_run_recorded_before_the_default_max_tokens(tmp_path):
    """An old run (options without max_tokens, calls that sent none, records holding only hashes) opens in the
    viewer with every rebuilt request verified, and shown without the max_tokens it never sent."""
    from bizsim.view.llm_requests import rebuild_requests

    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=6, max_tokens=0))
    run_llm(spec, out=tmp_path, client=ScriptedClient(greedy_policy))
    old = json.loads((tmp_path / "run.json").read_text())
    old["spec"]["agent_options"]["max_tokens"] = None
    (tmp_path / "run.json").write_text(json.dumps(old))
    rows = [{k: v for k, v in r.items() if k != "sent"} for r in RunDir(tmp_path).read_calls()]
    rebuilt = rebuild_requests(tmp_path, rows)
    assert None is rebuilt.problem and 6 == len(rebuilt.calls)
    assert all(c["verified"] and "max_tokens" not in c["params"] for c in rebuilt.calls)

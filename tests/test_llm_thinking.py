"""Models that think: their signed reasoning goes back with every answer, through litellm and real HTTP.

The server is a loopback Anthropic Messages API that refuses, as Anthropic
does, a tool-use turn whose last assistant message lacks its signed
thinking block. Without the blocks a run ends at its second call.
"""

from __future__ import annotations

import json

import pytest

from .llm_server import needs_litellm

needs_litellm()


from bizsim.runs.recorder import RunDirRecorder
from bizsim.agents.llm import LiteLLMClient, LLMAgent, LLMAgentConfig, ScriptedClient
from bizsim.agents.llm.types import ModelResponse, ToolCall
from bizsim.runs import run_episode
from bizsim.models.startup import StartupWorld
from bizsim.simcore import Status
from bizsim.simcore.errors import ConfigError

from .anthropic_server import LoopbackAnthropicServer, signature_of

MODEL = "anthropic/claude-sonnet-4-5"  # litellm sends `thinking` only to a model it knows can think
THINKING = {"thinking": {"type": "enabled", "budget_tokens": 1024}}
READS = ("company status", "employee list", "market browse --limit 3", "task list", "finance ledger")


def _startup_policy(messages, tools):
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    return {"content": None, "tool_calls": [{"name": "run_command", "arguments": {"command": READS[turn % len(READS)]}}]}


def _operation_policy(messages, tools):
    return {"content": None, "tool_calls": [{"name": "creator_incentive", "arguments": {}}]}


def _agent(server, **options) -> LLMAgent:
    cfg = LLMAgentConfig(model=MODEL, api_base=server.url.removesuffix("/v1"), model_params=THINKING, max_tokens=2048,
                         max_api_failures=1, backoff_base_s=0.0, **options)
    return LLMAgent(config=cfg, api_key="k-loopback")


def test_a_thinking_model_runs_yc_bench_turns_with_its_blocks_sent_back():
    with LoopbackAnthropicServer(_startup_policy, lifetime_s=60) as server:
        world = StartupWorld("default", 1)
        agent = _agent(server, max_turns=7)
        world.run(agent)
    assert [] == server.refusals
    assert 7 == server.thinking_requests == server.policy_calls == agent.total.turns
    assert world.status is Status.ERROR and "max_turns" in world.terminal_detail  # the turn cap, not the API


def test_without_the_blocks_the_server_refuses_the_second_call(monkeypatch):
    """The control: the same run with the blocks dropped ends on a 400 at once (the server's rule bites)."""
    monkeypatch.setattr(LiteLLMClient, "_echo", lambda self, message: {})
    with LoopbackAnthropicServer(_startup_policy, lifetime_s=60) as server:
        world = StartupWorld("default", 1)
        agent = _agent(server, max_turns=7)
        world.run(agent)
    assert 1 == server.policy_calls and server.refusals
    assert "Expected `thinking` or `redacted_thinking`" in server.refusals[0]
    assert world.status is Status.ERROR and "max_turns" not in world.terminal_detail


def test_a_thinking_model_gets_the_harness_ended_day_as_a_user_message():
    """EcoGym's harness ends a spent day itself; a made-up call would carry no thinking block, so it is a note."""
    with LoopbackAnthropicServer(_operation_policy, lifetime_s=60) as server:
        result = run_episode("operation", "reference", _agent(server, max_turns=6), seed=1)
    assert [] == server.refusals
    assert 6 == server.policy_calls
    assert result.final_world.day >= 5  # every call spent the day's one action and the harness ended the day


def test_a_made_up_call_in_a_thinking_conversation_is_refused(monkeypatch):
    """The control: shown as a made-up ``task_done`` call, the harness-ended day breaks the thinking rule."""
    from bizsim.agents.llm.protocols.ecogym import EcoGymProtocol

    monkeypatch.setattr(EcoGymProtocol, "thinking", property(lambda self: False, lambda self, value: None), raising=False)
    with LoopbackAnthropicServer(_operation_policy, lifetime_s=60) as server:
        run_episode("operation", "reference", _agent(server, max_turns=6), seed=1)
    assert 1 == server.policy_calls
    assert "but found `tool_use`" in server.refusals[0]


def test_echo_and_provider_fields_survive_the_call_log_and_the_history():
    """What a provider needs back is recorded (a resume rebuilds the same requests) and sent with the answer."""
    blocks = [{"type": "thinking", "thinking": "t", "signature": signature_of("t")}]
    response = ModelResponse(None, (ToolCall("x", "run_command", "{}", {"thought_signature": "s1"}),), echo={"thinking_blocks": blocks})
    record = json.loads(json.dumps(response.to_record()))
    assert ModelResponse.from_record(record) == response
    assert ModelResponse.from_record(record).tool_calls[0].provider_fields == {"thought_signature": "s1"}
    assert "echo" not in ModelResponse("ok").to_record()  # older logs and their digests stay as they were
    answers = [
        {"content": None, "tool_calls": [{"name": "run_command", "arguments": {"command": "company status"},
                                          "provider_fields": {"thought_signature": "s1"}}], "echo": {"thinking_blocks": blocks}},
        {"content": "done", "tool_calls": []},
    ]
    sent = []

    def policy(messages, tools):
        sent.append(messages)
        return answers[len(sent) - 1]

    StartupWorld("default", 1).run(LLMAgent(client=ScriptedClient(policy), max_turns=2))
    (assistant,) = [m for m in sent[1] if m["role"] == "assistant"]
    assert assistant["thinking_blocks"] == blocks
    assert assistant["tool_calls"][0]["provider_specific_fields"] == {"thought_signature": "s1"}
    assert all("thinking_blocks" not in m for m in sent[0])


@pytest.mark.parametrize("params, message", [
    ({"messages": []}, "may not set messages"),
    ({"tools": [], "api_key": "k"}, "may not set api_key, tools"),
    ({"x": float("nan")}, "must be JSON data"),
    ({"temperature": 5}, "may not set temperature: use the option"),
    (["thinking"], "must be a mapping"),
])
def test_model_params_refuse_what_the_harness_owns_or_cannot_record(params, message):
    with pytest.raises(ConfigError, match=message):
        LLMAgentConfig(model=MODEL, model_params=params)


def test_model_params_reach_every_request_and_the_record():
    seen = []

    def policy(messages, tools):
        return {"content": "stop", "tool_calls": []}

    class Recording(ScriptedClient):
        def complete(self, messages, tools, **params):
            seen.append(params)
            return super().complete(messages, tools, **params)

    cfg = LLMAgentConfig(model="scripted", model_params={"reasoning_effort": "high", "top_p": 0.5}, max_turns=2, temperature=0.2)
    StartupWorld("default", 1).run(LLMAgent(config=cfg, client=Recording(policy)))
    # A model asked to reason gets the reasoning default of max_tokens (its reasoning counts against the cap).
    expected = {"reasoning_effort": "high", "top_p": 0.5, "temperature": 0.2, "max_tokens": 32768}
    assert seen and all(p == expected for p in seen)
    assert LLMAgentConfig.from_options(cfg.to_dict()) == cfg


_BLOCKS = [{"type": "thinking", "thinking": "t", "signature": "s"}]


@pytest.mark.parametrize("model, expected", [
    ("deepseek/deepseek-reasoner", {"reasoning_content": "why ?"}),  # DeepSeek's thinking mode wants it back
    ("moonshot/kimi-k2-thinking", {"reasoning_content": "why ?"}),
    ("openrouter/deepseek/deepseek-v3.2", {"reasoning_content": "why ?"}),  # DeepSeek through a gateway, as YC-Bench
    ("openai/gpt-4o-mini", {}),                                      # strict OpenAI-style APIs refuse unknown fields
    ("hosted_vllm/qwen3", {}),
    ("anthropic/claude-sonnet-4-5", {"thinking_blocks": _BLOCKS}),   # Claude refuses a tool turn without them
    ("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", {"thinking_blocks": _BLOCKS}),
    ("gemini/gemini-2.5-pro", {}),                                   # its signatures ride on the tool calls
    ("mistral/magistral-medium-latest", {}),
])
def test_what_goes_back_depends_on_the_provider(model, expected):
    from types import SimpleNamespace

    message = SimpleNamespace(content=None, tool_calls=None, reasoning_content="why \ud800", thinking_blocks=_BLOCKS)
    assert expected == LiteLLMClient(model)._echo(message)


def test_only_fields_that_change_the_model_count_as_dropped_and_a_resume_is_not_checked(tmp_path):
    assert [] == LiteLLMClient("gemini/gemini-2.5-pro").dropped_params({"extra_headers": {"x": "1"}, "api_version": "v"})
    assert ["reasoning_effort"] == LiteLLMClient("openai/gpt-4o-mini").dropped_params({"reasoning_effort": "low"})
    (tmp_path / "llm_calls.jsonl").write_text("")
    cfg = LLMAgentConfig(model="openai/gpt-4o-mini", model_params={"reasoning_effort": "low"})
    LLMAgent(config=cfg, logs=RunDirRecorder(tmp_path), resume=True).close()  # accepted when it started: resumable as recorded


@pytest.mark.parametrize("model, params, dropped", [
    ("openai/gpt-4o-mini", {"reasoning_effort": "high"}, "reasoning_effort"),      # litellm: the model cannot reason
    ("anthropic/claude-loopback", {"thinking": {"type": "enabled", "budget_tokens": 1024}}, "thinking"),  # unknown
])
def test_a_request_field_litellm_would_drop_is_refused_before_the_run(model, params, dropped):
    """drop_params would otherwise run a different experiment than the one configured, without a word."""
    with pytest.raises(ConfigError, match=f"silently drop {dropped} .*allowed_openai_params"):
        LLMAgent(model=model, model_params=params)
    LLMAgent(model=model, model_params={**params, "allowed_openai_params": [dropped]})  # the user vouches for it
    LLMAgent(model=MODEL, model_params=THINKING, max_tokens=2048)                     # a model that takes it


def test_a_thinking_run_cut_midway_resumes_with_the_same_requests(tmp_path):
    """The blocks come back from the call log: the resumed requests hash as the recorded ones, then go on live."""
    from bizsim.runs import RunSpec, resume_llm, run_llm

    with LoopbackAnthropicServer(_startup_policy, lifetime_s=60) as server:
        cfg = LLMAgentConfig(model=MODEL, api_base=server.url.removesuffix("/v1"), model_params=THINKING, max_tokens=2048,
                             max_turns=8, max_api_failures=1)
        whole = run_llm(RunSpec("startup", agent="llm", seed=2, agent_options=cfg), out=tmp_path / "whole", api_key="k")
        run_llm(RunSpec("startup", agent="llm", seed=2, agent_options=cfg), out=tmp_path / "cut", api_key="k")
        log = tmp_path / "cut" / "llm_calls.jsonl"
        lines = log.read_text().splitlines(keepends=True)
        assert '"thinking_blocks"' in lines[-1]
        log.write_text("".join(lines[:4]))
        asked = server.policy_calls
        again = resume_llm(tmp_path / "cut", api_key="k", confirm_endpoint=(cfg.api_base, None))
    assert [] == server.refusals
    assert (4, 4) == (again.replayed_calls, server.policy_calls - asked)
    assert whole.final_world.state() == again.final_world.state()


def test_only_a_thought_signature_rides_back_on_a_tool_call():
    from types import SimpleNamespace

    call = SimpleNamespace(id="c1", function=SimpleNamespace(name="run_command", arguments="{}"),
                           provider_specific_fields={"thought_signature": "sig", "citations": None, "other": "x"})
    raw = SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=None, tool_calls=[call]), finish_reason="tool_calls")],
                          usage=None, model="m")
    (parsed,) = LiteLLMClient("gemini/gemini-2.5-pro", keep_raw=False)._parse(raw, 0.0).tool_calls
    assert {"thought_signature": "sig"} == parsed.provider_fields


def test_a_sweep_with_a_field_litellm_would_drop_fails_before_anything_runs(tmp_path, monkeypatch):
    from bizsim.runs import grid, sweep

    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-used")  # set up right, so the check of the request is what fails

    agent = {"name": "llm", "options": {"model": "openai/gpt-4o-mini", "model_params": {"reasoning_effort": "low"}}}
    with pytest.raises(ConfigError, match="silently drop reasoning_effort"):
        sweep(grid("startup", "default", agent, "1-2"), tmp_path / "s", backend="serial", progress=False, preflight=False)
    assert not (tmp_path / "s" / "results.jsonl").exists()

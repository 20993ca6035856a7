"""Usage as billed: every token class of every call, priced as litellm prices the actual answer.

A loopback server answers in OpenAI's, Anthropic's and Gemini's shapes and bills prompts as a prefix cache
would; the run's records are compared with what the server reported and with litellm's own cost of the same
answers.
"""

from __future__ import annotations

import json

import pytest

from .llm_server import needs_litellm, require_litellm

pytestmark = pytest.mark.xdist_group("llm_billing")

needs_litellm()

from bizsim.agents.llm import LiteLLMClient, LLMAgentConfig
from bizsim.runs import RunSpec, run_llm

from .llm_policies import greedy_policy
from .llm_server import LoopbackLLMServer

KEY = "sk-loopback-0123456789"
CLASSES = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens")
#: (model, dialect, the server's cache, reasoning tokens per answer, the api_base suffix litellm wants)
SHAPES = {
    "openai": ("openai/gpt-4o-mini", "auto", 7, "/v1"),
    "anthropic": ("anthropic/claude-sonnet-4-5", "explicit", 0, ""),
    "gemini": ("gemini/gemini-2.5-flash", "auto", 11, ""),
}


def _run(tmp_path, dialect: str, caching: bool = True, turns: int = 12):
    model, cache, reasoning, suffix = SHAPES[dialect]
    with LoopbackLLMServer(greedy_policy, dialect=dialect, cache=cache, reasoning_tokens=reasoning) as server:
        base = server.url.removesuffix("/v1") + suffix
        spec = RunSpec("startup", "default", "llm", 1, agent_options=LLMAgentConfig(
            model=model, api_base=base, max_turns=turns, prompt_caching=caching))
        client = LiteLLMClient(model, api_base=base, api_key=KEY, prompt_caching=caching)
        result = run_llm(spec, out=tmp_path / dialect, client=client)
    calls = [json.loads(line) for line in (tmp_path / dialect / "llm_calls.jsonl").read_text().splitlines()]
    return result, [c for c in calls if c["kind"] == "chat"], server.usages


def _price(model: str, usage: dict) -> float:
    """The provider's bill for one answer, from litellm's price map by hand: uncached input, cache reads and
    writes, and output each at their own price."""
    litellm = require_litellm()
    info = litellm.model_cost[model.split("/", 1)[1]]
    read, write = usage["cache_read_tokens"], usage["cache_write_tokens"]
    return ((usage["prompt_tokens"] - read - write) * info["input_cost_per_token"]
            + read * info["cache_read_input_token_cost"]
            + write * (info.get("cache_creation_input_token_cost") or 0.0)
            + usage["completion_tokens"] * info["output_cost_per_token"])


@pytest.mark.parametrize("dialect", list(SHAPES))
def test_every_token_class_is_recorded_and_priced_as_billed(tmp_path, dialect):
    """Each call's token classes equal what the server reported in its provider's shape; each call's cost equals
    litellm's cost of that same answer and the price map's bill by hand; the run's counters are the sums."""
    litellm = require_litellm()
    model = SHAPES[dialect][0]
    result, calls, usages = _run(tmp_path, dialect)
    assert len(usages) == len(calls) == 12
    for call, usage in zip(calls, usages):
        assert [usage[k] for k in CLASSES] == [call["response"]["usage"][k] for k in CLASSES]
        same_answer = litellm.ModelResponse(**call["response"]["raw"])
        assert litellm.completion_cost(completion_response=same_answer, model=model) == pytest.approx(
            call["response"]["cost_usd"], rel=1e-12)
        assert _price(model, usage) == pytest.approx(call["response"]["cost_usd"], rel=1e-9)
    total = result.llm["total"]
    assert [sum(u[k] for u in usages) for k in CLASSES] == [total[k] for k in CLASSES]
    assert sum(c["response"]["cost_usd"] for c in calls) == pytest.approx(total["cost_usd"], rel=1e-12)
    assert total["cache_read_tokens"] > 0  # the prefix cache served part of the prompts
    saved = sum(_price(model, {**u, "cache_read_tokens": 0, "cache_write_tokens": 0}) for u in usages)
    assert total["cost_usd"] < saved  # and the bill is the discounted one, not the full input price


def test_an_unpriced_model_costs_none_not_zero(tmp_path, monkeypatch):
    """A model no price map knows records cost None per call and for the run, whatever the tokens; the client asks
    litellm to price an answer of it once, not at every call (each asking costs milliseconds of CPU a call)."""
    litellm = require_litellm()
    asked = []
    price = litellm.completion_cost
    monkeypatch.setattr(litellm, "completion_cost", lambda **kw: asked.append(kw["model"]) or price(**kw))
    with LoopbackLLMServer(greedy_policy, cache="auto") as server:
        spec = RunSpec("startup", "default", "llm", 1, agent_options=LLMAgentConfig(
            model="openai/loopback-unpriced", api_base=server.url, max_turns=3))
        result = run_llm(spec, out=tmp_path / "run", client=LiteLLMClient(
            "openai/loopback-unpriced", api_base=server.url, api_key=KEY))
    calls = [json.loads(line) for line in (tmp_path / "run" / "llm_calls.jsonl").read_text().splitlines()]
    assert [None, None, None] == [c["response"]["cost_usd"] for c in calls]
    assert None is result.llm["total"]["cost_usd"] and result.llm["total"]["prompt_tokens"] > 0
    assert ["openai/loopback-unpriced"] == asked


def test_claude_prompts_are_marked_for_the_cache_and_off_means_unmarked(tmp_path):
    """With caching on, Claude requests carry cache marks and the run reads most input tokens from the cache;
    with it off the same run is sent unmarked, reads nothing, and costs more; the requests' hashes (what the
    model reads) are the same both ways."""
    on, calls_on, _ = _run(tmp_path / "on", "anthropic", caching=True)
    off, calls_off, _ = _run(tmp_path / "off", "anthropic", caching=False)
    assert [c["request"] for c in calls_on] == [c["request"] for c in calls_off]
    assert 0 == off.llm["total"]["cache_read_tokens"] + off.llm["total"]["cache_write_tokens"]
    assert on.llm["total"]["cache_read_tokens"] > 0.5 * on.llm["total"]["prompt_tokens"]
    assert on.llm["total"]["cost_usd"] < off.llm["total"]["cost_usd"]


@pytest.mark.parametrize("model, marked", [
    ("anthropic/claude-sonnet-4-5", True), ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", True),
    ("vertex_ai/claude-sonnet-4-5", True), ("openai/gpt-4.1", False), ("gemini/gemini-2.5-flash", False),
])
def test_cache_marks_go_to_claude_only_and_never_on_a_slid_window(model, marked):
    """Claude on Anthropic, Bedrock and Vertex gets marks on the last tool, the system prompt and, while the
    conversation grows, its end; a request whose history slid gets no end mark; other providers get none; the
    texts are unchanged."""
    client = LiteLLMClient(model, api_key=KEY)
    tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in ("a", "b")]
    first = [{"role": "system", "content": "rules"}, {"role": "user", "content": "turn 1"}]
    grown = [*first, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "turn 2"}]
    slid = [first[0], {"role": "user", "content": "[earlier turns removed]"}, {"role": "user", "content": "turn 3"}]
    client.cache_marked(first, tools)
    sent, sent_tools = client.cache_marked(grown, tools)
    again, _ = client.cache_marked(slid, tools)

    def marks(messages):
        return [isinstance(m["content"], list) and "cache_control" in m["content"][-1] for m in messages]

    if marked:
        assert [True, False, False, True] == marks(sent) and [True, False, False] == marks(again)
        assert [False, True] == ["cache_control" in t for t in sent_tools]
        assert ["rules", "turn 1", "ok", "turn 2"] == [m["content"] if isinstance(m["content"], str)
                                                      else m["content"][0]["text"] for m in sent]
    else:
        assert (grown, tools) == (sent, sent_tools)

"""Faults against the loopback server: retried transport errors, malformed answers, a lazy model, a dead one."""

from __future__ import annotations

import json

import pytest

from .llm_server import needs_litellm

needs_litellm()

from bizsim.agents import greedy
from bizsim.agents.llm import LiteLLMClient, LLMAgent, LLMAgentConfig
from bizsim.runs import RunSpec, run_llm
from bizsim.models.startup import StartupWorld
from bizsim.simcore import Status

from .llm_policies import greedy_policy, lazy_policy
from .llm_server import LoopbackLLMServer

KEY = "sk-fault-test-key"
FAST = "hosted_vllm/scripted"  # litellm's plain-HTTP route for OpenAI-compatible servers


class Faults:
    """Faults by the index of the policy's turn, shifted to the server's request counter at first use."""

    def __init__(self, by_offset: dict[int, str], forever_from: int | None = None, kind: str = "500") -> None:
        self.by_offset, self.forever_from, self.kind, self.base = by_offset, forever_from, kind, None

    def __call__(self, index: int) -> str | None:
        if self.base is None:
            self.base = index
        k = index - self.base
        if self.forever_from is not None and k >= self.forever_from:
            return self.kind
        return self.by_offset.get(k)


def client(server, model=FAST, timeout_s=300.0):
    """A litellm client for the loopback server."""
    return LiteLLMClient(model, api_base=server.url, api_key=KEY, timeout_s=timeout_s)


def test_transport_faults_are_retried_with_backoff():
    """A timeout, a 429, 500 and 503, a broken body and an answer without choices are retried; then all goes on."""
    faults = Faults({1: "timeout", 2: "429", 3: "500", 4: "503", 5: "garbage"})
    with LoopbackLLMServer(greedy_policy, faults=faults, timeout_sleep_s=1.5) as srv:
        slept: list[float] = []
        agent = LLMAgent(client=client(srv, timeout_s=0.4), model=FAST, max_turns=4, sleep=slept.append,
                         backoff_base_s=0.5, backoff_max_s=4.0)
        world = StartupWorld("default", 1)
        world.run(agent)
    assert [0.5, 1.0, 2.0, 4.0, 4.0] == slept
    assert (5, 4) == (agent.total.api_errors, agent.total.turns)
    assert (Status.ERROR, "max_turns") == (world.status, world.terminal_detail)
    assert 0 == agent.total.command_errors


def test_no_choices_is_retried():
    """An answer with an empty choices list counts as a transient failure."""
    with LoopbackLLMServer(greedy_policy, faults=Faults({0: "no_choices"})) as srv:
        agent = LLMAgent(client=client(srv), model=FAST, max_turns=2, sleep=lambda s: None)
        StartupWorld("default", 1).run(agent)
    assert (1, 2) == (agent.total.api_errors, agent.total.turns)


def test_malformed_answers_over_http_are_answered_and_counted():
    """Invalid JSON arguments, unknown tools, empty and oversized replies reach the model as clear errors."""
    seen: list[list[dict]] = []

    def policy(messages, tools):
        seen.append(messages)
        return greedy_policy(messages, tools)

    faults = Faults({1: "invalid_json_args", 2: "unknown_tool", 3: "empty", 4: "oversized"})
    with LoopbackLLMServer(policy, faults=faults) as srv:
        agent = LLMAgent(client=client(srv), model=FAST, max_turns=7)
        world = StartupWorld("default", 1)
        world.run(agent)
    tools_after = lambda i: [json.loads(m["content"]) for m in seen[i] if m["role"] == "tool"]
    assert any("not valid JSON" in r.get("error", "") for r in tools_after(2))
    assert any("Unknown tool 'launch_rocket'" in r.get("error", "") for r in tools_after(3))
    assert "previous reply was empty" in seen[4][-1]["content"]
    long_reply = [m for m in seen[5] if m["role"] == "assistant" and "reply cut by the harness" in (m.get("content") or "")]
    assert long_reply and len(long_reply[0]["content"]) < 21_000
    t = agent.total
    assert (1, 1, 1, 1) == (t.invalid_arguments, t.unknown_tools, t.empty_replies, t.oversized_replies)
    assert Status.ERROR == world.status and 7 == t.turns


def test_a_model_that_never_resumes_still_finishes_the_year():
    """Only auto-advance moves time; the year ends, exactly as greedy's."""
    with LoopbackLLMServer(lazy_policy) as srv:
        agent = LLMAgent(client=client(srv), model=FAST)
        world = StartupWorld("default", 1)
        world.run(agent)
        answered = srv.policy_calls
    native = StartupWorld("default", 1)
    native.run(greedy)
    assert (Status.HORIZON, native.funds_cents) == (world.status, world.funds_cents)
    assert 0 == agent.total.resumes and agent.total.auto_advances == 64
    assert answered == agent.total.turns


def test_a_model_that_keeps_failing_ends_with_error_and_keeps_the_partial_run(tmp_path):
    """After N consecutive failures the run ends with status error; what happened before is on disk."""
    with LoopbackLLMServer(greedy_policy, faults=Faults({}, forever_from=6, kind="500")) as srv:
        spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model=FAST, api_base=srv.url, max_api_failures=4))
        result = run_llm(spec, out=tmp_path, client=client(srv), sleep=lambda s: None)
        requests = srv.requests
    assert ("error", "api_failures") == (result.terminal_reason, result.terminal_detail)
    assert 6 + 4 == requests
    calls = [json.loads(line) for line in (tmp_path / "llm_calls.jsonl").read_text().splitlines()]
    assert [True] * 6 + [False] == [c["ok"] for c in calls]
    assert 4 == len(calls[-1]["errors"]) and "500" in calls[-1]["errors"][-1]
    saved = json.loads((tmp_path / "result.json").read_text())
    assert ("error", "api_failures", 6, 4) == (saved["terminal_reason"], saved["terminal_detail"], saved["llm"]["turns"], saved["llm"]["api_errors"])
    assert (tmp_path / "agent_commands.jsonl").read_text().count("\n") > 0
    assert KEY not in (tmp_path / "llm_calls.jsonl").read_text()


def test_a_fatal_error_is_not_retried(capfd):
    """A 401 (bad key) aborts at once: one request, status error, detail api_error; litellm prints nothing."""
    with LoopbackLLMServer(greedy_policy, faults=lambda i: "401") as srv:
        agent = LLMAgent(client=client(srv), model=FAST, sleep=lambda s: pytest.fail("must not retry"))
        world = StartupWorld("default", 1)
        world.run(agent)
        assert 1 == srv.requests
    assert (Status.ERROR, "api_error") == (world.status, world.terminal_detail)
    assert "AuthenticationError" in agent.episodes[0]["message"] and KEY not in agent.episodes[0]["message"]
    out, err = capfd.readouterr()
    assert "litellm" not in (out + err).lower()  # the harness reports errors itself; no banners over progress bars


def test_embedding_calls_that_keep_failing_end_the_run_after_the_failure_limit():
    """Provider embeddings are retried like chat calls and, failing every time, end the run with ``api_failures``."""
    from bizsim.agents.llm import ScriptedClient
    from bizsim.agents.llm.errors import FatalModelError, TransientModelError

    class NoEmbeddings(ScriptedClient):
        attempts = 0

        def embed(self, texts, model=None):
            NoEmbeddings.attempts += 1
            if NoEmbeddings.attempts > 10:  # a harness that never gives up fails the test instead of hanging it
                raise FatalModelError("gave up waiting for the harness to give up")
            raise TransientModelError("embedding endpoint down")

    agent = LLMAgent(client=NoEmbeddings(greedy_policy), memory="episodic", embedder="provider:emb", max_api_failures=3,
                     sleep=lambda s: None)
    world = StartupWorld("default", 1)
    world.run(agent)
    assert (Status.ERROR, "api_failures", 3) == (world.status, world.terminal_detail, NoEmbeddings.attempts)


def test_a_429_retry_after_is_waited_for_within_a_bound():
    """The endpoint's Retry-After (seconds or an HTTP date) wins over a shorter backoff; an absurd one is cut to
    MAX_RETRY_AFTER_S, so no endpoint can stall a run for days."""
    from bizsim.agents.llm.retry_after import MAX_RETRY_AFTER_S

    faults = Faults({1: "429 retry-after 7", 2: "429 retry-after Fri, 31 Dec 9999 23:59:59 GMT", 3: "429 retry-after -3"})
    with LoopbackLLMServer(greedy_policy, faults=faults) as srv:
        slept: list[float] = []
        agent = LLMAgent(client=client(srv), model=FAST, max_turns=3, sleep=slept.append, backoff_base_s=0.5,
                         backoff_max_s=4.0)
        StartupWorld("default", 1).run(agent)
    assert [7.0, MAX_RETRY_AFTER_S, 2.0] == slept
    assert (3, 3) == (agent.total.api_errors, agent.total.turns)


def test_negative_token_counts_stop_the_run_instead_of_lowering_its_cost():
    """An endpoint reporting -5 prompt tokens would shrink the cost and the token budget: the call is refused."""
    with LoopbackLLMServer(greedy_policy, faults=Faults({1: "negative_usage"})) as srv:
        agent = LLMAgent(client=client(srv), model=FAST, max_turns=5, sleep=lambda s: None)
        world = StartupWorld("default", 1)
        world.run(agent)
    assert (Status.ERROR, "api_error") == (world.status, world.terminal_detail)
    assert 1 == agent.total.turns and agent.total.prompt_tokens > 0
    assert "prompt_tokens=-5 is not a token count" in agent.episodes[-1]["message"]


def test_a_key_the_endpoint_echoes_is_masked_in_every_record(tmp_path, monkeypatch):
    """An endpoint that repeats the key (in its reply, in its error text) gets *** in the run's logs and in the
    sweep's error record: nothing bizsim writes holds the key."""
    from bizsim.runs import sweep

    monkeypatch.setenv("BIZSIM_ECHO_KEY", KEY)

    def echo(messages, tools):
        reply = greedy_policy(messages, tools)
        return {**reply, "content": f"my key is {KEY}"}

    with LoopbackLLMServer(echo, faults=Faults({3: "401"})) as srv:
        spec = RunSpec("startup", agent="llm", agent_options={
            "model": FAST, "api_base": srv.url, "api_key_env": "BIZSIM_ECHO_KEY", "max_turns": 6})
        result = run_llm(spec, out=tmp_path / "run", client=client(srv))
        sweep([spec], tmp_path / "sweep", backend="serial", progress=False)
    assert "api_error" == result.terminal_detail and "incorrect API key provided: ***" in result.llm["episodes"][-1]["message"]
    assert any(KEY in a for a in srv.auth_headers)
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "llm_calls.jsonl" for p in written)
    assert [] == [p for p in written if KEY.encode() in p.read_bytes()]
    assert "my key is ***" in (tmp_path / "run" / "llm_calls.jsonl").read_text()


def test_the_loopback_server_streams_when_asked():
    """A streaming request gets OpenAI's chunks (the message, the finish reason, the usage when asked, [DONE]):
    the openai client assembles the same tool call the policy answered."""
    openai = pytest.importorskip("openai")

    def policy(messages, tools):
        return {"content": "hi", "tool_calls": [{"name": "task_done", "arguments": {"x": 1}}]}

    with LoopbackLLMServer(policy, lifetime_s=30) as server:
        client = openai.OpenAI(base_url=server.url, api_key="k")
        chunks = list(client.chat.completions.create(model="m", messages=[{"role": "user", "content": "go"}],
                                                     stream=True, stream_options={"include_usage": True}))
    calls = [c for chunk in chunks for choice in chunk.choices for c in choice.delta.tool_calls or []]
    assert ("hi", "task_done", '{"x": 1}') == (chunks[0].choices[0].delta.content, calls[0].function.name,
                                              calls[0].function.arguments)
    assert "tool_calls" == chunks[1].choices[0].finish_reason and chunks[-1].usage.total_tokens > 0

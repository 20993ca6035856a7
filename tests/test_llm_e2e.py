"""End to end through litellm and real HTTP: a full year against a loopback OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from .llm_server import needs_litellm, require_litellm

# One worker runs this module: its module-scoped fixtures are built once, not once per worker.
pytestmark = pytest.mark.xdist_group("llm_e2e")


needs_litellm()


from bizsim.runs.recorder import RunDirRecorder
from bizsim.agents import greedy
from bizsim.agents.llm import (
    LiteLLMClient,
    LLMAgent,
    LLMAgentConfig,
    ScriptedClient,
)
from bizsim.runs import RunSpec, run_llm
from bizsim.models.startup import StartupWorld
from bizsim.simcore import Status
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy
from .llm_server import LoopbackLLMServer

KEY = "sk-loopback-0123456789"
KNOWN = "openai/gpt-4o-mini"


@pytest.fixture(scope="module")
def server():
    """A loopback server playing the greedy policy."""
    with LoopbackLLMServer(greedy_policy, lifetime_s=240) as srv:
        yield srv


def _expected_cost(model: str, usages: list[dict]) -> float:
    litellm = require_litellm()
    total = 0.0
    for u in usages:
        p, c = litellm.cost_per_token(model=model, prompt_tokens=u["prompt_tokens"], completion_tokens=u["completion_tokens"])
        total += p + c
    return total


def test_full_year_over_http_equals_the_native_policy(server, tmp_path):
    """A greedy year through litellm + HTTP ends exactly as the native greedy agent and the in-process client do;
    tokens and dollars match the server's usage and litellm's price map to the last bit."""
    start = len(server.usages)
    spec = RunSpec("startup", "default", "llm", 1, agent_options=LLMAgentConfig(model=KNOWN, api_base=server.url))
    result = run_llm(spec, out=tmp_path / "run", client=LiteLLMClient(KNOWN, api_base=server.url, api_key=KEY))
    world = result.final_world
    native = StartupWorld("default", 1)
    native.run(greedy)
    inproc = StartupWorld("default", 1)
    inproc.run(LLMAgent(client=ScriptedClient(greedy_policy)))
    assert Status.HORIZON == world.status
    assert native.state() == world.state() == inproc.state()
    assert 42029521 == result.episode.final_funds_cents
    usages = server.usages[start:]
    stats = result.llm["total"]
    assert len(usages) == stats["turns"] == 117
    assert sum(u["prompt_tokens"] for u in usages) == stats["prompt_tokens"]
    assert sum(u["completion_tokens"] for u in usages) == stats["completion_tokens"]
    assert _expected_cost(KNOWN, usages) == stats["cost_usd"]
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert saved["llm"]["cost_usd"] == stats["cost_usd"] and "horizon_end" == saved["terminal_reason"]
    for name in ("run.json", "llm_calls.jsonl", "agent_commands.jsonl", "result.json", "trajectory.jsonl"):
        assert KEY not in (tmp_path / "run" / name).read_text()
    assert f"Bearer {KEY}" == server.auth_headers[-1]


def test_user_priced_model_is_exact(server):
    """A model litellm does not know, priced by the user: dollars = tokens × price, exactly."""
    model = "openai/my-local-model"
    start = len(server.usages)
    agent = LLMAgent(client=LiteLLMClient(model, api_base=server.url, api_key=KEY), model=model,
                     prices={model: (0.25, 2.0)}, max_turns=4)
    StartupWorld("default", 1).run(agent)
    expected = 0.0
    for u in server.usages[start:]:
        expected += (u["prompt_tokens"] * 0.25 + u["completion_tokens"] * 2.0) / 1_000_000
    assert expected == agent.total.cost_usd


def test_unknown_model_cost_is_null_not_zero(server, tmp_path):
    """Neither litellm nor the user knows the model: cost is recorded as null, tokens still counted."""
    model = "openai/no-such-model-xyz"
    agent = LLMAgent(client=LiteLLMClient(model, api_base=server.url, api_key=KEY), model=model, max_turns=2, logs=RunDirRecorder(tmp_path))
    StartupWorld("default", 1).run(agent)
    agent.close()
    assert None is agent.total.cost_usd and agent.total.prompt_tokens > 0
    calls = [json.loads(line) for line in (tmp_path / "llm_calls.jsonl").read_text().splitlines()]
    assert [None, None] == [c["response"]["cost_usd"] for c in calls]
    with pytest.raises(ConfigError, match="max_cost_usd"):
        LLMAgent(client=LiteLLMClient(model, api_base=server.url, api_key=KEY), model=model, max_cost_usd=1.0)


def test_cost_cap_stops_the_run(server):
    """A spending cap ends the run as an error once reached; nothing more is spent."""
    start = len(server.usages)
    agent = LLMAgent(client=LiteLLMClient(KNOWN, api_base=server.url, api_key=KEY), model=KNOWN, max_cost_usd=0.002)
    world = StartupWorld("default", 1)
    world.run(agent)
    assert (Status.ERROR, "max_cost_usd") == (world.status, world.terminal_detail)
    spent_before_last = agent.total.cost_usd - _expected_cost(KNOWN, server.usages[-1:])
    assert spent_before_last < 0.002 <= agent.total.cost_usd
    assert len(server.usages) - start == agent.total.turns


def test_token_cap_stops_the_run(server):
    """A token cap ends the run as an error."""
    agent = LLMAgent(client=LiteLLMClient(KNOWN, api_base=server.url, api_key=KEY), model=KNOWN, max_tokens_total=5_000)
    world = StartupWorld("default", 1)
    world.run(agent)
    assert (Status.ERROR, "max_tokens_total") == (world.status, world.terminal_detail)
    assert agent.total.total_tokens >= 5_000

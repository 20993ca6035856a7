"""The llm agent plays every registered world through its benchmark's protocol."""

from __future__ import annotations

import pytest

from bizsim.agents import AGENTS
from bizsim.agents.llm import ScriptedClient
from bizsim.analysis import run_episode
from bizsim.models import WORLDS


def test_llm_is_registered_for_every_world():
    """`--agent llm` is available wherever there is a world."""
    assert set(WORLDS) <= {w for w, table in AGENTS.items() if "llm" in table}


@pytest.mark.parametrize(
    ("world", "preset", "call", "agent"),
    [("operation", "default", "creator_incentive", "always-creator_incentive")],
)
def test_llm_through_the_ecogym_protocol_matches_the_native_agent(world, preset, call, agent):
    """A scripted model repeating one action over the EcoGym protocol plays the same year as the native agent."""
    client = ScriptedClient(lambda messages, tools: {"content": None, "tool_calls": [{"name": call, "arguments": {}}]})
    via_llm = run_episode(world, preset, "llm", seed=3, agent_options={"client": client})
    native = run_episode(world, preset, agent, seed=3)
    assert "horizon_end" == via_llm.terminal_reason
    assert native.summary["metric_value"] == via_llm.summary["metric_value"]
    assert [line for _, line in native.command_log] == [line for _, line in via_llm.command_log]

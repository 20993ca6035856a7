"""The llm agent plays every registered world through its benchmark's protocol."""

from __future__ import annotations

import attrs
import pytest

from bizsim.agents import AGENTS
from bizsim.agents.llm import ScriptedClient
from bizsim.analysis import run_episode
from bizsim.models import WORLDS
from bizsim.models.freelance import PRESETS as FREELANCE
from bizsim.models.operation import PRESETS as OPERATION
from bizsim.models.vending import PRESETS as VENDING

PRESETS = {"freelance": FREELANCE, "operation": OPERATION, "vending": VENDING}


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


def _repeating(name: str, arguments: dict):
    return ScriptedClient(lambda messages, tools: {"content": None, "tool_calls": [{"name": name, "arguments": arguments}]})


@pytest.mark.parametrize(("world", "name", "arguments"), [
    ("operation", "teleport", {}),                      # an unknown tool
    ("vending", "price_query", {"name": "no such product"}),   # a refused command
    ("freelance", "energy_restore", {"level": "nap"}),  # a value the schema refuses
])
def test_under_the_reference_harness_refused_calls_spend_the_days_actions(world, name, arguments):
    """EcoGym's harness counts every executed call, so a model that only errs still moves through the days.

    Under bizsim's own counting a refused call is free: such a model never moves time and is stopped as stalled.
    """
    stuck = run_episode(world, "default", "llm", seed=1, agent_options={"client": _repeating(name, arguments)})
    assert ("error", "stalled", 0) == (stuck.terminal_reason, stuck.final_world.terminal_detail, stuck.final_world.day)
    capped = attrs.evolve(PRESETS[world]["reference"], max_steps=60)
    moving = run_episode(world, capped, "llm", seed=1, agent_options={"client": _repeating(name, arguments)})
    budget = moving.final_world.daily_budget
    assert "max_turns" == moving.final_world.terminal_detail
    # 60 steps: each day takes `budget` model calls and one task_done from the harness
    assert 60 // (budget + 1) == moving.final_world.day


def test_under_the_reference_harness_the_step_cap_counts_the_harness_task_done():
    """Operation, one action a day, a world step cap of 20: the reference's loop reaches day 10, bizsim's own day 19.

    An agent's own ``max_turns`` counts model calls under either harness.
    """
    client = _repeating("creator_incentive", {})
    ours = run_episode("operation", attrs.evolve(PRESETS["operation"]["default"], max_steps=20), "llm", seed=1,
                       agent_options={"client": client})
    reference = run_episode("operation", attrs.evolve(PRESETS["operation"]["reference"], max_steps=20), "llm", seed=1,
                            agent_options={"client": client})
    by_agent = run_episode("operation", "reference", "llm", seed=1, agent_options={"client": client, "max_turns": 20})
    assert (19, 10, 19) == (ours.final_world.day, reference.final_world.day, by_agent.final_world.day)


def test_under_the_reference_harness_calls_written_as_json_text_are_run():
    """EcoGym's harness runs a ``{"tool_calls": [...]}`` reply body; bizsim's own protocol answers it with a warning."""
    body = '```json\n{"tool_calls": [{"function": {"name": "creator_incentive", "arguments": {}}}]}\n```'
    texting = ScriptedClient(lambda messages, tools: {"content": body, "tool_calls": []})
    via_text = run_episode("operation", "reference", "llm", seed=3, agent_options={"client": texting})
    native = run_episode("operation", "reference", "always-creator_incentive", seed=3)
    assert "horizon_end" == via_text.terminal_reason
    assert native.summary["metric_value"] == via_text.summary["metric_value"]
    stuck = run_episode("operation", "default", "llm", seed=3, agent_options={"client": texting})
    assert ("stalled", 0) == (stuck.final_world.terminal_detail, stuck.final_world.day)


def test_under_the_reference_harness_memory_tools_never_spend_an_action():
    """A memory tool call is bizsim's own, well formed or not: it never ends the day."""
    broken = _repeating("memory_note", "{not json")  # the scratchpad module's tool, with unreadable arguments
    run = run_episode("vending", "reference", "llm", seed=1,
                      agent_options={"client": broken, "memory": "scratchpad", "max_turns": 12})
    assert (0, "max_turns") == (run.final_world.day, run.final_world.terminal_detail)

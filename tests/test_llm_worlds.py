"""The llm agent plays every registered world through its benchmark's protocol."""

from __future__ import annotations

import json

import attrs
import pytest

from bizsim.runs.recorder import RunDirRecorder
from bizsim.agents import AGENTS
from bizsim.agents.llm import ScriptedClient
from bizsim.runs import run_episode
from bizsim.models import world_names
from bizsim.models.freelance import PRESETS as FREELANCE
from bizsim.models.operation import PRESETS as OPERATION
from bizsim.models.vending import PRESETS as VENDING

PRESETS = {"freelance": FREELANCE, "operation": OPERATION, "vending": VENDING}


def test_llm_is_registered_for_every_world():
    """`--agent llm` is available wherever there is a world."""
    assert set(world_names()) <= {w for w, table in AGENTS.items() if "llm" in table}


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


def _script(*replies):
    """A model that gives ``replies`` in order (each a list of (tool, arguments) calls, or text), then task_done."""
    queue = list(replies)

    def policy(messages, tools):
        reply = queue.pop(0) if queue else [("task_done", {})]
        if isinstance(reply, str):
            return {"content": reply, "tool_calls": []}
        return {"content": None, "tool_calls": [{"name": n, "arguments": a} for n, a in reply]}
    return ScriptedClient(policy)


def test_under_the_reference_harness_unreadable_arguments_run_the_tool_with_none():
    """EcoGym's harness runs a call whose arguments it cannot read with ``{}``: an action that takes none is taken.

    bizsim's own protocol refuses the call and the model is told why."""
    options = {"max_turns": 1}
    ref = run_episode("operation", "reference", "llm", seed=1,
                      agent_options={"client": _script([("creator_incentive", "{bad")]), **options})
    own = run_episode("operation", "default", "llm", seed=1,
                      agent_options={"client": _script([("creator_incentive", "{bad")]), **options})
    assert 1 == len(ref.final_world.action_history) and 0 == len(own.final_world.action_history)


def test_under_the_reference_harness_help_is_free_as_its_description_says():
    """bizsim's ``help`` is no reference tool and uses no action under either counting."""
    client = _script([("help", {})], [("help", {})], [("help", {})])
    run = run_episode("operation", "reference", "llm", seed=1, agent_options={"client": client, "max_turns": 3})
    assert 0 == run.final_world.day


def test_the_reference_harness_never_stops_a_stalled_model_and_a_day_the_harness_ends_is_not_a_stall():
    """The reference runs to its step cap; bizsim's own harness stops a model whose turns never move time.

    The stall count is taken after the harness's own ``task_done``: the action that spends the budget moves time."""
    talk = ["Thinking..."] * 4
    ref = run_episode("operation", attrs.evolve(PRESETS["operation"]["reference"], max_steps=8), "llm", seed=1,
                      agent_options={"client": _script(*talk), "max_stalled_turns": 3})
    own = run_episode("operation", "default", "llm", seed=1,
                      agent_options={"client": _script(*talk), "max_stalled_turns": 3})
    assert ("max_turns", "stalled") == (ref.final_world.terminal_detail, own.final_world.terminal_detail)
    acts = run_episode("operation", "default", "llm", seed=1, agent_options={
        "client": _script("Thinking...", "Thinking...", [("creator_incentive", {})], "Thinking...", "Thinking..."),
        "max_stalled_turns": 3, "max_turns": 5})
    assert (1, "max_turns") == (acts.final_world.day, acts.final_world.terminal_detail)


def test_the_window_is_cut_before_the_turns_user_message_is_added(tmp_path):
    """As EcoGym's harness: the last ``history_messages`` messages, then the warning after a reply without a call.

    And every call the harness refuses before the world sees it is still in ``agent_commands.jsonl``."""
    import json

    seen = []
    replies = [[("creator_incentive", {})], "hmm", [("teleport", {})], [("creator_incentive", "{bad")]]

    def policy(messages, tools):
        seen.append([m["role"] for m in messages])
        reply = replies.pop(0) if replies else [("task_done", {})]
        if isinstance(reply, str):
            return {"content": reply, "tool_calls": []}
        return {"content": None, "tool_calls": [{"name": n, "arguments": a} for n, a in reply]}

    run_episode("operation", "default", "llm", seed=1, agent_options={
        "client": ScriptedClient(policy), "history_messages": 3, "max_turns": 4, "logs": RunDirRecorder(tmp_path)})
    # turn 3: the window [task_done call, its report, "hmm"], then the warning
    assert ["system", "assistant", "tool", "assistant", "user"] == seen[2]
    logged = [json.loads(line) for line in (tmp_path / "agent_commands.jsonl").read_text().splitlines()]
    assert ["creator_incentive", "task_done", "teleport", "creator_incentive"] == [r.get("tool", r.get("line"))
                                                                                   for r in logged]
    assert "Unknown tool" in logged[2]["result"]["error"] and "{bad" == logged[3]["args"]


def test_a_run_directory_names_option_objects_json_cannot_hold(tmp_path):
    """A model client object among the agent options is named in ``result.json``, not a crash at the end of a run."""
    import json

    run_episode("operation", "default", "llm", seed=1, out=tmp_path / "run",
                agent_options={"client": _script(), "max_turns": 2})
    saved = json.loads((tmp_path / "run" / "result.json").read_text())
    assert {"client": "<ScriptedClient>", "max_turns": 2} == saved["agent_options"]


def test_under_the_reference_harness_a_task_in_view_is_not_inspected_again():
    """EcoGym's guard: inspecting a task whose inspection is still in the kept messages is answered with an error and
    spends the action; bizsim's own protocol shows the task again."""
    def play(preset):
        seen = []

        def policy(messages, tools):
            seen.append(messages[-1]["content"] if messages[-1]["role"] == "tool" else None)
            turn = len(seen)
            if turn == 1:
                return {"content": None, "tool_calls": [{"name": "tasks_discover", "arguments": {}}]}
            if turn == 2:
                return {"content": None, "tool_calls": [{"name": "tasks_browse", "arguments": {}}]}
            if turn == 3:
                tid = json.loads(seen[-1])["tasks"][0]["task_id"]
                play.tid = tid
            return {"content": None, "tool_calls": [{"name": "task_inspect", "arguments": {"task_id": play.tid}}]}
        run = run_episode("freelance", preset, "llm", seed=1,
                          agent_options={"client": ScriptedClient(policy), "max_turns": 5})
        return seen, run

    seen, ref = play("reference")
    assert "selected" in seen[3] and "inspected already" in json.loads(seen[4])["error"]
    assert 3 == ref.final_world.actions_today  # the world ran discover, browse and the first inspection only
    seen, own = play("default")
    assert "selected" in seen[3] and "selected" in seen[4] and 5 == own.final_world.actions_today


def test_a_restart_keeps_the_notes_and_says_so_and_memory_tool_calls_are_logged(tmp_path):
    """Vending with no cash ends in bankruptcy at once; episode 2 opens with a restart message and the notes of
    episode 1 in its system prompt, and the note call is in ``agent_commands.jsonl``."""
    cfg = attrs.evolve(VENDING["small"], initial_money_cents=0, stagnation_days=1)
    seen = []

    def policy(messages, tools):
        seen.append((messages[0]["content"], next(m["content"] for m in messages if m["role"] == "user")))
        if len(seen) == 1:
            note = {"name": "memory_note", "arguments": {"content": "LESSON: buy less"}}
            return {"content": None, "tool_calls": [note]}
        return {"content": None, "tool_calls": [{"name": "task_done", "arguments": {}}]}

    run = run_episode("vending", cfg, "llm", seed=1, max_episodes=2, agent_options={
        "client": ScriptedClient(policy), "memory": "scratchpad", "logs": RunDirRecorder(tmp_path)})
    assert 2 == len(run.episodes)
    system, first = seen[-1]
    assert "LESSON: buy less" in system and first.startswith("Episode 1 ended in bankruptcy") and "notes" in first
    logged = [json.loads(line) for line in (tmp_path / "agent_commands.jsonl").read_text().splitlines()]
    assert "memory_note" == logged[0]["tool"] and logged[0]["result"]["ok"]

"""The YC-Bench and EcoGym protocols, driven by scripted in-process models (no network)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Annotated

import pytest
from bizsim.agents import greedy, make_agent
from bizsim.agents.llm import LLMAgent, ScriptedClient
from bizsim.runs import run_episode
from bizsim.models.startup import StartupWorld
from bizsim.simcore import Arg, CommandSet, Status
from bizsim.simcore.dayworld import DayWorld

from .llm_policies import calls, greedy_policy, lazy_policy


class Recorder:
    """Wraps a policy and keeps every request it answered."""

    def __init__(self, policy):
        self.policy, self.requests = policy, []

    def __call__(self, messages, tools):
        self.requests.append((messages, tools))
        return self.policy(messages, tools)

    def users(self) -> list[str]:
        """The last user message of every request."""
        return [next(m["content"] for m in reversed(msgs) if m["role"] == "user") for msgs, _ in self.requests]

    def systems(self) -> list[str]:
        """The system message of every request."""
        return [msgs[0]["content"] for msgs, _ in self.requests]


def play(policy, preset="default", seed=1, **options):
    """Run one episode with a scripted model; the world, the agent and the recorder."""
    rec = Recorder(policy)
    agent = LLMAgent(client=ScriptedClient(rec), **options)
    world = StartupWorld(preset, seed)
    world.run(agent)
    return world, agent, rec


def scripted(*turns):
    """A policy playing fixed answers turn by turn, then ``company status`` forever."""
    answers = list(turns)
    return lambda messages, tools: answers.pop(0) if answers else calls("yc-bench company status")


def _start_and_resume(task="Task-1"):
    return calls(
        f"yc-bench task accept --task-id {task}", f"yc-bench task assign --task-id {task} --employees Emp_1",
        f"yc-bench task dispatch --task-id {task}", "yc-bench sim resume",
    )


# ---------------------------------------------------------------------------------------------- YC-Bench
def test_scripted_greedy_equals_native_greedy():
    """The greedy policy as a "model" leaves the world exactly as the native greedy agent does."""
    world, agent, _ = play(greedy_policy)
    native = StartupWorld("default", 1)
    native.run(greedy)
    assert native.state() == world.state()
    assert (Status.HORIZON, 0, 0) == (world.status, agent.total.command_errors, agent.total.auto_advances)


def test_one_tool_and_the_system_prompt():
    """One run_command tool; the system prompt names the commands and the history length."""
    _, _, rec = play(scripted(), max_turns=1)
    messages, tools = rec.requests[0]
    assert ["run_command"] == [t["function"]["name"] for t in tools]
    assert ["system", "user"] == [m["role"] for m in messages]
    system = messages[0]["content"]
    for command in ("market browse", "task accept", "task assign", "task dispatch", "sim resume", "scratchpad write", "client history"):
        assert command in system
    assert "last 20 turns" in system
    assert messages[1]["content"].startswith("## Simulation Start")
    assert "task assign --task-id" in messages[1]["content"] and "assign-all" not in messages[1]["content"]


def test_reference_preset_start_message_keeps_the_reference_quirk():
    """Preset reference recommends the disabled assign-all, as the reference harness did."""
    _, _, rec = play(scripted(), preset="reference", max_turns=1)
    assert "task assign-all" in rec.users()[0]


def test_history_keeps_k_rounds_behind_a_marker():
    """Steady state: system + marker + K previous rounds + the current one."""
    _, _, rec = play(scripted(), history_rounds=3, max_turns=8)
    messages, _ = rec.requests[-1]
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users[0].startswith("[Earlier turns were removed")
    assert 1 + 3 + 1 == len(users)
    assert "## Turn 8" in users[-1]
    assert "## Turn 5" in users[1]
    assert all(not u.startswith("[Earlier") for u in (m[0][1]["content"] for m in rec.requests[:4]))


def _label(text: str) -> str:
    return "start" if text.startswith("## Simulation Start") else re.search(r"## Turn (\d+)", text).group(1)


def _resume_then_idle():
    return scripted(_start_and_resume(), calls("yc-bench sim resume"), calls("yc-bench sim resume"))


def test_turn_labels_reference_reproduces_the_off_by_one():
    """Preset reference labels the turn after a resume with the resuming turn's number (§14.3)."""
    _, agent, rec = play(_resume_then_idle(), preset="reference", max_turns=10)
    assert ["start", "1", "2", "3", "5", "6", "7", "8", "8", "10"] == [_label(u) for u in rec.users()]
    assert 1 == agent.total.auto_advances  # five idle turns (4-8): the harness resumed after turn 8


def test_turn_labels_default_count_turns():
    """Preset default labels every turn with its own number."""
    _, _, rec = play(_resume_then_idle(), max_turns=10)
    assert ["start", "2", "3", "4", "5", "6", "7", "8", "9", "10"] == [_label(u) for u in rec.users()]


def _write_notes_and_resume():
    first = _start_and_resume()
    first["tool_calls"].insert(0, {"name": "run_command", "arguments": {"command": 'yc-bench scratchpad write --content "RULE-7"'}})
    return scripted(first, calls("yc-bench sim resume"), calls("yc-bench sim resume"))


def test_scratchpad_is_current_in_the_system_prompt():
    """Notes written on turn 1 are in the system prompt from turn 2 on (default)."""
    _, _, rec = play(_write_notes_and_resume(), max_turns=6)
    assert ["RULE-7" in s for s in rec.systems()] == [False, True, True, True, True, True]
    assert "## Your Scratchpad Notes\nRULE-7" in rec.systems()[1]


def test_stale_scratchpad_is_reproduced_on_reference():
    """Preset reference shows notes written with resumes only after a non-resume turn (§14.6)."""
    _, _, rec = play(_write_notes_and_resume(), preset="reference", max_turns=6)
    assert ["RULE-7" in s for s in rec.systems()] == [False, False, False, False, True, True]


def test_events_since_last_turn_are_listed():
    """After a resume the status message lists completions (with money) and payrolls."""
    _, _, rec = play(greedy_policy, max_turns=40)
    text = "\n".join(rec.users())
    assert re.search(r"- Task-\d+ \(client: [^)]+\): SUCCESS \+\$[\d,]+\.\d\d \[ahead by \d+h\] \| 8 employees", text)
    assert "- Payroll paid; funds now $" in text
    assert "### Events since last turn" in text


def test_auto_advance_moves_time_for_a_model_that_never_resumes():
    """Five idle turns trigger the harness's own sim resume; the year still ends."""
    world, agent, rec = play(lazy_policy)
    native = StartupWorld("default", 1)
    native.run(greedy)
    assert (Status.HORIZON, native.funds_cents) == (world.status, world.funds_cents)
    assert 0 == agent.total.resumes and agent.total.auto_advances > 50
    assert any("ran `yc-bench sim resume` for you after 5 turns" in u for u in rec.users())


def test_max_turns_ends_the_episode_with_status_error():
    """A turn limit ends the run as an error with detail max_turns."""
    world, agent, rec = play(scripted(), max_turns=3)
    assert (Status.ERROR, "max_turns", 3, 3) == (world.status, world.terminal_detail, agent.total.turns, len(rec.requests))


def test_hidden_commands_are_not_reachable():
    """The reference bot's shortcuts are refused as unknown commands and change nothing."""
    before = StartupWorld("default", 1).state()
    world, agent, rec = play(scripted(calls("yc-bench bot take --task-id x", "yc-bench bot wait")), max_turns=2)
    results = [m for m in rec.requests[1][0] if m["role"] == "tool"]
    assert all("Unknown command 'bot" in r["content"] for r in results)
    after = world.state()
    assert ("running", "error") == (before.pop("status"), after.pop("status"))  # max_turns ended it
    assert before == after
    assert 2 == agent.total.command_errors


def test_malformed_answers_are_answered_not_fatal():
    """Bad JSON, unknown tools, a missing command, empty and oversized replies all come back as errors."""
    bad = {
        "content": "y" * 30_000,
        "tool_calls": [
            {"name": "run_command", "arguments": '{"command": "company status"'},
            {"name": "launch_rocket", "arguments": "{}"},
            {"name": "run_command", "arguments": '{"cmd": "x"}'},
            {"name": "functions.run_command", "arguments": '"{\\"command\\": \\"company status\\"}"'},
        ],
    }
    world, agent, rec = play(scripted(bad, {"content": "", "tool_calls": []}, calls(*["company status"] * 60)), max_turns=4)
    tool_results = [json.loads(m["content"]) for m in rec.requests[1][0] if m["role"] == "tool"]
    assert "not valid JSON" in tool_results[0]["error"]
    assert "Unknown tool 'launch_rocket'" in tool_results[1]["error"]
    assert "needs a 'command' string" in tool_results[2]["error"]
    assert "company_name" in tool_results[3]
    assistant = next(m for m in rec.requests[1][0] if m["role"] == "assistant")
    assert len(assistant["content"]) < 21_000 and "reply cut by the harness" in assistant["content"]
    assert "previous reply was empty" in rec.users()[2]
    last = rec.requests[3][0]
    cut = max(i for i, m in enumerate(last) if m["role"] == "assistant")
    after = [m for m in last[cut:] if m["role"] == "tool"]
    assert 60 == len(after) and "at most 50 tool calls" in after[-1]["content"]
    t = agent.total
    assert (t.invalid_arguments, t.unknown_tools, t.oversized_replies, t.empty_replies, t.dropped_tool_calls) == (2, 1, 1, 1, 10)
    assert Status.ERROR == world.status and "max_turns" == world.terminal_detail


def test_registered_llm_agent_runs_through_run_episode():
    """``agent="llm"`` with options works like any registered agent."""
    result = run_episode("startup", "default", "llm", 1, agent_options={"client": ScriptedClient(greedy_policy), "max_turns": 5})
    assert ("error", "max_turns") == (result.terminal_reason, result.final_world.terminal_detail)
    with pytest.raises(Exception, match="no option"):
        make_agent("startup", "llm", {"bogus": 1})


def _bankrupt_policy(messages, tools):
    """Writes a note once, then takes tasks with a single junior: late work, penalties, bankruptcy."""
    if not any(m["role"] == "assistant" for m in messages):
        if "Restarting After Bankruptcy" not in messages[-1]["content"]:
            return calls('yc-bench scratchpad write --content "LESSON: staff tasks fully"', "yc-bench market browse --limit 1")
        return calls("yc-bench market browse --limit 1")
    from .llm_policies import last_round_results

    browse = next((r for c, r in last_round_results(messages).items() if "market browse" in c), None)
    if browse and browse.get("tasks"):
        t = browse["tasks"][0]["task_id"]
        return calls(f"yc-bench task accept --task-id {t}", f"yc-bench task assign --task-id {t} --employees Emp_1",
                     f"yc-bench task dispatch --task-id {t}", "yc-bench sim resume")
    return calls("yc-bench market browse --limit 1", "yc-bench sim resume")


def test_multi_episode_restart_fresh_conversation_banner_and_notes():
    """After a bankruptcy the next episode starts a fresh conversation with the banner; notes carry over."""
    rec = Recorder(_bankrupt_policy)
    agent = LLMAgent(client=ScriptedClient(rec))
    result = run_episode("startup", "default", agent, 1, max_episodes=2)
    assert ["bankruptcy", "bankruptcy"] == [e["terminal_reason"] for e in result.episodes]
    firsts = [i for i, (msgs, _) in enumerate(rec.requests) if len(msgs) == 2]
    assert 2 == len(firsts)
    second = rec.requests[firsts[1]][0]
    assert second[1]["content"].startswith("## Episode 2 — Restarting After Bankruptcy")
    assert "LESSON: staff tasks fully" in second[0]["content"]
    assert [1, 2] == [e["episode"] for e in agent.episodes]
    assert agent.total.turns == sum(e["stats"].turns for e in agent.episodes)


# ---------------------------------------------------------------------------------------------- EcoGym
TOY = CommandSet()


@TOY.command("sell", "Sell one unit at the given price.")
def _sell(world, price: Annotated[float, Arg("Price in dollars", minimum=0)] = 1.0) -> dict:
    world.sold += 1
    return {"sold": world.sold, "price": price}


@TOY.command("look", "Look at the shop (free).", counted=False)
def _look(world) -> dict:
    return {"day": world.day, "actions_left": world.actions_left}


@TOY.command("task_done", "End the day.", advances=True)
def _task_done(world):
    return world.request_day_end()


class ToyDayWorld(DayWorld):
    """A three-day shop with two actions a day: the smallest EcoGym-like world."""

    name = "toyday"
    commands = TOY
    agent_role = "You run a toy shop. Sell as much as you can."

    def __init__(self, config: str = "default", seed: int = 1) -> None:
        super().__init__(config, seed, start=datetime(2025, 1, 1), daily_budget=2, horizon_days=3)
        self.sold = 0

    def end_day(self, day: int) -> dict:
        return {"day": day, "sold": self.sold}


def _tool(name, **args):
    return {"content": None, "tool_calls": [{"name": name, "arguments": args}]}


def test_ecogym_protocol_tools_budget_and_day_ends():
    """One tool per command, the shared rules, and the harness ends the day when the budget is spent."""
    answers = [
        _tool("look"), {"content": "hmm", "tool_calls": []}, _tool("sell", price=2), _tool("teleport"),
        _tool("sell", price=3), _tool("sell", price="cheap"), _tool("sell"), _tool("sell"), _tool("task_done"),
    ]
    rec = Recorder(lambda m, t: answers.pop(0) if answers else _tool("sell"))
    agent = LLMAgent(client=ScriptedClient(rec), max_turns=30, history_messages=6)
    world = ToyDayWorld()
    world.run(agent)
    messages, tools = rec.requests[0]
    assert ["sell", "look", "task_done"] == [t["function"]["name"] for t in tools]
    assert messages[0]["content"].startswith("You run a toy shop.") and "at most 2 actions per day" in messages[0]["content"]
    assert "please proceed" in messages[1]["content"].lower()
    assert "no structured tool call" in rec.requests[2][0][-1]["content"]
    assert all(len(m) <= 7 and m[1]["role"] != "tool" for m, _ in rec.requests)
    assert (Status.HORIZON, 3) == (world.status, world.day)
    assert agent.total.auto_advances >= 2
    synthetic = [m for msgs, _ in rec.requests for m in msgs if m["role"] == "assistant" and (m.get("tool_calls") or [{}])[0].get("id", "").startswith("auto_")]
    assert synthetic and synthetic[0]["tool_calls"][0]["function"]["name"] == "task_done"
    assert (1, 1, 1) == (agent.total.unknown_tools, agent.total.text_replies, agent.total.command_errors)


def test_ecogym_note_tool_from_scratchpad_memory():
    """Worlds without a scratchpad get a memory_note tool when the scratchpad memory is on."""
    answers = [_tool("memory_note", content="buy low"), _tool("look")]
    rec = Recorder(lambda m, t: answers.pop(0) if answers else _tool("look"))
    agent = LLMAgent(client=ScriptedClient(rec), max_turns=3, memory="scratchpad")
    ToyDayWorld().run(agent)
    assert "memory_note" in [t["function"]["name"] for t in rec.requests[0][1]]
    assert "buy low" in rec.requests[1][0][0]["content"] and 1 == agent.total.memory_tool_calls


def test_lone_surrogates_from_the_model_cannot_break_the_run_files(tmp_path):
    """JSON can encode a lone surrogate; the harness replaces it so every file stays valid UTF-8."""
    from bizsim.agents.llm import LLMAgentConfig
    from bizsim.runs import RunSpec, run_llm

    note = {"content": None, "tool_calls": [{"name": "run_command", "arguments": '{"command": "scratchpad write --content \\"a\\ud800b\\""}'}]}
    spec = RunSpec("startup", agent="llm", agent_options=LLMAgentConfig(model="scripted", max_turns=2))
    result = run_llm(spec, out=tmp_path, client=ScriptedClient(scripted(note)))
    assert "a?b" == result.final_world.scratchpad
    for path in tmp_path.iterdir():
        path.read_text(encoding="utf-8")


def test_a_model_that_never_starts_work_is_stopped():
    """Refused resumes never move time; after max_stalled_turns the run ends instead of calling the model forever."""
    world, agent, rec = play(lambda m, t: calls("yc-bench company status"), max_stalled_turns=12)
    assert (Status.ERROR, "stalled") == (world.status, world.terminal_detail)
    assert 12 == len(rec.requests) and 2 == agent.total.auto_advances


def _tool_messages(rec: Recorder, turn: int) -> list[str]:
    """The tool messages the model saw on ``turn`` (1-based): the results of the turn before."""
    return [m["content"] for m in rec.requests[turn - 1][0] if m["role"] == "tool"]


def test_reference_sends_the_reference_harness_result_objects():
    """Preset reference: each tool message is YC-Bench's executor result (ok, exit code, stdout, stderr, command)."""
    first = calls(
        "yc-bench company status", "yc-bench task accept --task-id Task-99999", "yc-bench task accept",
        "market browse", "yc-bench market browse --limit 'x",
    )
    world, _, rec = play(scripted(first), preset="reference", max_turns=2)
    ok_, refused, usage, unprefixed, unquoted = map(json.loads, _tool_messages(rec, 2))
    assert ["ok", "exit_code", "stdout", "stderr", "sim_time", "command"] == list(ok_)
    assert (True, 0, "", None, "yc-bench company status") == (
        ok_["ok"], ok_["exit_code"], ok_["stderr"], ok_["sim_time"], ok_["command"])
    assert ok_["stdout"].startswith('{\n  "company_id": "') and ok_["stdout"].endswith("\n  }\n}\n")
    assert (False, 1, '{"error": "Task \'Task-99999\' not found."}\n', "") == (
        refused["ok"], refused["exit_code"], refused["stdout"], refused["stderr"])
    assert (False, 2, "") == (usage["ok"], usage["exit_code"], usage["stdout"]) and usage["stderr"].startswith("Error: ")
    assert (2, "only top-level `yc-bench` commands are allowed") == (unprefixed["exit_code"], unprefixed["stderr"])
    assert (2, "invalid command syntax: yc-bench market browse --limit 'x") == (unquoted["exit_code"], unquoted["stderr"])
    logged = [name for _, name, _ in world.trajectory.of_kind("cmd")]
    assert "market browse" not in logged  # refused by the command policy: nothing ran
    tool = rec.requests[0][1][0]["function"]
    assert tool["description"].startswith("Execute one benchmark CLI command inside the sandbox")


def test_default_sends_the_result_itself_as_compact_json():
    _, _, rec = play(scripted(calls("yc-bench company status", "market browse --limit 1")), max_turns=2)
    status, browse = map(json.loads, _tool_messages(rec, 2))
    assert "BenchCo" == status["company_name"] and 1 == len(browse["tasks"])


def test_reference_runs_the_command_of_a_misnamed_tool_and_reads_arguments_as_its_harness_does():
    """YC-Bench's harness runs ``arguments["command"]`` whatever the tool is called; unreadable arguments run ""."""
    first = {"content": None, "tool_calls": [
        {"name": "bash", "arguments": {"command": "yc-bench company status"}},
        {"name": "run_command", "arguments": '{"command": '},
        {"name": "run_command", "arguments": json.dumps(json.dumps({"command": "yc-bench company status"}))},
    ]}
    _, agent, rec = play(scripted(first), preset="reference", max_turns=2)
    misnamed, broken, double = map(json.loads, _tool_messages(rec, 2))
    assert (0, "yc-bench company status") == (misnamed["exit_code"], misnamed["command"])
    assert (2, "", "command must be a non-empty string") == (broken["exit_code"], broken["command"], broken["stderr"])
    assert (2, "command must be a non-empty string") == (double["exit_code"], double["stderr"])
    assert 1 == agent.total.unknown_tools


def test_reference_adds_no_harness_notes_and_no_empty_events_section():
    """Preset reference: no note after an empty reply or an automatic resume, no events section when it reported none.

    Other presets tell the model all three.
    """
    empty = {"content": None, "tool_calls": []}
    idle = [calls("yc-bench company status")] * 5
    for preset, expect, left in (("reference", False, 18), ("default", True, 19)):
        _, _, rec = play(scripted(empty, *idle), preset=preset, max_turns=8)
        users = rec.users()
        assert f"; {left} more turns before" in users[1]  # the reference counts down from the turn label
        assert expect == ("previous reply was empty" in users[1]), preset
        assert expect == any("ran `yc-bench sim resume` for you" in u for u in users), preset
        assert expect == any("### Events since last turn\n- (none)" in u for u in users), preset
        assert {"role": "assistant", "content": ""} == rec.requests[1][0][-2]  # never null content without calls


def test_reference_event_lines_print_whole_dollars():
    _, _, rec = play(greedy_policy, preset="reference", max_turns=12)
    lines = [line for u in rec.users() for line in u.splitlines() if ": SUCCESS" in line]
    assert lines and all(re.search(r"SUCCESS \+\$[\d,]+ \[ahead by \d+h\] \| \d employees, \+\$[\d,]+/mo payroll$", line)
                         for line in lines), lines


def test_help_flags_are_answered_and_only_the_reference_harness_s_resume_lines_count_there():
    """``--help`` prints help (exit 0 on preset reference) and changes nothing; on reference a resume counts only as
    YC-Bench's harness counts one, a line starting with ``yc-bench sim resume`` that prints a result."""
    lines = ["yc-bench task --help", "yc-bench market browse --help", "yc-bench  sim resume", "yc-bench sim resume --x"]
    turns = [calls(line) for line in lines]
    world, agent, rec = play(scripted(*turns), preset="reference", max_turns=5)
    group, one, spaced, flagged = map(json.loads, _tool_messages(rec, 5)[:4])
    assert (0, True) == (group["exit_code"], group["stdout"].startswith("task accept"))
    assert one["stdout"].startswith("market browse [--domain")
    assert 2 == flagged["exit_code"] and 0 == agent.total.resumes  # neither the spaced line nor the flagged one
    assert "2025-01-01" in world.now_iso
    _, own, rec = play(scripted(*[calls(line) for line in lines]), max_turns=5)
    assert "task accept" in json.loads(_tool_messages(rec, 5)[0])["help"]
    assert 2 == own.total.resumes  # bizsim's own harness counts a refused resume by the command it names

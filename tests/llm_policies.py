"""Scripted "models" for the LLM harness tests: policies reading the conversation like an LLM would.

A policy is ``policy(messages, tools) -> {"content", "tool_calls"}``. The same
function plays in-process (``ScriptedClient``) and over HTTP (the loopback
server), so the two paths can be compared call for call.
"""

from __future__ import annotations

import json
import re

__all__ = ["active_tasks", "calls", "chatty_policy", "export_policy", "greedy_policy", "last_round_results", "lazy_policy"]

_ACTIVE = re.compile(r"- \**Active tasks\**: (\d+)")  # bizsim's status line, or the reference's (bold)


def calls(*commands: str) -> dict:
    """An answer running ``commands`` through ``run_command``."""
    return {"content": None, "tool_calls": [{"name": "run_command", "arguments": {"command": c}} for c in commands]}


def last_round_results(messages: list[dict]) -> dict[str, dict]:
    """The previous turn's results, by command line (tool messages between the last assistant and the last user)."""
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    commands: dict[str, str] = {}
    out: dict[str, dict] = {}
    for m in messages[:last_user]:
        if m["role"] == "assistant":
            commands = {c["id"]: _command_of(c["function"]["arguments"]) for c in m.get("tool_calls") or []}
            out = {}
        elif m["role"] == "tool":
            out[commands.get(m["tool_call_id"], "?")] = _result_of(m["content"])
    return out


def _result_of(content: str) -> dict:
    """A tool message's result: the JSON itself, or what the stdout of YC-Bench's result object holds (preset reference)."""
    try:
        data = json.loads(content)
        if isinstance(data, dict) and {"exit_code", "stdout", "stderr"} <= set(data):
            return json.loads(data["stdout"]) if data["stdout"] else {"error": data["stderr"]}
        return data
    except json.JSONDecodeError:
        return {"error": content}


def _command_of(arguments: str) -> str:
    try:
        return str(json.loads(arguments).get("command", ""))
    except (json.JSONDecodeError, AttributeError):
        return "?"


def active_tasks(messages: list[dict]) -> int:
    """The active-task count in the latest status message (0 on the start message, which has it too)."""
    text = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    found = _ACTIVE.search(text or "")
    return int(found.group(1)) if found else 0


def _employee_names(messages: list[dict]) -> list[str] | None:
    for m in reversed(messages):
        if m["role"] == "tool" and '"employees":[' in (m.get("content") or ""):
            return [e["name"] for e in json.loads(m["content"])["employees"]]
    return None


def greedy_policy(messages: list[dict], tools: list[dict] | None) -> dict:
    """The paper's greedy floor as a "model": one task at a time, the top-paying one, everyone on it.

    It browses when no task is active, takes the first listed task on the
    next turn (accept, assign all, dispatch, resume in one reply), and
    otherwise resumes. It issues the same state-changing commands, at the
    same simulated instants, as the native ``greedy`` agent.
    """
    previous = last_round_results(messages)
    browse = next((r for c, r in previous.items() if c.startswith("yc-bench market browse")), None)
    if browse is not None and browse.get("tasks"):
        task = browse["tasks"][0]["task_id"]
        names = _employee_names(messages) or [f"Emp_{i}" for i in range(1, 9)]
        return calls(
            f"yc-bench task accept --task-id {task}",
            f"yc-bench task assign --task-id {task} --employees {','.join(names)}",
            f"yc-bench task dispatch --task-id {task}",
            "yc-bench sim resume",
        )
    if active_tasks(messages) == 0:
        return calls("yc-bench employee list", "yc-bench market browse --limit 1")
    return calls("yc-bench sim resume")


def lazy_policy(messages: list[dict], tools: list[dict] | None) -> dict:
    """Like greedy, but never calls ``sim resume``: only the harness's auto-advance moves time."""
    previous = last_round_results(messages)
    browse = next((r for c, r in previous.items() if c.startswith("yc-bench market browse")), None)
    if browse is not None and browse.get("tasks"):
        task = browse["tasks"][0]["task_id"]
        return calls(
            f"yc-bench task accept --task-id {task}",
            f"yc-bench task assign --task-id {task} --employees {','.join(f'Emp_{i}' for i in range(1, 9))}",
            f"yc-bench task dispatch --task-id {task}",
        )
    if active_tasks(messages) == 0:
        return calls("yc-bench market browse --limit 1")
    return {"content": "Waiting for the work to finish.", "tool_calls": []}


_THOUGHT = ("Cash runway looks fine; the active task should finish before payroll. I will check the company "
            "status again before letting time pass, and note which clients paid late. ") * 2


def chatty_policy(looks: int):
    """Greedy, but ``looks`` status checks (with reasoning text) before every ``sim resume``."""
    state = {"looked": 0}

    def policy(messages: list[dict], tools: list[dict] | None) -> dict:
        answer = greedy_policy(messages, tools)
        resume = [c for c in answer["tool_calls"] if "sim resume" in c["arguments"]["command"]]
        if resume and state["looked"] < looks:  # everything greedy does, but look again instead of resuming
            state["looked"] += 1
            rest = [c for c in answer["tool_calls"] if c not in resume]
            return {"content": _THOUGHT, "tool_calls": rest + calls("yc-bench company status")["tool_calls"]}
        state["looked"] = 0
        return {"content": _THOUGHT, "tool_calls": answer["tool_calls"]}

    return policy


def export_policy():
    """Greedy, plus what the reference's plot scripts look for: a scratchpad note on the first turn, and the third
    task staffed with ``Emp_1`` alone (it runs late and fails). Teams are named in a fixed order, not in the
    order ``employee list`` happens to give (the reference's is its database's)."""
    state = {"accepted": 0, "noted": False}

    def policy(messages: list[dict], tools: list[dict] | None) -> dict:
        commands = [c["arguments"]["command"] for c in greedy_policy(messages, tools)["tool_calls"]]
        if any(c.startswith("yc-bench task accept") for c in commands):
            state["accepted"] += 1
            team = "Emp_1" if state["accepted"] == 3 else ",".join(f"Emp_{i}" for i in range(1, 9))
            commands = [re.sub(r"--employees \S+", f"--employees {team}", c) for c in commands]
        if not state["noted"]:
            state["noted"] = True
            commands.insert(0, 'yc-bench scratchpad write --content "Avoid clients whose work grows after acceptance"')
        return calls(*commands)

    return policy

"""Run directories for the viewer's tests: a baseline run, a short LLM run, a hostile LLM run, a small sweep."""

from __future__ import annotations

from pathlib import Path

from bizsim.agents.llm.scripted import ScriptedClient
from bizsim.runs.llm_run import run_llm
from bizsim.runs.runspec import RunSpec
from bizsim.cli.main import main

from .llm_policies import calls, chatty_policy, greedy_policy

#: Text no page may run or render as markup.
HOSTILE = '</script><script>window.pwned=1</script><img src=x onerror="window.pwned=2"><!--'


def baseline_run(out: Path, agent: str = "greedy", seed: int = 1) -> Path:
    """``bizsim run startup --agent AGENT --out OUT``."""
    assert 0 == main(["run", "startup", "--agent", agent, "--seed", str(seed), "--out", str(out), "--json",
                      "--no-progress"])
    return out


def llm_run(out: Path, max_turns: int = 24) -> Path:
    """A short LLM run of the startup world, the model played in-process by the greedy policy."""
    spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": max_turns})
    run_llm(spec, out=out, client=ScriptedClient(greedy_policy))
    return out


def long_llm_run(out: Path, turns: int = 2000) -> Path:
    """A startup LLM run of ``turns`` model calls: the greedy year (117 calls, 64 resumes) with status checks (and
    a paragraph of reasoning) added before each resume until ``max_turns`` stops it."""
    # The harness would advance time itself after 5 idle turns (YC-Bench's rule); the scripted model advances.
    options = {"model": "scripted", "max_turns": turns, "auto_advance": 0, "max_stalled_turns": 1000}
    spec = RunSpec("startup", "default", "llm", 1, agent_options=options)
    run_llm(spec, out=out, client=ScriptedClient(chatty_policy((turns - 117) // 64 + 1)))
    return out


def hostile_policy(messages: list[dict], tools: list[dict] | None) -> dict:
    """Says and writes markup, then plays greedy."""
    answer = greedy_policy(messages, tools)
    if len([m for m in messages if m["role"] == "assistant"]) < 2:
        return {"content": HOSTILE, "tool_calls": calls(f"yc-bench scratchpad write --content '{HOSTILE}'",
                                                          "yc-bench market browse --limit 1")["tool_calls"]}
    return answer


def hostile_llm_run(out: Path) -> Path:
    """An LLM run whose model answers with markup and writes it to its scratchpad."""
    spec = RunSpec("startup", "default", "llm", 1, agent_options={"model": "scripted", "max_turns": 6})
    run_llm(spec, out=out, client=ScriptedClient(hostile_policy))
    return out


def _note_taker(messages: list[dict], tools: list[dict] | None) -> dict:
    """Writes a note, appends to it, then ends each day."""
    said = len([m for m in messages if m["role"] == "assistant"])
    if said < 2:
        note = {"content": "buy low"} if said == 0 else {"content": "sell high", "mode": "append"}
        return {"content": None, "tool_calls": [{"name": "memory_note", "arguments": note}]}
    return {"content": None, "tool_calls": [{"name": "task_done", "arguments": {}}]}


def memory_llm_run(out: Path) -> Path:
    """A vending LLM run with the scratchpad (note tool) and rolling-window memories: its notes change twice."""
    spec = RunSpec("vending", "default", "llm", 1,
                   agent_options={"model": "scripted", "max_turns": 5, "memory": ["scratchpad", "window"]})
    run_llm(spec, out=out, client=ScriptedClient(_note_taker))
    return out


def fork_family(out: Path) -> Path:
    """``out/parent`` (greedy), ``out/random-10`` (random, forked after its turn 10), ``out/greedy-14`` (greedy,
    forked from random-10 after turn 14)."""
    baseline_run(out / "parent")
    for parent, turn, agent in (("parent", 10, "random"), ("random-10", 14, "greedy")):
        assert 0 == main(["fork", str(out / parent), "--at-turn", str(turn), "--agent", agent,
                          "--out", str(out / f"{agent}-{turn}"), "--json"])
    return out


def small_sweep(out: Path) -> Path:
    """Startup, greedy and random, two seeds, with run directories."""
    assert 0 == main(["sweep", "--world", "startup", "--agent", "greedy", "random", "--seeds", "1-2", "--out", str(out),
                      "--backend", "serial", "--run-dirs", "--no-progress"])
    return out

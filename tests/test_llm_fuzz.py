"""A model that answers garbage: the harness never crashes, and a run resumed from any cut of its log is the same run."""

from __future__ import annotations

import hashlib
import json
import random
import shutil

import pytest
from bizsim.agents.llm import LLMAgentConfig, ScriptedClient
from bizsim.agents.llm.errors import TransientModelError
from bizsim.runs import RunSpec, resume_llm, run_llm
from hypothesis import given, settings
from hypothesis import strategies as st

_GARBAGE_ARGS = ["", " ", "not json{", "[]", "null", "123", '{"command": 5}', '{"command": null}', "\x00", "a" * 3000]
_COMMANDS = ["sim resume", "market browse", "task accept", "task assign", "task dispatch", "company status",
             "task cancel", "scratchpad write", "help", "products_research", "order_place", "price_set", "task_done",
             "task_inspect", "solution_submit", "tasks_discover", "energy_restore", "creator_incentive"]
_OPTIONS = ["task-id", "limit", "employees", "domain", "content", "query", "quantity", "price", "product-name",
            "level", "answer"]
_VALUES = [None, 0, -1, 1, 2.5, 1e308, -0.0, "", "x", "Task-1", "Emp_1,Emp_2", "medium", [1], {"a": 1}, True, "💥",
           "a" * 300]


def _garbage_policy(seed: int):
    """A "model" whose answers depend only on the seed and the conversation (so a resume meets the same ones)."""

    def policy(messages, tools):
        digest = hashlib.sha256((str(seed) + json.dumps(messages[-1:], sort_keys=True)).encode()).digest()
        rng = random.Random(int.from_bytes(digest[:8], "big") ^ len(messages))
        names = [t["function"]["name"] for t in tools or []]
        calls = []
        for _ in range(rng.choice([0, 1, 1, 2, 3, 4])):
            name = rng.choice(names) if names and rng.random() < 0.85 else rng.choice(["", "nope", "RUN_COMMAND"])
            tool = next((t for t in tools or [] if t["function"]["name"] == name), {})
            kind = rng.random()
            if kind < 0.15:
                args = rng.choice(_GARBAGE_ARGS)
            elif name == "run_command" or kind < 0.3:
                opts = " ".join(f"--{rng.choice(_OPTIONS)} {json.dumps(rng.choice(_VALUES))}" for _ in range(rng.randint(0, 3)))
                args = {"command": f"{rng.choice(_COMMANDS)} {opts}".strip()}
            else:
                keys = [*tool.get("function", {}).get("parameters", {}).get("properties", {}), "bogus"]
                args = {k: rng.choice(_VALUES) for k in rng.sample(keys, rng.randint(0, len(keys)))}
            calls.append({"name": name, "arguments": args})
        return {"content": rng.choice([None, "", "thinking...", "a" * 100]), "tool_calls": calls}

    return policy


def _flaky(seed: int):
    return lambda i: TransientModelError("503 flaky") if random.Random(seed * 100_003 + i).random() < 0.08 else None


def _without_failure_counts(data):
    # Injected faults follow the call index, so a resumed client meets other ones: only these counts may differ.
    if isinstance(data, dict):
        return {k: _without_failure_counts(v) for k, v in data.items()
                if k not in ("api_errors", "failed_attempts", "run_dir", "replayed_calls", "live_calls", "wall_s")}
    if isinstance(data, list):
        return [_without_failure_counts(v) for v in data]
    return data


@pytest.mark.parametrize("world", ["startup", "operation", "vending", "freelance"])
@settings(max_examples=6)
@given(seed=st.integers(0, 10**6), cut=st.floats(0, 1))
def test_garbage_answers_never_break_a_run_and_any_cut_resumes_to_the_same_run(world, seed, cut, tmp_path_factory):
    """Random tool names, invalid or mistyped arguments, empty replies and 503s: the run ends normally, and resuming
    from the first part of its log reproduces it."""
    root = tmp_path_factory.mktemp("fuzz")
    out, copy = root / "whole", root / "cut"
    spec = RunSpec(world, agent="llm", seed=seed % 50 + 1, agent_options=LLMAgentConfig(model="scripted", max_turns=30))
    whole = run_llm(spec, out=out, client=ScriptedClient(_garbage_policy(seed), faults=_flaky(seed)), sleep=lambda s: None)
    assert whole.terminal_reason is not None
    lines = (out / "llm_calls.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    copy.mkdir()
    shutil.copy(out / "run.json", copy / "run.json")
    (copy / "llm_calls.jsonl").write_text("".join(lines[: int(cut * len(lines))]), encoding="utf-8")
    again = resume_llm(copy, client=ScriptedClient(_garbage_policy(seed), faults=_flaky(seed + 1)), sleep=lambda s: None)
    assert _without_failure_counts(whole.to_dict()) == _without_failure_counts(again.to_dict())

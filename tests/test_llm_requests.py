"""Whatever the model answered, every request the harness sends is one a strict chat API accepts."""

from __future__ import annotations

import json
import re

import pytest
from bizsim.agents.llm import LLMAgent, ScriptedClient
from bizsim.models import make_world

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def problems(messages: list[dict], tools: list[dict] | None) -> list[str]:
    """What a strict OpenAI-compatible API would refuse in a request."""
    out = []
    seen: set[str] = set()
    open_ids: list[str] = []
    for i, m in enumerate(messages):
        for text in (m.get("content"),):
            if isinstance(text, str):
                try:
                    text.encode("utf-8")
                except UnicodeEncodeError:
                    out.append(f"{i}: content is not UTF-8")
        if m["role"] == "tool":
            if not open_ids or m.get("tool_call_id") != open_ids.pop(0):
                out.append(f"{i}: tool message answers no pending call")
            continue
        if open_ids:
            out.append(f"{i}: calls left unanswered")
            open_ids = []
        if m["role"] == "assistant":
            calls = m.get("tool_calls") or []
            if not calls and not isinstance(m.get("content"), str):
                out.append(f"{i}: assistant message with neither content nor calls")
            for c in calls:
                fn = c["function"]
                if not _ID.match(c["id"]) or c["id"] in seen:
                    out.append(f"{i}: call id {c['id']!r} invalid or repeated")
                if not _NAME.match(fn["name"]) or not isinstance(fn["arguments"], str) or len(fn["arguments"]) > 20_000:
                    out.append(f"{i}: call {fn['name']!r} has an invalid name or arguments")
                seen.add(c["id"])
                open_ids.append(c["id"])
    out += [f"tool {t['function']['name']!r}" for t in tools or [] if not _NAME.match(t["function"]["name"])]
    return out


def odd(messages, tools):
    """Answers no API validates: reused and odd ids, invalid names, lone surrogates, huge and non-object arguments."""
    turn = sum(1 for m in messages if m["role"] == "assistant")
    name = tools[0]["function"]["name"]
    answers = [
        {"content": "thinking \ud800", "tool_calls": []},
        {"content": None, "tool_calls": []},
        {"content": None, "tool_calls": [{"id": "a", "name": "functions." + name, "arguments": "{}"},
                                         {"id": "a", "name": "no such tool!", "arguments": '{"k": "\\ud800"}'}]},
        {"content": None, "tool_calls": [{"id": "call 1", "name": "t\u00fcl", "arguments": "[1, 2]"}]},
        {"content": None, "tool_calls": [{"id": "x" * 200, "name": name + "\ud800", "arguments": "y" * 300_000}]},
        {"content": None, "tool_calls": [{"id": "", "name": "", "arguments": '{"\\ud800": {"deep": ["\\udfff"]}}'}]},
    ]
    return answers[turn % len(answers)]


@pytest.mark.parametrize(("world", "preset"), [
    ("startup", "default"), ("startup", "reference"), ("vending", "reference"), ("freelance", "default"),
])
def test_odd_answers_never_make_an_invalid_request_or_a_crash(world, preset):
    seen: list[list[str]] = []

    def checked(messages, tools):
        seen.append(problems(messages, tools))
        return odd(messages, tools)

    agent = LLMAgent(client=ScriptedClient(checked), max_turns=60, history_rounds=3, history_messages=12,
                     memory="window,scratchpad,state,episodic")
    world_ = make_world(world, preset, 1)
    world_.run(agent)
    assert 60 == len(seen) and "max_turns" == world_.terminal_detail
    assert [] == [p for request in seen for p in request]


def test_huge_model_text_does_not_pile_up_in_memory():
    """Thirty replies of 2 MB of text and 500 kB tool arguments: what the harness keeps stays bounded (oversized
    replies are clipped before the history keeps them), far below the 19 MB a turn a review once measured."""
    import gc
    import tracemalloc

    from bizsim.models.startup import StartupWorld

    def huge(messages, tools):
        command = f"yc-bench scratchpad write --content {'y' * 500_000}" if len(messages) % 2 else "yc-bench sim resume"
        return {"content": "x" * 2_000_000,
                "tool_calls": [{"name": "run_command", "arguments": json.dumps({"command": command})}]}

    gc.collect()
    tracemalloc.start()
    try:
        agent = LLMAgent(client=ScriptedClient(huge), model="scripted", max_turns=30)
        world = StartupWorld("default", 1)
        world.run(agent)
        gc.collect()
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert 30 == agent.total.turns
    assert kept < 20_000_000 and peak < 60_000_000, (kept, peak)

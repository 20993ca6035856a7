"""An LLM plays a vending arena seat through litellm and the loopback server: the arena's commands are its tools."""

from __future__ import annotations

import attrs

from bizsim.agents.vending import markup
from bizsim.models.vending.arena import VendingArena
from bizsim.models.vending.arena_config import ARENA_PRESETS
from bizsim.simcore.testing import assert_arena_replays

from .llm_server import LoopbackLLMServer, needs_litellm

needs_litellm()

WEEK = attrs.evolve(ARENA_PRESETS["small"], horizon_days=8)


def _policy(messages, tools):
    """Writes to the rival and looks at the market on day 0; afterwards ends each day."""
    names = {t["function"]["name"] for t in tools or []}
    assert {"message_send", "money_send", "goods_send", "market_view", "messages_read"} <= names
    said = any(m.get("role") == "tool" and "characters" in (m.get("content") or "") for m in messages)
    if not said:
        return {"content": "hello", "tool_calls": [
            {"name": "message_send", "arguments": {"to": 1, "text": "Hi seat 1, let us not undercut each other."}},
            {"name": "market_view", "arguments": {}}]}
    return {"content": "", "tool_calls": [{"name": "task_done", "arguments": {}}]}


def test_an_llm_seat_writes_to_its_rival_and_the_arena_replays():
    """Seat 0 is an LLM behind HTTP; its message reaches seat 1's inbox and the arena's record; the logs replay."""
    from bizsim.agents.llm import LiteLLMClient, LLMAgent

    model = "openai/loopback-arena"
    with LoopbackLLMServer(_policy, lifetime_s=120) as server:
        agent = LLMAgent(client=LiteLLMClient(model, api_base=server.url, api_key="sk-test"), model=model,
                         max_turns=40)
        arena = VendingArena(WEEK, 2, seats=2)
        arena.run([agent, markup])
    assert "horizon_reached" == arena.status.value
    sent = [d for _, name, d in arena.trajectory.of_kind("event") if name == "message"]
    assert [(0, 1, "Hi seat 1, let us not undercut each other.")] == [(d["from"], d["to"], d["text"]) for d in sent]
    assert [0] == [item["from"] for item in arena.inbox[1] if item["kind"] == "message"]
    assert_arena_replays(lambda: VendingArena(WEEK, 2, seats=2), arena)

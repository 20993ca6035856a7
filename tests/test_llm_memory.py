"""Memory modules: rolling window, state table, episodic store with time decay, scratchpad, and the manager."""

from __future__ import annotations

import math

import numpy as np
from bizsim.runs.recorder import RunDirRecorder
from bizsim.agents.llm import LLMAgent, ScriptedClient
from bizsim.agents.llm.memory import (
    EpisodicStore,
    HashingEmbedder,
    MemoryItem,
    MemoryManager,
    RollingWindow,
    ScratchpadMemory,
    StateTable,
)
from bizsim.simcore.jsonl import read_jsonl
from bizsim.models.startup import StartupWorld

from .llm_policies import greedy_policy


def item(text, turn=1, t_h=0.0, role="user", command=None, data=None):
    """A memory item."""
    return MemoryItem(text, role, turn, t_h, command, data)


def test_rolling_window_returns_newest_and_similar_older_items():
    """The two newest items always; older ones only when they share words with the query."""
    w = RollingWindow(size=5)
    for i, text in enumerate(["client Vanguard failed twice", "payroll paid", "weather is nice", "browse market", "accept task"]):
        w.add(item(text, turn=i))
    texts = [r.text for r in w.recall("is Vanguard a risky client", 0.0)]
    assert texts[:2] == ["(turn 4, user) accept task", "(turn 3, user) browse market"]
    assert "(turn 0, user) client Vanguard failed twice" in texts
    assert not any("weather" in t for t in texts)
    w.add(item("sixth", turn=5))
    assert all("turn 0" not in r.text for r in w.recall("Vanguard client", 0.0))  # fell out of the window


def test_state_table_keeps_latest_facts_and_ranks_by_key():
    """Facts from tool results, newest value wins, keys matching the query rank first."""
    t = StateTable(max_vars=50)
    t.add(item("", command="company status", data={"funds_cents": 100, "risk": {"bankrupt": False}}, role="tool"))
    t.add(item("", command="company status", data={"funds_cents": 250}, role="tool"))
    t.add(item("", command="task accept", data={"error": "nope"}, role="tool"))
    hits = t.recall("what are my funds", 0.0)
    assert "company status.funds_cents = 250" == hits[0].text
    assert hits[0].score > 1.0
    assert not any("task accept" in h.text for h in hits)


def test_episodic_score_is_cosine_times_time_decay():
    """score = cosine × exp(−λ·Δt days): an old memory ranks below an equally similar recent one."""
    e = EpisodicStore(HashingEmbedder(dim=128), decay_per_day=0.1, top=5, threshold=0.0)
    e.add(item("Vanguard ML inflated the task scope", turn=1, t_h=0.0))
    e.add(item("Vanguard ML inflated the task scope again", turn=9, t_h=24.0 * 30))
    hits = e.recall("Vanguard ML inflated the task scope", 24.0 * 40)
    assert [9, 1] == [h.turn for h in hits]
    emb = HashingEmbedder(dim=128)
    q, old = emb(["Vanguard ML inflated the task scope"])[0], emb(["Vanguard ML inflated the task scope"])[0]
    assert math.isclose(float(q @ old) * math.exp(-0.1 * 40), hits[1].score)


def test_hashing_embedder_is_deterministic_and_unit_length():
    """Same text, same vector, in any process; vectors have length 1."""
    a = HashingEmbedder(64)(["payroll is due", ""])
    assert np.allclose(a, HashingEmbedder(64)(["payroll is due", ""]))
    assert math.isclose(float(np.linalg.norm(a[0])), 1.0) and 0.0 == float(np.linalg.norm(a[1]))


def test_manager_merges_dedupes_and_limits():
    """Recalls from all modules, best first, no duplicate text, at most ``limit``."""
    w1, w2 = RollingWindow(), RollingWindow()
    m = MemoryManager([w1, w2], limit=3)
    m.observe([item("alpha beta", turn=1), item("gamma", turn=2), item("delta", turn=3)])
    recalls = m.recall("alpha", 0.0)
    assert len(recalls) == 3 and len({r.text for r in recalls}) == 3
    assert m.section("alpha", 0.0).startswith("\n\n## Memory (retrieved for this turn)\nRecent history:")
    assert "" == MemoryManager([]).section("x", 0.0)


def test_scratchpad_memory_reads_the_worlds_notes():
    """With a world scratchpad the module shows it and offers no tool."""
    world = StartupWorld("default", 1)
    world.scratchpad = "avoid Vanguard"
    s = ScratchpadMemory(world)
    assert [] == s.tools() and "avoid Vanguard" in s.recall("", 0.0)[0].text


def test_agent_with_all_memories_is_deterministic():
    """Memory sections reach the system prompt, and two runs send identical requests."""
    def run():
        seen = []

        def policy(messages, tools):
            seen.append(messages[0]["content"])
            return greedy_policy(messages, tools)

        agent = LLMAgent(client=ScriptedClient(policy), memory="window,state,episodic,scratchpad", max_turns=25)
        StartupWorld("default", 1).run(agent)
        return seen

    first, second = run(), run()
    assert first == second
    assert "## Memory (retrieved for this turn)" in first[-1]
    assert "Variables:" in first[-1] and "Relevant memories:" in first[-1]


def test_provider_embeddings_are_recorded_and_replayed(tmp_path):
    """Embeddings from the provider go through the call log and are replayed on resume."""
    cfg = {"memory": "episodic", "embedder": "provider:embed-model", "max_turns": 6}
    first = LLMAgent(client=ScriptedClient(greedy_policy), logs=RunDirRecorder(tmp_path), **cfg)
    w1 = StartupWorld("default", 1)
    w1.run(first)
    first.close()
    kinds = [r["kind"] for r in read_jsonl(tmp_path / "llm_calls.jsonl")]
    assert kinds.count("embed") >= 1 and kinds.count("chat") == 6
    client = ScriptedClient(greedy_policy)
    again = LLMAgent(client=client, logs=RunDirRecorder(tmp_path), resume=True, **cfg)
    w2 = StartupWorld("default", 1)
    w2.run(again)
    assert 0 == client.calls and w1.state() == w2.state()


def test_one_message_recalled_by_two_modules_is_shown_once():
    """De-duplication compares the message, not the modules' labels: the window and the episodic store recalling the
    same message give one line (EcoGym's manager compares the raw content)."""
    window, episodic = RollingWindow(size=5), EpisodicStore(HashingEmbedder(dim=64), threshold=0.0)
    manager = MemoryManager([window, episodic])
    manager.observe([item("sold 12 units of sparkling water", turn=1)])
    recalls = manager.recall("sparkling water sold", 1.0)
    assert 1 == len(recalls) and 1 == manager.section("sparkling water sold", 1.0).count("sold 12 units")


def test_notes_are_shown_in_full():
    """The note tool takes up to 20,000 characters, and the memory section shows every one of them."""
    pad = ScratchpadMemory()
    notes = "; ".join(f"rule {n:04d}" for n in range(1500))
    assert 16_000 < len(notes) <= 20_000 and pad.handle_tool("memory_note", {"content": notes})["ok"]
    assert "rule 1499" in MemoryManager([pad]).section("", 0.0)

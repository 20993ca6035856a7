"""The block-dropping window: YC-Bench's K rounds, but old rounds leave B at a time so the prefix stays stable."""

from __future__ import annotations

import json

import pytest
from bizsim.agents.llm import LLMAgent, ScriptedClient
from bizsim.models.startup import StartupWorld
from bizsim.simcore.errors import ConfigError

from .llm_policies import greedy_policy


def _requests(**options) -> list[list[dict]]:
    """The messages of every request of a greedy year's first 40 turns."""
    sent: list[list[dict]] = []

    def policy(messages, tools):
        sent.append(json.loads(json.dumps(messages)))
        return greedy_policy(messages, tools)

    StartupWorld("default", 1).run(LLMAgent(client=ScriptedClient(policy), max_turns=40, **options))
    return sent


def _rounds(messages: list[dict]) -> int:
    """User messages after the system prompt, the history marker excluded: the rounds shown."""
    users = [m for m in messages[1:] if m["role"] == "user"]
    return len(users) - (1 if users and "earlier" in str(users[0]["content"]).lower() else 0)


def test_blocks_keep_k_to_k_plus_b_rounds_and_the_prefix_stable_between_drops():
    """With K=3 and B=4 a turn shows 3 to 6 earlier rounds, dropping 4 at once; between drops every request
    starts with the whole previous one (what a prefix cache serves), where YC-Bench's window slides every turn."""
    block = _requests(history_rounds=3, history_block_rounds=4)
    shown = [_rounds(m) - 1 for m in block]
    assert [0, 1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3] == shown[:12]
    assert "the last 3 to 6 turns are kept" in block[7][1]["content"]  # the marker says what the window keeps
    extends = [block[i][1:len(block[i - 1])] == block[i - 1][1:] for i in range(1, len(block))]
    drops = [i for i in range(1, len(block)) if shown[i] < shown[i - 1]]
    assert all(ok for i, ok in enumerate(extends, 1) if i not in drops) and drops == list(range(7, len(block), 4))
    sliding = _requests(history_rounds=3)
    assert [min(i, 3) for i in range(len(sliding))] == [_rounds(m) - 1 for m in sliding]
    assert not any(sliding[i][1:len(sliding[i - 1])] == sliding[i - 1][1:] for i in range(5, len(sliding)))


def test_the_block_window_is_refused_where_it_would_misreport():
    """Preset reference (YC-Bench's window exactly) and the EcoGym worlds refuse the option, naming it."""
    with pytest.raises(ConfigError, match=r"history_block_rounds\(=4\) changes what the model sees"):
        StartupWorld("reference", 1).run(LLMAgent(client=ScriptedClient([]), history_block_rounds=4, max_turns=1))
    from bizsim.simcore.registry import world_spec

    vending = world_spec("vending").make("default", 1)
    with pytest.raises(ConfigError, match=r"history_block_rounds\(=4\) sets YC-Bench's window"):
        vending.run(LLMAgent(client=ScriptedClient([]), history_block_rounds=4, max_turns=1))

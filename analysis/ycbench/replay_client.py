"""A model client that answers with a recorded rollout's turns, and sees what bizsim's harness sent back.

Each model call of the replay is answered with the next recorded turn: its
commands as ``run_command`` calls (the model's own text when it called no
tool), its recorded tokens, and its recorded cost as the call's price. The
client keeps, per call, the user message bizsim sent and the tool messages
that answered the turn before, which is what the fidelity report compares.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bizsim.agents.llm.errors import FatalModelError
from bizsim.agents.llm.types import ModelResponse, ToolCall, Usage

from bizsim.analysis.ycbench.rollout import Episode, Turn

__all__ = ["RolloutClient"]


class RolloutClient:
    """``complete()`` plays the recorded turns in order, episode by episode; past the last one it fails.

    A request whose conversation holds a single user message starts an episode: from the second episode
    on, the client moves to the next recorded episode (turns the replay's earlier episode did not use are
    counted in :attr:`unused`).
    """

    endpoint = "recorded-rollout"

    def __init__(self, episodes: Sequence[Episode], model: str) -> None:
        self.model = model
        self._episodes = list(episodes)
        self._ep = 0
        self._next = 0
        self._calls = 0
        self._cost: float | None = None
        #: per call: (episode index, the Turn served, the user text bizsim sent, tool texts answering the call before)
        self.seen: list[dict[str, Any]] = []
        self.unused: dict[int, int] = {}

    def cost(self, model: str, usage: Usage) -> float | None:
        """The recorded cost of the turn just served (``None``: the rollout kept no per-turn cost)."""
        return self._cost

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, **params: Any) -> ModelResponse:
        """The next recorded turn as the model's answer."""
        users = [m for m in messages if m.get("role") == "user"]
        if self._calls and len(users) == 1:  # a new episode's first request
            self._close_episode()
            self._ep += 1
            self._next = 0
        self._calls += 1
        if self.seen:
            self.seen[-1]["tool_texts"] = _tool_texts(messages)
        turns = self._episodes[self._ep].turns if self._ep < len(self._episodes) else ()
        if self._next >= len(turns):
            where = f"episode {self._ep + 1}" if self._ep < len(self._episodes) else "any episode"
            raise FatalModelError(f"the recorded run has no turn {self._next + 1} in {where}: the replay went on "
                                  "longer than the reference run did")
        turn = turns[self._next]
        self._next += 1
        self.seen.append({"episode": self._ep + 1, "turn": turn, "user": str(users[-1].get("content") or "") if users
                          else "", "tool_texts": None})
        self._cost = turn.cost_usd
        calls = tuple(ToolCall(f"call_{self._ep + 1}_{turn.number}_{i}", "run_command",
                               json.dumps({"command": c.command}))
                      for i, c in enumerate(turn.calls))
        # With tool calls, the reference records its own summary, not the model's text: none is replayed then.
        content = None if calls else turn.agent_output
        return ModelResponse(content=content, tool_calls=calls,
                             usage=Usage(turn.prompt_tokens or 0, turn.completion_tokens or 0), model=self.model,
                             finish_reason="tool_calls" if calls else "stop")

    def finish(self) -> None:
        """Count the recorded turns the replay did not use (call once the run ended)."""
        self._close_episode()
        for n in range(self._ep + 1, len(self._episodes)):
            self.unused[n + 1] = len(self._episodes[n].turns)

    def _close_episode(self) -> None:
        if self._ep < len(self._episodes):
            left = len(self._episodes[self._ep].turns) - self._next
            if left > 0:
                self.unused[self._ep + 1] = left


def _tool_texts(messages: Sequence[dict]) -> list[str]:
    """The tool messages after the last assistant message: the results of the turn before this request."""
    out: list[str] = []
    for m in reversed(messages):
        role = m.get("role")
        if role == "assistant":
            break
        if role == "tool":
            out.append(str(m.get("content") or ""))
    return out[::-1]


def served_turns(client: RolloutClient) -> list[tuple[int, Turn, str, list[str | None] | None]]:
    """``(episode, recorded turn, user text bizsim sent, tool texts bizsim answered with)`` per call."""
    return [(s["episode"], s["turn"], s["user"], s["tool_texts"]) for s in client.seen]

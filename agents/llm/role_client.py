"""A model client for a world's own LLM roles (the freelance auditor) that shares an agent's gateway."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .gateway import request_digest
from bizsim.simcore.digests import canonical_digest as digest
from .sent import SentLog
from .stats import HarnessStats
from .types import ModelResponse

if TYPE_CHECKING:
    from .agent import LLMAgent

__all__ = ["RoleClient"]


class RoleClient:
    """``complete(messages, tools, **params)`` through an :class:`~bizsim.agents.llm.LLMAgent`'s gateway.

    The role's calls interleave with the agent's in ``llm_calls.jsonl``
    (tagged with ``role``), so a resumed run replays them in order like the
    agent's own; they are retried, limited and priced the same way. They are
    counted in :attr:`stats`, not as agent turns.

    Args:
        agent: the agent whose model, gateway and run log the role uses.
        role: the tag written with each call (``auditor``).
    """

    def __init__(self, agent: LLMAgent, role: str = "auditor") -> None:
        self.agent = agent
        self.role = role
        self.stats = HarnessStats()
        self.endpoint = getattr(agent.client, "endpoint", agent.config.model)

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None = None, **params: Any) -> ModelResponse:
        """One answered call (replayed while the run's recorded answers last)."""
        request = request_digest(self.agent.config.model, params, digest(tools), [digest(m) for m in messages])
        meta: dict[str, Any] = {"episode": self.agent.episode, "role": self.role, "call": self.stats.turns + 1}
        if self.agent.gateway.log is not None:  # nothing is written without a run directory
            meta["sent"] = SentLog.role(messages, tools, self.agent.config.model, params, None)
        response, failed = self.agent.gateway.chat(list(messages), tools, params, request, meta)
        usage = response.usage
        self.stats.add_call(usage, response.cost_usd, failed)
        return response

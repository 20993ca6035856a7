"""An in-process model client playing a scripted policy: deterministic agent tests, no network."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .errors import FatalModelError, TransientModelError
from .types import ModelResponse, ToolCall, Usage

__all__ = ["Policy", "ScriptedClient", "reply"]

#: ``policy(messages, tools) -> {"content": str | None, "tool_calls": [{"name", "arguments"}]}``; an answer may
#: also hold ``"echo"`` and a call ``"provider_fields"`` (see :class:`~bizsim.agents.llm.types.ModelResponse`).
Policy = Callable[[list[dict], list[dict] | None], dict]


def reply(*commands: str, content: str | None = None, tool: str = "run_command") -> dict:
    """A policy answer issuing ``commands`` through ``run_command``.

    >>> reply("company status")["tool_calls"]
    [{'name': 'run_command', 'arguments': {'command': 'company status'}}]
    """
    return {"content": content, "tool_calls": [{"name": tool, "arguments": {"command": c}} for c in commands]}


def _default_usage(messages: Sequence[dict], answer: dict) -> Usage:
    prompt = max(1, sum(len(str(m.get("content") or "")) for m in messages) // 4)
    text = (answer.get("content") or "") + "".join(str(c.get("arguments")) for c in answer.get("tool_calls") or [])
    return Usage(prompt, 1 + len(text) // 4)


class ScriptedClient:
    """A :class:`~bizsim.agents.llm.client.ModelClient` answering from Python.

    Args:
        policy: ``policy(messages, tools) -> answer``, or an iterable of
            answers played in order (then ``"stop"`` answers with no tool call).
        model: the model name reported (price it with ``prices=`` on the agent).
        usage: ``usage(messages, answer) -> Usage``; default: about four
            characters a token.
        faults: ``faults(index) -> Exception | None``: raise this instead of
            answering call ``index`` (0-based), to test retries and aborts.
        endpoint: the endpoint key for per-endpoint concurrency limits.
        delay_s: sleep this long per call (a slow model).
    """

    def __init__(
        self,
        policy: Policy | Iterable[dict],
        *,
        model: str = "scripted",
        usage: Callable[[Sequence[dict], dict], Usage] | None = None,
        faults: Callable[[int], Exception | None] | None = None,
        endpoint: str = "scripted",
        delay_s: float = 0.0,
    ) -> None:
        if callable(policy):
            self._policy: Policy = policy
        else:
            answers = iter(list(policy))
            self._policy = lambda messages, tools: next(answers, {"content": "stop", "tool_calls": []})
        self.model = model
        self.endpoint = endpoint
        self._usage = usage or _default_usage
        self._faults = faults
        self.delay_s = delay_s
        self.calls = 0          # complete() calls, faults included
        self.answered = 0       # calls the policy answered

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, **params: Any) -> ModelResponse:
        """Answer one request with the policy (or raise the scripted fault)."""
        index = self.calls
        self.calls += 1
        if self._faults is not None:
            fault = self._faults(index)
            if fault is not None:
                if not isinstance(fault, (TransientModelError, FatalModelError)):
                    raise TypeError(f"faults({index}) must return a ModelError, got {fault!r}")
                raise fault
        start = time.perf_counter()
        if self.delay_s:
            time.sleep(self.delay_s)
        answer = self._policy(list(messages), list(tools) if tools else None)
        self.answered += 1
        seed = hashlib.sha256(json.dumps(list(messages)[-1:], sort_keys=True).encode()).hexdigest()[:10]
        calls = tuple(
            ToolCall(
                f"call_{seed}_{i}",
                str(c.get("name", "")),
                c["arguments"] if isinstance(c.get("arguments"), str) else json.dumps(c.get("arguments", {})),
                dict(c.get("provider_fields") or {}),
            )
            for i, c in enumerate(answer.get("tool_calls") or [])
        )
        return ModelResponse(
            content=answer.get("content"),
            tool_calls=calls,
            usage=self._usage(messages, answer),
            latency_s=time.perf_counter() - start,
            model=self.model,
            finish_reason="tool_calls" if calls else "stop",
            echo=dict(answer.get("echo") or {}),
        )

    def embed(self, texts: Sequence[str], model: str | None = None) -> list[list[float]]:
        """Deterministic pseudo-embeddings (the hashing embedder's), for tests of provider embeddings."""
        from .memory.embed import HashingEmbedder

        return [list(map(float, v)) for v in HashingEmbedder(dim=64).embed(texts)]

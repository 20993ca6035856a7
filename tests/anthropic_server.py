"""A loopback server speaking Anthropic's Messages API, with its rule for models that think.

With ``thinking`` enabled, Anthropic refuses a request whose tool-use loop is
open (the last user message holds tool results) unless the last assistant
message starts with a thinking block, and it refuses a thinking block whose
signature it did not issue for that text. This server applies both rules,
so a harness that drops or alters the blocks fails here as it would there.
Policies see the messages in Anthropic's format and answer a
:data:`~tests.llm_server.Reply`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .llm_server import LoopbackLLMServer, Reply

__all__ = ["LoopbackAnthropicServer", "signature_of"]


def signature_of(thinking: str) -> str:
    """The signature this server issues for a thinking text."""
    return hashlib.sha256(b"loopback-thinking:" + thinking.encode()).hexdigest()


def _refusal(message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": "invalid_request_error", "message": message}}).encode()


def _rule_broken(body: dict) -> str | None:
    """Anthropic's refusal text for a request that breaks the thinking rules, else ``None``."""
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        for j, block in enumerate(m.get("content") if isinstance(m.get("content"), list) else []):
            if block.get("type") == "thinking" and block.get("signature") != signature_of(block.get("thinking", "")):
                return f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
    if (body.get("thinking") or {}).get("type") != "enabled" or not messages:
        return None
    last = messages[-1]
    content = last.get("content") if isinstance(last.get("content"), list) else []
    if last.get("role") != "user" or not any(b.get("type") == "tool_result" for b in content):
        return None
    i, assistant = next(((i, m) for i, m in reversed(list(enumerate(messages))) if m.get("role") == "assistant"), (0, {}))
    blocks = assistant.get("content") if isinstance(assistant.get("content"), list) else [{"type": "text"}]
    first = blocks[0].get("type") if blocks else "nothing"
    if first not in ("thinking", "redacted_thinking"):
        return (
            f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{first}`. When "
            "`thinking` is enabled, a final `assistant` message must start with a thinking block."
        )
    return None


class LoopbackAnthropicServer(LoopbackLLMServer):
    """``POST /v1/messages`` answered by a policy, each answer opening with a signed thinking block.

    ``refusals`` lists every request refused under the thinking rules.
    """

    routes = ("/v1/messages",)

    def __init__(self, policy: Any = None, **options: Any) -> None:
        super().__init__(policy, **options)
        self.refusals: list[str] = []
        self.thinking_requests = 0

    def _respond(self, body: dict, auth: str) -> tuple[int, bytes, str | None]:
        """Status and body for one Messages request (and no injected fault)."""
        with self.lock:
            index = self.requests
            self.requests += 1
            self.thinking_requests += (body.get("thinking") or {}).get("type") == "enabled"
        broken = _rule_broken(body)
        if broken is not None:
            with self.lock:
                self.refusals.append(broken)
            return 400, _refusal(broken), None
        with self.lock:
            self.policy_calls += 1
        reply: Reply = self.policy(body.get("messages") or [], body.get("tools"))
        thinking = f"Turn {index}: deciding what to do next."
        content: list[dict] = [{"type": "thinking", "thinking": thinking, "signature": signature_of(thinking)}]
        if reply.get("content"):
            content.append({"type": "text", "text": reply["content"]})
        for n, call in enumerate(reply.get("tool_calls") or []):
            args = call["arguments"] if isinstance(call["arguments"], dict) else json.loads(call["arguments"])
            content.append({"type": "tool_use", "id": f"toolu_{index}_{n}", "name": call["name"], "input": args})
        answer = {
            "id": f"msg_{index}", "type": "message", "role": "assistant", "model": body.get("model"), "content": content,
            "stop_reason": "tool_use" if reply.get("tool_calls") else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 1 + len(json.dumps(body.get("messages"))) // 4, "output_tokens": 20},
        }
        return 200, json.dumps(answer).encode(), None

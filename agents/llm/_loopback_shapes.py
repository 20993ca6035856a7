"""The loopback server's provider shapes and prompt cache: requests and answers as OpenAI, Anthropic and Gemini
write them, and usage billed as a provider's prefix cache bills it (standard library only).

A request in any shape is read back into OpenAI-shaped messages for the policy, so one scripted policy plays
every provider. Its prompt is cut into units in the order providers cache them (tools, system prompt, then
each message); a unit counts about four characters a token.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["DIALECTS", "PrefixCache", "prompt_units", "render", "to_openai"]

#: Request and answer shapes the loopback server speaks.
DIALECTS = ("openai", "anthropic", "gemini")


def _strip(value: Any) -> Any:
    """``value`` without ``cache_control`` marks: a mark never changes what a prefix holds."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _marked(value: Any) -> bool:
    """True when ``value`` carries a ``cache_control`` mark anywhere (a cache breakpoint)."""
    if isinstance(value, dict):
        return "cache_control" in value or any(_marked(v) for v in value.values())
    if isinstance(value, list):
        return any(_marked(v) for v in value)
    return False


def _tokens(unit: Any) -> int:
    return max(1, len(json.dumps(unit, sort_keys=True)) // 4)


def prompt_units(dialect: str, body: dict) -> list[tuple[str, int, bool]]:
    """The request's prompt as ``(canonical text, tokens, ends at a breakpoint)`` units, in cache order."""
    if dialect == "gemini":
        parts: list[Any] = [body.get("tools"), body.get("system_instruction"), *(body.get("contents") or [])]
    else:
        system = body.get("system") if dialect == "anthropic" else None
        parts = [body.get("tools"), system, *(body.get("messages") or [])]
    units = []
    for part in parts:
        if part is None:
            continue
        plain = _strip(part)
        units.append((json.dumps(plain, sort_keys=True), _tokens(plain), _marked(part)))
    return units


class PrefixCache:
    """Bills prompts as a provider's prompt cache would: the longest prefix seen before is read from the cache.

    Args:
        explicit: Anthropic's rule: only prefixes that end at a ``cache_control`` mark are written (and billed
            as written); otherwise (OpenAI, DeepSeek, Gemini's implicit cache) every prefix is kept.
        min_tokens: the shortest prefix a provider caches.
        block: automatic caches count cached tokens in blocks of this many.
    """

    def __init__(self, explicit: bool, min_tokens: int = 1024, block: int = 128) -> None:
        self.explicit = explicit
        self.min_tokens = min_tokens
        self.block = block
        self._written: set[str] = set()

    def bill(self, units: list[tuple[str, int, bool]]) -> tuple[int, int]:
        """``(cache_read_tokens, cache_write_tokens)`` of one request, remembering what it writes."""
        h = hashlib.sha256()
        prefixes = []
        total = 0
        for text, tokens, mark in units:
            h.update(text.encode("utf-8", "surrogatepass") + b"\x00")
            total += tokens
            prefixes.append((h.hexdigest(), total, mark))
        if self.explicit:
            marks = [(d, n) for d, n, mark in prefixes if mark and n >= self.min_tokens]
            last = max((n for _, n in marks), default=0)
            read = max((n for d, n, _ in prefixes if d in self._written and n <= last), default=0)
            self._written.update(d for d, _ in marks)
            return read, last - read
        read = max((n for d, n, _ in prefixes if d in self._written), default=0)
        self._written.update(d for d, n, _ in prefixes if n >= self.min_tokens)
        return (read // self.block * self.block if read >= self.min_tokens else 0), 0


def _text(blocks: Any) -> str:
    if isinstance(blocks, str):
        return blocks
    return "".join(b.get("text", "") for b in blocks or [] if isinstance(b, dict))


def to_openai(dialect: str, body: dict) -> tuple[list[dict], list[dict] | None]:
    """The request's messages and tools in OpenAI's shape (what a policy reads)."""
    if dialect == "anthropic":
        return _from_anthropic(body)
    if dialect == "gemini":
        return _from_gemini(body)
    return body.get("messages") or [], body.get("tools")


def _from_anthropic(body: dict) -> tuple[list[dict], list[dict] | None]:
    out: list[dict] = []
    if body.get("system"):
        out.append({"role": "system", "content": _text(body["system"])})
    for m in body.get("messages") or []:
        blocks = m.get("content") if isinstance(m.get("content"), list) else [{"type": "text", "text": m.get("content")}]
        if m.get("role") == "assistant":
            message: dict = {"role": "assistant", "content": _text([b for b in blocks if b.get("type") == "text"]) or None}
            calls = [{"id": b["id"], "type": "function", "function": {"name": b["name"], "arguments": json.dumps(
                b.get("input") or {})}} for b in blocks if b.get("type") == "tool_use"]
            if calls:
                message["tool_calls"] = calls
            out.append(message)
            continue
        for b in blocks:
            if b.get("type") == "tool_result":
                out.append({"role": "tool", "tool_call_id": b.get("tool_use_id"), "content": _text(b.get("content"))})
        text = _text([b for b in blocks if b.get("type") == "text"])
        if text:
            out.append({"role": "user", "content": text})
    tools = [{"type": "function", "function": {"name": t.get("name"), "parameters": t.get("input_schema")}}
             for t in body.get("tools") or []]
    return out, tools or None


def _from_gemini(body: dict) -> tuple[list[dict], list[dict] | None]:
    out: list[dict] = []
    system = body.get("system_instruction") or body.get("systemInstruction")
    if system:
        out.append({"role": "system", "content": _text(system.get("parts"))})
    pending: list[str] = []  # Gemini's calls carry no ids: an answer takes the id of the call it follows
    for n, entry in enumerate(body.get("contents") or []):
        parts = entry.get("parts") or []
        if entry.get("role") == "model":
            message: dict = {"role": "assistant", "content": _text(parts) or None}
            found = [f for f in (p.get("function_call") or p.get("functionCall") for p in parts) if f]
            pending = [f"gemini_{n}_{i}" for i in range(len(found))]
            calls = [{"id": call_id, "type": "function", "function": {"name": f.get("name"), "arguments":
                      json.dumps(f.get("args") or {})}} for call_id, f in zip(pending, found)]
            if calls:
                message["tool_calls"] = calls
            out.append(message)
            continue
        for p in parts:
            answer = p.get("function_response") or p.get("functionResponse")
            if answer:
                result = answer.get("response")
                content = result["content"] if isinstance(result, dict) and set(result) == {"content"} else result
                call_id = pending.pop(0) if pending else f"gemini_{n}"
                out.append({"role": "tool", "tool_call_id": call_id, "content": content if isinstance(
                    content, str) else json.dumps(content, separators=(",", ":"))})
        if _text(parts):
            out.append({"role": "user", "content": _text(parts)})
    tools = [{"type": "function", "function": {"name": f.get("name"), "parameters": f.get("parameters")}}
             for t in body.get("tools") or [] for f in t.get("function_declarations") or t.get("functionDeclarations") or []]
    return out, tools or None


def render(dialect: str, body: dict, reply: dict, usage: dict, seed: str) -> dict:
    """The answer to a request in the dialect's shape; ``usage`` holds OpenAI-style totals and the cache classes."""
    calls = [(c["name"], c["arguments"] if isinstance(c["arguments"], dict) else json.loads(c["arguments"] or "{}"))
             for c in reply.get("tool_calls") or []]
    prompt, completion = usage["prompt_tokens"], usage["completion_tokens"]
    read, write, reasoning = usage["cache_read_tokens"], usage["cache_write_tokens"], usage["reasoning_tokens"]
    if dialect == "anthropic":
        content: list[dict] = [{"type": "text", "text": reply["content"]}] if reply.get("content") else []
        content += [{"type": "tool_use", "id": f"toolu_{seed}_{i}", "name": name, "input": args}
                    for i, (name, args) in enumerate(calls)]
        return {
            "id": f"msg_{seed}", "type": "message", "role": "assistant", "model": body.get("model"), "content": content,
            "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": prompt - read - write, "cache_read_input_tokens": read,
                      "cache_creation_input_tokens": write, "output_tokens": completion},
        }
    parts: list[dict] = [{"text": reply["content"]}] if reply.get("content") else []
    parts += [{"functionCall": {"name": name, "args": args}} for name, args in calls]
    meta = {"promptTokenCount": prompt, "candidatesTokenCount": completion - reasoning,
            "totalTokenCount": prompt + completion}
    if read:
        meta["cachedContentTokenCount"] = read
    if reasoning:
        meta["thoughtsTokenCount"] = reasoning
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": meta, "modelVersion": "loopback"}

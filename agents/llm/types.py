"""What a model call returns: text, tool calls, token usage, cost, latency."""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["ModelResponse", "ToolCall", "Usage", "clean_text"]


def clean_text(text: Any) -> str:
    """``text`` as a string with every lone surrogate replaced by ``?`` (valid UTF-8 from then on).

    >>> clean_text("ok \\ud800!")
    'ok ?!'
    """
    text = text if isinstance(text, str) else str(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text


@attrs.frozen
class ToolCall:
    """One tool call as the model sent it; ``arguments`` is the raw JSON text, unparsed.

    ``provider_fields`` is what the provider attached to the call and needs
    back with it (Gemini's ``thought_signature``); usually empty.
    """

    id: str
    name: str
    arguments: str
    provider_fields: dict = attrs.field(factory=dict, hash=False, repr=False)

    def to_dict(self) -> dict:
        """JSON-able form."""
        out: dict[str, Any] = {"id": self.id, "name": self.name, "arguments": self.arguments}
        if self.provider_fields:
            out["provider_fields"] = self.provider_fields
        return out

    @classmethod
    def from_dict(cls, data: dict) -> ToolCall:
        """Rebuild a call from :meth:`to_dict` output."""
        return cls(data["id"], data["name"], data["arguments"], dict(data.get("provider_fields") or {}))


#: The most tokens one call may report, each way: past any model's context, short of a count that could only be
#: an endpoint's error (a negative or absurd count would corrupt the cost and the token budget).
MAX_TOKENS_PER_CALL = 100_000_000


def _token_count(instance: Any, attribute: Any, value: Any) -> None:
    if type(value) is not int or not 0 <= value <= MAX_TOKENS_PER_CALL:
        raise ValueError(f"{attribute.name}={value!r} is not a token count (an integer from 0 to {MAX_TOKENS_PER_CALL:,})")


@attrs.frozen
class Usage:
    """Tokens of one call, by the classes a provider bills (0 when it reported none).

    ``prompt_tokens`` counts every input token, the cached ones included
    (``cache_read_tokens``, billed at a discount, and ``cache_write_tokens``,
    billed at a premium by Anthropic); ``completion_tokens`` counts every
    output token, ``reasoning_tokens`` (hidden thinking) included. These are
    the totals litellm reports for every provider.
    """

    prompt_tokens: int = attrs.field(default=0, validator=_token_count)
    completion_tokens: int = attrs.field(default=0, validator=_token_count)
    cache_read_tokens: int = attrs.field(default=0, validator=_token_count, kw_only=True)
    cache_write_tokens: int = attrs.field(default=0, validator=_token_count, kw_only=True)
    reasoning_tokens: int = attrs.field(default=0, validator=_token_count, kw_only=True)

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict:
        """JSON-able form."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "reasoning_tokens": self.reasoning_tokens,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Usage:
        """Rebuild usage from :meth:`to_dict` output (a call log written before the token classes reads as 0)."""
        return cls(*(int(data.get(k) or 0) for k in ("prompt_tokens", "completion_tokens")),
                   **{k: int(data.get(k) or 0) for k in ("cache_read_tokens", "cache_write_tokens", "reasoning_tokens")})


@attrs.frozen
class ModelResponse:
    """A model's answer to one chat request.

    ``cost_usd`` is ``None`` when nothing knows the model's price: unknown is
    not free. ``raw`` is the provider's answer as JSON-able data, kept for audit.
    ``echo`` holds the fields the provider needs to see again on this answer's
    assistant message in later requests (Anthropic's signed ``thinking_blocks``,
    DeepSeek's ``reasoning_content``); the protocols copy it there unchanged.
    """

    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    cost_usd: float | None = None
    latency_s: float = 0.0
    model: str | None = None
    finish_reason: str | None = None
    raw: Any = attrs.field(default=None, eq=False, repr=False)
    echo: dict = attrs.field(factory=dict, hash=False, repr=False)

    def cleaned(self) -> ModelResponse:
        """This answer with lone surrogates (``"\\ud800"``, which no UTF-8 request can carry) as ``?``."""
        calls = tuple(
            attrs.evolve(c, id=clean_text(c.id), name=clean_text(c.name), arguments=clean_text(c.arguments))
            for c in self.tool_calls
        )
        content = None if self.content is None else clean_text(self.content)
        if content == self.content and calls == self.tool_calls:
            return self
        return attrs.evolve(self, content=content, tool_calls=calls)

    def to_record(self, *, include_raw: bool = True) -> dict:
        """JSON-able form, as written to ``llm_calls.jsonl``."""
        out = {
            "content": self.content,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "usage": self.usage.to_dict(),
            "cost_usd": self.cost_usd,
            "latency_s": round(self.latency_s, 6),
            "model": self.model,
            "finish_reason": self.finish_reason,
        }
        if self.echo:  # written only when there is one: older call logs and their digests stay as they were
            out["echo"] = self.echo
        if include_raw and self.raw is not None:
            out["raw"] = self.raw
        return out

    @classmethod
    def from_record(cls, data: dict) -> ModelResponse:
        """Rebuild a response from :meth:`to_record` output."""
        usage = data.get("usage") or {}
        return cls(
            content=data.get("content"),
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ()),
            usage=Usage.from_dict(usage),
            cost_usd=data.get("cost_usd"),
            latency_s=float(data.get("latency_s") or 0.0),
            model=data.get("model"),
            finish_reason=data.get("finish_reason"),
            raw=data.get("raw"),
            echo=dict(data.get("echo") or {}),
        )

"""Counters of one run: turns, tokens, dollars, faults."""

from __future__ import annotations

import attrs

from .types import Usage

__all__ = ["HarnessStats"]


@attrs.define
class HarnessStats:
    """What the harness counted. Only recorded facts go here (no wall-clock), so a
    resumed run counts exactly what an uninterrupted one does.

    ``cost_usd`` is ``None`` as soon as one call could not be priced.
    """

    turns: int = 0
    api_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: Of the prompt tokens, those served from the provider's prompt cache, and those written to it.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    #: Of the completion tokens, the hidden reasoning ones.
    reasoning_tokens: int = 0
    cost_usd: float | None = 0.0
    commands: int = 0
    command_errors: int = 0
    harness_commands: int = 0
    auto_advances: int = 0
    resumes: int = 0
    text_replies: int = 0
    empty_replies: int = 0
    unknown_tools: int = 0
    invalid_arguments: int = 0
    oversized_replies: int = 0
    dropped_tool_calls: int = 0
    memory_tool_calls: int = 0
    text_tool_calls: int = 0
    repeat_inspections: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def add_call(self, usage: Usage, cost: float | None, failed_attempts: int) -> None:
        """Count one answered model call (a turn), its tokens of every class, and the failed attempts before it."""
        self.turns += 1
        self.api_errors += failed_attempts
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_tokens += usage.cache_write_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost

    def merge(self, other: HarnessStats) -> None:
        """Add another episode's counters into these."""
        for f in attrs.fields(HarnessStats):
            if f.name == "cost_usd":
                a, b = self.cost_usd, other.cost_usd
                self.cost_usd = None if a is None or b is None else a + b
            else:
                setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    @property
    def cached_share(self) -> float | None:
        """The share of prompt tokens served from a prompt cache (``None`` before any prompt token)."""
        return self.cache_read_tokens / self.prompt_tokens if self.prompt_tokens else None

    def to_dict(self) -> dict:
        """JSON-able form."""
        out = attrs.asdict(self)
        out["total_tokens"] = self.total_tokens
        return out

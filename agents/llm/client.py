"""The model-client contract: one small Protocol any chat backend can satisfy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from .types import ModelResponse, Usage

__all__ = ["EmbeddingClient", "ModelClient", "PricedClient", "endpoint_key"]


@runtime_checkable
class ModelClient(Protocol):
    """A chat model with tool calling.

    ``complete`` sends OpenAI-style ``messages`` and ``tools`` and returns the
    answer. It raises :class:`~bizsim.agents.llm.errors.TransientModelError`
    for failures worth retrying and
    :class:`~bizsim.agents.llm.errors.FatalModelError` for the rest; it never
    retries by itself (the harness does, with backoff, and counts).
    ``endpoint`` names where requests go (an API base URL or a provider), so
    concurrent runs can share a per-endpoint concurrency limit.
    """

    model: str
    endpoint: str

    def complete(self, messages: Sequence[dict], tools: Sequence[dict] | None, **params: Any) -> ModelResponse:
        """One chat completion."""
        ...


@runtime_checkable
class EmbeddingClient(Protocol):
    """A client that can also embed texts (for the episodic memory)."""

    def embed(self, texts: Sequence[str], model: str | None = None) -> list[list[float]]:
        """One vector per text."""
        ...


@runtime_checkable
class PricedClient(Protocol):
    """A client that knows prices (litellm's price map)."""

    def cost(self, model: str, usage: Usage) -> float | None:
        """Dollars for ``usage`` on ``model``, or ``None`` when the price is unknown."""
        ...


def endpoint_key(model: str, api_base: str | None) -> str:
    """Where requests for ``model`` go: the API base, else the provider prefix.

    >>> endpoint_key("openai/gpt-4o-mini", None), endpoint_key("m", "http://127.0.0.1:8000/v1/")
    ('openai', 'http://127.0.0.1:8000/v1')
    """
    if api_base:
        return api_base.rstrip("/")
    return model.split("/", 1)[0] if "/" in model else model

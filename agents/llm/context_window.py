"""The model's context window: how large it is, how large a prompt is, and what a provider says when one is not.

Where the size comes from, first found wins:

1. the agent option ``context_window``;
2. the server, when the run names one (``api_base``): llama.cpp's ``GET /props`` reports
   ``default_generation_settings.n_ctx``, which is one slot's context: llama-server gives each of its ``-np``
   slots ``-c / -np`` tokens (``slot.n_ctx = n_ctx_slot`` in ``tools/server/server-context.cpp``, and ``/props``
   is built from the first slot), so that is what one request can use; vLLM's ``GET /v1/models`` reports each
   served model's ``max_model_len``;
3. litellm's model information (``max_input_tokens``) for a model it knows.

A prompt is counted with litellm's ``token_counter``: the model's own tokenizer where litellm has one (OpenAI's
tiktoken encodings, a few Hugging Face tokenizers), else OpenAI's ``cl100k_base``, plus a few tokens a message
for the chat template. A model with another tokenizer (most local models) counts differently: on YC-Bench
prompts of 1,000 to 11,000 ``cl100k_base`` tokens, the DeepSeek and older Claude tokenizers litellm bundles
counted 3-9 % more. So trimming keeps a margin (:data:`TRIM_MARGIN`), and a provider's own refusal of a prompt
is recognised and ends the run the same way (:func:`is_context_error`). Without litellm a prompt is counted at
two and a half characters a token: on the same prompts 1.6 times the ``cl100k_base`` count, and on JSON alone
(2.9 characters a ``cl100k_base`` token) 1.15 times; conservative, not a tokenizer.
"""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

import attrs

__all__ = [
    "MAX_PROBE_BYTES", "TRIM_MARGIN", "ContextWindow", "char_count", "is_context_error", "litellm_context_window",
    "overflow_message", "server_said", "server_context_window",
]

#: Trimming keeps the counted prompt this much under the budget: the count's error margin for a model whose
#: tokenizer litellm does not have.
TRIM_MARGIN = 0.10
#: How long the context probe waits for the server (it answers from memory).
_PROBE_TIMEOUT_S = 5.0
#: The most of a probe's answer read (``/props`` carries the chat template, a few kB; a model list is short).
MAX_PROBE_BYTES = 2 * 2**20

# What providers say when a prompt does not fit, lower-cased: llama.cpp ("request (9412 tokens) exceeds the
# available context size (8192 tokens)", type exceed_context_size_error), vLLM and OpenAI ("This model's maximum
# context length is 8192 tokens. However, ..."; OpenAI's code context_length_exceeded), Anthropic ("prompt is too
# long", "input length and `max_tokens` exceed context limit"), Gemini ("input token count ... exceeds the
# maximum number of tokens").
_CONTEXT_WORDS = (
    "exceeds the available context size", "exceed_context_size", "maximum context length", "context_length_exceeded",
    "context window", "prompt is too long", "exceeds the maximum number of tokens", "reduce the length of the messages",
    "exceed context limit",
)


@attrs.frozen
class ContextWindow:
    """A model's context size in tokens and where it was learned (``option``, ``llama.cpp /props``, ...)."""

    tokens: int
    source: str

    def to_dict(self) -> dict:
        """JSON form, for the pre-flight record and the run's summary."""
        return {"tokens": self.tokens, "source": self.source}


def _get_json(url: str, key: str | None) -> Any:
    """The JSON at ``url``, or ``None`` when the server does not answer it (no such route, not JSON, too large)."""
    if not url.startswith(("http://", "https://")):
        return None
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        # Only the run's own endpoint is asked, and only over http(s) (checked above).
        with urllib.request.urlopen(request, timeout=_PROBE_TIMEOUT_S) as answer:
            body = answer.read(MAX_PROBE_BYTES + 1)
    except (urllib.error.URLError, OSError, ValueError):
        return None
    if len(body) > MAX_PROBE_BYTES:
        return None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def server_context_window(api_base: str, model: str, key: str | None = None) -> ContextWindow | None:
    """The context size the server at ``api_base`` reports (llama.cpp ``/props``, vLLM ``/v1/models``), or ``None``.

    ``/props`` lives at the server's root, beside ``/v1``; the model list under the API base.
    """
    base = api_base.rstrip("/")
    root = base.removesuffix("/v1")
    props = _get_json(f"{root}/props", key)
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
        if n_ctx is not None:
            return ContextWindow(n_ctx, "llama.cpp /props")
    listing = _get_json(f"{base}/models" if base.endswith("/v1") else f"{base}/v1/models", key)
    entries = listing.get("data") if isinstance(listing, dict) else None
    if isinstance(entries, list):
        name = model.split("/", 1)[-1]
        lengths = {e.get("id"): _positive(e.get("max_model_len")) for e in entries if isinstance(e, dict)}
        length = lengths.get(name) or lengths.get(model)
        if length is None and len(lengths) == 1:
            length = next(iter(lengths.values()))
        if length is not None:
            return ContextWindow(length, "vLLM /v1/models")
    return None


def litellm_context_window(litellm: Any, model: str) -> ContextWindow | None:
    """The input limit litellm's model information gives ``model``, or ``None`` for a model it does not know."""
    try:
        info = litellm.get_model_info(model)
    except Exception:  # noqa: BLE001 - litellm raises for a model its map lacks
        return None
    tokens = _positive(info.get("max_input_tokens")) or _positive(info.get("max_tokens"))
    return None if tokens is None else ContextWindow(tokens, "litellm's model information")


def char_count(messages: Sequence[dict], tools: Sequence[dict] | None) -> int:
    """A prompt's tokens at two and a half characters a token (the conservative count used without a tokenizer).

    >>> char_count([{"role": "user", "content": "x" * 300}], None) > 100
    True
    """
    chars = len(json.dumps(list(messages), ensure_ascii=False)) + len(json.dumps(list(tools or ()), ensure_ascii=False))
    return math.ceil(chars / 2.5)


def is_context_error(message: str) -> bool:
    """Whether a provider's error says the prompt did not fit the context window.

    >>> is_context_error("request (9412 tokens) exceeds the available context size (8192 tokens), try increasing it")
    True
    >>> is_context_error("rate limit exceeded")
    False
    """
    text = message.lower()
    return any(w in text for w in _CONTEXT_WORDS)


def server_said(text: str) -> str | None:
    """The message of the JSON error body inside a provider error's text (``error.message``, or vLLM's top-level
    ``message``), or ``None`` when there is none to read.

    >>> server_said('BadRequestError: Hosted_vllmException - {"error": {"message": "too long", "code": 400}}')
    'too long'
    """
    start = text.find("{")
    if start < 0:
        return None
    try:
        body = json.loads(text[start:])
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    said = error.get("message") if isinstance(error, dict) else body.get("message") if isinstance(body, dict) else None
    return said if isinstance(said, str) and said.strip() else None


def overflow_message(prompt: int, window: ContextWindow, reserve: int, counted_with: str, fixes: str) -> str:
    """The one-paragraph reason of a ``context_window`` stop: the sizes, where they come from, what to change."""
    room = f" with room for the answer's {reserve} tokens (max_tokens)" if reserve else ""
    return (f"the next prompt is about {prompt} tokens (counted with {counted_with}) and does not fit the model's "
            f"context window of {window.tokens} tokens (from {window.source}){room}. {fixes}")

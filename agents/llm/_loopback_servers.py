"""The servers the loopback server can play: what each reports about itself and how each refuses a prompt longer
than its context window, in its own words (standard library only).

- ``llama.cpp`` (llama-server): ``GET /props`` holds ``default_generation_settings.n_ctx`` (one slot's context); a
  prompt of ``n_ctx`` tokens or more is refused with a 400 of type ``exceed_context_size_error`` that names both
  sizes (``n_prompt_tokens``, ``n_ctx``); the answer's ``max_tokens`` is not counted (generation stops when the
  slot is full).
- ``vllm``: ``GET /v1/models`` lists each model's ``max_model_len``; a prompt plus its ``max_tokens`` past it is
  refused with a 400 whose body is vLLM's own error object (``object: error``, ``type: BadRequestError``).
- ``openai``: ``GET /v1/models`` lists models without their context; a prompt past it is refused with a 400 of
  code ``context_length_exceeded``.

And a server without tool calling: vLLM started without ``--enable-auto-tool-choice`` refuses a request with
tools and ``tool_choice: auto`` with a 400 that names the flags.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["FLAVORS", "info_route", "overflow", "tools_refused"]

#: The servers played.
FLAVORS = ("openai", "llama.cpp", "vllm")
#: The model name the loopback server lists.
MODEL_ID = "loopback"


def info_route(flavor: str, path: str, context: int | None) -> dict | None:
    """The JSON a ``GET path`` answers on this flavor's server, or ``None`` (a 404)."""
    if flavor == "llama.cpp" and path == "/props":
        return {"default_generation_settings": {"n_ctx": context or 4096, "n_predict": -1, "model": MODEL_ID},
                "total_slots": 1, "model_path": f"/models/{MODEL_ID}.gguf", "chat_template": "{# chatml #}"}
    if path in ("/v1/models", "/models"):
        entry: dict[str, Any] = {"id": MODEL_ID, "object": "model", "created": 1_700_000_000, "owned_by": flavor}
        if flavor == "vllm" and context is not None:
            entry["max_model_len"] = context
        return {"object": "list", "data": [entry]}
    return None


def overflow(flavor: str, context: int | None, prompt: int, max_tokens: Any) -> tuple[int, bytes] | None:
    """The flavor's refusal of a prompt of ``prompt`` tokens (answer cap ``max_tokens``), or ``None`` if it fits."""
    if context is None:
        return None
    answer = max_tokens if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) else 0
    if flavor == "llama.cpp":
        if prompt < context:
            return None
        return 400, json.dumps({"error": {
            "code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": prompt, "n_ctx": context,
            "message": f"request ({prompt} tokens) exceeds the available context size ({context} tokens), try "
                       "increasing it",
        }}).encode()
    if flavor == "vllm":
        if prompt + answer <= context:
            return None
        return 400, json.dumps({
            "object": "error", "type": "BadRequestError", "param": None, "code": 400,
            "message": f"This model's maximum context length is {context} tokens. However, you requested {answer} "
                       f"output tokens and your prompt contains at least {prompt} input tokens, for a total of at "
                       f"least {prompt + answer} tokens. Please reduce the length of the input prompt or the number "
                       "of requested output tokens.",
        }).encode()
    if prompt <= context:
        return None
    return 400, json.dumps({"error": {
        "message": f"This model's maximum context length is {context} tokens. However, your messages resulted in "
                   f"{prompt} tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded",
    }}).encode()


def tools_refused() -> bytes:
    """vLLM's refusal of a request with tools when it was started without tool calling."""
    return json.dumps({
        "object": "error", "type": "BadRequestError", "param": None, "code": 400,
        "message": '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    }).encode()

"""The hashes that name what a model was sent: one definition for the harness that writes them and every reader.

``llm_calls.jsonl`` names each request by :func:`request_digest`; a reader that rebuilds a request from the file
checks it against that hash without the LLM harness, so the definition lives here, below both.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

__all__ = ["canonical_digest", "message_digest", "request_digest"]


def canonical_digest(obj: Any) -> str:
    """SHA-256 of an object's canonical JSON text (sorted keys, no spaces).

    >>> canonical_digest({"b": 1, "a": [2]}) == canonical_digest({"a": [2], "b": 1})
    True
    """
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def message_digest(message: dict[str, Any]) -> str:
    """SHA-256 of one chat message: the canonical JSON of every field but the content, then the content's text.

    Hashing a large tool result this way costs no JSON escaping of it.

    >>> message_digest({"role": "user", "content": "hi"}) == message_digest({"content": "hi", "role": "user"})
    True
    """
    content = message.get("content")
    rest = {k: v for k, v in message.items() if k != "content"}
    head = json.dumps(rest, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    h = hashlib.sha256(head.encode("utf-8", "surrogatepass"))
    h.update(b"\x00" if content is None else b"\x01" + str(content).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def request_digest(model: str, params: dict[str, Any], tools_digest: str, message_digests: Sequence[str]) -> str:
    """The hash naming one request: model, sampling parameters, tools (by :func:`canonical_digest`) and every
    message (by :func:`message_digest`, or for a world role's call by :func:`canonical_digest`).

    Message digests are computed once per message, so hashing a request costs O(messages), not O(characters).
    """
    return canonical_digest([model, params, tools_digest, list(message_digests)])

"""Chat messages with their digests, and the two history windows the protocols use."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from bizsim.simcore.digests import message_digest

__all__ = ["Msg", "flatten", "messages_window", "msg", "rounds_window", "sent_calls", "to_content", "tool_result"]


class Msg:
    """One chat message and its SHA-256, computed once.

    The digest covers the canonical JSON of every field but the content, then
    the content's text: hashing a large tool result costs no JSON escaping.
    """

    __slots__ = ("data", "digest")

    def __init__(self, data: dict) -> None:
        self.data = data
        self.digest = message_digest(data)

    @property
    def role(self) -> str:
        """``system``, ``user``, ``assistant`` or ``tool``."""
        return self.data["role"]

    def __repr__(self) -> str:
        return f"Msg({self.data!r})"


def msg(role: str, content: str | None, **fields: Any) -> Msg:
    """A message; ``fields`` adds ``tool_calls``, ``tool_call_id``, ..."""
    data: dict = {"role": role, "content": content}
    data.update(fields)
    return Msg(data)


def to_content(result: Any) -> str:
    """A command's result as tool-message text: compact JSON (fewer tokens than indented)."""
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)


_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_-]")


def sent_calls(calls: Sequence[Any], episode: int, turn: int, max_arguments: int) -> list[dict]:
    """A reply's tool calls as the harness sends them back in the history.

    Chat APIs check the history too, so the model's own spellings are not
    echoed: ids are the harness's (``call_<episode>_<turn>_<i>``, unique and
    the same on a resume), names are cut to letters, digits, ``_`` and ``-``
    (at most 64), and arguments longer than ``max_arguments`` characters
    become ``{"_truncated_chars": N}``. What the provider attached to a call
    for its own later use (Gemini's thought signature) goes back with it as
    ``provider_specific_fields``, which litellm reads.
    """
    out = []
    for i, c in enumerate(calls):
        name = _NOT_IN_NAMES.sub("_", c.name.removeprefix("functions."))[:64] or "invalid_tool"
        args = c.arguments if len(c.arguments) <= max_arguments else json.dumps({"_truncated_chars": len(c.arguments)})
        sent = {"id": f"call_{episode}_{turn}_{i}", "type": "function", "function": {"name": name, "arguments": args}}
        extra = getattr(c, "provider_fields", None)
        if extra:
            sent["provider_specific_fields"] = extra
        out.append(sent)
    return out


def tool_result(call_id: str, result: Any) -> Msg:
    """The tool message answering call ``call_id``."""
    return msg("tool", to_content(result), tool_call_id=call_id)


def rounds_window(rounds: Sequence[list[Msg]], keep: int, marker: str) -> tuple[list[Msg], bool]:
    """YC-Bench's window: the last ``keep`` rounds before the current one, plus the current one.

    A round starts with a user message. When older rounds are dropped, a
    marker user message takes their place.

    Returns:
        the messages to send (without the system message) and whether rounds were dropped.
    """
    dropped = len(rounds) > keep + 1
    out: list[Msg] = [msg("user", marker)] if dropped else []
    for r in rounds[-(keep + 1):]:
        out.extend(r)
    return out, dropped


def messages_window(history: Sequence[Msg], keep: int) -> list[Msg]:
    """EcoGym's window: the last ``keep`` messages, without leading orphan tool results.

    >>> h = [msg("assistant", None, tool_calls=[]), msg("tool", "{}", tool_call_id="a"), msg("user", "go")]
    >>> [m.role for m in messages_window(h, 2)]
    ['user']
    """
    out = list(history[-keep:]) if len(history) > keep else list(history)
    while out and out[0].role == "tool":
        out.pop(0)
    return out


def flatten(messages: Iterable[Msg]) -> tuple[list[dict], list[str]]:
    """Message dicts and their digests."""
    data, digests = [], []
    for m in messages:
        data.append(m.data)
        digests.append(m.digest)
    return data, digests

"""Reading a model's tool calls defensively: bad JSON is an answer to the model, never a crash."""

from __future__ import annotations

import json
from typing import Any

from bizsim.simcore.untrusted_json import loads_untrusted

from ..types import ToolCall, clean_text

__all__ = ["calls_in_text", "clip_reply", "parse_arguments"]


def parse_arguments(raw: Any, tool: str) -> tuple[dict | None, str | None]:
    """A tool call's arguments as a dict, or an error message for the model.

    A JSON string holding JSON (double encoding) is unwrapped once; empty
    arguments mean ``{}``.

    >>> parse_arguments('{"command": "company status"}', "run_command")
    ({'command': 'company status'}, None)
    >>> parse_arguments('"{\\\\"command\\\\": \\\\"x\\\\"}"', "run_command")
    ({'command': 'x'}, None)
    >>> parse_arguments('{"command": ', "run_command")[1][:48]
    'The arguments of run_command are not valid JSON '
    """
    if isinstance(raw, dict):
        return raw, None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, None
    try:
        value = loads_untrusted(raw)
    except (TypeError, json.JSONDecodeError) as exc:
        where = f" ({exc.msg} at character {exc.pos})" if isinstance(exc, json.JSONDecodeError) else ""
        return None, (
            f"The arguments of {tool} are not valid JSON{where}. "
            "Send one JSON object, e.g. {\"command\": \"yc-bench company status\"}."
            if tool == "run_command" else f"The arguments of {tool} are not valid JSON{where}. Send one JSON object."
        )
    if isinstance(value, str):
        try:
            value = loads_untrusted(value)
        except json.JSONDecodeError:
            pass
    if not isinstance(value, dict):
        return None, f"The arguments of {tool} must be a JSON object, got {type(value).__name__}."
    # JSON can carry lone surrogates ("\\ud800"); no UTF-8 file could hold them, so each becomes '?'.
    return _clean(value), None


def _clean(value: Any) -> Any:
    """Lone surrogates (which JSON escapes can carry) as ``?``, in keys and nested values too."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_text(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def calls_in_text(content: str | None, prefix: str) -> list[ToolCall]:
    """Tool calls a reply wrote out as text, read as EcoGym's harness reads them; ``[]`` if it wrote none.

    The text (or the first fenced block in it) must be one JSON object with a
    ``tool_calls`` list of OpenAI-shaped entries ``{"function": {"name",
    "arguments"}}``; other entries are skipped. Call ids are ``prefix`` plus
    the entry's position (a model's own ids could repeat).

    >>> calls_in_text('```json\\n{"tool_calls": [{"function": {"name": "task_done", "arguments": {}}}]}\\n```', "t")
    [ToolCall(id='t0', name='task_done', arguments='{}')]
    """
    text = (content or "").strip()
    if "```json" in text:
        text = text.split("```json")[1].split("```")[0].strip()
    elif "```" in text:
        text = text.split("```")[1].split("```")[0].strip()
    if not (text.startswith("{") and text.endswith("}")):
        return []
    try:
        data = loads_untrusted(text)
    except ValueError:  # not JSON, or an integer too long to read
        return []
    entries = data.get("tool_calls") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    calls = []
    for i, entry in enumerate(entries):
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict):
            continue
        arguments = function.get("arguments")
        if not isinstance(arguments, str):  # an object, or something the argument parser will refuse
            arguments = "" if arguments is None else json.dumps(arguments)
        calls.append(ToolCall(id=f"{prefix}{i}", name=_clean(str(function.get("name") or "")), arguments=_clean(arguments)))
    return calls


def clip_reply(content: str | None, limit: int) -> tuple[str | None, bool]:
    """The reply text cut to ``limit`` characters (with a note), and whether it was cut."""
    if content is None or len(content) <= limit:
        return content, False
    return content[:limit] + f"\n[reply cut by the harness: {len(content)} characters, limit {limit}]", True

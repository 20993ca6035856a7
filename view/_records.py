"""Reading a run's files for the viewer: tolerant of a run still being written, bounded in size."""

from __future__ import annotations

import json
from typing import Any

from bizsim.runs.peek import MAX_PEEK_FILE_BYTES, read_json, read_records, read_text

__all__ = ["MAX_VIEW_FILE_BYTES", "MAX_VIEW_TEXT_CHARS", "clip", "read_json", "read_records", "read_text"]

#: The largest file the viewer reads; past it the view says the file was too large and shows the rest.
MAX_VIEW_FILE_BYTES = MAX_PEEK_FILE_BYTES
#: The longest string the page shows whole (a message, a tool result); longer ones are cut, with a note.
MAX_VIEW_TEXT_CHARS = 200_000


def clip(value: Any, limit: int = MAX_VIEW_TEXT_CHARS) -> Any:
    """``value`` with every string longer than ``limit`` cut (and marked), at any depth."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return value[:limit] + f"\n… [{len(value) - limit:,} more characters not shown]"
    if isinstance(value, (dict, list)):
        try:  # most values are small: one C-speed measurement instead of a walk
            if len(json.dumps(value, ensure_ascii=False, default=str)) <= limit:
                return value
        except (ValueError, RecursionError):
            pass
    if isinstance(value, dict):
        return {str(k): clip(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [clip(v, limit) for v in value]
    return value


#: The key of a reference to a shared value (:func:`share_repeats`); the page's script resolves it.
SHARED_KEY = "$bizsim_shared"


def _may_hold_key(values: list[Any], key: str) -> bool:
    """Whether ``key`` may be a key somewhere in ``values``: written as JSON (in C, not a walk in Python) a key is
    ``"key":``. A string that merely looks so answers yes too, which only costs the sharing, never a wrong page."""
    return f"{json.dumps(key)}:" in json.dumps(values, ensure_ascii=False, default=str)


def share_repeats(turns: list[dict], min_chars: int = 60) -> list[Any]:
    """Write each object that several command results list only once: in the returned table, the results holding
    ``{SHARED_KEY: index}`` in its place (in place, in ``turns``).

    A year of a planner browsing the startup market lists the same tasks thousands of times (9.5 of a 10.6 MB
    page); each is written once and the page's script puts the copies back. Nothing is shared when any result
    already holds the reference key (then nothing could tell a reference from a value).
    """
    results = [c for t in turns for c in t.get("commands", ()) if isinstance(c.get("result"), (dict, list))]
    if _may_hold_key([c["result"] for c in results], SHARED_KEY):
        return []
    counts: dict[str, int] = {}

    def items(value: Any) -> Any:
        """The objects listed in ``value``, at any depth (not inside a listed object: that one is shared whole)."""
        if isinstance(value, dict):
            for v in value.values():
                yield from items(v)
        elif isinstance(value, list):
            for v in value:
                if isinstance(v, dict):
                    yield v
                else:
                    yield from items(v)

    keys: dict[int, str] = {}
    for c in results:
        for obj in items(c["result"]):
            key = json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str)
            if len(key) >= min_chars:
                keys[id(obj)] = key
                counts[key] = counts.get(key, 0) + 1
    table: list[Any] = []
    index: dict[str, int] = {}

    def swap(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            out = []
            for v in value:
                key = keys.get(id(v)) if isinstance(v, dict) else None
                if key is not None and counts[key] > 1:
                    if key not in index:
                        index[key] = len(table)
                        table.append(v)
                    out.append({SHARED_KEY: index[key]})
                else:
                    out.append(swap(v))
            return out
        return value

    for c in results:
        c["result"] = swap(c["result"])
    return table

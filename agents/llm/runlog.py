"""Append-only JSON-lines streams: every record reaches the OS as it happens.

A crash (even SIGKILL) loses at most the record being written; a torn last
line is ignored on reading and cut off before the next append.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bizsim.simcore.files import write_text_atomic
from bizsim.simcore.jsonl import cut_torn_tail
from bizsim.simcore.layout import AGENT_COMMANDS, LLM_CALLS, RESULT, RUN_SPEC

__all__ = [
    "AGENT_COMMANDS",
    "LLM_CALLS",
    "RESULT",
    "RUN_SPEC",
    "JsonlWriter",
    "digest",
    "read_jsonl",
    "records_of",
    "write_json_atomic",
]



def _dumps(record: Any) -> str:
    # ASCII escapes: a model's text may hold lone surrogates, which UTF-8 cannot encode.
    return json.dumps(record, separators=(",", ":"), default=str)


def digest(obj: Any) -> str:
    """SHA-256 of an object's canonical JSON text.

    >>> digest({"b": 1, "a": [2]}) == digest({"a": [2], "b": 1})
    True
    """
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class JsonlWriter:
    """Appends one JSON object a line, flushed to the OS after every record.

    Args:
        path: the file; created if missing, appended to otherwise.
        fsync: also ``fsync`` each record (survives power loss, costs ~ms).
        truncate: start the file empty instead of appending.
    """

    def __init__(self, path: str | Path, *, fsync: bool = False, truncate: bool = False) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not truncate:
            cut_torn_tail(self.path)
        self._fh = self.path.open("w" if truncate else "a", encoding="utf-8")
        self.fsync = fsync

    def write(self, record: Any) -> None:
        """Append one record and hand it to the OS."""
        self._fh.write(_dumps(record) + "\n")
        self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Close the file (records are already flushed)."""
        self._fh.close()


def read_jsonl(path: str | Path) -> list[dict]:
    """The records of a JSON-lines file; a torn last line (a crash mid-write) is skipped."""
    p = Path(path)
    if not p.exists():
        return []
    out = []
    lines = p.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            if i == len(lines) - 1:
                break  # torn tail
            raise
    return out


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write JSON through a temporary file and a rename: readers never see half a file."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def records_of(rows: Iterable[dict], kind: str) -> list[dict]:
    """The rows of one kind (``chat``, ``embed``, ``preflight``)."""
    return [r for r in rows if r.get("kind") == kind]

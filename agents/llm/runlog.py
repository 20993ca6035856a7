"""Append-only JSON-lines streams: every record reaches the OS as it happens.

A crash (even SIGKILL) loses at most the record being written; a torn last
line is ignored on reading and cut off before the next append.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bizsim.simcore.digests import canonical_digest as digest
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.files import write_text_atomic
from bizsim.simcore.jsonl import cut_torn_tail
from bizsim.simcore.layout import AGENT_COMMANDS, LLM_CALLS, RESULT, RUN_SPEC
from bizsim.simcore.limits import MAX_RUN_LOG_BYTES, read_text_file
from bizsim.simcore.untrusted_json import loads_untrusted

from .errors import scrub

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


class JsonlWriter:
    """Appends one JSON object a line, flushed to the OS after every record.

    Args:
        path: the file; created if missing, appended to otherwise.
        fsync: also ``fsync`` each record (survives power loss, costs ~ms).
        truncate: start the file empty instead of appending.
        secrets: strings written as ``***`` wherever they occur (API keys).
    """

    def __init__(
        self, path: str | Path, *, fsync: bool = False, truncate: bool = False, secrets: tuple[str | None, ...] = ()
    ) -> None:
        self.path = Path(path)
        self.secrets = secrets
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not truncate:
            cut_torn_tail(self.path)
        self._fh = self.path.open("w" if truncate else "a", encoding="utf-8")
        self.fsync = fsync

    def write(self, record: Any) -> None:
        """Append one record and hand it to the OS."""
        try:
            line = _dumps(record)
            if self.secrets:
                line = scrub(line, self.secrets)  # an endpoint that echoes the key gets *** in the log
            self._fh.write(line + "\n")
            self._fh.flush()
            if self.fsync:
                os.fsync(self._fh.fileno())
        except OSError as exc:
            if exc.filename is None:  # a full disk: name the file (a torn record is cut off on the next open)
                raise OSError(exc.errno, exc.strerror, str(self.path)) from None
            raise

    def close(self) -> None:
        """Close the file (records are already flushed)."""
        # Only a record whose write failed (a full disk) can still sit in the buffer: it is torn, not lost.
        with contextlib.suppress(OSError):
            self._fh.close()


def read_jsonl(path: str | Path) -> list[dict]:
    """The records of a run's JSON-lines file; a torn last line (a crash mid-write) is skipped.

    The file may have been edited by anyone who could write the run directory: a file past
    :data:`MAX_RUN_LOG_BYTES`, one that is not UTF-8, a line that is not a JSON object (or nests deeper than
    untrusted JSON may) is a :class:`ConfigError` naming the file and line.
    """
    p = Path(path)
    if not p.exists():
        return []
    text = read_text_file(p, p.name, MAX_RUN_LOG_BYTES)
    out = []
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            record = loads_untrusted(line)
        except json.JSONDecodeError as exc:
            if i == len(lines) - 1:
                break  # torn tail
            raise ConfigError(f"{str(p)!r} line {i + 1} is not JSON ({exc.msg}); the run log was damaged") from None
        if not isinstance(record, dict):
            raise ConfigError(f"{str(p)!r} line {i + 1} is a JSON {type(record).__name__}, not a record")
        out.append(record)
    return out


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write JSON through a temporary file and a rename: readers never see half a file."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def records_of(rows: Iterable[dict], kind: str) -> list[dict]:
    """The rows of one kind (``chat``, ``embed``, ``preflight``).

    >>> records_of([{"kind": "chat", "turn": 1}, {"kind": "embed"}], "chat")
    [{'kind': 'chat', 'turn': 1}]
    """
    return [r for r in rows if r.get("kind") == kind]

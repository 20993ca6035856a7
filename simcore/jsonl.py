"""Append-only JSON-lines files that survive a crash mid-write.

Every record reaches the OS as it is written, so a crash (even SIGKILL) loses at most the record being written;
a torn last line is ignored on reading and cut off before the next append.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .files import open_log
from .limits import MAX_RUN_LOG_BYTES, read_text_file
from .untrusted_json import loads_untrusted

__all__ = ["JsonlWriter", "cut_torn_tail", "lines_of", "read_jsonl"]


def lines_of(text: str) -> list[str]:
    r"""The records of JSON-lines text: split at ``\n`` only.

    ``str.splitlines`` also splits at U+2028, U+0085 and other line breaks,
    which a JSON writer may leave unescaped inside a string.

    >>> lines_of('{"a": "x\u2028y"}\n{"b": 1}\n')
    ['{"a": "x\u2028y"}', '{"b": 1}']
    """
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


def cut_torn_tail(path: Path) -> None:
    """Drop a last line that a crash left without its newline.

    The files are append-only, so a torn record can only be at the end.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        pos = size
        while pos > 0:
            start = max(0, pos - 65536)
            fh.seek(start)
            idx = fh.read(pos - start).rfind(b"\n")
            if idx >= 0:
                fh.truncate(start + idx + 1)
                return
            pos = start
        fh.truncate(0)


def _dumps(record: Any) -> str:
    # ASCII escapes: a model's text may hold lone surrogates, which UTF-8 cannot encode.
    return json.dumps(record, separators=(",", ":"), default=str)


class JsonlWriter:
    """Appends one JSON object a line, flushed to the OS after every record.

    Args:
        path: the file; created if missing, appended to otherwise.
        fsync: also ``fsync`` each record (survives power loss, costs ~ms).
        truncate: start the file empty instead of appending.
        redact: applied to each line before it is written (an LLM run blanks its API keys).
    """

    def __init__(self, path: str | Path, *, fsync: bool = False, truncate: bool = False,
                 redact: Callable[[str], str] | None = None) -> None:
        self.path = Path(path)
        self.redact = redact
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not truncate and not self.path.is_symlink():  # a link is refused by open_log, not cut through
            cut_torn_tail(self.path)
        self._fh = open_log(self.path, append=not truncate)
        self.fsync = fsync

    def write(self, record: Any) -> None:
        """Append one record and hand it to the OS."""
        try:
            line = _dumps(record)
            if self.redact is not None:
                line = self.redact(line)
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


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """The records of a run's JSON-lines file; a torn last line (a crash mid-write) is skipped.

    The file may have been edited by anyone who could write the run directory: a file past
    :data:`MAX_RUN_LOG_BYTES`, one that is not UTF-8, a line that is not a JSON object (or nests deeper than
    untrusted JSON may) is a :class:`ConfigError` naming the file and line.
    """
    p = Path(path)
    if not p.exists():
        return []
    text = read_text_file(p, p.name, MAX_RUN_LOG_BYTES)
    out: list[dict[str, Any]] = []
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

"""``results.jsonl``: one JSON line per finished run, appended and flushed as runs finish.

A killed sweep (even SIGKILL) loses at most the line being written; a torn last
line is ignored when reading and cut off before the next append. The file is
locked while a sweep writes to it, so two sweeps never interleave lines.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from bizsim.simcore.errors import BizSimError
from bizsim.simcore.jsonl import cut_torn_tail

__all__ = ["ResultsWriter", "encode", "finished_ids", "iter_heads", "read_at"]



def encode(record: dict[str, Any]) -> str:
    """A record as its line of ``results.jsonl`` (newline included)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"


# A line as bizsim writes it ends ``..."series":{"name":[...]...},"events":{...},"wall_s":N}``: the head before
# the series is a record of its own once closed, and the run time is the tail's one number.
_SERIES_KEY = b',"series":{"name":'
_WALL_KEY = b',"wall_s":'
_WALL_TAIL = re.compile(rb'(-?[0-9][0-9.eE+-]*)\}\n')


def iter_heads(path: str | Path) -> Iterator[tuple[int, dict]]:
    """``(byte offset, record)`` of every complete line, without the record's ``series`` and ``events``.

    Their bulk is never decoded: a line of another shape is decoded whole and
    they are dropped, so the result is the same. A torn or garbled line is skipped.
    """
    p = Path(path)
    if not p.exists():
        return
    with p.open("rb") as fh:
        offset = 0
        for raw in fh:
            start, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n"):
                return
            rec = _head(raw)
            if rec is not None:
                yield start, rec


def _head(raw: bytes) -> dict | None:
    cut = raw.rfind(_SERIES_KEY)
    wall = raw.rfind(_WALL_KEY, cut) if cut > 0 else -1
    tail = _WALL_TAIL.fullmatch(raw, wall + len(_WALL_KEY)) if wall > 0 else None
    if tail is not None:
        try:
            rec = json.loads(raw[:cut] + b"}")
            rec["wall_s"] = json.loads(tail.group(1))
        except json.JSONDecodeError:
            rec = None
        if isinstance(rec, dict) and "run_id" in rec:
            return rec
    try:
        rec = json.loads(raw)
    except json.JSONDecodeError:
        return None
    if not isinstance(rec, dict) or "run_id" not in rec:
        return None
    rec.pop("series", None)
    rec.pop("events", None)
    return rec


def read_at(fh: IO[bytes], offset: int) -> dict:
    """The record of the line starting at ``offset`` of the results file open in ``fh``."""
    fh.seek(offset)
    return json.loads(fh.readline())


_HEAD = re.compile(rb'^\{"v":\d+,"run_id":"([^"\\]+)","status":"([a-z]+)",')


def finished_ids(path: str | Path, *, include_errors: bool = True) -> set[str]:
    """Run ids with a complete line in the file (failed runs only if ``include_errors``).

    A run recorded more than once counts by its last line. Lines written by
    bizsim are read by their head only (run id and status come first).
    """
    p = Path(path)
    last: dict[str, str] = {}
    if not p.exists():
        return set()
    with p.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            head = _HEAD.match(raw)
            if head is not None:
                last[head.group(1).decode()] = head.group(2).decode()
                continue
            try:
                rec = json.loads(raw)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict) and "run_id" in rec:
                last[rec["run_id"]] = rec.get("status", "ok")
    return {rid for rid, status in last.items() if include_errors or status == "ok"}


class ResultsWriter:
    """Appends records to ``results.jsonl``, one flushed line each, holding an exclusive lock.

    Raises:
        BizSimError: another sweep is writing to the same file.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[bytes] = self.path.open("ab")
        try:
            self._lock()
        except BaseException:
            self._fh.close()
            raise
        cut_torn_tail(self.path)

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # not POSIX: no advisory locks
            return
        try:
            fcntl.flock(self._fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise BizSimError(
                f"another sweep is writing to {str(self.path)!r}; wait for it or choose another --out"
            ) from None

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and hand it to the OS."""
        self.write_line(encode(record))

    def write_line(self, line: str) -> None:
        """Append one encoded record (:func:`encode`) and hand it to the OS."""
        self._fh.write(line.encode("utf-8"))
        self._fh.flush()

    def sync(self) -> None:
        """``fsync`` the file (survives power loss)."""
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Release the lock and close the file."""
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

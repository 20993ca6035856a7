"""``results.jsonl``: one JSON line per finished run, appended and flushed as runs finish.

A killed sweep (even SIGKILL) loses at most the line being written; a torn last
line is ignored when reading and cut off before the next append. The file is
locked while a sweep writes to it, so two sweeps never interleave lines.

Anyone who can write a sweep directory can write this file, so every reader goes through one bounded reader:
a regular file only (:func:`open_results`), lines no longer than :data:`MAX_RESULT_LINE_BYTES`, nested no deeper
than ``MAX_RECORD_DEPTH``, and each record's own fields of the types its readers rely on.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from bizsim.simcore.errors import BizSimError, ConfigError
from bizsim.simcore.jsonl import cut_torn_tail
from bizsim.simcore.limits import show
from bizsim.simcore.untrusted_json import MAX_RECORD_DEPTH, loads_untrusted

__all__ = ["MAX_RESULT_LINE_BYTES", "ResultsWriter", "encode", "finished_ids", "iter_heads", "open_results",
           "read_at"]

#: The longest line of ``results.jsonl`` read (a year's record, its series and events included, is a few MB).
MAX_RESULT_LINE_BYTES = 256 * 2**20


def encode(record: dict[str, Any]) -> str:
    """A record as its line of ``results.jsonl`` (newline included)."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n"


# A line as bizsim writes it ends ``..."series":{"name":[...]...},"events":{...},"wall_s":N}``: the head before
# the series is a record of its own once closed, and the run time is the tail's one number.
_SERIES_KEY = b',"series":{"name":'
_WALL_KEY = b',"wall_s":'
_WALL_TAIL = re.compile(rb'(-?[0-9][0-9.eE+-]*)\}\n')


def open_results(path: str | Path) -> IO[bytes] | None:
    """``results.jsonl`` open for reading, or ``None`` when it is missing.

    Raises:
        ConfigError: it is not a regular file (a named pipe blocked its reader forever; a device never ends).
    """
    p = Path(path)
    try:
        # Opened without blocking (a FIFO with no writer waits forever in open), then checked before any read.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{p.name}(={str(p)!r}) cannot be read: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{p.name}(={str(p)!r}) is not a regular file (a pipe, socket, device or directory); "
                              "a sweep's results are a file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _lines(fh: IO[bytes], path: Path) -> Iterator[tuple[int, int, bytes]]:
    """``(line number, byte offset, line)`` of every complete line; a torn last line ends the file."""
    offset, number = 0, 0
    while True:
        raw = fh.readline(MAX_RESULT_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_RESULT_LINE_BYTES:
            raise ConfigError(f"{path.name}(={str(path)!r}) line {number:,} is longer than the limit of "
                              f"{MAX_RESULT_LINE_BYTES:,} bytes; the file was edited or damaged")
        if not raw.endswith(b"\n"):
            return
        yield number, offset, raw
        offset += len(raw)


def iter_heads(path: str | Path, *, skipped: list[str] | None = None) -> Iterator[tuple[int, dict]]:
    """``(byte offset, record)`` of every complete line, without the record's ``series`` and ``events``.

    Their bulk is never decoded: a line of another shape is decoded whole and
    they are dropped, so the result is the same. A torn or garbled line (not JSON, or nested deeper than
    ``MAX_RECORD_DEPTH``) is skipped.

    A reader that shows what it can (the viewer) passes a list as ``skipped``: a record whose fields are not of
    their types is then passed over too, and every line passed over is noted there (why, naming the line).

    Raises:
        ConfigError: the file is not a regular file, a line is longer than :data:`MAX_RESULT_LINE_BYTES`, or (without
            ``skipped``) a record's fields are not of their types (naming the line and the field).
    """
    p = Path(path)
    fh = open_results(p)
    if fh is None:
        return
    with fh:
        for number, start, raw in _lines(fh, p):
            rec = _head(raw)
            if rec is None:
                if skipped is not None and raw.strip():
                    skipped.append(f"line {number:,} is not a record (not JSON, or nested deeper than "
                                   f"{MAX_RECORD_DEPTH} levels)")
                continue
            try:
                yield start, _checked(rec, p, f"line {number:,}")
            except ConfigError as exc:
                if skipped is None:
                    raise
                skipped.append(str(exc).split(") ", 1)[-1])


def _loads(raw: bytes) -> Any:
    """A line's value, or ``None`` for one that is not JSON bizsim reads (garbled, or nested too deep)."""
    try:
        return loads_untrusted(raw, MAX_RECORD_DEPTH)
    except (ValueError, UnicodeDecodeError):  # JSONDecodeError is a ValueError
        return None


def _head(raw: bytes) -> dict | None:
    cut = raw.rfind(_SERIES_KEY)
    wall = raw.rfind(_WALL_KEY, cut) if cut > 0 else -1
    tail = _WALL_TAIL.fullmatch(raw, wall + len(_WALL_KEY)) if wall > 0 else None
    if tail is not None:
        rec, wall_s = _loads(raw[:cut] + b"}"), _loads(tail.group(1))
        if isinstance(rec, dict) and "run_id" in rec and wall_s is not None:
            rec["wall_s"] = wall_s
            return rec
    rec = _loads(raw)
    if not isinstance(rec, dict) or "run_id" not in rec:
        return None
    rec.pop("series", None)
    rec.pop("events", None)
    return rec


def read_at(fh: IO[bytes], offset: int) -> dict:
    """The whole record of the line starting at ``offset`` of the results file open in ``fh`` (a line
    :func:`iter_heads` yielded), read as bounded as it was.

    Raises:
        ConfigError: the line is no longer a record (the file changed since), or its fields are not of their types.
    """
    fh.seek(offset)
    raw = fh.readline(MAX_RESULT_LINE_BYTES + 1)
    name = getattr(fh, "name", None)
    path = Path(name if isinstance(name, str) else "<the results file>")
    rec = _loads(raw) if raw.endswith(b"\n") else None
    if not isinstance(rec, dict) or "run_id" not in rec:
        raise ConfigError(f"{path.name}(={str(path)!r}) changed while it was read (at byte {offset:,}); read it "
                          "again")
    return _checked(rec, path, f"byte {offset:,}")


_Rules = dict[str, tuple[tuple[type, ...], str]]
#: A record's own fields and the JSON types its readers rely on (each may be null, but for run_id and status).
_FIELDS: _Rules = {
    "run_id": ((str,), "a string"), "status": ((str,), "a string"), "error": ((dict,), "an object"),
    "benchmark_id": ((str,), "a string"), "spec": ((dict,), "an object"), "preset_label": ((str,), "a string"),
    "run": ((dict,), "an object"), "wall_s": ((int, float), "a finite number"), "run_dir": ((str,), "a string"),
    "series": ((dict,), "an object"), "events": ((dict,), "an object"),
}
_SPEC_FIELDS: _Rules = {
    "world": ((str,), "a string"), "preset": ((str,), "a string"), "agent": ((str,), "a string"),
    "seed": ((int,), "an integer"), "overrides": ((dict,), "an object"), "agent_options": ((dict,), "an object"),
    "label": ((str,), "a string"),
}
_ERROR_FIELDS: _Rules = {"type": ((str,), "a string"), "message": ((str,), "a string"),
                         "traceback": ((str,), "a string")}
_COLUMNS_OF = ("series", "events")


def _checked(rec: dict, path: Path, where: str) -> dict:
    """``rec`` when its fields have the types every reader relies on, else a :class:`ConfigError` naming the line
    and the field (an ``error`` that was a string, a ``spec`` that was a list, ended in a traceback)."""
    for prefix, table, rules in (("", rec, _FIELDS), ("spec.", rec.get("spec") or {}, _SPEC_FIELDS),
                                 ("error.", rec.get("error") or {}, _ERROR_FIELDS)):
        for key, kind in rules.items():
            value = table.get(key)
            if (value is not None or (not prefix and key in ("run_id", "status") and key in table)) and \
                    not _is(value, kind):
                raise ConfigError(f"{path.name}(={str(path)!r}) {where}: {prefix}{key}(={show(value)}) must be "
                                  f"{kind[1]}; the file was edited or damaged")
    for key in _COLUMNS_OF:  # a table's columns, each a list (their items are checked as the table is built)
        for name, column in (rec.get(key) or {}).items():
            if not isinstance(column, list):
                raise ConfigError(f"{path.name}(={str(path)!r}) {where}: {key}.{name}(={show(column)}) must be a "
                                  "list; the file was edited or damaged")
    return rec


def _is(value: Any, kind: tuple[tuple[type, ...], str]) -> bool:
    if isinstance(value, bool) or not isinstance(value, kind[0]):
        return False
    return not isinstance(value, float) or math.isfinite(value)


_HEAD = re.compile(rb'^\{"v":\d+,"run_id":"([^"\\]+)","status":"([a-z]+)",')


def finished_ids(path: str | Path, *, include_errors: bool = True) -> set[str]:
    """Run ids with a complete line in the file (failed runs only if ``include_errors``).

    A run recorded more than once counts by its last line. Lines written by
    bizsim are read by their head only (run id and status come first); others as :func:`iter_heads` reads them.
    """
    p = Path(path)
    last: dict[str, str] = {}
    fh = open_results(p)
    if fh is None:
        return set()
    with fh:
        for _, _, raw in _lines(fh, p):
            head = _HEAD.match(raw)
            if head is not None:
                last[head.group(1).decode()] = head.group(2).decode()
                continue
            rec = _loads(raw)
            if isinstance(rec, dict) and isinstance(rec.get("run_id"), str):
                last[rec["run_id"]] = str(rec.get("status", "ok"))
    return {rid for rid, status in last.items() if include_errors or status == "ok"}


class ResultsWriter:
    """Appends records to ``results.jsonl``, one flushed line each, holding an exclusive lock.

    Raises:
        BizSimError: another sweep is writing to the same file.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and not self.path.is_file():  # opening a FIFO to append waits for a reader forever
            raise ConfigError(f"{self.path.name}(={str(self.path)!r}) is not a regular file (a pipe, socket, device "
                              "or directory); a sweep's results are a file")
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

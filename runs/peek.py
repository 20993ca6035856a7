"""Reading a run that may still be written, for readers that show what they can (the viewer).

Tolerant where :func:`bizsim.runs.rundir.read_record` and :func:`bizsim.simcore.jsonl.read_jsonl` are strict: a torn
last line, a damaged line, a file too large or not a regular file is noted in ``problems`` and skipped, never
raised. Every read is bounded.
"""

from __future__ import annotations

from pathlib import Path

from bizsim.simcore.jsonl import lines_of
from bizsim.simcore.limits import MAX_INT
from bizsim.simcore.untrusted_json import MAX_RECORD_DEPTH, loads_untrusted

__all__ = ["MAX_PEEK_FILE_BYTES", "read_json", "read_records", "read_text"]

#: The largest file read; past it the reader notes the file was too large and shows the rest.
MAX_PEEK_FILE_BYTES = 1024 * 2**20
#: Deeper nesting in a record is a damaged (or hostile) line, skipped: Python's parser would overflow its stack.
_MAX_DEPTH = MAX_RECORD_DEPTH


def read_text(path: Path, problems: list[str]) -> str | None:
    """The text of ``path`` (``None`` when missing, not a regular file, unreadable or past the size limit: noted in
    ``problems``). It is read no further than the limit, since a run may still be writing it."""
    if not path.exists():
        return None
    if not path.is_file():  # a directory, a FIFO or a device where a run's file belongs
        problems.append(f"{path.name} is not a regular file; not shown")
        return None
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_PEEK_FILE_BYTES + 1)
    except OSError as exc:
        problems.append(f"{path.name} cannot be read ({exc.strerror or exc}); not shown")
        return None
    if len(data) > MAX_PEEK_FILE_BYTES:
        problems.append(f"{path.name} is over the viewer's limit of {MAX_PEEK_FILE_BYTES:,} bytes; not shown")
        return None
    return data.decode("utf-8", errors="replace")


def read_records(path: Path, problems: list[str]) -> list[dict]:
    """The JSON objects of a JSON-lines file; a torn last line (a run still writing) and bad lines are skipped, as
    is a record whose ``t_us`` is not a whole number of microseconds (every reader may then take it as one)."""
    text = read_text(path, problems)
    if text is None:
        return []
    out: list[dict] = []
    lines = lines_of(text)
    bad = 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rec = loads_untrusted(line, _MAX_DEPTH)
        except ValueError:
            if i != len(lines) - 1 or text.endswith("\n"):
                bad += 1
            continue
        t_us = rec.get("t_us", 0) if isinstance(rec, dict) else None
        if type(t_us) is int and 0 <= t_us <= MAX_INT:
            out.append(rec)
        else:
            bad += 1
    if bad:
        problems.append(f"{path.name}: {bad} line(s) are not JSON objects; skipped")
    return out


def read_json(path: Path, problems: list[str]) -> dict | None:
    """A JSON object file, or ``None`` (missing, unreadable, or not an object: noted in ``problems``)."""
    text = read_text(path, problems)
    if text is None:
        return None
    try:
        data = loads_untrusted(text, _MAX_DEPTH)
    except ValueError:
        problems.append(f"{path.name} is not valid JSON (still being written?); not shown")
        return None
    if not isinstance(data, dict):
        problems.append(f"{path.name} is not a JSON object; not shown")
        return None
    return data

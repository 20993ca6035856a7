"""Append-only JSON-lines files that survive a crash mid-write."""

from __future__ import annotations

from pathlib import Path

__all__ = ["cut_torn_tail"]


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

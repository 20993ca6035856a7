"""Append-only JSON-lines files that survive a crash mid-write."""

from __future__ import annotations

from pathlib import Path

__all__ = ["cut_torn_tail", "lines_of"]


def lines_of(text: str) -> list[str]:
    """The records of JSON-lines text: split at ``\n`` only.

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

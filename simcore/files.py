"""Writing a file whole: through a temporary file and a rename, never through a link planted in the way."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["write_text_atomic"]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``: readers see the old file or the new one, never half of one.

    The temporary file ``<name>.tmp`` beside it is created afresh (a stale one, or a symbolic link left at that
    name, is removed first and never followed), so the write cannot land outside ``path``'s folder; the rename
    replaces ``path`` itself, even when ``path`` is a link.
    """
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # unlink removes a link itself, not what it points to
    fd = os.open(tmp, _FLAGS, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # a full disk: name the file it could not write
            raise OSError(exc.errno, exc.strerror, str(target)) from None
        raise

"""Writing a file whole: through a temporary file and a rename, never through a link planted in the way."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

__all__ = ["SwappedFile", "write_json_atomic", "write_text_atomic"]

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


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write ``data`` as indented JSON, whole (see :func:`write_text_atomic`)."""
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


class SwappedFile:
    """A file rewritten whole many times a second, each version appearing at once: readers (and a kill) see
    the last version complete.

    Two hidden files beside ``path`` (``.NAME.a``, ``.NAME.b``) take turns: the next version is written into
    the one ``path`` does not name, which is then linked to a temporary name renamed over ``path``. Unlike
    :func:`write_text_atomic` no new file is created per version, so a filesystem that flushes a new file's
    data when it is renamed over an old one (ext4's ``auto_da_alloc``: about 2 ms) does not wait each time.
    A reader that holds ``path`` open across two versions may see the second being written.
    :meth:`close` leaves ``path`` an ordinary file and removes the hidden ones.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._names = [self.path.with_name(f".{self.path.name}.{k}") for k in "ab"]
        self._fds: list[int] = []
        for name in self._names:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)  # a stale one (or a link planted there) is removed, never followed
            self._fds.append(os.open(name, _FLAGS & ~os.O_WRONLY | os.O_RDWR, 0o666))
        self._next = 0

    def write(self, text: str) -> None:
        """Make ``text`` the content of ``path``."""
        data = text.encode("utf-8")
        fd, name = self._fds[self._next], self._names[self._next]
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
        tmp = self.path.with_name(self.path.name + ".tmp")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.link(name, tmp)
        os.replace(tmp, self.path)
        self._next = 1 - self._next

    def close(self, text: str | None = None) -> None:
        """Write ``text`` (if given) as an ordinary file at ``path`` and remove the hidden files."""
        if text is not None:
            write_text_atomic(self.path, text)
        for fd, name in zip(self._fds, self._names):
            os.close(fd)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
        self._fds = []

"""Writing a run's files never through a link planted in the way: a file whole (a temporary file and a rename), or a log
opened for writing (a link in its place removed, or refused)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import IO, Any

from .errors import ConfigError

__all__ = ["SwappedFile", "open_log", "write_json_atomic", "write_text_atomic"]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def open_log(path: str | Path, *, append: bool = False) -> IO[str]:
    """Open the log ``path`` for writing (UTF-8), started empty, or appended to (``append``), never through a link.

    A run directory may come from anyone (a played run resumed, a run continued): a symbolic link planted at a
    log's name would make the run write into the file it points to. Started empty, the link is removed and a file
    made in its place; appended to, a link is refused (its lines are the run's, and they are elsewhere).

    Raises:
        ConfigError: ``append`` and ``path`` is a symbolic link.
    """
    target = Path(path)
    if append:
        if target.is_symlink():
            raise ConfigError(f"{str(target)!r} is a symbolic link, not a log file; a run directory keeps its own "
                              "logs: put the file it points to in its place")
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
    else:
        with contextlib.suppress(FileNotFoundError):
            if target.is_symlink():
                os.unlink(target)  # the link itself, never what it points to
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    fd = os.open(target, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
    return os.fdopen(fd, "a" if append else "w", encoding="utf-8")


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

"""The lock a live episode holds on its run directory, so two episodes never record into one."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

from bizsim.simcore.errors import ConfigError

__all__ = ["hold"]


class _Held:
    """An exclusive lock on a file, held while the object lives (released by :meth:`close` or by the process's end,
    a kill included: the kernel drops it)."""

    def __init__(self, fh: IO[str]) -> None:
        self.fh = fh

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.fh.close()


def hold(path: Path) -> _Held:
    """Take ``path``'s lock, or refuse: another live episode records into this directory."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    fh = os.fdopen(fd, "r+", encoding="utf-8")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = fh.read(32).strip()
        fh.close()
        raise ConfigError(f"{str(path.parent)!r} is recording a live episode already (process {holder or '?'} holds "
                          f"{path.name}); choose another directory") from None
    fh.truncate(0)
    fh.write(f"{os.getpid()}\n")  # who holds it, for the message above and for whoever must stop it
    fh.flush()
    return _Held(fh)

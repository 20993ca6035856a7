"""``bizsim do`` and ``bizsim shim``: one command line to a served episode, from the shell or as ``yc-bench``."""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

from bizsim.simcore.errors import BizSimError
from bizsim.runs.rundir import RunDir
from bizsim.simcore.limits import MAX_SOCKET_MESSAGE_BYTES

from . import shell_client

__all__ = ["run_line", "write_shim"]


def socket_path(run_dir: str | Path) -> str:
    """The socket of the episode served in ``run_dir``."""
    return str(RunDir(Path(run_dir).resolve()).socket)


def run_line(run_dir: str | Path, line: str) -> int:
    """``bizsim do LINE``: send it, print the answer, return the exit status (0, 1 or 2)."""
    client = os.environ.get("BIZSIM_CLIENT") or "bizsim do"
    return shell_client.forward(socket_path(run_dir), {"line": line, "client": client}, MAX_SOCKET_MESSAGE_BYTES)


def write_shim(bin_dir: str | Path, run_dir: str | Path, *, name: str = "yc-bench") -> Path:
    """Write ``BIN_DIR/NAME``, a program that sends its arguments (as a list: no shell reads them) to the episode
    served in ``run_dir`` and prints the answer as YC-Bench's command line does.

    The program is the standard-library client of :mod:`bizsim.cli.shell_client`, run by this Python with
    ``-IS`` (isolated, no site packages), with the socket's path written into it.

    Raises:
        BizSimError: ``name`` is not a plain file name, or ``BIN_DIR`` cannot be written.
    """
    if not name or "/" in name or name in (".", "..") or "\0" in name:
        raise BizSimError(f"--name(={name!r}) must be a plain file name, e.g. yc-bench")
    folder = Path(bin_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BizSimError(f"cannot write to {str(folder)!r}: {exc.strerror or exc}") from None
    target = folder / name
    body = inspect.getsource(shell_client)
    text = (
        f"#!{sys.executable} -IS\n"
        f"# Written by `bizsim shim`: forwards its arguments to the episode served in "
        f"{str(Path(run_dir).resolve())!r}.\n"
        f"{body}\n\n"
        f"SOCKET_PATH = {socket_path(run_dir)!r}\n"
        f"if __name__ == '__main__':\n"
        f"    import os\n"
        f"    client = os.environ.get('BIZSIM_CLIENT') or {name!r}\n"
        f"    sys.exit(forward(SOCKET_PATH, {{'argv': sys.argv[1:], 'client': client}}, {MAX_SOCKET_MESSAGE_BYTES}))\n"
    )
    from bizsim.simcore.files import write_text_atomic

    try:
        write_text_atomic(target, text)
        os.chmod(target, 0o700)
    except OSError as exc:
        raise BizSimError(f"cannot write {str(target)!r}: {exc.strerror or exc}") from None
    return target

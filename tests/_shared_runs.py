"""Run directories that several test modules only read, played once per test session (across pytest-xdist workers
too): startup-v2's `hard` planner year takes seconds, and five tests in four modules read the same one.

A test that writes into a run directory, or checks how it was made, plays its own.
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

#: startup-v2, hard, planner, seed 1: it hires, meets a downturn, a client going under, 56 late payments (one booked
#: at the horizon) and records 1,837 signal-truth marks.
V2_HARD_PLANNER = ("startup-v2", "hard", "planner", 1)


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive lock on ``path`` (one worker plays, the others wait and read what it wrote)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: each worker is alone in its own directory
        yield
        return
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def played_once(factory: pytest.TempPathFactory, case: tuple[str, str, str, int]) -> tuple[Path, str]:
    """``bizsim run WORLD --preset P --agent A --seed N --out DIR``, played once for the session: DIR and what the
    command printed. Read it; never write into it."""
    from bizsim.cli import main

    base = factory.getbasetemp()
    # Under pytest-xdist every worker's base is a folder of one shared session folder.
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-runs"
    root.mkdir(exist_ok=True)
    name = "-".join(map(str, case))
    out, printed, done = root / name, root / f"{name}.out", root / f"{name}.done"
    with _locked(root / f"{name}.lock"):
        if not done.exists():
            world, preset, agent, seed = case
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                code = main(["run", world, "--preset", preset, "--agent", agent, "--seed", str(seed), "--out", str(out),
                             "--no-progress"])
            assert 0 == code, buf.getvalue()[-2000:]
            printed.write_text(buf.getvalue(), encoding="utf-8")
            done.touch()
    return out, printed.read_text(encoding="utf-8")

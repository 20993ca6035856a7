"""Numbered run directories under one folder, one per episode, for the surfaces that serve many episodes at once.

``bizsim openenv`` and the verifiers 0.4 taskset both record each episode they open into ``<out>/<n>-seed<seed>``;
one naming rule keeps their ``out`` folders alike for ``bizsim verify`` and the analyses.
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

from bizsim.runs.rundir import make_output_dir

__all__ = ["RunFolders"]


class RunFolders:
    """Run directories under ``out``: ``<n>-seed<seed>``, ``n`` counting from 1 (a folder already there is skipped,
    so a second server or evaluation into the same ``out`` adds to it). Safe to call from many threads.

    Raises:
        ConfigError: ``out`` cannot be made a folder (:func:`~bizsim.runs.rundir.make_output_dir`).
    """

    def __init__(self, out: str | Path) -> None:
        self.out = make_output_dir(out)
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def next(self, seed: int) -> Path:
        """A new, empty run directory for an episode on ``seed``."""
        with self._lock:
            while True:
                folder = self.out / f"{next(self._numbers):06d}-seed{seed}"
                if not folder.exists():
                    folder.mkdir()
                    return folder

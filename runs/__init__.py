"""The run: its spec resolved once, one recorder, one execute, live episodes, sweeps, verify and forks.

Names are imported on first use, so ``from bizsim.runs import run_episode`` loads neither the LLM agent nor
pandas. ``runs`` writes records; the tables read from them (``load``, ``compact``, ``Results``) are
:mod:`bizsim.analysis`'s.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bizsim.runs.episode import TERMINAL_REASONS, EpisodeResult, run_episode
    from bizsim.runs.llm_run import LLMRunResult, resume_llm, run_llm, run_llm_episodes
    from bizsim.runs.pipeline import execute
    from bizsim.runs.recorder import NullRecorder, Recorder, RunDirRecorder, write_run_dir
    from bizsim.runs.resolve import ResolvedRun, resolve
    from bizsim.runs.rundir import RunDir, SweepDir, read_command_log
    from bizsim.runs.roster import Seat, arena_grid, rotations
    from bizsim.runs.runspec import RunSpec
    from bizsim.runs.sweep import SweepSummary, grid, sweep

__all__ = [
    "EpisodeResult", "LLMRunResult", "execute", "TERMINAL_REASONS", "read_command_log", "resume_llm",
    "run_episode", "run_llm", "run_llm_episodes", "write_run_dir", "RunDir", "SweepDir",
    "RunSpec", "SweepSummary", "grid", "sweep",
    "NullRecorder", "Recorder", "RunDirRecorder", "ResolvedRun", "resolve", "Seat", "arena_grid", "rotations",
]

# The function shadows the module of the same name, as an eager import does; a lazy one would not.
from bizsim.runs.sweep import sweep  # noqa: E402

_WHERE = {
    "TERMINAL_REASONS": "episode", "EpisodeResult": "episode", "run_episode": "episode",
    "execute": "pipeline", "LLMRunResult": "llm_run", "resume_llm": "llm_run", "run_llm": "llm_run",
    "run_llm_episodes": "llm_run", "read_command_log": "rundir", "write_run_dir": "recorder",
    "NullRecorder": "recorder", "Recorder": "recorder", "RunDirRecorder": "recorder", "ResolvedRun": "resolve",
    "resolve": "resolve",
    "RunDir": "rundir", "SweepDir": "rundir",
    "RunSpec": "runspec", "SweepSummary": "sweep", "grid": "sweep",
    "Seat": "roster", "arena_grid": "roster", "rotations": "roster",
}


#: Names that moved up to the analysis layer: an import of one says where it went (runs never imports analysis).
_MOVED = {"Results": "bizsim.analysis", "compact": "bizsim.analysis", "load": "bizsim.analysis"}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        if name in _MOVED:
            raise AttributeError(f"bizsim.runs has no {name!r}: the result tables are read by the analysis layer; "
                                 f"import it from there (from {_MOVED[name]} import {name})")
        raise AttributeError(f"module 'bizsim.runs' has no attribute {name!r}")
    return getattr(importlib.import_module(f"bizsim.runs.{module}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

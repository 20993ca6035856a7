"""Episodes, run directories, sweeps, metrics and plots.

Names are imported on first use, so ``from bizsim.analysis import run_episode`` loads neither the LLM agent
nor pandas.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .episode import TERMINAL_REASONS, EpisodeResult, run_episode
    from .fork_compare import compare_forks, fork_series
    from .llm_run import LLMRunResult, resume_llm, run_llm, run_llm_episodes
    from .pipeline import execute
    from .rundir import read_command_log, write_run_dir
    from .store import Results, compact, load
    from .sweep import RunSpec, SweepSummary, grid, sweep
    from .ycbench import export_rollout, import_rollout

__all__ = [
    "EpisodeResult", "LLMRunResult", "compare_forks", "execute", "fork_series", "TERMINAL_REASONS", "read_command_log", "resume_llm", "run_episode",
    "run_llm", "run_llm_episodes", "write_run_dir",
    "Results", "RunSpec", "SweepSummary", "compact", "grid", "load", "sweep",
    "export_rollout", "import_rollout",
]

# The function shadows the module of the same name, as an eager import did; a lazy one would not.
from .sweep import sweep  # noqa: E402

_WHERE = {
    "TERMINAL_REASONS": "episode", "EpisodeResult": "episode", "run_episode": "episode",
    "compare_forks": "fork_compare", "fork_series": "fork_compare",
    "execute": "pipeline", "LLMRunResult": "llm_run", "resume_llm": "llm_run", "run_llm": "llm_run",
    "run_llm_episodes": "llm_run", "read_command_log": "rundir", "write_run_dir": "rundir",
    "Results": "store", "compact": "store", "load": "store",
    "RunSpec": "sweep", "SweepSummary": "sweep", "grid": "sweep",
    "import_rollout": "ycbench", "export_rollout": "ycbench",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'bizsim.analysis' has no attribute {name!r}")
    return getattr(importlib.import_module(f"bizsim.analysis.{module}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""Result tables, metrics (the papers' analyses), plots, the report and the YC-Bench exchange.

The run pipeline lives in :mod:`bizsim.runs`; its public names are re-exported here, where the docs have always
imported them (``from bizsim.analysis import run_episode, load, sweep``). Names are imported on first use, so
``from bizsim.analysis import run_episode`` loads neither the LLM agent nor pandas.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bizsim.analysis.fork_compare import compare_forks, fork_series
    from bizsim.analysis.ycbench import export_rollout, import_rollout
    from bizsim.runs import (
        TERMINAL_REASONS, EpisodeResult, LLMRunResult, Results, RunSpec, SweepSummary, compact, execute, grid, load,
        read_command_log, resume_llm, run_episode, run_llm, run_llm_episodes, sweep, write_run_dir,
    )

__all__ = [
    "EpisodeResult", "LLMRunResult", "compare_forks", "execute", "fork_series", "TERMINAL_REASONS",
    "read_command_log", "resume_llm", "run_episode", "run_llm", "run_llm_episodes", "write_run_dir",
    "Results", "RunSpec", "SweepSummary", "compact", "grid", "load", "sweep",
    "export_rollout", "import_rollout",
]

_WHERE = {
    "compare_forks": "bizsim.analysis.fork_compare", "fork_series": "bizsim.analysis.fork_compare",
    "import_rollout": "bizsim.analysis.ycbench", "export_rollout": "bizsim.analysis.ycbench",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    if name in __all__:
        return getattr(importlib.import_module("bizsim.runs"), name)
    raise AttributeError(f"module 'bizsim.analysis' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

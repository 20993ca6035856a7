"""Result tables, metrics (the papers' analyses), plots, the report and the YC-Bench exchange.

``runs`` writes records; this layer reads them into tables (:mod:`bizsim.analysis.tables`: ``load``,
``compact``, ``Results``) and analyses them. The run API lives in :mod:`bizsim.runs` and is imported from there
(``from bizsim.runs import run_episode, sweep``); its names are still re-exported here so code that imported
them from ``bizsim.analysis`` keeps working. Names are imported on first use, so ``from bizsim.analysis import
load`` loads neither the LLM agent nor pandas.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bizsim.analysis.arena import arena_table, pairwise, rating, standings
    from bizsim.analysis.comparisons import paired_comparisons
    from bizsim.analysis.figure_data import figure_data
    from bizsim.analysis.fork_compare import compare_forks, fork_series
    from bizsim.analysis.headline import with_headline
    from bizsim.analysis.intervals import bootstrap_ci, standard_error
    from bizsim.analysis.table_files import latex_escape, to_latex
    from bizsim.analysis.tables import Results, compact, load
    from bizsim.analysis.ycbench import export_rollout, import_rollout
    from bizsim.runs import (
        TERMINAL_REASONS, EpisodeResult, LLMRunResult, RunSpec, SweepSummary, execute, grid, read_command_log,
        resume_llm, run_episode, run_llm, run_llm_episodes, sweep, write_run_dir,
    )

__all__ = [
    "EpisodeResult", "LLMRunResult", "compare_forks", "execute", "fork_series", "TERMINAL_REASONS",
    "read_command_log", "resume_llm", "run_episode", "run_llm", "run_llm_episodes", "write_run_dir",
    "Results", "RunSpec", "SweepSummary", "compact", "grid", "load", "sweep",
    "export_rollout", "import_rollout", "bootstrap_ci", "figure_data", "latex_escape", "paired_comparisons",
    "standard_error", "to_latex", "with_headline",
    "arena_table", "pairwise", "rating", "standings",
]

_WHERE = {
    "arena_table": "bizsim.analysis.arena", "pairwise": "bizsim.analysis.arena", "rating": "bizsim.analysis.arena",
    "standings": "bizsim.analysis.arena",
    "compare_forks": "bizsim.analysis.fork_compare", "fork_series": "bizsim.analysis.fork_compare",
    "Results": "bizsim.analysis.tables", "compact": "bizsim.analysis.tables", "load": "bizsim.analysis.tables",
    "import_rollout": "bizsim.analysis.ycbench", "export_rollout": "bizsim.analysis.ycbench",
    "paired_comparisons": "bizsim.analysis.comparisons", "figure_data": "bizsim.analysis.figure_data",
    "with_headline": "bizsim.analysis.headline", "bootstrap_ci": "bizsim.analysis.intervals",
    "standard_error": "bizsim.analysis.intervals", "latex_escape": "bizsim.analysis.table_files",
    "to_latex": "bizsim.analysis.table_files",
}
#: The run API's names, owned by :mod:`bizsim.runs` and re-exported for code written before the docs imported
#: them from there (tests/test_import_owners.py keeps the docs from importing them here).
RUN_API = (
    "EpisodeResult", "LLMRunResult", "RunSpec", "SweepSummary", "TERMINAL_REASONS", "execute", "grid",
    "read_command_log", "resume_llm", "run_episode", "run_llm", "run_llm_episodes", "sweep", "write_run_dir",
)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    if name in RUN_API:
        return getattr(importlib.import_module("bizsim.runs"), name)
    raise AttributeError(f"module 'bizsim.analysis' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

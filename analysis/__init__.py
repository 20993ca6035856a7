"""Episodes, run directories, sweeps, metrics and plots."""

from .episode import TERMINAL_REASONS, EpisodeResult, run_episode
from .llm_run import LLMRunResult, LLMRunSpec, resume_llm, run_llm, run_llm_episodes
from .rundir import read_command_log, write_run_dir
from .store import Results, compact, load
from .sweep import RunSpec, SweepSummary, grid, sweep

__all__ = [
    "EpisodeResult", "LLMRunResult", "LLMRunSpec", "TERMINAL_REASONS", "read_command_log", "resume_llm", "run_episode",
    "run_llm", "run_llm_episodes", "write_run_dir",
    "Results", "RunSpec", "SweepSummary", "compact", "grid", "load", "sweep",
]

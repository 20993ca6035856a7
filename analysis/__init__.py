"""Episodes, run directories, sweeps, metrics and plots."""

from .episode import TERMINAL_REASONS, EpisodeResult, run_episode
from .rundir import read_command_log, write_run_dir

__all__ = ["EpisodeResult", "TERMINAL_REASONS", "read_command_log", "run_episode", "write_run_dir"]

"""The run directory's layout: every file name bizsim writes, in one place.

A run directory (``bizsim run --out DIR``, an LLM run, a sweep's ``runs/<id>``) holds:

- ``config.toml``: the world's config, complete (no ``extends``);
- ``result.json``: the run's summary, written once, when the run ends;
- ``commands.jsonl`` and ``trajectory.jsonl``: the last episode's timed command log and trajectory;
- ``episodes/<n>/``: the same two files for each earlier episode of a run restarted after a bankruptcy;
- for an LLM run, ``run.json`` (what determines it, written first), ``llm_calls.jsonl`` and
  ``agent_commands.jsonl`` (appended as they happen, so a killed run resumes);
- for a live episode played from outside (``bizsim mcp``, ``bizsim serve``), ``live.lock`` (held while the
  episode is open) and, for ``bizsim serve``, the socket ``episode.sock``; its logs are appended and
  ``result.json`` rewritten after every answered call.
- for a run imported from another harness (``bizsim import``), ``imported.json``: its source, the outcome the
  source recorded and the fidelity report of the replay.

A sweep directory holds ``results.jsonl`` (one record a run), ``runs/<run id>/`` and ``report/``.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AGENT_COMMANDS", "COMMANDS", "CONFIG", "EPISODES", "IMPORTED", "LIVE_LOCK", "LLM_CALLS", "REPORT", "RESULT",
    "RESULTS", "RUNS", "RUN_SPEC", "SOCKET", "TRAJECTORY", "episode_dir",
]

CONFIG = "config.toml"
RESULT = "result.json"
COMMANDS = "commands.jsonl"
TRAJECTORY = "trajectory.jsonl"
EPISODES = "episodes"
RUN_SPEC = "run.json"
LLM_CALLS = "llm_calls.jsonl"
AGENT_COMMANDS = "agent_commands.jsonl"
LIVE_LOCK = "live.lock"
SOCKET = "episode.sock"
IMPORTED = "imported.json"
#: In a sweep directory.
RESULTS = "results.jsonl"
RUNS = "runs"
REPORT = "report"


def episode_dir(root: str | Path, n: int) -> Path:
    """Where earlier episode ``n`` (from 1) of a restarted run keeps its logs."""
    return Path(root) / EPISODES / str(n)

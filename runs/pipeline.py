"""One run pipeline: a :class:`~bizsim.runs.runspec.RunSpec` in, a finished run (and its run directory) out.

``bizsim run``, sweeps on every backend and the Python API all run a spec through :func:`execute`: a
baseline or planner plays through :func:`~bizsim.runs.episode.run_episode`, the LLM agent through
:func:`~bizsim.runs.llm_run.run_llm` (which records every model call so a killed run resumes).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bizsim.simcore.errors import ConfigError

from bizsim.runs.runspec import RunSpec, records_calls, world_config

__all__ = ["execute"]


def execute(
    spec: RunSpec,
    *,
    out: str | Path | None = None,
    overwrite: bool = False,
    on_stop: Callable[[Any], None] | None = None,
    probe: Callable[[Any], None] | None = None,
    resume: bool | None = None,
    **llm_options: Any,
) -> Any:
    """Run ``spec`` and write its run directory to ``out`` (when given).

    Args:
        out: the run directory. An LLM run always has one (its call log), and one that holds an interrupted
            run of the same spec is resumed.
        overwrite: replace a finished baseline run already in ``out`` (an LLM run is never replaced).
        on_stop: called with the world at every decision point (progress bars).
        probe: called with the world each time the agent hands time back (a sweep's extraction).
        resume: for the LLM agent: continue the run recorded in ``out`` (default: when ``out`` holds one).
        llm_options: for the LLM agent only: ``preflight``, ``client``, ``api_key``, ``limiter``, ``sleep``.

    Returns:
        an :class:`~bizsim.runs.episode.EpisodeResult`, or for the LLM agent an
        :class:`~bizsim.runs.llm_run.LLMRunResult` (its ``episode`` is the former).
    """
    if records_calls(spec):
        from bizsim.runs.llm_run import run_llm
        from bizsim.runs.rundir import RunDir

        if resume is None:
            resume = out is not None and RunDir(out).is_llm()
        return run_llm(spec, out=out, resume=resume, on_stop=on_stop, probe=probe, **llm_options)
    if llm_options or resume:
        given = sorted(llm_options) + (["resume"] if resume else [])
        raise ConfigError(f"{', '.join(given)} go with the llm agent, not agent {spec.agent!r}")
    from bizsim.runs.episode import run_episode

    preset = world_config(spec) if spec.overrides else spec.preset
    return run_episode(spec.world, preset, spec.agent, spec.seed, agent_options=spec.agent_options,
                       max_episodes=spec.max_episodes, out=out, overwrite=overwrite, on_stop=on_stop, probe=probe,
                       start=spec.start, fork=spec.origin)

"""One run pipeline: ``execute(resolve(spec), recorder)`` runs any agent and records it through its recorder.

``bizsim run``, sweeps on every backend, forks, the Python API (:func:`~bizsim.runs.episode.run_episode`,
:func:`~bizsim.runs.llm_run.run_llm`) all come here. The path is the same for every agent:

1. the recorder claims its place (a directory holding a run is refused before anything runs);
2. the agent's harness is made: for most agents their factory with options bound; for an agent that declares it
   calls a model (``records_calls``), the LLM harness, handed the recorder's channels for its calls and commands;
3. the run's first world is built and the recorder begins (a model run's spec is written first);
4. the episodes are played (:func:`~bizsim.runs.episode.play`);
5. the recorder finishes: logs, then the record.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from bizsim.simcore.errors import ConfigError

from bizsim.runs.episode import EpisodeResult, play
from bizsim.runs.recorder import Recorder, recorder_for
from bizsim.runs.resolve import ResolvedRun, resolve
from bizsim.runs.runspec import RunSpec

if TYPE_CHECKING:
    from bizsim.simcore.world import World

__all__ = ["Harness", "execute"]


class Harness(Protocol):
    """What an agent needs around its episodes: the LLM harness (:mod:`bizsim.runs.llm_run`) or the plain one."""

    #: Whether the run goes on from what its recorder holds.
    resume: bool

    def first_world(self) -> World:
        """The run's first world (a fresh one, or its start snapshot's)."""
        ...

    def header(self, world: World) -> dict | None:
        """What the recorder writes before the first step (a model run's spec), or ``None``."""
        ...

    def ready(self) -> None:
        """Last checks before the first step (a model run's pre-flight call)."""
        ...

    def agent(self) -> Callable:
        """The agent's ``world -> process`` factory."""
        ...

    def world_options(self) -> dict:
        """World constructor arguments for a restart's world (a role's player)."""
        ...

    def close(self) -> None:
        """Release what the harness holds (open logs)."""
        ...

    def result(self, episode: EpisodeResult) -> Any:
        """The run's result from its episodes' (a model run adds its counters)."""
        ...


class _Plain:
    """The harness of an agent that needs nothing around it: baselines, planners, your own functions."""

    resume = False

    def __init__(self, run: ResolvedRun, world_options: Callable[[], dict] | None) -> None:
        self.run = run
        self._options = world_options

    def first_world(self) -> World:
        from bizsim.simcore.snapshot import restore

        if self.run.spec.start is not None:
            return restore(self.run.spec.start)
        return self.run.new_world(**self.world_options())

    def header(self, world: World) -> None:
        return None

    def ready(self) -> None:
        pass

    def agent(self) -> Callable:
        return self.run.agent_factory()

    def world_options(self) -> dict:
        return {} if self._options is None else dict(self._options())

    def close(self) -> None:
        pass

    def result(self, episode: EpisodeResult) -> EpisodeResult:
        return episode


def execute(
    run: ResolvedRun | RunSpec,
    recorder: Recorder | None = None,
    *,
    out: str | Path | None = None,
    overwrite: bool = False,
    on_stop: Callable[[Any], None] | None = None,
    probe: Callable[[Any], None] | None = None,
    resume: bool | None = None,
    world_options: Callable[[], dict] | None = None,
    **llm_options: Any,
) -> Any:
    """Run ``run`` (a :class:`ResolvedRun`, or a spec resolved here) and record it through ``recorder``.

    Args:
        recorder: where the run is recorded (default: ``out``'s run directory, else nowhere).
        out: the run directory, when no recorder is given. An LLM run always has one (its call log), and one that
            holds an interrupted run of the same spec is resumed.
        overwrite: replace a finished baseline run already in ``out`` (an LLM run is never replaced).
        on_stop: called with the world at every decision point (progress bars).
        probe: called with the world each time the agent hands time back (a sweep's extraction).
        resume: for the LLM agent, or an arena with LLM seats: continue the run recorded in ``out`` (default: when
            ``out`` holds one).
        world_options: for agents without a harness of their own: world constructor arguments, asked for each
            episode's world.
        llm_options: for the LLM agent only: ``preflight``, ``client``, ``api_key``, ``limiter``, ``sleep``,
            ``on_agent``.

    Returns:
        an :class:`~bizsim.runs.episode.EpisodeResult`, or for the LLM agent an
        :class:`~bizsim.runs.llm_run.LLMRunResult` (its ``episode`` is the former), or for an arena run (a spec
        with a roster) an :class:`~bizsim.runs.arena_run.ArenaResult` (``llm_options``: ``clients`` by seat,
        ``limiter``, ``preflight``, ``sleep``).
    """
    if isinstance(run, RunSpec):
        run = resolve(run)
    if recorder is None:
        recorder = recorder_for(out if out is not None else run.out, overwrite=overwrite)
    elif out is not None:
        raise ConfigError("give execute a recorder or out, not both")
    if run.seats:  # an arena: every seat's agent in one world (its own path: one world, several agents)
        from bizsim.runs.arena_run import execute_arena

        if world_options is not None or probe is not None:
            raise ConfigError("an arena run takes no world_options or probe (its seats' agents play its world)")
        return execute_arena(run, recorder, on_stop=on_stop, resume=resume, **llm_options)
    if run.records_calls:
        from bizsim.runs.llm_run import LLMHarness

        if world_options is not None:
            raise ConfigError("world_options go with agents that play no world role; the LLM agent's model plays them")
        harness: Harness = LLMHarness(run, recorder, resume=resume, **llm_options)
    else:
        if llm_options or resume:
            given = sorted(llm_options) + (["resume"] if resume else [])
            raise ConfigError(f"{', '.join(given)} go with the llm agent, not agent {run.spec.agent!r}")
        harness = _Plain(run, world_options)
    recorder.claim(calls=run.records_calls, resume=harness.resume)
    started = False
    try:
        first = harness.first_world()
        recorder.begin(first, header=None if harness.resume else harness.header(first))
        harness.ready()
        started = True
        episode = play(run, harness.agent(), agent_name=run.spec.agent, on_stop=on_stop, probe=probe,
                       world_options=harness.world_options, first=first)
    except BaseException:
        harness.close()
        if not started and not harness.resume:
            recorder.abandon()  # a run that never started leaves no half run directory
        raise
    harness.close()
    result = harness.result(episode)
    recorder.finish(result.worlds, result.record())
    return result

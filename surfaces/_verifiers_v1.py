"""The verifiers 0.4 classes of bizsim's taskset, imported on first use (:mod:`bizsim.surfaces.verifiers_taskset`).

One task is one seed; :class:`BizSimEnv` plays it: it opens the episode here, serves its tools at a URL of its own
(:class:`~bizsim.surfaces._episode_mcp_host.EpisodeMCPHost`), runs the player's harness with that MCP server as
its only tools, and keeps the rollout's trace state (:class:`BizSimState`) in step with the episode after every
call, which is what the task's stops and reward read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from typing import Any, Self

import verifiers.v1 as vf
from pydantic import Field, model_validator
from verifiers.v1.harnesses.null import NullHarnessConfig
from verifiers.v1.mcp import SharedToolServer
from verifiers.v1.runtimes import SubprocessConfig
from verifiers.v1.utils.loaders import resolve_env_config

from bizsim.simcore.errors import BizSimError

from bizsim.runs.live import Episode
from bizsim.surfaces._episode_mcp_host import EpisodeMCPHost
from bizsim.surfaces._run_folders import RunFolders
from bizsim.surfaces.verifiers_taskset import DEFAULT_SEEDS, TASKSET_ID, TasksetSettings, taskset_settings

__all__ = ["BizSimData", "BizSimEnv", "BizSimEnvConfig", "BizSimState", "BizSimTask", "BizSimTaskset",
           "BizSimTasksetConfig", "load"]


class BizSimTasksetConfig(vf.TasksetConfig):
    """``--env.taskset.*``: the arguments of :func:`~bizsim.surfaces.verifiers_taskset.taskset_settings`."""

    world: str = "startup"
    preset: str = "default"
    seeds: str | int | list[int | str] = DEFAULT_SEEDS
    window: int | dict[str, int | float] | None = None
    max_turns: int = 200
    reward: str = "delta"
    reward_scale: float = 1.0
    out: str | None = None
    start_agent: str | None = None
    start_until: int | dict[str, int | float] | list[int | dict[str, int | float]] | None = None
    reward_weights: dict[str, float] | None = None

    @model_validator(mode="after")
    def _checked(self) -> Self:
        settings_of(self)  # a ConfigError is a ValueError: pydantic reports it under the config's name
        return self


def settings_of(config: BizSimTasksetConfig) -> TasksetSettings:
    """The config's arguments, checked."""
    return taskset_settings(config.world, config.preset, config.seeds, config.window, config.max_turns,
                            config.reward, config.reward_scale, config.out, config.start_agent, config.start_until,
                            config.reward_weights)


class BizSimData(vf.TaskData):
    """One task: a world on one seed, and how its rollout is cut and scored."""

    world: str
    preset: str
    seed: int
    window: dict[str, int | float] | None = None
    max_turns: int
    reward: str
    reward_scale: float
    start_agent: str | None = None
    start_point: dict[str, int | float] | None = None
    reward_weights: dict[str, float] | None = None


class BizSimState(vf.State):
    """The rollout's episode as its stops and reward see it, updated after every tool call."""

    run: str | None = None
    start_metric: float = 0.0
    metric: float = 0.0
    #: The shaping potential at both ends (0 unless ``reward="shaped"``).
    start_potential: float = 0.0
    potential: float = 0.0
    calls: int = 0
    step_rewards: list[float] = Field(default_factory=list)
    over: bool = False


class BizSimTask(vf.Task[BizSimData, BizSimState, vf.TaskConfig]):
    """A world on one seed: stops when its window is over or after ``max_turns`` model calls; rewards the
    metric change (with ``shaped``, plus the weighted change of the world's sub-metrics)."""

    @vf.stop
    async def episode_over(self, trace: vf.Trace) -> bool:
        """The window is over or the world ended: nothing is left to play."""
        return bool(trace.state.over)

    @vf.stop
    async def turn_limit(self, trace: vf.Trace) -> bool:
        """The rollout has made ``max_turns`` model calls."""
        return trace.num_turns >= self.data.max_turns

    @vf.reward(weight=1.0)
    async def metric_change(self, trace: vf.Trace) -> float:
        """The world's metric at the rollout's end minus at its start (with ``shaped``, plus the shaping potential's
        change: the sum of the calls' rewards), times ``reward_scale``."""
        state = trace.state
        return self.data.reward_scale * ((state.metric - state.start_metric)
                                         + (state.potential - state.start_potential))

    @vf.metric
    async def tool_calls(self, trace: vf.Trace) -> float:
        """Tool calls the episode answered, as its run directory counts them (``live.calls``; refused ones
        included, not those past the episode's end)."""
        return float(trace.state.calls)


class BizSimTaskset(vf.Taskset[BizSimTask, BizSimTasksetConfig]):
    """One task per seed; each prompt is the world's opening on that seed (where its start state stands)."""

    def __init__(self, config: BizSimTasksetConfig) -> None:
        super().__init__(config)
        # One start state for the taskset and its env: a policy's play on a seed is computed once, then restored.
        self.settings = settings_of(config)

    def load(self) -> Iterator[BizSimTask]:
        """The tasks, in seed order."""
        settings = self.settings
        start = settings.start
        for seed in settings.seeds:
            system, opening = _opening(settings, seed)
            yield BizSimTask(BizSimData(
                name=f"{settings.world}/{settings.preset}/seed{seed}", prompt=opening, system_prompt=system,
                world=settings.world, preset=settings.preset, seed=seed, window=settings.window,
                max_turns=settings.max_turns, reward=settings.reward, reward_scale=settings.reward_scale,
                reward_weights=settings.reward_weights,
                start_agent=None if start is None else start.agent,
                start_point=None if start is None else start.point_for(seed),
            ), self.config.task)


class BizSimEnvConfig(vf.EnvConfig):
    """The one seat, ``player``: verifiers' tool-calling chat loop on this machine unless the run pins another."""

    player: vf.AgentConfig = vf.AgentConfig(harness=NullHarnessConfig(id="null"), runtime=SubprocessConfig())


class BizSimEnv(vf.Env[BizSimEnvConfig]):
    """Plays each task's episode in this process (see the module's description)."""

    _host: EpisodeMCPHost | None = None

    async def start(self) -> None:
        """Serve the episodes' tools and make the run folder (when ``out`` is set)."""
        settings: TasksetSettings = self.taskset.settings  # type: ignore[attr-defined]
        self._start = settings.start
        self._folders = RunFolders(settings.out) if settings.out is not None else None
        self._host = await asyncio.to_thread(EpisodeMCPHost().start)

    async def stop(self) -> None:
        """Stop serving tools (every episode was closed by its rollout)."""
        host, self._host = self._host, None
        if host is not None:
            await asyncio.to_thread(host.stop)

    async def run(self, task: vf.Task, agents: vf.Agents) -> None:
        """One rollout: open the episode, let the player play it through its tools, close it."""
        host = self._host
        if host is None:
            raise BizSimError("BizSimEnv.run() needs the env to be serving (run it through vf-eval, or inside "
                              "`async with env.serving():`)")
        data = task.data
        folder = None if self._folders is None else self._folders.next(data.seed)
        episode = await asyncio.to_thread(
            Episode, data.world, data.preset, data.seed, out=folder, start=self._start, window=data.window,
            surface="verifiers", reward=data.reward, reward_weights=data.reward_weights, metadata={"task": data.name})
        traces: list[vf.Trace] = []

        def stepped(_episode: Episode, reward: float) -> None:
            if traces:
                state = traces[-1].state
                if len(state.step_rewards) < episode.calls:  # the call reached the episode
                    state.step_rewards.append(data.reward_scale * reward)
                _sync(traces[-1], episode)

        def minted(trace: vf.Trace) -> None:
            traces.append(trace)  # a retried attempt mints another trace; the world carries on
            trace.state.run = None if folder is None else str(folder)
            _sync(trace, episode)

        token = None
        try:  # the episode is closed whatever fails from here, serving it included
            url, token = host.add(episode, stepped)
            await agents.player.run(task, tools={"": SharedToolServer(url=url, local=True, external=True)},
                                    on_trace=minted)
        finally:
            if token is not None:
                host.remove(token)
            await asyncio.to_thread(episode.close, "rollout ended")


def load(taskset: Mapping[str, Any]) -> vf.Env:
    """The environment for ``taskset`` (the taskset config's fields), as ``vf-eval`` builds it."""
    return vf.load_environment(resolve_env_config({"taskset": {**taskset, "id": TASKSET_ID}}))


def _sync(trace: vf.Trace, episode: Episode) -> None:
    state: BizSimState = trace.state
    state.start_metric, state.metric = episode.start_metric, episode.metric
    state.start_potential, state.potential = episode.start_potential, episode.potential
    state.calls = episode.calls
    state.over = episode.done or episode.truncated
    # The trace's record keeps info, not state: where the run directory is, the metric at both ends, and each
    # call's reward (as `reward` shares it out, scaled), which sum to the rollout's.
    trace.info["bizsim"] = {"run": state.run, "start_metric": state.start_metric, "metric": state.metric,
                            "start_potential": state.start_potential, "potential": state.potential,
                            "status": episode.world.status.value, "step_rewards": list(state.step_rewards)}


def _opening(settings: TasksetSettings, seed: int) -> tuple[str, str]:
    """The system prompt and first user message of a task: the world's prompt, and its state at the start."""
    episode = Episode(settings.world, settings.preset, seed, start=settings.start, window=settings.window)
    try:
        world = episode.world
        window = settings.window
        span = ("until the episode ends" if window is None else
                f"for {window['turns']:g} turns" if "turns" in window else f"for {window['days']:g} days")
        advance = world.advance_command.replace(" ", "_")
        opening = (f"It is {world.now_iso}. You play from here {span}; your score is the change in "
                   f"{world.summary()['metric']}. Call the tools to act; the {advance} tool moves time on.\n"
                   f"Current state: {json.dumps(world.observation(), sort_keys=True, default=str)}")
        return episode.system_prompt(), opening
    finally:
        episode.close()
        episode.world.close()


"""An Inspect task for a registered world: one sample per seed, the world's commands as tools, its metric as score.

``inspect eval bizsim/startup -T preset=default -T seeds=1-5`` runs this task
(see ``_registry``). A setup step, kept when ``--solver`` replaces the agent,
gives each sample its world's system prompt, opening message and tools and
names its run directory; the default agent is Inspect's ``react`` loop, ending
when the model stops calling tools or the episode ends. A world played by
YC-Bench's protocol on preset ``reference`` is played by bizsim's own harness
(:func:`~.harness.bizsim_harness`) instead, so published prompts and scripted
policies behave exactly as there.
"""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path
from typing import Any

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import MAX_SEEDS, show
from bizsim.simcore.registry import world_spec
from bizsim.simcore.world import World
from inspect_ai import Task
from inspect_ai.agent import AgentState, react
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver

try:  # how Inspect marks an error it shows as a message; kept out of the way if a later Inspect moves it
    from inspect_ai._util.error import PrerequisiteError
except ImportError:  # pragma: no cover
    PrerequisiteError = Exception  # type: ignore[misc,assignment]

from bizsim.surfaces.inspect_eval.harness import bizsim_harness
from bizsim.surfaces.inspect_eval.sample import begin_sample, close_unscored, live_episode
from bizsim.surfaces.inspect_eval.scorer import world_metric
from bizsim.surfaces.inspect_eval.tools import reference_protocol, tools_for

__all__ = ["MAX_SAMPLES", "opening", "world_task"]

#: Seeds one task may hold (one sample each): a typo like ``1-100000000`` is refused, not built.
MAX_SAMPLES = MAX_SEEDS
#: An agent label or run-directory stem keeps these characters only.
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_TOOLS_NOTE = ("\n\nIn this session every command is a tool of its own, named by its words joined with "
               "underscores (`task accept --task-id X` is the tool `task_accept` with `task_id`).")


def opening(world: World, protocol: str) -> tuple[str, str]:
    """The system prompt and first user message a sample of ``world`` starts with."""
    from bizsim.agents.llm.protocols.ecogym import FIRST_MESSAGE, SHARED_RULES

    if protocol == "yc-bench":
        from bizsim.models.startup import prompt

        faithful = reference_protocol(world, protocol)
        system = prompt.system_prompt(getattr(world.config, "history_keep_rounds", 20))
        return (system if faithful else system + _TOOLS_NOTE), prompt.start_message(world.observation(), faithful=faithful)
    own = world.system_prompt()
    if own is None:
        budget = getattr(world, "daily_budget", None) or "unlimited"
        done = world.commands[world.advance_command].tool_name
        own = (world.agent_role or "You run a business in a simulation.") + "\n\n" + SHARED_RULES.format(
            done=done, budget=budget)
    return own, FIRST_MESSAGE


@solver
def bizsim_setup(world: str, preset: str, runs_dir: str, stamp: str) -> Solver:
    """Name the sample's episode and run directory and give it the world's prompt and tools (kept under ``--solver``)."""
    spec = world_spec(world)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        seed = int(state.metadata["seed"])
        sample = spec.make(preset, seed)
        named = Path(runs_dir) / f"{world}-{preset}-seed{seed}-epoch{state.epoch}-{stamp}"
        run_dir, attempt = named, 1
        while run_dir.exists():  # an earlier attempt of this sample (Inspect's retry_on_error) keeps its own
            attempt += 1
            run_dir = named.with_name(f"{named.name}-attempt{attempt}")
        agent = "inspect:" + _SAFE.sub("_", str(state.model))[:200]
        facts = {"inspect_sample_id": state.sample_id, "inspect_epoch": state.epoch,
                 "inspect_sample_uuid": state.uuid, "inspect_model": str(state.model)}
        begin_sample(world=world, preset=preset, seed=seed, run_dir=run_dir, agent=agent, metadata=facts)
        state.metadata["bizsim_run_dir"] = str(run_dir.resolve())
        system, first = opening(sample, spec.protocol)
        state.messages = [ChatMessageSystem(content=system), ChatMessageUser(content=first)]
        state.tools = list(tools_for(sample, spec.protocol))  # type: ignore[arg-type]  # ToolDef is a tool source
        return state

    return solve


def _until_the_end(world_done: Any) -> Any:
    async def on_continue(state: AgentState) -> bool:
        # Go on while the model calls tools and the episode runs: a model that stops calling tools has stopped.
        return bool(state.output.message.tool_calls) and not world_done()

    return on_continue


def _episode_done() -> bool:
    episode = live_episode()
    return episode is not None and episode.done


def world_task(
    world: str, *, preset: str = "default", seeds: str | int | list[int] = "1", runs_dir: str = "bizsim-runs",
    message_limit: int | None = None, token_limit: int | None = None, time_limit: int | None = None,
    cost_limit: float | None = None, **harness: Any,
) -> Task:
    """The Inspect task for ``world``: one sample per seed.

    Args:
        world: a registered world name.
        preset: one of its presets.
        seeds: ``"1-5"``, ``"1,3,7"``, an integer or a list.
        runs_dir: where each sample's run directory goes (``WORLD-PRESET-seedN-epochE-STAMP``).
        message_limit, token_limit, time_limit, cost_limit: Inspect's per-sample limits.
        harness: options of bizsim's own harness (:class:`~bizsim.agents.llm.LLMAgentConfig` fields) where it plays
            (YC-Bench's protocol on preset ``reference``).
    """
    from bizsim.runs.runspec import parse_seeds

    spec = world_spec(world)
    if preset not in spec.preset_names():
        raise ConfigError(f"preset(={preset!r}) is not a preset of world {world!r}; choose one of "
                          f"{', '.join(spec.preset_names())}")
    listed = _seeds(seeds, parse_seeds)
    probe = spec.make(preset, listed[0])
    tools = tools_for(probe, spec.protocol)
    stamp = time.strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)
    # The input names the episode; the setup step replaces it with the seed's own opening message.
    dataset = MemoryDataset([
        Sample(input=f"Play {spec.benchmark_id}, preset {preset}, seed {s}.", id=f"seed-{s}",
               metadata={"world": world, "preset": preset, "seed": s})
        for s in listed
    ], name=f"{spec.benchmark_id}-{preset}")
    if reference_protocol(probe, spec.protocol):
        agent: Any = bizsim_harness(**harness)
    else:
        if harness:
            raise ConfigError(f"{', '.join(sorted(harness))} set bizsim's own harness, which plays world {world!r} "
                              f"only with YC-Bench's protocol on preset 'reference'")
        agent = react(prompt=None, tools=tools, submit=False, on_continue=_until_the_end(_episode_done))
    return Task(
        dataset=dataset, setup=bizsim_setup(world, preset, runs_dir, stamp), solver=agent, scorer=world_metric(),
        cleanup=close_unscored,
        message_limit=message_limit, token_limit=token_limit, time_limit=time_limit, cost_limit=cost_limit,
        name=world, version=spec.version, metadata={"benchmark_id": spec.benchmark_id, "preset": preset},
    )


class TaskOptionError(ConfigError, PrerequisiteError):
    """A refused ``-T`` option of an Inspect task: a ConfigError that Inspect shows as its one line (as it shows
    its own prerequisite errors), not inside a traceback."""

    def __init__(self, message: str) -> None:
        ConfigError.__init__(self, message)
        self.message = message


def _seeds(seeds: Any, parse: Any) -> list[int]:
    # Counted before any is built; Inspect hands `-T seeds=1,3` as ['1', '3'], which the parser reads too.
    listed: list[int] = parse(seeds, MAX_SAMPLES)
    if not listed:
        raise ConfigError("seeds names no seed; give e.g. 1-5")
    if len(set(listed)) != len(listed):
        raise ConfigError(f"seeds {show(seeds)} names a seed twice; Inspect's --epochs repeats samples")
    return listed


def define_world_tasks() -> dict[str, Any]:
    """Register ``bizsim/<world>`` with Inspect for every registered world; returns the task functions by name."""
    from bizsim.simcore.registry import registered
    from inspect_ai import task

    tasks = {}
    for name in registered():
        fn = _task_function(name)
        tasks[name] = task(name=_registry_name(fn, name))(fn)
    return tasks


def _registry_name(fn: Any, world: str) -> str:
    """The name to give Inspect's ``@task`` so that the task is ``bizsim/<world>``.

    Inspect prefixes the name with the package it finds the function installed from; it finds none when an
    uninstalled copy of the source (a ``bizsim.egg-info`` beside it on ``sys.path``) shadows the editable
    install's metadata, and then the prefix is given here.
    """
    try:
        from inspect_ai._util.registry import registry_name
    except ImportError:  # a later Inspect moved it: name it in full, as a package without metadata would need
        return f"bizsim/{world}"
    return world if registry_name(fn, world) == f"bizsim/{world}" else f"bizsim/{world}"


def _task_function(world: str) -> Any:
    def world_eval(
        preset: str = "default", seeds: str = "1", runs_dir: str = "bizsim-runs", message_limit: int | None = None,
        token_limit: int | None = None, time_limit: int | None = None, cost_limit: float | None = None,
        **harness: Any,
    ) -> Task:
        try:
            return world_task(world, preset=preset, seeds=seeds, runs_dir=runs_dir, message_limit=message_limit,
                              token_limit=token_limit, time_limit=time_limit, cost_limit=cost_limit, **harness)
        except ConfigError as exc:
            raise TaskOptionError(f"bizsim/{world}: {exc}") from None

    world_eval.__name__ = world
    world_eval.__qualname__ = world
    world_eval.__doc__ = f"bizsim world {world!r}: one sample per seed (-T preset=NAME -T seeds=1-5)."
    return world_eval

"""Every registered world as a native verifiers 0.4 taskset, played in this process through :class:`~bizsim.runs.live.Episode`.

verifiers 0.4 (``verifiers.v1``) loads an environment as a *taskset plugin*: a module whose ``__all__`` exports one
``Taskset`` subclass (and here also the ``Env`` that plays it), imported by its id. Its loader turns an id into a
top-level module name (``owner/name@version`` -> ``name``, ``-`` -> ``_``), so a dotted module path cannot be an
id; bizsim installs the alias module ``bizsim_verifiers`` for it, whose id is :data:`TASKSET_ID`::

    vf-eval bizsim-verifiers --env.taskset.world operation --env.taskset.window.days 7 --env.taskset.seeds 1-8 ...

Each task is one seed of :attr:`TasksetSettings.seeds`. Its rollout opens an episode of the world on that seed,
fresh or where a policy's play on it stands (``start_agent`` played until ``start_until``, as a
:class:`~bizsim.agents.start.StartState` says), recorded as a run directory under ``out`` when one is given (which
``bizsim verify`` accepts). It offers the model the world's tools (:meth:`~bizsim.runs.live.Episode.tools`, the
declarations ``bizsim mcp`` serves) over an MCP endpoint this process serves on 127.0.0.1
(:mod:`bizsim.surfaces._episode_mcp_host`), runs every tool call as that command, and ends when the window is over
or the world ends (the next model call is refused), when the model answers without a tool call, or after
``max_turns`` model calls. The reward is the change of the world's metric over the rollout times ``reward_scale``
(``delta`` and ``terminal`` differ only in how each call's reward, listed in the trace's
``info["bizsim"]["step_rewards"]``, shares it out; ``shaped`` adds the weighted change of the world's sub-metrics,
:mod:`bizsim.runs.rewards`). The model's program is verifiers' tool-calling chat loop (the
``null`` harness) in the ``subprocess`` runtime unless the run pins another (``--env.player.harness.id``).

This module imports without verifiers 0.4: :func:`taskset_settings` checks the arguments anywhere, and the
verifiers classes (``BizSimTaskset``, ``BizSimTask``, ``BizSimEnv``, ...) are built on first use. The verifiers
0.1 adapter is :mod:`bizsim.surfaces.verifiers_env` (the ``rl`` extra); the two cannot share an environment
(verifiers 0.4 pins mcp 2.0.0 and openai below 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show
from bizsim.simcore.registry import world_spec

from bizsim.runs.rewards import reward_rule
from bizsim.surfaces._rl_args import (MAX_ROLLOUT_MODEL_CALLS, check_count, check_preset, check_reward_scale,
                                      check_world)

if TYPE_CHECKING:
    from bizsim.agents.start import StartState

# verifiers' loader reads the Taskset and Env classes through __all__; they are built on first use (__getattr__).
__all__ = ["DEFAULT_SEEDS", "TASKSET_ID", "BizSimData", "BizSimEnv", "BizSimEnvConfig", "BizSimState",  # noqa: F822
           "BizSimTask", "BizSimTaskset", "BizSimTasksetConfig", "TasksetSettings", "load_environment",
           "taskset_settings"]

#: The taskset id verifiers 0.4 loads (the installed alias module ``bizsim_verifiers``).
TASKSET_ID = "bizsim-verifiers"
#: The seeds of the tasks when none are given.
DEFAULT_SEEDS = "1-64"
#: The names built from verifiers 0.4 on first use (:mod:`bizsim.surfaces._verifiers_v1`).
_LAZY = frozenset({"BizSimData", "BizSimEnv", "BizSimEnvConfig", "BizSimState", "BizSimTask", "BizSimTaskset",
                   "BizSimTasksetConfig"})


@attrs.frozen
class TasksetSettings:
    """A taskset's arguments, checked: see :func:`taskset_settings`."""

    world: str
    preset: str
    seeds: tuple[int, ...]
    window: dict[str, int | float] | None
    max_turns: int
    reward: str
    reward_scale: float
    out: Path | None
    start: StartState | None = None
    #: ``shaped`` only: every sub-metric's weight (the world's defaults, overridden by ``reward_weights``).
    reward_weights: dict[str, float] | None = None


def taskset_settings(world: Any = "startup", preset: Any = "default", seeds: Any = DEFAULT_SEEDS, window: Any = None,
                     max_turns: Any = 200, reward: Any = "delta", reward_scale: Any = 1.0, out: Any = None,
                     start_agent: Any = None, start_until: Any = None,
                     reward_weights: Any = None) -> TasksetSettings:
    """Check a taskset's arguments, each with one clear error; no verifiers needed.

    >>> taskset_settings("operation", seeds="1-3", window={"days": 2}).seeds
    (1, 2, 3)

    Args:
        world: a registered world's name or versioned id.
        preset: one of its presets.
        seeds: the tasks' seeds: ``"1-20"``, ``"1,3,5-7"``, an int or a list (at most
            :data:`~bizsim.simcore.limits.MAX_SEEDS`, counted before any is listed).
        window: how long a rollout lasts: ``N`` agent turns, ``{"turns": N}`` or ``{"days": D}``; default until
            the world ends (or ``max_turns``).
        max_turns: at most this many model calls a rollout, from 1 to :data:`MAX_ROLLOUT_MODEL_CALLS`.
        reward: ``delta``, ``terminal`` or ``shaped`` (:data:`bizsim.runs.rewards.REWARDS`): how each call's reward
            shares out the rollout's, and for ``shaped`` what it adds (the weighted change of the world's
            sub-metrics).
        reward_scale: the rollout's reward is its metric change (plus, ``shaped``, the weighted change of the
            sub-metrics) times this: a finite number > 0 (startup's metric is cents).
        out: a folder to record every rollout into (one run directory each), or ``None``.
        start_agent: where rollouts start: this agent of the world plays each seed until ``start_until`` (default:
            a fresh world).
        start_until: one point or several (``30`` turns, ``{"day": 150}``, ``{"hours": 720}``); seed ``s`` starts
            at point ``s % len(points)``; given with ``start_agent``.
        reward_weights: ``shaped`` only: weights by sub-metric name over the world's defaults
            (:func:`~bizsim.runs.rewards.reward_rule` checks them).

    Raises:
        ConfigError: naming the argument, its value and the rule.
    """
    from bizsim.agents.start import StartState, Window
    from bizsim.simcore.seeds import parse_seeds

    name = check_world(world)
    check_preset(name, preset, "verifiers")
    if isinstance(seeds, bool) or seeds is None:
        raise ConfigError(f"seeds(={show(seeds)}) must name seeds, e.g. '1-64' or [1, 2, 3]")
    chosen = parse_seeds(seeds)
    if not chosen:
        raise ConfigError(f"seeds(={show(seeds)}) name no seed; give at least one, e.g. '1-8'")
    if isinstance(window, Mapping):
        window = {k: (int(v) if k == "turns" and isinstance(v, float) and v.is_integer() else v)
                  for k, v in window.items()}  # a TOML or JSON table may carry turns as 2.0
    cut = Window.of(window)
    length: dict[str, int | float] | None = None
    if cut is not None and cut.turns is not None:
        length = {"turns": cut.turns}
    elif cut is not None and cut.days is not None:
        length = {"days": cut.days}
    rule = reward_rule(name, reward, reward_weights)
    if out is not None and (not isinstance(out, (str, PathLike)) or not str(out).strip()):
        raise ConfigError(f"out(={show(out)}) must be a folder path, or None to record nothing")
    if start_agent is not None and not isinstance(start_agent, str):
        raise ConfigError(f"start_agent(={show(start_agent)}) must be an agent's name of {name}, e.g. "
                          f"{world_spec(name).default_agent!r}")
    if (start_agent is None) != (start_until is None):
        raise ConfigError(f"start_agent(={show(start_agent)}) and start_until(={show(start_until)}) go together: "
                          "give both (e.g. start_agent='planner', start_until={'day': 150}) or neither (a fresh world)")
    start = None if start_agent is None else StartState(name, preset=preset, agent=start_agent, until=start_until)
    return TasksetSettings(
        world=name, preset=preset, seeds=tuple(chosen),
        window=length,
        max_turns=check_count(max_turns, "max_turns", high=MAX_ROLLOUT_MODEL_CALLS), reward=reward,
        reward_scale=check_reward_scale(reward_scale), out=None if out is None else Path(out), start=start,
        reward_weights=dict(rule.weights) if rule.mode == "shaped" else None,
    )


def load_environment(**taskset: Any) -> Any:
    """A verifiers 0.4 environment (``verifiers.v1.Env``) playing a world: ``load_environment(world="operation",
    seeds="1-8", window={"days": 7})``, the arguments those of :func:`taskset_settings`.

    verifiers 0.4 itself builds environments from a config (``vf-eval``, ``verifiers.v1.load_environment``); this
    is the Python shortcut to the same object, under the name verifiers 0.1 environments have.

    Raises:
        ConfigError: a bad argument (checked before verifiers is imported).
        ImportError: verifiers 0.4 is not installed (the message says how to install it).
    """
    taskset_settings(**taskset)
    v1 = _v1()
    return v1.load(taskset)


def __getattr__(name: str) -> Any:
    """The verifiers classes, built on first use (importing this module needs no verifiers 0.4)."""
    if name in _LAZY:
        return getattr(_v1(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _v1() -> Any:
    from importlib.metadata import PackageNotFoundError, version

    fix = ("pip install 'verifiers[openenv]==0.4.0' in an environment of its own (it pins mcp 2.0.0 and openai below "
           "3, which bizsim's test extra cannot hold); docs/rl.md says how")
    try:
        found = version("verifiers")
    except PackageNotFoundError:
        found = "not installed"
    # Read from the metadata first: importing verifiers 0.1 to find out would take seconds, then fail obscurely.
    parts = found.split(".")[:2]
    if not (all(p.isdigit() for p in parts) and len(parts) == 2 and tuple(map(int, parts)) >= (0, 4)):
        raise ImportError(f"the verifiers 0.4 taskset needs verifiers 0.4 (verifiers is {found}): {fix}")
    try:
        from bizsim.surfaces import _verifiers_v1
    except ImportError as exc:
        raise ImportError(f"the verifiers 0.4 taskset needs verifiers 0.4 ({exc.name or exc} is missing): {fix}"
                          ) from None
    return _verifiers_v1

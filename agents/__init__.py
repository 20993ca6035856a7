"""Agents: baselines, planners, the LLM agent and drivers. Each agent is a SimPy process.

A world's agents live in a subpackage named for it (``bizsim.agents.startup``); the registry
(:mod:`bizsim.simcore.registry`) names them and imports one only when it is used, so importing
this package loads no agent, no LLM client and no driver.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .declare import AgentDef, Process, agent

if TYPE_CHECKING:
    from bizsim.simcore.registry import WorldSpec
    from bizsim.simcore.world import World

    from .llm import LLMAgent, llm_agent
    from .startup import greedy, greedy_reference, planner, random_agent
    from .vending import markup

__all__ = ["AGENTS", "AgentDef", "LLMAgent", "agent", "agent_names", "greedy", "greedy_reference", "llm_agent",
           "make_agent", "markup", "planner", "random_agent", "resolve_agent"]

#: Names kept importable from here (``from bizsim.agents import greedy``), imported on first use.
_LAZY = {
    "greedy": "bizsim.agents.startup", "greedy_reference": "bizsim.agents.startup",
    "random_agent": "bizsim.agents.startup", "planner": "bizsim.agents.startup", "markup": "bizsim.agents.vending",
    "LLMAgent": "bizsim.agents.llm", "llm_agent": "bizsim.agents.llm",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'bizsim.agents' has no attribute {name!r}")


def agent_names(world: str) -> list[str]:
    """The agents registered for a world."""
    from bizsim.simcore.registry import world_spec

    return list(world_spec(world).agents)


def resolve_agent(world: str | WorldSpec, name: str) -> AgentDef:
    """The agent ``name`` of ``world`` (a name, or its registry entry already looked up): a registered name, or
    ``package.module:function`` for one of your own.

    Raises:
        ConfigError: no such agent, or the reference cannot be imported.
    """
    from bizsim.simcore.errors import ConfigError
    from bizsim.simcore.registry import load_object, world_spec

    if ":" in name:
        _importable_here()
        try:
            found = load_object(name)
        except ConfigError as exc:
            raise ConfigError(f"agent {exc}; give 'package.module:function'") from None
        if not callable(found):
            raise ConfigError(f"agent {name!r} is a {type(found).__name__}, not an agent function")
        return found if isinstance(found, AgentDef) else AgentDef(found, name=name)
    found = (world_spec(world) if isinstance(world, str) else world).agent(name)
    return found if isinstance(found, AgentDef) else AgentDef(found, name=name)


def _importable_here() -> None:
    """Make the current directory importable, so ``mymod:fn`` finds ``./mymod.py`` as ``python -m`` would."""
    import os
    import sys

    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())


def make_agent(world: str, name: str, options: dict[str, Any] | None = None) -> Callable[[World], Process]:
    """An agent process factory ``world -> generator`` with options bound and checked.

    ``name`` is a registered agent or ``package.module:function``. An agent
    declared with ``make`` (the LLM agent) is built once with the options and
    serves every episode, so it can carry state across restarts.
    """
    return resolve_agent(world, name).bind(options, label=name)


class _WorldAgents(Mapping[str, AgentDef]):
    """One world's agents by name, each imported when looked up."""

    def __init__(self, world: str) -> None:
        from bizsim.simcore.registry import world_spec

        self._spec = world_spec(world)

    def __getitem__(self, name: str) -> AgentDef:
        if name not in self._spec.agents:
            raise KeyError(name)
        return resolve_agent(self._spec.name, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._spec.agents)

    def __len__(self) -> int:
        return len(self._spec.agents)


class _Agents(Mapping[str, _WorldAgents]):
    """world -> agent name -> agent, read from the registry."""

    def __getitem__(self, world: str) -> _WorldAgents:
        from bizsim.simcore.errors import ConfigError

        try:
            return _WorldAgents(world)
        except ConfigError:
            raise KeyError(world) from None

    def __iter__(self) -> Iterator[str]:
        from bizsim.simcore.registry import world_names

        return iter(world_names())

    def __len__(self) -> int:
        from bizsim.simcore.registry import world_names

        return len(world_names())


#: world -> agent name -> agent (a read-only view of the registry).
AGENTS: Mapping[str, Mapping[str, AgentDef]] = _Agents()

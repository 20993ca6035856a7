"""Agents: baselines, planners and drivers. Each agent is a SimPy process."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from bizsim.simcore.errors import ConfigError

from .startup_baselines import greedy, greedy_reference, random_agent

__all__ = ["AGENTS", "make_agent", "agent_names", "greedy", "greedy_reference", "random_agent"]

#: world -> agent name -> agent function ``fn(world, **options)``
AGENTS: dict[str, dict[str, Callable]] = {
    "startup": {"greedy": greedy, "greedy-reference": greedy_reference, "random": random_agent},
}


def agent_names(world: str) -> list[str]:
    """The agents registered for a world."""
    return list(AGENTS.get(world, {}))


def make_agent(world: str, name: str, options: dict[str, Any] | None = None) -> Callable:
    """An agent process factory ``world -> generator`` with options bound and checked."""
    table = AGENTS.get(world, {})
    if name not in table:
        raise ConfigError(f"unknown agent {name!r} for world {world!r}; choose one of {', '.join(table) or 'none'}")
    fn = table[name]
    options = dict(options or {})
    accepted = list(inspect.signature(fn).parameters)[1:]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ConfigError(
            f"agent {name!r} has no option(s) {', '.join(unknown)}; its options: {', '.join(accepted) or 'none'}"
        )
    return lambda w: fn(w, **options)

"""Agents: baselines, planners and drivers. Each agent is a SimPy process."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bizsim.simcore.errors import ConfigError

from .freelance_baselines import FREELANCE_AGENTS
from .freelance_planner import planner as freelance_planner_agent
from .llm import LLMAgent, llm_agent
from .operation_baselines import OPERATION_AGENTS
from .operation_planner import planner as operation_planner_agent
from .options import check_agent_options
from .startup_baselines import greedy, greedy_reference, random_agent
from .startup_planner import planner
from .vending_baselines import markup
from .vending_planner import planner as vending_planner_agent

__all__ = ["AGENTS", "LLMAgent", "make_agent", "agent_names", "greedy", "greedy_reference", "llm_agent", "markup",
           "planner", "random_agent"]

#: world -> agent name -> agent function ``fn(world, **options)``
AGENTS: dict[str, dict[str, Callable]] = {
    "startup": {"greedy": greedy, "greedy-reference": greedy_reference, "random": random_agent, "llm": llm_agent,
                "planner": planner},
    "operation": {**OPERATION_AGENTS, "planner": operation_planner_agent, "llm": llm_agent},
    "vending": {"markup": markup, "planner": vending_planner_agent, "llm": llm_agent},
    "freelance": {**FREELANCE_AGENTS, "planner": freelance_planner_agent, "llm": llm_agent},
}


def agent_names(world: str) -> list[str]:
    """The agents registered for a world."""
    return list(AGENTS.get(world, {}))


def make_agent(world: str, name: str, options: dict[str, Any] | None = None) -> Callable:
    """An agent process factory ``world -> generator`` with options bound and checked.

    An agent function with a ``make`` attribute (the LLM agent) is built once
    with the options and serves every episode, so it can carry state across
    restarts; its accepted options are listed in ``option_names``.
    """
    table = AGENTS.get(world, {})
    if name not in table:
        raise ConfigError(f"unknown agent {name!r} for world {world!r}; choose one of {', '.join(table) or 'none'}")
    fn = table[name]
    options = dict(options or {})
    make = getattr(fn, "make", None)
    if make is None:
        check_agent_options(name, fn, options)
        return lambda w: fn(w, **options)
    unknown = sorted(set(options) - set(fn.option_names))
    if unknown:
        raise ConfigError(
            f"agent {name!r} has no option(s) {', '.join(unknown)}; its options: {', '.join(fn.option_names)}"
        )
    return make(**options)

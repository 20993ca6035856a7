"""Watching an agent process from outside, without changing what it does."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import simpy

from .world import Agent, World, agent_process

__all__ = ["watch"]


def watch(
    agent: Agent,
    before: Callable[[World], None] | None = None,
    after: Callable[[World], bool | None] | None = None,
    name: str | None = None,
) -> Agent:
    """Wrap an agent so callbacks see the world around each of its yields.

    ``before(world)`` runs when the agent hands time back (just before it
    waits); ``after(world)`` runs when it is woken; if ``after`` returns True
    the agent is closed and the wrapper ends.
    """

    def watched(world: World) -> Generator[simpy.Event, Any, None]:
        gen = agent_process(agent, world)
        value: Any = None
        while True:
            try:
                event = gen.send(value)
            except StopIteration:
                return
            if before is not None:
                before(world)
            value = yield event
            if after is not None and after(world):
                gen.close()
                return

    watched.__name__ = name or str(getattr(agent, "__name__", "agent"))
    return watched

"""Stepping a world from outside SimPy (RL loops, shells, async LLM drivers)."""

from __future__ import annotations

from collections import deque
from typing import Any, cast

import simpy

from .world import World

__all__ = ["Driver"]


class Driver:
    """Push commands into a world and run it to the next decision point.

    Zero-time commands answer at once; the advance command runs the SimPy
    environment until the world's next stop and answers with its report.
    The result is the same trajectory a native agent process would produce.

    >>> # driver = Driver(StartupWorld("default", 1)); driver.send("company status")
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.inbox: deque[str | tuple[str, dict[str, Any]]] = deque()

    @property
    def done(self) -> bool:
        """True once the episode has ended."""
        return self.world.done

    def send(self, line: str) -> dict[str, Any]:
        """Run one command line; an advance returns once the world stops."""
        return self._settle(self.world.execute(line, driven=True))

    def send_tool(self, tool_name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Run one tool call (name and JSON arguments)."""
        return self._settle(self.world.execute_tool(tool_name, arguments, driven=True))

    def push(self, item: str | tuple[str, dict[str, Any]]) -> None:
        """Queue a command line, or a ``(tool_name, arguments)`` call, for :meth:`step`."""
        self.inbox.append(item)

    def step(self) -> list[dict[str, Any]]:
        """Run queued commands until one advances time (or the queue is empty)."""
        results = []
        while self.inbox:
            item = self.inbox.popleft()
            raw = self.world.execute(item, driven=True) if isinstance(item, str) else self.world.execute_tool(*item, driven=True)
            advanced = isinstance(raw, simpy.Event)
            results.append(self._settle(raw))
            if advanced:
                break
        return results

    def _settle(self, result: dict[str, Any] | simpy.Event) -> dict[str, Any]:
        if isinstance(result, simpy.Event):
            if not result.processed:
                self.world.env.run(until=result)
            return cast("dict[str, Any]", result.value)  # simpy types value Optional[Any]; a stop's is its report
        return result

"""One episode of an LLM agent: executes commands on the world, counts them, logs them as they happen."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import simpy
from bizsim.simcore.errors import CommandError

from .memory import MemoryItem, MemoryManager
from bizsim.simcore.jsonl import JsonlWriter
from .stats import HarnessStats

if TYPE_CHECKING:
    from bizsim.simcore.world import World

__all__ = ["Session"]


class Session:
    """The state an episode's protocol works with.

    Commands go through :meth:`run_line` (command lines) or :meth:`run_tool`
    (tool calls). Both are generators: an advance yields the world's SimPy
    event, so a protocol runs them with ``yield from`` inside the agent's
    process. Hidden commands (the reference bot's shortcuts) are refused:
    the model sees only the commands it was told about.
    """

    def __init__(
        self,
        world: World,
        *,
        episode: int,
        stats: HarnessStats,
        total: HarnessStats,
        memory: MemoryManager,
        commands_log: JsonlWriter | None = None,
    ) -> None:
        self.world = world
        self.episode = episode
        self.stats = stats
        self.total = total
        self.memory = memory
        self.commands_log = commands_log
        self.turn = 0
        self.turn_items: list[MemoryItem] = []

    def bump(self, counter: str, n: int = 1) -> None:
        """Add ``n`` to a counter of both the episode's and the run's statistics."""
        for s in (self.stats, self.total):
            setattr(s, counter, getattr(s, counter) + n)

    @property
    def now_h(self) -> float:
        """Simulated hours since the episode start."""
        return self.world.now_us / 3_600_000_000

    def remember(self, text: str, role: str, command: str | None = None, data: Any = None) -> None:
        """Queue an item of this turn for the memory modules."""
        if self.memory:
            self.turn_items.append(MemoryItem(text, role, self.turn, self.now_h, command, data))

    def flush_memory(self) -> None:
        """Hand the turn's items to the memory modules."""
        if self.turn_items:
            self.memory.observe(self.turn_items)
            self.turn_items = []

    def _count(self, result: Any, source: str) -> None:
        for s in (self.stats, self.total):
            if source == "model":
                s.commands += 1
                if isinstance(result, dict) and "error" in result:
                    s.command_errors += 1
            else:
                s.harness_commands += 1

    def _log(self, record: dict) -> None:
        if self.commands_log is not None:
            self.commands_log.write({"episode": self.episode, "turn": self.turn, **record})

    def run_line(self, line: str, source: str = "model") -> Generator[simpy.Event, Any, tuple[Any, str | None]]:
        """Run a command line; returns ``(result, command name or None)``."""
        world = self.world
        t_us = world.now_us
        name = self.command_name(line)
        if name is not None and world.commands[name].hidden:
            result: Any = {"error": f"Unknown command '{name}'.", "hint": world.commands.suggest("")}
            name = None
        else:
            result = world.execute(line)
            if isinstance(result, simpy.Event):
                result = yield result
        self._count(result, source)
        self._log({"source": source, "t_us": t_us, "line": line, "result": result})
        return result, name

    def command_name(self, line: str) -> str | None:
        """The command a line names (by its first words), without a full shell parse.

        >>> # session.command_name("yc-bench sim resume") == "sim resume"
        """
        commands = self.world.commands
        words = line.split()
        if words and words[0] in commands.programs:
            words = words[1:]
        for n in (3, 2, 1):
            if len(words) >= n:
                name = " ".join(words[:n])
                if name in commands:
                    return name
        return None

    def run_tool(self, name: str, arguments: dict, source: str = "model") -> Generator[simpy.Event, Any, tuple[Any, str | None]]:
        """Run a tool call (a command by its tool name); returns ``(result, command name or None)``."""
        world = self.world
        t_us = world.now_us
        try:
            spec = world.commands.by_tool_name(name)
        except CommandError:
            spec = None
        if spec is None or spec.hidden:
            result: Any = {"error": f"Unknown tool '{name}'.", "hint": "Use one of the tools you were given."}
        else:
            result = world.execute_tool(name, arguments)
            if isinstance(result, simpy.Event):
                result = yield result
        self._count(result, source)
        self._log({"source": source, "t_us": t_us, "tool": name, "args": arguments, "result": result})
        return result, spec.name if spec is not None else None

    def log_call(self, name: str, arguments: Any, result: dict) -> None:
        """Log a model's tool call answered without the world (a memory tool, or a call the harness refused: an
        unknown tool, unreadable arguments), so ``agent_commands.jsonl`` holds every call."""
        self._log({"source": "model", "t_us": self.world.now_us, "tool": name, "args": arguments, "result": result})

    def advance(self, source: str = "harness") -> Generator[simpy.Event, Any, Any]:
        """The world's advance command, issued by the harness (auto-advance, automatic day end)."""
        result, _ = yield from self.run_line(self.world.advance_command, source)
        return result

"""STOPGAP: a world played one call at a time from outside, its run directory written when the episode is closed.

The Inspect tools need a world that answers one tool call at a time and leaves a
run directory ``bizsim verify`` replays. A shared "recorded live episode" (written as
it goes, for the MCP and shell surfaces too) is meant to replace this module; until
it does, this one keeps the world in memory and writes the run directory once, at
:meth:`LiveEpisode.close` (a sample killed before then leaves none).
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import simpy
from bizsim.agents.llm import LLMAgentConfig
from bizsim.agents.llm.memory import build_memory
from bizsim.agents.llm.protocols import YCBenchProtocol
from bizsim.agents.llm.session import Session
from bizsim.agents.llm.stats import HarnessStats
from bizsim.simcore.registry import world_spec
from bizsim.simcore.world import Status, World

from ..episode import TERMINAL_REASONS, EpisodeResult
from ..rundir import check_run_dir_free, make_output_dir, write_run_dir

__all__ = ["LiveEpisode"]


def drive(world: World, steps: Generator[simpy.Event, Any, Any]) -> Any:
    """Run a harness generator (a session call) from outside SimPy: each advance it yields runs to its stop."""
    try:
        event = next(steps)
        while True:
            if not event.processed:
                world.env.run(until=event)
            event = steps.send(event.value)
    except StopIteration as stop:
        return stop.value


class LiveEpisode:
    """One episode of a registered world, driven call by call; :meth:`close` writes its run directory.

    Args:
        world: a registered world name.
        preset: a preset name of that world.
        seed: the world seed.
        out: the run directory to write (refused if it already holds a run).
        agent: who played, as recorded in ``result.json`` (``inspect:MODEL``).
    """

    def __init__(self, world: str, preset: str, seed: int, out: str | Path, *, agent: str) -> None:
        check_run_dir_free(out)
        self.out = make_output_dir(out)
        self.spec = world_spec(world)
        self.preset = preset
        self.agent = agent
        self.world = self.spec.make(preset, seed)
        self.stats = HarnessStats()
        self.session = Session(self.world, episode=1, stats=self.stats, total=HarnessStats(),
                               memory=build_memory([], self.world))
        self._protocol: YCBenchProtocol | None = None
        self.closed = False

    def run_tool(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run one tool call (a command by its tool name) and return its result object."""
        result, _ = drive(self.world, self.session.run_tool(name, arguments))
        return result

    def run_command(self, arguments: str) -> str:
        """Run one ``run_command`` call as YC-Bench's harness does (preset ``reference``): its tool message text."""
        if self._protocol is None:
            self._protocol = YCBenchProtocol()
            self._protocol.configure(self.world, LLMAgentConfig())
            self._protocol.begin(self.session)
        result, _, text = drive(self.world, self._protocol._run_call(self.session, "run_command", arguments))
        return text if text is not None else _json(result)

    def close(self, *, turns: int, llm: dict | None = None, detail: str | None = None) -> dict:
        """End the episode (an agent that stopped early leaves it running: ``agent_stopped``), write the run
        directory, and return what ``result.json`` holds."""
        world = self.world
        if detail is not None and not world.done:
            world.abort(detail)
        reason = TERMINAL_REASONS[world.status]
        summary = world.summary()
        result = EpisodeResult(
            world=self.spec.name, benchmark_id=world.benchmark_id, preset=self.preset, seed=world.seed,
            agent=self.agent, agent_options={}, terminal_reason=reason, bankrupt=world.status is Status.BANKRUPT,
            turns=turns, commands=world.trajectory.count("cmd"), summary=summary,
            episodes=({"episode": 1, "terminal_reason": reason, "turns": turns, **summary},), final_world=world,
        )
        record = result.to_dict()
        record["terminal_detail"] = world.terminal_detail
        if llm is not None:
            record["llm"] = llm
        write_run_dir(self.out, result, record)
        self.closed = True
        return record


def _json(result: Any) -> str:
    import json

    return json.dumps(result)

"""Replay: an episode is (world, config, seed, timed command log)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, cast

import simpy

from .errors import CommandError, ReplayError
from .world import World

__all__ = ["replay", "play_commands"]


def play_commands(world: World, lines: Iterable[str]) -> list[dict[str, Any]]:
    """Issue command lines in order from outside SimPy; advances run to their stop."""
    out: list[dict[str, Any]] = []
    for line in lines:
        result = world.execute(line, driven=True)
        if isinstance(result, simpy.Event):
            # simpy types run()'s value Optional[Any]; running until a stop gives its report
            result = cast("dict[str, Any]", world.env.run(until=result))
        out.append(result)
    return out


def replay(
    factory: Callable[[], World], log: Iterable[tuple[int, str]], probe: Callable[[World], None] | None = None,
) -> World:
    """Rebuild a world by re-issuing a recorded ``(t_us, line)`` log: the one replay loop of bizsim.

    Every line is issued again, including the built-in agents' hidden
    commands and the commands an agent sent after the episode ended (the
    world refuses them again and records the refusal, as it did), so the
    rebuilt trajectory equals the recorded one record for record; a line that
    was never part of the run shows up as a record the recording lacks.

    Args:
        probe: called with the world before every advance command of the
            running episode, so facts only a live world holds (the startup
            world's staffing at each turn) can be taken from a replay.

    Raises:
        ReplayError: a command falls at another instant than recorded, so the
            log does not belong to this world, config and seed.
    """
    world = factory()
    for i, (t_us, line) in enumerate(log):
        if world.now_us != t_us:
            raise ReplayError(
                f"command {i} ({line!r}) was recorded at t_us={t_us} but the replay is at t_us={world.now_us}; "
                "the log belongs to another world, config or seed"
            )
        if probe is not None and not world.done and _advances(world, line):
            probe(world)
        result = world.execute(line, allow_hidden=True, driven=True)
        if isinstance(result, simpy.Event):
            world.env.run(until=result)
    return world


def _advances(world: World, line: str) -> bool:
    try:
        return world.commands.parse(line)[0].advances
    except CommandError:
        return False

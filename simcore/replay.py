"""Replay: an episode is (world, config, seed, timed command log)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import simpy

from .errors import ReplayError
from .world import World

__all__ = ["replay", "play_commands"]


def play_commands(world: World, lines: Iterable[str]) -> list[dict]:
    """Issue command lines in order from outside SimPy; advances run to their stop."""
    out = []
    for line in lines:
        result = world.execute(line)
        if isinstance(result, simpy.Event):
            result = world.env.run(until=result)
        out.append(result)
    return out


def replay(factory: Callable[[], World], log: Iterable[tuple[int, str]]) -> World:
    """Rebuild a world by re-issuing a recorded ``(t_us, line)`` log.

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
        if world.done:
            raise ReplayError(f"command {i} ({line!r}) comes after the episode ended ({world.status.value})")
        result = world.execute(line, allow_hidden=True)
        if isinstance(result, simpy.Event):
            world.env.run(until=result)
    return world

"""Checks for arenas (several seats in one world): determinism, replay, refusals, conservation, scripted seats.

Each raises ``AssertionError`` naming what broke. They use only the arena contract
(:class:`~bizsim.simcore.arena.ArenaWorld`: ``seats``, ``to_move``, ``run``, ``command_logs``, ``state``,
``invariants``), so they hold for any arena.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

import simpy

from ..arena import ArenaWorld
from ..arena_outside import OutsideSeat
from ..arena_replay import replay_arena
from ..world import Agent, World
from ._guards import broken_invariants, state_text

__all__ = ["assert_arena_deterministic", "assert_arena_refusal_changes_nothing", "assert_arena_replays",
           "assert_outside_seat_matches", "scripted_agent"]


def scripted_agent(turns: Sequence[Sequence[str]], *, check: bool = True) -> Agent:
    """An agent that sends each turn's command lines, then the advance command, and returns after the last turn.

    Args:
        check: assert the seat's arena's invariants after every line (the error names seat, line and day).
    """

    def agent(world: World) -> Generator[simpy.Event, Any, None]:
        for turn in turns:
            for line in turn:
                if world.done:
                    return
                world.execute(line)
                if check:
                    arena = getattr(world, "arena", world)
                    broken = broken_invariants(arena)
                    assert not broken, f"seat {getattr(world, 'seat', '?')} after {line[:200]!r}: {broken[:3]}"
            if world.done:
                return
            yield world.advance()

    return agent


def _texts(arena: ArenaWorld) -> tuple[str, str, list[str]]:
    return (state_text(arena), arena.trajectory.to_jsonl(), [seat.trajectory.to_jsonl() for seat in arena.seats])


def assert_arena_deterministic(factory: Callable[[], ArenaWorld], agents: Sequence[Agent]) -> ArenaWorld:
    """Two arenas from ``factory`` played by ``agents`` record the same trajectories (every seat's and the
    arena's) and end in the same state. Returns the first."""
    first, second = factory(), factory()
    first.run(agents)
    second.run(agents)
    assert _texts(first) == _texts(second), (
        "two runs of the same arena and roster differ: a mechanic draws from something other than the arena's "
        "named streams (global random state, the wall clock, a set's order)")
    return first


def assert_arena_replays(factory: Callable[[], ArenaWorld], arena: ArenaWorld) -> ArenaWorld:
    """Replaying ``arena``'s per-seat command logs onto a fresh arena rebuilds it byte for byte. Returns the replay."""
    again = replay_arena(factory, arena.command_logs())
    assert _texts(arena) == _texts(again), "the replay of the seats' command logs differs from the arena it came from"
    return again


def assert_outside_seat_matches(factory: Callable[[], ArenaWorld], agents: Sequence[Agent],
                                seat: int) -> ArenaWorld:
    """Seat ``seat`` played from outside (:class:`~bizsim.simcore.arena_outside.OutsideSeat`) with the lines its
    agent sent in an all-inside run records that run byte for byte: every seat's command log and trajectory, the
    arena's trajectory, state and summary. Returns the outside-played arena."""
    inside = factory()
    inside.run(agents)
    played = factory()
    outside = OutsideSeat(played, seat, [None if k == seat else agent for k, agent in enumerate(agents)])
    for t_us, line in inside.command_logs()[seat]:
        assert outside.parked or outside.seat.done, f"seat {seat}'s {line[:200]!r}: the outside seat has no turn"
        assert outside.seat.now_us == t_us, (
            f"seat {seat}'s {line[:200]!r} was sent at t_us={t_us} inside but comes at {outside.seat.now_us} outside")
        outside.send(line, allow_hidden=True)
    assert played.command_logs() == inside.command_logs(), "the outside seat's run has other command logs"
    assert _texts(played) == _texts(inside), "the outside seat's run differs from the all-inside run"
    assert played.summary() == inside.summary(), "the outside seat's run has another summary"
    return played


def assert_arena_refusal_changes_nothing(arena: ArenaWorld, line: str) -> dict[str, Any]:
    """``line``, sent by the seat that has the turn, is refused and no seat (nor the arena) changes. Returns it."""
    k = arena.to_move
    assert k is not None, "no seat has the turn"
    before = _texts(arena)[0], [state_text(seat) for seat in arena.seats], arena.now_us
    out = arena.seats[k].execute(line, driven=True)
    assert isinstance(out, dict) and "error" in out, f"{line[:200]!r} was not refused: {str(out)[:300]}"
    after = _texts(arena)[0], [state_text(seat) for seat in arena.seats], arena.now_us
    assert before == after, f"seat {k}'s refused {line[:200]!r} changed the arena"
    return out

"""``check_arena``: the arena contract, executable against any registered arena (``check_world``'s counterpart)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from .arena import ArenaWorld
from .arena_replay import replay_arena
from .check import _bad_lines
from .errors import TurnError
from .registry import world_spec
from .testing._guards import broken_invariants, state_text
from .watch import watch
from .world import World

__all__ = ["ArenaCheck", "check_arena"]


@attrs.frozen
class ArenaCheck:
    """What :func:`check_arena` checked and found sound; ``str()`` says it in a few lines."""

    world: str
    seats: tuple[int, ...]
    seeds: tuple[int, ...]
    turns: int
    refusals: int

    def __str__(self) -> str:
        return (f"check_arena({self.world}): passed for {', '.join(map(str, self.seats))} seats x seeds "
                f"{', '.join(map(str, self.seeds))}\n"
                f"  two runs of each roster recorded the same trajectories (every seat's and the arena's); the seats' "
                f"logs replayed to the same arena; invariants held at all {self.turns} turns\n"
                f"  seats out of turn were refused without a record; {self.refusals} malformed lines refused by the "
                "seat to move, no seat changed")


def _texts(arena: ArenaWorld) -> tuple[str, str, list[str]]:
    return state_text(arena), arena.trajectory.to_jsonl(), [seat.trajectory.to_jsonl() for seat in arena.seats]


def check_arena(name: str, preset: Any = "default", seeds: Iterable[int] = (1, 2), agent: str | None = None,
                seat_counts: Sequence[int] | None = None) -> ArenaCheck:
    """Assert the arena contract for the registered arena ``name``; raise ``AssertionError`` naming what broke.

    For each seat count (default: the fewest and the most the registration allows, at most 4) and seed, with the
    arena's default agent (or ``agent``) in every seat: two runs record the same trajectories and end in the same
    state; replaying the seats' logs rebuilds the arena; the arena's invariants hold whenever a seat hands back
    time; a seat out of turn is refused with :class:`TurnError` and nothing recorded; malformed lines sent by the
    seat to move are refused and change no seat.
    """
    spec = world_spec(name)
    assert spec.seats is not None, f"{name!r} declares no seats: check it with check_world"
    low, high = spec.seats
    counts = tuple(seat_counts) if seat_counts is not None else tuple(sorted({low, min(high, max(low, 4))}))
    make = spec.agent(agent or spec.default_agent)
    seeds = tuple(seeds)
    turns = refusals = 0
    for n in counts:
        for seed in seeds:
            def factory(n: int = n, seed: int = seed) -> ArenaWorld:
                arena = spec.make(preset, seed, seats=n)
                assert isinstance(arena, ArenaWorld), f"{spec.factory} is not an ArenaWorld"
                return arena

            problems: list[str] = []

            def check(world: World) -> None:
                nonlocal turns
                turns += 1
                bad = broken_invariants(getattr(world, "arena", world))
                if bad:
                    problems.append(f"seat {getattr(world, 'seat', '?')} at t_us={world.now_us}: " + "; ".join(bad))

            first = factory()
            first.run([watch(make, before=check)] * n)
            assert not problems, f"{n} seats, seed {seed}: invariants broken: {problems[:3]}"
            second = factory()
            second.run([make] * n)
            assert _texts(first) == _texts(second), f"{n} seats, seed {seed}: two runs of one roster differ"
            again = replay_arena(factory, first.command_logs())
            assert _texts(first) == _texts(again), f"{n} seats, seed {seed}: the seats' logs replay to another arena"
            refusals += _check_turns_and_refusals(factory())
    return ArenaCheck(world=spec.benchmark_id, seats=counts, seeds=seeds, turns=turns, refusals=refusals)


def _check_turns_and_refusals(arena: ArenaWorld) -> int:
    k = arena.to_move
    assert k is not None, "a fresh arena gives the first turn to a seat"
    for other in arena.seats:
        if other.seat == k:
            continue
        size = len(other.trajectory)
        try:
            other.execute("help")
        except TurnError:
            pass
        else:
            raise AssertionError(f"seat {other.seat} acted while seat {k} had the turn")
        assert size == len(other.trajectory), f"seat {other.seat}'s refused out-of-turn command was recorded"
    seat, refused = arena.seats[k], 0
    for line in _bad_lines(seat):
        before = _texts(arena)[0], [state_text(s) for s in arena.seats]
        out = seat.execute(line, driven=True)
        if isinstance(out, dict) and "error" in out:
            assert before == (_texts(arena)[0], [state_text(s) for s in arena.seats]), f"refused {line!r} changed a seat"
            refused += 1
    return refused

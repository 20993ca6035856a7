"""Invariant, determinism, replay and money checks for any world: each raises ``AssertionError`` naming what broke.

They use only the kernel's contract (``execute``, ``invariants``, ``state``, ``trajectory``, ``command_log``, a
:class:`~bizsim.simcore.ledger.Ledger`), so they hold for every registered world, built-in or not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..driver import Driver
from ..ledger import Ledger
from ..replay import replay
from ..world import Agent, World
from ._guards import broken_invariants, state_text

__all__ = [
    "assert_deterministic", "assert_money_conserved", "assert_rate", "assert_refusal_changes_nothing",
    "assert_replays", "play", "rate_band",
]


def play(world: World, lines: Iterable[str], *, check: bool = True) -> list[dict[str, Any]]:
    """Send command lines through a :class:`~bizsim.simcore.driver.Driver`, stopping when the episode ends.

    Args:
        check: assert the world's invariants after every line (the error names the line).

    Returns:
        each line's answer (an advance's is its stop report).
    """
    driver, out = Driver(world), []
    for line in lines:
        if driver.done:
            break
        out.append(driver.send(line))
        if check:
            broken = broken_invariants(world)
            assert not broken, f"after {line[:200]!r} at t_us={world.now_us}: {broken[:3]}"
    return out


def assert_money_conserved(world: World, funds_cents: int | None = None, ledger: Ledger | None = None, *,
                           booked: Mapping[str, int] | None = None) -> None:
    """Funds equal the initial funds plus every booked entry, every entry is whole cents, and the money booked in
    each category of ``booked`` is what the test counted on its own.

    The ledger alone cannot show money booked twice or not at all (it stays balanced); ``booked`` is the check
    against an independent count: what the world said it moved (its answers, its events), summed by the test.

    Args:
        funds_cents: the figure the world reports as its funds (e.g. ``world.funds_cents``), checked too.
        ledger: the world's ledger; ``world.ledger`` when not given.
        booked: ledger category -> the cents the test expects booked in it (negative for costs), counted
            independently of the ledger.
    """
    book: Ledger = ledger if ledger is not None else getattr(world, "ledger")
    bad = [e for e in book if type(e.amount_cents) is not int]
    assert not bad, f"ledger entries that are not whole cents: {bad[:3]}"
    total = book.initial_cents + sum(e.amount_cents for e in book)
    assert book.funds_cents == total, (
        f"funds {book.funds_cents} differ from initial {book.initial_cents} plus the ledger's {len(book)} entries "
        f"({total}): money was created or lost outside the ledger")
    if funds_cents is not None:
        assert funds_cents == total, f"the world reports funds of {funds_cents} cents; its ledger sums to {total}"
    for category, expected in (booked or {}).items():
        found = sum(e.amount_cents for e in book if e.category == category)
        entries = sum(1 for e in book if e.category == category)
        assert found == expected, (
            f"the ledger books {found} cents as {category!r} ({entries} entries); counted independently, "
            f"{expected}: money booked twice, or not at all")


def assert_replays(factory: Callable[[], World], world: World) -> World:
    """Replaying ``world``'s command log on a fresh world gives the same trajectory, byte for byte, and state.

    Returns:
        the replayed world.
    """
    again = replay(factory, world.command_log())
    a, b = world.trajectory.to_jsonl(), again.trajectory.to_jsonl()
    if a != b:
        la, lb = a.splitlines(), b.splitlines()
        k = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
        raise AssertionError(f"the replay parts from the run at trajectory record {k}: "
                             f"{(la[k] if k < len(la) else 'end')[:300]!r} vs {(lb[k] if k < len(lb) else 'end')[:300]!r}")
    assert state_text(world) == state_text(again), "the replay recorded the same trajectory but ends in another state"
    return again


def assert_deterministic(factory: Callable[[], World], agent: Agent) -> World:
    """Two runs of ``agent`` on worlds from ``factory`` record the same bytes and end in the same state.

    Returns:
        the first world, run to its end.
    """
    first, second = factory(), factory()
    first.run(agent)
    second.run(agent)
    assert first.trajectory.to_jsonl() == second.trajectory.to_jsonl(), (
        "two runs of the same world and agent recorded different trajectories: a mechanic draws from something "
        "other than the world's named streams (global random state, the wall clock, a set's order)")
    assert state_text(first) == state_text(second), "two runs recorded the same trajectory but end in different states"
    return first


def assert_refusal_changes_nothing(world: World, line: str) -> dict[str, Any]:
    """``line`` is refused with ``{"error": ...}`` and the state and clock stay as they were (the state is copied by
    value before the call, so a world that hands out its own lists cannot change the "before" too).

    Returns:
        the refusal.
    """
    before, now = state_text(world), world.now_us
    out = world.execute(line, driven=True)
    assert isinstance(out, dict) and "error" in out, f"{line[:200]!r} was not refused: {str(out)[:300]}"
    assert (before, now) == (state_text(world), world.now_us), f"the refused {line[:200]!r} changed the world"
    return out


def rate_band(trials: int, p: float, z: float = 4.0) -> tuple[float, float]:
    """The range of counts of ``trials`` Bernoulli(``p``) trials within ``z`` standard deviations of the mean.

    A frequency test with fixed seeds is deterministic; ``z = 4`` keeps a correct mechanic's chance of falling
    outside below 1 in 15,000 for whichever seeds are chosen, while a rate off by a few deviations fails.

    >>> [round(x, 1) for x in rate_band(400, 0.25)]
    [65.4, 134.6]
    """
    if not (trials >= 0 and 0.0 <= p <= 1.0 and z >= 0):
        raise ValueError(f"rate_band(trials={trials}, p={p}, z={z}): need trials >= 0, 0 <= p <= 1, z >= 0")
    mean, sd = trials * p, math.sqrt(trials * p * (1.0 - p))
    return mean - z * sd, mean + z * sd


def assert_rate(count: int, trials: int, p: float, z: float = 4.0, what: str = "events") -> None:
    """``count`` successes of ``trials`` agree with probability ``p`` (see :func:`rate_band`)."""
    lo, hi = rate_band(trials, p, z)
    assert lo <= count <= hi, (f"{count} {what} in {trials} trials; a rate of {p} gives {lo:.1f} to {hi:.1f} "
                               f"(within {z} standard deviations)")

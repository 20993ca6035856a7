"""Who acts when in an arena: the seeded rotation of seats.

Seats act one at a time. On a day-based arena every seat acts once a day,
and day ``d`` starts with seat ``(d + offset) mod n``, then the seats after
it in index order, wrapping round: over ``n`` days each seat opens the day
once. ``offset`` is drawn once per episode from the named stream ``turns``,
so it is seeded and adding it changes no other stream. An event-time arena
(the startup arena) lets the seat whose wake comes first act first and
breaks ties between seats waking at the same instant by the same rotation.

>>> rotation(0, 1, 3), rotation(1, 1, 3), rotation(2, 1, 3)
((1, 2, 0), (2, 0, 1), (0, 1, 2))
"""

from __future__ import annotations

from .streams import RandomStreams

__all__ = ["TURN_STREAM", "rotation", "turn_offset"]

#: The named random stream the rotation's offset is drawn from.
TURN_STREAM = "turns"


def rotation(day: int, offset: int, seats: int) -> tuple[int, ...]:
    """The order in which the ``seats`` seats act on ``day`` (a tie-break order for event-time arenas)."""
    first = (day + offset) % seats
    return tuple((first + k) % seats for k in range(seats))


def turn_offset(streams: RandomStreams, seats: int) -> int:
    """The episode's rotation offset, in ``0 .. seats - 1``, from the stream :data:`TURN_STREAM`."""
    return int(streams.get(TURN_STREAM).integers(seats))

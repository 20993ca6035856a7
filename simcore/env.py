"""A SimPy environment that schedules at exact absolute instants."""

from __future__ import annotations

from heapq import heappush
from typing import Any

import simpy

from .calendar import US_PER_HOUR

__all__ = ["SimEnvironment"]


class SimEnvironment(simpy.Environment):
    """``simpy.Environment`` whose clock is hours, fed from integer microseconds.

    Scheduling by absolute microsecond instant (not ``now + delay`` in float)
    keeps equal instants equal. Same-instant events run in ascending
    ``priority``, then in the order they were scheduled.
    """

    def schedule_at(self, event: simpy.Event, t_us: int, priority: int) -> simpy.Event:
        """Put an already-triggered ``event`` on the heap at instant ``t_us``."""
        at = t_us / US_PER_HOUR
        if at < self._now:
            raise ValueError(f"t_us(={t_us}) lies before now(={self._now} h)")
        heappush(self._queue, (at, priority, next(self._eid), event))
        return event

    def fire_at(self, t_us: int, priority: int, value: Any = None) -> simpy.Event:
        """A new event that succeeds with ``value`` at ``t_us``."""
        event = simpy.Event(self)
        event._ok = True
        event._value = value
        return self.schedule_at(event, t_us, priority)

    def succeed_at(self, event: simpy.Event, t_us: int, priority: int, value: Any = None) -> simpy.Event:
        """Trigger a pending ``event`` at ``t_us`` with a chosen priority."""
        if event.triggered:
            raise RuntimeError(f"{event!r} has already been triggered")
        event._ok = True
        event._value = value
        return self.schedule_at(event, t_us, priority)

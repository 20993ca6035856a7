"""A SimPy environment that schedules at exact absolute instants."""

from __future__ import annotations

from heapq import heappush
from typing import Any

import simpy
from simpy.events import EventPriority

from .calendar import US_PER_HOUR

__all__ = ["SimEnvironment"]


class SimEnvironment(simpy.Environment):
    """``simpy.Environment`` whose clock is hours, fed from integer microseconds.

    Scheduling by absolute microsecond instant (not ``now + delay`` in float)
    keeps equal instants equal. Same-instant events run in ascending
    ``priority``, then in the order they were scheduled.
    """

    def __init__(self, initial_time: float = 0) -> None:
        super().__init__(initial_time)
        #: The processes started here that may still be alive, so :meth:`release` can stop them.
        self.processes: list[simpy.Process] = []
        self._prune_at = 64

    def process(self, generator: Any) -> simpy.Process:
        """Start ``generator`` as a process (and keep it in :attr:`processes`)."""
        proc = simpy.Process(self, generator)
        processes = self.processes
        processes.append(proc)
        if len(processes) >= self._prune_at:  # a model that starts a process per customer keeps only the live ones
            processes[:] = [p for p in processes if p.is_alive]
            self._prune_at = max(64, 2 * len(processes))
        return proc

    def release(self) -> None:
        """Stop every process and drop every reference, so nothing here waits for the cyclic garbage collector.

        A waiting process and the event it waits on refer to each other, and
        its generator holds whatever the process uses; closing the generator
        runs what a collector would run, only now. The environment cannot be
        used afterwards.

        Raises:
            RuntimeError: called from inside one of its processes (a running generator cannot be closed).
        """
        if self.active_process is not None:
            raise RuntimeError("release() was called from inside a running process; call it once the run is over")
        for proc in self.processes:
            proc._generator.close()
            proc._target = None  # type: ignore[assignment]  # simpy types _target Event; None lets the event go
        vars(self).clear()

    def schedule_at(self, event: simpy.Event, t_us: int, priority: float) -> simpy.Event:
        """Put an already-triggered ``event`` on the heap at instant ``t_us``."""
        at = t_us / US_PER_HOUR
        if at < self._now:
            raise ValueError(f"t_us(={t_us}) lies before now(={self._now} h)")
        # simpy types priorities int; the heap only compares them, and an arena breaks same-priority ties by a
        # fraction (priority + rank / seats).
        heappush(self._queue, (at, EventPriority(priority), next(self._eid), event))  # type: ignore[arg-type]
        return event

    def fire_at(self, t_us: int, priority: int, value: Any = None) -> simpy.Event:
        """A new event that succeeds with ``value`` at ``t_us``."""
        event = simpy.Event(self)
        event._ok = True
        event._value = value
        return self.schedule_at(event, t_us, priority)

    def succeed_at(self, event: simpy.Event, t_us: int, priority: float, value: Any = None) -> simpy.Event:
        """Trigger a pending ``event`` at ``t_us`` with a chosen priority."""
        if event.triggered:
            raise RuntimeError(f"{event!r} has already been triggered")
        event._ok = True
        event._value = value
        return self.schedule_at(event, t_us, priority)

"""Which replacement task comes next after an accept: the reference's stream counters.

An accepted market task is replaced by a task drawn from the stream ``counter``: a bot's accepts count on one
counter, an agent's on the slot the task held (``slot * 1000 + the slot's generation``); every replacement takes
the next task serial. The startup world keeps one of these; companies sharing one market (``startup-arena``)
keep one between them, so their views get the same replacement.
"""

from __future__ import annotations

from .state import Task

__all__ = ["ReplacementCounters"]


class ReplacementCounters:
    """The counters that say which replacement a take draws (see the module)."""

    def __init__(self, next_serial: int) -> None:
        self.next_serial = next_serial
        self.slot_generation: dict[int, int] = {}
        self.bot_counter = 0

    def draw(self, task: Task, bot: bool) -> tuple[int, int | None, int]:
        """``(counter, slot, serial)`` of the replacement of ``task``, taken by a bot or an agent; advances them."""
        if bot:
            counter, slot = self.bot_counter, None
            self.bot_counter += 1
        else:
            slot = task.market_slot if task.market_slot is not None else 0
            generation = self.slot_generation.get(slot, 0)
            self.slot_generation[slot] = generation + 1
            counter = slot * 1000 + generation
        serial = self.next_serial
        self.next_serial += 1
        return counter, slot, serial

"""Worlds that move one day at a time, with a daily budget of actions."""

from __future__ import annotations

from datetime import datetime
from marshal import dumps as _dumps
from typing import Any

import simpy

from .calendar import US_PER_DAY, Calendar
from .commands import CommandSpec
from .errors import CommandError
from .world import Status, World

__all__ = ["DayWorld", "PRIO_DAY_END"]

PRIO_DAY_END = 10


class DayWorld(World):
    """A world whose agent acts at the start of each day and then ends it.

    Each day the agent may issue up to ``daily_budget`` counted commands
    (``None``: no limit). The advance command (EcoGym's ``task_done``) ends
    the day: the world runs :meth:`end_day` for the day that closes, moves
    the clock to the next day and reports. The command that uses the last
    action of the budget ends the day by itself: later commands that day are
    refused, and the next advance delivers the day's report.

    Subclasses implement :meth:`end_day` and :meth:`finished_status`.
    """

    advance_command = "task_done"
    _counts_actions = True

    def __init__(self, config: Any, seed: int, *, start: datetime, daily_budget: int | None, horizon_days: int) -> None:
        super().__init__(config, seed, Calendar(start.replace(hour=0, minute=0, second=0, microsecond=0)))
        if daily_budget is not None and daily_budget < 1:
            raise ValueError(f"daily_budget(={daily_budget}) must be >= 1 or None")
        if horizon_days < 1:
            raise ValueError(f"horizon_days(={horizon_days}) must be >= 1")
        self.daily_budget = daily_budget
        self.horizon_days = horizon_days
        self.day = 0
        self.actions_today = 0

    @property
    def horizon_us(self) -> int:
        """The instant the horizon is reached (the start of day ``horizon_days``)."""
        return self.horizon_days * US_PER_DAY

    @horizon_us.setter
    def horizon_us(self, value: int) -> None:
        raise AttributeError(f"horizon_us(={value}) cannot be set on a day-based world: it follows horizon_days")

    # budget ----------------------------------------------------------------
    @property
    def actions_left(self) -> int | None:
        """Counted actions still allowed today (``None``: unlimited)."""
        if self.daily_budget is None:
            return None
        return max(0, self.daily_budget - self.actions_today)

    @property
    def day_ending(self) -> bool:
        """True once today's end has been requested (explicitly or by the budget)."""
        return self._actions_closed

    def _refuse(self, spec: CommandSpec, kwargs: dict[str, Any], raise_errors: bool) -> dict[str, Any]:
        if self.done:
            return super()._refuse(spec, kwargs, raise_errors)
        refusal = CommandError(f"Day {self.day} is over; no more actions today.",
                               f"Call {self.advance_command} to receive the day's report.")
        self._record((self._now_us, "cmd", spec.name, _dumps({"args": kwargs, "error": refusal.to_dict()})))
        if raise_errors:
            raise refusal
        return refusal.to_dict()

    def _action_taken(self) -> None:
        self.actions_today += 1
        if self.daily_budget is not None and self.actions_today >= self.daily_budget:
            self.request_day_end()

    # the day ------------------------------------------------------------------
    def request_day_end(self) -> simpy.Event:
        """End today; the returned event fires with the day's report."""
        if self._actions_closed:
            assert self._waiter is not None, "the day's end was requested without an event to report it on"
            return self._waiter
        self._actions_closed = True
        # One event per day: the day's transition runs as its first callback,
        # before the waiting agent is resumed with the report.
        waiter = self._waiter = self.env.fire_at(self._now_us + US_PER_DAY, PRIO_DAY_END)
        waiter.callbacks.append(self._on_day_end)
        return waiter

    def _on_day_end(self, waiter: simpy.Event) -> None:
        if self.done:
            return
        closing_day = self.day
        self._now_us += US_PER_DAY
        self.day = closing_day + 1
        report = self.end_day(closing_day)
        self.actions_today = 0
        self._actions_closed = False
        self._waiter = None
        self._record((self._now_us, "event", "day_end", _dumps({"day": closing_day})))
        status = self.finished_status()
        if status is not None:
            self._end(status, status.value)
        self._record((self._now_us, "stop", self.advance_command, _dumps(report)))
        waiter._value = report

    def end_day(self, day: int) -> dict[str, Any]:
        """Run the transition of ``day`` (the day that closes); return the report."""
        raise NotImplementedError

    def finished_status(self) -> Status | None:
        """The terminal status if the episode is over after a transition, else ``None``."""
        return Status.HORIZON if self.day >= self.horizon_days else None

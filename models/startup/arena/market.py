"""The one market the companies of a startup arena share: which replacement comes next, and taking a task.

Every company keeps its own view of the market (the same tasks, each bound to that company's client relations,
so trust gates and work cuts read its own trust). A take removes the task from every view and puts the one
replacement on every view, so the views stay equal: what a rival took is gone for everyone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..generate import generate_replacement
from ..replacements import ReplacementCounters
from ..state import Task

if TYPE_CHECKING:
    from .seat import StartupSeat

__all__ = ["SharedMarket"]


class SharedMarket:
    """The market's replacement counters (:class:`~bizsim.models.startup.replacements.ReplacementCounters`) and
    its views, one per company."""

    def __init__(self, next_serial: int) -> None:
        self.views: tuple[StartupSeat, ...] = ()
        self.replacements = ReplacementCounters(next_serial)
        #: Tasks taken, in order: (instant, task uid, seat index of the taker).
        self.taken: list[tuple[int, str, int]] = []

    def take(self, taker: StartupSeat, task: Task, bot: bool) -> Task:
        """``taker`` accepted ``task``: off every view; the replacement (the reference's stream) on every view.

        Returns the taker's copy of the replacement.
        """
        counter, slot, serial = self.replacements.draw(task, bot)
        now = taker.now_us
        self.taken.append((now, task.uid, taker.seat))
        mine = task
        for view in self.views:
            like = view.leave_market(task.uid, taken_by_self=view is taker)
            fresh = generate_replacement(view.config, view.seed, counter, serial, like, slot)
            view.join_market(fresh)
            if view is taker:
                mine = fresh
            elif not view.done:  # public: the task is gone and its replacement listed; not who took it (a company
                # that has ended keeps its view equal, unrecorded: its record stops where its year did)
                view.record_event("market_task_taken", {"task_id": task.title, "replacement_task_id": fresh.title}, now)
        return mine

"""One company of a startup arena: a startup world whose market, clock, turns and rivals are the arena's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import simpy
from bizsim.simcore.seat import DaySeat

from ..commands import LEDGER_CATEGORIES
from ..generate import make_uid
from ..state import Task
from ..world import StartupWorld
from .commands import arena_commands
from .prompt import arena_section

if TYPE_CHECKING:
    from .world import StartupArena

__all__ = ["SEAT_LETTERS", "StartupSeat"]

SEAT_LETTERS = "ABCD"


class StartupSeat(DaySeat, StartupWorld):
    """A company in a startup arena: its own funds, staff, client trust, prestige, tasks and scratchpad.

    It is a :class:`StartupWorld` in every way an agent can tell, so every startup agent plays it unchanged;
    the market is a view of the one market the companies share (what a rival takes is gone here too), and
    with rivals it has the arena's commands (``arena companies``, ``message send``, ``message inbox``,
    ``finance transfer``). It takes commands only while it has the turn (:class:`DaySeat`'s rule; the turn
    is event time's here: :class:`~.world.StartupArena`). Alone in its arena it is the startup world exactly.
    """

    arena: StartupArena
    ledger_categories = LEDGER_CATEGORIES + ("transfer_in", "transfer_out")

    def __init__(self, arena: StartupArena, index: int) -> None:
        StartupWorld.__init__(self, arena.config, arena.seed, env=arena.env)
        # DaySeat.join's part, for a world that starts its processes in the arena's environment as it is built.
        self.arena = arena
        self.seat = index
        self.retired = False
        #: A wake delivered and not yet processed (it gives the seat the turn when it is), or ``None``.
        self.wake_pending: simpy.Event | None = None
        self._turn: simpy.Event | None = arena.env.event()
        self.snapshot_refusal = "a seat is snapshotted with its arena: take arena.snapshot()"
        self.preset = arena.preset
        self.rivals = arena.size > 1
        self.money_sent_cents = self.money_received_cents = 0
        #: Messages and payments received, oldest first (bounded: :data:`~.commands.MAX_INBOX`).
        self.inbox: list[dict[str, Any]] = []
        if self.rivals:
            self.company_name = f"{self.company_name}-{SEAT_LETTERS[index]}"
            self.company_uid = make_uid(self.seed, "company", index)
            self.commands = arena_commands(self.commands)

    # the shared market ---------------------------------------------------------------------
    def _refill_market(self, task: Task, bot: bool) -> Task:
        return self.arena.market.take(self, task, bot)

    def leave_market(self, uid: str, *, taken_by_self: bool) -> Task:
        """Take the market task ``uid`` off this view; a rival's take forgets it here altogether (its
        progress, team and deadline are the rival's). Returns this view's copy."""
        task = self._by_uid[uid]
        self.market.remove(task)
        self.market_levels[task.required_prestige].remove(task)
        if not taken_by_self:
            del self._by_uid[uid]
            self.tasks.remove(task)
            same = self._by_title[task.title]
            same.remove(task)
            if not same:
                del self._by_title[task.title]
            self._counts["market"] -= 1
        return task

    def join_market(self, task: Task) -> None:
        """Put a fresh market task on this view."""
        self._add_market_task(task)

    # who acts when ---------------------------------------------------------------------------
    def request_advance(self, *, require_active: bool) -> object:
        """Start an advance (see :meth:`StartupWorld.request_advance`); an accepted one ends the seat's turn."""
        event = super().request_advance(require_active=require_active)
        self.arena.end_turn(self.seat)
        return event

    def _deliver_stop(self, report: dict[str, Any], priority: float) -> None:
        # The wake of a waiting agent gives its seat the turn, as it is processed (before the agent resumes);
        # wakes at one instant and priority go in the arena's seeded rotation (none to break alone).
        waiter = self._waiter
        arena = self.arena
        if arena.size > 1:
            priority = priority + arena.rank(self.seat, self._now_us) / arena.size
        super()._deliver_stop(report, priority)
        if waiter is not None:
            callbacks = waiter.callbacks
            assert callbacks is not None  # delivered now, processed later
            callbacks.insert(0, self._wake)
            self.wake_pending = waiter

    def _wake(self, event: simpy.Event) -> None:
        self.wake_pending = None
        self.arena.give_turn(self.seat, event)

    def next_wake(self) -> simpy.Event | None:
        """The event the seat's next turn begins on (an advance requested, delivered or not), or ``None``."""
        return self._waiter if self._waiter is not None else self.wake_pending

    @property
    def awaits_turn(self) -> bool:
        """Whether the seat waits for a wake: an advance requested, or its wake delivered and not yet processed."""
        return self._waiter is not None or self.wake_pending is not None

    def _end(self, status: Any, detail: str | None = None) -> None:
        super()._end(status, detail)
        self.arena.seat_ended()

    # between companies -----------------------------------------------------------------------
    def summary(self) -> dict:
        """The startup world's figures; with rivals also the money the company sent and received."""
        out = StartupWorld.summary(self)
        if self.rivals:
            out.update(money_sent_cents=self.money_sent_cents, money_received_cents=self.money_received_cents)
        return out

    def system_prompt(self) -> str:
        """The YC-Bench system prompt, with the arena's rules when there are rivals."""
        base = StartupWorld.system_prompt(self)
        if not self.rivals:
            return base
        rivals = [(s.seat, s.company_name) for s in self.arena.seats if s is not self]
        return base + arena_section(self.seat, self.company_name, rivals)

    def state(self) -> dict:
        """The company's complete state; with rivals, what it sent and received too."""
        out = StartupWorld.state(self)
        if self.rivals:
            out.update(company=self.company_name, retired=self.retired, money_sent_cents=self.money_sent_cents,
                       money_received_cents=self.money_received_cents)
        return out

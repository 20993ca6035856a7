"""One company of a startup arena: a startup world whose market, clock and rivals are shared."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bizsim.simcore.env import SimEnvironment

from ..commands import LEDGER_CATEGORIES
from ..config import StartupConfig
from ..generate import make_uid
from ..state import Task
from ..world import StartupWorld
from .commands import arena_commands
from .prompt import arena_section

if TYPE_CHECKING:
    from .world import StartupArena

__all__ = ["StartupSeat", "SEAT_LETTERS"]

SEAT_LETTERS = "ABCD"


class StartupSeat(StartupWorld):
    """A company in a startup arena: its own funds, staff, client trust, prestige, tasks and scratchpad.

    It is a :class:`StartupWorld` in every way an agent can tell, so every startup agent plays it unchanged;
    the market is a view of the one market the companies share (what a rival takes is gone here too), and
    with rivals it has the arena's commands (``arena companies``, ``message send``, ``message inbox``,
    ``finance transfer``). Alone in its arena it is the startup world exactly: same name, commands and answers.
    """

    ledger_categories = LEDGER_CATEGORIES + ("transfer_in", "transfer_out")

    def __init__(self, config: StartupConfig | str, seed: int, *, arena: StartupArena, index: int,
                 env: SimEnvironment, scratchpad: str = "") -> None:
        super().__init__(config, seed, scratchpad=scratchpad, env=env)
        self.arena = arena
        #: The seat's place in the arena (0 for the first).
        self.index = index
        #: Messages and payments received, oldest first (bounded: :data:`~.commands.MAX_INBOX`).
        self.inbox: list[dict[str, Any]] = []
        if arena.size > 1:
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
    def _deliver_stop(self, report: dict[str, Any], priority: float) -> None:
        # Wakes at one instant and priority go in the arena's seeded rotation (none to break alone).
        arena = self.arena
        if arena.size > 1:
            priority = priority + arena.rank(self.index, self._now_us) / arena.size
        super()._deliver_stop(report, priority)

    # between companies -----------------------------------------------------------------------
    def receive(self, t_us: int, kind: str, entry: dict[str, Any]) -> None:
        """File a message or payment from a rival in the inbox (and the trajectory)."""
        self.inbox.append(entry)
        self.record_event(kind, entry, t_us)

    def system_prompt(self) -> str:
        """The YC-Bench system prompt, with the arena's rules when there are rivals."""
        base = super().system_prompt()
        if self.arena.size == 1:
            return base
        rivals = [s.company_name for s in self.arena.seats if s is not self]
        return base + arena_section(self.company_name, rivals)

    def state(self) -> dict:
        """The company's complete state; with rivals, its inbox too."""
        out = super().state()
        if self.arena.size > 1:
            out["company"] = self.company_name
            out["inbox"] = list(self.inbox)
        return out

"""A seat of a day-based arena: a day world whose clock, environment and turns belong to the arena.

To an agent a seat is the world it knows (``execute``, ``call``,
``advance``, ``observation``, ``summary`` ...): every built-in agent plays
one unchanged. What differs is hidden in three places:

- the seat shares the arena's SimPy environment and calendar, and its clock
  moves when the arena's day ends, not its own;
- its advance command ends its *turn*: the arena hands the turn to the next
  seat of the day's rotation, and the day's shared transition runs once,
  after the last seat has ended its turn;
- it takes commands only while it has the turn (or once it is over, when
  every command is refused as in any ended world); otherwise
  :class:`~bizsim.simcore.errors.TurnError`, with nothing run or recorded.
  So each seat's command log, replayed in the arena's turn order, rebuilds
  the arena exactly.

An agent that stops itself by its own cap or budget (``seat.abort(detail)``,
as the LLM agent does at ``max_turns``) ends a seat that has no rivals, as it
ends the base world; a seat with rivals is *retired* instead (the stop is
kept in :attr:`DaySeat.agent_stop`): its agent returns, the arena ends its
later turns, and its company stays in the market to the arena's end, so every
seat's figure is taken at the same end.

A world's seat class puts :class:`DaySeat` first among its bases,
``class VendingSeat(DaySeat, VendingWorld)``, builds the world as usual and
then calls :meth:`DaySeat.join`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import simpy

from .errors import ConfigError, TurnError
from .world import World

if TYPE_CHECKING:
    from .arena import ArenaWorld
    from .commands import CommandSpec
    from .snapshot import Snapshot

__all__ = ["DaySeat"]


class DaySeat(World):
    """The seat part of a day world that sits in an :class:`~bizsim.simcore.arena.ArenaWorld`.

    Attributes:
        arena: the arena the seat belongs to.
        seat: the seat's index in ``arena.seats`` (agents see it as "seat N").
        retired: the seat's agent has returned while the arena went on; the arena ends its turns for it.
        agent_stop: why and when the seat's agent stopped itself while it had rivals (:meth:`abort`):
            ``(detail, t_us)``, else ``None``. Not in the seat's command log or trajectory: the run's record keeps it.
    """

    arena: ArenaWorld
    seat: int
    retired: bool
    agent_stop: tuple[str, int] | None = None
    #: The pending event the seat's next turn begins on (its agent waits on it), or ``None``.
    _turn: simpy.Event | None

    def join(self, arena: ArenaWorld, index: int) -> None:
        """Take the arena's environment, calendar and clock; called once, right after the world is built."""
        if self.trajectory or len(self.env._queue):
            raise ConfigError("a seat joins its arena right after it is built, before anything ran")
        self.arena = arena
        self.seat = index
        self.retired = False
        self.env = arena.env
        self.calendar = arena.calendar
        self.finished = arena.env.event()
        self._turn = arena.env.event()
        self.snapshot_refusal = "a seat is snapshotted with its arena: take arena.snapshot()"

    # the turn ----------------------------------------------------------------------------
    @property
    def has_turn(self) -> bool:
        """True while this seat may act (the arena's :attr:`~ArenaWorld.to_move`)."""
        return self.arena.to_move == self.seat

    def _check_turn(self) -> None:
        if self.arena.to_move != self.seat and not self.done:
            raise TurnError(self.arena.turn_refusal(self.seat))

    def execute(self, line: str, *, allow_hidden: bool = False, driven: bool = False) -> dict[str, Any] | simpy.Event:
        """Run a command line (see :meth:`World.execute`); only while the seat has the turn.

        Raises:
            TurnError: another seat has the turn; nothing ran or was recorded.
        """
        self._check_turn()
        return super().execute(line, allow_hidden=allow_hidden, driven=driven)

    def execute_tool(self, tool_name: str, arguments: Mapping[str, Any] | None, *,
                     driven: bool = False) -> dict[str, Any] | simpy.Event:
        """Run a tool call (see :meth:`World.execute_tool`); only while the seat has the turn."""
        self._check_turn()
        return super().execute_tool(tool_name, arguments, driven=driven)

    def _invoke(self, spec: CommandSpec, kwargs: dict[str, Any], *, raise_errors: bool) -> dict[str, Any] | simpy.Event:
        self._check_turn()
        return super()._invoke(spec, kwargs, raise_errors=raise_errors)

    def _action_taken(self) -> None:
        # The budget's last action closes the seat's actions for the day; the turn passes only when its agent says
        # so with the advance command, so the commands it sends meanwhile (all refused) stay in its turn.
        budget = self.daily_budget  # type: ignore[attr-defined]  # a day world's
        self.actions_today += 1  # type: ignore[attr-defined]
        if budget is not None and self.actions_today >= budget:  # type: ignore[attr-defined]
            self._actions_closed = True

    def abort(self, detail: str) -> None:
        """The seat's agent gives up (its turn, token or spending cap; a budget): see :meth:`World.abort`.

        Alone in its arena the seat ends with status ``error``, as the base world does. With rivals it is not
        ended: the stop is kept in :attr:`agent_stop`, and once the agent returns the arena retires the seat (its
        later turns ended by the arena, in its command log), so its company plays on without an agent to the
        arena's end (the horizon, or its own bankruptcy) and is measured where its rivals are. An agent that
        stopped by its own cap is not rewarded for stopping early.
        """
        if self.done or len(self.arena.seats) < 2:
            super().abort(detail)
        elif self.agent_stop is None:
            self.agent_stop = (detail, self._now_us)

    def request_day_end(self) -> simpy.Event:
        """End this seat's turn: the arena moves on; the returned event fires when the seat's next turn begins."""
        turn = self._turn = self.env.event()
        self._actions_closed = True
        self.arena.end_turn(self.seat)
        return turn

    # what a seat cannot do on its own -------------------------------------------------------------
    def run(self, agent: Any) -> simpy.Process:
        """Refused: a seat's agent runs with the others', through ``arena.run(agents)``."""
        raise ConfigError(f"seat {self.seat} of a {self.arena.name} arena runs with the other seats: call "
                          "arena.run([agent_of_seat_0, agent_of_seat_1, ...])")

    def snapshot(self) -> Snapshot:
        """Refused: a seat is snapshotted with its arena (``arena.snapshot()``)."""
        raise ConfigError(f"seat {self.seat} is snapshotted with its arena: take arena.snapshot()")

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError(f"seat {self.seat} is pickled with its arena: pickle the arena (or arena.snapshot())")

    def __deepcopy__(self, memo: dict[int, Any]) -> World:
        raise TypeError(f"seat {self.seat} is copied with its arena: copy.deepcopy(arena)")

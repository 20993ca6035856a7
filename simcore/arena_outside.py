"""One seat of an arena played from outside SimPy, the other seats' agents inside.

A person at a browser, or an external agent over MCP, cannot be a SimPy
process: it answers when it likes. :class:`OutsideSeat` runs an arena as
:meth:`~bizsim.simcore.arena.ArenaWorld.run` does, every seat a process
started through the arena's own ``_seat_main`` (so an event-time arena's
turn hand-over holds), except that the outside seat's agent is a stand-in
that *parks* at each of its turns. The environment then stops; the caller
sends the seat's commands (:meth:`OutsideSeat.send`, :meth:`send_tool`);
the seat's advance command re-points the stand-in at the advance's event,
exactly as an agent's ``yield world.advance()`` would, and the environment
runs on until the seat's next turn has begun (or the arena is over).

So an outside seat that sends the lines a built-in agent would send records
the same arena, byte for byte, as the run with that agent inside: same
events, in the same order, at the same instants. The stand-in returns when
its seat is over (as every built-in agent does), which retires the seat as
``run`` would. A player who stops leaves the seat parked, not retired: the
seats' command logs replay to that very turn
(:func:`~bizsim.simcore.arena_replay.replay_arena`), so the run can be
resumed by feeding the outside seat's lines again.

>>> from bizsim.models.vending.arena import VendingArena
>>> from bizsim.agents.vending import markup
>>> outside = OutsideSeat(VendingArena("small", seed=1, seats=2), 0, [None, markup])
>>> outside.parked, outside.seat.has_turn
(True, True)
>>> report = outside.send("task_done")
>>> outside.seat.day
1
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import simpy

from .errors import ConfigError, TurnError
from .world import Agent, World

if TYPE_CHECKING:
    from .arena import ArenaWorld
    from .seat import DaySeat

__all__ = ["OutsideSeat"]


class OutsideSeat:
    """Drive seat ``seat`` of ``arena`` from outside; ``agents[k]`` plays every other seat ``k`` inside.

    Args:
        arena: a fresh arena (or a fork, as ``run`` takes one).
        seat: the index of the seat played from outside.
        agents: one entry per seat in seat order; the outside seat's entry is ``None``, every other an agent.

    Raises:
        ConfigError: not one entry per seat, the outside seat out of range, or an inside seat without an agent.
        Exception: whatever a built-in agent raised (also from :meth:`send`, as ``run`` re-raises it).
    """

    def __init__(self, arena: ArenaWorld, seat: int, agents: Sequence[Agent | None]) -> None:
        n = len(arena.seats)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ConfigError(f"outside seat(={seat!r}) must be a seat index from 0 to {n - 1}")
        if len(agents) != n:
            raise ConfigError(f"{len(agents)} agents for {n} seats: give one per seat, None at the outside seat")
        missing = [k for k, agent in enumerate(agents) if agent is None and k != seat]
        if missing:
            raise ConfigError(f"seats {missing} have no agent; only the outside seat {seat} is played from outside")
        self.arena = arena
        self.index = seat
        #: The seat's stand-in waits on this event while its player has the turn (:attr:`parked`).
        self._hold: simpy.Event = arena.env.event()
        self._parked = False
        env = arena.env
        self._procs = arena.start([self._stand_in if k == seat else cast("Agent", agents[k]) for k in range(n)])
        self._stop = env.any_of([env.all_of(self._procs), arena.finished])
        self._over = False
        self._run()

    # what the caller sees ---------------------------------------------------------------------------
    @property
    def seat(self) -> DaySeat:
        """The outside seat's world (its commands, observation, summary, system prompt)."""
        return self.arena.seats[self.index]

    @property
    def parked(self) -> bool:
        """True while the outside seat has the turn and waits for its player's commands."""
        return self._parked

    @property
    def over(self) -> bool:
        """True once the run has ended as ``run`` ends (every agent returned, or the arena is over)."""
        return self._over

    @property
    def settled(self) -> bool:
        """True when the run stands where a replay of the seats' logs stops too: the seat's turn, or the run over.
        False once an exception (a built-in agent's error, Ctrl-C) cut the environment's run between the two."""
        return self._parked or self._over

    def send(self, line: str, *, allow_hidden: bool = False) -> dict[str, Any]:
        """Run one of the outside seat's command lines; its advance returns once the seat's next turn has begun
        (with the advance's report), or once the run is over.

        Raises:
            TurnError: the seat does not have the turn (and is not over); nothing ran or was recorded.
        """
        self._check()
        return self._settle(self.seat.execute(line, allow_hidden=allow_hidden, driven=True))

    def send_tool(self, tool_name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Run one of the outside seat's commands given as a tool call; see :meth:`send`."""
        self._check()
        return self._settle(self.seat.execute_tool(tool_name, arguments, driven=True))

    def stop(self) -> None:
        """The seat's player has stopped it (``seat.abort(detail)``: a budget reached), as an LLM seat's cap
        stops it: its stand-in returns, so the arena retires the seat as ``run`` would once its agent returned
        (with rivals its company plays on without an agent to the arena's end), and the other seats play on.

        Raises:
            ConfigError: the seat was not stopped (nor has it ended), or the seat does not have the turn.
        """
        if not _stopped(self.seat) or not self._parked:
            raise ConfigError(f"seat {self.index} stops from outside only once its world has ended or its player "
                              "stopped it (seat.abort), in its turn")
        self._parked = False
        self._hold.succeed()  # the stand-in wakes, sees its world over and returns
        self._run()

    # the machinery ------------------------------------------------------------------------------------
    def _stand_in(self, world: World) -> Generator[simpy.Event, Any, None]:
        """The outside seat's agent inside SimPy: parks at each turn until its player advances; returns when the
        seat is over, as every built-in agent does (so the arena retires it as ``run`` would)."""
        while not _stopped(world):
            self._parked = True
            yield self._hold  # re-pointed at the advance's event by _settle

    def _check(self) -> None:
        if not self._parked and not self.seat.done:
            raise TurnError(f"seat {self.index} cannot act now: " + (
                "the run is over" if self._over else self.arena.turn_refusal(self.index)))

    def _settle(self, result: dict[str, Any] | simpy.Event) -> dict[str, Any]:
        if not isinstance(result, simpy.Event):
            return result
        # The advance: the stand-in now waits on its event, as `yield world.advance()` would have it.
        proc = self._procs[self.index]
        callbacks = self._hold.callbacks
        assert callbacks is not None and result.callbacks is not None, "an advance's event is fresh"
        callbacks.remove(proc._resume)
        result.callbacks.append(proc._resume)
        proc._target = result
        self._parked = False
        self._run()
        if result.processed:
            return cast("dict[str, Any]", result.value)
        return {"error": "the run ended before this seat's next turn", "hint": "the arena is over"}

    def _run(self) -> None:
        """Run the environment until the outside seat's turn has begun, or the run is over (as ``run`` ends)."""
        env, stop = self.arena.env, self._stop
        while not self._parked and not stop.processed:
            if env.peek() == float("inf"):
                break
            env.step()  # a built-in agent's error surfaces here: its process has no waiter
        if stop.processed and not self._over:
            self._over = True
            self.arena.await_turn()


def _stopped(world: World) -> bool:
    """Whether the seat is over, or its player stopped it (with rivals a stop retires the seat, which plays on)."""
    return world.done or getattr(world, "agent_stop", None) is not None

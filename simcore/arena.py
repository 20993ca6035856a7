"""An arena: several seats, one world, one SimPy environment (day-based worlds).

An :class:`ArenaWorld` owns the environment, the calendar, the named random
streams and the seats (:class:`~bizsim.simcore.seat.DaySeat` worlds). Each
seat has its own commands, observation, ledger, trajectory and metric; the
market is the arena's. Seats act one at a time (:mod:`~bizsim.simcore.turns`):
day ``d`` opens with seat ``(d + offset) mod n``; a seat's advance command
ends its turn and gives the turn to the next seat; once the last seat of the
day has ended its turn, the day's shared transition runs once (at the next
midnight, priority :data:`~bizsim.simcore.dayworld.PRIO_DAY_END`): the
world's :meth:`ArenaWorld.end_day` settles every seat, and the next day's
first seat gets its report and the turn. A seat that is over (bankrupt)
gets its last report and is left out of later days.

An agent that returns while the arena goes on *retires* its seat: the arena
ends that seat's later turns with the seat's own advance command, which its
command log records, so replay needs no rule for it. An agent that stops by
its own cap (``seat.abort(detail)``) retires its seat so too when the seat
has rivals (:meth:`~bizsim.simcore.seat.DaySeat.abort`): its company plays on
to the arena's end, and every seat is measured at the same end.

Replay, snapshots and forks: the arena is (world, config, seed, seats, one
timed command log per seat); :func:`~bizsim.simcore.arena_replay.replay_arena`
issues each seat's lines in turn order.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from datetime import datetime
from marshal import dumps as _marshal
from typing import TYPE_CHECKING, Any, ClassVar

import simpy

from .calendar import US_PER_DAY, Calendar
from .commands import CommandSet
from .dayworld import PRIO_DAY_END
from .errors import ConfigError
from .seat import DaySeat
from .turns import rotation, turn_offset
from .world import Agent, Status, World, agent_process

if TYPE_CHECKING:
    from .arena_replay import ArenaSnapshot

__all__ = ["ArenaWorld", "PRIO_TURN"]

#: Same-instant priority of a turn's start: after the day's transition (``PRIO_DAY_END``).
PRIO_TURN = 20


class ArenaWorld(World):
    """Base of the day-based arenas: seats, the turn rotation, the shared day, run, summary, snapshots.

    Subclasses set ``name``, ``version`` and :attr:`seat_range`, build their shared state, then call
    :meth:`seat_up` with their seats, and implement :meth:`end_day` (settle every seat in play; return each
    one's report) and may extend :meth:`state`, :meth:`invariants` and :meth:`summary`.

    Args:
        config: the arena's frozen config.
        seed: the episode seed.
        start: the first day (midnight).
        horizon_days: days the episode lasts.
        seats: how many seats (within :attr:`seat_range`).
    """

    #: The fewest and most seats the world allows.
    seat_range: ClassVar[tuple[int, int]] = (1, 8)
    #: An arena takes commands through its seats: ``arena.seats[k].execute(...)``.
    commands = CommandSet()
    #: The commands of a seat that has rivals (for tools and strategies that need them without an arena).
    seat_commands: ClassVar[CommandSet] = CommandSet()
    #: The hidden command line the arena issues for a seat whose agent has stopped (:meth:`retire`), recorded as the
    #: last line of its log; ``None`` when the arena ends a retired seat's turns with its advance command instead.
    retire_line: ClassVar[str | None] = None
    advance_command = ""

    def __init__(self, config: Any, seed: int, *, start: datetime, horizon_days: int, seats: int) -> None:
        low, high = self.seat_range
        if isinstance(seats, bool) or not isinstance(seats, int) or not low <= seats <= high:
            raise ConfigError(f"seats(={seats!r}) must be a whole number from {low} to {high} for {self.name}")
        super().__init__(config, seed, Calendar(start.replace(hour=0, minute=0, second=0, microsecond=0)))
        self.horizon_days = horizon_days
        self.horizon_us = horizon_days * US_PER_DAY
        self.day = 0
        self.restore_options = {"seats": seats}
        #: The rotation's offset (day ``d`` opens with seat ``(d + offset) % n``), from the stream ``turns``.
        self.turn_offset = turn_offset(self.streams, seats)
        self.seats: tuple[DaySeat, ...] = ()
        #: The seat that may act now, or ``None`` (between days; after the last turn of the episode).
        self.to_move: int | None = None
        #: The event the current turn began on (replay runs the environment until it has fired).
        self.turn_event: simpy.Event | None = None
        self._order: tuple[int, ...] = ()  # today's seats in play, in turn order
        self._pos = 0
        self._reports: dict[int, Any] = {}
        self._rotations: list[tuple[int, ...]] = []
        self._agents_playing = 0  # agents of run() that have not returned

    def seat_up(self, seats: Sequence[DaySeat]) -> None:
        """Install the seats (each already joined) and give the first turn of day 0."""
        if len(seats) != self.restore_options["seats"]:
            raise ConfigError(f"{len(seats)} seats built for an arena of {self.restore_options['seats']}")
        self.seats = tuple(seats)
        self._open_day()

    # the turn ---------------------------------------------------------------------------------
    def order_of(self, day: int) -> tuple[int, ...]:
        """Every seat's index in the order they act on ``day`` (seats that are over included)."""
        n = len(self.seats)
        if len(self._rotations) != n:  # the rotation repeats every n days: computed once
            self._rotations = [rotation(d, self.turn_offset, n) for d in range(n)]
        return self._rotations[day % n]

    def turn_refusal(self, seat: int) -> str:
        """Why ``seat`` may not act now (the message of a :class:`~bizsim.simcore.errors.TurnError`)."""
        if self.to_move is None:
            return f"seat {seat} cannot act now: no seat has the turn (the day is changing, or the episode is over)"
        return (f"seat {seat} cannot act now: seat {self.to_move} has the turn on day {self.day}; seats act one at "
                f"a time, day {self.day} in the order {list(self._order)}")

    def _open_day(self) -> None:
        seats, reports = self.seats, self._reports
        self._order = tuple([k for k in self.order_of(self.day) if k in reports or not seats[k].done])
        self._pos = 0
        self._give_turn()

    def _give_turn(self) -> None:
        while self._pos < len(self._order):
            k = self._order[self._pos]
            seat = self.seats[k]
            event = seat._turn if seat._turn is not None and not seat._turn.triggered else self.env.event()
            seat._turn = None
            self.to_move, self.turn_event = k, event
            self.env.succeed_at(event, self._now_us, PRIO_TURN, self._reports.get(k))
            if not seat.retired or (not seat.done and not self._agents_playing):
                return  # its agent acts; or nobody plays any more, and the arena holds here
            # A retired seat's turn ends at once while others play: with its advance command (recorded in its log,
            # so replay issues it as any line); silently once it is over (replay passes an ended seat's turn so too).
            if seat.done:
                self._pos += 1
                continue
            seat.execute(seat.advance_command, driven=True)
            return
        self.to_move = self.turn_event = None
        self._reports.clear()
        if not self.done:
            transition = self.env.fire_at(self._now_us + US_PER_DAY, PRIO_DAY_END)
            transition.callbacks.append(self._transition)

    def turn_follows(self) -> bool:
        """Whether, with no seat holding the turn, running the environment gives one (replay runs it then).

        A day arena gives every turn itself, so no; an event-time arena (the startup arena) gives the turn to the
        seat whose wake comes next, so yes while some seat waits for a wake.
        """
        return False

    def end_turn(self, seat: int) -> None:
        """Seat ``seat`` has ended its turn (its advance command; or its agent returned): the next seat acts."""
        if self.to_move != seat:
            raise ConfigError(f"seat {seat} ended a turn it did not have (seat {self.to_move} has it)")
        self._pos += 1
        self._give_turn()

    def _transition(self, _event: simpy.Event) -> None:
        """The day's shared transition, once every seat in play has ended its turn."""
        closing = self.day
        self._now_us += US_PER_DAY
        self.day = closing + 1
        playing = [seat for seat in self.seats if not seat.done]
        for seat in playing:
            seat._now_us = self._now_us
            seat.day = self.day  # type: ignore[attr-defined]  # a day world's
        reports = self.end_day(closing, playing)
        for seat in playing:
            report = reports[seat.seat]
            seat.actions_today = 0  # type: ignore[attr-defined]
            seat._actions_closed = False
            seat.record_event("day_end", {"day": closing})
            status = seat.finished_status()  # type: ignore[attr-defined]
            if status is not None:
                seat._end(status, status.value)
            seat._record((seat._now_us, "stop", seat.advance_command, _marshal(report)))
            self._reports[seat.seat] = report
        self.record_event("day_end", {"day": closing})
        if all(seat.done for seat in self.seats):
            statuses = {seat.status for seat in self.seats}
            # the horizon if any seat reached it; else the first status by name (a set's order is not stable)
            status = Status.HORIZON if Status.HORIZON in statuses else min(statuses, key=lambda s: s.value)
            self._end(status, status.value)
        self._open_day()

    def end_day(self, day: int, playing: Sequence[DaySeat]) -> dict[int, dict[str, Any]]:
        """Run the shared transition of ``day`` for the seats in play; return each one's report by seat index.

        The seats' clocks and days have already moved on; the kernel then closes each seat's day as a day world
        closes its own (budget reset, ``day_end`` event, end status, the ``stop`` record).
        """
        raise NotImplementedError

    # running ---------------------------------------------------------------------------------
    def run(self, agents: Sequence[Agent]) -> list[simpy.Process]:  # type: ignore[override]
        """Run one agent per seat (``agents[k]`` plays seat ``k``) until every agent returns or the arena ends.

        Raises:
            ConfigError: not one agent per seat.
            Exception: whatever an agent raised.
        """
        agents = list(agents) if not callable(agents) else [agents]
        if len(agents) != len(self.seats):
            raise ConfigError(f"{len(agents)} agents for {len(self.seats)} seats: give one agent per seat, in seat "
                              "order")
        procs = self.start(agents)
        self.env.run(until=self.env.any_of([self.env.all_of(procs), self.finished]))
        for proc in procs:
            if proc.triggered and not proc.ok:
                raise proc.value  # type: ignore[misc]  # a failed process holds its error
        # Every agent returned: play on to the next turn's start, where a replay of the logs stops too.
        self.await_turn()
        return procs

    def start(self, agents: Sequence[Agent]) -> list[simpy.Process]:
        """Start one process per seat (``agents[k]`` plays seat ``k``, through :meth:`_seat_main`), none run yet:
        :meth:`run` and a driver of a seat played from outside (:mod:`~bizsim.simcore.arena_outside`) start them
        so, in seat order, so same-instant events keep one order."""
        for seat in self.seats:
            seat.retired = False
        self._agents_playing = len(agents)
        return [self.env.process(self._seat_main(seat, agent)) for seat, agent in zip(self.seats, agents)]

    def await_turn(self) -> None:
        """Run the environment until a seat has the turn and its turn has begun, or the episode is over."""
        env = self.env
        while self.to_move is None and not self.done:
            env.step()
        if self.turn_event is not None:
            env.run(until=self.turn_event)

    def _seat_main(self, seat: DaySeat, agent: Agent) -> Generator[simpy.Event, Any, Any]:
        process = agent_process(agent, seat)
        if seat._turn is not None and not seat._turn.processed and self.to_move != seat.seat:
            yield seat._turn
        result = yield from process
        self.retire(seat.seat)
        return result

    def retire(self, seat: int) -> None:
        """Seat ``seat``'s agent has stopped: end its turns from now on (its turn now, if it has it), while other
        seats' agents play; once none does, the arena holds at the turn it has reached."""
        chair = self.seats[seat]
        chair.retired = True
        self._agents_playing -= 1
        if self.to_move == seat:
            if chair.done or self.done:
                self.end_turn(seat)
            elif self._agents_playing:
                chair.execute(chair.advance_command, driven=True)

    def execute(self, line: str, *, allow_hidden: bool = False, driven: bool = False) -> dict[str, Any] | simpy.Event:
        """Refused: an arena takes commands through its seats (``arena.seats[k].execute(line)``)."""
        raise ConfigError(f"a {self.name} arena takes commands through its seats: arena.seats[k].execute(...)")

    def execute_tool(self, tool_name: str, arguments: Mapping[str, Any] | None, *,
                     driven: bool = False) -> dict[str, Any] | simpy.Event:
        """Refused: see :meth:`execute`."""
        return self.execute(tool_name)

    def call(self, name: str, **kwargs: Any) -> Any:
        """Refused: see :meth:`execute`."""
        return self.execute(name)

    def advance(self) -> simpy.Event:
        """Refused: see :meth:`execute`."""
        raise ConfigError(f"a {self.name} arena advances through its seats' turns: run arena.run(agents)")

    # the record ------------------------------------------------------------------------------
    def command_logs(self) -> list[list[tuple[int, str]]]:
        """One timed command log per seat, ``(t_us, canonical line)``: with the turn order, enough to replay."""
        return [seat.command_log() for seat in self.seats]

    def command_log(self, start: int = 0) -> list[tuple[int, str]]:
        """Refused: an arena has one log per seat (:meth:`command_logs`)."""
        raise ConfigError("an arena has one command log per seat: arena.command_logs()")

    def snapshot(self) -> ArenaSnapshot:  # type: ignore[override]
        """The arena as a small immutable value: world, version, config, seed, seats and one log per seat."""
        from .arena_replay import arena_snapshot_of

        return arena_snapshot_of(self)

    def __reduce__(self) -> tuple[Any, ...]:
        from .arena_replay import restore_arena

        return (restore_arena, (self.snapshot(),))

    def __deepcopy__(self, memo: dict[int, Any]) -> World:
        from .arena_replay import restore_arena

        return restore_arena(self.snapshot())

    def close(self) -> None:
        """Free the arena's memory (and its seats'); neither can be used afterwards."""
        seats = self.__dict__.get("seats", ())
        for seat in seats:
            seat.__dict__.clear()
            seat.closed = True
        super().close()

    # figures --------------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Per-seat summaries (each with its ``metric`` and ``metric_value``) and the standings.

        ``standings`` lists seat indices best first (higher metric first; ties by seat index); ``metric`` names
        the seats' metric. An arena has no single ``metric_value``: each seat is scored on its own.
        """
        seats = []
        for seat in self.seats:
            seats.append({"seat": seat.seat, "status": seat.status.value, **seat.summary()})
        metric = seats[0]["metric"] if seats else None
        standings = sorted(range(len(seats)), key=lambda k: (-seats[k]["metric_value"], k))
        return {"metric": metric, "seats": seats, "standings": standings, "days": self.day,
                "status": self.status.value, "turn_offset": self.turn_offset}

    def observation(self) -> dict[str, Any]:
        """Whose turn it is, the day, and each seat's own observation."""
        return {"time": self.now_iso, "day": self.day, "status": self.status.value, "to_move": self.to_move,
                "seats": [seat.observation() for seat in self.seats]}

    def state(self) -> dict[str, Any]:
        """The whole arena as JSON-able data: the turn and every seat's state."""
        return {"day": self.day, "time": self.now_iso, "status": self.status.value, "to_move": self.to_move,
                "turn_offset": self.turn_offset, "order": list(self._order), "position": self._pos,
                "seats": [seat.state() for seat in self.seats]}

    def invariants(self) -> list[str]:
        """Every seat's broken invariants (prefixed ``seat k:``) and the arena's own."""
        bad = [f"seat {seat.seat}: {problem}" for seat in self.seats for problem in seat.invariants()]
        for seat in self.seats:
            if seat._now_us != self._now_us and not seat.done:
                bad.append(f"seat {seat.seat}'s clock {seat._now_us} differs from the arena's {self._now_us}")
        return bad

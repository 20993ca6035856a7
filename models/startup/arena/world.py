"""startup-arena: two to four companies in one YC-Bench market."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import simpy

from bizsim.simcore import ConfigError, RandomStreams
from bizsim.simcore.env import SimEnvironment
from bizsim.simcore.errors import ReplayError
from bizsim.simcore.world import Agent, agent_process

from ..config import StartupConfig
from .market import SharedMarket
from .seat import StartupSeat

__all__ = ["StartupArena", "MAX_SEATS", "US_PER_DAY"]

#: The most companies one market holds.
MAX_SEATS = 4
US_PER_DAY = 86_400_000_000
#: The priority of the seats' first turns at the start: after SimPy's own (0, 1), before any world event (10+).
PRIO_START = 5


class StartupArena:
    """Companies sharing one YC-Bench market: the task pool, the clock and the world's generation.

    Each company (a :class:`StartupSeat`) has its own funds and ledger, employees, client trust, prestige,
    tasks and scratchpad; a task one company accepts is gone from the market for all (its replacement, the
    reference's, appears for all). Companies reach each other only by messages and payments.

    Who acts when: event time. A company acts when its ``sim resume`` wakes; the wake that comes first (instant,
    then the startup world's priority: a payroll stop before the stop after completions) acts first. Wakes at
    the same instant and priority go in a rotation: on day ``d`` of the episode (24-hour days from the start)
    the seat ``(d + offset) mod n`` goes first, then the next seats in order, with ``offset`` drawn once from
    the seed's stream ``seat_order``. A company's turn runs until it yields its next ``sim resume``; a refused
    resume does not end it. At the start the seats begin in day 0's order. So a run is a function of the seed
    and the companies' commands, and replays from the companies' timed command logs.

    With one seat it is the startup world: the same market, commands, answers and figures.

    Args:
        config: a startup preset name or a :class:`StartupConfig` (one for all companies).
        seed: names the market, as in the startup world.
        seats: how many companies (1 to 4; the registry offers 2 to 4).
    """

    name = "startup-arena"
    version = 1

    def __init__(self, config: StartupConfig | str = "default", seed: int = 1, *, seats: int = 2) -> None:
        if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= MAX_SEATS:
            raise ConfigError(f"seats(={seats!r}) must be an integer from 1 to {MAX_SEATS}: one company per seat")
        self.size = seats
        self.seed = int(seed)
        self.env = SimEnvironment()
        self.streams = RandomStreams(self.seed)
        #: The seat that goes first on day 0; day ``d`` starts with ``(d + offset) mod n``.
        self.offset = int(self.streams.get("seat_order").integers(seats)) if seats > 1 else 0
        self.market: SharedMarket = SharedMarket(0)
        built = [StartupSeat(config, seed, arena=self, index=i, env=self.env) for i in range(seats)]
        self.seats: tuple[StartupSeat, ...] = tuple(built)
        self.market.views = self.seats
        self.market.next_serial = len(built[0].tasks) + 1
        first = built[0]
        self.config = first.config
        self.calendar = first.calendar
        self.horizon_us = first.horizon_us
        self.preset = first.preset

    # who acts when ------------------------------------------------------------------------
    def order(self, t_us: int) -> list[int]:
        """The seats in the order their same-instant wakes go on the day of ``t_us``."""
        n = self.size
        first = (t_us // US_PER_DAY + self.offset) % n
        return [(first + k) % n for k in range(n)]

    def rank(self, index: int, t_us: int) -> int:
        """Seat ``index``'s place (0 = first) among same-instant wakes on the day of ``t_us``."""
        return (index - (t_us // US_PER_DAY + self.offset)) % self.size

    @property
    def now_us(self) -> int:
        """The arena's clock in microseconds (the latest instant any company has reached)."""
        return max(s.now_us for s in self.seats)

    @property
    def done(self) -> bool:
        """Whether every company's episode has ended."""
        return all(s.done for s in self.seats)

    # running --------------------------------------------------------------------------------
    def run(self, agents: Sequence[Agent]) -> list[simpy.Process]:
        """Play each seat with its agent (one SimPy process each) until every agent returns or its company ends.

        A company whose agent returned early lives on (payroll, the horizon) while its rivals play.

        Raises:
            ConfigError: not one agent per seat.
        """
        if len(agents) != self.size:
            raise ConfigError(f"{len(agents)} agents for {self.size} seats: give one agent per seat")
        return self._play([(lambda seat, a=a: agent_process(a, seat)) for a in agents])

    def _play(self, makers: Sequence[Any]) -> list[simpy.Process]:
        env = self.env
        procs: list[simpy.Process | None] = [None] * self.size
        for i in self.order(0):
            procs[i] = env.process(makers[i](self.seats[i]) if self.size == 1 else self._gated(makers[i], i))
        started = [p for p in procs if p is not None]
        ends = [env.any_of([p, s.finished]) for p, s in zip(started, self.seats)]
        env.run(until=ends[0] if self.size == 1 else env.all_of(ends))
        for p in started:
            if p.triggered and not p.ok:
                raise p.value  # type: ignore[misc]  # a failed process holds its exception
        return started

    def _gated(self, maker: Any, index: int) -> Any:
        # Every seat's first turn waits for its place in day 0's rotation, after every process has started, so a
        # turn that goes on past a refused resume (an event at the same instant) is not cut by a rival's start.
        yield self.env.fire_at(0, PRIO_START + self.rank(index, 0) / self.size)
        return (yield from maker(self.seats[index]))

    def command_logs(self) -> list[list[tuple[int, str]]]:
        """Every company's timed command log: with the seed and config, enough to replay the arena."""
        return [s.command_log() for s in self.seats]

    # figures ------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Every company's headline figures; ``metric`` names the per-seat figure (``final_funds_cents``)."""
        rows = [{"seat": s.index, "company": s.company_name, "status": s.status.value, **s.summary()}
                for s in self.seats]
        return {"metric": "final_funds_cents", "seats": rows}

    def state(self) -> dict[str, Any]:
        """The whole arena as JSON-able data: every company's state and the market's counters."""
        m = self.market
        return {
            "seats": [s.state() for s in self.seats],
            "market": {"next_serial": m.next_serial, "slot_generation": sorted(m.slot_generation.items()),
                       "bot_counter": m.bot_counter, "taken": list(m.taken)},
            "offset": self.offset,
        }

    def invariants(self) -> list[str]:
        """Broken rules, described: every company's own, one market for all, transfers zero-sum."""
        bad = [f"{s.company_name}: {b}" for s in self.seats for b in s.invariants()]
        markets = {tuple(t.uid for t in s.market) for s in self.seats}
        if len(markets) != 1:
            bad.append("the companies' views of the market differ")
        owners: dict[str, str] = {}
        for s in self.seats:
            for t in s.tasks:
                if t.status != "market":
                    if t.uid in owners:
                        bad.append(f"task {t.title} is owned by {owners[t.uid]} and {s.company_name}")
                    owners[t.uid] = s.company_name
        moved = sum(e.amount_cents for s in self.seats for e in s.ledger if e.category in ("transfer_in", "transfer_out"))
        if moved != 0:
            bad.append(f"transfers between companies do not cancel out (net {moved} cents)")
        return bad


def replay_arena(arena: StartupArena, logs: Sequence[Iterable[tuple[int, str]]]) -> StartupArena:
    """Re-issue every company's timed command log in a fresh ``arena`` (same config, seed, seats).

    Each seat replays as a process that issues its lines and waits on its ``sim resume`` lines, so the
    companies interleave as they did: the order is the arena's rule, not the logs'.

    Raises:
        ReplayError: a line falls at another instant than recorded (the logs belong to another arena).
    """
    if len(logs) != arena.size:
        raise ReplayError(f"{len(logs)} command logs for {arena.size} seats")

    def player(log: Iterable[tuple[int, str]]) -> Any:
        def play(seat: StartupSeat) -> Any:
            for i, (t_us, line) in enumerate(log):
                if seat.now_us != t_us:
                    raise ReplayError(f"{seat.company_name} command {i} ({line!r}) was recorded at t_us={t_us} but "
                                      f"the replay is at t_us={seat.now_us}; the logs belong to another arena")
                out = seat.execute(line, allow_hidden=True, driven=True)
                if isinstance(out, simpy.Event):
                    yield out
        return play

    arena._play([player(list(log)) for log in logs])
    return arena

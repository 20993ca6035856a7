"""startup-arena: two to four companies in one YC-Bench market, in event time."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from datetime import datetime
from typing import Any

import simpy
from bizsim.simcore import Status
from bizsim.simcore.arena import ArenaWorld
from bizsim.simcore.calendar import US_PER_DAY
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.world import agent_process

from ..commands import COMMANDS
from ..config import StartupConfig
from ..presets import resolve_config
from .commands import arena_commands
from .market import SharedMarket
from .seat import StartupSeat

__all__ = ["MAX_SEATS", "PRIO_START", "StartupArena"]

#: The most companies one market holds.
MAX_SEATS = 4
#: The priority of the seats' first turns at the start: after SimPy's own (0, 1), before any world event (10+).
PRIO_START = 5


class StartupArena(ArenaWorld):
    """Companies sharing one YC-Bench market: the task pool, the clock and the world's generation.

    Each company (a :class:`StartupSeat`) has its own funds and ledger, employees, client trust, prestige,
    tasks and scratchpad; a task one company accepts is gone from the market for all (its replacement, the
    reference's, appears for all). Companies reach each other only by messages and payments.

    Who acts when: event time. A company acts when its ``sim resume`` wakes; the wake that comes first (instant,
    then the startup world's priority: a payroll stop before the stop after completions) acts first. Wakes at
    the same instant and priority go in the kernel's rotation (:func:`bizsim.simcore.turns.rotation`): on day
    ``d`` of the episode (24-hour days from the start) seat ``(d + offset) mod n`` goes first, then the next
    seats in order, ``offset`` drawn once from the seed's stream ``turns``. At the start the seats take their
    first turns in day 0's order. A turn lasts until the company's ``sim resume`` is accepted (a refused one
    does not end it); a seat takes commands only in its turn. An agent that stops while rivals play leaves its
    turns to the arena (the hidden ``arena leave``, recorded); its company lives on, paying its payroll, while a
    rival plays (until its own horizon or bankruptcy). So a run is a function of the seed and the companies'
    commands, and :func:`bizsim.simcore.arena_replay.replay_arena` rebuilds it from the seats' command logs.

    With one seat it is the startup world: the same market, commands, answers, trajectory and figures.

    Args:
        config: a startup preset name or a :class:`StartupConfig` (one for all companies).
        seed: names the market, as in the startup world.
        seats: how many companies (1 to 4; the registry offers 2 to 4).
    """

    name = "startup-arena"
    version = 1
    retire_line = "arena leave"
    seat_range = (1, MAX_SEATS)
    seat_commands = arena_commands(COMMANDS)
    seats: tuple[StartupSeat, ...]  # type: ignore[assignment]  # the kernel's DaySeat tuple, here startup seats

    def __init__(self, config: StartupConfig | str = "default", seed: int = 1, *, seats: int = 2) -> None:
        cfg = resolve_config(config)
        start = datetime.fromisoformat(cfg.start_date)
        horizon_days = (start.replace(year=start.year + cfg.horizon_years) - start).days
        super().__init__(cfg, seed, start=start, horizon_days=horizon_days, seats=seats)
        self.preset = config if isinstance(config, str) else "custom"
        self.size = seats
        self.market = SharedMarket(0)  # its first serial follows the generated tasks (below)
        self.seats = tuple(StartupSeat(self, k) for k in range(seats))
        first = self.seats[0]
        # The startup world's calendar and clock (09:00 of the start date), which the seats keep.
        self.calendar = first.calendar
        self.horizon_us = first.horizon_us
        self.market.views = self.seats
        self.market.replacements.next_serial = len(first.tasks) + 1
        self._starting = list(self.order_of(0))
        self._open()

    # who acts when ------------------------------------------------------------------------
    def rank(self, index: int, t_us: int) -> int:
        """Seat ``index``'s place (0 = first) among same-instant wakes on the day of ``t_us``."""
        return self.order_of(t_us // US_PER_DAY).index(index)

    def _open(self) -> None:
        """Give the next first turn of the start (day 0's order), or leave the turn to the seats' wakes."""
        if not self._starting:
            self.to_move = self.turn_event = None
            return
        k = self._starting.pop(0)
        seat = self.seats[k]
        self.to_move = k
        if k == self.order_of(0)[0]:
            seat._turn = None  # the first seat starts as its agent does: at once
            self.turn_event = None
        else:
            event = seat._turn
            assert event is not None
            self.turn_event = self.env.succeed_at(event, 0, PRIO_START + self.rank(k, 0) / self.size)

    def give_turn(self, seat: int, event: simpy.Event) -> None:
        """Seat ``seat`` wakes on ``event``: it has the turn now (its agent resumes right after)."""
        if self.to_move is not None:
            raise RuntimeError(f"seat {seat} woke while seat {self.to_move} has the turn: a startup agent holds its "
                               "turn only by running, and yields nothing but its advance")
        self.to_move, self.turn_event = seat, event
        self._now_us = self.seats[seat].now_us
        self.day = self._now_us // US_PER_DAY

    def turn_follows(self) -> bool:
        """Between turns, the next wake gives one while some company waits for its ``sim resume``."""
        return any(s.awaits_turn for s in self.seats)

    def _seat_main(self, seat: Any, agent: Any) -> Generator[simpy.Event, Any, Any]:
        # A fork's agents join mid-year: a seat without the turn waits for its next wake (its first turn at the
        # start), so its new agent acts only in its turn.
        if self.to_move != seat.seat:
            first = seat._turn if seat._turn is not None and not seat._turn.processed else seat.next_wake()
            if first is not None:
                yield first
        result = yield from agent_process(agent, seat)
        self.retire(seat.seat)
        return result

    def await_turn(self) -> None:
        """Run the environment until a seat has the turn, while a wake is due (replay; ``run`` once every agent
        has stopped). Only then: with no agent waiting, nothing more is played (a company that left lives on only
        while a rival plays), and the arena may have ended (its last horizon) before that instant's wakes."""
        env = self.env
        while self.to_move is None and self.turn_follows():
            env.step()
        if self.turn_event is not None:
            env.run(until=self.turn_event)

    def end_turn(self, seat: int) -> None:
        """Seat ``seat``'s advance was accepted (or its agent left): the next wake acts."""
        if self.to_move != seat:
            raise ConfigError(f"seat {seat} ended a turn it did not have (seat {self.to_move} has it)")
        self._open()

    def retire(self, seat: int) -> None:
        """Seat ``seat``'s agent has returned: with rivals still playing, its company leaves its turns to the arena
        (``arena leave``, in its log); with none, the run is over."""
        chair = self.seats[seat]
        if self.to_move != seat:
            return
        if chair.done:
            self._open()  # its last turn ends (a replay ends it so too)
        elif any(not s.retired and not s.done for s in self.seats if s is not chair):
            chair.execute(self.retire_line, allow_hidden=True, driven=True)
        # else the last agent has stopped: the run is over, in this seat's turn (where a replay stops too)

    def leave(self, seat: int) -> None:
        """``arena leave``: the seat's company plays no more turns."""
        self.seats[seat].retired = True
        self.end_turn(seat)

    def seat_ended(self) -> None:
        """A company's episode has ended; the arena's ends with the last one."""
        if all(s.done for s in self.seats):
            statuses = {s.status for s in self.seats}
            status = Status.HORIZON if Status.HORIZON in statuses else min(statuses, key=lambda s: s.value)
            self._now_us = max(s.now_us for s in self.seats)
            self._end(status, status.value)

    # between companies ------------------------------------------------------------------------
    def deliver(self, sender: StartupSeat, to: StartupSeat, kind: str, data: dict[str, Any]) -> None:
        """Put a message or payment from ``sender`` in ``to``'s inbox, on its trajectory and the arena's."""
        now = sender.now_us
        item = {"kind": kind, "from": sender.seat, "company": sender.company_name, "sent_at": sender.now_iso, **data}
        to.inbox.append(item)
        to.record_event(f"{kind}_received", item, now)
        self.record_event(kind, {"from": sender.seat, "to": to.seat, **data}, now)

    def pay(self, sender: StartupSeat, to: StartupSeat, cents: int, memo: str) -> None:
        """Move ``cents`` from ``sender``'s funds to ``to``'s: one ledger's debit is the other's credit."""
        now = sender.now_us
        sender.ledger.post(now, "transfer_out", -cents, to.company_uid)
        to.ledger.post(now, "transfer_in", cents, sender.company_uid)
        sender.money_sent_cents += cents
        to.money_received_cents += cents
        self.deliver(sender, to, "money", {"amount_cents": cents, "text": memo})

    # figures ------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """The kernel's arena summary, each seat's row with its company's name."""
        out = super().summary()
        for row, seat in zip(out["seats"], self.seats):
            row["company"] = seat.company_name
        return out

    def state(self) -> dict[str, Any]:
        """The whole arena as JSON-able data: the turn, every company's state, the market's counters."""
        m, r = self.market, self.market.replacements
        return {
            "time": self.now_iso, "status": self.status.value, "to_move": self.to_move,
            "turn_offset": self.turn_offset, "starting": list(self._starting),
            "market": {"next_serial": r.next_serial, "slot_generation": sorted(r.slot_generation.items()),
                       "bot_counter": r.bot_counter, "taken": list(m.taken)},
            "inbox": [list(s.inbox) for s in self.seats],
            "seats": [s.state() for s in self.seats],
        }

    def invariants(self) -> list[str]:
        """Every company's broken rules (``seat k:``), one market for all, no task owned twice, payments zero-sum."""
        bad = [f"seat {s.seat}: {b}" for s in self.seats for b in s.invariants()]
        if len({tuple(t.uid for t in s.market) for s in self.seats}) != 1:
            bad.append("the companies' views of the market differ")
        owners: dict[str, int] = {}
        for s in self.seats:
            for t in s.tasks:
                if t.status != "market":
                    if t.uid in owners:
                        bad.append(f"task {t.title} is owned by seats {owners[t.uid]} and {s.seat}")
                    owners[t.uid] = s.seat
        moved = sum(e.amount_cents for s in self.seats for e in s.ledger
                    if e.category in ("transfer_in", "transfer_out"))
        if moved or sum(s.money_sent_cents for s in self.seats) != sum(s.money_received_cents for s in self.seats):
            bad.append(f"payments between companies are not zero-sum (net {moved} cents)")
        return bad

    def end_day(self, day: int, playing: Sequence[Any]) -> dict[int, dict[str, Any]]:
        """Not used: the startup arena runs in event time, each company's year on its own events."""
        raise NotImplementedError("startup-arena has no shared day; its seats wake on their own events")

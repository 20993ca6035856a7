"""The vending arena: 1-8 vending machines at one location, each run by its own agent (Vending-Bench Arena's idea).

Each seat is a vending machine with the vending world's commands, budget,
ledger, stock, orders and metric (net worth); every seat's agent is a
vending agent, unchanged. The location's customers are shared: each day
after the last seat has ended its turn, the market (:mod:`.choice`) splits
the day's demand between the machines by price, stock and assortment, and
every machine books its sales and deliveries as the vending world does.
Who acts when: :mod:`bizsim.simcore.turns` (day ``d`` opens with seat
``(d + offset) mod n``).

With one seat the arena is the vending world: same seed, same agent, the
same summary, command results and trajectory (tested).

>>> from bizsim.agents.vending import markup
>>> arena = VendingArena("small", 1, seats=2)
>>> _ = arena.run([markup, markup])
>>> [s["metric"] for s in arena.summary()["seats"]]
['net_worth_cents', 'net_worth_cents']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bizsim.simcore.arena import ArenaWorld
from bizsim.simcore.seat import DaySeat

from .._ecogym import parse_start_date
from .arena_commands import ARENA_COMMANDS
from .arena_config import ARENA_PRESETS, VendingArenaConfig
from .catalog import Catalog
from .choice import market_sales
from .demand import NormalStream
from .generate import generate_catalog
from .world import VendingWorld, _compiled, _load_files

__all__ = ["VendingArena", "VendingSeat"]


class VendingSeat(DaySeat, VendingWorld):
    """One machine of a :class:`VendingArena`: a vending world whose market and turns are the arena's.

    With rivals (two seats or more) it has the arena's commands (:mod:`.arena_commands`), its day reports carry
    an ``arena`` part (unread messages; the competition report on report days) and its summary the transfer
    figures; alone it is the vending world, commands and all.
    """

    arena: VendingArena

    def __init__(self, arena: VendingArena, index: int, rivals: bool) -> None:
        VendingWorld.__init__(self, arena.config, arena.seed, catalog=arena.catalog)
        self.join(arena, index)
        self.preset = arena.preset
        if rivals:
            self.commands = ARENA_COMMANDS
        self.rivals = rivals
        self.messages_today = 0
        self.money_sent_cents = self.money_received_cents = 0
        self.units_sent = self.units_received = 0

    def send_money(self, to: VendingSeat, cents: int) -> None:
        """Move ``cents`` of cash to seat ``to``: one ledger's debit is the other's credit."""
        self.ledger.post(self._now_us, "transfer_out", -cents, f"seat {to.seat}")
        to.ledger.post(to._now_us, "transfer_in", cents, f"seat {self.seat}")
        self.transferred_cents -= cents
        to.transferred_cents += cents
        self.money_sent_cents += cents
        to.money_received_cents += cents

    def send_goods(self, to: VendingSeat, index: int, quantity: int) -> None:
        """Move ``quantity`` units of product ``index`` from this machine's stock to seat ``to``'s."""
        value = self._wholesale[index] * quantity
        self.stock[index] -= quantity
        self._stock_value -= value
        self.units_transferred -= quantity
        self.units_sent += quantity
        if index not in to._stocked:
            to._stocked.add(index)
            to.stocked.append(index)
        to.stock[index] += quantity
        to._stock_value += value
        to.units_transferred += quantity
        to.units_received += quantity

    def settle_day(self, day: int, sold: list[tuple[int, int]]) -> dict:
        """The vending world's day (the arena adds its part to the report once every seat is settled)."""
        self.messages_today = 0
        return VendingWorld.settle_day(self, day, sold)

    def summary(self) -> dict:
        """The vending world's figures; with rivals also what the seat sent and received."""
        out = VendingWorld.summary(self)
        if self.rivals:
            out.update(money_sent_cents=self.money_sent_cents, money_received_cents=self.money_received_cents,
                       units_sent=self.units_sent, units_received=self.units_received)
        return out


class VendingArena(ArenaWorld):
    """A location with ``seats`` vending machines sharing its customers for a year.

    The choice model (:mod:`.choice`, docs/worlds/vending-arena.md): the location's demand per group is the
    vending world's, priced at every machine's in-stock products together; a group's customers split between the
    machines that have one of its products in stock by a softmax of ``-choice_price_weight * beta * P_m / Pref +
    choice_assortment_weight * ln n_m`` (``P_m`` the machine's stock-weighted mean price, ``n_m`` its in-stock
    products of the group); within a machine, noise, rounding and the stock cap are the vending world's. Both
    weights are config fields. Randomness: the catalog from the seed, the demand noise from the stream
    ``demand``, the turn rotation from ``turns``.

    Args:
        config: a preset name (``"default"``, ``"small"``, ``"medium"``, ``"large"``), a ``.toml`` path or a
            :class:`~bizsim.models.vending.arena_config.VendingArenaConfig`.
        seed: the episode seed (the catalog, the demand noise, the turn rotation).
        seats: how many machines (1-8; the registry offers 2-8, one seat is the vending world).
    """

    name = "vending-arena"
    version = 1
    seat_range = (1, 8)
    seat_commands = ARENA_COMMANDS

    def __init__(self, config: VendingArenaConfig | str = "default", seed: int = 1, *, seats: int = 2) -> None:
        cfg = ARENA_PRESETS.resolve(config)
        super().__init__(cfg, seed, start=parse_start_date(cfg.start_date), horizon_days=cfg.horizon_days,
                         seats=seats)
        self.preset = config if isinstance(config, str) else "custom"
        catalog: Catalog
        if cfg.products_path is not None and cfg.demand_path is not None:
            catalog = _load_files(cfg.products_path, cfg.demand_path)
        else:
            catalog = generate_catalog(cfg.catalog_size, self.seed if cfg.catalog_seed is None else cfg.catalog_seed)
        self.catalog = catalog
        self.demand = _compiled(catalog, cfg.horizon_days, cfg.noise_std, cfg.search_results)[0]
        # The vending world's stream: with one seat the noise is the vending world's, draw for draw.
        self._rng = NormalStream(self.streams.get("demand")) if cfg.noise else None
        #: One row per day: (day, expected units over the location, units wanted after noise, units sold).
        self.market_daily: list[tuple[int, float, int, int]] = []
        #: Per seat: what other seats sent it (messages, money, goods), in order; and how many it has read.
        self.inbox: list[list[dict[str, Any]]] = [[] for _ in range(seats)]
        self._read = [0] * seats
        #: The competition reports so far (public to every seat).
        self.reports: list[dict[str, Any]] = []
        self.seat_up([VendingSeat(self, k, seats > 1) for k in range(seats)])

    def end_day(self, day: int, playing: Sequence[DaySeat]) -> dict[int, dict[str, Any]]:
        """The location's sales of ``day`` split between the machines, then each machine's books and deliveries."""
        cfg = self.config
        machines = [(seat._by_group, seat.price_cents, seat.stock) for seat in playing]  # type: ignore[attr-defined]
        market = market_sales(self.demand, day, machines, self._rng, price_weight=cfg.choice_price_weight,
                              assortment_weight=cfg.choice_assortment_weight)
        units = sum(n for sold in market.sold for _, n in sold)
        self.market_daily.append((day, market.expected, market.wanted, units))
        reports = {seat.seat: seat.settle_day(day, sold)  # type: ignore[attr-defined]
                   for seat, sold in zip(playing, market.sold, strict=True)}
        if len(self.seats) > 1:
            if self.day % cfg.report_every_days == 0:
                self._competition_report(self.day)
            for k, report in reports.items():
                report["arena"] = self.report_part(k)
        return reports

    # between seats: what is public ----------------------------------------------------------------
    def deliver(self, sender: int, to: int, kind: str, data: dict[str, Any]) -> None:
        """Put a message, payment or shipment from ``sender`` in seat ``to``'s inbox, and on the arena's record."""
        item = {"kind": kind, "from": sender, "day": self.day, **data}
        self.inbox[to].append(item)
        self.record_event(kind, {"from": sender, "to": to, **data})

    def read_inbox(self, seat: int, limit: int) -> list[dict[str, Any]]:
        """Seat ``seat``'s oldest ``limit`` unread inbox items, now marked read (the rest stay unread)."""
        start = self._read[seat]
        self._read[seat] = min(start + limit, len(self.inbox[seat]))
        return [dict(item) for item in self.inbox[seat][start:self._read[seat]]]

    def unread(self, seat: int) -> int:
        """How many of seat ``seat``'s inbox items are unread."""
        return len(self.inbox[seat]) - self._read[seat]

    def shelf(self, k: int) -> dict[str, Any]:
        """Seat ``k``'s shelf, as any customer sees it: products with a price and stock, and their prices."""
        seat: VendingSeat = self.seats[k]  # type: ignore[assignment]
        names = seat._names
        return {"seat": k, "status": seat.status.value,
                "products": [{"name": names[i], "price": seat.price_cents[i] / 100, "price_cents": seat.price_cents[i]}
                             for i in seat.priced if seat.stock[i] > 0]}

    def report_part(self, seat: int) -> dict[str, Any]:
        """The arena's part of seat ``seat``'s day report: unread inbox items, and today's competition report."""
        part: dict[str, Any] = {"unread": self.unread(seat)}
        if self.reports and self.reports[-1]["day"] == self.day:
            part["competition_report"] = self.reports[-1]
        return part

    def _competition_report(self, day: int) -> None:
        period = self.config.report_every_days
        rows = []
        for seat in self.seats:
            recent = seat.daily[-period:]  # type: ignore[attr-defined]
            revenue = sum(r[1] for r in recent)
            rows.append({"seat": seat.seat, "status": seat.status.value, "units_sold": sum(r[2] for r in recent),
                         "revenue": revenue / 100, "revenue_cents": revenue,
                         "products_on_shelf": len(self.shelf(seat.seat)["products"])})
        report = {"day": day, "days": period, "machines": rows}
        self.reports.append(report)
        self.record_event("competition_report", report)

    def state(self) -> dict[str, Any]:
        """The arena's state with the inboxes and reports."""
        return {**super().state(), "inbox": [list(items) for items in self.inbox], "read": list(self._read),
                "reports": list(self.reports)}

    def invariants(self) -> list[str]:
        """Every seat's and the arena's invariants; money and goods conserved across seats; no day served more
        than its customers wanted."""
        bad = super().invariants()
        seats: list[VendingSeat] = list(self.seats)  # type: ignore[arg-type]
        moved = sum(s.transferred_cents for s in seats)
        if moved or sum(s.money_sent_cents for s in seats) != sum(s.money_received_cents for s in seats):
            bad.append(f"money transfers are not zero-sum (net {moved} cents)")
        units = sum(s.units_transferred for s in seats)
        if units or sum(s.units_sent for s in seats) != sum(s.units_received for s in seats):
            bad.append(f"goods transfers are not zero-sum (net {units} units)")
        cash = sum(s.money_cents for s in seats)
        booked = sum(s.ledger.initial_cents - s.purchases_cents + s.sales_cents for s in seats)
        if cash != booked:
            bad.append(f"cash over the seats {cash} != starts - purchases + sales {booked}")
        for day, _expected, wanted, sold in self.market_daily:
            if sold > wanted:
                bad.append(f"day {day}: {sold} units sold, more than the {wanted} customers wanted")
        if len(self.market_daily) != self.day:
            bad.append(f"{len(self.market_daily)} market days recorded on day {self.day}")
        return bad

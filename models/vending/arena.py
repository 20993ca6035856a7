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
from .arena_config import ARENA_PRESETS, VendingArenaConfig
from .catalog import Catalog
from .choice import market_sales
from .demand import NormalStream
from .generate import generate_catalog
from .world import VendingWorld, _compiled, _load_files

__all__ = ["VendingArena", "VendingSeat"]


class VendingSeat(DaySeat, VendingWorld):
    """One machine of a :class:`VendingArena`: a vending world whose market and turns are the arena's."""

    def __init__(self, arena: VendingArena, index: int) -> None:
        VendingWorld.__init__(self, arena.config, arena.seed, catalog=arena.catalog)
        self.join(arena, index)
        self.preset = arena.preset


class VendingArena(ArenaWorld):
    """A location with ``seats`` vending machines sharing its customers for a year.

    Args:
        config: a preset name (``"default"``, ``"small"``, ``"medium"``, ``"large"``), a ``.toml`` path or a
            :class:`~bizsim.models.vending.arena_config.VendingArenaConfig`.
        seed: the episode seed (the catalog, the demand noise, the turn rotation).
        seats: how many machines (1-8; the registry offers 2-8, one seat is the vending world).
    """

    name = "vending-arena"
    version = 1
    seat_range = (1, 8)

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
        self.seat_up([VendingSeat(self, k) for k in range(seats)])

    def end_day(self, day: int, playing: Sequence[DaySeat]) -> dict[int, dict[str, Any]]:
        """The location's sales of ``day`` split between the machines, then each machine's books and deliveries."""
        cfg = self.config
        machines = [(seat._by_group, seat.price_cents, seat.stock) for seat in playing]  # type: ignore[attr-defined]
        market = market_sales(self.demand, day, machines, self._rng, price_weight=cfg.choice_price_weight,
                              assortment_weight=cfg.choice_assortment_weight)
        units = sum(n for sold in market.sold for _, n in sold)
        self.market_daily.append((day, market.expected, market.wanted, units))
        return {seat.seat: seat.settle_day(day, sold)  # type: ignore[attr-defined]
                for seat, sold in zip(playing, market.sold, strict=True)}

    def invariants(self) -> list[str]:
        """Every seat's and the arena's invariants, and the market's: no day served more than it wanted."""
        bad = super().invariants()
        for day, _expected, wanted, sold in self.market_daily:
            if sold > wanted:
                bad.append(f"day {day}: {sold} units sold, more than the {wanted} customers wanted")
        if len(self.market_daily) != self.day:
            bad.append(f"{len(self.market_daily)} market days recorded on day {self.day}")
        return bad

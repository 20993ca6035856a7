"""A stateful test of the stand's mechanics: money and lemons against a model kept from the answers alone."""

from __future__ import annotations

import attrs
from bizsim.simcore.driver import Driver
from bizsim_lemonade import PRESETS, LemonadeWorld
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule


class Season(RuleBasedStateMachine):
    """Orders, prices and days in any order; after each step the world agrees with what its answers said."""

    @initialize(preset=st.sampled_from(list(PRESETS)), seed=st.integers(0, 1_000),
                lead=st.integers(1, 3), shelf=st.integers(1, 4))
    def start(self, preset: str, seed: int, lead: int, shelf: int) -> None:
        cfg = attrs.evolve(PRESETS[preset], horizon_days=10, lead_days=lead, shelf_life_days=shelf)
        self.world = LemonadeWorld(cfg, seed)
        self.driver = Driver(self.world)
        self.cash = cfg.initial_cash_cents
        self.on_the_way: dict[int, int] = {}  # arrival day -> lemons

    @precondition(lambda self: not self.world.done)
    @rule(lemons=st.integers(1, 150))
    def order(self, lemons: int) -> None:
        out = self.driver.send(f"order --lemons {lemons}")
        if "error" not in out:
            self.cash -= out["cost_cents"]
            self.on_the_way[out["arrives_day"]] = self.on_the_way.get(out["arrives_day"], 0) + lemons
            assert out["cash_cents"] == self.cash

    @precondition(lambda self: not self.world.done)
    @rule(cents=st.integers(1, 1_100))
    def price(self, cents: int) -> None:
        closed = self.world.day_ending  # the budget's last action ends the day: later ones are refused
        out = self.driver.send(f"price --cents {cents}")
        assert ("error" in out) == (cents > self.world.config.max_price_cents or closed)

    @precondition(lambda self: not self.world.done)
    @rule()
    def run_day(self) -> None:
        day, stock = self.world.day, self.driver.send("status")["stock_lemons"]
        report = self.driver.send("run_day")
        assert day == report["day"]
        assert report["delivered"] == self.on_the_way.pop(day, 0)
        on_hand = stock + report["delivered"]
        assert report["cups_sold"] == min(report["customers"], on_hand)
        assert report["customers"] == report["cups_sold"] + report["lost_customers"]
        assert report["stock_lemons"] == on_hand - report["cups_sold"] - report["spoiled"]
        self.cash += report["revenue_cents"] - report["supplies_cents"] - report["rent_cents"]
        assert (report["cash_cents"], report["revenue_cents"]) == (self.cash, report["cups_sold"] * report["price_cents"])

    @rule()
    def status(self) -> None:
        out = self.driver.send("status")
        assert ("error" in out) == self.world.done  # free while the season runs; refused once it is over

    @invariant()
    def agrees(self) -> None:
        if not hasattr(self, "world"):
            return
        assert self.cash == self.world.cash_cents
        assert sum(self.on_the_way.values()) == self.world.pending_lemons
        assert [] == self.world.invariants()


TestSeason = Season.TestCase
TestSeason.settings = TestSeason.settings.__class__(TestSeason.settings, max_examples=25, stateful_step_count=30)

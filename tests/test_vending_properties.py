"""Properties of the vending world under arbitrary agent input: determinism, replay, invariants, the books."""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from bizsim.models.vending import PRESETS, VendingWorld
from bizsim.simcore.replay import replay

from ._ecogym import budget_respected, play, play_checked, render_vending, vending_actions

SEEDS = st.integers(0, 10_000)
PRESET_NAMES = st.sampled_from(["small", "small", "medium", "large"])


def run_actions(preset: str, seed: int, actions: list[tuple]) -> VendingWorld:
    """A fresh world after the actions, checking refusals and invariants after every line."""
    w = VendingWorld(preset, seed)
    for action in actions:
        for line in render_vending(w, action):
            if w.done:
                return w
            play_checked(w, line)
    return w


@given(preset=PRESET_NAMES, seed=SEEDS, actions=st.lists(vending_actions(), max_size=30))
@settings(max_examples=40)
def test_same_seed_and_commands_give_the_same_trajectory(preset, seed, actions):
    """Two runs of the same actions on the same seed write byte-identical trajectories."""
    a, b = run_actions(preset, seed, actions), run_actions(preset, seed, actions)
    assert a.trajectory.to_jsonl() == b.trajectory.to_jsonl()
    assert a.state() == b.state()


@given(preset=PRESET_NAMES, seed=SEEDS, actions=st.lists(vending_actions(), max_size=30))
@settings(max_examples=40)
def test_replaying_the_command_log_reproduces_the_state(preset, seed, actions):
    """``replay(factory, command_log())`` reproduces the state and every accepted command and report."""
    w = run_actions(preset, seed, actions)
    again = replay(lambda: VendingWorld(preset, seed), w.command_log())
    assert w.state() == again.state()
    assert [r for r in w.trajectory if r[2] != "?"] == [r for r in again.trajectory if r[2] != "?"]


@given(seed=SEEDS, actions=st.lists(vending_actions(), max_size=40))
@settings(max_examples=30)
def test_budget_and_books_hold(seed, actions):
    """At most four accepted actions a day; cash = start - purchases + sales; stock = delivered - sold."""
    w = run_actions("small", seed, actions)
    assert budget_respected(w)
    entries = list(w.ledger)
    assert w.purchases_cents == -sum(e.amount_cents for e in entries if e.category == "purchase")
    assert w.sales_cents == sum(e.amount_cents for e in entries if e.category == "sales")
    assert w.money_cents == 10_000 - w.purchases_cents + w.sales_cents >= 0
    assert sum(w.stock) == w.units_delivered - w.units_sold and min(w.stock) >= 0


class Shop(RuleBasedStateMachine):
    """A shop driven by random research, orders, prices and days; the books must always balance."""

    def __init__(self) -> None:
        super().__init__()
        self.world = VendingWorld(attrs.evolve(PRESETS["small"], daily_budget=6), 7)
        self.spent = 0
        self.earned = 0

    def _names(self) -> list[str]:
        return self.world.researched_names()

    @rule(query=st.sampled_from(["water", "fruit", "oil", "shampoo", "paper", "batteries", "formula", "frozen"]))
    def research(self, query):
        play(self.world, f"products_research --query {query}")

    @precondition(lambda self: self.world.researched)
    @rule(k=st.integers(0, 30), quantity=st.integers(1, 60))
    def order(self, k, quantity):
        names = self._names()
        name = names[k % len(names)]
        out = self.world.execute_tool("order_place", {"items": [{"name": name, "quantity": quantity}]})
        if "error" not in out:
            self.spent += out["order"]["total_cost_cents"]
        else:
            assert out.get("error_type") == "insufficient_funds" or "is over" in out["error"]

    @precondition(lambda self: self.world.researched)
    @rule(k=st.integers(0, 30), price=st.floats(0.01, 15.0))
    def price(self, k, price):
        names = self._names()
        out = self.world.execute_tool("price_set", {"product_name": names[k % len(names)], "price": price})
        assert "error" not in out or "is over" in out["error"]

    @rule(days=st.integers(1, 12))
    def wait(self, days):
        for _ in range(days):
            if self.world.done:
                return
            report = play(self.world, "task_done")
            self.earned += report["events"]["sales"].get("revenue_cents", 0) if report["events"]["sales"] else 0

    @invariant()
    def books_balance(self):
        w = self.world
        assert [] == w.invariants()
        assert (self.spent, self.earned) == (w.purchases_cents, w.sales_cents)
        assert w.money_cents == 10_000 - self.spent + self.earned
        assert w.net_worth_cents() == w.money_cents + w.inventory_value_cents() + w.pending_cents


Shop.TestCase.settings = settings(max_examples=25, stateful_step_count=30)
TestShop = Shop.TestCase

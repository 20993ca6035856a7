"""Properties of the vending arena (issue 46 item 6): conservation across seats, demand bounds, refusals,
determinism and replay for random rosters, through the public test kit."""

from __future__ import annotations

import shlex
from collections.abc import Generator
from typing import Any

import attrs
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bizsim.models.vending.arena import VendingArena
from bizsim.models.vending.arena_config import ARENA_PRESETS
from bizsim.models.vending.choice import market_sales
from bizsim.models.vending.demand import NormalStream
from bizsim.simcore.registry import world_spec
from bizsim.simcore.testing import (
    assert_arena_deterministic, assert_arena_replays, assert_arena_refusal_changes_nothing,
)
from bizsim.simcore.testing import strategies as kit
from bizsim.simcore.testing._guards import state_text

from .strategies import arena_turns, hostile_values, render_arena_line

#: A month at the small location: long enough for orders to arrive, sell and be sent on.
MONTH = attrs.evolve(ARENA_PRESETS["small"], horizon_days=30)


def _factory(seed: int, seats: int):
    return lambda: VendingArena(MONTH, seed, seats=seats)


def _checked_script(turns: list[list[str]], refusals: list[str]):
    """A seat's agent: its turns' lines; after each, the arena's invariants hold, and a refusal changed nothing."""

    def agent(seat: Any) -> Generator[Any, Any, None]:
        arena = seat.arena
        for turn in turns:
            for raw in turn:
                if seat.done:
                    return
                line = render_arena_line(seat, raw)
                before = state_text(arena), [state_text(s) for s in arena.seats]
                out = seat.execute(line)
                if "error" in out:
                    assert before == (state_text(arena), [state_text(s) for s in arena.seats]), line
                    refusals.append(line)
                assert [] == arena.invariants(), (line, arena.invariants()[:3])
            if seat.done:
                return
            yield seat.advance()

    return agent


@given(seed=kit.seeds(), seats=st.integers(2, 4), data=st.data())
@settings(max_examples=25)
def test_money_and_goods_are_conserved_and_refusals_change_nothing(seed, seats, data):
    """Whatever the seats send each other, cash and stock over the seats are what orders, deliveries and sales
    made them (transfers are zero-sum), and every refused line left every seat as it was."""
    # Every seat first stocks a product and waits for it, so the random turns that follow have goods to send.
    opening = [["products_research --query water", "@order 0 20"], *[[]] * 7]
    scripts = [opening + turns for turns in data.draw(arena_turns(seats))]
    refusals: list[str] = []
    arena = _factory(seed, seats)()
    arena.run([_checked_script(turns, refusals) for turns in scripts])
    chairs = arena.seats
    assert sum(s.money_cents for s in chairs) == sum(
        s.ledger.initial_cents - s.purchases_cents + s.sales_cents for s in chairs)
    assert sum(sum(s.stock) for s in chairs) == sum(s.units_delivered - s.units_sold for s in chairs)
    assert 0 == sum(s.transferred_cents for s in chairs) == sum(s.units_transferred for s in chairs)
    moved = [d for _, n, d in arena.trajectory.of_kind("event") if n == "money"]
    assert sum(s.money_sent_cents for s in chairs) == sum(d["amount_cents"] for d in moved)


@given(seed=kit.seeds(), roster=kit.rosters("vending-arena", 2, 4))
@settings(max_examples=8)
def test_random_rosters_are_deterministic_and_replay(seed, roster):
    """Any roster of built-in agents plays the same arena twice, and its seats' logs replay it byte for byte."""
    spec = world_spec("vending-arena")
    agents = [spec.agent(name) for name in roster]
    factory = _factory(seed, len(roster))
    arena = assert_arena_deterministic(factory, agents)
    assert_arena_replays(factory, arena)
    assert [] == arena.invariants()


def _machines(draw: Any, demand: Any, n: int) -> list[tuple[dict[int, list[int]], list[int], list[int]]]:
    products = len(demand.product_group)
    machines = []
    for _ in range(n):
        order = draw(st.lists(st.integers(0, products - 1), unique=True, max_size=12))
        prices, stock = [0] * products, [0] * products
        by_group: dict[int, list[int]] = {}
        for i in order:
            prices[i] = draw(st.integers(1, 3000))
            stock[i] = draw(st.integers(0, 40))
            if demand.product_group[i] >= 0:
                by_group.setdefault(demand.product_group[i], []).append(i)
        machines.append((by_group, prices, stock))
    return machines


@given(seed=kit.seeds(), day=st.integers(0, 365), data=st.data())
@settings(max_examples=60)
def test_customers_served_never_exceed_demand_and_one_machine_is_the_vending_demand(seed, day, data):
    """No machine sells more than its stock nor the location more than its customers wanted; a machine with
    nothing in stock sells nothing; one machine sells exactly what the vending world's demand model sells."""
    demand = VendingArena(MONTH, seed % 50, seats=1).demand
    n = data.draw(st.integers(1, 4))
    machines = _machines(data.draw, demand, n)
    market = market_sales(demand, day, machines, NormalStream(np.random.default_rng(seed)), price_weight=1.0,
                          assortment_weight=0.5)
    for (by_group, prices, stock), sold in zip(machines, market.sold):
        assert all(0 < units <= stock[i] and prices[i] > 0 for i, units in sold)
        if not any(stock[i] for items in by_group.values() for i in items):
            assert [] == sold
    assert sum(u for sold in market.sold for _, u in sold) <= market.wanted
    if n == 1:
        by_group, prices, stock = machines[0]
        alone = demand.sales(day, by_group, prices, stock, NormalStream(np.random.default_rng(seed)))
        assert alone == market.sold[0]


@given(seed=kit.seeds(), line=kit.world_lines("vending-arena", ("0", "1", "2", "water", "12.5")))
@settings(max_examples=60)
def test_a_refused_line_changes_no_seat(seed, line):
    """Any line the seat to move sends that is refused leaves the arena and every seat as they were."""
    arena = VendingArena(MONTH, seed, seats=3)
    out = arena.seats[arena.to_move].execute(line, driven=True)
    if isinstance(out, dict) and "error" in out:
        fresh = VendingArena(MONTH, seed, seats=3)
        assert_arena_refusal_changes_nothing(fresh, line)


@given(seed=kit.seeds(), to=hostile_values(), text=hostile_values(), amount=hostile_values())
@settings(max_examples=80)
def test_hostile_tool_calls_between_seats_are_kept_or_refused_whole(seed, to, text, amount):
    """Any JSON an LLM sends to message_send or money_send is either taken as sent (the message recorded word for
    word, within its bounds) or refused with no seat changed; nothing raises."""
    arena = VendingArena(MONTH, seed, seats=2)
    me = arena.seats[arena.to_move]
    before = state_text(arena)
    out = me.execute_tool("message_send", {"to": to, "text": text})
    if "error" in out:
        assert before == state_text(arena)
    else:
        sent = arena.inbox[int(to)][-1]["text"]
        taken = [d["args"]["text"] for _, n, d in me.trajectory.of_kind("cmd") if n == "message_send"]
        assert (taken[-1], True) == (sent, isinstance(sent, str) and 0 < len(sent) <= MONTH.message_max_chars)
        if isinstance(text, str):
            assert text == sent  # text arrives word for word (other scalars as the kernel reads them as text)
    before = state_text(arena)
    out = me.execute_tool("money_send", {"to": to, "amount": amount})
    if "error" in out:
        assert before == state_text(arena)
    else:
        assert 0 < out["amount_cents"] <= 10_000 and [] == arena.invariants()


class ArenaMachine(RuleBasedStateMachine):
    """Seats trade, talk and pay each other turn by turn; after every step the books balance across the seats, a
    refusal has changed nothing, and the seats' logs replay to the same arena."""

    @initialize(seed=kit.seeds(), seats=st.integers(2, 4))
    def build(self, seed, seats):
        self.factory = _factory(seed, seats)
        self.arena = self.factory()

    def _seat(self):
        return self.arena.seats[self.arena.to_move]

    def _send(self, line):
        before = state_text(self.arena), [state_text(s) for s in self.arena.seats]
        out = self._seat().execute(line, driven=True)
        if isinstance(out, dict) and "error" in out:
            assert before == (state_text(self.arena), [state_text(s) for s in self.arena.seats]), line
        return out

    @precondition(lambda self: hasattr(self, "arena") and not self.arena.done)
    @rule(query=st.sampled_from(["water", "tea", "seltzer", "chips"]))
    def research(self, query):
        self._send(f"products_research --query {query}")

    @precondition(lambda self: hasattr(self, "arena") and not self.arena.done)
    @rule(pick=st.integers(0, 5), units=st.integers(1, 40))
    def order(self, pick, units):
        self._send(render_arena_line(self._seat(), f"@order {pick} {units}"))

    @precondition(lambda self: hasattr(self, "arena") and not self.arena.done)
    @rule(pick=st.integers(0, 5), price=st.sampled_from(["0.5", "1.99", "4", "30"]))
    def price(self, pick, price):
        self._send(render_arena_line(self._seat(), f"@price {pick} {price}"))

    @precondition(lambda self: hasattr(self, "arena") and not self.arena.done)
    @rule(to=st.integers(-1, 4), amount=st.sampled_from(["0.01", "3", "55.5", "1000", "0"]))
    def pay(self, to, amount):
        self._send(f"money_send --to {to} --amount {amount}")

    @precondition(lambda self: hasattr(self, "arena") and not self.arena.done)
    @rule(to=st.integers(-1, 4), pick=st.integers(0, 5), units=st.integers(1, 20))
    def ship(self, to, pick, units):
        self._send(render_arena_line(self._seat(), f"@goods {to} {pick} {units}"))

    @precondition(lambda self: hasattr(self, "arena") and not self.arena.done)
    @rule(to=st.integers(-1, 4), text=st.text(max_size=20))
    def write(self, to, text):
        self._send(f"message_send --to {to} --text {shlex.quote(text)}")

    @precondition(lambda self: hasattr(self, "arena") and not self.arena.done)
    @rule(days=st.integers(1, 4))
    def end_turns(self, days):
        for _ in range(days * len(self.arena.seats)):
            if self.arena.done:
                break
            self._send("task_done")
            self.arena.await_turn()

    @invariant()
    def books_balance(self):
        if not hasattr(self, "arena"):
            return
        assert [] == self.arena.invariants()
        chairs = self.arena.seats
        assert sum(s.money_cents for s in chairs) == sum(
            s.ledger.initial_cents - s.purchases_cents + s.sales_cents for s in chairs)
        assert sum(sum(s.stock) for s in chairs) == sum(s.units_delivered - s.units_sold for s in chairs)

    def teardown(self):
        if hasattr(self, "arena"):
            assert_arena_replays(self.factory, self.arena)


TestArenaMachine = ArenaMachine.TestCase
TestArenaMachine.settings = settings(max_examples=25, stateful_step_count=30)

"""A planner for the vending world: one product per demand group, priced by search, restocked ahead of lead time.

It knows only what the tools tell an LLM agent: search results (names,
categories, wholesale prices), order results (cost, delivery days), and the
``task_done`` reports (cash, each priced product's sales, deliveries).

- **Portfolio.** Demand belongs to a product group (a category), and a
  group's in-stock products share it, so it trades one product per category:
  the dearest one its searches found, because a group's unit sales depend on
  price relative to the group's wholesale level, so a dearer product earns
  more per unit at the same multiple. It adds categories as cash allows.
- **Prices.** Each product's price is ``wholesale x multiple``, the multiple
  on a ladder. Per product it measures the profit rate (units a day x unit
  margin, on days whose sales stock did not cap) at the current rung for
  ``probe_days`` days, tries the rung above, and climbs toward the best rung
  (a hill climb: necessities bear high multiples, non-essentials low ones).
- **Stock.** A product is reordered when stock plus open orders would not
  last the delivery lead time plus ``review_days`` at its observed sales
  rate, up to ``lead + cover_days`` days of sales.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bizsim.agents.declare import Process, agent
from bizsim.models.vending import VendingWorld
from bizsim.simcore import CommandError

from .baselines import DEFAULT_QUERIES, delivered

__all__ = ["LADDER", "planner"]

#: Price multiples of wholesale the search moves along.
LADDER: tuple[float, ...] = (1.3, 1.6, 2.0, 2.5, 3.2, 4.0, 5.0, 6.5, 8.0, 10.0)


class _Product:
    """What the planner knows of one product it trades."""

    __slots__ = (
        "days_at_rung",
        "name",
        "ordered",
        "pending",
        "priced",
        "rate",
        "rung",
        "settled",
        "stats",
        "stock",
        "wholesale",
    )

    def __init__(self, name: str, wholesale: int, rung: int) -> None:
        self.name, self.wholesale, self.rung = name, wholesale, rung
        self.stock = self.pending = self.days_at_rung = 0
        self.rate: float | None = None
        #: rung -> [units sold on uncapped days, such days]
        self.stats: dict[int, list[float]] = {}
        self.priced = self.settled = self.ordered = False

    def price_cents(self, rung: int | None = None) -> int:
        return max(1, round(self.wholesale * LADDER[self.rung if rung is None else rung]))

    def profit(self, rung: int) -> float:
        sold, days = self.stats.get(rung, (0.0, 0))
        return sold / days * (self.price_cents(rung) - self.wholesale) if days else -1.0

    def observe(self, before: int, sold: int) -> None:
        if before <= 0:
            return
        self.rate = sold if self.rate is None else 0.85 * self.rate + 0.15 * sold
        if sold < before:  # stock did not cap the day's sales: an honest sample of demand
            s = self.stats.setdefault(self.rung, [0.0, 0])
            s[0] += sold
            s[1] += 1
            self.days_at_rung += 1

    def next_rung(self, probe_days: int) -> int | None:
        """The rung to move to once the current one is measured, else ``None``."""
        if self.settled or self.days_at_rung < probe_days:
            return None
        tried = {r for r, (_, d) in self.stats.items() if d >= probe_days}
        best = max(tried, key=self.profit)
        for step in (1, -1):
            nxt = best + step
            if 0 <= nxt < len(LADDER) and nxt not in tried and nxt != self.rung:
                return nxt
        self.settled = True
        return best if best != self.rung else None


def planner(
    world: VendingWorld,
    queries: Sequence[str] = DEFAULT_QUERIES,
    start_rung: int = 2,
    probe_days: int = 5,
    review_days: int = 4,
    cover_days: int = 14,
    first_order: int = 6,
    max_products: int = 40,
    reserve_cents: int = 500,
) -> Process:
    """Trade one product per category at searched prices, restocking ahead of the lead time.

    Args:
        queries: search words, used in order.
        start_rung: the first price multiple's index in :data:`LADDER` (2: 2.0x wholesale).
        probe_days: uncapped in-stock days measured at a price before comparing it.
        review_days: days of sales beyond the lead time below which it reorders.
        cover_days: days of sales beyond the lead time a reorder brings stock up to.
        first_order: units of a product's first order.
        max_products: the most categories it trades.
        reserve_cents: cash kept back from opening a new category (restocking comes first).
    """
    budget = world.daily_budget or 4
    lead = 7  # the tool description says so; order results confirm it
    known: dict[str, tuple[str, int]] = {}  # category -> (dearest product name, wholesale cents) seen
    products: dict[str, _Product] = {}  # category -> product traded
    query_iter = iter(queries)
    queries_left = True
    money = 0  # cash is unknown until the first report: day 0 only searches

    def act(name: str, **kwargs: Any) -> dict | None:
        try:
            return world.call(name, **kwargs)
        except CommandError:
            return None

    while not world.done:
        left = budget
        # 1. restock what would run out within the lead time, scarcest first
        due = []
        for p in products.values():
            if not p.ordered:
                continue
            rate = p.rate if p.rate is not None else 1.0
            have = p.stock + p.pending
            if have <= rate * (lead + review_days):
                due.append((have / max(rate, 0.1), p, math.ceil(rate * (lead + cover_days)) - have))
        due.sort(key=lambda d: d[0])
        for _, p, qty in due:
            if left == 0:
                break
            qty = min(qty, money // p.wholesale)
            if qty <= 0:
                continue
            result = act("order_place", items=[{"name": p.name, "quantity": qty}])
            left -= 1
            if result is not None:
                lead = result["delivery_days"]
                money -= result["order"]["total_cost_cents"]
                p.pending += qty
        # 2. move prices the search has measured
        for p in products.values():
            if left == 0:
                break
            rung = p.next_rung(probe_days)
            if rung is not None and act("price_set", product_name=p.name, price=p.price_cents(rung) / 100):
                p.rung, p.days_at_rung = rung, 0
                left -= 1
        # 3. open a new category: price it, then order its first stock
        if left >= 2 and len(products) < max_products:
            fresh = [(w, c, n) for c, (n, w) in known.items() if c not in products and w * first_order <= money - reserve_cents]
            if fresh:
                w, category, name = max(fresh)
                p = _Product(name, w, start_rung)
                if act("price_set", product_name=name, price=p.price_cents() / 100):
                    p.priced = True
                    result = act("order_place", items=[{"name": name, "quantity": first_order}])
                    if result is not None:
                        money -= result["order"]["total_cost_cents"]
                        p.pending += first_order
                        p.ordered = True
                    products[category] = p
                    left -= 2
        # 4. search with what is left, while there is something to find
        while left and queries_left and len(known) < max_products:
            query = next(query_iter, None)
            if query is None:
                queries_left = False
                break
            result = act("products_research", query=query)
            left -= 1
            for item in (result or {}).get("products", []):
                cents = round(item["wholesale_price"] * 100)
                best = known.get(item["category"])
                if item["category"] not in products and (best is None or cents > best[1]):
                    known[item["category"]] = (item["name"], cents)
        report = yield world.advance()
        if "error" in report:
            return
        events = report["events"]
        details = events["sales"]["details"] if events["sales"] else {}
        for p in products.values():
            sold = details.get(p.name, 0)
            p.observe(p.stock, sold)
            p.stock -= sold
        by_name = {p.name: p for p in products.values()}
        for name, qty in delivered(report):
            product = by_name.get(name)
            if product is not None:
                product.stock += qty
                product.pending -= qty
        money = report["current_state"]["money_cents"]


def _check_planner(
    queries: Sequence[str], start_rung: int, probe_days: int, review_days: int, cover_days: int, first_order: int,
    max_products: int, reserve_cents: int,
) -> None:
    if not 0 <= start_rung < len(LADDER):
        raise ValueError(f"start_rung(={start_rung}) must be in 0..{len(LADDER) - 1}: it indexes the price ladder "
                         f"{', '.join(f'{m}x' for m in LADDER)}")
    for name, value in (("probe_days", probe_days), ("first_order", first_order), ("max_products", max_products)):
        if value < 1:
            raise ValueError(f"{name}(={value}) must be >= 1")
    for name, value in (("review_days", review_days), ("cover_days", cover_days), ("reserve_cents", reserve_cents)):
        if value < 0:
            raise ValueError(f"{name}(={value}) must be >= 0")


planner = agent(planner, check=_check_planner)

"""Baseline agents for the vending world, written as SimPy processes.

They act only through the world's tools and learn cash, sales and
deliveries from the tool results and the ``task_done`` reports, as an LLM
agent does.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterator, Sequence

from bizsim.agents.declare import Process, agent
from bizsim.models.vending import VendingWorld
from bizsim.simcore import CommandError

__all__ = ["DEFAULT_QUERIES", "markup"]

#: Everyday shop words an agent might search for (not the catalog's vocabulary verbatim).
DEFAULT_QUERIES: tuple[str, ...] = (
    "water", "soda", "juice", "coffee", "tea", "milk", "yogurt", "cheese", "eggs", "bread", "cereal", "rice", "pasta",
    "sauce", "canned", "oil", "spice", "fruit", "vegetables", "meat", "seafood", "frozen", "ice cream", "chips",
    "candy", "cookies", "beer", "baby", "diapers", "paper", "detergent", "shampoo", "toothpaste", "bandages",
    "batteries", "pet", "party",
)



def delivered(report: dict) -> Iterator[tuple[str, int]]:
    """``(product, quantity)`` of every order line a ``task_done`` report says arrived."""
    for batch in report["events"]["deliveries"]:
        for order in batch["orders"]:
            for line in order["items"]:
                yield line["name"], line["quantity"]

def markup(
    world: VendingWorld,
    markup: float = 1.3,
    queries: Sequence[str] = DEFAULT_QUERIES,
    max_products: int = 16,
    first_order: int = 8,
    cover_days: int = 21,
    drop_after: int = 28,
    min_rate: float = 0.15,
) -> Process:
    """Research products, keep a portfolio stocked, price everything at wholesale x ``markup``.

    Day 0 it researches. From then on, each day, best sellers first, it
    reorders a product whose stock and open orders no longer cover the lead
    time at its recent daily sales, up to ``lead time + cover_days`` days of
    sales (``first_order`` units for a product not yet sold), prices a product at
    ``wholesale * markup`` just before its first order, drops products that
    sell less than ``min_rate`` units a day after ``drop_after`` days in
    stock, and spends spare actions on research until it holds
    ``max_products`` products.

    Args:
        markup: retail price as a multiple of wholesale.
        queries: search words, used in order.
        max_products: the portfolio size it aims for.
        first_order: units of a product's first order.
        cover_days: days of sales each reorder covers beyond the lead time.
        drop_after: days in stock before a slow product is dropped.
        min_rate: the daily sales below which a product is slow.
    """
    budget = world.daily_budget or 4
    lead = 7  # the tool description says so; order results confirm it
    known: set[str] = set()
    portfolio: dict[str, _Item] = {}
    query_iter = iter(queries)
    queries_left = True
    money: int | None = None
    day = 0

    def research() -> None:
        nonlocal queries_left
        query = next(query_iter, None)
        if query is None:
            queries_left = False
            return
        for p in world.call("products_research", query=query)["products"]:
            name = p["name"]
            if name not in known:
                known.add(name)
                if len(portfolio) < max_products:
                    portfolio[name] = _Item(round(p["wholesale_price"] * 100))

    while not world.done:
        left = budget
        if money is not None:
            wanted = []
            target = lead + cover_days
            for name, item in portfolio.items():
                # nothing while stock and orders cover the lead time, else up to the target
                rate = item.rate
                have = item.stock + item.pending
                if rate is None:
                    qty = first_order - have
                elif have > rate * lead:
                    continue
                else:
                    qty = math.ceil(rate * target) - have
                if qty > 0:
                    wanted.append((-(rate or 0.0), name, qty))
            wanted.sort(key=_first)  # best sellers first; ties keep the portfolio's order
            for _, name, qty in wanted:
                if left == 0:
                    break
                item = portfolio[name]
                qty = min(qty, money // item.wholesale)
                if qty <= 0 or (not item.priced and left < 2):
                    continue
                try:
                    if not item.priced:
                        world.call("price_set", product_name=name, price=round(item.wholesale * markup / 100, 2))
                        item.priced = True
                        left -= 1
                    result = world.call("order_place", items=[{"name": name, "quantity": qty}])
                except CommandError:
                    continue
                left -= 1
                lead = result["delivery_days"]
                money -= result["order"]["total_cost_cents"]
                item.pending += qty
        while left and queries_left and len(portfolio) < max_products:
            research()
            left -= 1
        report = yield world.advance()
        if "error" in report:
            return
        day += 1
        events = report["events"]
        details = events["sales"]["details"] if events["sales"] else {}
        for name, item in portfolio.items():
            sold = details.get(name, 0)
            if item.stock > 0:  # stock at the start of the day's sales: the sales tell something
                # a moving average of the day's sales
                rate = item.rate
                item.rate = sold if rate is None else 0.8 * rate + 0.2 * sold
                item.days += 1
            if sold:
                item.stock -= sold
        for name, qty in delivered(report):
            held = portfolio.get(name)
            if held is not None:
                held.stock += qty
                held.pending -= qty
        money = report["current_state"]["money_cents"]
        if day % 7 == 0:
            for name in [n for n, i in portfolio.items() if i.days >= drop_after and (i.rate or 0.0) < min_rate]:
                del portfolio[name]  # stop restocking it; what is left still sells at its price


_first = operator.itemgetter(0)


def _check_markup(
    markup: float, queries: Sequence[str], max_products: int, first_order: int, cover_days: int, drop_after: int,
    min_rate: float,
) -> None:
    if markup <= 0:
        raise ValueError(f"markup(={markup}) must be > 0: a price must be positive")
    for name, value in (("max_products", max_products), ("first_order", first_order)):
        if value < 1:
            raise ValueError(f"{name}(={value}) must be >= 1")
    for name, bound in (("cover_days", cover_days), ("drop_after", drop_after), ("min_rate", min_rate)):
        if bound < 0:
            raise ValueError(f"{name}(={bound}) must be >= 0")


markup = agent(markup, check=_check_markup)


class _Item:
    """What the markup agent knows of one product it trades."""

    __slots__ = ("wholesale", "stock", "pending", "rate", "days", "priced")

    def __init__(self, wholesale: int) -> None:
        self.wholesale = wholesale
        self.stock = self.pending = self.days = 0
        self.rate: float | None = None
        self.priced = False

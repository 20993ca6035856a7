"""Baseline agents for the lemonade stand, written as SimPy processes that act only through the commands."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

from bizsim.agents import agent
from bizsim.simcore.errors import CommandError

__all__ = ["steady"]


def _check_steady(price_cents: int, cover: float, safety: int) -> str | None:
    if price_cents < 1:
        return f"price_cents(={price_cents}) must be >= 1"
    if not 0.0 < cover <= 10.0:
        return f"cover(={cover}) must lie in (0, 10]"
    if safety < 0:
        return f"safety(={safety}) must be >= 0"
    return None


@agent(check=_check_steady)
def steady(world: Any, price_cents: int = 150, cover: float = 1.0, safety: int = 5) -> Generator[Any, Any, None]:
    """Charge a fixed price and keep enough lemons for tomorrow's expected customers.

    Each morning it reads ``status``, estimates what is left after today's trade and tonight's spoilage
    (the oldest lemons sell first), counts the lemons on the way, and orders the shortfall for tomorrow
    (``cover`` x the forecast's expected customers, plus ``safety`` lemons), as much as the cash allows.

    Args:
        price_cents: the price of a cup, set on day 0 and kept.
        cover: how many of tomorrow's expected customers to stock for.
        safety: extra lemons on top.
    """
    world.call("price", cents=price_cents)
    while not world.done:
        s = world.call("status")
        if s["expected_customers_tomorrow"] is not None:
            arriving_today = sum(o["lemons"] for o in s["orders_on_the_way"] if o["arrives_day"] == s["day"])
            later = sum(o["lemons"] for o in s["orders_on_the_way"] if o["arrives_day"] > s["day"])
            sold = min(s["stock_lemons"] + arriving_today, math.ceil(s["expected_customers_today"]))
            spoiled = max(0, s["spoiling_tonight"] - sold)
            left = s["stock_lemons"] + arriving_today - sold - spoiled
            need = math.ceil(cover * s["expected_customers_tomorrow"]) + safety - left - later
            fee, each = s["order_fee_cents"], max(1, s["lemon_cost_cents"])
            lemons = min(need, (s["cash_cents"] - fee) // each, s["storage_room"])
            if lemons > 0:
                try:
                    world.call("order", lemons=lemons)
                except CommandError:  # e.g. it would arrive after the season: nothing was changed
                    pass
        report = yield world.advance()
        if "error" in report:
            return

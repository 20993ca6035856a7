"""Configuration of the lemonade stand: one frozen, validated value set (presets are instances of it)."""

from __future__ import annotations

import math
from datetime import datetime

import attrs
from bizsim.simcore.config import check_types, in_range
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.limits import show

__all__ = ["WEATHERS", "LemonadeConfig", "parse_start_date"]

#: The kinds of weather, coolest first; ``weather_odds`` and ``base_customers`` follow this order.
WEATHERS: tuple[str, ...] = ("rainy", "cloudy", "sunny", "hot")

_NONNEG = in_range(0)


def parse_start_date(text: str) -> datetime:
    """A config's ``start_date`` (YYYY-MM-DD) as midnight of that day."""
    try:
        return datetime.fromisoformat(text).replace(hour=0, minute=0, second=0, microsecond=0)
    except (TypeError, ValueError):
        raise ConfigError(f"start_date(={text!r}) must be a date written YYYY-MM-DD") from None


def _odds(_inst: object, attribute: attrs.Attribute, value: tuple[float, ...]) -> None:
    # A number, or text, where the tuple belongs is refused here too (len() of it was a TypeError).
    if (not isinstance(value, tuple) or len(value) != len(WEATHERS)
            or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 for v in value)
            or not math.isclose(sum(value), 1.0, abs_tol=1e-9)):
        raise ConfigError(f"{attribute.name}(={show(value)}) must be {len(WEATHERS)} numbers >= 0 summing to 1, "
                          f"one per weather ({', '.join(WEATHERS)})")


def _counts(_inst: object, attribute: attrs.Attribute, value: tuple[int, ...]) -> None:
    if not isinstance(value, tuple) or len(value) != len(WEATHERS) or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in value):
        raise ConfigError(f"{attribute.name}(={show(value)}) must be {len(WEATHERS)} whole numbers >= 0, "
                          f"one per weather ({', '.join(WEATHERS)})")


def _as_tuple(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


@attrs.frozen(cache_hash=True)
class LemonadeConfig:
    """Every value of a lemonade season. Money is in integer cents.

    A day: the owner acts at midnight (orders lemons, sets the price); deliveries arrive at 07:00;
    customers come until the stand closes at 18:00; lemons past their shelf life spoil at 20:00;
    at midnight the rent is paid and the day's report is written.
    """

    # the season
    start_date: str = "2025-07-01"
    horizon_days: int = attrs.field(default=31, validator=in_range(1, 3660))
    #: Counted actions (``order``, ``price``) a day; ``status`` and ``help`` are free.
    daily_budget: int = attrs.field(default=3, validator=in_range(1, 100))
    # money
    initial_cash_cents: int = attrs.field(default=5_000, validator=_NONNEG)
    daily_rent_cents: int = attrs.field(default=300, validator=_NONNEG)
    supplies_cents_per_cup: int = attrs.field(default=10, validator=_NONNEG)
    # lemons: one lemon makes one cup
    initial_lemons: int = attrs.field(default=40, validator=_NONNEG)
    lemon_cost_cents: int = attrs.field(default=25, validator=_NONNEG)
    order_fee_cents: int = attrs.field(default=200, validator=_NONNEG)
    lead_days: int = attrs.field(default=1, validator=in_range(1, 30))
    shelf_life_days: int = attrs.field(default=5, validator=in_range(1, 60))
    storage_lemons: int = attrs.field(default=300, validator=in_range(1, 1_000_000))
    # the price
    initial_price_cents: int = attrs.field(default=100, validator=in_range(1))
    max_price_cents: int = attrs.field(default=1_000, validator=in_range(1, 100_000))
    # demand: base customers by weather at the reference price, scaled by (reference / price) ** elasticity
    weather_odds: tuple[float, ...] = attrs.field(default=(0.15, 0.30, 0.40, 0.15), converter=_as_tuple,
                                                  validator=_odds)
    base_customers: tuple[int, ...] = attrs.field(default=(15, 35, 60, 90), converter=_as_tuple, validator=_counts)
    reference_price_cents: int = attrs.field(default=100, validator=in_range(1))
    price_elasticity: float = attrs.field(default=1.3, validator=in_range(0.0, 10.0))
    #: Sigma of the day's log-normal demand factor (0: expected customers exactly).
    customer_noise: float = attrs.field(default=0.2, validator=in_range(0.0, 2.0))
    max_customers: int = attrs.field(default=1_000, validator=_NONNEG)
    #: Chance that tomorrow's forecast names the weather that comes.
    forecast_accuracy: float = attrs.field(default=0.8, validator=in_range(0.0, 1.0))

    def __attrs_post_init__(self) -> None:
        check_types(self)  # a float where a count belongs (from TOML) is refused, not truncated
        parse_start_date(self.start_date)
        if self.initial_price_cents > self.max_price_cents:
            raise ConfigError(f"initial_price_cents(={self.initial_price_cents}) must be <= "
                              f"max_price_cents(={self.max_price_cents})")
        if self.initial_lemons > self.storage_lemons:
            raise ConfigError(f"initial_lemons(={self.initial_lemons}) must fit the storage "
                              f"(storage_lemons={self.storage_lemons})")

"""Configuration of the vending world: one frozen, validated value set."""

from __future__ import annotations

from typing import Literal

import attrs

from bizsim.simcore.config import check_config, in_range
from bizsim.simcore.errors import ConfigError

from .._ecogym import parse_start_date

__all__ = ["VendingConfig"]


@attrs.frozen(cache_hash=True)
class VendingConfig:
    """Every value of a vending episode. Presets are instances of this class.

    The catalog is generated from the episode seed (``catalog_seed`` ``None``)
    or from a fixed ``catalog_seed`` (one world for every episode seed, as in
    the reference). With both ``products_path`` and ``demand_path`` set, the
    catalog is read from files in the reference's format instead.
    """

    # episode
    start_date: str = "2025-01-01"
    horizon_days: int = attrs.field(default=366, validator=in_range(1, 100_000))
    daily_budget: int = attrs.field(default=4, validator=in_range(1, 100))
    initial_money_cents: int = attrs.field(default=10_000, validator=in_range(0))
    # catalog
    catalog_size: Literal["small", "medium", "large"] = "large"
    catalog_seed: int | None = attrs.field(default=None, validator=in_range(0))
    products_path: str | None = None
    demand_path: str | None = None
    # supplier
    delivery_days: int = attrs.field(default=7, validator=in_range(1, 365))
    search_results: int = attrs.field(default=3, validator=in_range(1, 100))
    max_price_cents: int = attrs.field(default=100_000_000, validator=in_range(1))
    # demand
    noise: bool = True
    noise_std: float = attrs.field(default=0.20, validator=in_range(0.0, 10.0))
    # ending: with no money left, this many days without a sale end the episode
    stagnation_days: int = attrs.field(default=365, validator=in_range(1))
    # agent protocol (recorded with every run; read by the LLM harness): the reference's step cap
    max_steps: int | None = attrs.field(default=2000, validator=in_range(1))
    #: The reference harness's counting: every executed tool call but task_done spends one of the day's actions
    #: (refused ones too), and the step cap counts the task_done the harness issues itself.
    reference_harness: bool = False
    # the reference code's rules and outputs, for preset ``reference`` (bizsim's own are kept elsewhere)
    #: Cash is also kept as the reference's float dollars, and an order is refused when that float is below the
    #: float cost: after float drift an order costing exactly the cash left can be refused (shortfall $0.00).
    float_cash: bool = False
    #: ``price_set`` takes any product name, researched or not (a product priced before research sells at that
    #: price once stocked); otherwise only researched products can be priced.
    price_unresearched: bool = False
    #: Results as the reference writes them: a delivery day's summary says "1 orders received" however many
    #: arrived; an order of any positive size reaches the cash check (no 1,000,000-unit limit); ``true`` is a
    #: quantity or price of 1; refusals show the offending values raw.
    reference_outputs: bool = False

    def __attrs_post_init__(self) -> None:
        check_config(self)  # types and finiteness of every field; ranges are the fields' validators
        parse_start_date(self.start_date)
        if self.catalog_size not in ("small", "medium", "large"):
            raise ConfigError(f"catalog_size(={self.catalog_size!r}) must be 'small', 'medium' or 'large'")
        if (self.products_path is None) != (self.demand_path is None):
            raise ConfigError(
                "products_path and demand_path go together: give both files of the reference's format, or neither"
            )

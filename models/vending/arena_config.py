"""Configuration and presets of the vending arena: the vending world's values plus the arena's own."""

from __future__ import annotations

import attrs

from bizsim.simcore.config import in_range
from bizsim.simcore.errors import ConfigError
from bizsim.simcore.presets import PresetTable

from .config import VendingConfig

__all__ = ["ARENA_PRESETS", "VendingArenaConfig"]


@attrs.frozen(cache_hash=True)
class VendingArenaConfig(VendingConfig):
    """Every value of a vending arena: each machine runs by the vending values; these add the shared market's.

    The choice between machines (see :mod:`bizsim.models.vending.choice`): a machine's utility for a group is
    ``-choice_price_weight * beta * (its mean price / the group's reference price)
    + choice_assortment_weight * ln(its in-stock products of the group)``.
    """

    #: How strongly customers pick the cheaper machine, as a multiple of the group's own price sensitivity (beta).
    choice_price_weight: float = attrs.field(default=1.0, validator=in_range(0.0, 100.0))
    #: How strongly customers pick the machine with more products of the group in stock (per log product).
    choice_assortment_weight: float = attrs.field(default=0.5, validator=in_range(0.0, 100.0))
    #: The longest message a seat may send, in characters.
    message_max_chars: int = attrs.field(default=500, validator=in_range(1, 4000))
    #: Messages a seat may send in one day.
    messages_per_day: int = attrs.field(default=5, validator=in_range(0, 100))
    #: Days between two competition reports (each seat's sales and shelf, public to every seat).
    report_every_days: int = attrs.field(default=7, validator=in_range(1, 100_000))

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        quirks = [name for name in ("float_cash", "price_unresearched", "reference_outputs", "reference_harness")
                  if getattr(self, name)]
        if quirks:
            raise ConfigError(f"{', '.join(quirks)} must be false in a vending arena: the reference's quirks belong "
                              "to the single-agent preset 'reference'; drop them from the arena's config")


def _build() -> dict[str, VendingArenaConfig]:
    large = VendingArenaConfig(catalog_size="large")
    return {
        "default": large,
        "small": attrs.evolve(large, catalog_size="small"),
        "medium": attrs.evolve(large, catalog_size="medium"),
        "large": large,
    }


ARENA_PRESETS: PresetTable[VendingArenaConfig] = PresetTable("vending-arena", VendingArenaConfig, _build(),
                                                             path_keys=("products_path", "demand_path"))

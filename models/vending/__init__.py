"""The vending world (EcoGym "Vending"): research, order, price and sell for a year.

Names are imported on first use: reading the registry imports this package, not its world."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bizsim.simcore.lazy import lazy_exports

if TYPE_CHECKING:
    from .catalog import Catalog, DemandGroup, Product, ProductSearch, Relation, load_reference_catalog, write_reference_catalog
    from .config import VendingConfig
    from .demand import DemandModel
    from .generate import generate_catalog
    from .presets import PRESETS, config_from_toml, config_to_toml, preset, resolve_config
    from .prompt import ROLE, SYSTEM_PROMPT
    from .world import Order, VendingWorld

__all__ = [
    "Catalog", "DemandGroup", "DemandModel", "Order", "PRESETS", "Product", "ProductSearch", "ROLE", "Relation",
    "SYSTEM_PROMPT", "VendingConfig", "VendingWorld", "config_from_toml", "config_to_toml", "generate_catalog",
    "load_reference_catalog", "preset", "resolve_config", "write_reference_catalog",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Catalog": ".catalog", "DemandGroup": ".catalog", "Product": ".catalog", "ProductSearch": ".catalog",
    "Relation": ".catalog", "load_reference_catalog": ".catalog", "write_reference_catalog": ".catalog",
    "VendingConfig": ".config",
    "DemandModel": ".demand",
    "generate_catalog": ".generate",
    "PRESETS": ".presets", "config_from_toml": ".presets", "config_to_toml": ".presets", "preset": ".presets",
    "resolve_config": ".presets",
    "ROLE": ".prompt", "SYSTEM_PROMPT": ".prompt",
    "Order": ".world", "VendingWorld": ".world",
})

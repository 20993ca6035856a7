"""The vending world (EcoGym "Vending"): research, order, price and sell for a year."""

from .catalog import (
    Catalog,
    DemandGroup,
    Product,
    ProductSearch,
    Relation,
    load_reference_catalog,
    write_reference_catalog,
)
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

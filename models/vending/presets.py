"""Named presets of the vending world, each a complete value set.

- ``default`` = ``large``: a 37-group catalog (about 600 products, 30
  relations) generated from the episode seed; the paper's main setting.
- ``small``: 8 groups (about 130 products), no relations.
- ``medium``: 16 groups (about 260 products), 5 relations.
- ``reference``: the ``large`` setting with the catalog fixed (catalog seed
  2025) whatever the episode seed, like the reference's single shipped
  world: episode seeds then vary only the demand noise; LLM agents get the
  reference harness's counting (``reference_harness``), and the reference
  code's float cash check, pricing and result details (``float_cash``,
  ``price_unresearched``, ``reference_outputs``). To run on the
  reference's own files, extend it in TOML with ``products_path`` and
  ``demand_path``.
"""

from __future__ import annotations


import attrs

from bizsim.simcore.presets import PresetTable

from .config import VendingConfig

__all__ = ["PRESETS", "preset", "resolve_config", "config_to_toml", "config_from_toml"]


def _build() -> dict[str, VendingConfig]:
    large = VendingConfig(catalog_size="large")
    return {
        "default": large,
        "small": attrs.evolve(large, catalog_size="small"),
        "medium": attrs.evolve(large, catalog_size="medium"),
        "large": large,
        "reference": attrs.evolve(large, catalog_seed=2025, reference_harness=True, float_cash=True,
                                  price_unresearched=True, reference_outputs=True),
    }


PRESETS: PresetTable[VendingConfig] = PresetTable("vending", VendingConfig, _build(), path_keys=("products_path", "demand_path"))

preset = PRESETS.preset
config_to_toml = PRESETS.to_toml
config_from_toml = PRESETS.from_toml
resolve_config = PRESETS.resolve

"""Named presets of the vending world, each a complete value set.

- ``default`` = ``large``: a 37-group catalog (about 600 products, 30
  relations) generated from the episode seed; the paper's main setting.
- ``small``: 8 groups (about 130 products), no relations.
- ``medium``: 16 groups (about 260 products), 5 relations.
- ``reference``: the ``large`` setting with the catalog fixed (catalog seed
  2025) whatever the episode seed, like the reference's single shipped
  world: episode seeds then vary only the demand noise. To run on the
  reference's own files, extend it in TOML with ``products_path`` and
  ``demand_path``.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import attrs

from bizsim.simcore.config import config_from_dict, config_to_dict, deep_merge, dump_toml, load_toml
from bizsim.simcore.errors import ConfigError

from .config import VendingConfig

__all__ = ["PRESETS", "preset", "resolve_config", "config_to_toml", "config_from_toml"]


def _build() -> dict[str, VendingConfig]:
    large = VendingConfig(catalog_size="large")
    return {
        "default": large,
        "small": attrs.evolve(large, catalog_size="small"),
        "medium": attrs.evolve(large, catalog_size="medium"),
        "large": large,
        "reference": attrs.evolve(large, catalog_seed=2025),
    }


PRESETS: MappingProxyType[str, VendingConfig] = MappingProxyType(_build())


def preset(name: str) -> VendingConfig:
    """The named preset; an unknown name lists the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown vending preset {name!r}; choose one of {', '.join(PRESETS)}") from None


def config_to_toml(config: VendingConfig) -> str:
    """A config as self-contained TOML."""
    return dump_toml(config_to_dict(config))


def config_from_toml(path: str | Path) -> VendingConfig:
    """Load a TOML file; a top-level ``extends = "preset"`` lays the file over that preset.

    Relative ``products_path`` / ``demand_path`` are taken from the TOML file's folder.
    """
    p = Path(path)
    data = load_toml(p)
    base = data.pop("extends", None)
    for key in ("products_path", "demand_path"):
        if isinstance(data.get(key), str) and not Path(data[key]).is_absolute():
            data[key] = str(p.parent / data[key])
    if base is not None:
        data = deep_merge(config_to_dict(preset(base)), data)
    return config_from_dict(VendingConfig, data)


def resolve_config(config: VendingConfig | str | Path) -> VendingConfig:
    """A config from a preset name, a ``.toml`` path, or a config itself."""
    if isinstance(config, VendingConfig):
        return config
    text = str(config)
    if text.endswith(".toml") or "/" in text:
        return config_from_toml(text)
    return preset(text)

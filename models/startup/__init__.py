"""The startup world (YC-Bench): run an AI startup for a simulated year.

Names are imported on first use: reading the registry imports this package, not its world."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bizsim.simcore.lazy import lazy_exports

if TYPE_CHECKING:
    from .config import Dist, Dists, SalaryTier, StartupConfig
    from .presets import PRESETS, config_from_toml, config_to_toml, preset, resolve_config
    from .world import StartupWorld

__all__ = [
    "Dist", "Dists", "PRESETS", "SalaryTier", "StartupConfig", "StartupWorld", "config_from_toml", "config_to_toml",
    "preset", "resolve_config",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Dist": ".config", "Dists": ".config", "SalaryTier": ".config", "StartupConfig": ".config",
    "PRESETS": ".presets", "config_from_toml": ".presets", "config_to_toml": ".presets", "preset": ".presets",
    "resolve_config": ".presets",
    "StartupWorld": ".world",
})

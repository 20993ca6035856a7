"""The startup world (YC-Bench): run an AI startup for a simulated year."""

from .config import Dist, Dists, SalaryTier, StartupConfig
from .presets import PRESETS, config_from_toml, config_to_toml, preset, resolve_config
from .world import StartupWorld

__all__ = [
    "Dist", "Dists", "PRESETS", "SalaryTier", "StartupConfig", "StartupWorld", "config_from_toml", "config_to_toml",
    "preset", "resolve_config",
]

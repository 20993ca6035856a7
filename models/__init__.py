"""One package per world, registered here by versioned id with a lazy import."""

from __future__ import annotations

import importlib
from typing import Any

from bizsim.simcore.errors import ConfigError

__all__ = ["WORLDS", "world_class", "make_world", "world_presets"]

#: name -> (import path of the world class, benchmark version)
WORLDS: dict[str, tuple[str, int]] = {
    "startup": ("bizsim.models.startup:StartupWorld", 1),
    "operation": ("bizsim.models.operation:OperationWorld", 1),
    "vending": ("bizsim.models.vending:VendingWorld", 1),
    "freelance": ("bizsim.models.freelance:FreelanceWorld", 1),
}


def world_class(name: str) -> type:
    """The world class registered under ``name`` (``startup`` or ``startup-v1``)."""
    base, _, version = name.partition("-v")
    if base not in WORLDS:
        raise ConfigError(f"unknown world {name!r}; choose one of {', '.join(WORLDS)}")
    path, current = WORLDS[base]
    if version and int(version) != current:
        raise ConfigError(f"world {base!r} is at version {current}; {name!r} is not available")
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def world_presets(name: str) -> list[str]:
    """The preset names a world offers."""
    module = importlib.import_module(world_class(name).__module__.rsplit(".", 1)[0])
    return list(module.PRESETS)


def make_world(name: str, preset: Any = "default", seed: int = 1, **kwargs: Any) -> Any:
    """Build a world by name, preset (or config) and seed."""
    return world_class(name)(preset, seed, **kwargs)

"""One package per world; each declares itself in its ``spec.py`` and registers through the ``bizsim.worlds``
entry points (see :mod:`bizsim.simcore.registry`). These helpers read that registry."""

from __future__ import annotations

from typing import Any

from bizsim.simcore.registry import registered, world_spec

__all__ = ["make_world", "world_class", "world_names", "world_presets", "world_spec"]


def world_names() -> list[str]:
    """The registered worlds' names (built-in and installed)."""
    return list(registered())


def world_class(name: str) -> type:
    """The world class registered under ``name`` (``startup`` or ``startup-v1``)."""
    return world_spec(name).world_class()


def world_presets(name: str) -> list[str]:
    """The preset names a world offers."""
    return world_spec(name).preset_names()


def make_world(name: str, preset: Any = "default", seed: int = 1, **kwargs: Any) -> Any:
    """Build a world by name, preset (or config) and seed."""
    return world_spec(name).make(preset, seed, **kwargs)

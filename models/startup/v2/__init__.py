"""startup-v2: the startup world with the mechanics YC-Bench names as future work (hiring and firing first).

Names are imported on first use: reading the registry imports this package, not its world."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bizsim.simcore.lazy import lazy_exports

if TYPE_CHECKING:
    from .config import Hiring, StartupV2Config
    from .presets import PRESETS
    from .world import StartupV2World

__all__ = ["Hiring", "PRESETS", "StartupV2Config", "StartupV2World"]

__getattr__, __dir__ = lazy_exports(__name__, {
    "Hiring": ".config", "StartupV2Config": ".config", "PRESETS": ".presets", "StartupV2World": ".world",
})

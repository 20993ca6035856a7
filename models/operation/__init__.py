"""The operation world (EcoGym "Operation"): grow a content platform's daily active users.

Names are imported on first use: reading the registry imports this package, not its world."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bizsim.simcore.lazy import lazy_exports

if TYPE_CHECKING:
    from .config import ACTIONS, OperationConfig
    from .presets import PRESETS, config_from_toml, config_to_toml, preset, resolve_config
    from .prompt import ROLE, SYSTEM_PROMPT
    from .world import OperationWorld

__all__ = [
    "ACTIONS", "OperationConfig", "OperationWorld", "PRESETS", "ROLE", "SYSTEM_PROMPT", "config_from_toml",
    "config_to_toml", "preset", "resolve_config",
]

__getattr__, __dir__ = lazy_exports(__name__, {
    "ACTIONS": ".config", "OperationConfig": ".config",
    "PRESETS": ".presets", "config_from_toml": ".presets", "config_to_toml": ".presets", "preset": ".presets",
    "resolve_config": ".presets",
    "ROLE": ".prompt", "SYSTEM_PROMPT": ".prompt",
    "OperationWorld": ".world",
})

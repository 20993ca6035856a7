"""The operation world (EcoGym "Operation"): grow a content platform's daily active users."""

from .config import ACTIONS, OperationConfig
from .presets import PRESETS, config_from_toml, config_to_toml, preset, resolve_config
from .prompt import ROLE, SYSTEM_PROMPT
from .world import OperationWorld

__all__ = [
    "ACTIONS", "OperationConfig", "OperationWorld", "PRESETS", "ROLE", "SYSTEM_PROMPT", "config_from_toml",
    "config_to_toml", "preset", "resolve_config",
]

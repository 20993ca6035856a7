"""The kernel every bizsim world shares; it knows no world.

Names are imported on first use, so importing one kernel module (``bizsim.simcore.errors``) loads neither
SimPy nor NumPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .calendar import Calendar
    from .commands import Arg, CommandSet, CommandSpec, Param
    from .env import SimEnvironment
    from .errors import BizSimError, CommandError, ConfigError, NotInProcessError, ReplayError
    from .ledger import Entry, Ledger
    from .streams import RandomStreams, stable_hash
    from .submetrics import SubMetric
    from .trajectory import Trajectory, to_json
    from .world import Agent, Status, World

__all__ = [
    "Agent", "Arg", "BizSimError", "Calendar", "CommandError", "CommandSet", "CommandSpec", "ConfigError", "Entry",
    "Ledger", "NotInProcessError", "Param", "RandomStreams", "ReplayError", "SimEnvironment", "Status", "SubMetric",
    "Trajectory", "World", "stable_hash", "to_json",
]

_WHERE = {
    "Calendar": "calendar", "Arg": "commands", "CommandSet": "commands", "CommandSpec": "commands",
    "Param": "commands", "SimEnvironment": "env", "BizSimError": "errors", "CommandError": "errors",
    "ConfigError": "errors", "NotInProcessError": "errors", "ReplayError": "errors", "Entry": "ledger", "Ledger": "ledger",
    "RandomStreams": "streams", "stable_hash": "streams", "SubMetric": "submetrics", "Trajectory": "trajectory",
    "to_json": "trajectory",
    "Agent": "world", "Status": "world", "World": "world",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'bizsim.simcore' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"bizsim.simcore.{module}"), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

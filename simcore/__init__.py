"""The kernel every bizsim world shares; it knows no world."""

from .calendar import Calendar
from .commands import Arg, CommandSet, CommandSpec, Param
from .env import SimEnvironment
from .errors import BizSimError, CommandError, ConfigError, ReplayError
from .ledger import Entry, Ledger
from .streams import RandomStreams, stable_hash
from .trajectory import Trajectory, to_json
from .world import Agent, Status, World

__all__ = [
    "Agent", "Arg", "BizSimError", "Calendar", "CommandError", "CommandSet", "CommandSpec", "ConfigError", "Entry",
    "Ledger", "Param", "RandomStreams", "ReplayError", "SimEnvironment", "Status", "Trajectory", "World",
    "stable_hash", "to_json",
]

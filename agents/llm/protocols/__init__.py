"""Benchmark protocols, chosen per world: YC-Bench for ``startup``, EcoGym for the day-based worlds."""

from __future__ import annotations

from .base import PROTOCOLS, WORLD_PROTOCOLS, HarnessProtocol, Request, make_protocol, register_protocol
from .ecogym import SHARED_RULES, EcoGymProtocol
from .yc_bench import RUN_COMMAND_TOOL, YCBenchProtocol

__all__ = [
    "PROTOCOLS",
    "RUN_COMMAND_TOOL",
    "SHARED_RULES",
    "WORLD_PROTOCOLS",
    "EcoGymProtocol",
    "HarnessProtocol",
    "Request",
    "YCBenchProtocol",
    "make_protocol",
    "register_protocol",
]

register_protocol("yc-bench", YCBenchProtocol, worlds=("startup",))
# The EcoGym worlds register here as they land (vending, freelance, operation).
register_protocol("ecogym", EcoGymProtocol, worlds=("vending", "freelance", "operation"))

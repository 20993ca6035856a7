"""Benchmark protocols; each world's registration names the one that plays it (``yc-bench``, ``ecogym``)."""

from __future__ import annotations

from .base import PROTOCOLS, HarnessProtocol, Request, make_protocol, register_protocol
from .ecogym import SHARED_RULES, EcoGymProtocol
from .yc_bench import RUN_COMMAND_TOOL, YCBenchProtocol

__all__ = [
    "PROTOCOLS",
    "RUN_COMMAND_TOOL",
    "SHARED_RULES",
    "EcoGymProtocol",
    "HarnessProtocol",
    "Request",
    "YCBenchProtocol",
    "make_protocol",
    "register_protocol",
]

register_protocol("yc-bench", YCBenchProtocol)
register_protocol("ecogym", EcoGymProtocol)

"""Agents for the sweep tests, importable by worker processes as ``tests._sweep_agents:NAME``."""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

from bizsim.agents import greedy


def explode(world: Any, after: int = 2) -> Generator:
    """Play greedy for ``after`` turns, then raise."""
    turns = greedy(world)
    report = None
    for _ in range(after):
        report = yield turns.send(report)
    raise RuntimeError(f"agent gave up after {after} turns on seed {world.seed}")


def die(world: Any) -> Generator:
    """Kill the worker process outright (a crash no ``except`` can catch)."""
    os._exit(3)
    yield world.advance()

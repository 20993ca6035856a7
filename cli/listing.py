"""``bizsim list``: the registered worlds, their presets and agents."""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["add_parser", "run_list"]


def add_parser(sub: Any) -> None:
    """Add ``bizsim list`` to the subcommands."""
    sub.add_parser("list", help="list worlds, presets and agents").set_defaults(handler=run_list)


def run_list(args: argparse.Namespace) -> int:
    """Run ``bizsim list``."""
    return _list()


def _list() -> int:
    from bizsim.simcore.registry import arena_names, broken_worlds, registered, world_spec

    for name, spec in registered().items():
        print(f"{name} ({spec.benchmark_id}){'  ' + spec.summary if spec.summary else ''}")
        print(f"  presets: {', '.join(spec.preset_names())}")
        print(f"  agents:  {', '.join(spec.agents)}")
    arenas = arena_names()
    if arenas:
        print("\narenas (several agents in one market: bizsim run ARENA --seat AGENT --seat AGENT ...):")
    for name in arenas:
        spec = world_spec(name)
        low, high = spec.seats or (0, 0)
        print(f"{name} ({spec.benchmark_id}){'  ' + spec.summary if spec.summary else ''}")
        print(f"  seats:   {low} to {high}, each playing {spec.base}")
        print(f"  presets: {', '.join(spec.preset_names())}")
        print(f"  agents:  {', '.join(spec.agents)}")
    for name, why in broken_worlds().items():
        print(f"{name}: cannot be loaded ({why})", file=sys.stderr)
    return 0

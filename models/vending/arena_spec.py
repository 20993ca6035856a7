"""The vending arena's registration: seats, the base world, agents (the vending world's), as data."""

from bizsim.simcore.registry import WorldSpec

from .spec import WORLD as VENDING

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="vending-arena",
    version=1,
    summary="Vending-Bench Arena's idea: 2-8 vending machines at one location, sharing its customers",
    factory="bizsim.models.vending.arena:VendingArena",
    presets="bizsim.models.vending.arena_config:ARENA_PRESETS",
    agents=VENDING.agents,
    figures=VENDING.figures,
    default_agent=VENDING.default_agent,
    protocol=VENDING.protocol,
    seats=(2, 8),
    base="vending",
)

"""startup-arena's registration: seats, the base world (startup), agents (the startup world's), as data."""

from bizsim.simcore.registry import WorldSpec

from ..spec import WORLD as STARTUP

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="startup-arena",
    version=1,
    summary="YC-Bench with rivals: 2-4 companies in one market (a task taken is gone for all), messages and payments",
    factory="bizsim.models.startup.arena.world:StartupArena",
    presets=STARTUP.presets,
    agents=STARTUP.agents,
    figures=STARTUP.figures,
    default_agent=STARTUP.default_agent,
    protocol=STARTUP.protocol,
    seats=(2, 4),
    base="startup",
)

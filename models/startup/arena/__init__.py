"""startup-arena: two to four companies in one YC-Bench market (tasks taken are gone for all; trust, prestige and
money are each company's own; messages and payments between them)."""

from __future__ import annotations

from .seat import StartupSeat
from .world import MAX_SEATS, StartupArena

__all__ = ["MAX_SEATS", "StartupArena", "StartupSeat"]

"""Agents for the vending world (EcoGym "Vending"): a markup baseline and a planner."""

from .baselines import markup
from .planner import planner

__all__ = ["markup", "planner"]

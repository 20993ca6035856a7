"""Agents for the freelance world (EcoGym "Freelance"): cautious and oracle baselines and a planner."""

from .baselines import cautious, oracle
from .planner import planner

__all__ = ["cautious", "oracle", "planner"]

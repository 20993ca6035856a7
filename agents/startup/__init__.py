"""Agents for the startup world (YC-Bench): the papers' greedy floors, a random agent and a planner."""

from .baselines import greedy, greedy_reference, random_agent
from .planner import planner

__all__ = ["greedy", "greedy_reference", "planner", "random_agent"]

"""Agents for the operation world (EcoGym "Operation"): fixed-action, round-robin and threshold baselines, a planner."""

from .baselines import (
    always_acquisition_boost,
    always_creator_incentive,
    always_engagement_tune,
    always_moderation_tighten,
    round_robin,
    threshold,
)
from .planner import planner

__all__ = [
    "always_acquisition_boost", "always_creator_incentive", "always_engagement_tune", "always_moderation_tighten",
    "planner", "round_robin", "threshold",
]

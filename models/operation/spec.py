"""The operation world's registration: what the rest of bizsim needs to know of it, as data."""

from bizsim.simcore.registry import WorldSpec
from bizsim.simcore.submetrics import SubMetric

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="operation",
    version=1,
    summary='EcoGym "Operation": run a content platform, one intervention a day (DAU, quality, creators)',
    factory="bizsim.models.operation.world:OperationWorld",
    presets="bizsim.models.operation.presets:PRESETS",
    agents={
        "always-acquisition_boost": "bizsim.agents.operation:always_acquisition_boost",
        "always-engagement_tune": "bizsim.agents.operation:always_engagement_tune",
        "always-creator_incentive": "bizsim.agents.operation:always_creator_incentive",
        "always-moderation_tighten": "bizsim.agents.operation:always_moderation_tighten",
        "round-robin": "bizsim.agents.operation:round_robin",
        "threshold": "bizsim.agents.operation:threshold",
        "planner": "bizsim.agents.operation:planner",
        "llm": "bizsim.agents.llm:llm_agent",
    },
    figures=("mean_dau",),
    default_agent="threshold",
    protocol="ecogym",
    analysis="bizsim.analysis.worlds.ecogym:HOOKS",
    discrete_actions="bizsim.models.operation.config:ACTIONS",
    # The metric is the mean DAU over the days so far: late in a year a day's gain moves it by 1/days of itself.
    sub_metrics=(
        SubMetric("dau", unit="daily active users today", reads="final_dau", weight=1,
                  why="Today's users show a gain at full size the day it happens, where the mean shows 1/days of "
                      "it: one user today counts as one user of the metric."),
        SubMetric("content_quality", unit="content quality (0 to 1)", reads="final_content_quality", weight=60,
                  why="New users a day grow by 60 per unit of quality (5 + 60Q + 60A, specs/ecogym.md, Operation): "
                      "the weight is one day of that growth."),
        SubMetric("creator_activity", unit="creator activity (0 to 1)", reads="final_creator_activity", weight=60,
                  why="New users a day grow by 60 per unit of creator activity (5 + 60Q + 60A): one day of it."),
    ),
)

"""The operation world's registration: what the rest of bizsim needs to know of it, as data."""

from bizsim.simcore.registry import WorldSpec

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
)

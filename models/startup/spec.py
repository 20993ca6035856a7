"""The startup world's registration: what the rest of bizsim needs to know of it, as data."""

from bizsim.simcore.registry import WorldSpec

from .submetrics import SUB_METRICS

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="startup",
    version=1,
    summary="YC-Bench: run an AI startup for a simulated year (tasks, employees, payroll, client trust)",
    factory="bizsim.models.startup.world:StartupWorld",
    presets="bizsim.models.startup.presets:PRESETS",
    agents={
        "greedy": "bizsim.agents.startup:greedy",
        "greedy-reference": "bizsim.agents.startup:greedy_reference",
        "random": "bizsim.agents.startup:random_agent",
        "llm": "bizsim.agents.llm:llm_agent",
        "planner": "bizsim.agents.startup:planner",
    },
    figures=("final_funds_cents", "leaderboard_funds_cents", "income_cents"),
    default_agent="greedy",
    protocol="yc-bench",
    analysis="bizsim.analysis.worlds.startup:HOOKS",
    sub_metrics=SUB_METRICS,
)

"""startup-v2's registration, beside startup-v1 (which keeps the name ``startup``)."""

from bizsim.simcore.registry import WorldSpec

from ..submetrics import SUB_METRICS

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="startup-v2",
    version=2,
    summary="YC-Bench's next version: startup-v1 plus hiring and firing (candidates, notice, onboarding, severance)",
    factory="bizsim.models.startup.v2.world:StartupV2World",
    presets="bizsim.models.startup.v2.presets:PRESETS",
    agents={
        "greedy": "bizsim.agents.startup.v2:greedy",
        "random": "bizsim.agents.startup:random_agent",
        "llm": "bizsim.agents.llm:llm_agent",
        "planner": "bizsim.agents.startup.v2:planner",
    },
    figures=("final_funds_cents", "leaderboard_funds_cents", "income_cents"),
    default_agent="greedy",
    protocol="yc-bench",
    analysis="bizsim.analysis.worlds.startup.v2:HOOKS",
    sub_metrics=SUB_METRICS,  # v1's: hiring changes neither prestige nor trust
    # What the run's summary counts, and the report's table of hires, fires and disruptions, in this order.
    tallies={
        "staff": {"hired": ("employee hire",), "started": ("employee_started",), "fired": ("employee fire",),
                  "resigned": ("employee_resigned",)},
        "disruptions": {"warnings": ("disruption_warning",), "downturns": ("market_downturn",),
                        "clients gone under": ("client_collapsed",), "late payments": ("late_payment",)},
    },
    quiet_events=("signal_truth",),  # the numbers behind the words, one a command that showed some
)

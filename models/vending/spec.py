"""The vending world's registration: what the rest of bizsim needs to know of it, as data."""

from bizsim.simcore.registry import WorldSpec

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="vending",
    version=1,
    summary='EcoGym "Vending": research, order, price and sell for a year',
    factory="bizsim.models.vending.world:VendingWorld",
    presets="bizsim.models.vending.presets:PRESETS",
    agents={
        "markup": "bizsim.agents.vending:markup",
        "planner": "bizsim.agents.vending:planner",
        "llm": "bizsim.agents.llm:llm_agent",
    },
    figures=("net_worth_cents", "final_money_cents", "total_revenue_cents"),
    default_agent="markup",
    protocol="ecogym",
    analysis="bizsim.analysis.worlds.ecogym:HOOKS",
)

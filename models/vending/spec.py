"""The vending world's registration: what the rest of bizsim needs to know of it, as data."""

from bizsim.simcore.registry import WorldSpec
from bizsim.simcore.submetrics import SubMetric

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
    # Net worth moves only when a unit sells above its cost; ordering, the week's wait and pricing earn nothing first.
    sub_metrics=(
        SubMetric("inventory_value", unit="cents of stock on hand, at wholesale cost", reads="inventory_value_cents",
                  weight=0.2, why="Stock that has arrived is what sells; net worth counts it at cost, so an order "
                                  "pays nothing until the sale. A fifth of its cost again pays at delivery, a week "
                                  "before the first sale (a starting guess, to tune)."),
        SubMetric("units_sold", unit="units sold", reads="units_sold", weight=10,
                  why="A unit sold is demand found; its margin is already in net worth. 10 cents a unit, a few "
                      "percent of a typical wholesale price ($0.50 to $5.00), favours a price that sells."),
    ),
)

"""The lemonade world's registration: everything the rest of bizsim needs to know of it, as data.

``pyproject.toml`` names ``WORLD`` in the entry-point group ``bizsim.worlds``; bizsim imports the parts
named by the ``"package.module:attribute"`` strings only when it uses them.
"""

from bizsim.simcore.registry import WorldSpec
from bizsim.simcore.submetrics import SubMetric

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="lemonade",
    version=1,
    summary="A lemonade stand over a summer month: lemons with lead time and shelf life, weather, price",
    factory="bizsim_lemonade.world:LemonadeWorld",
    presets="bizsim_lemonade.presets:PRESETS",
    agents={
        "steady": "bizsim_lemonade.agents:steady",
        "llm": "bizsim.agents.llm:llm_agent",
    },
    figures=("profit_cents", "cups_sold"),
    default_agent="steady",
    protocol="ecogym",
    # What a shaped reward (reward="shaped") weighs beside the cash, in cents per unit: the waste the cash shows late.
    sub_metrics=(
        SubMetric("lost_customers", unit="customers turned away (no lemons left)", reads="lost_customers",
                  weight=-75, why="A customer turned away is a cup not sold: the default price (100 cents) less a "
                                  "lemon (25 cents)."),
        SubMetric("lemons_spoiled", unit="lemons spoiled", reads="lemons_spoiled", weight=-25,
                  why="A spoiled lemon is its cost (25 cents) spent for nothing; the cash showed the cost at the "
                      "order, days before it was wasted."),
    ),
)

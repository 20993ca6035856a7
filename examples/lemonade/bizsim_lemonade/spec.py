"""The lemonade world's registration: everything the rest of bizsim needs to know of it, as data.

``pyproject.toml`` names ``WORLD`` in the entry-point group ``bizsim.worlds``; bizsim imports the parts
named by the ``"package.module:attribute"`` strings only when it uses them.
"""

from bizsim.simcore.registry import WorldSpec

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
)

"""The freelance world's registration: what the rest of bizsim needs to know of it, as data."""

from bizsim.simcore.registry import WorldSpec

__all__ = ["WORLD"]

WORLD = WorldSpec(
    name="freelance",
    version=1,
    summary='EcoGym "Freelance": take gigs, manage energy, stress and skills; an auditor prices and pays',
    factory="bizsim.models.freelance.world:FreelanceWorld",
    presets="bizsim.models.freelance.presets:PRESETS",
    agents={
        "cautious": "bizsim.agents.freelance:cautious",
        "oracle": "bizsim.agents.freelance:oracle",
        "planner": "bizsim.agents.freelance:planner",
        "llm": "bizsim.agents.llm:llm_agent",
    },
    figures=("final_money_cents", "income_cents", "career_score"),
    default_agent="cautious",
    protocol="ecogym",
    analysis="bizsim.analysis.worlds.ecogym:HOOKS",
    roles={"auditor": "bizsim.models.freelance.auditor:LLMAuditor"},
)

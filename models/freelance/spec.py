"""The freelance world's registration: what the rest of bizsim needs to know of it, as data."""

from bizsim.simcore.registry import WorldSpec
from bizsim.simcore.submetrics import SubMetric

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
    # EcoGym's Career Score, 0.6 money($) + 0.4 (0.5 skill + 0.25 energy + 0.25 (100 - stress)), in cents of money:
    # one point of skill is worth 0.2 / 0.6 dollars, of energy 0.1 / 0.6, of stress -0.1 / 0.6.
    sub_metrics=(
        SubMetric("skill", unit="skill points, mean over the categories worked (0 to 100)", reads="avg_skill",
                  weight=100 / 3, why="EcoGym's Career Score weighs a skill point 0.4 x 0.5 against 0.6 per dollar: "
                                      "33.3 cents a point."),
        SubMetric("energy", unit="energy points (0 to 100; 0 ends the run)", reads="final_energy", weight=50 / 3,
                  why="The Career Score weighs an energy point 0.4 x 0.25 against 0.6 per dollar: 16.7 cents."),
        SubMetric("stress", unit="stress points (0 to 100; 100 ends the run)", reads="final_stress", weight=-50 / 3,
                  why="The Career Score counts 100 - stress at 0.4 x 0.25 against 0.6 per dollar: -16.7 cents a "
                      "point of stress."),
    ),
)

"""Configuration of the freelance world: one frozen, validated value set (spec §3)."""

from __future__ import annotations

import attrs
from bizsim.simcore.config import check_config, in_range
from bizsim.simcore.errors import ConfigError

from .._ecogym import parse_start_date

__all__ = ["REST_LEVELS", "FreelanceConfig"]

#: The rest tiers, in the order the tool lists them.
REST_LEVELS: tuple[str, ...] = ("low", "medium", "high")

_NONNEG = in_range(0)
_PCT = in_range(0, 100)
_PROB = in_range(0.0, 1.0)


def _triple(instance: object, attribute: attrs.Attribute, value: tuple) -> None:
    if not isinstance(value, tuple) or len(value) != 3 or any(
            not isinstance(v, int) or isinstance(v, bool) or v < 0 for v in value):
        raise ConfigError(f"{attribute.name}(={value!r}) must be three integers >= 0")


@attrs.frozen(cache_hash=True)
class FreelanceConfig:
    """Every value of a freelance episode. Presets are instances of this class.

    Money is in cents. Rest tiers are ``(cost cents, energy gained, stress
    relieved)``; lifespans are days by complexity (Low, Medium, High).

    Burnout spiral (the paper's Eq. 12, on in ``default``): a submission whose
    answer is right still fails with probability
    ``p = base_failure + skill_failure * max(0, 10*effort - skill) / 100``,
    multiplied by ``burnout_gamma`` while stress is at or above
    ``burnout_stress`` (capped at 1). With ``burnout = False`` (``reference``)
    a right answer always succeeds and nothing is drawn.
    """

    # episode
    start_date: str = "2025-01-01"
    horizon_days: int = attrs.field(default=365, validator=in_range(1, 100_000))
    daily_budget: int = attrs.field(default=5, validator=in_range(1, 100))
    # initial state
    initial_money_cents: int = attrs.field(default=100_000, validator=in_range(1))
    initial_energy: int = attrs.field(default=80, validator=in_range(1, 100))
    initial_stress: int = attrs.field(default=10, validator=in_range(0, 99))
    initial_skill: float = attrs.field(default=60.0, validator=in_range(0.0, 100.0))
    # the day
    daily_cost_cents: int = attrs.field(default=1000, validator=_NONNEG)
    daily_energy: int = attrs.field(default=5, validator=_PCT)
    daily_stress_relief: int = attrs.field(default=10, validator=_PCT)
    # discovery: (money cents, energy, stress added) and tasks found; the values the reference code applies
    free_discovery: tuple[int, int, int] = attrs.field(default=(0, 8, 1), validator=_triple)
    free_discovery_tasks: int = attrs.field(default=4, validator=in_range(1, 100))
    paid_discovery: tuple[int, int, int] = attrs.field(default=(200, 5, 3), validator=_triple)
    paid_discovery_tasks: int = attrs.field(default=6, validator=in_range(1, 100))
    max_pool: int = attrs.field(default=10, validator=in_range(1, 1000))
    lifespans: tuple[int, int, int] = attrs.field(default=(3, 5, 7), validator=_triple)
    max_submissions_per_day: int = attrs.field(default=3, validator=in_range(1, 100))
    # rest tiers (cost cents, energy, stress relieved): the values the reference code applies
    rest_low: tuple[int, int, int] = attrs.field(default=(1500, 20, 10), validator=_triple)
    rest_medium: tuple[int, int, int] = attrs.field(default=(2000, 30, 20), validator=_triple)
    rest_high: tuple[int, int, int] = attrs.field(default=(4500, 40, 30), validator=_triple)
    # tasks
    bank_size: int = attrs.field(default=1000, validator=in_range(1, 1_000_000))
    task_seed: int | None = attrs.field(default=None, validator=_NONNEG)
    tasks_path: str | None = None
    max_solution_chars: int = attrs.field(default=20_000, validator=in_range(1, 1_000_000))
    # burnout spiral
    burnout: bool = True
    base_failure: float = attrs.field(default=0.05, validator=_PROB)
    skill_failure: float = attrs.field(default=0.5, validator=in_range(0.0, 10.0))
    burnout_gamma: float = attrs.field(default=3.0, validator=in_range(1.0, 100.0))
    burnout_stress: int = attrs.field(default=70, validator=_PCT)
    # agent protocol (recorded with every run; read by the LLM harness): the reference's step cap
    max_steps: int | None = attrs.field(default=2000, validator=in_range(1))
    #: The reference harness's counting: every executed tool call but task_done spends one of the day's actions
    #: (refused ones too), and the step cap counts the task_done the harness issues itself.
    reference_harness: bool = False
    # the reference code's rules and outputs, for preset ``reference`` (bizsim's own are kept elsewhere)
    #: An empty or blank ``solution_text`` is judged (a failure: energy, stress and skill spent, the task gone,
    #: one of the day's submissions used) instead of refused.
    empty_solution_judged: bool = False
    #: Task ids must be written as the pool lists them (``"331"``; not ``"0331"`` or ``" 331"``).
    canonical_ids: bool = False
    #: Reports as the reference writes them: the bankruptcy report's ``day``, ``final_money`` and ``message``;
    #: "/100" after energy and stress in the day's summary; whole-dollar living costs as integers; the summary's
    #: ``avg_skill`` to 2 places.
    reference_outputs: bool = False

    def __attrs_post_init__(self) -> None:
        check_config(self)  # types and finiteness of every field; ranges are the fields' validators
        parse_start_date(self.start_date)

    def rest(self, level: str) -> tuple[int, int, int]:
        """The tier ``(cost cents, energy, stress relieved)`` of a rest level."""
        return {"low": self.rest_low, "medium": self.rest_medium, "high": self.rest_high}[level]

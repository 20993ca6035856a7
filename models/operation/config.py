"""Configuration of the operation world: one frozen, validated value set.

Names follow EcoGym's ``platform_dynamics_config`` (spec §4.2); the defaults
are the reference configuration's values.
"""

from __future__ import annotations

import attrs

from bizsim.simcore.config import check_config, in_range
from bizsim.simcore.errors import ConfigError

from .._ecogym import parse_start_date

__all__ = ["OperationConfig", "ACTIONS"]

#: The four interventions, in the order the tools are exposed.
ACTIONS: tuple[str, ...] = ("acquisition_boost", "engagement_tune", "creator_incentive", "moderation_tighten")

_UNIT = in_range(0.0, 1.0)
_NONNEG = in_range(0.0)
#: Rates and weights of the daily dynamics: far above any calibrated value, far below where a year of them
#: overflows a float (1e308 did).
_RATE = in_range(0.0, 1000.0)


def _noise_pair(instance: object, attribute: attrs.Attribute, value: tuple[float, float]) -> None:
    if (not isinstance(value, tuple) or len(value) != 2
            or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1000 for v in value)):
        raise ConfigError(f"{attribute.name}(={value!r}) must be two numbers in [0, 1000]: (relative, absolute)")


@attrs.frozen(cache_hash=True)
class OperationConfig:
    """Every value of an operation episode. Presets are instances of this class.

    Action noise is ``(relative, absolute)``: a value ``x`` becomes
    ``max(0, x + x*U(-relative, relative) + x*absolute*U(-1, 1))``.
    """

    # episode
    start_date: str = "2025-01-01"
    horizon_days: int = attrs.field(default=365, validator=in_range(1, 100_000))
    daily_budget: int = attrs.field(default=1, validator=in_range(1, 100))
    collapse_dau: int = attrs.field(default=100, validator=_NONNEG)
    # initial state
    initial_dau: int = attrs.field(default=1000, validator=_NONNEG)
    initial_content_volume: int = attrs.field(default=100, validator=_NONNEG)
    initial_content_quality: float = attrs.field(default=0.5, validator=_UNIT)
    initial_creator_activity: float = attrs.field(default=0.5, validator=_UNIT)
    initial_engagement: float = attrs.field(default=0.0, validator=_UNIT)
    # retention
    base_retention: float = 0.80
    content_weight: float = 0.20
    quality_weight: float = 0.20
    engagement_weight: float = 0.25
    min_retention: float = attrs.field(default=0.30, validator=_UNIT)
    max_retention: float = attrs.field(default=0.95, validator=_UNIT)
    low_quality_threshold: float = attrs.field(default=0.3, validator=_UNIT)
    low_quality_penalty: float = attrs.field(default=0.5, validator=_RATE)
    # natural growth
    base_growth: int = attrs.field(default=5, validator=_NONNEG)
    quality_growth: float = attrs.field(default=60.0, validator=_RATE)
    creator_growth: float = attrs.field(default=60.0, validator=_RATE)
    # content ecosystem and decay
    content_creation: float = attrs.field(default=30.0, validator=_RATE)
    content_quality_bonus: float = attrs.field(default=0.5, validator=_RATE)
    content_decay: float = attrs.field(default=0.05, validator=_UNIT)
    quality_decay: float = attrs.field(default=0.05, validator=_UNIT)
    quality_equilibrium: float = attrs.field(default=0.0, validator=_UNIT)
    engagement_quality_drag: float = attrs.field(default=0.03, validator=_RATE)
    creator_decay: float = attrs.field(default=0.05, validator=_UNIT)
    creator_equilibrium: float = attrs.field(default=0.0, validator=_UNIT)
    engagement_decay: float = attrs.field(default=0.08, validator=_RATE)
    # floors after the daily transition
    min_content_volume: int = attrs.field(default=10, validator=_NONNEG)
    min_content_quality: float = attrs.field(default=0.1, validator=_UNIT)
    min_creator_activity: float = attrs.field(default=0.1, validator=_UNIT)
    # noise (False: every noise term is zero and nothing is drawn)
    noise: bool = True
    retention_noise: float = attrs.field(default=0.03, validator=in_range(0.0, 1.0))
    growth_noise: float = attrs.field(default=0.25, validator=in_range(0.0, 1.0))
    acquisition_noise: tuple[float, float] = attrs.field(default=(0.80, 0.40), validator=_noise_pair)
    engagement_noise: tuple[float, float] = attrs.field(default=(0.40, 0.50), validator=_noise_pair)
    creator_noise: tuple[float, float] = attrs.field(default=(0.60, 0.55), validator=_noise_pair)
    moderation_noise: tuple[float, float] = attrs.field(default=(0.60, 0.55), validator=_noise_pair)
    # actions
    acquisition_base_users: int = attrs.field(default=20, validator=_NONNEG)
    acquisition_quality_rate: float = attrs.field(default=1.1, validator=_RATE)
    acquisition_adds_users: bool = True
    engagement_boost: float = attrs.field(default=0.25, validator=_RATE)
    engagement_quality_penalty: float = attrs.field(default=0.05, validator=_RATE)
    creator_boost: float = attrs.field(default=0.25, validator=_RATE)
    creator_diminishing: float = attrs.field(default=1.1, validator=_RATE)
    creator_content: float = attrs.field(default=50.0, validator=_RATE)
    moderation_boost: float = attrs.field(default=0.30, validator=_RATE)
    moderation_diminishing: float = attrs.field(default=1.1, validator=_RATE)
    moderation_removal: float = attrs.field(default=0.10, validator=_UNIT)
    moderation_creator_penalty: float = attrs.field(default=0.07, validator=_RATE)
    moderation_penalty_amplifier: float = attrs.field(default=1.1, validator=_RATE)
    # agent protocol (recorded with every run; read by the LLM harness): the reference's step cap
    max_steps: int | None = attrs.field(default=1000, validator=in_range(1))
    #: The reference harness's counting: every executed tool call but task_done spends one of the day's actions
    #: (refused ones too), and the step cap counts the task_done the harness issues itself.
    reference_harness: bool = False
    #: ``summary()`` as the reference's metrics write it: final quality, activity and engagement to 3 places,
    #: and a mean retention of 0.0 (not ``None``) before any transition.
    reference_outputs: bool = False

    def __attrs_post_init__(self) -> None:
        check_config(self)  # types and finiteness of every field; ranges are the fields' validators
        parse_start_date(self.start_date)
        if self.min_retention > self.max_retention:
            raise ConfigError(f"min_retention(={self.min_retention}) must be <= max_retention(={self.max_retention})")

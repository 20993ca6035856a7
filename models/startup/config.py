"""Configuration of the startup world: one frozen, validated value set."""

from __future__ import annotations

import functools
import random
from math import sqrt
from collections.abc import Callable
from typing import Literal

import attrs

from bizsim.simcore.config import check_config, in_range, nested_config
from bizsim.simcore.errors import ConfigError

__all__ = ["Dist", "Dists", "SalaryTier", "StartupConfig"]

DistKind = Literal["triangular", "beta", "normal", "uniform", "constant"]


@nested_config
@attrs.frozen(cache_hash=True)
class Dist:
    """A distribution family with its parameters, sampled as the reference does."""

    type: DistKind
    low: float | None = None
    high: float | None = None
    mode: float | None = None
    alpha: float | None = None
    beta: float | None = None
    scale: float = 1.0
    mean: float | None = None
    stdev: float | None = None
    value: float | None = None

    def __attrs_post_init__(self) -> None:
        need = {
            "triangular": ("low", "high", "mode"),
            "beta": ("alpha", "beta", "low", "high"),
            "normal": ("mean", "stdev", "low", "high"),
            "uniform": ("low", "high"),
            "constant": ("value",),
        }
        if self.type not in need:
            raise ConfigError(f"dist type {self.type!r} must be one of {', '.join(need)}")
        missing = [k for k in need[self.type] if getattr(self, k) is None]
        if missing:
            raise ConfigError(f"{self.type} dist needs {', '.join(missing)}")
        check_config(self)
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ConfigError(f"dist low(={self.low}) must be <= high(={self.high})")

    def sample(self, rng: random.Random) -> float:
        """One draw; ``constant`` draws nothing."""
        return self.sampler()(rng)

    def sampler(self) -> Sampler:
        """A fast function ``rng -> float`` making the same draws as :meth:`sample`."""
        return _sampler(self)

    def _draw(self, rng: random.Random) -> float:
        t = self.type
        if t == "constant":
            assert self.value is not None  # __attrs_post_init__ requires it
            return self.value
        # Every other family needs low and high (__attrs_post_init__ checks).
        lo, hi = self.low, self.high
        assert lo is not None and hi is not None
        if t == "triangular":
            assert self.mode is not None
            return max(lo, min(hi, rng.triangular(lo, hi, self.mode)))
        if t == "beta":
            assert self.alpha is not None and self.beta is not None
            return round(max(lo, min(hi, self.scale * rng.betavariate(self.alpha, self.beta))), 4)
        if t == "normal":
            assert self.mean is not None and self.stdev is not None
            return round(max(lo, min(hi, rng.gauss(self.mean, self.stdev))), 4)
        return rng.uniform(lo, hi)


Sampler = Callable[[random.Random], float]


@functools.cache
def _sampler(dist: Dist) -> Sampler:
    """A fast sampling function for a distribution, same draws as ``Dist._draw``.

    Runs once per distribution (cached); ``__attrs_post_init__`` has already
    checked that the family's parameters are set, so they are bound here once
    as non-None locals and the draw functions carry no checks.
    """
    if dist.type == "constant":
        value = dist.value
        assert value is not None
        return lambda rng: value
    lo, hi = dist.low, dist.high
    assert lo is not None and hi is not None
    if dist.type == "triangular":
        mode = dist.mode

        if hi == lo:
            # ``random.triangular`` draws its uniform before it finds the span empty.
            def flat(rng: random.Random) -> float:
                rng.random()
                return lo

            return flat
        # random.triangular's inversion with its mode fraction computed once, so the draws are the same.
        c0 = 0.5 if mode is None else (mode - lo) / (hi - lo)
        span = hi - lo

        def tri(rng: random.Random) -> float:
            u = rng.random()
            if u > c0:
                v = hi + (lo - hi) * sqrt((1.0 - u) * (1.0 - c0))
            else:
                v = lo + span * sqrt(u * c0)
            return lo if v < lo else (hi if v > hi else v)

        return tri
    if dist.type == "beta":
        alpha, beta, scale = dist.alpha, dist.beta, dist.scale
        assert alpha is not None and beta is not None

        def beta_draw(rng: random.Random) -> float:
            return round(max(lo, min(hi, scale * rng.betavariate(alpha, beta))), 4)

        return beta_draw
    if dist.type == "normal":
        mean, stdev = dist.mean, dist.stdev
        assert mean is not None and stdev is not None

        def normal_draw(rng: random.Random) -> float:
            return round(max(lo, min(hi, rng.gauss(mean, stdev))), 4)

        return normal_draw

    def uniform_draw(rng: random.Random) -> float:
        return rng.uniform(lo, hi)

    return uniform_draw


def _tri(low: float, high: float, mode: float) -> Dist:
    return Dist("triangular", low=low, high=high, mode=mode)


def _fractions(instance: object, attribute: attrs.Attribute, value: tuple) -> None:
    if not isinstance(value, tuple) or any(isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1
                                           for v in value):
        raise ConfigError(f"{attribute.name}(={value!r:.80}) must be a list of fractions in [0, 1]")


@nested_config
@attrs.frozen
class Dists:
    """The distributions of market-task generation."""

    required_prestige: Dist = _tri(1.0, 5.0, 1.0)
    reward_funds_cents: Dist = _tri(200_000.0, 1_200_000.0, 500_000.0)
    domain_count: Dist = Dist("constant", value=1.0)
    required_qty: Dist = _tri(400.0, 1500.0, 800.0)
    reward_prestige_delta: Dist = Dist("beta", alpha=1.2, beta=2.8, scale=0.35, low=0.0, high=0.35)
    skill_boost: Dist = Dist("normal", mean=0.12, stdev=0.06, low=0.01, high=0.40)

    def __attrs_post_init__(self) -> None:
        check_config(self)


@nested_config
@attrs.frozen
class SalaryTier:
    """An employee tier: salary band (cents a month) and rate band (units an hour)."""

    name: str
    share: float = attrs.field(validator=in_range(0.0, 1.0))
    min_cents: int = attrs.field(validator=in_range(0))
    max_cents: int = attrs.field(validator=in_range(0))
    rate_min: float = attrs.field(validator=in_range(0))
    rate_max: float = attrs.field(validator=in_range(0))

    def __attrs_post_init__(self) -> None:
        check_config(self)

    @property
    def midpoint_cents(self) -> int:
        """The band's midpoint, the base of salary raises."""
        return (self.min_cents + self.max_cents) // 2


@attrs.frozen(cache_hash=True)
class StartupConfig:
    """Every value of a startup episode. Presets are instances of this class.

    The trust and loyalty parameters the reference derives from a few knobs
    are properties, computed with the reference's own float expressions.
    """

    # episode
    start_date: str = "2025-01-01"
    horizon_years: int = attrs.field(default=1, validator=in_range(1, 10))
    company_name: str = "BenchCo"
    # workforce and market
    num_employees: int = attrs.field(default=8, validator=in_range(1, 200))
    initial_funds_cents: int = attrs.field(default=20_000_000, validator=in_range(0))
    initial_prestige_level: float = attrs.field(default=1.0, validator=in_range(1.0, 10.0))
    num_market_tasks: int = attrs.field(default=200, validator=in_range(1, 5000))
    market_browse_default_limit: int = attrs.field(default=50, validator=in_range(1))
    salary_bump_pct: float = attrs.field(default=0.01, validator=in_range(0.0, 1.0))
    salary_max_cents: int = attrs.field(default=10_000_000, validator=in_range(0))
    skill_rate_max: float = attrs.field(default=10.0, validator=in_range(0.0))
    # prestige
    prestige_max: float = attrs.field(default=10.0, validator=in_range(0.0, 1000.0))
    prestige_min: float = attrs.field(default=1.0, validator=in_range(0.0, 1000.0))
    penalty_fail_multiplier: float = attrs.field(default=1.0, validator=in_range(0.0))
    penalty_fail_funds_pct: float = attrs.field(default=0.35, validator=in_range(0.0, 1.0))
    penalty_cancel_multiplier: float = attrs.field(default=1.5, validator=in_range(0.0))
    reward_prestige_scale: float = attrs.field(default=0.30, validator=in_range(0.0, 100.0))
    prestige_decay_per_day: float = attrs.field(default=0.0, validator=in_range(0.0))
    # clients and trust
    num_clients: int = attrs.field(default=6, validator=in_range(1, 15))
    trust_max: float = attrs.field(default=5.0, validator=in_range(0.1))
    trust_build_rate: float = attrs.field(default=5.0, validator=in_range(0.01))
    trust_fragility: float = attrs.field(default=0.3, validator=in_range(0.0))
    trust_focus_pressure: float = attrs.field(default=0.3, validator=in_range(0.0))
    trust_work_reduction_max: float = attrs.field(default=0.50, validator=in_range(0.0, 1.0))
    trust_gating_fraction: float = attrs.field(default=0.30, validator=in_range(0.0, 1.0))
    trust_gated_reward_boost: float = attrs.field(default=0.0, validator=in_range(0.0, 100.0))
    # A negative power overflowed trust gains (x ** -113).
    trust_gain_diminishing_power: float = attrs.field(default=1.5, validator=in_range(0.0, 10.0))
    trust_level_reward_scale: float = attrs.field(default=3.0, validator=in_range(0.0, 100.0))
    trust_level_max_required: int = attrs.field(default=4, validator=in_range(0, 1000))
    loyalty_rat_fraction: float = attrs.field(default=0.35, validator=in_range(0.0, 1.0))
    loyalty_severity: float = attrs.field(default=1.0, validator=in_range(0.0))
    # Rewards are drawn times these (up to 100: past that, a year's rewards overflowed cents).
    client_reward_mult_low: float = attrs.field(default=0.7, validator=in_range(0.0, 100.0))
    client_reward_mult_high: float = attrs.field(default=2.5, validator=in_range(0.0, 100.0))
    client_reward_mult_mode: float = attrs.field(default=1.0, validator=in_range(0.0, 100.0))
    client_single_specialty_prob: float = attrs.field(default=0.6, validator=in_range(0.0, 1.0))
    client_tier_premium_threshold: float = attrs.field(default=1.0, validator=in_range(0.0, 100.0))
    client_tier_enterprise_threshold: float = attrs.field(default=1.7, validator=in_range(0.0, 100.0))
    task_specialty_domain_bias: float = attrs.field(default=0.7, validator=in_range(0.0, 1.0))
    # tasks
    prestige_qty_scale: float = attrs.field(default=0.3, validator=in_range(0.0, 100.0))
    deadline_qty_per_day: float = attrs.field(default=150.0, validator=in_range(1.0, 1e9))
    # Deadlines past ten years ran off the calendar (dates end at year 9999).
    deadline_min_biz_days: int = attrs.field(default=7, validator=in_range(1, 2600))
    task_progress_milestones: tuple[float, ...] = attrs.field(default=(), validator=_fractions)
    workday_start_hour: int = attrs.field(default=9, validator=in_range(0, 23))
    workday_end_hour: int = attrs.field(default=18, validator=in_range(1, 24))
    dist: Dists = Dists()
    salary_junior: SalaryTier = SalaryTier("junior", 0.50, 200_000, 400_000, 1.0, 4.0)
    salary_mid: SalaryTier = SalaryTier("mid", 0.35, 600_000, 800_000, 4.0, 7.0)
    salary_senior: SalaryTier = SalaryTier("senior", 0.15, 1_000_000, 1_500_000, 7.0, 10.0)
    # agent protocol (recorded with every run)
    auto_advance_after_turns: int = attrs.field(default=5, validator=in_range(1))
    history_keep_rounds: int = attrs.field(default=20, validator=in_range(1))
    max_turns: int | None = attrs.field(default=None, validator=in_range(1))
    # behaviour: bizsim's fixes, or the reference implementation's quirks
    progress_flush: Literal["business", "reference"] = "business"
    cancel_enabled: bool = True
    #: The reference fails a ``task assign`` that names a not-yet-assigned employee twice, assigning nobody.
    assign_duplicates_fail: bool = False
    reference_outputs: bool = False
    #: The reference's command-line parser: last value of a repeated option, any market browse limit and
    #: offset, malformed dates as usage errors, ``sim init`` known, ``help`` unknown (see ``REFERENCE_COMMANDS``).
    reference_cli: bool = False
    stale_scratchpad: bool = False

    def __attrs_post_init__(self) -> None:
        check_config(self)
        if self.workday_start_hour >= self.workday_end_hour:
            raise ConfigError(
                f"workday_start_hour(={self.workday_start_hour}) must be < workday_end_hour(={self.workday_end_hour})"
            )
        if self.prestige_min > self.prestige_max:
            raise ConfigError(f"prestige_min(={self.prestige_min}) must be <= prestige_max(={self.prestige_max})")
        if self.progress_flush not in ("business", "reference"):
            raise ConfigError(f"progress_flush(={self.progress_flush!r}) must be 'business' or 'reference'")
        if any(not 0 < m < 1 for m in self.task_progress_milestones):
            raise ConfigError(f"task_progress_milestones(={self.task_progress_milestones}) must lie in (0, 1)")
        shares = self.salary_junior.share + self.salary_mid.share + self.salary_senior.share
        if abs(shares - 1.0) > 1e-6:
            raise ConfigError(f"salary tier shares must sum to 1.0, got {shares:.6f}")
        from datetime import date

        try:
            start = date.fromisoformat(self.start_date)
        except ValueError:
            raise ConfigError(f"start_date(={self.start_date!r}) must be YYYY-MM-DD") from None
        try:
            start.replace(year=start.year + self.horizon_years)
        except ValueError:
            raise ConfigError(
                f"start_date(={self.start_date!r}) has no anniversary {self.horizon_years} year(s) later; pick another day"
            ) from None

    # derived values, with the reference's float expressions --------------
    @property
    def trust_gain_base(self) -> float:
        return self.trust_max * 1.6 / self.trust_build_rate

    @property
    def trust_fail_penalty(self) -> float:
        return self.trust_fragility * 0.6

    @property
    def trust_cancel_penalty(self) -> float:
        return self.trust_fragility * 1.0

    @property
    def trust_decay_per_day(self) -> float:
        return self.trust_fragility * 0.03

    @property
    def trust_cross_client_decay(self) -> float:
        return self.trust_focus_pressure * 0.06

    @property
    def trust_reward_threshold(self) -> float:
        return max(0.0, 1.0 - 2.0 * self.trust_gating_fraction)

    @property
    def trust_reward_ramp(self) -> float:
        return min(1.0, 2.0 * self.trust_gating_fraction)

    @property
    def loyalty_mode(self) -> float:
        return 1.0 - 2.6 * self.loyalty_rat_fraction

    @property
    def scope_creep_max(self) -> float:
        return self.loyalty_severity * 1.00

    @property
    def tiers(self) -> dict[str, SalaryTier]:
        return {t.name: t for t in (self.salary_junior, self.salary_mid, self.salary_senior)}

"""Configuration of startup-v2: startup-v1's values plus the new mechanics, each switchable per preset."""

from __future__ import annotations

import attrs

from bizsim.simcore.config import check_config, in_range, nested_config
from bizsim.simcore.errors import ConfigError

from ..config import StartupConfig

__all__ = ["Disruptions", "Hiring", "Signals", "StartupV2Config", "MAX_SEVERANCE_CENTS"]

#: The most one severance may cost: amounts stay exact in JSON readers that hold numbers as doubles (2**53).
MAX_SEVERANCE_CENTS = 2**53 - 1


@nested_config
@attrs.frozen(cache_hash=True)
class Hiring:
    """The labour market: candidates to hire, notice, onboarding and severance (docs: the hiring page)."""

    enabled: bool = True
    #: Candidates on the market at any time; a hired one is replaced by a fresh draw.
    candidates: int = attrs.field(default=6, validator=in_range(0, 50))
    #: What candidates ask above the salary their tier would pay them (0.1: 10% more).
    ask_markup: float = attrs.field(default=0.10, validator=in_range(0.0, 10.0))
    #: Business days between ``employee hire`` and the first working day.
    notice_days: int = attrs.field(default=5, validator=in_range(0, 60))
    #: Business days a new hire takes to reach full productivity, in equal steps.
    onboarding_days: int = attrs.field(default=20, validator=in_range(0, 260))
    onboarding_steps: int = attrs.field(default=4, validator=in_range(1, 20))
    #: Productivity on the first day, as a fraction of the hire's full rates.
    onboarding_start: float = attrs.field(default=0.5, validator=in_range(0.05, 1.0))
    #: Months of salary paid at once on ``employee fire``.
    severance_months: float = attrs.field(default=1.0, validator=in_range(0.0, 120.0))
    #: The roster's ceiling (staff plus hires not yet started).
    max_employees: int = attrs.field(default=30, validator=in_range(1, 200))

    def __attrs_post_init__(self) -> None:
        check_config(self)


@nested_config
@attrs.frozen(cache_hash=True)
class Disruptions:
    """Exogenous events, seeded and reproducible (docs: the disruptions page). Rates are expected events a year;
    each calendar day brings one with probability rate / 365."""

    enabled: bool = False
    #: Days of warning before a downturn or a client's collapse (a wake event); 0: no warning.
    warning_days: int = attrs.field(default=0, validator=in_range(0, 60))
    downturns_per_year: float = attrs.field(default=1.0, validator=in_range(0.0, 52.0))
    #: Calendar days a downturn lasts; rewards paid meanwhile are cut by ``downturn_reward_cut``.
    downturn_days: int = attrs.field(default=30, validator=in_range(1, 365))
    downturn_reward_cut: float = attrs.field(default=0.3, validator=in_range(0.0, 0.95))
    #: A client going under: its planned and active tasks are cancelled unpaid, its market tasks withdrawn.
    collapses_per_year: float = attrs.field(default=0.5, validator=in_range(0.0, 52.0))
    #: An employee resigning, leaving at once (no severance).
    resignations_per_year: float = attrs.field(default=1.0, validator=in_range(0.0, 52.0))
    #: Chance that a succeeded task's reward is paid ``late_payment_days`` calendar days late.
    late_payment_prob: float = attrs.field(default=0.1, validator=in_range(0.0, 1.0))
    late_payment_days: int = attrs.field(default=30, validator=in_range(1, 365))

    def __attrs_post_init__(self) -> None:
        check_config(self)


@nested_config
@attrs.frozen(cache_hash=True)
class Signals:
    """How quantities are shown (docs: the signals page)."""

    #: Work quantities and skill rates as words within stated bands, the numbers kept in the record.
    words: bool = False

    def __attrs_post_init__(self) -> None:
        check_config(self)


@attrs.frozen(cache_hash=True)
class StartupV2Config(StartupConfig):
    """Every value of a startup-v2 episode: a :class:`StartupConfig` plus the new mechanics' tables."""

    hiring: Hiring = Hiring()
    disruptions: Disruptions = Disruptions()
    signals: Signals = Signals()

    def __attrs_post_init__(self) -> None:
        super().__attrs_post_init__()
        for flag in ("reference_outputs", "reference_cli", "stale_scratchpad", "assign_duplicates_fail"):
            if getattr(self, flag):
                raise ConfigError(f"{flag}(=true) reproduces the reference implementation, which has no v2; "
                                  "use startup-v1's 'reference' preset for it, or set it false")
        if self.progress_flush != "business":
            raise ConfigError(f"progress_flush(={self.progress_flush!r}) must be 'business' in startup-v2 "
                              "('reference' is startup-v1's)")
        top = max(self.salary_max_cents, max(t.max_cents for t in self.tiers.values()) * (1 + self.hiring.ask_markup))
        worst = top * self.hiring.severance_months
        if worst > MAX_SEVERANCE_CENTS:
            raise ConfigError(
                f"hiring.severance_months(={self.hiring.severance_months}) times the highest salary ({top:.3g} "
                f"cents: salary_max_cents or a tier's max_cents with the ask markup) gives {worst:.3g} cents, above "
                f"the limit {MAX_SEVERANCE_CENTS}; lower one of them")

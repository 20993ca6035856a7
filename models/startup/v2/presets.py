"""startup-v2's presets: startup-v1's ``default`` world on every rung, the difficulty set by the new mechanics.

v1's retired ``hard`` and ``nightmare`` bankrupt every baseline, so a ladder on them measures nothing; here each
rung starts from v1's ``default`` and asks more of the agent through less starting money, dearer hires, more frequent, larger, unannounced
disruptions, and (``hard``, ``nightmare``) work and skill shown only in words.
"""

from __future__ import annotations

import attrs

from bizsim.simcore.presets import PresetTable

from ..presets import PRESETS as V1_PRESETS
from .config import Disruptions, Hiring, Signals, StartupV2Config

__all__ = ["PRESETS"]


def _v2(**changes: object) -> StartupV2Config:
    base = V1_PRESETS["default"]
    values = {f.name: getattr(base, f.name) for f in attrs.fields(type(base))}
    return StartupV2Config(**{**values, **changes})  # type: ignore[arg-type]


def _build() -> dict[str, StartupV2Config]:
    return {
        "easy": _v2(initial_funds_cents=30_000_000,
                    hiring=Hiring(ask_markup=0.0, notice_days=3, onboarding_days=10, onboarding_start=0.7,
                                  severance_months=0.5),
                    disruptions=Disruptions(enabled=True, warning_days=14, downturns_per_year=0.5, downturn_days=20,
                                            downturn_reward_cut=0.2, collapses_per_year=0.25,
                                            resignations_per_year=0.5, late_payment_prob=0.05, late_payment_days=20)),
        "default": _v2(disruptions=Disruptions(enabled=True, warning_days=7, downturn_reward_cut=0.25)),
        "hard": _v2(initial_funds_cents=15_000_000, signals=Signals(words=True),
                    hiring=Hiring(ask_markup=0.2, notice_days=10, onboarding_days=30, onboarding_start=0.4,
                                  severance_months=2.0),
                    disruptions=Disruptions(enabled=True, downturns_per_year=2.0, downturn_days=45,
                                            downturn_reward_cut=0.35, collapses_per_year=1.0,
                                            resignations_per_year=2.0, late_payment_prob=0.2, late_payment_days=45)),
        "nightmare": _v2(initial_funds_cents=12_000_000, penalty_fail_multiplier=1.4, signals=Signals(words=True),
                         hiring=Hiring(ask_markup=0.3, notice_days=15, onboarding_days=40, onboarding_start=0.3,
                                       severance_months=3.0, candidates=4),
                         disruptions=Disruptions(enabled=True, downturns_per_year=3.0, downturn_days=60,
                                                 downturn_reward_cut=0.5, collapses_per_year=2.0,
                                                 resignations_per_year=3.0, late_payment_prob=0.3,
                                                 late_payment_days=60)),
    }


PRESETS: PresetTable[StartupV2Config] = PresetTable("startup-v2", StartupV2Config, _build())

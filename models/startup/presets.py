"""Named difficulty presets of the startup world, each a complete value set.

``default`` is the paper's Table-2 world with the reference's defects fixed;
``reference`` is the same world with the reference implementation's quirks,
to reproduce its runs to the cent. ``tutorial``, ``easy``, ``hard`` and
``nightmare`` resolve the reference's retired presets (which extended an
older 3-year default) into full 1-year value sets.
"""

from __future__ import annotations

from typing import Any

import attrs

from bizsim.simcore.presets import PresetTable

from .config import Dist, StartupConfig

__all__ = ["PRESETS", "preset", "resolve_config", "config_to_toml", "config_from_toml"]

_MILESTONES = (0.25, 0.5, 0.75)
_OLD_REWARD = Dist("triangular", low=150_000.0, high=2_000_000.0, mode=700_000.0)
# Knobs the retired presets shared through the older default they extended.
_OLD_COMMON: dict[str, Any] = dict(
    num_employees=10, num_clients=8, penalty_fail_funds_pct=0.0, prestige_decay_per_day=0.005,
    trust_gated_reward_boost=0.15, task_progress_milestones=_MILESTONES,
)


def _evolve_dist(base: StartupConfig, **dists: Dist) -> Any:
    return attrs.evolve(base.dist, **dists)


def _build() -> dict[str, StartupConfig]:
    default = StartupConfig()
    reference = attrs.evolve(
        default, progress_flush="reference", cancel_enabled=False, assign_duplicates_fail=True, reference_outputs=True,
        reference_cli=True, stale_scratchpad=True,
    )
    tutorial = attrs.evolve(
        default, **_OLD_COMMON, initial_funds_cents=25_000_000, salary_bump_pct=0.0, penalty_fail_multiplier=0.3,
        penalty_cancel_multiplier=0.5, reward_prestige_scale=0.2, trust_build_rate=10.0, trust_fragility=0.2,
        trust_focus_pressure=0.2, trust_work_reduction_max=0.4, trust_gating_fraction=0.1,
        loyalty_rat_fraction=0.05, loyalty_severity=0.2, deadline_qty_per_day=50.0, auto_advance_after_turns=5,
        dist=_evolve_dist(
            default, required_prestige=Dist("constant", value=1.0), reward_funds_cents=_OLD_REWARD,
            required_qty=Dist("triangular", low=300.0, high=1200.0, mode=600.0),
        ),
    )
    easy = attrs.evolve(
        default, **_OLD_COMMON, salary_bump_pct=0.005, penalty_fail_multiplier=0.8, penalty_cancel_multiplier=1.2,
        trust_build_rate=15.0, trust_work_reduction_max=0.4, trust_gating_fraction=0.15, loyalty_rat_fraction=0.1,
        loyalty_severity=0.3, deadline_qty_per_day=100.0, auto_advance_after_turns=8,
        dist=_evolve_dist(
            default, required_prestige=Dist("triangular", low=1.0, high=4.0, mode=1.0), reward_funds_cents=_OLD_REWARD,
            required_qty=Dist("triangular", low=500.0, high=2000.0, mode=1000.0),
        ),
    )
    hard = attrs.evolve(
        default, **_OLD_COMMON, penalty_fail_multiplier=1.4, penalty_cancel_multiplier=2.0, reward_prestige_scale=0.55,
        trust_build_rate=25.0, trust_fragility=0.7, trust_focus_pressure=0.7, trust_work_reduction_max=0.35,
        trust_gating_fraction=0.25, loyalty_rat_fraction=0.2, loyalty_severity=0.7, deadline_qty_per_day=220.0,
        auto_advance_after_turns=10,
        dist=_evolve_dist(
            default, required_prestige=Dist("triangular", low=1.0, high=8.0, mode=4.0), reward_funds_cents=_OLD_REWARD,
            domain_count=Dist("triangular", low=1.0, high=3.0, mode=2.0),
            required_qty=Dist("triangular", low=1000.0, high=4000.0, mode=2000.0),
        ),
    )
    nightmare = attrs.evolve(
        default, **_OLD_COMMON, initial_funds_cents=8_000_000, salary_bump_pct=0.02, penalty_fail_multiplier=2.0,
        penalty_cancel_multiplier=2.5, reward_prestige_scale=0.7, trust_build_rate=30.0, trust_fragility=0.9,
        trust_focus_pressure=0.8, trust_work_reduction_max=0.3, loyalty_rat_fraction=0.25, loyalty_severity=0.9,
        deadline_qty_per_day=220.0, auto_advance_after_turns=10,
        dist=_evolve_dist(
            default, required_prestige=Dist("triangular", low=1.0, high=10.0, mode=5.0), reward_funds_cents=_OLD_REWARD,
            domain_count=Dist("triangular", low=1.0, high=3.0, mode=2.0),
            required_qty=Dist("triangular", low=1200.0, high=5000.0, mode=2500.0),
            reward_prestige_delta=Dist("beta", alpha=1.5, beta=2.5, scale=0.45, low=0.0, high=0.45),
        ),
    )
    return {"tutorial": tutorial, "easy": easy, "default": default, "hard": hard, "nightmare": nightmare, "reference": reference}


PRESETS: PresetTable[StartupConfig] = PresetTable("startup", StartupConfig, _build())

preset = PRESETS.preset
config_to_toml = PRESETS.to_toml
config_from_toml = PRESETS.from_toml
resolve_config = PRESETS.resolve

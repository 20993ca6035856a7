"""Named presets of the operation world, each a complete value set.

- ``default``: the reference configuration, with ``acquisition_boost``
  adding the users it computes (the paper's intent; the reference code
  computes them and drops them).
- ``reference``: the reference code's observable rules, ``acquisition_boost``
  a no-op on the simulation (it still draws its noise and reports a number),
  and the reference harness's counting for LLM agents (``reference_harness``);
  the summary rounds as the reference's metrics do (``reference_outputs``).
- ``easy``: a forgiving platform for sweeps: slower decay of quality and
  creator activity (0.03 a day instead of 0.05), half the daily noise, and a
  low collapse threshold (50 DAU).
- ``hard``: a harsh platform: base retention 0.75 instead of 0.80, quality
  and creator activity decay 0.08 a day, engagement drags quality twice as
  hard (0.06) and fades faster (0.12 a day), noise 1.5x, and collapse at
  200 DAU. Doing nothing collapses it; good play does not.
"""

from __future__ import annotations


import attrs

from bizsim.simcore.presets import PresetTable

from .config import OperationConfig

__all__ = ["PRESETS", "preset", "resolve_config", "config_to_toml", "config_from_toml"]


def _build() -> dict[str, OperationConfig]:
    default = OperationConfig()
    reference = attrs.evolve(default, acquisition_adds_users=False, reference_harness=True, reference_outputs=True)
    easy = attrs.evolve(
        default, quality_decay=0.03, creator_decay=0.03, retention_noise=0.015, growth_noise=0.125, collapse_dau=50,
    )
    hard = attrs.evolve(
        default, base_retention=0.75, quality_decay=0.08, creator_decay=0.08, engagement_quality_drag=0.06,
        engagement_decay=0.12, retention_noise=0.045, growth_noise=0.375, collapse_dau=200,
    )
    return {"default": default, "reference": reference, "easy": easy, "hard": hard}


PRESETS: PresetTable[OperationConfig] = PresetTable("operation", OperationConfig, _build())

preset = PRESETS.preset
config_to_toml = PRESETS.to_toml
config_from_toml = PRESETS.from_toml
resolve_config = PRESETS.resolve

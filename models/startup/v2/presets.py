"""startup-v2's presets: startup-v1's difficulty ladder with the new mechanics set per rung."""

from __future__ import annotations

import attrs

from bizsim.simcore.presets import PresetTable

from ..presets import PRESETS as V1_PRESETS
from .config import Hiring, StartupV2Config

__all__ = ["PRESETS"]


def _v2(base: str, **mechanics: object) -> StartupV2Config:
    values = {f.name: getattr(V1_PRESETS[base], f.name) for f in attrs.fields(type(V1_PRESETS[base]))}
    return StartupV2Config(**values, **mechanics)  # type: ignore[arg-type]


def _build() -> dict[str, StartupV2Config]:
    return {
        "easy": _v2("easy", hiring=Hiring(ask_markup=0.0, notice_days=3, onboarding_days=10, onboarding_start=0.7,
                                          severance_months=0.5)),
        "default": _v2("default"),
        "hard": _v2("hard", hiring=Hiring(ask_markup=0.2, notice_days=10, onboarding_days=30, onboarding_start=0.4,
                                          severance_months=2.0)),
        "nightmare": _v2("nightmare", hiring=Hiring(ask_markup=0.3, notice_days=15, onboarding_days=40,
                                                    onboarding_start=0.3, severance_months=3.0, candidates=4)),
    }


PRESETS: PresetTable[StartupV2Config] = PresetTable("startup-v2", StartupV2Config, _build())

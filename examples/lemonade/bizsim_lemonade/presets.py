"""The lemonade stand's named presets, each a complete :class:`LemonadeConfig`.

- ``default``: July, mostly fair weather, lemons keep 5 days.
- ``heatwave``: half the days hot, lemons keep only 3 days and cost 35 cents (everyone wants them),
  and thirsty crowds are larger (110 customers on a hot day at the reference price).
"""

from __future__ import annotations

import attrs
from bizsim.simcore.presets import PresetTable

from .config import LemonadeConfig

__all__ = ["PRESETS"]


def _build() -> dict[str, LemonadeConfig]:
    default = LemonadeConfig()
    heatwave = attrs.evolve(
        default, weather_odds=(0.05, 0.10, 0.35, 0.50), base_customers=(15, 35, 65, 110), shelf_life_days=3,
        lemon_cost_cents=35,
    )
    return {"default": default, "heatwave": heatwave}


#: Name -> config, with TOML load and dump (``PRESETS.to_toml(cfg)``, ``PRESETS.from_toml(path)``).
PRESETS: PresetTable[LemonadeConfig] = PresetTable("lemonade", LemonadeConfig, _build())

"""Named presets of the freelance world, each a complete value set.

- ``default``: the reference's values as its code applies them (discovery
  costs and rest tiers of spec §3.2), with the paper's burnout spiral on:
  a right answer fails with probability 5 % plus half the skill shortfall
  (``(10*effort - skill)/100``), three times as likely (γ = 3) while stress
  is 70 or more.
- ``reference``: the same without the burnout spiral, as the reference code
  runs (a right answer always succeeds). Tasks are generated in both; to
  play the reference's own file, extend a preset in TOML with ``tasks_path``.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import attrs
from bizsim.simcore.config import config_from_dict, config_to_dict, deep_merge, dump_toml, load_toml
from bizsim.simcore.errors import ConfigError

from .config import FreelanceConfig

__all__ = ["PRESETS", "config_from_toml", "config_to_toml", "preset", "resolve_config"]

PRESETS: MappingProxyType[str, FreelanceConfig] = MappingProxyType({
    "default": FreelanceConfig(),
    "reference": attrs.evolve(FreelanceConfig(), burnout=False),
})


def preset(name: str) -> FreelanceConfig:
    """The named preset; an unknown name lists the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown freelance preset {name!r}; choose one of {', '.join(PRESETS)}") from None


def config_to_toml(config: FreelanceConfig) -> str:
    """A config as self-contained TOML."""
    return dump_toml(config_to_dict(config))


def config_from_toml(path: str | Path) -> FreelanceConfig:
    """Load a TOML file; ``extends = "preset"`` lays it over that preset; a relative ``tasks_path`` is
    taken from the file's folder."""
    p = Path(path)
    data = load_toml(p)
    base = data.pop("extends", None)
    if isinstance(data.get("tasks_path"), str) and not Path(data["tasks_path"]).is_absolute():
        data["tasks_path"] = str(p.parent / data["tasks_path"])
    if base is not None:
        data = deep_merge(config_to_dict(preset(base)), data)
    return config_from_dict(FreelanceConfig, data)


def resolve_config(config: FreelanceConfig | str | Path) -> FreelanceConfig:
    """A config from a preset name, a ``.toml`` path, or a config itself."""
    if isinstance(config, FreelanceConfig):
        return config
    text = str(config)
    if text.endswith(".toml") or "/" in text:
        return config_from_toml(text)
    return preset(text)

"""Named presets of the freelance world, each a complete value set.

- ``default``: the reference's values as its code applies them (discovery
  costs and rest tiers of spec §3.2), with the paper's burnout spiral on:
  a right answer fails with probability 5 % plus half the skill shortfall
  (``(10*effort - skill)/100``), three times as likely (γ = 3) while stress
  is 70 or more.
- ``reference``: the same without the burnout spiral, as the reference code
  runs (a right answer always succeeds), and the reference harness's counting
  for LLM agents (``reference_harness``), and the reference code's handling of
  empty solutions, task ids and reports (``empty_solution_judged``,
  ``canonical_ids``, ``reference_outputs``). Tasks are generated in both; to
  play the reference's own file, extend a preset in TOML with ``tasks_path``.
"""

from __future__ import annotations


import attrs
from bizsim.simcore.presets import PresetTable

from .config import FreelanceConfig

__all__ = ["PRESETS", "config_from_toml", "config_to_toml", "preset", "resolve_config"]

PRESETS: PresetTable[FreelanceConfig] = PresetTable("freelance", FreelanceConfig, {
    "default": FreelanceConfig(),
    "reference": attrs.evolve(FreelanceConfig(), burnout=False, reference_harness=True, empty_solution_judged=True,
                              canonical_ids=True, reference_outputs=True),
}, path_keys=("tasks_path",))

preset = PRESETS.preset
config_to_toml = PRESETS.to_toml
config_from_toml = PRESETS.from_toml
resolve_config = PRESETS.resolve

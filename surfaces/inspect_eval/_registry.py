"""The entry point Inspect loads for the package name ``bizsim`` (group ``inspect_ai``): one task per registered world.

Inspect imports this module when it resolves ``bizsim/...`` (``inspect eval bizsim/startup``); importing it
registers ``bizsim/<world>`` for every world in bizsim's registry, third-party worlds included, and the agents.
"""

from __future__ import annotations

from bizsim.surfaces.inspect_eval.harness import bizsim_harness
from bizsim.surfaces.inspect_eval.task import define_world_tasks

__all__ = ["TASKS", "bizsim_harness"]

TASKS = define_world_tasks()

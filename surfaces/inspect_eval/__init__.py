"""Inspect AI tasks for every registered world (``pip install -e ".[inspect]"`` in the bizsim checkout).

``inspect eval bizsim/startup --model openai/gpt-4o-mini -T preset=default -T seeds=1-5`` runs one sample per
seed; each sample writes a bizsim run directory (``bizsim verify``, ``bizsim load``). See docs/inspect.md.
"""

from __future__ import annotations

from bizsim.surfaces.inspect_eval.harness import InspectModelClient, bizsim_harness
from bizsim.surfaces.inspect_eval.scorer import world_metric
from bizsim.surfaces.inspect_eval.task import define_world_tasks, opening, world_task
from bizsim.surfaces.inspect_eval.tools import command_tools, run_command_tool, tools_for

__all__ = [
    "InspectModelClient", "bizsim_harness", "command_tools", "define_world_tasks", "opening", "run_command_tool",
    "tools_for", "world_metric", "world_task",
]

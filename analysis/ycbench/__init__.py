"""Runs of the reference YC-Bench harness: import them into bizsim run directories, export bizsim runs to them."""

from __future__ import annotations

from bizsim.analysis.ycbench.exporter import export_rollout, rollout_file_name
from bizsim.analysis.ycbench.fidelity import fidelity_report, format_report, recorded_outcome
from bizsim.analysis.ycbench.importer import REFERENCE_CONFIG, REFERENCE_VERSION, ImportResult, import_rollout
from bizsim.analysis.ycbench.rollout import Rollout, RolloutError, read_rollout

__all__ = [
    "REFERENCE_CONFIG", "REFERENCE_VERSION", "ImportResult", "Rollout", "RolloutError", "export_rollout",
    "fidelity_report", "format_report", "import_rollout", "read_rollout", "recorded_outcome", "rollout_file_name",
]

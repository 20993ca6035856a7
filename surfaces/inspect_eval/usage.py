"""Inspect's model usage as bizsim's counters: one sum for the scorer that writes a sample's run and for
:mod:`bizsim.analysis.inspect_logs`, which reads the logs back into tables."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["usage_totals"]


def usage_totals(usages: Sequence[Any]) -> tuple[int, int, float | None]:
    """Prompt tokens, completion tokens and dollars of Inspect ``ModelUsage`` values (dollars ``None`` unless every
    one knows its cost)."""
    costs = [u.total_cost for u in usages]
    cost = None if not costs or None in costs else float(sum(c for c in costs if c is not None))
    return sum(u.input_tokens for u in usages), sum(u.output_tokens for u in usages), cost

"""Sizing of the fuzz tests: bounded in CI, 100 times more examples under ``BIZSIM_FUZZ=slow``."""

from __future__ import annotations

import os

from hypothesis import settings

#: How many times the CI example counts a fuzz run draws.
SCALE = 100 if os.environ.get("BIZSIM_FUZZ") == "slow" else 1


def fuzz(max_examples: int) -> settings:
    """Hypothesis settings for a fuzz test drawing ``max_examples`` examples in CI (times :data:`SCALE`)."""
    return settings(max_examples=max_examples * SCALE)

"""A public test kit for worlds and their mechanics: Hypothesis strategies and invariant checks.

For researchers who add a mechanic to a world (or write a world) and want to property-test it the way bizsim
tests its own. It needs Hypothesis (the ``testing`` extra), which importing :mod:`bizsim.simcore` never loads:
only importing ``bizsim.simcore.testing.strategies`` does. The docs page "Add a mechanic and property-test it"
walks through it.
"""

from __future__ import annotations

from .arena_checks import (
    assert_arena_deterministic, assert_arena_refusal_changes_nothing, assert_arena_replays,
    assert_outside_seat_matches, scripted_agent,
)
from .checks import (
    assert_deterministic, assert_money_conserved, assert_rate, assert_refusal_changes_nothing, assert_replays, play,
    rate_band,
)

__all__ = [
    "assert_arena_deterministic", "assert_arena_refusal_changes_nothing", "assert_arena_replays",
    "assert_outside_seat_matches", "scripted_agent",
    "assert_deterministic", "assert_money_conserved", "assert_rate", "assert_refusal_changes_nothing",
    "assert_replays", "play", "rate_band",
]

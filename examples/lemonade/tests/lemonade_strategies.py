"""Hypothesis strategies for the lemonade world: presets, seeds, configs and command lines."""

from __future__ import annotations

import attrs
from bizsim_lemonade import PRESETS, LemonadeConfig
from hypothesis import strategies as st

__all__ = ["configs", "lines", "presets", "seeds"]


def presets() -> st.SearchStrategy[str]:
    """A preset name."""
    return st.sampled_from(list(PRESETS))


def seeds() -> st.SearchStrategy[int]:
    """An episode seed."""
    return st.integers(0, 2**32 - 1)


def configs() -> st.SearchStrategy[LemonadeConfig]:
    """A short, valid season that varies what the mechanics depend on."""
    return st.builds(
        lambda base, **kw: attrs.evolve(PRESETS[base], **kw),
        presets(),
        horizon_days=st.integers(1, 12),
        daily_budget=st.integers(1, 4),
        initial_cash_cents=st.integers(0, 20_000),
        initial_lemons=st.integers(0, 80),
        lead_days=st.integers(1, 3),
        shelf_life_days=st.integers(1, 6),
        daily_rent_cents=st.integers(0, 2_000),
        customer_noise=st.floats(0.0, 1.0),
        forecast_accuracy=st.floats(0.0, 1.0),
    )


_VALID = st.one_of(
    st.builds("order --lemons {}".format, st.integers(1, 400)),
    st.builds("price --cents {}".format, st.integers(1, 1_200)),
    st.sampled_from(["status", "help", "help --command order", "run_day"]),
)
_BAD = st.sampled_from([
    "order", "order --lemons 0", "order --lemons -3", "order --lemons many", "order --lemons 100000",
    "price", "price --cents 0", "price --cents 99999", "price --cents 1.5", "sell --cups 3", "", "help --command nope",
    "order --lemons 5 --lemons 6", "status --verbose",
])


def lines() -> st.SearchStrategy[list[str]]:
    """A sequence of command lines, mostly valid, some refused, with days ended along the way."""
    return st.lists(st.one_of(_VALID, _VALID, _VALID, _BAD, st.just("run_day")), max_size=60)

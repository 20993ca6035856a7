"""Operation formula edges: growth of exactly one user, and content decay truncated, not rounded."""

from __future__ import annotations

import attrs
from bizsim.models.operation import OperationConfig
from bizsim.models.operation.dynamics import Dynamics

QUIET = OperationConfig(noise=False)


def test_growth_of_exactly_one_user_is_kept():
    """Base growth 1 with no quality or activity brings 1 user (only growth below 1 is floored to 0)."""
    dyn = Dynamics.of(attrs.evolve(QUIET, base_growth=1))
    assert 1 == dyn.growth(0.0, 0.0)
    assert 1 == Dynamics.of(QUIET).growth(0.1, 0.1, -0.9)  # int(17 x 0.1) = int(1.7)


def test_content_decay_truncates():
    """Volume 19 loses int(19 x 0.05) = int(0.95) = 0 items, not 1; volume 30 loses int(1.5) = 1, not 2."""
    dyn = Dynamics.of(QUIET)
    for volume, decayed in ((19, 0), (30, 1)):
        step = dyn.step(1000, volume, 0.5, 0.0, 0.0)  # activity 0: nothing created
        assert (decayed, 0, volume - decayed) == (step[10], step[9], step[1])

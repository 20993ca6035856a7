"""Float sums give the same value on every Python version: each world sums as its reference's interpreter did."""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import sys
from decimal import Decimal

import pytest
from bizsim.models.startup import StartupWorld
from bizsim.simcore.summation import compensated_sum, exact_mean, plain_sum
from hypothesis import given
from hypothesis import strategies as st

_SPECIALS = [0.0, -0.0, 1e308, -1e308, math.inf, -math.inf, 1e-308, 5e-324, 0.1, -0.1, 1e16, 1.0]


def _battery(n: int = 20_000):
    """Float lists of every kind: wide exponents, money-like values, specials, fractions."""
    rng = random.Random(2026)
    for _ in range(n):
        k = rng.randint(0, 8)
        kind = rng.random()
        if kind < 0.3:
            yield [rng.uniform(-1, 1) * 10.0 ** rng.randint(-20, 20) for _ in range(k)]
        elif kind < 0.6:
            yield [round(rng.uniform(0, 5000), 4) for _ in range(k)]
        elif kind < 0.8:
            yield [rng.choice(_SPECIALS) for _ in range(k)]
        else:
            yield [rng.randint(-10**6, 10**6) / rng.choice([1, 3, 7, 10, 1e4]) for _ in range(k)]


def _digest(fn) -> str:
    return hashlib.sha256(";".join(repr(fn(xs)) for xs in _battery()).encode()).hexdigest()[:16]


def test_compensated_sum_is_python_3_12s_sum_on_every_version():
    """The battery's sums, digested: the builtin ``sum`` of 3.12.1 and 3.13.0 gives 84ff6db7bee26115 (3.11: 51538ca9f7ead56f)."""
    assert "84ff6db7bee26115" == _digest(compensated_sum)


def test_plain_sum_is_python_3_11s_sum_on_every_version():
    assert "51538ca9f7ead56f" == _digest(plain_sum)


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the builtin sum compensates from Python 3.12 on")
@given(st.lists(st.one_of(st.floats(), st.sampled_from(_SPECIALS)), max_size=12))
def test_compensated_sum_equals_the_builtin_sum_of_this_python(xs):
    ours, builtin = compensated_sum(xs), sum(xs)
    assert repr(ours) == repr(builtin)  # repr: nan equals nan, and the sign of a zero counts


def test_task_progress_is_the_references_even_where_a_left_to_right_sum_rounds_differently():
    """YC-Bench (Python 3.12.1) reports 28.89 for this task; 3.11's ``sum`` would make it 28.9."""
    world = StartupWorld("default", 1)
    task = world.market[0]
    task.required = {"research": 15767, "inference": 7821, "data_environment": 6616}
    task.completed = {d: Decimal(q) for d, q in zip(task.required, ("1539.9829", "1763.4394", "5424.0235"))}
    assert 28.9 == round(plain_sum(map(float, task.completed.values())) / 30204 * 100, 2)
    assert 28.89 == world.call("task inspect", task_id=task.title)["progress_pct"]


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300), min_size=1,
                max_size=12))
def test_exact_mean_is_statistics_mean(xs):
    """Exact on every version: the freelance reference averages skills and price votes with ``statistics.mean``."""
    assert repr(float(statistics.mean(xs))) == repr(exact_mean(xs))


def test_a_skill_average_rounds_as_the_reference_rounds_it():
    """A left-to-right float mean of these ratings rounds to 82.39; the reference's ``statistics.mean`` to 82.38."""
    assert (82.38, 82.39) == (round(exact_mean([96.24, 68.63, 81.49, 83.18]), 2),
                              round(plain_sum([96.24, 68.63, 81.49, 83.18]) / 4, 2))
    with pytest.raises(ValueError):
        exact_mean([])

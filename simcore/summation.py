"""Float sums that do not depend on the Python version.

Python 3.12's ``sum`` compensates rounding errors (Neumaier) where 3.11's adds
left to right, so the same floats can sum to neighbouring values, and a
rounded figure (a skill average to the cent) can differ between versions.
Each world sums as the reference it reproduces did, on every version: the
EcoGym references ran on Python 3.10 (:func:`plain_sum`), YC-Bench on 3.12.1
(:func:`compensated_sum`). Where a reference averages with
``statistics.mean`` (exact on every version), :func:`exact_mean` gives the same
float much faster.
"""

from __future__ import annotations

from collections.abc import Iterable
import statistics
from functools import reduce
from math import isfinite
from operator import add

__all__ = ["compensated_sum", "exact_mean", "plain_sum"]


def plain_sum(values: Iterable[float], start: float = 0) -> float:
    """Left to right, rounding after each addition: the ``sum`` of Python 3.11 and earlier.

    >>> plain_sum([0.1] * 10), plain_sum([1e16, 1.0, -1e16])
    (0.9999999999999999, 0.0)
    """
    return reduce(add, values, start)


def compensated_sum(values: Iterable[float]) -> float:
    """``sum(values)`` of floats as Python 3.12 computes it (Neumaier's compensation), on any version.

    For floats only: each value goes through ``float()`` (3.12 adds integers in a float sum without
    compensation).

    The first value is added to the integer start ``0``; each later one
    carries its rounding error into a compensation term, added once at the
    end when it is nonzero and finite.

    >>> compensated_sum([0.1] * 10), compensated_sum([1e16, 1.0, -1e16]), compensated_sum([])
    (1.0, 1.0, 0)
    """
    it = iter(values)
    first = next(it, None)
    if first is None:
        return 0
    total = 0 + float(first)
    c = 0.0
    for v in it:
        x = float(v)
        t = total + x
        if abs(total) >= abs(x):
            c += (total - t) + x
        else:
            c += (x - t) + total
        total = t
    if c and isfinite(c):
        total += c
    return total


def exact_mean(values: Iterable[float]) -> float:
    """``statistics.mean`` of floats: the exact mean, rounded once to the nearest float (about 20 times faster).

    Each float is an exact binary fraction, so the sum is kept as one integer
    over a power of two, and Python's integer division rounds correctly.

    >>> values = [96.24, 68.63, 81.49, 83.18]
    >>> round(exact_mean(values), 2), round(plain_sum(values) / len(values), 2)
    (82.38, 82.39)
    """
    values = [float(v) for v in values]
    if not values:
        raise ValueError("exact_mean of no values")
    num, den = 0, 1
    try:
        for v in values:
            top, bottom = v.as_integer_ratio()  # bottom is a power of two
            if bottom > den:
                num *= bottom // den
                den = bottom
            num += top * (den // bottom)
    except (OverflowError, ValueError):  # an infinity or a NaN: statistics.mean's answer
        return float(statistics.mean(values))
    return num / (den * len(values))

"""A sum of floats that does not depend on the Python version.

Python 3.12's ``sum`` compensates rounding errors (Neumaier) where 3.11's adds
left to right, so the same floats can sum to neighbouring values, and a
rounded figure (a skill average to the cent) can differ between versions.
The EcoGym references run on Python 3.10; their worlds, and our agents, sum
floats as it does, on every version.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from operator import add

__all__ = ["plain_sum"]


def plain_sum(values: Iterable[float], start: float = 0) -> float:
    """Left to right, rounding after each addition: the ``sum`` of Python 3.11 and earlier.

    >>> plain_sum([0.1] * 10), plain_sum([1e16, 1.0, -1e16])
    (0.9999999999999999, 0.0)
    """
    return reduce(add, values, start)

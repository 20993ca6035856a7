"""The machine's pace, printed under every benchmark so figures from different runs and machines compare.

This project's build machine drifts by 10-25% within an hour; a figure read
next to the pace it was measured at tells a slow phase from a slowdown.
"""

from __future__ import annotations

import timeit


def machine_line() -> str:
    """One line: how long ``sum(range(1000))`` takes here (best of five), in microseconds."""
    pace = min(timeit.repeat("sum(range(1000))", number=2000, repeat=5)) / 2000 * 1e6
    return f"machine: sum(range(1000)) takes {pace:.1f} us here; figures scale with it across machines"
